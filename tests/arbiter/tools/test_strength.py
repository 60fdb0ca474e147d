"""The strength table's command (arbiter.tools.strength): one small seeded row, and the
table written between its markers. The table itself is a measurement: docs/strength.md."""

from __future__ import annotations

import pytest

from arbiter.tools import strength
from arbiter.tournament.evaluate import EvalResult, MatchMargin


def test_a_seeded_row_replays_and_the_table_lands_between_the_markers(tmp_path) -> None:
    rows = strength.measure(["random"], deals=3, seed=4, jobs=1, games=("spades",))
    again = strength.measure(["random"], deals=3, seed=4, jobs=1, games=("spades",))
    assert [(g, b, r.deal_margins()) for g, b, r, _ in rows] == [(g, b, r.deal_margins()) for g, b, r, _ in again]
    (game, bot, result, _), = rows
    assert (game, bot, result.deals) == ("spades", "random", 3)
    assert result.margin.mean < 0  # the heuristic, the anchor, beats random
    text = strength.table(rows, 3, 4, 1)
    assert "| spades (one deal) | random |" in text and "--deals 3 --seed 4" in text
    doc = tmp_path / "strength.md"
    doc.write_text(f"# Strength\n\nbefore\n{strength.BEGIN}\nold table\n{strength.END}\nafter\n")
    strength.write(doc, text)
    written = doc.read_text()
    assert "old table" not in written and text in written and written.startswith("# Strength\n\nbefore\n")
    assert written.endswith(f"{strength.END}\nafter\n")
    (tmp_path / "plain.md").write_text("no markers")
    # the Regenerate line is the command that made the table, a hosted reference bot's folder included
    cmd = strength.command(8, 1, 2, bots=("examples/openspiel-ismcts",), games=("spades",), only=("dds",))
    assert cmd == ("ARENA_INSTALL_BOT_ENVS=1 python -m arbiter.tools.strength --only dds --bot examples/openspiel-ismcts "
                   "--game spades --deals 8 --seed 1 -j 2 --write docs/strength.md")
    assert f"Regenerate: `{cmd}`." in strength.table(rows, 8, 1, 2, cmd)
    with pytest.raises(ValueError, match="markers"):
        strength.write(tmp_path / "plain.md", text)


def test_a_row_whose_every_deal_is_alike_gets_no_interval() -> None:
    # IS-MCTS lost every Spite and Malice game of its row: a standard error of 0 is no spread
    # to estimate from, not a certainty, so the table prints no [-1.00, -1.00]
    lost = EvalResult("spite-and-malice", "ismcts", "heuristic", 3, 1, {},
                      [MatchMargin(d, r, 0, -1.0, "payoff") for d in range(3) for r in (0, 1)])
    text = strength.table([("spite-and-malice", "ismcts", lost, 1.0)], 3, 1, 1)
    assert "**-1.00** (every deal alike: no interval) games" in text and "[-1.00" not in text


SPADES_ONLY = '''
from sdk import Bot


class SpadesOnly(Bot):
    name = "spades-only"
    games = ("spades",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
'''


@pytest.mark.e2e
def test_a_hosted_bot_is_left_out_of_a_game_it_does_not_play(tmp_path) -> None:
    """A --bot folder is measured in each game it plays, as a bundled bot is: a learned
    Spades policy in the full table (all three games) ended in a ConfigError traceback at
    Spot, and the Spades row already measured was lost with it."""
    bot = tmp_path / "spades_only.py"
    bot.write_text(SPADES_ONLY)
    said: list[str] = []
    rows = strength.measure([str(bot)], deals=2, seed=1, jobs=1, say=said.append, games=("spot",),
                            hosted=frozenset({str(bot)}))
    assert rows == []
    assert said[-1] == f"spot: {bot} left out: bot '{bot}' does not play spot (it plays spades)"
