"""The remote division's settings (`division = "remote"`): what it cannot have is refused by
name, the ladder's identity says its division (and only then: older ladders keep theirs),
and every seating of an encounter is planned on a deal of its own."""

from __future__ import annotations

import pytest

from arbiter.arena.ladder import Arena, ArenaSpec, arena_from_dict
from arbiter.store.db import transaction
from arbiter.tournament.spec import SpecError


@pytest.mark.parametrize("settings, said", [
    ({"division": "elsewhere"}, "division: expected hosted or remote, got 'elsewhere'"),
    ({"division": "remote", "house": ("random",)}, "house: not in the remote division (house bots are hosted)"),
    ({"division": "remote", "gate": "0,0.1"}, "gate: not in the remote division (a connected bot has no versions to gate)"),
    ({"division": "remote", "cluster": "tcp://127.0.0.1:8786"}, "cluster: not in the remote division"),
    ({"division": "remote", "transport": "inproc"}, "transport: the remote division's bots connect over gRPC"),
])
def test_what_the_remote_division_cannot_have_is_refused_by_name(settings, said):
    with pytest.raises(SpecError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
        ArenaSpec(game="spite-and-malice", **settings).validate()


def test_the_identity_names_the_division_only_when_remote():
    hosted, _ = arena_from_dict({"game": "spades"})
    remote, _ = arena_from_dict({"game": "spades", "division": "remote"})
    assert "division" not in hosted.identity()  # a ladder made before divisions still opens as it was
    assert remote.identity() == hosted.identity() | {"division": "remote"}


def test_every_seating_of_a_remote_encounter_is_a_deal_of_its_own(tmp_path):
    spec = ArenaSpec(game="spades", deals=2, division="remote")
    plan = Arena(spec, tmp_path / "a.sqlite")._plan(["a", "b"], 7)
    hosted = Arena(ArenaSpec(game="spades", deals=2), tmp_path / "b.sqlite")._plan(["a", "b"], 7)
    assert len(plan) == len(hosted) == 4  # two deals, each in the two seatings of two sides
    assert len({seed for *_, seed in plan}) == len({deal for deal, *_ in plan}) == 4
    assert len({seed for *_, seed in hosted}) == 2  # hosted: the duplicate deals themselves
    assert [seats for _, _, seats, _, _ in plan] == [seats for _, _, seats, _, _ in hosted]


def test_the_leaderboard_says_not_hosted_for_the_remote_division_only(tmp_path):
    from arbiter.arena import matchmaking
    from arbiter.present.web import arena_page
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import Store

    with Store(tmp_path / "a.sqlite") as store:
        tables = Arenas(store)
        for spec in (ArenaSpec(game="spades", name="home"), ArenaSpec(game="spades", name="away", division="remote")):
            row = tables.open_arena(spec.display_name, spec.game, spec.identity())
            version, author = ("remote", "remote") if spec.remote else ("1", "alice")
            tables.add_entrant(row.id, "north" if spec.remote else "north@1", "north", version, author, "",
                               matchmaking.MU, matchmaking.SIGMA)
        home, away = arena_page(store, "home"), arena_page(store, "away")
    assert 'id="not-hosted"' in away and "do not compete on equal hardware" in away
    assert '<span class="pill not-hosted">not hosted</span>' in away and "fresh deal" in away
    assert "not-hosted" not in home and "not hosted" not in home and "each in every seating" in home


def test_connected_bots_enter_by_their_identity_and_a_suspended_one_returns_with_a_new_connection(tmp_path):
    """The remote division's entrants are the hub's sessions (by the identity the token gave
    them), matched while connected; a suspended one comes back with a new connection only."""
    from arbiter.server.botstream import Hub
    from cardarena.v1 import arena_pb2 as pb

    arena = Arena(ArenaSpec(game="spite-and-malice", division="remote"), tmp_path / "a.sqlite")
    arena.open()
    try:
        arena.hub = hub = Hub()

        def connect(identity: str, claimed: str, games: tuple[str, ...] = ()):
            return hub.add(pb.Hello(bot_name=claimed, games=list(games)), identity)

        first = connect("alpha", "alpha")
        connect("beta", "someone-else")  # the name its Hello claims counts for nothing
        connect("gamma", "gamma", ("spades",))  # it does not play the ladder's game
        arena.sync_entrants()
        assert set(arena.entrants) == {"alpha", "beta"}
        assert arena.next_table() is not None
        hub.remove(first)  # alpha goes away: it stays on the ladder, but is not matched
        arena.sync_entrants()
        assert set(arena.entrants) == {"alpha", "beta"} and arena.next_table() is None

        again = connect("alpha", "alpha")
        arena.tables.set_status(arena.row.id, "alpha", "suspended", "forfeited")
        with transaction(arena.tables.db) as db:  # suspended after 3 encounters in a row with a forfeit
            db.execute("UPDATE arena_entrants SET streak = 3 WHERE player = 'alpha'")
        arena._suspended_on["alpha"] = {again.session_id}  # as _commit notes it when it suspends
        arena._refresh()
        arena.sync_entrants()
        assert arena.entrants["alpha"].status == "suspended"  # the same connection brings nothing back
        connect("alpha", "alpha")
        arena.sync_entrants()
        assert arena.entrants["alpha"].status == "active" and arena.next_table() is not None
        # back with no forfeit in a row: its first forfeit on the new connection did suspend it again
        assert arena.entrants["alpha"].streak == 0
    finally:
        arena.close()


def test_a_remote_bot_back_on_a_new_connection_is_not_suspended_again_by_its_old_ones_encounter(tmp_path):
    """Encounters run at once: one still played by a bot's hung connection when the bot is
    suspended (for another), and its author connects the fixed bot anew, which brings it back.
    That encounter's forfeits then came in: they suspended the bot again, now on its new,
    healthy connection, which a further new connection was needed to undo. They are counted
    (the old connection forfeited), but toward no suspension of the new one."""
    from arbiter.server.botstream import Hub
    from cardarena.games import EndReason, Outcome
    from cardarena.records import Incident, MatchRecord
    from arbiter.store.arenas import PlayedMatch
    from cardarena.v1 import arena_pb2 as pb

    arena = Arena(ArenaSpec(game="spite-and-malice", division="remote", suspend_after=1), tmp_path / "a.sqlite")
    arena.open()
    try:
        arena.hub = hub = Hub()
        old = hub.add(pb.Hello(bot_name="alpha"), "alpha")
        hub.add(pb.Hello(bot_name="beta"), "beta")
        arena.sync_entrants()
        players = ("alpha", "beta")
        started = arena._tick  # an encounter begins on the old connection (as _reserved_encounter)
        idx = arena.tables.begin_encounter(arena.row.id, players, 7)
        arena._tick += 1
        arena.tables.set_status(arena.row.id, "alpha", "suspended", "forfeited")  # by another encounter
        arena._suspended_on["alpha"] = {old.session_id}
        arena._refresh()
        hub.remove(old)
        hub.add(pb.Hello(bot_name="alpha"), "alpha")  # fixed, connected anew: back
        arena.sync_entrants()
        assert arena.entrants["alpha"].status == "active"
        hung = MatchRecord(f"a{arena.row.id}-e{idx}-0", "spite-and-malice", {}, 1, players,
                           incidents=[Incident(0, "timeout", "no answer")],
                           outcome=Outcome((0.0, 1.0), (2, 1), EndReason.FORFEIT_TIMEOUT, "seat 0 (alpha): no answer"))
        done = arena._commit(idx, players, [PlayedMatch(0, 0, 0, players, hung)], started)
        assert done.suspended == () and arena.entrants["alpha"].status == "active", arena.entrants["alpha"]
        assert done.forfeits == {"alpha": (1, 0)}  # counted, none in a row
        assert "not counted toward a suspension" in done.failures["alpha"]
        assert arena.next_table() is not None  # and it plays on
    finally:
        arena.close()


def test_a_remote_bots_page_says_how_it_comes_back_and_its_version(tmp_path):
    """A suspended remote bot's page said it plays again "once a new version is registered
    (arbiter bots submit ...)", which the remote division never plays (its server refuses
    submissions), and its encounters' version column said "house"."""
    from arbiter.arena import matchmaking
    from arbiter.present.web import arena_bot_page
    from arbiter.store.arenas import Arenas, PlayedMatch, PlayerUpdate
    from arbiter.store.db import Store
    from cardarena.games import EndReason, Outcome
    from cardarena.records import Incident, MatchRecord

    spec = ArenaSpec(game="spite-and-malice", name="away", division="remote")
    with Store(tmp_path / "a.sqlite") as store:
        tables = Arenas(store)
        row = tables.open_arena(spec.display_name, spec.game, spec.identity())
        for name in ("north", "south"):
            tables.add_entrant(row.id, name, name, "remote", "remote", "", matchmaking.MU, matchmaking.SIGMA)
        players = ("north", "south")
        idx = tables.begin_encounter(row.id, players, 7)
        hung = MatchRecord(f"a{row.id}-e{idx}-0", "spite-and-malice", {}, 1, players,
                           incidents=[Incident(0, "timeout", "no answer")],
                           outcome=Outcome((0.0, 1.0), (2, 1), EndReason.FORFEIT_TIMEOUT, "seat 0 (north): no answer"))
        tables.finish_encounter(row.id, idx, [PlayedMatch(0, 0, 0, players, hung)],
                                {"north": PlayerUpdate(20.0, 8.0, 1, 1, 1, "suspended after 1 encounters in a row"),
                                 "south": PlayerUpdate(30.0, 8.0, 1, 0, 0, "")}, {"north": "timeout: no answer"})
        page = arena_bot_page(store, "away", "north")
    assert 'id="suspended"' in page and "new version" not in page and "bots submit" not in page, page
    assert "It plays again once it connects anew" in page
    encounters = page[page.index('id="bot-encounters"'):]
    assert "<td>remote</td>" in encounters and "house" not in encounters


def test_the_standings_command_and_every_export_say_not_hosted_as_the_page_does(tmp_path):
    """The leaderboard page says why a remote division's rows are not hosted (unequal
    hardware, no duplicate deals); `arbiter standings --arena` and its md, html and json
    exports said nothing of it. One text, everywhere; a hosted ladder has none."""
    import json

    from arbiter.arena import matchmaking
    from arbiter.present.export import render_ladder
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import Store
    from tests.cli.badinput import invoke

    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        for spec in (ArenaSpec(game="spades", name="home"), ArenaSpec(game="spades", name="away", division="remote")):
            row = tables.open_arena(spec.display_name, spec.game, spec.identity())
            tables.add_entrant(row.id, "north" if spec.remote else "north@1", "north", *(
                ("remote", "remote") if spec.remote else ("1", "alice")), "", matchmaking.MU, matchmaking.SIGMA)
        rows = matchmaking.standings(tables.entrants(tables.arena("away").id))
    said = "do not compete on equal hardware"
    for fmt in ("md", "html"):
        assert said in render_ladder(fmt, "away", "spades", rows, remote=True)
        assert said not in render_ladder(fmt, "home", "spades", rows)
    exported = json.loads(render_ladder("json", "away", "spades", rows, remote=True))
    assert exported["division"] == "remote" and said in exported["not_hosted"]
    assert "not_hosted" not in json.loads(render_ladder("json", "home", "spades", rows))
    for arena, shown in (("away", True), ("home", False)):
        done = invoke(["standings", "--arena", arena, "--db", str(db)])
        assert done.exit_code == 0, done.describe()
        assert (said in " ".join(done.output.split())) is shown, done.output
        md = invoke(["standings", "--arena", arena, "--db", str(db), "--format", "md"])
        assert (said in " ".join(md.output.split())) is shown, md.output


def test_bots_show_finds_a_remote_division_bot_where_it_stands(tmp_path):
    """`arbiter bots show NAME --db` (README, "Where it stands") said of a bot of the remote
    division "no bot 'north' in the registry": it is in none (it connects, it is not
    submitted). It shows where it stands in the arenas, and says why it has no versions."""
    from arbiter.arena import matchmaking
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import Store
    from tests.cli.badinput import invoke

    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        spec = ArenaSpec(game="spades", name="away", division="remote")
        row = tables.open_arena(spec.display_name, spec.game, spec.identity())
        tables.add_entrant(row.id, "north", "north", "remote", "remote", "", matchmaking.MU, matchmaking.SIGMA)
        tables.set_status(row.id, "north", "suspended", "suspended after 3 encounters in a row with a forfeit")
    done = invoke(["bots", "show", "north", "--db", str(db)])
    said = " ".join(done.output.split())
    assert done.exit_code == 0 and not done.crash, done.describe()
    assert "north is not registered here: a bot of the remote division" in said, said
    assert "away" in said and "suspended" in said and "in a row with a forfeit" in said, said
    nobody = invoke(["bots", "show", "south", "--db", str(db)])
    assert nobody.exit_code == 2 and "no bot 'south'" in nobody.output, nobody.describe()
