"""The store's pages as a visitor meets them (``arbiter web --db FILE``), called in process:
the way from the front page to everything the store holds."""

from __future__ import annotations

from arbiter.arena import matchmaking
from arbiter.arena.ladder import ArenaSpec
from arbiter.present.web import index_page
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store


def test_the_front_page_of_an_arenas_store_leads_to_its_arenas(tmp_path):
    """An arena's store (``arbiter arena``) holds no tournament: its front page said only
    "No tournaments yet" and linked nowhere, the leaderboard at /a unreachable but by its URL."""
    with Store(tmp_path / "a.sqlite") as store:
        assert 'id="arenas-link"' not in index_page(store)  # no arena: nothing to link
        tables = Arenas(store)
        spec = ArenaSpec(game="spades", name="club")
        row = tables.open_arena(spec.display_name, spec.game, spec.identity())
        tables.add_entrant(row.id, "north@1", "north", "1", "alice", "", matchmaking.MU, matchmaking.SIGMA)
        page = index_page(store)
    assert '<a href="/a" id="arenas-link">1 arena</a> (club)' in page
