"""A forfeit never pays: it counts as the widest loss the rules allow (``ratings.forfeit_stake``).

Found in the arena: a forfeit stores all-zero scores; the ladder broke a deal tied on points by
the raw score margin over its seatings, so a bot that won one seating by 174 and crashed in the
other won the deal (174 + 0 against 0), and `arbiter evaluate`'s margin counted the crash as a
loss by 1, so a bot about to lose a deal by 300 could crash to lose it by 1."""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace as NS

import pytest

from arbiter.arena import matchmaking
from arbiter.rating.ratings import compute_standings, counted_result, forfeit_stake, margin_of
from cardarena.games import EndReason, Outcome, get_game
from sdk import Bot

CRASH_A = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_CRASH)  # seat 0 (A here) crashed: it lost
A_BY_174 = Outcome((174.0, 0.0), (1, 2), EndReason.COMPLETED)


def test_a_bot_that_crashes_in_one_seating_loses_the_deal_on_the_ladder():
    stake = forfeit_stake(get_game("spades", {"deals": 1}))
    assert stake == 900
    deal = [NS(deal=0, seats=("a", "b"), outcome=A_BY_174), NS(deal=0, seats=("a", "b"), outcome=CRASH_A)]
    (points,) = matchmaking.deal_points(deal, [[0], [1]], ["a", "b"], stake)
    assert points["a"][0] == points["b"][0] == 0.5  # a seating each
    assert points["a"][1] == (174 - 900) / 2 < 0 < points["b"][1]  # b wins the tie: a crashed
    (legacy,) = matchmaking.deal_points(deal, [[0], [1]], ["a", "b"], None)  # as ladders counted it until now
    assert legacy["a"][1] == 87 > legacy["b"][1]
    after = matchmaking.rate_encounter({}, ["a", "b"], [points])
    assert after["b"][0] > after["a"][0]


def test_evaluates_margin_counts_a_forfeit_at_the_games_widest_and_standings_alike():
    stake = forfeit_stake(get_game("spades", {"deals": 1}))
    assert margin_of(CRASH_A, [0, 1], stake) == -900 and margin_of(CRASH_A, [1, 0], stake) == 900
    heads_up = ("a", "b"), [[0], [1]]
    assert counted_result(CRASH_A, *heads_up, stake) == ((0.0, 900.0), (2, 1))
    assert counted_result(A_BY_174, *heads_up, stake) == (A_BY_174.scores, A_BY_174.ranks)
    rows = [NS(idx=i, round=0, deal=0, table=0, rotation=i, seed=1, seats=s, outcome=o, incidents=())
            for i, (s, o) in enumerate(((("a", "b"), A_BY_174), (("b", "a"), CRASH_A)))]  # b in seat 0 crashed
    st = compute_standings(rows, [[0], [1]], bots=("a", "b"), stake=stake)
    a = next(r for r in st.rows if r.name == "a")
    assert a.dup_values == [(174 + 900) / 2]  # b crashed in the second seating: a's margin there is 900
    # Spite and Malice's single games: +-1, as before
    assert forfeit_stake(get_game("spite-and-malice")) == 1


def _random_margins(game, seeds):
    out = []
    for seed in seeds:
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
        scores = state.outcome().scores
        out.append(max(scores) - min(scores))
    return out


@pytest.mark.parametrize("name, options", [
    ("spot", {"players": 2, "hands": 1}),
    ("spot", {"players": 3, "hands": 2, "ante": 7, "unit_per_spot": 2}),
    ("spite-and-malice", {"series_scoring": True, "match_target": 8, "payoff_size": 5}),
])
def test_the_derived_bounds_hold_every_played_margin(name, options):
    """A forfeit counted at the bound never beats play only if no play goes beyond it: random
    play's margins (the widest spread of seats) stay inside the bounds the game derives."""
    game = get_game(name, options)
    lo, hi = game.margin_bounds()
    margins = _random_margins(game, range(40 if name == "spot" else 6))
    assert all(lo <= -m and m <= hi for m in margins), (max(margins), hi)
    assert max(margins) > 0


def test_a_forfeit_by_one_copy_costs_its_bot_the_whole_stake():
    """Spot of four seats, A in two: one copy of A forfeits, the other still ranks first with B's
    seats (the failing seat's side alone ranks last); by scores by rank A's margin was -stake / 2,
    which a copy losing by more could gain from."""
    out = Outcome((0.0,) * 4, (1, 4, 1, 1), EndReason.FORFEIT_TIMEOUT)  # seat 1 (A's) timed out
    assert margin_of(out, [0, 0, 1, 1], 380.0) == -380.0
    assert margin_of(out, [1, 1, 0, 0], 380.0) == 380.0
    assert margin_of(out, [0, None, 1, 1], 380.0) == 0.0  # a third bot failed: A and B both ranked first


class CopyCrash(Bot):
    """Hostile: plays at random in seats 0 and 1 and crashes at once in any later seat, so where it
    holds several seats of a free for all one copy gives up while another plays on."""

    name = "copy-crash"
    games = ("*",)

    def on_match_start(self, info):
        super().on_match_start(info)
        self.seat = info.seat

    def choose(self, view, legal_actions):
        if self.seat >= 2:
            raise RuntimeError("this copy gives up")
        return self.rng.choice(legal_actions)


def test_a_copy_that_forfeits_leaves_its_bot_no_point_in_the_standings(tmp_path):
    """Real matches (in process): a two-bot Spot tournament of four seats seats copies of one bot on
    several sides. A forfeit ranked the failing seat's side alone last and every other side first,
    so the failing bot's other copies shared first place with the bot it was losing to: a draw,
    points and a Bradley-Terry tie where any play of its own, its copies last, is a loss (seen: 7
    of its 12 matches drawn, every one by a crash). Every side of the failing bot counts as failed."""
    from arbiter.store.db import Store
    from arbiter.tournament.run import TournamentSpec, run_tournament, standings

    spec = TournamentSpec(game="spot", bots=(f"copy={__name__}:CopyCrash", "heuristic"), options={"hands": 1}, deals=1,
                          seed=3, name="copies")
    said = []
    with Store(tmp_path / "arena.db") as store:
        rows = asyncio.run(run_tournament(spec, store, transport="inproc", on_progress=lambda p: said.append(p.leader)))
    game = spec.validate_game()
    assert sum(r.outcome.reason.is_forfeit and any(r.seats[s] == "copy" for s in range(4) if r.outcome.ranks[s] == 1)
               for r in rows) >= 5  # a copy forfeited while another ranked first
    st = standings(rows, game, True, ("copy", "heuristic"))
    copy = next(r for r in st.rows if r.name == "copy")
    assert (copy.wins, copy.draws, copy.losses) == (0, 0, len(rows))
    assert st.cross("copy", "heuristic") == 0.0
    # its points are at most those of its copies finishing last (k copies of n seats: (k - 1) / 2 / (n - 1))
    last = sum((r.seats.count("copy") - 1) / 2 / (game.num_seats - 1) for r in rows)
    assert copy.points == pytest.approx(last)
    assert [r.name for r in st.rows] == ["heuristic", "copy"]
    assert said[-1] == f"heuristic {100 * st.rows[0].score_rate:.0f}%"  # the progress line reads it alike
    # the ladder reads a deal the same way (``deal_points``): the copies' side loses to heuristic
    deals = matchmaking.deal_points([NS(deal=0, seats=r.seats, outcome=r.outcome) for r in rows], game.teams,
                                    ["copy", "heuristic"], forfeit_stake(game))
    assert deals[0]["copy"][0] < deals[0]["heuristic"][0]


def test_the_standings_margin_note_says_what_a_forfeit_counts_when_there_is_one():
    from arbiter.present.export import margin_note

    crash_b = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_CRASH)  # seat 0 (b here) crashed
    rows = [NS(idx=i, round=0, deal=0, table=0, rotation=i, seed=1, seats=s, outcome=o, incidents=inc)
            for i, (s, o, inc) in enumerate(((("a", "b"), A_BY_174, ()),
                                             (("b", "a"), crash_b, (NS(seat=0, kind="crash", detail="boom"),))))]
    st = compute_standings(rows, [[0], [1]], bots=("a", "b"), stake=900.0)
    assert st.stake == 900 and next(r for r in st.rows if r.name == "b").forfeits == 1
    assert "a forfeit counts as a loss by 900 for the side that failed, the widest margin the rules allow" in margin_note(st)
    calm = compute_standings(rows[:1], [[0], [1]], bots=("a", "b"), stake=900.0)
    assert "forfeit" not in margin_note(calm)
