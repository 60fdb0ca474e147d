"""A stored evaluation's verdict (``arbiter evaluate --sprt --db``): kept with it in the store,
replaced by a later run of it, and shown in the same words wherever the evaluation is shown
(``tournament show``, the standings and their exports, the web page, ``--json``)."""

from __future__ import annotations

import html
import json

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.present.web import tournament_page
from arbiter.rating.betting import BettingTest, known_bounds
from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate
from arbiter.tournament.run import load_standings


def flat(text: str) -> str:
    """Text as words: a terminal wraps a long line where its width ends."""
    return " ".join(text.split())


def test_the_verdict_is_stored_and_shown_in_the_same_words_everywhere(tmp_path) -> None:
    db, out = tmp_path / "e.sqlite", tmp_path / "e.json"
    run = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "-o", "deals=1", "--sprt", "0,50",
                                   "--deals", "30", "--db", str(db), "--name", "ev", "--json", str(out)])
    assert run.exit_code == 0, run.output
    verdict = json.loads(out.read_text())["verdict"]  # --json: the line the terminal printed
    assert "H1 accepted after 15 deals" in verdict and flat(verdict) in flat(run.output)
    with Store(db, read_only=True) as store:
        kept = store.verdict(store.tournament("ev").id)
        page = html.unescape(tournament_page(store, "ev"))
    assert kept is not None and (kept.text, kept.decision, kept.deals, kept.final) == (verdict, "H1", 15, True)
    said = f"verdict of its sequential test: {verdict}"
    shown = CliRunner().invoke(app, ["tournament", "show", "ev", "--db", str(db)])
    assert shown.exit_code == 0 and f"verdict of its sequential test: {flat(verdict)}" in flat(shown.output), shown.output
    table = CliRunner().invoke(app, ["standings", "ev", "--db", str(db)])
    assert table.exit_code == 0 and flat(f"V{said[1:]}.") in flat(table.output), table.output
    exported = json.loads(CliRunner().invoke(app, ["standings", "ev", "--db", str(db), "-f", "json"]).output)
    assert exported["notes"]["verdict"] == f"V{said[1:]}." and exported["tournament"]["verdict"] == verdict
    for fmt in ("md", "html"):
        text = CliRunner().invoke(app, ["standings", "ev", "--db", str(db), "-f", fmt]).output
        assert html.unescape(text).count(f"V{said[1:]}.") == 1, fmt
    assert f'<p id="verdict" class="note">V{said[1:]}.</p>' in page


class Interrupted(Exception):
    pass


def test_an_interrupted_run_says_undecided_so_far_and_the_run_that_decides_replaces_it(tmp_path) -> None:
    kw = dict(deals=30, seed=0, options={"deals": 1}, sprt=BettingTest(0, 50, *known_bounds("spades", {"deals": 1})))

    seen = []

    def stop_after_three(r) -> None:
        # as each deal is played, the store holds where the test stands: a run killed outright leaves it
        seen.append(store.verdict(store.tournament("ev").id).deals)
        if r.deals == 3:
            raise Interrupted

    with Store(tmp_path / "e.sqlite") as store:
        with pytest.raises(Interrupted):
            evaluate("spades", "heuristic", "random", store=store, name="ev", on_deal=stop_after_three, **kw)
        tid = store.tournament("ev").id
        cut = store.verdict(tid)
        assert cut is not None and (cut.final, cut.decision, cut.deals) == (False, None, 3)
        assert seen == [1, 2, 3] and "undecided so far after 3 deals (its cap: --deals 30)" in cut.text
        assert "no decision" not in cut.text and "the cap" not in cut.text
        _, info = load_standings(store, "ev")
        assert info["state"] == "interrupted" and info["verdict"] == cut.text
        seen.clear()
        done = evaluate("spades", "heuristic", "random", store=store, name="ev",
                        on_deal=lambda r: seen.append(store.verdict(tid).deals), **kw)
        # the stored deals are read, not written again; the deals played after them are
        assert seen[:4] == [3, 3, 3, 4] and done.deals == 15
        kept = store.verdict(tid)
        assert kept is not None and kept.final and kept.decision == "H1" and kept.text == done.sprt_summary()
        assert kept.state == done.sprt_state.to_json()
        # --fresh replaces the evaluation, and its verdict with it: a run without a test has none
        evaluate("spades", "heuristic", "random", store=store, name="ev", fresh=True, deals=1, seed=0,
                 options={"deals": 1})
        assert store.verdict(store.tournament("ev").id) is None


def test_a_store_written_before_verdicts_were_kept_reads_without_one(tmp_path) -> None:
    db = tmp_path / "old.sqlite"
    with Store(db) as store:
        evaluate("spot", "heuristic", "random", deals=1, seed=0, options={"hands": 1}, store=store, name="ev")
        store.db.execute("DROP TABLE verdicts")  # as a store written before the table was
        store.db.commit()
    with Store(db, read_only=True) as store:
        assert store.verdict(store.tournament("ev").id) is None
        _, info = load_standings(store, "ev")
        assert info["verdict"] is None and "verdict" not in tournament_page(store, "ev")
    shown = CliRunner().invoke(app, ["tournament", "show", "ev", "--db", str(db)])
    assert shown.exit_code == 0 and "verdict" not in shown.output, shown.output


def test_an_extension_says_undecided_so_far_before_its_first_new_deal_is_played(tmp_path) -> None:
    """Run again to more deals, the stored evaluation is running again: its stored verdict (the
    earlier run's, final at that cap) is undecided so far from the start, not once a new deal ends."""
    from arbiter.rating.sprt import Sprt

    db = tmp_path / "e.sqlite"
    kw = dict(seed=0, options={"deals": 1}, sprt=Sprt(0, 50), name="ev")
    shown: list[str] = []

    def look(_match) -> None:  # as the first new match ends, before its deal is counted
        if not shown:
            shown.append(flat(CliRunner().invoke(app, ["tournament", "show", "ev", "--db", str(db)]).output))

    with Store(db) as store:
        first = evaluate("spades", "heuristic", "random", deals=2, store=store, **kw)
        assert "no decision after 2 deals (the cap, --deals 2)" in first.sprt_summary()
        evaluate("spades", "heuristic", "random", deals=3, store=store, progress=look, **kw)
    assert "undecided so far after 2 deals (its cap: --deals 3)" in shown[0], shown[0]
    assert "no decision" not in shown[0] and "state: in progress" in shown[0], shown[0]
