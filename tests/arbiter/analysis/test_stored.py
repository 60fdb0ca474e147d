"""A seat's analysis is computed once and stored: read back equal, not computed again,
not stored in a read-only store, refused for a withheld match; a bot's costliest
decisions come from its stored analyses; `arbiter analyse` stores and reuses it."""

from __future__ import annotations

import dataclasses

import pytest

from arbiter.analysis.stored import analysed_rows, costliest, from_json, settings_key, stored_analysis, to_json
from arbiter.store.analyses import load_analysis, save_analysis
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play
from tests.cli.test_reask_cli import invoke

SETTINGS = dict(samples=2, seed=3, max_actions=3)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    record = play_local("spot", ["random", "heuristic", "heuristic"], seed=2, options={"players": 3, "hands": 1},
                        transport="inproc")
    db = tmp_path_factory.mktemp("stored") / "arena.sqlite"
    store_play(db, record)
    return db, record


def test_an_analysis_is_stored_once_and_read_back_equal(stored):
    db, record = stored
    with Store(db, read_only=True) as store:  # nothing stored yet; a read-only store is not written
        assert load_analysis(store, record.match_id, 0) is None
        assert stored_analysis(store, record.match_id, 0, compute=False, **SETTINGS) == (None, False)
    computed: list = []
    with Store(db) as store:
        rows, saved = stored_analysis(store, record.match_id, 0, progress=computed.append, **SETTINGS)
    assert saved and rows == computed and rows
    assert any(r.values for r in rows) and all(r.verdict in ("mistake", "fine", "unsure", "") for r in rows)
    assert from_json(to_json(rows)) == rows  # every field round-trips (values, intervals, verdicts)
    again: list = []
    with Store(db, read_only=True) as store:
        back, saved = stored_analysis(store, record.match_id, 0, progress=again.append, **SETTINGS)
        row = load_analysis(store, record.match_id, 0)
    assert saved and back == rows and not again  # read back, not computed again
    assert row is not None and row.settings == settings_key(**SETTINGS)
    with Store(db, read_only=True) as store:  # other settings: not stored, computed but not written
        other, saved = stored_analysis(store, record.match_id, 0, samples=2, seed=4, max_actions=3)
    assert other is not None and not saved
    with Store(db, read_only=True) as store:
        assert load_analysis(store, record.match_id, 0, settings_key(2, 4, 3)) is None


def test_an_analysis_of_an_older_method_is_computed_again(stored, tmp_path):
    """A change of ``METHOD`` (how values or verdicts are computed) retires every stored
    analysis: ``stored_analysis`` computes it again, and neither the inspector page nor a
    bot's costliest decisions show the old one (it has a verdict the method no longer gives:
    here a "mistake" of 1 unit, below any game's margin today)."""
    from arbiter.analysis.stored import METHOD, current_analysis
    from arbiter.present import inspector

    _, record = stored
    db = tmp_path / "old.sqlite"
    store_play(db, record)  # the match alone, nothing analysed
    valued = next(r for r in analysed_rows(record, 1, **SETTINGS) if r.values)
    old = [dataclasses.replace(valued, verdict="mistake", loss=1.0)]
    old_key = settings_key(**SETTINGS).replace(f"method={METHOD};", f"method={METHOD - 1};")
    with Store(db) as store:
        save_analysis(store, record.match_id, 1, old_key, to_json(old))
        assert load_analysis(store, record.match_id, 1).settings == old_key  # the newest, of the old method
        assert current_analysis(store, record.match_id, 1) is None
        page = inspector.inspect_page(store, record.match_id, {"seat": ["1"], "d": ["1"]}, "n")
        assert 'id="no-analysis"' in page and 'id="analyse"' in page and f"method {METHOD - 1})" not in page
        assert costliest(store, "heuristic") == ([], 0)
        again, saved = stored_analysis(store, record.match_id, 1, **SETTINGS)
        assert saved and again != old and not any(r.verdict == "mistake" and r.loss == 1.0 for r in again)
        assert current_analysis(store, record.match_id, 1).settings == settings_key(**SETTINGS)
        assert costliest(store, "heuristic")[1] == 1
        page = inspector.inspect_page(store, record.match_id, {"seat": ["1"], "d": ["1"]}, "n")
        assert 'id="no-analysis"' not in page and f"method {METHOD})" in page  # (the settings in words)


def test_a_bots_costliest_decisions_come_from_its_analysed_matches(stored):
    db, record = stored
    with Store(db) as store:
        rows, _ = stored_analysis(store, record.match_id, 0, **SETTINGS)
        found, n = costliest(store, "random", top=3)
        none, zero = costliest(store, "no-such-bot")
    lossy = sorted((r for r in rows if r.loss > 0), key=lambda r: (not r.mistake, -r.loss))[:3]
    assert n == 1 and [c.row for c in found] == lossy and all(c.seat == 0 for c in found)
    assert (none, zero) == ([], 0)


def test_the_cli_stores_its_analysis_and_reuses_it(stored, tmp_path):
    db, record = stored
    args = ("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "2", "--max-actions", "3")
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    assert "analysis stored" in first.output and f"/m/{record.match_id}/inspect?seat=1" in first.output
    said = " ".join(first.output.split())  # the terminal's line breaks aside
    assert "mistake: it cost more than 5 units (95% confidence); fine: nothing better at all (99.9%)" in said  # Spot's margins
    with Store(db, read_only=True) as store:
        assert load_analysis(store, record.match_id, 1, settings_key(2, 0, 3)) is not None
    second = invoke(*args)
    assert second.exit_code == 0 and "analysis stored" not in second.output and "analysis read back from" in second.output
    table = lambda out: out[out.index("seat 1 ("):]  # noqa: E731
    assert table(second.output) == table(first.output)  # the same analysis, read back
    r = invoke("analyse", "--bot", "heuristic", "--db", str(db))
    assert r.exit_code == 0 and "costliest decision" in r.output and "inspect" in r.output, r.output
    r = invoke("analyse", "--bot", "nobody", "--db", str(db))
    assert r.exit_code == 2 and "no match of 'nobody' in" in r.output  # a name no seat sat under
    r = invoke("analyse", record.match_id, "--bot", "heuristic", "--db", str(db))
    assert r.exit_code == 2 and "not both" in r.output
    r = invoke("analyse", "--db", str(db))
    assert r.exit_code == 2 and "give a match id" in r.output
    r = invoke("analyse", "--bot", "heuristic", "--db", str(tmp_path / "none.sqlite"))
    assert r.exit_code == 2 and "no store at" in r.output and "Traceback" not in r.output


def test_a_bots_page_lists_its_costliest_decisions_linked_to_the_inspector(stored):
    from arbiter.present.inspector import costliest_html, inspect_url

    db, record = stored
    with Store(db) as store:
        stored_analysis(store, record.match_id, 0, **SETTINGS)
        found, _ = costliest(store, "random", top=5)
        html = str(costliest_html(store, ["random"]))
        empty = str(costliest_html(store, ["nobody"]))
    assert found and html.count('class="costly"') == len(found)
    for c in found:
        assert inspect_url(c.match_id, c.seat, c.row.number).replace("&", "&amp;") in html
    assert 'id="no-costly"' in empty and "arbiter analyse MATCH --seat S" in empty


def test_an_arena_bots_page_lists_its_analysed_decisions(tmp_path):
    import asyncio

    from arbiter.arena.ladder import Arena, ArenaSpec
    from arbiter.present.web import arena_bot_page

    spec = ArenaSpec(game="spades", name="lab", options={"deals": 1}, house=("random", "greedy"), transport="inproc", seed=5)
    a = Arena(spec, tmp_path / "a.sqlite", poll=0)
    asyncio.run(a.run(max_encounters=1))
    a.close()
    with Store(tmp_path / "a.sqlite") as store:
        before = arena_bot_page(store, "lab", "random")
        m = store.bot_matches("random", 1)[0]  # an arena match: the one reader reads it
        seat = m.seats.index("random")
        rows, saved = stored_analysis(store, m.match_id, seat, samples=2, max_actions=3)
        html = arena_bot_page(store, "lab", "random")
    assert 'id="no-costly"' in before
    assert saved and html.count('class="costly"') == min(5, sum(r.loss > 0 for r in rows)) > 0
    assert f"/m/{m.match_id}/inspect?seat={seat}&amp;d=" in html
    # the house bot's name sits in the store's other matches too (another game, `arbiter play`):
    # their decisions are not the ladder's, and listed there they ranked money against points
    spot = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    store_play(tmp_path / "a.sqlite", spot)
    with Store(tmp_path / "a.sqlite") as store:
        other, _ = stored_analysis(store, spot.match_id, 0, samples=2, max_actions=3)
        assert any(r.loss > 0 for r in other)
        assert costliest(store, "random")[1] == 2  # both analysed: the page must choose
        html = arena_bot_page(store, "lab", "random")
    assert spot.match_id not in html and f"/m/{m.match_id}/inspect?seat={seat}&amp;d=" in html
    assert "From 1 analysed match" in html, html


def test_a_tournament_bots_page_lists_its_analysed_decisions_there(tmp_path):
    """/t/ID/bot/NAME: the bot's costliest analysed decisions in that tournament (links into
    the inspector); while a duplicate tournament runs its matches are withheld: none listed."""
    import asyncio
    import sqlite3

    from arbiter.present.web import PageError, tournament_bot_page, tournament_page
    from arbiter.tournament.run import TournamentSpec, run_tournament

    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=1, seed=7, name="lab")
    db = tmp_path / "t.sqlite"
    with Store(db) as store:
        asyncio.run(run_tournament(spec, store, transport="inproc"))
        m = store.matches(store.tournament("lab").id)[0]
        seat = m.seats.index("random")
        rows, saved = stored_analysis(store, m.match_id, seat, samples=2, max_actions=3)
    with Store(db, read_only=True) as store:
        html = tournament_bot_page(store, "lab", "random")
        assert f'href="/t/{store.tournament("lab").id}/bot/random"' in tournament_page(store, "lab")
        with pytest.raises(PageError) as e:
            tournament_bot_page(store, "lab", "nobody")
    assert e.value.status == 404
    assert saved and html.count('class="costly"') == min(5, sum(r.loss > 0 for r in rows)) > 0
    assert f"/m/{m.match_id}/inspect?seat={seat}&amp;d=" in html
    with sqlite3.connect(db) as conn:  # running again: a duplicate tournament withholds its matches
        conn.execute("UPDATE tournaments SET finished = NULL")
    with Store(db, read_only=True) as store:
        closed = tournament_bot_page(store, "lab", "random")
    assert 'class="costly"' not in closed and m.match_id not in closed


def test_a_bots_page_with_analysed_matches_but_no_costly_decision_says_so(tmp_path):
    """A bot whose analysed decisions all lost nothing: the page says so, not "No analysed
    match yet" (which sends its author to analyse a match already analysed)."""
    from arbiter.present.inspector import costliest_html

    record = play_local("spite-and-malice", ["random", "heuristic"], seed=1, options={"max_turns": 2},
                        transport="inproc")  # a draw at the turn limit: nothing a decision does changes it
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    with Store(db) as store:
        rows, _ = stored_analysis(store, record.match_id, 0, **SETTINGS)
        assert rows and all(r.loss == 0 for r in rows)
        html = str(costliest_html(store, ["random"]))
    assert "No analysed match yet" not in html, html
    assert "lost nothing against the best valued action" in html and "1 analysed match" in html, html


def test_a_bots_page_marks_an_action_the_arbiter_played_for_it(tmp_path):
    """The costliest list of a bot's page says when the arbiter played the action (an
    illegal answer under ``--policy default``), as the inspector and `arbiter analyse` do."""
    from arbiter.present.inspector import costliest_html
    from tests.cli.test_reask_cli import ZOO

    record = play_local("spot", [f"{ZOO}:ReturnIllegal", "heuristic"], seed=5, options={"hands": 1},
                        transport="inproc", policy="default")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    with Store(db) as store:
        rows, _ = stored_analysis(store, record.match_id, 0, samples=2)
        forced = [r for r in rows if r.forced and r.loss > 0]
        assert forced, [(r.number, r.forced, r.loss) for r in rows]
        html = str(costliest_html(store, ["ReturnIllegal"], top=50))
    assert f"{forced[0].chosen} (by the arbiter: illegal)" in html, html


def test_the_inspectors_loss_says_which_interval_it_is(stored):
    """The inspector's values are shown ± 1.96 s.e.; its loss line gave "± s.e." unlabelled
    beside them, read as the same 95% interval. It names its standard error, the number
    `arbiter analyse` shows in its "loss ± s.e." column."""
    from arbiter.present import inspector

    db, record = stored
    with Store(db) as store:
        rows, _ = stored_analysis(store, record.match_id, 0, **SETTINGS)
        a = next(r for r in rows if r.loss > 0)
        page = inspector.inspect_page(store, record.match_id, {"seat": ["0"], "d": [str(a.number)]}, "n")
    assert f"loss {a.loss:.1f}, s.e. {a.loss_se:.1f}, against the best valued" in page, page


def test_a_read_only_stores_inspector_offers_no_analysis_it_cannot_store(request):
    """`arbiter web` on a store it cannot write: the page offered "Analyse seat S now", whose
    job then stopped with the store's StoreError ("pass another --db") and offered the
    button again. It says the store cannot be written and that `arbiter analyse` prints an
    analysis without storing it; the POST is refused with the reason, no job started."""
    from arbiter.analysis import jobs
    from arbiter.present import inspector
    from tests.cli.badinput import unprivileged, unprivileged_root

    root = unprivileged_root(request, "arena-ro-inspect-")  # not tmp_path: an ordinary user must reach it
    record = play_local("spot", ["random", "heuristic"], seed=2, options={"hands": 1}, transport="inproc")
    db = root / "arena.sqlite"
    store_play(db, record)
    query = {"seat": ["1"], "d": ["1"]}
    with Store(db, read_only=True) as store:
        assert 'id="analyse"' in inspector.inspect_page(store, record.match_id, query, "n")  # writable: offered
    db.chmod(0o444)
    with unprivileged():
        with Store(db, read_only=True) as store:
            page = inspector.inspect_page(store, record.match_id, query, "n")
            with pytest.raises(inspector.InspectError) as refused:
                inspector.start_analysis(store, record.match_id, query)
    assert 'id="analyse"' not in page and 'id="read-only"' in page, page
    assert "cannot be written" in page and "without storing it" in page
    assert refused.value.status == 403 and "cannot be written" in str(refused.value)
    assert jobs.JOBS.get(db, record.match_id, 1) is None
