"""The store's pages as a visitor meets them (``arbiter web --db FILE``), called in process:
the way from the front page to everything the store holds."""

from __future__ import annotations

from arbiter.arena import matchmaking
from arbiter.arena.ladder import ArenaSpec
from arbiter.present.web import index_page
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store


def _arena(store: Store, name: str) -> None:
    """A Spades ladder ``name`` in ``store`` with one entrant, as ``arbiter arena`` opens one."""
    tables = Arenas(store)
    spec = ArenaSpec(game="spades", name=name)
    row = tables.open_arena(spec.display_name, spec.game, spec.identity())
    tables.add_entrant(row.id, "north@1", "north", "1", "alice", "", matchmaking.MU, matchmaking.SIGMA)


def test_the_front_page_of_an_arenas_store_leads_to_its_arenas(tmp_path):
    """An arena's store (``arbiter arena``) holds no tournament: its front page said only
    "No tournaments yet" and linked nowhere, the leaderboard at /a unreachable but by its URL."""
    with Store(tmp_path / "a.sqlite") as store:
        assert 'id="arenas-link"' not in index_page(store)  # no arena: nothing to link
        _arena(store, "club")
        page = index_page(store)
    assert '<a href="/a" id="arenas-link">1 arena</a> (club)' in page


CRASHING_BOT = '''
from sdk import Bot


class Crash(Bot):
    name = "crash"
    version = "0.1"
    games = ("*",)

    def choose(self, view, legal_actions):
        if len(legal_actions) > 3:
            raise RuntimeError("<b>boom</b>")
        return legal_actions[0]
'''


def test_a_bots_page_in_a_tournament_says_its_forfeits_and_why(tmp_path):
    """A bot that crashed in every match: its page said "0 won, 0 drawn, 2 lost" and nothing
    of its forfeits (the standings' column) or why; the other bot's page says none."""
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.present.web import open_read_only, tournament_bot_page

    (tmp_path / "crash.py").write_text(CRASHING_BOT)
    db = tmp_path / "t.sqlite"
    r = CliRunner().invoke(app, ["tournament", "run", "--game", "spades", "--bots", f"{tmp_path / 'crash.py'},random",
                                 "--deals", "1", "-o", "deals=1", "--name", "crashy", "--db", str(db),
                                 "--transport", "inproc", "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with open_read_only(db) as store:
        crash, other = tournament_bot_page(store, "crashy", "crash"), tournament_bot_page(store, "crashy", "random")
    assert '<span class="pill bad" id="forfeit-count">2 forfeits</span>' in crash
    assert crash.count('<tr class="forfeit">') == 2 and 'href="/m/1-0"' in crash
    assert "RuntimeError: &lt;b&gt;boom&lt;/b&gt;" in crash and "<b>boom</b>" not in crash
    assert "forfeit-count" not in other and 'id="forfeits"' not in other


def test_a_command_the_pages_give_to_paste_quotes_a_store_path_with_a_space(tmp_path):
    """The inspector's "Store one with arbiter analyse ID --seat S --db PATH" (and the live
    tournament's "arbiter watch --db PATH") gave a store in "club night/" unquoted: pasted,
    the shell split it into two arguments."""
    import asyncio

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from arbiter.present import inspector
    from arbiter.present.web import open_read_only
    from arbiter.tournament.play import store_play
    from cardarena.records import MatchConfig
    from sdk.loading import load_bot

    folder = tmp_path / "club night"
    folder.mkdir()
    db = folder / "arena.sqlite"
    bot = load_bot("random")
    config = MatchConfig(game="spades", seed=3, options={"deals": 1}, match_id="m-1")
    store_play(db, asyncio.run(run_match(config, [InProcessSeat(bot, "random") for _ in range(4)])))
    with open_read_only(db) as store:
        page = inspector.inspect_page(store, "m-1", {"seat": ["0"]}, "n0nce")
    assert f"--db &#39;{db}&#39;</code>" in page and f"--db {db}</code>" not in page


def test_a_named_teams_page_shows_its_partners_decisions_and_a_partner_is_pointed_to_it(tmp_path):
    """A named team's line (``greedy + heuristic``) links to its page, which looked for
    matches and analysed decisions of a bot of that name (none sits under it): "No analysed
    match yet" beside an analysed match of the team; a partner's own URL was a bare 404."""
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.present.web import PageError, open_read_only, tournament_bot_page

    db = tmp_path / "t.sqlite"
    runner = CliRunner()
    r = runner.invoke(app, ["tournament", "run", "--game", "spades", "--bots", "random,greedy,heuristic,r2=random",
                            "--teams", "greedy+heuristic,random+r2", "--deals", "1", "-o", "deals=1", "--seed", "5",
                            "--name", "teams", "--db", str(db), "--transport", "inproc", "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with open_read_only(db) as store:
        match = next(m for m in store.matches(store.tournament("teams").id) if m.seats[0] == "greedy")
    r = runner.invoke(app, ["analyse", match.match_id, "--db", str(db), "--seat", "0", "--samples", "1",
                            "--top", "0"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with open_read_only(db) as store:
        page = tournament_bot_page(store, "teams", "greedy + heuristic")
        assert "No analysed match yet" not in page and f"/m/{match.match_id}/inspect?seat=0" in page
        try:
            tournament_bot_page(store, "teams", "greedy")
            raise AssertionError("a partner's own page")
        except PageError as exc:
            assert exc.status == 404 and "plays in the team 'greedy + heuristic'" in str(exc)
            assert "/t/1/bot/greedy%20%2B%20heuristic" in str(exc)


def test_a_tournament_without_a_finished_match_says_so(tmp_path):
    """A tournament stopped before its first result showed a matches table of headers only,
    under standings of 0s: nothing said no match had ended."""
    from arbiter.present.web import open_read_only, tournament_page

    db = tmp_path / "t.sqlite"
    with Store(db) as store:
        store.open_tournament("early", "spades", {"game": "spades", "bots": ["random", "greedy"]})
    with open_read_only(db) as store:
        page = tournament_page(store, "early")
    assert '<p id="no-matches">No match has finished yet: the run stopped before its first result.</p>' in page
    assert '<table id="matches" hidden>' in page


def test_an_error_page_is_titled_by_its_status_as_the_play_pages_are():
    """A store page's 404 was titled "Card Arena", the front page's title: a tab (or a screen
    reader's first words) did not tell it from the home page; /play's errors say "404 · Card Arena"."""
    from arbiter.present.web import error_page

    assert "<title>404 · Card Arena</title>" in error_page(404, "no match 'x' in a.sqlite")


def test_the_arena_scale_note_gives_a_new_bot_the_plus_minus_its_page_shows():
    """A new bot's page read "rating 25.00 ± 16.33" (μ ± 1.96σ, the 95% interval) above the
    note "a new bot starts at 25 ± 8.3" (± σ): two meanings of ± on one page."""
    from arbiter.present.export import ARENA_SCALE
    from arbiter.present.web import arena_bot_page

    with Store(":memory:") as store:
        tables = Arenas(store)
        spec = ArenaSpec(game="spades", name="club")
        row = tables.open_arena(spec.display_name, spec.game, spec.identity())
        tables.add_entrant(row.id, "north@1", "north", "1", "alice", "", matchmaking.MU, matchmaking.SIGMA)
        page = arena_bot_page(store, "club", "north")
    shown = f"± {1.96 * matchmaking.SIGMA:.2f}"
    assert f"rating {matchmaking.MU:.2f} {shown}" in page
    assert f"{matchmaking.MU:.0f} ± {1.96 * matchmaking.SIGMA:.1f} at 95%" in ARENA_SCALE and "25 ± 8.3" not in ARENA_SCALE


def test_a_forfeit_before_any_action_does_not_speak_of_0_actions_replaying(tmp_path):
    """A bot that failed before the first decision: its replay said "the 0 actions before it
    replay"."""
    import asyncio

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from arbiter.present.web import open_read_only, replay_page
    from arbiter.tournament.play import store_play
    from cardarena.records import MatchConfig
    from sdk import Bot
    from sdk.loading import load_bot

    class Broken(Bot):
        name = "broken"
        games = ("*",)

        def choose(self, view, legal_actions):
            raise RuntimeError("no")

    db = tmp_path / "a.sqlite"
    config = MatchConfig(game="spite-and-malice", seed=3, match_id="m-0")
    record = asyncio.run(run_match(config, [InProcessSeat(Broken(), "broken"), InProcessSeat(load_bot("random"), "random")]))
    assert record.outcome.reason.is_forfeit and not record.actions
    store_play(db, record)
    with open_read_only(db) as store:
        page = replay_page(store, "m-0", {})
    assert "it came before any action; the result is the arbiter" in page and "the 0 actions" not in page


def test_the_matches_of_a_tournament_say_their_incidents_as_tournament_show_does(tmp_path):
    """Under ``--policy default`` a crashing bot's matches go on and end "completed": the page
    listed them so, with nothing of the 13 failures ``tournament show`` lists in each."""
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.present.web import open_read_only, tournament_page

    (tmp_path / "crash.py").write_text(CRASHING_BOT)
    db = tmp_path / "t.sqlite"
    r = CliRunner().invoke(app, ["tournament", "run", "--game", "spades", "--bots", f"{tmp_path / 'crash.py'},random",
                                 "--deals", "1", "-o", "deals=1", "--policy", "default", "--max-strikes", "100",
                                 "--name", "pol", "--db", str(db), "--transport", "inproc", "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with open_read_only(db) as store:
        rows = store.matches(store.tournament("pol").id)
        page = tournament_page(store, "pol")
    assert all(m.incidents and not m.outcome.reason.is_forfeit for m in rows)
    first = rows[0]
    crashed = {i.seat for i in first.incidents}
    for seat in crashed:
        n = sum(1 for i in first.incidents if i.seat == seat)
        assert f"seat {seat} crash" + (f" ×{n}" if n > 1 else "") in page
    assert page.count('<span class="small incidents">incidents: ') == len(rows)


def test_an_arena_named_ladder_is_not_titled_ladder_ladder(tmp_path):
    """The arena page's title added " ladder" to the arena's name: an arena called "ladder"
    (the README's example) read "ladder ladder"."""
    from arbiter.present.web import arena_page

    with Store(tmp_path / "a.sqlite") as store:
        for name in ("ladder", "club"):
            _arena(store, name)
        assert "<title>ladder · Card Arena</title>" in arena_page(store, "ladder")
        assert "<title>club ladder · Card Arena</title>" in arena_page(store, "club")


def test_the_inspector_says_how_the_match_ended(tmp_path):
    """A seat whose bot crashed lost by forfeit: its decisions' values cannot show it (the
    last one read "nothing: the match ended"), so the inspector says how the match ended, in
    the words of the replay's banner and `arbiter analyse`, the failure's detail included."""
    from arbiter.present import inspector
    from arbiter.present.web import open_read_only
    from arbiter.tournament.play import play_local, store_play
    from tests.cli.test_reask_cli import ZOO

    record = play_local("spite-and-malice", [f"{ZOO}:RaiseInChoose", "random"], seed=3, options={"max_turns": 30},
                        transport="inproc")
    assert record.outcome.reason.is_forfeit
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    with open_read_only(db) as store:
        page = inspector.inspect_page(store, record.match_id, {"seat": ["0"]}, "n0nce")
    assert '<p class="small" id="result">random (seat 1) won by forfeit: RaiseInChoose (seat 0) crashed (' in page, page
    assert "choose raised RuntimeError: boom" in page


def test_the_inspectors_analysis_settings_are_in_words_with_the_flags_that_give_them(tmp_path):
    """The inspector said "Analysis: method=17, samples=64, seed=0, max_actions=12": the store's
    key, naming no flag of `arbiter analyse` (--samples, --seed, --max-actions) and a version
    number its reader has no use for. It says them in words, with the command's flags."""
    import html

    from typer.testing import CliRunner

    from arbiter.analysis.stored import METHOD
    from arbiter.cli import app
    from arbiter.present.inspector import inspect_page
    from arbiter.present.web import open_read_only
    from arbiter.tournament.play import play_local, store_play

    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    db = tmp_path / "a.sqlite"
    store_play(db, record)
    r = CliRunner().invoke(app, ["analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2",
                                 "--top", "0"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with open_read_only(db) as store:
        page = html.unescape(" ".join(inspect_page(store, record.match_id, {"seat": ["0"]}, "n").split()))
    assert "method=" not in page and "max_actions=" not in page, page
    assert ("Analysis: 2 sampled states per decision, seed 0, at most 12 actions valued (arbiter analyse --samples 2 "
            f"--seed 0 --max-actions 12; the analysis's method {METHOD})") in page, page


def test_a_spades_replay_says_whose_partner_a_seat_is(tmp_path):
    """The every-hand view is drawn for seat 0 (North, at the bottom) whoever acts: it said
    "heuristic South · partner" while West acted, which read as West's partner. The seat
    views are drawn for their seat, and say so too."""
    import asyncio
    import html
    import re

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from arbiter.present.web import open_read_only, replay_page
    from arbiter.tournament.play import store_play
    from cardarena.records import MatchConfig
    from sdk.loading import load_bot

    db = tmp_path / "a.sqlite"
    config = MatchConfig(game="spades", seed=3, match_id="m-0")
    record = asyncio.run(run_match(config, [InProcessSeat(load_bot("heuristic"), "heuristic") for _ in range(4)]))
    store_play(db, record)

    def facts(page: str) -> dict[str, str]:
        return {k: html.unescape(f) for k, f in re.findall(r'<span class="where">(\w+)</span>.*?<span class="facts">· ([^<]*)</span>', page)}

    with open_read_only(db) as store:
        full = facts(replay_page(store, "m-0", {"view": ["full"], "step": ["1"]}))
        east = facts(replay_page(store, "m-0", {"view": ["seat1"], "step": ["1"]}))
    assert full["South"].startswith("North's partner · ") and not any("partner" in f for k, f in full.items() if k != "South"), full
    assert east["West"].startswith("East's partner · ") and not any("partner" in f for k, f in east.items() if k != "West"), east
