"""`arbiter export --decisions` (arbiter.present.decisions): stored matches as per-seat
decisions in Parquet. The round trip (store -> file -> rows) gives back the decisions as
each seat took them: the tensor and mask its bot was given live, the action it played,
the match's outcome; only matches the disclosure rule lets be shown."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import sys

import pytest
from typer.testing import CliRunner

# Looked up, not imported: pyarrow (and numpy) would cost every xdist worker half a second
# of collection; the tests import it when they run.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None,
                                reason="the data extra (pip install -e '.[data]'); make venv installs it with dev")

from arbiter.cli import app  # noqa: E402
from arbiter.present import decisions as dx  # noqa: E402
from arbiter.store.db import Store  # noqa: E402
from cardarena.disclosure import Withheld  # noqa: E402
from cardarena.replay import replay_steps  # noqa: E402
from sdk import Bot  # noqa: E402
from sdk.encoding import encoder  # noqa: E402
from sdk.harness import play_match  # noqa: E402
from sdk.loading import load_bot  # noqa: E402

OPTIONS = {"deals": 1}


class Witness(Bot):
    """Plays as the heuristic and writes down, at each of its decisions, the encoding of
    the view and the legal actions the match gave it (what the export must give back)."""

    name = "witness"

    def __init__(self, seen: list) -> None:
        super().__init__()
        self.seen, self.inner = seen, load_bot("heuristic")

    def __deepcopy__(self, memo):  # the harness's copy per match writes to the same list
        return Witness(self.seen)

    def _start(self, info) -> None:
        super()._start(info)
        self.inner._start(info)
        self.enc = encoder(info.game, info.options)

    def choose(self, view, legal_actions):
        action = self.inner.choose(view, legal_actions)
        self.seen.append((view.seat, self.enc.encode(view), self.enc.mask(legal_actions), str(action)))
        return action


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    """A finished duplicate tournament of two Spades seatings (a witness at seats 0 and 2),
    a running duplicate one, and a finished Spot one (another encoding)."""
    db = tmp_path_factory.mktemp("decisions") / "arena.sqlite"
    seen: list = []
    with Store(db) as store:
        club = store.open_tournament("club", "spades", {"bots": ["witness", "random"], "duplicate": True})
        for idx, seed in enumerate((11, 12)):
            w, r = Witness(seen), load_bot("random")
            record = play_match("spades", [w, r, w, r] if idx == 0 else [r, w, r, w], seed=seed, options=OPTIONS)
            store.save_match(club.id, idx, 0, idx, record)
        store.mark_finished(club.id)
        live = store.open_tournament("live", "spades", {"bots": ["random"], "duplicate": True})
        store.save_match(live.id, 0, 0, 0, play_match("spades", [load_bot("random")] * 4, seed=13, options=OPTIONS))
        spot = store.open_tournament("spot", "spot", {"bots": ["random"], "duplicate": False})
        store.save_match(spot.id, 0, 0, 0, play_match("spot", [load_bot("random")] * 3, seed=14,
                                                       options={"players": 3, "hands": 1}))
        store.mark_finished(spot.id)
    return db, seen


def test_the_export_reads_back_as_the_stores_decisions_as_each_seat_took_them(store_path, tmp_path) -> None:
    db, seen = store_path
    out = tmp_path / "club.parquet"
    with Store(db, read_only=True) as store:
        written = dx.export(store, out, ["club"])
        matches = store.matches(store.tournament("club").id)
    rows, meta = dx.read(out)
    assert (written.decisions, written.matches) == (len(rows), 2)
    enc = encoder("spades", json.loads(meta["options"]))
    assert meta["game"] == "spades" and int(meta["observation_size"]) == enc.size == len(rows[0].observation)
    assert [s[0] for s in json.loads(meta["layout"])] == [s.name for s in enc.layout.segments]

    # the store's records, action by action: every recorded action is one row, in order
    by_match = {m.match_id: [r for r in rows if r.match_id == m.match_id] for m in matches}
    for m in matches:
        record, mine = m.record(), by_match[m.match_id]
        assert [(r.step, r.seat, r.action_text, r.forced, r.ms) for r in mine] == \
            [(i, a.seat, a.action, a.forced, a.ms) for i, a in enumerate(record.actions)]
        assert all(r.score == m.outcome.scores[r.seat] and r.rank == m.outcome.ranks[r.seat] for r in mine)
        assert {(r.deal, r.seating, r.tournament) for r in mine} == {(0, m.seating, "club")}
        assert all(r.bot == m.seats[r.seat] for r in mine)
        for seat in range(4):
            assert [r.decision for r in mine if r.seat == seat] == list(range(sum(r.seat == seat for r in mine)))
    for r in rows:
        assert r.action_mask[r.action] and str(enc.action_of(r.action)) == r.action_text

    # what the witness was given live, decision by decision, is what its rows hold
    witness_rows = [r for r in sorted(rows, key=lambda r: (r.match_id, r.step)) if r.bot == "witness"]
    assert len(witness_rows) == len(seen) > 40
    for r, (seat, x, mask, action) in zip(witness_rows, seen):
        assert (r.seat, r.action_text) == (seat, action)
        assert list(r.observation) == pytest.approx(x, abs=1e-6)
        assert [int(b) for b in r.action_mask] == mask

    # and the library's own rows from the store are the file's
    again = [d for m in matches for d in dx.decisions(m.record(), "club", m.deal, m.seating)]
    assert sorted(again, key=lambda d: (d.match_id, d.step)) == sorted(rows, key=lambda d: (d.match_id, d.step))


def test_no_row_carries_the_deal_seed_or_another_seats_cards(store_path, tmp_path) -> None:
    db, _ = store_path
    with Store(db, read_only=True) as store:
        dx.export(store, tmp_path / "club.parquet", ["club"])
        record = store.matches(store.tournament("club").id)[0].record()
    rows, meta = dx.read(tmp_path / "club.parquet")
    assert "seed" not in dx.COLUMNS and str(record.seed) not in json.dumps(meta)
    hand = encoder("spades", OPTIONS).layout["hand"]
    steps = replay_steps(record, full=True)  # every seat's cards at every step (a hand not looked at too)
    own = {s: replay_steps(record, s) for s in range(4)}  # each seat's own view: what it was shown
    checked = 0
    for r in rows:
        if r.match_id != record.match_id:
            continue
        view = own[r.seat][r.step].view
        held = {c for c in range(52) if r.observation[hand.start + c]}
        assert held == (set(view.hand) if view.hand_visible else set())
        views = steps[r.step].seat_views
        assert not held & set().union(*(set(views[s].hand) for s in range(4) if s != r.seat))
        checked += bool(held)
    assert checked > 20


def test_the_disclosure_rule_decides_what_is_exported(store_path, tmp_path) -> None:
    db, _ = store_path
    with Store(db, read_only=True) as store:
        with pytest.raises(Withheld, match="was interrupted with duplicate deals") as refused:  # nothing runs it
            dx.export(store, tmp_path / "live.parquet", ["live"])
        # said of the tournament named, not as if it were a match called 'every match of ...'
        assert str(refused.value).startswith("tournament 'live' was interrupted with duplicate deals"), refused.value
        assert "its matches' replays, seeds and results are withheld until it finishes" in str(refused.value)
        with pytest.raises(dx.ExportError, match="one file holds one encoding.*--tournament") as mixed:
            dx.export(store, tmp_path / "all.parquet")  # club (spades) and spot; live left out
        # two games: said in their names, not in two dumps of every option of each
        assert "is spot, but the export began with spades" in str(mixed.value), mixed.value
        assert "bag_penalty" not in str(mixed.value) and len(str(mixed.value)) < 300, mixed.value
        sel = dx.select(store)
        assert {t.name for t, _ in sel.matches} == {"club", "spot"}
        assert len(sel.withheld) == 1 and "tournament 'live'" in sel.withheld[0]
        written = dx.export(store, tmp_path / "spot.parquet", ["spot"])
    assert written.matches == 1 and not (tmp_path / "all.parquet").exists()
    assert not (tmp_path / "all.parquet.partial").exists()  # a failed export leaves no file behind


def test_the_command_writes_the_file_and_says_what_is_missing(store_path, tmp_path, monkeypatch) -> None:
    db, _ = store_path
    runner = CliRunner()
    out = tmp_path / "club.parquet"
    res = runner.invoke(app, ["export", "--decisions", "-t", "club", "-o", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    # the line names the file's path, so where it wraps depends on where the test's folder is
    assert "decisions of 2 matches" in " ".join(res.output.split()) and len(dx.read(out)[0]) > 100
    res = runner.invoke(app, ["export", "-o", str(out), "--db", str(db)])
    assert res.exit_code == 2 and "--decisions" in res.output
    # -o naming a store (the one read, by a slip of the keyboard) would replace it with the Parquet file
    store = tmp_path / "other.sqlite"
    shutil.copy(db, store)
    res = runner.invoke(app, ["export", "--decisions", "-t", "club", "-o", str(store), "--db", str(db)])
    assert res.exit_code == 2 and "is a store (SQLite)" in res.output, res.output
    assert store.read_bytes() == db.read_bytes()
    res = runner.invoke(app, ["export", "--decisions", "-t", "live", "-o", str(out), "--db", str(db)])
    assert res.exit_code == 2 and "duplicate deals" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["export", "--decisions", "-t", "nope", "-o", str(out), "--db", str(db)])
    assert res.exit_code == 2 and "no tournament 'nope'" in res.output
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if the data extra were not installed
    res = runner.invoke(app, ["export", "--decisions", "-t", "club", "-o", str(tmp_path / "x.parquet"), "--db", str(db)])
    assert res.exit_code == 2 and "pip install 'card-arena[data]'" in res.output


def test_a_decision_is_a_plain_row() -> None:
    assert tuple(f.name for f in dataclasses.fields(dx.Decision)) == dx.COLUMNS


def test_a_tournament_named_twice_is_exported_once(store_path, tmp_path) -> None:
    """``-t club -t 1`` (its name, then its id): one tournament, its rows once, not a
    training set with every decision twice."""
    db, _ = store_path
    with Store(db, read_only=True) as store:
        club = store.tournament("club")
        once = dx.export(store, tmp_path / "once.parquet", ["club"])
        twice = dx.export(store, tmp_path / "twice.parquet", ["club", str(club.id), "club"])
    assert (twice.decisions, twice.matches, twice.tournaments) == (once.decisions, once.matches, 1)
    assert (tmp_path / "twice.parquet").read_bytes() == (tmp_path / "once.parquet").read_bytes()


def test_two_option_sets_are_told_apart_by_the_options_that_differ() -> None:
    a = ("spades", json.dumps({"deals": 1, "target": 500}, sort_keys=True))
    b = ("spades", json.dumps({"deals": 2, "target": 500}, sort_keys=True))
    assert dx._differs(b, a) == "spades with deals=2, but the export began with deals=1"


def test_the_same_store_exports_the_same_bytes(store_path, tmp_path) -> None:
    """docs/datasets.md: rows in a fixed order, nothing of the moment: two exports are one file."""
    db, _ = store_path
    with Store(db, read_only=True) as store:
        dx.export(store, tmp_path / "a.parquet", ["club"])
        dx.export(store, tmp_path / "b.parquet", ["club"])
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_a_stored_record_that_does_not_replay_is_named_not_a_traceback(tmp_path) -> None:
    """A record altered in the store (or stored corrupt): the command names the match and
    why, in one line, and writes no file (it was a ReplayError traceback)."""
    record = play_match("spades", [load_bot("random")] * 4, seed=21, options=OPTIONS)
    i = next(i for i, a in enumerate(record.actions) if a.action.startswith("bid ") and a.action != "bid 2")
    record.actions[i] = dataclasses.replace(record.actions[i], action="bid 2" if record.actions[i].action != "bid 2" else "bid 3")
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("bad", "spades", {"bots": ["random"], "duplicate": False})
        store.save_match(t.id, 0, 0, 0, record)
        store.mark_finished(t.id)
    out = tmp_path / "bad.parquet"
    res = CliRunner().invoke(app, ["export", "--decisions", "-o", str(out), "--db", str(db)])
    assert res.exit_code == 2, res.output
    assert f"match {record.match_id} of tournament 'bad' does not replay" in " ".join(res.output.split()), res.output
    assert "Traceback" not in res.output and not out.exists()


def test_two_encodings_are_refused_before_any_match_is_stepped(store_path, tmp_path) -> None:
    """club (Spades) then spot: the export stepped every match of club before it met spot's
    and refused; a store's whole export could take minutes before its refusal. Each
    tournament's first match is read first, and the refusal names both tournaments."""
    db, _ = store_path
    stepped: list[int] = []
    with Store(db, read_only=True) as store:
        with pytest.raises(dx.ExportError) as mixed:
            dx.export(store, tmp_path / "all.parquet", on_match=lambda n, total: stepped.append(n))
    assert stepped == []
    assert str(mixed.value) == ("tournament 'spot' is spot, but the export began with spades (tournament 'club'): one "
                                "file holds one encoding; export one tournament at a time (--tournament NAME)")


def test_single_matches_are_each_a_deal_of_their_own(tmp_path) -> None:
    """`arbiter play` keeps its matches in a batch of single matches (play:GAME), every one
    of them stored at deal 0: the export's ``deal`` column said two matches of different
    seeds were seatings of one deal (docs/datasets.md: "the seatings of one duplicate deal
    share it"), and the standings counted the batch as one deal, never enough for an
    interval however many matches it held."""
    from arbiter.tournament.play import store_play

    db = tmp_path / "arena.sqlite"
    options = {"players": 3, "hands": 1}
    for seed in (2, 4, 6, 8):
        store_play(db, play_match("spot", [load_bot("heuristic"), load_bot("random"), load_bot("random")], seed=seed,
                                  options=options))
    with Store(db, read_only=True) as store:
        dx.export(store, tmp_path / "play.parquet")
    rows, _ = dx.read(tmp_path / "play.parquet")
    assert sorted({(r.match_id, r.deal, r.seating) for r in rows}, key=lambda t: t[1]) == [
        (m, d, 0) for d, m in enumerate(dict.fromkeys(r.match_id for r in rows))]
    shown = CliRunner().invoke(app, ["standings", "play:spot(hands=1,players=3)", "--db", str(db)],
                               env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "too few deals" not in shown.output, shown.output  # 4 deals: an interval


def test_reading_an_export_without_pyarrow_says_how_to_install_it(store_path, tmp_path, monkeypatch) -> None:
    """read() said "arbiter export --decisions writes Parquet with pyarrow", to one who reads."""
    db, _ = store_path
    with Store(db, read_only=True) as store:
        dx.export(store, tmp_path / "club.parquet", ["club"])
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(dx.ExportError, match=r"^the decisions' Parquet files \(arbiter export --decisions, and reading "
                                             r"them back\) need pyarrow, which is not installed: pip install"):
        dx.read(tmp_path / "club.parquet")
