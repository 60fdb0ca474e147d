"""The analysis bench's one line per game: a part not measured says so."""

from __future__ import annotations

from collections import Counter

from arbiter.tools.analysis_bench import GameFigures


def test_a_part_not_measured_is_said_not_measured():
    """``--blunders 0 --no-stability`` printed "blunder marked 0/0; same verdict under two
    seeds 0/0 (0.000; ...": a stability of nothing, read beside the 0.95 target as a
    failure. The parts left out say so; the ones measured read as before."""
    fig = GameFigures("spades")
    fig.verdicts = {"random": Counter(mistake=4, unsure=6), "heuristic": Counter(mistake=1, fine=9)}
    line = fig.line()
    assert "blunders not played" in line and "same verdict under two seeds not measured" in line, line
    assert "0/0" not in line and "(0.000" not in line, line
    assert "separation 4.0x" in line and "method 8 (no edge extension): mistakes 0 and 0" in line, line
    fig.blunders, fig.blunders_marked, fig.compared, fig.same = 10, 9, 20, 19
    line = fig.line()
    assert "blunder marked 9/10" in line and "same verdict under two seeds 19/20 (0.950;" in line, line


def test_planted_blunders_alone_say_separation_was_not_measured():
    """``--matches 0 --blunders 2``: the line said "random 0/0 mistakes (0.000 ...):
    separation 0.0x", a failed target beside the blunders it did measure."""
    fig = GameFigures("spot")
    fig.blunders, fig.blunders_marked = 2, 2
    line = fig.line()
    assert line.startswith("spot: separation not measured; blunder marked 2/2;"), line
    assert "0.0x" not in line and "0/0" not in line, line
