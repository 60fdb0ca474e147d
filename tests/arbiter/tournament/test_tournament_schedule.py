"""Schedules for every game shape: tables, seat balance, duplicate deals, determinism; specs."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from cardarena.games import get_game
from arbiter.tournament.spec import SpecError, TournamentSpec, spec_from_toml
from arbiter.tournament.run import schedule


def plan_of(game: str, bots, options=None, **kw):
    spec = TournamentSpec(game=game, bots=tuple(bots), options=options or {}, **{"seed": 0, **kw})
    g = spec.validate()
    return g, schedule(g, spec)


def check_balanced_and_duplicate(g, plan, entries_per_table: int):
    """Every bot sits in every seat equally often (over the whole plan and per deal of a
    table), and every deal of a table is played in every seating of that table."""
    by_group: dict[tuple, list] = {}
    for m in plan:
        by_group.setdefault((m.round, m.deal, m.table), []).append(m)
    seatings_per_table: dict[int, set] = {}
    for (rnd, deal, table), ms in by_group.items():
        assert len({m.seed for m in ms}) == 1, "one deal seed per duplicate group"
        seatings = [m.seats for m in ms]
        assert len(set(seatings)) == len(seatings), "no seating twice for one deal"
        seatings_per_table.setdefault(table, set()).add(frozenset(seatings))
        # within the group every bot holds every seat equally often
        per_bot = Counter((bot, seat) for m in ms for seat, bot in enumerate(m.seats))
        bots = {b for m in ms for b in m.seats}
        for bot in bots:
            counts = {per_bot[(bot, s)] for s in range(g.num_seats)}
            assert len(counts) == 1, f"{bot} unbalanced over seats within deal {deal} of table {table}: {per_bot}"
    for table, variants in seatings_per_table.items():
        assert len(variants) == 1, f"table {table}: every deal is played in the same full set of seatings"
    # deals are shared by all tables of a round
    seeds = {(m.round, m.deal): set() for m in plan}
    for m in plan:
        seeds[(m.round, m.deal)].add(m.seed)
    assert all(len(s) == 1 for s in seeds.values())
    assert [m.idx for m in plan] == list(range(len(plan)))


def test_head_to_head_round_robin():
    bots = ["a=random", "b=random", "c=heuristic", "d=heuristic"]
    g, plan = plan_of("spite-and-malice", bots, deals=3)
    tables = {frozenset(m.sides) for m in plan}
    assert tables == {frozenset(p) for p in itertools.combinations("abcd", 2)}
    assert len(plan) == 6 * 3 * 2
    check_balanced_and_duplicate(g, plan, 2)
    # each deal is played with the sides swapped
    m0, m1 = plan[0], plan[1]
    assert m0.seed == m1.seed and m0.seats == tuple(reversed(m1.seats))


def test_partnerships_of_a_bot_and_its_copy():
    g, plan = plan_of("spades", ["random", "greedy", "heuristic"], {"deals": 1}, deals=2)
    assert g.teams == ((0, 2), (1, 3))
    assert {frozenset(m.sides) for m in plan} == {frozenset(p) for p in itertools.combinations(["random", "greedy", "heuristic"], 2)}
    for m in plan:
        assert m.seats[0] == m.seats[2] and m.seats[1] == m.seats[3], "partners are a bot and its copy"
    check_balanced_and_duplicate(g, plan, 2)
    assert len(plan) == 3 * 2 * 2


def test_named_partnerships_rotate_within_the_team_too():
    bots = ["a=random", "b=random", "c=heuristic", "d=greedy"]
    g, plan = plan_of("spades", bots, {"deals": 1}, deals=2, teams=(("a", "b"), ("c", "d")))
    assert {m.sides for m in plan} == {("a+b", "c+d"), ("c+d", "a+b")}
    # 2 side orders x 2 orders within the teams = 4 seatings per deal
    assert len(plan) == 2 * 4
    for m in plan:
        assert {m.seats[0], m.seats[2]} in ({"a", "b"}, {"c", "d"}) and {m.seats[1], m.seats[3]} in ({"a", "b"}, {"c", "d"})
    check_balanced_and_duplicate(g, plan, 2)
    seat_counts = Counter((b, s) for m in plan for s, b in enumerate(m.seats))
    assert set(seat_counts.values()) == {2}, "each bot holds each seat once per deal"


def test_spite_and_malice_partnerships_with_more_than_two_teams():
    bots = ["a=random", "b=random", "c=heuristic", "d=heuristic", "e=random", "f=heuristic"]
    g, plan = plan_of("spite-and-malice", bots, {"players": 6, "partnerships": True}, deals=1,
                      teams=(("a", "b"), ("c", "d"), ("e", "f")))
    assert len(g.teams) == 3 and all(len(t) == 2 for t in g.teams)
    assert len(plan) == 3 * 2  # one table, 3 rotations x 2 in-team orders
    check_balanced_and_duplicate(g, plan, 3)


def test_free_for_all_every_combination():
    bots = ["a=random", "b=random", "c=heuristic", "d=heuristic", "e=random"]
    g, plan = plan_of("spot", bots, {"hands": 2}, deals=2)
    assert g.num_seats == 4 and len(g.teams) == 4
    tables = {frozenset(m.sides) for m in plan}
    assert tables == {frozenset(c) for c in itertools.combinations("abcde", 4)}
    assert len(plan) == math.comb(5, 4) * 2 * 4
    check_balanced_and_duplicate(g, plan, 4)


def test_free_for_all_permutations_play_every_order():
    g, plan = plan_of("spot", ["a=random", "b=random", "c=heuristic"], {"players": 3, "hands": 3}, deals=1, seatings="permutations")
    assert len(plan) == 6
    assert {m.seats for m in plan} == set(itertools.permutations("abc"))
    check_balanced_and_duplicate(g, plan, 3)


def test_free_for_all_with_fewer_bots_than_seats_uses_copies_evenly():
    g, plan = plan_of("spot", ["random", "heuristic"], {"hands": 2}, deals=1)
    tables = {tuple(sorted(m.sides)) for m in plan}
    assert tables == {
        ("heuristic", "random", "random", "random"),
        ("heuristic", "heuristic", "random", "random"),
        ("heuristic", "heuristic", "heuristic", "random"),
    }
    check_balanced_and_duplicate(g, plan, 4)
    total = Counter(b for m in plan for b in m.seats)
    assert total["random"] == total["heuristic"], "copies are spread evenly over the bots"


def test_gauntlet_plays_only_the_challengers_tables():
    bots = ["me=heuristic", "x=random", "y=random", "z=random"]
    g, plan = plan_of("spite-and-malice", bots, deals=2, format="gauntlet")
    assert {frozenset(m.sides) for m in plan} == {frozenset({"me", o}) for o in "xyz"}
    check_balanced_and_duplicate(g, plan, 2)
    g, plan = plan_of("spot", bots, {"hands": 2}, deals=1, format="gauntlet", challenger="x")
    assert all("x" in m.sides for m in plan)
    assert {frozenset(m.sides) for m in plan} == {frozenset({"x", *c}) for c in itertools.combinations(["me", "y", "z"], 3)}


def test_double_round_robin_has_two_rounds_of_fresh_deals():
    g, plan = plan_of("spite-and-malice", ["random", "heuristic"], deals=2, format="double-round-robin")
    assert {m.round for m in plan} == {0, 1} and len(plan) == 2 * 2 * 2
    assert len({m.seed for m in plan}) == 4
    check_balanced_and_duplicate(g, plan, 2)


def test_without_duplicate_every_match_has_its_own_deal_and_seatings_rotate():
    g, plan = plan_of("spades", ["random", "greedy", "heuristic"], {"deals": 1}, deals=4, duplicate=False)
    assert len(plan) == 3 * 4
    assert len({m.seed for m in plan}) == len(plan)
    seat_counts = Counter((b, s) for m in plan for s, b in enumerate(m.seats))
    assert set(seat_counts.values()) == {4}, "over an even number of deals each bot holds each seat equally often"


def test_same_seed_same_schedule_other_seed_other_deals():
    kw = dict(options={"hands": 2}, deals=3)
    _, a = plan_of("spot", ["random", "heuristic", "x=random"], seed=5, **kw)
    _, b = plan_of("spot", ["random", "heuristic", "x=random"], seed=5, **kw)
    _, c = plan_of("spot", ["random", "heuristic", "x=random"], seed=6, **kw)
    assert a == b
    assert [m.seats for m in a] == [m.seats for m in c]
    assert {m.seed for m in a}.isdisjoint({m.seed for m in c})


def test_schedule_accepts_plain_names_for_the_first_cut_callers():
    g = get_game("spades", {"deals": 1})
    plan = schedule(g, ["a", "b"], deals=2, seed=1)
    assert len(plan) == 4 and plan[0].seats == ("a", "b", "a", "b") and plan[1].seats == ("b", "a", "b", "a")


# --------------------------------------------------------------------------------------
# Specs: rejected before anything runs, naming the field.


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(game="chess", bots=("random", "heuristic")), "game: unknown game 'chess'"),
        (dict(game="spades", bots=("random", "heuristic"), options={"target": "x"}), "options: .*target"),
        (dict(game="spot", bots=("random", "greedy")), r"bots: bot 'greedy' does not play spot \(it plays spades\)"),
        (dict(game="spot", bots=("random", "nosuch.py")), "bots: 'nosuch.py': file not found"),
        (dict(game="spot", bots=("random", "nosuchbot")), "bots: unknown bot 'nosuchbot'"),
        (dict(game="spot", bots=("random",)), "bots: a tournament needs at least 2 bots"),
        (dict(game="spot", bots=("random", "heuristic"), deals=0), "deals: must be"),
        (dict(game="spot", bots=("random", "heuristic"), format="swiss"), "format: expected one of"),
        (dict(game="spot", bots=("random", "heuristic"), policy="shrug"), "failure.policy"),
        (dict(game="spot", bots=("random", "heuristic"), concurrency=0), "concurrency: must be a whole number from 1 to 1024"),
        (dict(game="spot", bots=("random", "heuristic"), teams=(("random", "heuristic"),)), "teams: spot .* no partnerships"),
        (dict(game="spades", bots=("random", "heuristic", "greedy"), teams=(("random", "heuristic"),)), "teams: bots greedy are in no team"),
        (dict(game="spades", bots=("random", "heuristic"), teams=(("random", "nobody"), ("heuristic", "random"))), "teams: 'nobody' is not one of"),
        (dict(game="spot", bots=("random", "heuristic"), format="gauntlet", challenger="zed"), "challenger: 'zed' is not one of"),
        (dict(game="spot", bots=("random", "heuristic"), challenger="random"), "challenger: only a gauntlet"),
        (dict(game="spot", bots=("random", "heuristic"), seatings="some"), "seatings: expected"),
        (dict(game="spot", bots=("random", "heuristic"), decision_ms=-1), "clock.decision_ms: must be a whole number from 0 to 86400000, got -1"),
        (dict(game="spot", bots=("random", "heuristic"), isolation="none"), r"isolation: expected one of match, deal, shared \(or absent\), got 'none'"),
        (dict(game="spot", bots=("random", "heuristic"), seed=-3), "seed: must be a whole number from 0 to 9223372036854775807"),
        (dict(game="spot", bots=("random", "heuristic"), deals=True), "deals: must be a whole number from 1 to 100000, got True"),
        (dict(game="spot", bots=("random", "heuristic"), duplicate="yes"), "duplicate: expected true or false, got 'yes'"),
        (dict(game="spot", bots=("random", "heuristic"), max_strikes=-1), "failure.max_strikes: must be a whole number from 0 to 10000"),
        (dict(game="spot", bots=("random", "heuristic"), isolation="shared"),
         'isolation: "shared" .*cannot be used with duplicate deals.* use "deal"'),
    ],
)
def test_bad_specs_are_rejected_with_the_field_and_reason(kw, message):
    with pytest.raises(SpecError, match=message):
        TournamentSpec(**kw).validate()


def test_shared_processes_are_allowed_without_duplicate_deals():
    TournamentSpec(game="spot", bots=("random", "heuristic"), isolation="shared", duplicate=False).validate()


def test_toml_spec_round_trip_and_errors(tmp_path):
    good = tmp_path / "t.toml"
    good.write_text(
        'name = "club"\ngame = "spades"\nbots = ["random", {name = "h", bot = "heuristic"}]\ndeals = 3\nseed = 4\n'
        "[options]\ndeals = 1\n[clock]\ndecision_ms = 500\nbank_ms = 1000\n[failure]\npolicy = \"default\"\nmax_strikes = 1\n"
    )
    spec = spec_from_toml(good)
    assert spec.bot_names == ("random", "h") and spec.bot_sources == ("random", "heuristic")
    assert (spec.deals, spec.seed, spec.decision_ms, spec.bank_ms, spec.policy, spec.max_strikes) == (3, 4, 500, 1000, "default", 1)
    assert spec.options == {"deals": 1}
    spec.validate()
    # command-line overrides replace fields and add options
    over = spec_from_toml(good, {"seed": 9, "options": {"target": 300}})
    assert over.seed == 9 and over.options == {"deals": 1, "target": 300}
    # identity excludes what only changes speed
    assert TournamentSpec.from_json(spec.to_json()) == spec
    assert "concurrency" not in spec.identity()

    cases = {
        'game = "spades"\nbots = ["random"]\ndeels = 3\n': "unknown field 'deels'",
        'game = "spades"\nbots = ["random"]\ndeals = "3"\n': "field deals: expected int",
        'game = "spades"\nbots = ["random"]\n[clock]\ndecision = 3\n': "unknown field clock.'decision'",
        'game = "spades"\nbots = [3]\n': r"field bots\[0\]",
        'bots = ["random"]\n': "missing field 'game'",
        'game = "spades"\nbots = [\n': "not valid TOML",
    }
    for text, message in cases.items():
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(SpecError, match=message):
            spec_from_toml(bad)
    with pytest.raises(SpecError, match="cannot read"):
        spec_from_toml(tmp_path / "missing.toml")
