"""The arena's ladder in process (``transport = "inproc"``, trusted bots): ratings that
recompute identically, crash safety of the encounter writes, matchmaking, suspension,
new versions, concurrency, and the settings file."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sys
import textwrap
from dataclasses import replace

import pytest

from arbiter.hosting.botcheck import Check, Report
from arbiter.store.arenas import Arenas, PlayedMatch
from arbiter.store.db import Store, StoreError
from arbiter.store.registry import Registry, RegistryError, Submission
from arbiter.arena import matchmaking
from arbiter.arena.ladder import Arena, ArenaSpec, arena_from_dict, recompute, verify
from arbiter.rating.betting import BettingState, BettingTest
from arbiter.rating.ratings import forfeit_stake
from arbiter.rating.sprt import Sprt
from arbiter.tournament.spec import SpecError

SPADES = {"deals": 1}

CRASHER = """
    from sdk import Bot

    class Crasher(Bot):
        name = "crasher"
        games = ("*",)

        def choose(self, view, legal_actions):
            raise RuntimeError("out of ideas")
"""


def _spec(**kw) -> ArenaSpec:
    base = dict(game="spades", name="t", options=SPADES, house=("random", "greedy", "heuristic"), transport="inproc", seed=11)
    base.update(kw)
    return ArenaSpec(**base)


def _run(arena: Arena, n: int) -> None:
    asyncio.run(arena.run(max_encounters=n))


def test_ratings_recomputed_from_the_store_are_the_stored_ones_and_a_restart_goes_on(tmp_path):
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(), db, poll=0)
    _run(a, 12)
    assert a.finished == 12 and verify(a.tables, a.row) == []
    first = {e.player: (e.mu, e.sigma) for e in a.entrants.values()}
    assert recompute(a.tables, a.row) == first
    a.close()
    b = Arena(_spec(), db, poll=0)  # the same command again
    _run(b, 6)
    encs = b.tables.encounters(b.row.id)
    assert [e.seq for e in encs] == list(range(18)) and len(b.tables.matches(b.row.id)) == 36
    assert verify(b.tables, b.row) == [] and recompute(b.tables, b.row) == {p: (e.mu, e.sigma) for p, e in b.entrants.items()}
    table = matchmaking.standings(b.entrants.values())
    assert [r.player for r in table][-1] == "random"  # the weakest by far
    assert all(r.low < r.mu < r.high for r in table) and table[0].los_next is not None
    b.close()


def test_a_cut_off_encounter_is_abandoned_and_never_counted_and_a_commit_is_all_or_nothing(tmp_path):
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(), db, poll=0)
    _run(a, 2)
    cut = a.tables.begin_encounter(a.row.id, ("random", "greedy"), 123)  # as if killed while it played
    a.close()
    b = Arena(_spec(), db, poll=0)
    b.open()
    assert b.abandoned == 1 and b.tables.encounter(b.row.id, cut).status == "abandoned"
    with pytest.raises(StoreError, match="abandoned, not playing"):
        b.tables.finish_encounter(b.row.id, cut, [], {}, {})
    # a commit that fails half way leaves nothing behind
    idx = b.tables.begin_encounter(b.row.id, ("random", "greedy"), 7)
    good = b.tables.matches(b.row.id, 0)[0].record()
    unfinished = dataclasses.replace(good, match_id="x-1", outcome=None)
    with pytest.raises(ValueError, match="did not finish"):
        b.tables.finish_encounter(b.row.id, idx, [PlayedMatch(0, 0, 0, ("random", "greedy"), dataclasses.replace(good, match_id="x-0")),
                                                  PlayedMatch(1, 0, 1, ("greedy", "random"), unfinished)], {}, {})
    assert b.tables.matches(b.row.id, idx) == [] and b.tables.encounter(b.row.id, idx).status == "playing"
    assert verify(b.tables, b.row) == []
    b.close()


def test_a_ladder_keeps_its_rules(tmp_path):
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(), db, poll=0)
    a.open()
    a.close()
    with pytest.raises(StoreError, match="other settings.*deals"):
        Arena(_spec(deals=2), db).open()
    Arena(_spec(house=("random", "greedy")), db).open()  # house bots, concurrency... may change


def test_matchmaking_puts_newcomers_first_prefers_close_uncertain_pairs_and_starves_no_one():
    C = matchmaking.Candidate
    settled = [C("a", 30, 1, 50, 0), C("b", 29.5, 1, 50, 0), C("c", 20, 1, 50, 0), C("d", 19, 3, 50, 0)]
    assert set(matchmaking.pick(settled, 2)) == {"c", "d"}  # close, and d is still uncertain
    assert set(matchmaking.pick(settled, 2, busy={"d"})) == {"a", "b"}
    newcomer = C("new", matchmaking.MU, matchmaking.SIGMA, 0, 0, joined=5.0)
    assert "new" in matchmaking.pick([*settled, newcomer], 2)
    starving = [*settled[:2], C("c", 20, 1, 50, 0), C("z", 5, 1, 50, 100)]
    assert "z" in matchmaking.pick(starving, 2)
    assert matchmaking.pick(settled[:1], 2) is None
    # close ratings teach more than far ones, wide intervals more than narrow ones
    assert matchmaking.expected_gain([(25, 2), (25, 2)]) > matchmaking.expected_gain([(25, 2), (35, 2)])
    assert matchmaking.expected_gain([(25, 4), (25, 4)]) > matchmaking.expected_gain([(25, 1), (25, 1)])
    assert len(matchmaking.pick([*settled, C("e", 25, 2, 9, 0)], 4)) == 4  # free for all: a table of four


def test_every_bot_keeps_playing(tmp_path):
    a = Arena(_spec(house=("random", "greedy", "heuristic", "g2=greedy")), tmp_path / "a.sqlite", poll=0)
    _run(a, 30)
    assert all(e.encounters >= 3 for e in a.entrants.values()), {p: e.encounters for p, e in a.entrants.items()}
    a.close()


def test_a_bot_that_keeps_forfeiting_is_suspended_with_the_reason(tmp_path):
    crasher = tmp_path / "crasher.py"
    crasher.write_text(textwrap.dedent(CRASHER))
    a = Arena(_spec(house=("random", f"crasher={crasher}")), tmp_path / "a.sqlite", poll=0)
    _run(a, 3)
    e = a.entrants["crasher"]
    assert e.status == "suspended" and e.streak == 3 and e.failures == 6
    assert "3 encounters in a row" in e.reason and "out of ideas" in e.reason
    enc = a.tables.encounters(a.row.id)[-1]
    assert "out of ideas" in enc.failures["crasher"]
    assert matchmaking.pick(a.candidates(), 2) is None  # nobody left to play random
    a.close()


def _register(reg: Registry, version: str, body: str = "legal_actions[0]") -> None:
    code = f"from sdk import Bot\n\nclass M(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n" \
           f"    def choose(self, view, legal_actions):\n        return {body}\n"
    report = Report("mine", {"name": "mine", "version": version, "games": ["spades"]}, [Check("verify:spades", True)])
    reg.add("mine", version, Submission({"bot.py": code.encode()}, "bot.py"), report, "alice")


def test_a_new_version_replaces_its_predecessor_and_keeps_its_history(tmp_path):
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
        a = Arena(_spec(house=("random",)), db, poll=0)
        _run(a, 2)
        assert a.entrants["mine@1"].status == "active" and a.entrants["mine@1"].encounters == 2
        _register(reg, "2", "legal_actions[-1]")
        a.sync_entrants()
        assert a.entrants["mine@1"].status == "replaced" and "version 2" in a.entrants["mine@1"].reason
        assert a.entrants["mine@2"].status == "active"
        _run(a, 4)
        assert a.entrants["mine@1"].encounters == 2 and a.entrants["mine@2"].encounters >= 2
        assert len(a.tables.encounters(a.row.id, player="mine@1")) == 2  # history kept
        reg.remove("mine", "2", "alice")
        a.sync_entrants()
        assert a.entrants["mine@2"].status == "withdrawn"
        a.close()


def test_a_house_bot_named_by_its_registered_version_plays_once_as_a_house_bot(tmp_path):
    """``house = ["random", "mine@1"]``, mine@1 being the latest registered version: the arena
    entered it as a submission (mine@1) and then as a house bot of the same name, and stopped
    at once: "the store cannot be used: UNIQUE constraint failed: arena_entrants.arena_id,
    arena_entrants.player". It plays as the house bot it was named as, once."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
    a = Arena(_spec(house=("random", "mine@1")), db, poll=0)
    _run(a, 2)
    assert a.finished == 2 and sorted(a.entrants) == ["mine@1", "random"]
    assert a.entrants["mine@1"].author == "house" and a.entrants["mine@1"].encounters == 2
    a.close()


@pytest.mark.parametrize("store", [False, True])
def test_a_house_bot_the_registry_does_not_hold_is_refused_at_the_start(tmp_path, store):
    """``house = ["random", "mine@2"]`` where the store holds no mine@2 (or there is no store):
    every encounter failed with a traceback, and the 20th stopped the arena with a RuntimeError
    (in a new store it had just made). Refused as it opens, saying which and why, no store made."""
    db = tmp_path / "a.sqlite"
    if store:
        Store(db).close()
        with Registry(db) as reg:
            _register(reg, "1")
    a = Arena(_spec(house=("random", "mine@2")), db, poll=0)
    why = "mine has version 1" if store else "no store at"
    with pytest.raises(SpecError, match=f"house: 'mine@2': no bot 'mine@2'.*{why}"):
        a.open()
    assert db.exists() == store


def test_a_version_removed_from_the_registry_while_the_arena_runs_withdraws_it_not_its_opponent(tmp_path):
    """``arbiter bots remove`` (another process) between the arena's look at the registry and
    an encounter's start: the encounter is not played and the removed version is withdrawn.
    Before, the encounter's first registered player was withdrawn, whichever one's copy was
    gone: here the bot that had done nothing wrong, while the removed one stayed active."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
        report = Report("other", {"name": "other", "version": "1", "games": ["spades"]}, [Check("verify:spades", True)])
        reg.add("other", "1", Submission({"bot.py": HEURISTIC_MINE.replace("'mine'", "'other'").encode()}, "bot.py"),
                report, "bob")
        a = Arena(_spec(house=()), db, poll=0)
        a.open()
        a.sync_entrants()
        assert {"mine@1", "other@1"} <= set(a.entrants)
        reg.remove("other", "1", "bob")
        assert asyncio.run(a.encounter(("mine@1", "other@1"))) is None
        assert a.entrants["other@1"].status == "withdrawn" and "cannot be used" in a.entrants["other@1"].reason
        assert a.entrants["mine@1"].status == "active", a.entrants["mine@1"].reason
        a.close()


#: A registered bot whose first decision removes its own version from the registry: what
#: ``arbiter bots remove mine 1`` in another process does while the bot plays an encounter.
REMOVED_WHILE_PLAYING = """
from sdk import Bot
from arbiter.store.registry import Registry

class M(Bot):
    name = "mine"
    games = ("spades",)
    removed = []

    def choose(self, view, legal_actions):
        if not self.removed:
            with Registry({db!r}) as registry:
                registry.remove("mine", "1", "alice")
            self.removed.append(True)
        return legal_actions[0]
"""


def test_an_encounter_of_a_version_removed_while_it_played_is_abandoned_never_counted(tmp_path):
    """``arbiter bots remove`` while the version plays an encounter: the encounter is cut
    off (abandoned, never counted, as one a stop cuts off), the version withdrawn, and its
    opponent's rating is not moved by it. Before, it was stored as done: a hosted bot's seats
    after the removal were forfeits ("bot file or folder not found"), its opponent rated up
    by wins the copy's removal gave it."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register_code(reg, "1", REMOVED_WHILE_PLAYING.format(db=str(db)))
    a = _opened(db)
    before = (a.entrants["random"].mu, a.entrants["random"].sigma)
    assert asyncio.run(a.encounter(("mine@1", "random"))) is None
    [enc] = a.tables.encounters(a.row.id, None)
    assert enc.status == "abandoned" and a.tables.matches(a.row.id) == []
    assert a.entrants["mine@1"].status == "withdrawn" and "removed from the registry" in a.entrants["mine@1"].reason
    # named by whom it played: its start number (0 here) is another encounter's on stdout and the pages
    assert "while it played random" in a.entrants["mine@1"].reason and "encounter 0" not in a.entrants["mine@1"].reason
    assert (a.entrants["random"].mu, a.entrants["random"].sigma) == before and a.entrants["random"].encounters == 0
    assert verify(a.tables, a.row) == []
    # the same files registered again stay out, and its reason says so (it matched only the
    # bare "removed from the registry" of a version removed between encounters)
    with Registry(db) as reg:
        _register_code(reg, "1", REMOVED_WHILE_PLAYING.format(db=str(db)))
    a.sync_entrants()
    e = a.entrants["mine@1"]
    assert e.status == "withdrawn" and "while it played random" in e.reason and "registered again" in e.reason, e.reason
    a.sync_entrants()
    assert a.entrants["mine@1"].reason.count("registered again") == 1, a.entrants["mine@1"].reason
    a.close()


def test_encounters_run_concurrently_and_a_bot_plays_one_at_a_time(tmp_path):
    a = Arena(_spec(house=("random", "greedy", "heuristic", "g2=greedy", "r2=random"), concurrency=2),
              tmp_path / "a.sqlite", poll=0)
    _run(a, 12)
    encs = a.tables.encounters(a.row.id)
    assert len(encs) == 12 and verify(a.tables, a.row) == []
    overlapping = 0
    for i, x in enumerate(encs):
        for y in encs[i + 1:]:
            apart = x.finished <= y.started or y.finished <= x.started
            overlapping += not apart
            if set(x.players) & set(y.players):
                assert apart
    assert overlapping > 0  # two at once, of disjoint tables
    a.close()


def test_the_settings_file_and_flags():
    spec, service = arena_from_dict({"game": "spite-and-malice", "options": {"payoff_size": 5}, "clock": {"decision_ms": 500},
                                     "failure": {"suspend_after": 2}, "server": {"port": 0, "authors": ["alice"]}},
                                    {"concurrency": 2, "web_port": 0})
    assert (spec.game, spec.options, spec.decision_ms, spec.suspend_after, spec.concurrency) == \
        ("spite-and-malice", {"payoff_size": 5}, 500, 2, 2)
    assert (service.port, service.web_port, service.authors) == (0, 0, ("alice",))
    assert spec.validate().num_seats == 2 and spec.display_name == "spite-and-malice"
    with pytest.raises(SpecError, match="unknown field 'dealz'"):
        arena_from_dict({"game": "spades", "dealz": 2})
    with pytest.raises(SpecError, match="isolation"):
        ArenaSpec(game="spades", isolation="shared").validate()
    with pytest.raises(SpecError, match="name: '7': a name of digits alone reads as another arena's id"):
        ArenaSpec(game="spades", name="7").validate()
    assert ArenaSpec(game="spades").host_isolation == "match" and ArenaSpec(game="spades", deals=2).host_isolation == "deal"


def test_the_store_tables_alone(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        t = Arenas(store)
        a = t.open_arena("x", "spades", {"deals": 1})
        assert t.open_arena("x", "spades", {"deals": 1}).id == a.id and [r.name for r in t.arenas()] == ["x"]
        t.add_entrant(a.id, "p@1", "p", "1", "alice", "", 25.0, 8.0)
        t.add_entrant(a.id, "p@2", "p", "2", "alice", "", 25.0, 8.0, replaces=["p@1"])
        assert [(e.player, e.status) for e in t.entrants(a.id)] == [("p@1", "replaced"), ("p@2", "active")]
        with pytest.raises(StoreError):
            t.arena("nope")


@pytest.mark.e2e
def test_its_author_sees_a_suspension_and_why_in_bots_show_locally_and_over_the_bots_service(tmp_path):
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.server import client
    from arbiter.server.app import start_server
    from arbiter.batch.submissions import RegistryCatalog

    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1", "(_ for _ in ()).throw(RuntimeError('out of ideas'))")
    a = Arena(_spec(house=("random",), suspend_after=2), db, poll=0)
    _run(a, 2)
    assert a.entrants["mine@1"].status == "suspended"
    a.close()

    said = " ".join(CliRunner().invoke(app, ["bots", "show", "mine", "--db", str(db)]).output.split())
    assert "in the arenas" in said and "mine@1 in t: suspended: suspended after 2 encounters" in said, said
    assert "out of ideas" in said, said

    async def remote():
        running = await start_server(0, bots_catalog=RegistryCatalog(db), admin_token="a" * 20,
                                     author_tokens={"t" * 20: "alice", "u" * 20: "bob"})
        try:
            mine = await asyncio.to_thread(client.show_bot, running.address, "t" * 20, "mine")
            with pytest.raises(client.ClientError, match="no bot 'mine' of yours"):  # not bob's: not shown to him
                await asyncio.to_thread(client.show_bot, running.address, "u" * 20, "mine")
            return mine
        finally:
            await running.stop(0.5)

    versions, ladders = asyncio.run(remote())
    assert [v["version"] for v in versions] == ["1"]
    (standing,) = ladders
    assert standing["arena"] == "t" and standing["player"] == "mine@1" and standing["status"] == "suspended"
    assert "out of ideas" in standing["reason"] and standing["failures"] >= 2
    assert str(tmp_path) not in standing["reason"]  # no path of the server's machine


HEURISTIC_MINE = "from bots.heuristic import HeuristicBot\n\nclass M(HeuristicBot):\n    name = 'mine'\n    games = ('spades',)\n"


def _register_code(reg: Registry, version: str, code: str) -> None:
    report = Report("mine", {"name": "mine", "version": version, "games": ["spades"]}, [Check("verify:spades", True)])
    reg.add("mine", version, Submission({"bot.py": code.encode()}, "bot.py"), report, "alice")


def _opened(db) -> Arena:
    """A ladder of the registered bots and the house random, open, its entrants read from the registry."""
    a = Arena(_spec(house=("random",)), db, poll=0)
    a.open()
    a.sync_entrants()
    return a


def _gated(db, **kw) -> Arena:
    return Arena(_spec(house=("random",), gate="0,40", gate_min_deals=6, gate_max_deals=60, **kw), db, poll=0)


def _trial(a: Arena, limit: int = 80) -> None:
    asyncio.run(a.run(until=lambda arena: arena.entrants["mine@2"].status != "candidate", max_encounters=limit))


def test_with_a_gate_a_better_version_replaces_its_predecessor_once_the_test_says_so(tmp_path):
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")  # always the first legal action
        a = _gated(db)
        _run(a, 2)
        _register_code(reg, "2", HEURISTIC_MINE)
        a.sync_entrants()
        assert a.entrants["mine@2"].status == "candidate" and a.entrants["mine@1"].status == "active"
        assert "on trial against mine@1" in a.entrants["mine@2"].reason
        _trial(a, limit=a.finished + 2)  # fewer deals than gate_min_deals: its author sees where it stands
        said = a.entrants["mine@2"].reason
        assert a.entrants["mine@2"].status == "candidate" and said.startswith("on trial against mine@1"), said
        assert "so far margin +" in said and "per deal over 2 deals: evidence for H1" in said, said
        # evidence past its threshold decides nothing before min_deals: the reason says so
        assert "no verdict before 6 deals (gate.min_deals)" in said, said
        reported = []
        a.on_encounter = reported.append
        _trial(a)
    new, old = a.entrants["mine@2"], a.entrants["mine@1"]
    assert new.status == "active" and old.status == "replaced", (new, old)
    # the encounter that decided says so (arbiter arena's line): the operator saw only ratings
    assert reported[-1].verdicts == {"mine@2": f"active: {new.reason}"} and "passed the gate" in new.reason
    assert all(not r.verdicts for r in reported[:-1]), reported
    assert "passed the gate against mine@1" in old.reason and "H1 accepted by the betting test" in old.reason
    trial = [e for e in a.tables.encounters(a.row.id) if "mine@2" in e.players]
    assert trial and all(set(e.players) == {"mine@1", "mine@2"} for e in trial)  # it played nobody else on trial
    st = a.gate_state("mine@2", "mine@1")
    assert isinstance(st, BettingState)  # the default: valid on any shape of deals within Spades' bounds
    assert st.decision == "H1" and st.deals == len(trial) >= 6 and st.margin.mean > 0
    assert verify(a.tables, a.row) == []  # trial encounters are rated like any other
    a.close()


def test_with_a_gate_a_worse_version_is_rejected_and_the_old_one_plays_on(tmp_path):
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register_code(reg, "1", HEURISTIC_MINE)
        a = _gated(db)
        _run(a, 2)
        _register(reg, "2")  # the first legal action: much weaker
        a.sync_entrants()
        _trial(a)
    assert a.entrants["mine@2"].status == "rejected" and a.entrants["mine@1"].status == "active"
    assert "did not pass the gate against mine@1" in a.entrants["mine@2"].reason
    assert "H0 accepted by the betting test" in a.entrants["mine@2"].reason
    before = a.finished
    _run(a, 3)  # the ladder goes on with version 1; the rejected one is not matched
    assert all("mine@2" not in e.players for e in a.tables.encounters(a.row.id)[before:])
    a.close()


def _trial_of(db, old_code: str | None, new_code: str | None, **gate) -> Arena:
    """Version 1, then version 2 on trial against it (a code, or the first legal action)."""
    Store(db).close()
    with Registry(db) as reg:
        (_register_code(reg, "1", old_code) if old_code else _register(reg, "1"))
        a = _gated(db, **gate)
        _run(a, 2)
        (_register_code(reg, "2", new_code) if new_code else _register(reg, "2"))
        a.sync_entrants()
        _trial(a)
    return a


def test_a_gate_with_an_sd_bound_runs_the_variance_bounded_test_and_a_contradicted_bound_rejects(tmp_path):
    """``[gate] sd_bound``: the test valid on any shape of deals whose s.d. is within it; deals
    that contradict the bound stop the trial with no verdict of the test, and the candidate,
    not shown better, is rejected (the old version plays on)."""
    from arbiter.rating.catoni import VarianceState

    a = _trial_of(tmp_path / "a.sqlite", None, HEURISTIC_MINE, gate_sd_bound=400)
    st = a.gate_state("mine@2", "mine@1")
    assert isinstance(st, VarianceState) and st.decision == "H1" and not st.contradicted, st
    assert a.entrants["mine@2"].status == "active" and "H1 accepted" in a.entrants["mine@1"].reason
    a.close()
    b = _trial_of(tmp_path / "b.sqlite", None, HEURISTIC_MINE, gate_sd_bound=1)  # the margins vary by hundreds
    st = b.gate_state("mine@2", "mine@1")
    assert st.contradicted and st.decision is None, st
    new = b.entrants["mine@2"]
    assert new.status == "rejected" and b.entrants["mine@1"].status == "active"
    assert "the deals contradict the gate's s.d. bound 1 after" in new.reason and "larger gate.sd_bound" in new.reason
    b.close()
    for bad, message in ((0, "gate.sd_bound: the s.d. bound must be a finite number above 0"), ("wide", "gate.sd_bound: must be a number")):
        with pytest.raises(SpecError, match=message):
            _spec(gate="0,40", gate_sd_bound=bad).validate()


def test_the_gates_test_is_evaluates_betting_test_by_default_and_its_settings_are_named(monkeypatch):
    """The gate tests what ``arbiter evaluate --sprt`` tests, picked the same way: the betting
    test on the game's bounds (valid on any shape of deals), the variance-bounded test given an
    s.d. bound, the normal SPRT only when asked; where the game's bounds are unknown (Spot) the
    settings must say which, and every wrong setting is named."""
    from cardarena.games.spot.game import Spot

    test = _spec(gate="0,40").gate_test()
    assert isinstance(test, BettingTest) and (test.lo, test.hi, test.m0, test.m1) == (-900, 900, 0, 40)
    normal, _ = arena_from_dict({"game": "spades", "options": SPADES, "gate": {"sprt": "0,40", "test": "normal"}}, {})
    assert isinstance(normal.gate_test(), Sprt) and normal.gate_test().to_json()["m1"] == 40
    spot = dict(game="spot", options={"players": 2, "hands": 1}, house=("random",), gate="0,2")
    derived = _spec(**spot).gate_test()  # Spot's bounds: one hand, 2 seats, ante 5 + 90 spots: 2 x 95
    assert isinstance(derived, BettingTest) and (derived.lo, derived.hi) == (-190, 190)
    with monkeypatch.context() as m:  # a game that derives no bounds (none of the three today)
        m.setattr(Spot, "margin_bounds", lambda self: None)
        with pytest.raises(SpecError, match=r'gate: the betting test .* not known for spot .* \[gate\] table give bounds = "LO,HI"'):
            _spec(**spot).validate()
    clipped, _ = arena_from_dict({"game": "spot", "options": {"players": 2, "hands": 1},
                                  "gate": {"sprt": "0,2", "bounds": "-60,60", "alpha": 0.1}}, {})
    clipped.validate()
    assert (clipped.gate_test().lo, clipped.gate_test().hi, clipped.gate_test().alpha) == (-60, 60, 0.1)
    assert isinstance(_spec(**spot, gate_kind="normal").gate_test(), Sprt)
    assert _spec(**spot, gate_sd_bound=30).gate_test().name == "variance"
    for kw, message in (({"gate_kind": "score"}, "gate.test: expected one of betting, variance, normal"),
                        ({"gate_kind": "normal", "gate_sd_bound": 30}, "gate.sd_bound: only the variance-bounded test"),
                        ({"gate_kind": "variance"}, "gate.test: the variance-bounded test needs gate.sd_bound = S"),
                        ({"gate_bounds": "-60"}, "gate.bounds: expected LO,HI"),
                        ({"gate_bounds": "-60,60", "gate_kind": "normal"}, "gate.bounds: only the betting test"),
                        ({"gate_bounds": "-10,10"}, r"gate: M0,M1 \(0,40\) must lie strictly inside the margin's bounds")):
        with pytest.raises(SpecError, match=message):
            _spec(gate="0,40", **kw).validate()


def test_a_gate_begun_on_the_normal_sprt_resumes_on_it(tmp_path):
    """A ladder keeps its rules: a gate begun before the betting test was the default stored the
    normal SPRT, and its settings, which name no test, resume it on that test (not refused as
    other settings, not switched to another test mid-trial); a new ladder gets the betting test."""
    db = tmp_path / "a.sqlite"
    old = Arena(_spec(gate="0,40", gate_kind="normal"), db, poll=0)  # stored as a gate of then was
    _run(old, 1)
    assert "test" not in old.tables.arena("t").spec["gate"]
    old.close()
    again = Arena(_spec(gate="0,40"), db, poll=0)
    _run(again, 1)
    assert isinstance(again.spec.gate_test(), Sprt) and again.finished == 1
    again.close()
    new = Arena(_spec(gate="0,40", name="u"), db, poll=0)
    _run(new, 1)
    assert new.tables.arena("u").spec["gate"]["test"] == "betting"
    new.close()



def test_a_variance_gate_begun_in_the_catoni_form_resumes_in_it(tmp_path):
    """A ladder with ``[gate] sd_bound`` stored before the test's forms were named (its gate's
    JSON names no form: Wang and Ramdas's Catoni form) resumes on that form, not refused as other
    settings and not switched mid-trial; a new ladder gets today's form, named in its spec."""
    db = tmp_path / "a.sqlite"
    old = Arena(replace(_spec(gate="0,40", gate_sd_bound=400), kept_gate_form="catoni"), db, poll=0)  # as stored then
    _run(old, 1)
    assert "form" not in old.tables.arena("t").spec["gate"]
    old.close()
    again = Arena(_spec(gate="0,40", gate_sd_bound=400), db, poll=0)
    _run(again, 1)
    assert again.spec.gate_test().form == "catoni" and again.finished == 1
    again.close()
    new = Arena(_spec(gate="0,40", gate_sd_bound=400, name="u"), db, poll=0)
    _run(new, 1)
    assert new.tables.arena("u").spec["gate"]["form"] == "catoni-log" and new.spec.gate_test().form == "catoni-log"
    new.close()


HISTORY = 20


def test_a_gate_with_sd_bound_auto_reads_its_bound_from_the_bots_earlier_trials(tmp_path, monkeypatch):
    """``[gate] sd_bound = "auto"``: a bot's first trial has no earlier one to read and runs the
    betting test until its own first ``history`` deals, then the variance-bounded test on their
    s.d. (``BettingThenVariance``, as evaluate's default; a ladder begun before, in the Catoni form,
    the betting test throughout); the next reads 1.2x the s.d. of the deals of the trials finished before it
    entered (pooled about each pair's own mean) and runs the variance-bounded test at that bound,
    the same bound after a restart and after more trials have finished."""
    import statistics

    from arbiter.rating.betting import BettingTest
    from arbiter.rating.catoni import BettingThenVariance, VarianceState, auto_room, round_up

    db = tmp_path / "a.sqlite"
    Store(db).close()
    # the history read is AUTO_HISTORY (100) deals; 20 here, each encounter 20 deals: the same reading at a fifth of the play
    gate_test = ArenaSpec.gate_test
    monkeypatch.setattr(ArenaSpec, "gate_test", lambda self: dataclasses.replace(gate_test(self), history=HISTORY)
                        if self.gate_sd_bound == "auto" else gate_test(self))
    spec = _spec(house=("random",), deals=HISTORY, gate="0,40", gate_sd_bound="auto", gate_min_deals=6)
    with Registry(db) as reg:
        _register(reg, "1")  # the first legal action
        a = Arena(spec, db, poll=0)
        _run(a, 0)
        a.sync_entrants()
        _register_code(reg, "2", HEURISTIC_MINE)
        a.sync_entrants()
        said = a.entrants["mine@2"].reason
        assert (f'the betting test then the variance-bounded test (sd_bound = "auto" with 0 deals of mine\'s earlier '
                f'trials, fewer than the {HISTORY} it reads: the betting test until this trial\'s own {HISTORY} deals, then '
                f'the variance-bounded test at {1 + 3 / HISTORY ** 0.5:.3g}x their s.d.)') in said, said
        assert isinstance(a._trial_test("mine@2")[0], BettingThenVariance)
        today = a.spec
        a.spec = dataclasses.replace(today, kept_gate_form="catoni")  # a ladder begun before the switch
        assert isinstance(a.gate_test_of("mine", 0.0)[0], BettingTest)
        a.spec = today
        _trial(a)
        assert a.entrants["mine@2"].status == "active"
        assert "H1 accepted by the betting test then the variance-bounded test" in a.entrants["mine@1"].reason
        (first,) = [e for e in a.tables.encounters(a.row.id) if set(e.players) == {"mine@1", "mine@2"}]
        sd = statistics.stdev(matchmaking.deal_margins(a.tables.matches(a.row.id, first.idx, records=False),
                                                       "mine@1", "mine@2", forfeit_stake(a.game)))
        _register(reg, "3")  # the first legal action again: worse than version 2
        a.sync_entrants()
        test, source = a._trial_test("mine@3")
        room = auto_room(HISTORY)  # the room over 20 deals read (1.2 over 100)
        assert test.name == "variance" and test.sd_bound == round_up(room * sd), (test, sd)
        assert f"s.d. bound {test.sd_bound:g}: {room:.3g}x the s.d. {sd:.3g} of {HISTORY} deals of mine's earlier trials" in source
        assert source in a.entrants["mine@3"].reason
        asyncio.run(a.run(until=lambda arena: arena.entrants["mine@3"].status != "candidate", max_encounters=10))
    st = a.gate_state("mine@3", "mine@2")
    assert isinstance(st, VarianceState) and st.decision == "H0" and st.sd_bound == test.sd_bound, st
    assert a.entrants["mine@3"].status == "rejected"
    assert "H0 accepted by the variance-bounded test" in a.entrants["mine@3"].reason
    a.close()
    again = Arena(spec, db, poll=0)  # a restart, with version 3's own trial stored: the same bound
    _run(again, 0)
    assert again._trial_test("mine@3")[0] == test and again._trial_test("mine@2")[0].name == "switch"
    again.close()


def test_a_trial_cut_off_by_restarts_resumes_and_ends_as_one_run_straight_through(tmp_path):
    """The gate's test is recomputed from the stored encounters: stopping the arena twice
    during a trial changes nothing of its course or its verdict."""

    def run(name: str, stops: list[int]):
        db = tmp_path / f"{name}.sqlite"
        Store(db).close()
        with Registry(db) as reg:
            _register(reg, "1")
            a = _gated(db)
            _run(a, 2)  # version 1 plays alone first
            a.close()
            _register_code(reg, "2", HEURISTIC_MINE)  # then version 2 arrives, on trial
        for n in stops:
            a = _gated(db)
            asyncio.run(a.run(max_encounters=n, until=lambda arena: "mine@2" in arena.entrants
                              and arena.entrants["mine@2"].status != "candidate"))
            shape = ({p: e.status for p, e in a.entrants.items()},
                     [(e.players, e.ratings) for e in a.tables.encounters(a.row.id)],
                     a.gate_state("mine@2", "mine@1").margin)
            a.close()
        return shape

    once = run("once", [80])
    cut = run("cut", [3, 4, 80])
    assert once == cut
    assert once[0]["mine@2"] == "active" and once[0]["mine@1"] == "replaced"


def test_a_stored_arena_match_keeps_the_failing_bots_stderr_on_its_incidents(tmp_path):
    """As tournament rows do (arbiter.store.db.incidents_json): the bot pages read the rows."""
    from cardarena.records import Incident

    a = Arena(_spec(), tmp_path / "a.sqlite", poll=0)
    _run(a, 1)
    good = a.tables.matches(a.row.id, 0)[0].record()
    failed = dataclasses.replace(good, match_id="x-0", incidents=[
        Incident(1, "crash", "choose raised RuntimeError: out of ideas", "Traceback ...\nRuntimeError: out of ideas")])
    idx = a.tables.begin_encounter(a.row.id, ("random", "greedy"), 7)
    a.tables.finish_encounter(a.row.id, idx, [PlayedMatch(0, 0, 0, ("random", "greedy"), failed)], {}, {})
    (row,) = a.tables.matches(a.row.id, idx, records=False)
    assert row.incidents == tuple(failed.incidents) and row.incidents[0].stderr.endswith("out of ideas")
    a.close()


def test_a_house_bot_file_edited_since_the_ladder_began_is_refused_with_the_way_on(tmp_path):
    """A version never changes, a house bot included: its file's contents are part of the
    ladder's rules, so an edited one is named at the restart instead of playing on under the
    old one's rating; put back as it was, the ladder resumes."""
    ref = tmp_path / "ref.py"
    code = "from bots.heuristic import HeuristicBot\n\nclass R(HeuristicBot):\n    name = 'ref'\n"
    ref.write_text(code)
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(house=("random", f"ref={ref}")), db, poll=0)
    _run(a, 1)
    a.close()
    ref.write_text(code + "    # edited\n")
    edited = Arena(_spec(house=("random", f"ref={ref}")), db, poll=0)
    with pytest.raises(SpecError, match=r"'t' in .* was played with other contents of .*ref\.py \(edited since\): "
                                        r"a ladder keeps its rules and its house bots"):
        edited.open()
    ref.write_text(code)
    again = Arena(_spec(house=("random", f"ref={ref}")), db, poll=0)
    again.open()
    assert len(again.tables.encounters(again.row.id)) == 1
    again.close()


def test_an_encounter_of_more_deals_than_memory_holds_is_refused_by_its_setting():
    """`deals = 1000000000000` (a typo of a few zeros) planned every match of the first
    encounter in memory, a list of deals x seatings, until the machine ran out."""
    with pytest.raises(SpecError, match=r"^deals: must be a whole number from 1 to 10000, got 1000000000000"):
        ArenaSpec(game="spades", deals=10**12).validate()
    ArenaSpec(game="spades", deals=10_000).validate()


def test_a_gate_reason_gives_no_plus_minus_zero_after_one_deal_or_deals_all_alike():
    # the trial's reason said "margin +1 ± 0 per deal over 1 deals" (the s.e. None read as 0)
    from arbiter.arena.ladder import gate_estimate
    from arbiter.rating.stats import MeanSE, mean_se

    assert gate_estimate(MeanSE(1.0, None, 1)) == "margin +1 per deal over 1 deal (one deal: too few for a standard error)"
    alike = gate_estimate(mean_se([-1.0] * 4))
    assert "±" not in alike and alike.startswith("margin -1 per deal over 4 deals (all 4 deals alike")
    # the interval is Student's t's with n - 1 degrees of freedom: 1.96 s.e. (the normal's) covers
    # far less than 95% over the few deals a trial's first reasons show (2 deals: 12.7 s.e.)
    assert gate_estimate(mean_se([0.0, 2.0])) == "margin +1 ± 12.7 (95%) per deal over 2 deals"
    assert gate_estimate(mean_se([0.0, 2.0] * 200)) == "margin +1 ± 0.0984 (95%) per deal over 400 deals"


def test_the_gate_reads_a_forfeit_s_margin_as_evaluate_does():
    # a forfeit stores all-zero scores: the gate's deal margins read it as a level deal (0), where
    # `arbiter evaluate`'s margin, which the gate's test is documented to share, counts it at the
    # game's widest margin (the stake)
    from types import SimpleNamespace

    from cardarena.games import EndReason, Outcome
    from arbiter.tournament.evaluate import margin_of

    crash = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_CRASH)
    ms = [SimpleNamespace(deal=0, seats=("new", "old"), outcome=crash),
          SimpleNamespace(deal=0, seats=("old", "new"), outcome=Outcome((3.0, 1.0), (1, 2), EndReason.COMPLETED)),
          SimpleNamespace(deal=1, seats=("new", "old"), outcome=Outcome((5.0, 1.0), (1, 2), EndReason.COMPLETED))]
    assert matchmaking.deal_margins(ms, "new", "old", 900.0) == [(-900 - 2) / 2, 4.0]
    assert margin_of(crash, [0, 1], 900.0) == -900.0


def test_gate_settings_without_the_gate_itself_are_refused_not_silently_ignored():
    """``[gate] alpha = 0.1`` with no ``sprt``: the organiser asked for a gate; the ladder
    must not run without one and say nothing."""
    with pytest.raises(SpecError, match=r"gate\.alpha: .*no gate.*sprt = \"M0,M1\""):
        arena_from_dict({"game": "spades", "gate": {"alpha": 0.1}})[0].validate()
    with pytest.raises(SpecError, match=r"gate\.max_deals, gate\.test: .*no gate"):
        ArenaSpec(game="spades", gate_max_deals=50, gate_kind="normal").validate()
    ArenaSpec(game="spades").validate()  # the defaults alone: no gate, nothing to say
    ArenaSpec(game="spades", options=SPADES, gate="0,40", gate_alpha=0.1).validate()


def test_a_house_bot_that_cannot_play_the_ladders_game_is_refused_before_the_ladder_starts():
    """Found running a spite-and-malice ladder with ``house = ["random", "greedy"]``: every
    encounter with greedy failed (it plays spades only) until the ladder stopped on 20
    failures in a row, with a traceback."""
    with pytest.raises(SpecError, match=r"house: bot 'greedy' does not play spite-and-malice \(it plays spades\)"):
        ArenaSpec(game="spite-and-malice", house=("random", "greedy")).validate()
    with pytest.raises(SpecError, match=r"house: bot 'g=greedy' does not play spite-and-malice"):
        ArenaSpec(game="spite-and-malice", house=("g=greedy",)).validate()
    with pytest.raises(SpecError, match=r"house: unknown bot 'nosuchbot'"):
        ArenaSpec(game="spades", house=("random", "nosuchbot")).validate()
    with pytest.raises(SpecError, match=r"house: 'missing.py': file not found"):
        ArenaSpec(game="spades", house=("missing.py",)).validate()
    ArenaSpec(game="spite-and-malice", house=("random", "r2=random")).validate()


def test_the_gates_margin_counts_a_forfeit_as_arbiter_evaluate_does():
    """A candidate that crashed in every match of its trial was rejected with "margin +0 ± 0
    per deal" (a forfeit's scores are all zero): the gate's deal margin must count a forfeit
    by its ranks, -1 for the side that failed, as ``arbiter evaluate`` (``margin_of``) does,
    or a crashing candidate looks even and a crashing predecessor can never be beaten."""
    from types import SimpleNamespace as NS

    from cardarena.games import EndReason, Outcome

    crash = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_CRASH)  # seat 0 failed: it lost
    played = Outcome((1.0, 0.0), (1, 2), EndReason.COMPLETED)
    matches = [NS(deal=0, seats=("new", "old"), outcome=crash), NS(deal=0, seats=("old", "new"), outcome=crash),
               NS(deal=1, seats=("new", "old"), outcome=played), NS(deal=1, seats=("old", "new"), outcome=crash)]
    assert matchmaking.deal_margins(matches, "new", "old", 1.0) == [0.0, 1.0]
    assert matchmaking.deal_margins(matches[:1], "new", "old", 1.0) == [-1.0]
    assert matchmaking.deal_margins(matches[:1], "old", "new", 1.0) == [1.0]


def test_a_candidate_that_keeps_forfeiting_is_suspended_as_any_bot_is(tmp_path):
    """Found on a spite-and-malice ladder: a new version on trial crashed in 15 encounters in
    a row while each line said "N encounters in a row of 3 before a suspension", and none
    came (only an active bot was ever suspended); it went on until the gate's verdict."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
        a = Arena(_spec(house=("random",), gate="0,40", gate_min_deals=50, gate_max_deals=400), db, poll=0)
        _run(a, 1)
        _register_code(reg, "2", textwrap.dedent(CRASHER))
        a.sync_entrants()
        assert a.entrants["mine@2"].status == "candidate"
        _run(a, 1 + 3)  # (a run's count: the one before and three of the trial)
    new, old = a.entrants["mine@2"], a.entrants["mine@1"]
    assert new.status == "suspended" and new.streak == 3, (new.status, new.streak, new.reason)
    assert "3 encounters in a row" in new.reason and "out of ideas" in new.reason
    assert old.status == "active"  # the old version plays on
    assert a.trials(set()) == []  # no more trial encounters
    a.close()


def test_a_submitted_bot_named_as_a_house_bot_does_not_play_under_its_name_and_is_told_why(tmp_path):
    """Found by submitting a bot named ``random`` to a ladder whose house bot is ``random``:
    both played, and ``arbiter bots show random`` and the page /a/NAME/bot/random showed the
    house bot's rating and encounters as a version of the author's bot."""
    from arbiter.store.arenas import standings_of

    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        report = Report("random", {"name": "random", "version": "1", "games": ["spades"]}, [Check("verify:spades", True)])
        reg.add("random", "1", Submission({"bot.py": b"from bots.random_bot import RandomBot\n"}, "bot.py"), report, "alice")
        _register(reg, "1")
        a = Arena(_spec(house=("random", "greedy")), db, poll=0)
        a.open()
        a.sync_entrants()
        mine = a.entrants["random@1"]
        assert mine.status == "withdrawn", mine
        assert "the name of one of this arena's house bots" in mine.reason and "another name" in mine.reason
        assert a.entrants["random"].status == "active" and a.entrants["mine@1"].status == "active"
        assert "random@1" not in {c.player for c in a.candidates()}
        # where the author looks: only the versions of the registered bot, never the house bot
        assert [s.player for s in standings_of(reg.db, "random")] == ["random@1"]
        a.close()


def test_a_version_removed_then_registered_again_is_told_it_does_not_come_back(tmp_path):
    """Found by ``arbiter bots remove goodbot`` then ``bots submit goodbot --version 1`` to a
    running ladder: the version was registered again, yet the ladder kept it out with the
    reason "removed from the registry" (false: ``bots list`` shows it), saying nothing else."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
        a = _opened(db)
        reg.remove("mine", "1", "alice")
        a.sync_entrants()
        assert a.entrants["mine@1"].status == "withdrawn" and a.entrants["mine@1"].reason == "removed from the registry"
        with pytest.raises(RegistryError, match="other content and removed"):  # other files: refused by the registry
            _register(reg, "1", "legal_actions[-1]")
        _register(reg, "1")  # the same files may come back
        a.sync_entrants()
        e = a.entrants["mine@1"]
        assert e.status == "withdrawn" and "registered again" in e.reason and "new version" in e.reason, e.reason
        _register(reg, "2")
        a.sync_entrants()
        assert a.entrants["mine@2"].status == "active"
        a.close()


def test_a_house_bot_whose_hello_does_not_play_the_game_is_withdrawn_and_the_ladder_goes_on(tmp_path):
    """A house bot given as a file is not run before the ladder starts, so a file that plays
    another game is found in its first encounter: that bot is withdrawn with the reason, not
    tried in encounter after encounter until the ladder stops on 20 failures in a row."""
    spades_only = tmp_path / "spadesonly.py"
    spades_only.write_text(textwrap.dedent(CRASHER).replace('games = ("*",)', 'games = ("spades",)'))
    spec = ArenaSpec(game="spite-and-malice", name="t", options={"payoff_size": 3}, house=("random", f"so={spades_only}"),
                     transport="inproc", seed=3)
    a = Arena(spec, tmp_path / "a.sqlite", poll=0)
    asyncio.run(a.run(until=lambda arena: arena.entrants.get("so") is not None and arena.entrants["so"].status != "active"))
    e = a.entrants["so"]
    assert e.status == "withdrawn" and "cannot play here" in e.reason and "does not play spite-and-malice" in e.reason
    assert e.reason == "it cannot play here: bot 'so' does not play spite-and-malice (it plays spades)"  # no path of this machine
    a.sync_entrants()
    assert a.entrants["so"].status == "withdrawn"  # a house bot that cannot play is not brought back
    assert a.tables.encounters(a.row.id, "abandoned") and not a.tables.encounters(a.row.id)
    a.close()


def test_a_ladder_restarted_with_other_gate_settings_names_the_setting_not_two_whole_tables(tmp_path):
    """Restarting with ``max_deals = 40`` instead of 30 printed both whole gate tables (ten keys
    each) for the reader to compare; the setting that differs is named, with both values."""
    with Store(tmp_path / "s.sqlite") as store:
        t = Arenas(store)
        t.open_arena("x", "spades", {"deals": 1, "gate": {"m0": 0, "m1": 1, "max_deals": 30, "alpha": 0.05},
                                     "options": {"deals": 1}})
        with pytest.raises(StoreError) as info:
            t.open_arena("x", "spades", {"deals": 1, "gate": {"m0": 0, "m1": 1, "max_deals": 40, "alpha": 0.05},
                                         "options": {"deals": 2}})
    said = str(info.value)
    assert "gate.max_deals: 30 stored, 40 now" in said and "options.deals: 1 stored, 2 now" in said, said
    assert "alpha" not in said and "run it with the settings it began with (its file as it was, the same flags)" in said, said


def test_a_setting_given_in_two_places_with_two_values_is_refused_not_one_silently_kept():
    """``suspend_after`` is read at the top level and in ``[failure]``: given 2 in one and 5 in
    the other, the ladder ran with 5 and said nothing."""
    with pytest.raises(SpecError, match=r"ladder.toml: suspend_after: given twice, 2 at the top level and 5 in "
                                        r"\[failure\]: give it once"):
        arena_from_dict({"game": "spades", "suspend_after": 2, "failure": {"suspend_after": 5}}, source="ladder.toml")
    spec, _ = arena_from_dict({"game": "spades", "suspend_after": 5, "failure": {"suspend_after": 5}})
    assert spec.suspend_after == 5  # the same value twice says the same thing


def test_removing_the_version_that_replaced_another_brings_the_latest_registered_back(tmp_path):
    """The ladder plays "the latest registered version of each bot": an author who removed
    version 2 (which had replaced version 1) had no version playing at all, version 1 still
    "replaced" though it was the latest registered again."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
        a = _opened(db)
        _register(reg, "2", "legal_actions[-1]")
        a.sync_entrants()
        assert a.entrants["mine@1"].status == "replaced"
        reg.remove("mine", "2", "alice")
        a.sync_entrants()
        one = a.entrants["mine@1"]
        assert a.entrants["mine@2"].status == "withdrawn"
        assert one.status == "active" and "mine@2" in one.reason and "withdrawn" in one.reason, one
        assert "mine@1" in {c.player for c in a.candidates()}
        a.close()


def test_a_house_bot_entered_under_its_module_s_name_keeps_it(tmp_path, monkeypatch):
    """A house bot given as module:Class was named by its module ("bots") by an older arbiter;
    named by its class now, the restarted ladder withdrew "bots" (not in the house any more)
    and entered "Noisy30" afresh, its rating and history left behind."""
    import arbiter.arena.ladder as ladder
    import arbiter.batch.settings as settings

    db = tmp_path / "a.sqlite"
    house = ("random", "bots.noisy:Noisy30")
    with monkeypatch.context() as m:  # the older rule
        for module in (ladder, settings):
            m.setattr(module, "bot_names", lambda specs: tuple("bots" if ":" in s else s for s in specs))
        a = Arena(_spec(house=house), db, poll=0)
        _run(a, 1)
        a.close()
    again = Arena(_spec(house=house), db, poll=0)
    _run(again, 1)
    assert {p: e.status for p, e in again.entrants.items()} == {"random": "active", "bots": "active"}
    assert len(again.tables.encounters(again.row.id)) == 2
    again.close()


def test_a_store_copied_without_its_bot_copies_is_refused_not_every_registered_version_withdrawn(tmp_path):
    """A store file copied or moved without the ``<store>.bots`` folder beside it: each registered
    version's launch failed, and the arena withdrew it for good, saying its copy "does not match
    its recorded hash" (no files read hash to something else): every registered bot left the
    ladder over a folder the operator could put back. Now the arena refuses to start, naming the
    folder; a single copy missing is withdrawn saying it is missing."""
    import shutil

    from arbiter.store.registry import _rmtree, lookup, registry_dir

    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1")
    a = _opened(db)
    assert a.entrants["mine@1"].status == "active"
    a.close()
    moved = tmp_path / "moved.sqlite"
    shutil.copy(db, moved)
    with pytest.raises(StoreError, match=r"stored copies are missing: no folder .*moved\.bots"):
        _opened(moved)
    with pytest.raises(RegistryError, match="stored copy of 'mine@1' is missing"):
        lookup(moved, "mine@1")
    shutil.copytree(registry_dir(db), registry_dir(moved))
    b = _opened(moved)  # the folder back: it plays on
    assert b.entrants["mine@1"].status == "active"
    b.close()
    for copy in registry_dir(db).iterdir():  # one copy gone, the folder there
        _rmtree(copy)
    c = _opened(db)
    assert asyncio.run(c.encounter(("mine@1", "random"))) is None
    assert c.entrants["mine@1"].status == "withdrawn" and "is missing" in c.entrants["mine@1"].reason
    assert "recorded hash" not in c.entrants["mine@1"].reason
    c.close()


def test_a_suspended_house_bot_plays_again_when_the_arena_restarts_with_no_forfeit_in_a_row(tmp_path):
    """A house bot has no new version to come back with: suspended once (its file broken, the
    sandbox misconfigured), it stayed suspended in every later run, and a ladder of house bots
    sat idle for good with nothing said. Now a restart (the operator's mend) brings it back,
    starting with no forfeit in a row: a single forfeit then does not suspend it again."""
    crasher = tmp_path / "crasher.py"
    crasher.write_text(textwrap.dedent(CRASHER))
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(house=("random", f"crasher={crasher}"), suspend_after=2), db, poll=0)
    _run(a, 2)
    assert a.entrants["crasher"].status == "suspended"
    a.close()
    b = Arena(_spec(house=("random", f"crasher={crasher}"), suspend_after=2), db, poll=0)
    b.open()
    e = b.entrants["crasher"]
    assert e.status == "active" and e.streak == 0 and "restarted" in e.reason
    done = asyncio.run(b.encounter(("crasher", "random")))
    assert done is not None and done.suspended == () and b.entrants["crasher"].status == "active"
    b.close()


def test_a_suspended_house_bots_page_says_a_restart_brings_it_back_not_a_new_version(tmp_path):
    """A suspended house bot's page said it plays again "once a new version is registered
    (arbiter bots submit ...)": a house bot has no versions; the arena's restart brings it back."""
    from arbiter.present.web import arena_bot_page

    crasher = tmp_path / "crasher.py"
    crasher.write_text(textwrap.dedent(CRASHER))
    a = Arena(_spec(house=("random", f"crasher={crasher}"), suspend_after=1), tmp_path / "a.sqlite", poll=0)
    _run(a, 1)
    assert a.entrants["crasher"].status == "suspended"
    page = arena_bot_page(a.store, "t", "crasher")
    a.close()
    assert 'id="suspended"' in page and "new version is registered" not in page and "bots submit" not in page, page
    assert "plays again when the arena is restarted" in page


def test_a_stop_counts_the_encounters_it_cut_off_so_the_operator_is_told(tmp_path, monkeypatch):
    """A stop (Ctrl-C, SIGTERM) abandons the encounters under way, and `arbiter arena` said
    only "arena stopped": what was lost was not said until the next start, which then said
    nothing either (the stop had already marked them abandoned). ``cut_off`` counts them.
    The stop comes while a bot of the first encounter is deciding (``STOPPER``: no clock to
    race, where a bot that slept at every move waited out 1.2 s of them)."""
    stopper = tmp_path / "stopper.py"
    stopper.write_text(textwrap.dedent(STOPPER))
    a = Arena(_spec(house=("random", f"stopper={stopper}"), deals=3), tmp_path / "a.sqlite", poll=0)

    async def main() -> None:
        stop = asyncio.Event()
        monkeypatch.setitem(sys.modules, "arena_test_stop", stop)  # where the bot finds it
        await a.run(stop)

    asyncio.run(main())
    abandoned = a.tables.encounters(a.row.id, "abandoned")
    assert a.finished == 0 and a.cut_off == len(abandoned) == 1, (a.finished, a.cut_off, abandoned)
    a.close()


#: A bot that asks the arena to stop at its first decision, as an operator's Ctrl-C would
#: (in process: the arena's loop takes the stop between two matches of its encounter of
#: six, three deals in two seatings).
STOPPER = """
    import sys

    from sdk import Bot

    class Stopper(Bot):
        name = "stopper"
        games = ("*",)

        def choose(self, view, legal_actions):
            sys.modules["arena_test_stop"].set()
            return legal_actions[0]
"""


def test_a_gated_ladder_restarted_without_its_gate_says_which_gate_to_give_again(tmp_path):
    """A ladder started with ``--gate 0,40``, restarted without the flag, was refused with the
    gate's whole stored form ("gate: {'alpha': 0.05, ..., 'hi': 186000.0, 'kind': 'margin', ...}
    stored, None now") and "put the file back as it was", for a gate that was never in a file."""
    db = tmp_path / "a.sqlite"
    Arena(_spec(gate="0,40"), db).open()
    with pytest.raises(StoreError) as info:
        Arena(_spec(), db).open()
    said = str(info.value)
    assert "began with a gate" in said and "--gate 0,40" in said and 'sprt = "0,40"' in said, said
    assert "'hi'" not in said, said
    Arena(_spec(gate="0,40"), db).open()  # given again, it resumes


def test_a_ladder_that_cannot_make_a_table_says_why_once(tmp_path, caplog):
    """A ladder whose bots were all suspended (or that has one bot) sat idle without a word:
    its operator saw the listening line and then nothing. It says once why it waits."""
    crasher = tmp_path / "crasher.py"
    crasher.write_text(textwrap.dedent(CRASHER))
    a = Arena(_spec(house=("random", f"crasher={crasher}"), suspend_after=1), tmp_path / "a.sqlite", poll=0)
    polls = []
    with caplog.at_level("WARNING", logger="arbiter.arena.ladder"):
        asyncio.run(a.run(until=lambda arena: polls.append(1) or len(polls) > 6))
    said = [r.getMessage() for r in caplog.records if "waiting" in r.getMessage()]
    assert len(said) == 1, said
    assert "1 bot can play (random), an encounter needs 2" in said[0] and "suspended: crasher" in said[0], said
    assert "plays again when the arena restarts" in said[0], said
    a.close()


def test_house_bot_files_may_come_go_and_be_spelt_otherwise_but_never_change(tmp_path, monkeypatch):
    """House bots may change between runs (the docs say so), but one given as a file could not:
    adding one was refused as "played with other contents of new.py (edited since)" (it had
    never played), leaving one out as "other settings (bot_content ... stored, None now)", and
    the same file by another path (./ref.py, its absolute path, from another folder) as edited.
    And a house bot launched from the path stored when it entered, not the one given now, so a
    ladder restarted from another folder launched a file that was not there. A house bot is the
    same bot while its contents are; one that comes back edited is still refused."""
    ref = tmp_path / "ref.py"
    code = "from bots.heuristic import HeuristicBot\n\nclass R(HeuristicBot):\n    name = 'ref'\n"
    ref.write_text(code)
    new = tmp_path / "new.py"
    new.write_text(code.replace("'ref'", "'new'"))
    db = tmp_path / "a.sqlite"
    monkeypatch.chdir(tmp_path)

    def opened(*house: str) -> Arena:
        a = Arena(_spec(house=("random", *house)), db, poll=0)
        a.open()
        a.sync_entrants()
        return a

    a = opened("ref=ref.py")  # relative to where it is started
    _run(a, 1)
    a.close()
    b = opened("ref=ref.py", f"new={new}")  # a house bot added
    assert b.entrants["new"].status == "active"
    b.close()
    c = opened()  # both left out
    assert {c.entrants["ref"].status, c.entrants["new"].status} == {"withdrawn"}
    c.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    d = opened(f"ref={ref}")  # the same file from another folder, by its absolute path
    assert d.entrants["ref"].status == "active" and d._source("ref") == str(ref)
    _run(d, 1)
    assert d.entrants["ref"].encounters == 2 and d.entrants["ref"].failures == 0, d.entrants["ref"]
    d.close()
    new.write_text(code.replace("'ref'", "'new'") + "    # edited\n")
    with pytest.raises(SpecError, match=r"other contents of .*new\.py \(edited since\)"):
        opened(f"ref={ref}", f"new={new}")  # back, edited: another bot under its rating


def test_a_ladder_whose_stored_rows_are_damaged_is_refused_naming_them_not_with_a_traceback(tmp_path):
    """An arena's stored settings or an encounter's stored ratings that no longer read as JSON
    (a store damaged, edited by hand) were a JSONDecodeError traceback from arbiter arena,
    arbiter standings --arena and the pages; and damaged settings were taken for no arena at
    all on the ladder's start. Each is a StoreError naming the arena or the encounter."""
    from arbiter.store.db import transaction

    db = tmp_path / "a.sqlite"
    a = Arena(_spec(), db, poll=0)
    _run(a, 1)
    a.close()
    with Store(db) as store, transaction(store.db) as tx:
        tx.execute("UPDATE arena_encounters SET ratings = '[x' WHERE idx = 0")
    with pytest.raises(StoreError, match=r"arena encounter 0 in .* is corrupt"):
        Arena(_spec(), db, poll=0).open()
    with Store(db) as store, transaction(store.db) as tx:
        tx.execute("UPDATE arenas SET spec = '{bad'")
    for attempt in (lambda: Arena(_spec(), db, poll=0).open(), lambda: Arenas(Store(db, read_only=True)).arena("t")):
        with pytest.raises(StoreError, match=r"arena 't' in .* is corrupt: its stored settings cannot be read"):
            attempt()


def test_a_second_ladder_on_a_store_a_ladder_runs_from_is_told_to_stop_it_not_to_wait(tmp_path):
    """A second arena (or a tournament) on the store a ladder runs from was told "another run is
    writing a.sqlite (... held by process N); wait for it": a ladder never ends of itself, and
    which one held the store was not said. It names the arena and says to stop it first."""
    db = tmp_path / "a.sqlite"
    a = Arena(_spec(), db, poll=0)
    a.open()
    with pytest.raises(StoreError, match=r"running the arena 't', which plays until it is stopped.*stop it first") as info:
        Arena(_spec(name="second", game="spades"), db, poll=0).open()
    assert "wait for it" not in str(info.value)
    a.close()
    b = Arena(_spec(name="second"), db, poll=0)  # once it is stopped, the second one runs
    b.open()
    b.close()


@pytest.mark.e2e
def test_an_encounter_in_which_no_bot_could_start_is_the_arenas_failure_never_a_forfeit(tmp_path):
    """A sandbox in which no bot process can start (its limits too small, a broken install):
    each encounter was stored as done, its bots rated on matches nobody played, and each charged
    a forfeit (the first seat of each match, "X is not connected"), so that after three every
    bot of the ladder was suspended, the registered ones for good. Now such an encounter is
    abandoned, never counted, no forfeit charged, and the failure is said in words."""
    from arbiter.hosting import sandbox as sb
    from arbiter.hosting.botproc import BotStartError

    starved = sb.Sandbox(limits=sb.Limits(memory_mb=1, address_space_mb=16), mode="rlimit")  # python cannot start
    a = Arena(_spec(house=("random", "greedy"), transport="local"), tmp_path / "a.sqlite", sandbox=starved, poll=0)
    a.open()
    a.sync_entrants()
    with pytest.raises(BotStartError, match=r"no bot of (random, greedy|greedy, random) started .*never counted"):
        asyncio.run(a.encounter(("random", "greedy")))
    [enc] = a.tables.encounters(a.row.id, None)
    assert enc.status == "abandoned" and a.tables.matches(a.row.id) == []
    assert all(e.status == "active" and e.streak == 0 and e.failures == 0 and e.encounters == 0
               for e in a.entrants.values()), a.entrants
    a.close()


def test_a_betting_gate_whose_bounds_leave_it_no_power_is_refused_before_authors_wait_for_it(tmp_path, caplog):
    """``--gate 0,50`` on a Spades ladder of whole games: the betting test on the game's margin
    bounds (+-186000) could not accept H1 in 400 deals even were every deal 100 points better
    with no spread at all, so every new version, however much better, was rejected with "no
    decision after 400 deals", after 400 encounters of its author's waiting. A new ladder so set
    is refused, with the ways on; one begun so keeps its rules and is warned; a gate that can
    decide (one deal a match, bounds given, another test) is taken."""
    powerless = ArenaSpec(game="spades", name="w", gate="0,50", house=("random", "greedy"), transport="inproc")
    why = powerless.gate_powerless()
    assert re.search(r"gate: the betting test on a deal margin between -186000 and 186000 .*cannot accept H1 within "
                     r"gate.max_deals = 400 deals.*bounds = \"LO,HI\"", why), why
    db = tmp_path / "a.sqlite"
    with pytest.raises(SpecError, match="cannot accept H1 within gate.max_deals"):
        Arena(powerless, db).open()
    with Store(db) as store:  # a ladder begun so, before the check: its rules are kept, and it is told
        Arenas(store).open_arena("w", "spades", powerless.identity())
    with caplog.at_level("WARNING", logger="arbiter.arena.ladder"):
        a = Arena(powerless, db)
        a.open()
        a.close()
    assert any("cannot accept H1" in r.getMessage() for r in caplog.records)
    # bounds given: those are what to narrow (the game's options, "-o deals=1", no longer set them)
    narrow = replace(powerless, gate="0,20", gate_bounds="-600,600", gate_max_deals=40, options=SPADES).gate_powerless()
    assert "(gate.bounds)" in narrow and "give narrower bounds" in narrow and "deals=1" not in narrow, narrow
    assert "a larger max_deals" in why and "deals=1" in why, why
    for able in (replace(powerless, gate_bounds="-1000,1000"), replace(powerless, gate_kind="normal"),
                 replace(powerless, options=SPADES), ArenaSpec(game="spite-and-malice", gate="0,0.1")):  # the README's
        assert able.gate_powerless() == "", able


def test_a_version_submitted_to_a_ladder_is_checked_on_the_ladders_clock():
    """The arena's Bots service checked submissions at the self-test's own 2000 ms a decision:
    a ladder of 10 s a decision refused a bot of 3 s, one of 500 ms let in a bot of 1.5 s that
    then forfeited every match. The check is ``check_bot`` on the ladder's clock."""
    from arbiter.batch.submissions import check_bot

    check = _spec(decision_ms=500, bank_ms=4000).submission_check()
    assert check.func is check_bot and check.keywords == {"decision_ms": 500, "bank_ms": 4000}, check


def test_a_ladder_without_a_per_decision_limit_is_refused():
    """Found by the forfeit review: with decision_ms = 0 a bot losing an encounter (a remote one,
    its author's own process) could hang it until the arena stopped, which abandons the encounter
    uncounted: its loss, and its opponent's win, erased."""
    with pytest.raises(SpecError, match=r"^clock\.decision_ms: a ladder needs a per-decision limit"):
        _spec(decision_ms=0).validate()
    with pytest.raises(SpecError, match=r"clock\.decision_ms: a ladder needs"):
        arena_from_dict({"game": "spades", "clock": {"decision_ms": 0}})[0].validate()
    _spec(decision_ms=1).validate()


HALF_CRASHER = """
    import random

    from sdk import Bot

    class HalfCrasher(Bot):
        name = "mine"
        games = ("spades",)

        def choose(self, view, legal_actions):
            if view.seat == 1:
                raise RuntimeError("seat 1 again")
            return random.Random(len(str(view))).choice(legal_actions)
"""


def test_a_ladder_rated_before_forfeits_counted_at_the_widest_margin_is_recomputed_saying_why(tmp_path, caplog):
    """A forfeit's margin was its stored all-zero scores: a bot that won a deal's first seating
    and crashed in the second won the deal on margin. A ladder stored so is recomputed once at
    its next start under today's rule (``ratings.forfeit_stake``), saying so as a warning, not as
    a store edited by hand; its encounters' ratings are rewritten too, so the next start is quiet."""
    from arbiter.arena.ladder import replayed

    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register_code(reg, "1", textwrap.dedent(HALF_CRASHER))
        a = Arena(_spec(house=("random",), deals=4), db, poll=0)
        _run(a, 3)
        assert verify(a.tables, a.row) == []
        legacy_after, legacy_now = replayed(a.tables, a.row, legacy=True)
        assert legacy_now != recompute(a.tables, a.row)  # the rule decides something in this store
        a.tables.set_rating(a.row.id, legacy_now, legacy_after)  # as an arbiter before 7 December 2026 stored it
        assert verify(a.tables, a.row) and not verify(a.tables, a.row, legacy=True)
        a.close()
        with caplog.at_level("WARNING", logger="arbiter.arena.ladder"):
            b = Arena(_spec(house=("random",), deals=4), db, poll=0)
            b.open()
        said = [r for r in caplog.records if "ratings recomputed" in r.getMessage()]
        assert len(said) == 1 and said[0].levelname == "WARNING" and "widest loss the rules allow (900)" in said[0].getMessage()
        # why they differ, in words: "they were rated with its all-zero scores" named neither
        assert said[0].getMessage().endswith("the stored ratings read a forfeit by its stored all-zero scores, as no "
                                             "margin at all"), said[0].getMessage()
        assert not [r for r in caplog.records if r.levelname == "ERROR"]
        assert verify(b.tables, b.row) == []
        b.close()
        caplog.clear()
        with caplog.at_level("WARNING", logger="arbiter.arena.ladder"):
            c = Arena(_spec(house=("random",), deals=4), db, poll=0)
            c.open()
        assert not [r for r in caplog.records if "recomputed" in r.getMessage()]
        c.close()


def test_a_gate_reason_says_how_much_of_its_margin_is_forfeits(tmp_path):
    """Found by the forfeit review: a candidate that crashed in every match of its trial was
    rejected with "margin -900 per deal over 6 deals (all 6 deals alike ...)", a number its
    author reads as play; since a forfeit counts as a loss by the widest margin the rules
    allow (900 at Spades of one hand), the reason says how many of the trial's matches each
    side forfeited and what each cost, as ``arbiter evaluate``'s forfeits line does."""
    a = _trial_of(tmp_path / "a.sqlite", None, textwrap.dedent(CRASHER), suspend_after=0)
    new = a.entrants["mine@2"]
    assert new.status == "rejected", (new.status, new.reason)
    said = new.reason
    assert said.startswith("did not pass the gate against mine@1: margin -900 per deal"), said
    matches = 2 * a.gate_state("mine@2", "mine@1").deals  # each deal in both seatings
    assert (f"forfeits: {matches} of the trial's {matches} matches, all by mine@2 (crash {matches}); a forfeit counts -900 for "
            "the side that failed and +900 for the other in the margin (the widest margin the rules allow: no bot "
            "gains by forfeiting)") in said, said
    a.close()
    # a trial without a forfeit says nothing of them
    b = _trial_of(tmp_path / "b.sqlite", HEURISTIC_MINE, None)
    assert b.entrants["mine@2"].status == "rejected" and "forfeit" not in b.entrants["mine@2"].reason
    b.close()


def test_a_powerless_gate_names_the_option_that_shortens_its_own_games_matches():
    """Found running a Spot ladder with --gate 0,2 (three hands a seat by default: bounds
    +-1140): the refusal told its operator to shorten the matches with "-o deals=1", a Spades
    option Spot does not have; it names the game's own shortest matches (Spot: -o hands=1)."""
    why = ArenaSpec(game="spot", options={"players": 2}, gate="0,2", house=("random",)).gate_powerless()
    assert "cannot accept H1" in why and why.endswith("or shorter matches (the game's options, e.g. -o hands=1)"), why
    assert ArenaSpec(game="spot", options={"players": 2, "hands": 1}, gate="0,2", house=("random",)).gate_powerless() == ""


def test_a_new_version_of_a_suspended_bot_says_why_it_had_no_trial(tmp_path):
    """With a gate, a new version whose predecessor is suspended has no one to be tried
    against and enters the ladder at once; its reason said nothing (an empty line on the
    leaderboard and in ``bots show``, where its author looks for the trial)."""
    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as reg:
        _register(reg, "1", "(_ for _ in ()).throw(RuntimeError('out of ideas'))")
        a = Arena(_spec(house=("random",), suspend_after=2, gate="0,40"), db, poll=0)
        _run(a, 2)
        assert a.entrants["mine@1"].status == "suspended"
        _register(reg, "2")
        a.sync_entrants()
    new = a.entrants["mine@2"]
    assert new.status == "active", (new.status, new.reason)
    assert new.reason == "entered with no gate trial: its predecessor mine@1 is suspended", new.reason
    assert a.entrants["mine@1"].status == "suspended"
    a.close()
