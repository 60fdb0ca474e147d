"""A stored evaluation run again to more deals plays only the deals added, and its options are
stored as the game reads them (``-o deals=1`` and ``{"deals": 1}`` alike), an older store's
text options still resumed."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.rating.sprt import Sprt
from arbiter.store.db import Store, StoreError, run_holder
from arbiter.tournament.evaluate import CONTENT_KEY, default_name, evaluate


def test_an_evaluation_extended_to_more_deals_plays_only_the_deals_added(tmp_path) -> None:
    kw = dict(seed=2, options={"deals": 1})
    straight = evaluate("spades", "heuristic", "random", deals=4, **kw)
    played: list = []
    with Store(tmp_path / "e.sqlite") as store:
        first = evaluate("spades", "heuristic", "random", deals=2, store=store, **kw)
        more = evaluate("spades", "heuristic", "random", deals=4, store=store, progress=played.append, **kw)
        assert more.stored_as == first.stored_as and more.resumed == 4
        assert [(m.deal, m.rotation) for m in played] == [(2, 0), (2, 1), (3, 0), (3, 1)]  # the new deals alone
        assert more.matches == straight.matches
        tour = store.tournament(more.stored_as)
        assert (tour.spec["deals"], tour.planned, tour.done) == (4, 8, 8) and tour.finished is not None
        assert len(store.tournaments()) == 1
        # a secret seed (seed None): the named evaluation is extended on the seed it drew
        one = evaluate("spades", "heuristic", "random", deals=1, seed=None, options={"deals": 1}, store=store, name="s")
        two = evaluate("spades", "heuristic", "random", deals=2, seed=None, options={"deals": 1}, store=store, name="s",
                       progress=played.append)
        assert (two.seed, two.seed_source, two.resumed, len(played)) == (one.seed, "resumed", 2, 6)
        # fewer deals than stored under a name: refused as before, not cut
        with pytest.raises(StoreError, match="differs in deals"):
            evaluate("spades", "heuristic", "random", deals=1, store=store, name=more.stored_as, **kw)


def test_the_cli_extends_a_named_evaluation(tmp_path) -> None:
    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spot", "heuristic", "random", "-o", "hands=1", "--db", str(db), "--name", "ev"]
    assert CliRunner().invoke(app, [*args, "--deals", "2"]).exit_code == 0
    more = CliRunner().invoke(app, [*args, "--deals", "3"])
    assert more.exit_code == 0 and "resumed ev: 4 matches were already in" in " ".join(more.output.split()), more.output
    shown = CliRunner().invoke(app, ["tournament", "show", "ev", "--db", str(db)])
    assert "ev (id 1): spot, 6/6 matches" in shown.output and "state: finished" in shown.output, shown.output


def test_options_are_stored_typed_and_an_older_stores_text_options_resume(tmp_path) -> None:
    db, out = tmp_path / "e.sqlite", tmp_path / "e.json"
    args = ["evaluate", "spades", "heuristic", "random", "-o", "deals=1", "--deals", "2", "--db", str(db)]
    run = CliRunner().invoke(app, [*args, "--json", str(out)])
    assert run.exit_code == 0, run.output
    assert json.loads(out.read_text())["options"] == {"deals": 1}
    with Store(db) as store:
        (tour,) = store.tournaments()
        assert tour.spec["options"] == {"deals": 1}
        # the library's typed options are the same evaluation: resumed, nothing played
        again = evaluate("spades", "heuristic", "random", deals=2, options={"deals": 1}, store=store)
        assert again.stored_as == tour.name and again.resumed == 4
        # as an arbiter that stored -o's text kept it: its spec and the name it gave it
        old = {**tour.spec, "options": {"deals": "1"}}
        old_name = default_name({k: v for k, v in old.items() if k != CONTENT_KEY})
        store.db.execute("UPDATE tournaments SET name = ?, spec = ? WHERE id = ?",
                         (old_name, json.dumps(old, sort_keys=True), tour.id))
        store.db.commit()
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0 and f"resumed {old_name}: 4 matches" in " ".join(resumed.output.split()), resumed.output
    more = CliRunner().invoke(app, [*args[:-4], "--deals", "3", "--db", str(db)])  # extended, its options as stored
    assert more.exit_code == 0 and f"resumed {old_name}: 4 matches" in " ".join(more.output.split()), more.output
    with Store(db, read_only=True) as store:
        (tour,) = store.tournaments()
        assert tour.spec["options"] == {"deals": "1"} and tour.spec["deals"] == 3 and tour.done == 6


def test_fewer_deals_than_a_stored_evaluation_are_read_from_it_none_played_nothing_changed(tmp_path) -> None:
    """Its first deals are the run's (the same seed): read, not played again as a new evaluation,
    and the stored one is left as it was (its spec, its finish, its verdict, no run holding it)."""
    kw = dict(seed=2, options={"deals": 1})
    played: list = []
    with Store(tmp_path / "e.sqlite") as store:
        full = evaluate("spades", "heuristic", "random", deals=4, store=store, **kw)
        tour = store.tournament(full.stored_as)
        before = (tour.spec, tour.finished, tour.planned, store.verdict(tour.id))
        part = evaluate("spades", "heuristic", "random", deals=2, store=store, progress=played.append, **kw)
        assert played == [] and (part.stored_as, part.read_of, part.resumed, part.deals) == (full.stored_as, 4, 4, 2)
        assert part.matches == full.matches[:4]
        tour = store.tournament(full.stored_as)
        assert (tour.spec, tour.finished, tour.planned, store.verdict(tour.id)) == before
        assert len(store.tournaments()) == 1 and run_holder(store.path) is None

        # a sequential test that decided early: the same test on the same deals decides there again
        test = dict(seed=0, options={"deals": 1}, sprt=Sprt(0, 50, min_deals=3))
        decided = evaluate("spades", "heuristic", "random", deals=40, store=store, **test)
        k = decided.deals
        assert decided.sprt_state.stopped and k < 20
        verdict = store.verdict(store.tournament(decided.stored_as).id)
        again = evaluate("spades", "heuristic", "random", deals=20, store=store, progress=played.append, **test)
        assert played == [] and again.read_of == 40 and again.matches == decided.matches
        assert again.sprt_state.decision == decided.sprt_state.decision and again.deals == k
        short = evaluate("spades", "heuristic", "random", deals=k - 1, store=store, progress=played.append, **test)
        assert played == [] and short.read_of == 40 and not short.sprt_state.stopped and short.deals == k - 1
        assert store.verdict(store.tournament(decided.stored_as).id) == verdict and len(store.tournaments()) == 2

        # named: fewer deals are refused as before (the name says which evaluation, and it has more)
        with pytest.raises(StoreError, match="differs in deals"):
            evaluate("spades", "heuristic", "random", deals=1, store=store, name=full.stored_as, **kw)


def test_the_cli_says_a_shorter_run_was_read_from_a_longer_one(tmp_path) -> None:
    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spot", "heuristic", "random", "-o", "hands=1", "--db", str(db)]
    assert CliRunner().invoke(app, [*args, "--deals", "3"]).exit_code == 0
    fewer = CliRunner().invoke(app, [*args, "--deals", "2"])
    text = " ".join(fewer.output.split())
    assert fewer.exit_code == 0 and "(its first 2 of 3 deals, the same seed): 4 matches, none played" in text, text
    assert "matches 4" in text and "its 3 deals in" in text, text


def test_a_shorter_run_read_from_one_its_test_stopped_counts_the_deals_it_holds(tmp_path) -> None:
    """A stored evaluation its sequential test stopped early (15 of its 40 deals) holds 15 deals;
    a run of 20 read from it said "(its first 20 of 40 deals ...)" and "its 40 deals in DB",
    deals never played, beside "matches 30"."""
    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spades", "heuristic", "random", "-o", "deals=1", "--sprt", "0,50", "--db", str(db)]
    decided = CliRunner().invoke(app, [*args, "--deals", "40"])
    assert decided.exit_code == 0 and "H1 accepted after 15 deals" in decided.output, decided.output
    for deals, first in (("20", "the 15"), ("10", "its first 10 of the 15")):
        read = CliRunner().invoke(app, [*args, "--deals", deals])
        text = " ".join(read.output.split())
        assert read.exit_code == 0, read.output
        assert f"({first} deals its sequential test stopped it after (of 40 planned), the same seed): " in text, text
        assert "its 15 deals (of 40 planned: its test stopped it) in" in text and "of 40 deals" not in text, text


def test_the_same_command_after_a_bot_file_was_edited_says_it_begins_a_new_evaluation_and_why(tmp_path):
    """Found by the evaluate review: editing a bot file and running the same command again began
    a new evaluation in silence (its default name hashes the files), while the old one's note
    said that the same command resumes it."""
    bot, db = tmp_path / "mine.py", tmp_path / "e.sqlite"
    code = "from sdk import Bot\n\nclass M(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n" \
           "    def choose(self, view, legal_actions):\n        return legal_actions[{}]\n"
    bot.write_text(code.format(0))
    args = ["evaluate", "spades", str(bot), "random", "--deals", "1", "-o", "deals=1", "--seed", "3",
            "--transport", "inproc", "--db", str(db)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0 and "a new evaluation" not in first.output, first.output
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "resumed" in again.output and "a new evaluation" not in again.output, again.output
    bot.write_text(code.format(-1))
    edited = CliRunner().invoke(app, args)
    said = " ".join(edited.output.split())
    assert edited.exit_code == 0 and f"{bot} changed since evaluate-spades-" in said, edited.output
    assert "played with the file as it was (put it back to resume that one with this command;" in said
    assert "on a new seed" not in said and "unfinished" not in said  # --seed 3: the same seed, finished
    # said as the run starts, not only in its report: a run cut off (Ctrl-C, here from the bot) says it too
    bot.write_text(code.format(0).replace("return legal_actions[0]", "raise KeyboardInterrupt"))
    cut = CliRunner().invoke(app, args)
    said = " ".join(cut.output.split())
    assert cut.exit_code == 130 and f"{bot} changed since evaluate-spades-" in said and "interrupted: " in said, said


def test_on_a_secret_seed_a_bot_file_edited_since_an_unfinished_evaluation_says_the_run_is_new_and_why(tmp_path):
    """No --seed, a bot file: the same command after the file was edited drew a new seed and began
    a new evaluation in silence, while the unfinished one stayed listed as resumed by "the arbiter
    evaluate command that started it" (which now began another). It says so, which file changed,
    and the ways on: the file put back, the same command resumes the old one; --name OLD --fresh
    replaces it."""
    bot, db = tmp_path / "mine.py", tmp_path / "e.sqlite"
    code = "from sdk import Bot\n\nclass M(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n" \
           "    def choose(self, view, legal_actions):\n        return legal_actions[{}]\n"
    bot.write_text(code.format(0))

    class Cut(Exception):
        pass

    def cut(r) -> None:
        raise Cut

    with Store(db) as store, pytest.raises(Cut):
        evaluate("spades", str(bot), "random", deals=2, seed=None, options={"deals": 1}, store=store, on_deal=cut,
                 transport="inproc")
    with Store(db, read_only=True) as store:
        (old,) = store.tournaments()
    assert old.finished is None
    args = ["evaluate", "spades", str(bot), "random", "--deals", "2", "-o", "deals=1", "--transport", "inproc",
            "--db", str(db)]
    bot.write_text(code.format(-1))
    edited = CliRunner().invoke(app, args)
    said = " ".join(edited.output.split())
    assert edited.exit_code == 0, edited.output
    assert (f"on a new seed: {bot} changed since {old.name} (left unfinished) in {db}, which was played with the file "
            "as it was (put it back to resume that one with this command; none deletes it: "
            f"--name {old.name} --fresh plays this file's evaluation in its place)") in said, said
    bot.write_text(code.format(0))  # put back: the same command resumes it
    back = CliRunner().invoke(app, args)
    assert back.exit_code == 0 and f"resumed {old.name}: 2 matches" in back.output, back.output
    assert "a new evaluation" not in back.output
    bot.write_text(code.format(-1))  # none unfinished left: a new seed, as after any finished one
    with Store(db, read_only=True) as store:
        (made,) = [t.name for t in store.tournaments() if t.name != old.name]  # the edited file's, finished
    again = CliRunner().invoke(app, args)
    said = " ".join(again.output.split())
    # no file changed since the one it would continue (there is none): only that the same command's
    # finished evaluation, of these very files, is not continued (test_evaluate.py's note, with its way on)
    assert again.exit_code == 0 and "changed since" not in said and old.name not in said, said
    assert f"on a new seed: {made} in {db}, of the same bots and settings, is finished" in said, said


def test_a_longer_evaluation_cut_off_before_the_runs_deals_is_not_read_and_left_as_it_was(tmp_path) -> None:
    """A longer stored evaluation that does not hold every deal a shorter run counts (cut off
    after its first deal) is no source: the shorter run is an evaluation of its own under its
    default name, playing every deal, and the longer one is left as it was (still resumable)."""
    kw = dict(seed=2, options={"deals": 1})

    class Cut(Exception):
        pass

    def cut_after_one(r) -> None:
        if r.deals == 1:
            raise Cut

    played: list = []
    with Store(tmp_path / "e.sqlite") as store:
        with pytest.raises(Cut):
            evaluate("spades", "heuristic", "random", deals=4, store=store, on_deal=cut_after_one, **kw)
        (long,) = store.tournaments()
        before = (long.spec, long.finished, long.done)
        assert long.done == 2 and long.finished is None
        short = evaluate("spades", "heuristic", "random", deals=2, store=store, progress=played.append, **kw)
        assert short.read_of is None and short.resumed == 0 and len(played) == 4
        assert short.stored_as != long.name and len(store.tournaments()) == 2
        assert short.matches == evaluate("spades", "heuristic", "random", deals=2, **kw).matches
        again = store.tournament(long.name)
        assert (again.spec, again.finished, again.done) == before
        # the longer one still resumes with its own command, playing only what it lacks
        played.clear()
        full = evaluate("spades", "heuristic", "random", deals=4, store=store, progress=played.append, **kw)
        assert full.stored_as == long.name and full.resumed == 2 and len(played) == 6
