"""Valuing a seat's decisions: an obviously bad choice on a constructed position is a
mistake and a good one is not; the analysis is seeded; and it reads only the seat's view:
resampling the other seats' hidden cards consistently with that view changes nothing."""

from __future__ import annotations

import math
import random

import pytest

from arbiter.analysis.reask import DecisionPoint, decisions
from arbiter.analysis.values import (AGREE, BATCH, EXTEND, MIN_SAMPLES, DecisionValue, Valuer, analyse, edge_look, extends, finishes, look, t95,
                                     value_of)
from arbiter.tools.analysis_bench import blunder_decision
from arbiter.hosting.forward import sample_states
from arbiter.tournament.play import play_local
from cardarena.games import get_game

SEPARATION_SEED = 0
ALL_SPADES = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"
OTHERS = ["AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
          "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"]


def spades_bid_point():
    """Seat 0 holds all thirteen spades and bids first: it takes every trick whatever it does."""
    options = {"blind_nil": False, "deals": 1}
    game = get_game("spades", options)
    state = game.state_from_deal([ALL_SPADES] + OTHERS, dealer=3, seed=1)
    assert state.current_seat == 0
    point = DecisionPoint(0, 1, 0, state.view(0), tuple(state.legal_actions()), (), None)
    return options, point


def test_bidding_nil_with_every_spade_is_a_mistake():
    options, point = spades_bid_point()
    valuer = Valuer("spades", options, 0, samples=4, seed=3)
    nil = valuer.decision(point, "bid nil")
    assert nil.mistake, nil
    assert nil.loss > 150 and nil.loss > t95(3) * nil.loss_se  # a failed nil (-100) and 13 bags against a made 13
    assert nil.chosen_value is not None and nil.values[0].mean > nil.chosen_value.mean
    best = valuer.decision(point, nil.best)
    assert not best.mistake and best.loss == 0.0
    assert best.best == nil.best


def test_spades_nils_are_valued_as_at_the_table():
    """The analysis's Spades evaluator values a live nil as it is played at the table (method
    10, ``spades_dds.AT_TABLE``: a nil bid's fate played out single dummy, its opponents
    defending); the ``dds`` bot keeps its own way (double dummy)."""
    from bots import spades_dds
    from bots.dds import DdsBot

    options, _ = spades_bid_point()
    assert Valuer("spades", options, 0).reference.nils == spades_dds.AT_TABLE
    assert DdsBot().nils == spades_dds.DOUBLE_DUMMY


def test_the_analysis_is_seeded():
    options, point = spades_bid_point()
    a = Valuer("spades", options, 0, samples=3, seed=11).decision(point, "bid 5")
    b = Valuer("spades", options, 0, samples=3, seed=11).decision(point, "bid 5")
    assert a == b


@pytest.fixture(scope="module")
def match():
    """A real Spades deal: random at seat 0 against the heuristic."""
    return play_local("spades", ["random", "heuristic", "heuristic", "heuristic"], seed=9,
                      options={"deals": 1}, transport="inproc")


def test_a_seats_analysis_never_reads_a_hidden_card(match):
    """For decisions of seat 0, the true state is replaced by another drawn from seat 0's
    view (other hands, same view): the analysis gives the same numbers, so nothing of it
    came from the cards seat 0 could not see."""
    record = match
    game = get_game(record.game, record.options)
    analysed = {r.point.number: r for r in analyse(record, 0, samples=3, seed=5, first=2, last=8)}
    valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, samples=3, seed=5)
    checked = 0
    for point in decisions(record, 0):
        if point.number in analysed and len(point.legal) > 1:
            truth = _state_at(record, point.step)
            other = sample_states(game, point.view, 1, random.Random(point.number))[0]
            assert other.view(0) == point.view == truth.view(0)
            assert tuple(other.legal_actions()) == point.legal
            assert [other.hands[s] for s in (1, 2, 3)] != [truth.hands[s] for s in (1, 2, 3)]  # other hidden cards
            moved = DecisionPoint(0, point.number, point.step, other.view(0), tuple(other.legal_actions()), (), point.played)
            again = valuer.decision(moved, point.played)
            assert (again.values, again.loss, again.loss_se, again.mistake) == (
                analysed[point.number].values, analysed[point.number].loss,
                analysed[point.number].loss_se, analysed[point.number].mistake)
            checked += 1
    assert checked >= 3


def _state_at(record, step):
    game = get_game(record.game, record.options)
    state = game.new_initial_state(record.seed)
    for ra in record.actions[:step]:
        state.apply(game.parse_action(ra.action))
    return state


@pytest.mark.parametrize("game,options,n", [("spite-and-malice", {"max_turns": 20}, 2), ("spot", {"players": 3, "hands": 1}, 3)])
def test_every_game_is_valued(game, options, n):
    record = play_local(game, ["random"] * n, seed=4, options=options, transport="inproc")
    rows = list(analyse(record, 0, samples=2, max_actions=4, last=4))
    assert [r.point.number for r in rows] == [1, 2, 3, 4]
    for r in rows:
        if r.values:
            valued = {v.action: v for v in r.values if not v.same_as}  # at most max_actions; their twins beside them
            assert 1 <= len(valued) <= 4 and 2 <= len(r.values) <= r.legal_count and r.chosen in valued
            for v in r.values:
                if v.same_as:
                    assert (v.mean, v.se, v.n, v.gain, v.gain_se) == (valued[v.same_as].mean, valued[v.same_as].se,
                                                                     valued[v.same_as].n, valued[v.same_as].gain,
                                                                     valued[v.same_as].gain_se)
            assert r.loss >= 0 and r.loss == pytest.approx(r.values[0].mean - r.chosen_value.mean)


def test_a_planted_blunder_is_found():
    """The heuristic, but for a first bid of 13: in a real match that decision is marked a
    mistake, costing more than any of the seat's next decisions (the heuristic's own)."""
    record = play_local("spades", ["bots.blunders:SpadesBidThirteen", "heuristic", "heuristic", "heuristic"], seed=2,
                        options={"deals": 1, "blind_nil": False}, transport="inproc")
    rows = [r for r in analyse(record, 0, samples=8, seed=1, last=8) if r.values]
    bid = next(r for r in rows if r.chosen == "bid 13")
    assert bid.point.number == 1 and bid.mistake and bid.verdict == "mistake", bid
    assert max(rows, key=lambda r: r.loss) is bid
    assert bid.loss > 100


@pytest.mark.parametrize("game,options,bot,seed", [
    ("spite-and-malice", {"max_turns": 30}, "SpiteMaliceHoldPayoff", 1),
    ("spot", {"hands": 3, "players": 3}, "SpotStayIn", 2),
])
def test_a_planted_blunder_is_marked_the_same_under_two_seeds(game, options, bot, seed):
    """One match of each game's planted blunder (the bench measures ten per game): the
    blunder decision is a mistake, with the same verdict whichever sampling seed."""
    spec = f"bots.blunders:{bot}"
    n = options.get("players", 2)
    record = play_local(game, [spec] + ["heuristic"] * (n - 1), seed=seed, options=options, transport="inproc")
    at = blunder_decision(record, 0, spec)
    assert at >= 1
    verdicts = [next(analyse(record, 0, samples=32, seed=s, first=at, last=at)) for s in (1, 2)]
    assert [v.verdict for v in verdicts] == ["mistake", "mistake"], verdicts
    assert all(v.loss > v.margin for v in verdicts)


#: The budget of the separation and stability checks (looks at 16, 24, 32 and 40 states:
#: from method 13, where a Spades mistake costs a trick, the random seat's 7th, AD, 74 +- 23
#: points worse, stands at 56 states, a run under way at 40 finishing; at 32, the fewest
#: that let a verdict stand, it was unsure), and the actions compared: the chosen one, the
#: heuristic's and the first other legal one (the verdicts of every decision below are the
#: same as with 6; with 6 the fixture took 4.0 CPU-s).
CHECK_SAMPLES, CHECK_ACTIONS = 40, 3
#: The decisions analysed per seat, chosen by their cost, not their verdict (CPU-s of each
#: at 3 actions, ``time.process_time``): the random seat's from its second (its first, a
#: blind nil bid, is the costliest to value, 2.4 CPU-s), the heuristic seat's from its
#: fourth (its look, bid and first card, with the blind nil live, took 1.8-2.7 each); each
#: with a choice (a single legal card has no verdict). The deal changed in session 11: the
#: heuristics now defend against the random seat's blind nil (before, the decisions were
#: 2, 3, 5, 6, 11-13 and 5, 6, 11, 13, 14).
#: The fixture's decisions took 2.3 CPU-s at 32 states, about 0.7 more at 40 (the three
#: tests that share it: 5.9 CPU-s, 5.2 before): three mistakes of the random seat (its
#: exchange, 254 points; its 4th and 7th) against none of the heuristic's.
SEPARATION_DECISIONS = {0: (2, 3, 4, 5, 6, 7, 8, 12, 13, 14), 1: (4, 5, 6, 7, 10, 11, 12, 13, 14)}
#: The random seat's decisions in the stability check: two mistakes and an unsure (its
#: exchange, its 3rd and 4th cards: 0.8 CPU-s), the same under sampling seeds 1 and 2.
STABLE_CHECKED = (2, 3, 4)


@pytest.fixture(scope="module")
def separation():
    """A Spades deal with a random seat among heuristics, and the random seat's and the
    next seat's decisions ``SEPARATION_DECISIONS`` valued (sampling seed 1): shared by the
    separation and the stability checks."""
    record = play_local("spades", ["random", "heuristic", "heuristic", "heuristic"], seed=SEPARATION_SEED,
                        options={"deals": 1}, transport="inproc")
    rows = {}
    for seat, numbers in SEPARATION_DECISIONS.items():
        valuer = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names,
                        samples=CHECK_SAMPLES, max_actions=CHECK_ACTIONS, seed=1)
        rows[seat] = [valuer.decision(p, p.played) for p in decisions(record, seat) if p.number in numbers]
    return record, rows


def test_random_play_is_marked_more_than_the_heuristics(separation):
    """A small seeded separation check (the bench measures many matches per game): in one
    Spades deal with a random seat among heuristics, the random seat's decisions hold at
    least three times the mistakes of the heuristic seat after it."""
    _, rows = separation
    assert [[r.point.number for r in rows[seat] if r.verdict] for seat in (0, 1)] == [
        list(SEPARATION_DECISIONS[seat]) for seat in (0, 1)]  # each valued, none skipped
    counts = {seat: sum(r.verdict == "mistake" for r in rows[seat]) for seat in (0, 1)}
    assert counts[0] >= 3 * max(1, counts[1]), counts


def test_the_verdict_is_decided_and_stable_at_an_exact_difference():
    """A DDS difference that every sampled deal agrees on (a nil with every spade) is
    decided as soon as a verdict may stand (``AGREE`` looks: ``MIN_SAMPLES``, then a batch
    more each), and says the same under every seed (4 of the 14 bids compared: 0.5 CPU-s, 2.1
    with 12)."""
    options, point = spades_bid_point()
    for seed in (1, 2, 3):
        v = Valuer("spades", options, 0, samples=64, seed=seed, max_actions=4).decision(point, "bid nil")
        assert v.verdict == "mistake" and v.samples == MIN_SAMPLES + (AGREE - 1) * BATCH, v


def test_value_of_a_view_reads_only_the_view(match):
    """The expected outcome from a view: the same for two true states behind that view."""
    record = match
    game = get_game(record.game, record.options)
    point = next(p for p in decisions(record, 0) if p.number == 3)
    truth = _state_at(record, point.step)
    other = sample_states(game, point.view, 1, random.Random(1))[0]
    a = value_of(record.game, record.options, truth.view(0), samples=4, seed=3)
    b = value_of(record.game, record.options, other.view(0), samples=4, seed=3)
    assert a == b and math.isfinite(a[0])
    exact, se = value_of(record.game, record.options, truth, seat=0, seed=3)
    assert se == 0.0 and math.isfinite(exact)


def test_a_bad_budget_is_named():
    with pytest.raises(ValueError, match="samples 0"):
        Valuer("spot", {"players": 3}, 0, samples=0)
    with pytest.raises(ValueError, match="max_actions 1"):
        Valuer("spot", {"players": 3}, 0, max_actions=1)


def test_verdicts_hold_under_another_sampling_seed(separation):
    """A small seeded stability check (the bench measures the rate over every decision of
    its matches): three decisions of the random seat in the separation deal, two mistakes
    and an unsure, get the same verdicts under another sampling seed."""
    record, rows = separation
    first = [r.verdict for r in rows[0] if r.point.number in STABLE_CHECKED]
    again = [next(analyse(record, 0, samples=CHECK_SAMPLES, max_actions=CHECK_ACTIONS, seed=2, first=n, last=n)).verdict
             for n in STABLE_CHECKED]
    assert first == again and sorted(again) == ["mistake", "mistake", "unsure"], (first, again)


def test_kept_samples_replay_the_analysis():
    """``arbiter.tools.analysis_samples`` compares verdict rules on kept samples: they are
    the states the analysis draws, so the analysis's rule replayed on them gives the
    verdict and the number of states ``Valuer.decision`` gives (the docs' "direct" figures).
    Three decisions of a Spot hand at a budget of 32 (three looks, the fewest that let a
    verdict stand): two left unsure, one a mistake that stood at the third look."""
    from arbiter.tools.analysis_samples import analysis_rule, draw

    record = play_local("spot", ["random", "heuristic", "heuristic"], seed=0, options={"hands": 1, "players": 3},
                        transport="inproc")
    valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, samples=32, seed=1)
    verdicts = []
    for point in decisions(record, 0):
        if point.number not in (2, 4, 9):
            continue
        chosen = valuer.game.parse_action(point.played)
        # 32 states and those a decision near the edge at their end may take (values.EXTEND)
        cands, ref, per = draw(valuer, point.view, point.legal, chosen, f"{valuer.match_id}:0:{point.number}",
                               EXTEND * 32)
        got = valuer.decision(point, point.played)
        assert analysis_rule(32, finish=finishes("spot"), extend=extends("spot"), fine=valuer.fine)(
            per, cands.index(chosen), ref, valuer.margin) == (got.verdict, got.samples)
        assert analysis_rule(32, finish=finishes("spot"), extend=0, fine=valuer.fine)(
            per, cands.index(chosen), ref, valuer.margin)[0] == got.unextended  # method 8's verdict, read off the same states
        assert sorted(sum(xs[:got.samples]) / got.samples for xs in per) == pytest.approx(sorted(v.mean for v in got.values))
        verdicts.append(got.verdict)
    assert verdicts == ["unsure", "unsure", "mistake"], verdicts


def test_kept_samples_of_every_candidate_replay_the_same_play(monkeypatch):
    """``analysis_samples rules --same-play`` replays method 14 on samples kept before it
    (every candidate valued, twins too): of each class it keeps the first candidate's
    values, and those are the very values the analysis draws with the rule (each candidate
    is valued on its own). The heuristic's 12th at the bench's match seed 8 (4S, its twins
    6S and 5S, and AC), 16 states under sampling seed 1."""
    import arbiter.analysis.values as values
    from arbiter.tools.analysis_bench import separation_matches
    from arbiter.tools.analysis_samples import draw, same_play_rows

    record, bots, rnd = next(separation_matches("spades", 1, 8))
    point = next(p for p in decisions(record, 1) if p.number == 12)
    key = f"seed-{record.seed}:1:12"

    def row():
        valuer = Valuer(record.game, record.options, 1, f"seed-{record.seed}", record.seat_names, seed=1)
        chosen = valuer.game.parse_action(point.played)
        cands, ref, per = draw(valuer, point.view, point.legal, chosen, key, 16)
        return {"game": "spades", "match_seed": 8, "seat": 1, "number": 12, "who": bots[1], "cands": [str(c) for c in cands],
                "anchor": cands.index(chosen), "ref": ref, "values": {"1": per}}

    now = row()
    assert now["cands"] == ["play 4S", "play AC"] and now["anchor"] == 0
    with monkeypatch.context() as m:
        m.setattr(values, "SAME_PLAY", {})
        before = row()
    assert before["cands"] == ["play 4S", "play 6S", "play 5S", "play AC"]
    replayed, more = same_play_rows([before])
    assert (replayed, more) == ([now], 0)


@pytest.mark.parametrize("loosened", [{"alpha_fine": 0.01, "rare": 0.0}, {"rare": 0.0}], ids=["method 4", "method 6"])
def test_a_stricter_fine_never_unmarks_a_mistake(loosened):
    """Methods 5 and 7 made "fine" stricter (``ALPHA_FINE`` 1% -> 0.1%; a rare difference
    not yet seen bounded, ``RARE``) on the claim that no mistake is lost by it
    (docs/analysis.md, "Stability"): on the same samples, every decision a looser "fine"
    marks a mistake is still one (and method 7's runs finished past the budget only decide
    what was "unsure"). Checked on seeded synthetic decisions with heavy-tailed paired
    differences, as at Spades."""
    from functools import partial

    from arbiter.analysis.values import ALPHA_FINE, RARE, look
    from arbiter.tools.analysis_samples import analysis_rule, looks_with

    rng = random.Random(7)
    strict = analysis_rule(64, extend=0)  # method 7's whole rule: a run under way at the budget may finish too
    loose = looks_with(partial(look, **loosened), 64, AGREE)
    assert ALPHA_FINE < 0.01 and RARE > 0
    seen = {"mistake": 0, "fine to unsure": 0}
    for _ in range(300):
        k = rng.randrange(2, 5)
        shift = [rng.choice((0.0, rng.uniform(-8, 12))) for _ in range(k)]
        base = [rng.gauss(0, 3) + (rng.choice((-400, 400)) if rng.random() < 0.03 else 0)
                for _ in range(64 + (AGREE - 1) * BATCH)]
        per = [[b + s + (rng.gauss(0, 4) if rng.random() < 0.5 else 0) for b in base] for s in shift]
        before, after = loose(per, 0, 1, 5.0)[0], strict(per, 0, 1, 5.0)[0]
        if before == "mistake":
            assert after == "mistake"
            seen["mistake"] += 1
        elif before != after:
            assert (before, after) in (("fine", "unsure"), ("fine", "mistake"), ("unsure", "mistake"),
                                       ("unsure", "fine")), (before, after)  # the last: a run finished past the budget
            seen["fine to unsure"] += (before, after) == ("fine", "unsure")
    assert seen["mistake"] >= 20 and seen["fine to unsure"] >= 3, seen


def test_a_fine_bounds_a_rare_difference_not_yet_seen():
    """Method 7: two cards the same on 32 deals, where a deal worth 300 points more or less
    is in the decision's spread of values, are not yet "fine" (such a deal, on 2 in 32,
    would cost 19 points), though the t interval alone (method 6) says so; the same at 64
    deals still not; candidates whose values do not vary (nothing to be unseen) are fine
    at once; and the bound never turns a decision into a mistake."""
    from arbiter.analysis.values import RARE, look

    rng = random.Random(3)
    base = [rng.choice((-150.0, 40.0, 60.0, 150.0)) for _ in range(64)]
    same = [[b for b in base], [b + rng.choice((0.0, 0.0, 0.0, 1.0)) - 0.5 for b in base]]
    for n in (32, 64):
        per = [xs[:n] for xs in same]
        assert look(per, 0, 1, 5.0, rare=0.0) == "fine"
        assert look(per, 0, 1, 5.0) == "unsure"
        assert RARE / n * 300 > 5.0
    flat = [[7.0] * 32, [7.0] * 32, [2.0] * 32]
    assert look(flat, 0, 1, 5.0) == "fine"
    worse = [[b for b in base], [b - 40.0 for b in base]]  # always 40 worse: fine whatever is unseen
    assert look(worse, 0, 1, 5.0) == "fine"


def spades_verdicts_now_and_without(monkeypatch, match_seed, seat, number, setting):
    """``seat``'s ``number``th decision of the bench's Spades separation match ``match_seed``
    valued under sampling seeds 1 and 2 as the analysis is ("now") and with ``values``'
    per-game mapping ``setting`` emptied ("without"): {(name, seed): (verdict, states,
    loss)}; the bot at the seat; the decision's stake (``values.stake``); and, as the kept
    samples hold them (``analysis_samples.draw``, sampling seed 1, 64 states), the
    candidates' values ``per``, the chosen one's index and the reference policy's, and the
    valuer's fine margin."""
    import arbiter.analysis.values as values
    from arbiter.tools.analysis_bench import separation_matches
    from arbiter.tools.analysis_samples import draw

    record, bots, rnd = next(separation_matches("spades", 1, match_seed))
    point = next(p for p in decisions(record, seat) if p.number == number)
    got = {}
    for name in ("now", "without"):
        if name == "without":
            monkeypatch.setattr(values, setting, {})
        for seed in (1, 2):
            v = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=seed).decision(
                point, point.played)
            got[name, seed] = (v.verdict, v.samples, round(v.loss, 1))
    monkeypatch.undo()
    valuer = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=1)
    chosen = valuer.game.parse_action(point.played)
    cands, ref, per = draw(valuer, point.view, point.legal, chosen, f"seed-{record.seed}:{seat}:{number}", 64)
    return got, bots[seat], values.stake(valuer.game, point.view), per, cands.index(chosen), ref, valuer.fine


def test_a_fine_bounds_an_unseen_difference_by_what_the_deal_still_puts_at_stake(monkeypatch):
    """Method 15 (``values.stake``, ``Platform.value_stake``): the random seat's 11th at the
    bench's match seed 8 (KD, seat 0's nil alive, five tricks left) has rivals equal to it
    on every one of sampling seed 1's 64 states, and seed 2's states show the QS 400 points
    worse on one (the nil failed: 6.2 on average). The spread of values seen early in seed
    1's run was small, and "fine" stood at 32 states (method 14); bounded by what the deal
    still puts at stake (526 points: the nil made or failed, contracts made or set), a
    difference unseen on 2 in 64 states could be 16 points, and the decision is "unsure"
    under both seeds; so it is on the kept samples' replay (``analysis_samples.staked``). A
    "fine" bound by the stake never turns into a mistake: the mistake looks do not read it."""
    from arbiter.tools.analysis_samples import analysis_rule, seen_only, staked

    got, who, at, per, a, ref, fine = spades_verdicts_now_and_without(monkeypatch, 8, 0, 11, "STAKE")
    assert who == "random" and at == 526.0
    assert got == {("now", 1): ("unsure", 64, 0.0), ("now", 2): ("unsure", 64, 0.0),
                   ("without", 1): ("fine", 32, 0.0), ("without", 2): ("unsure", 64, 0.0)}, got
    # The kept samples' replay (``analysis_samples rules``) reads the stake from the same view.
    (kept,) = staked([{"game": "spades", "match_seed": 8, "seat": 0, "number": 11, "who": "random", "values": {"1": per}}])
    rule = analysis_rule(64, finish=finishes("spades"), extend=extends("spades"), fine=fine)
    assert kept["stake"] == 526.0
    assert rule(per, a, ref, 10.0, kept["stake"]) == ("unsure", 64)
    assert rule(per, a, ref, 10.0) == ("fine", 32)
    per = [[0.0] * 64, [0.0] * 64, [-400.0] + [0.0] * 63]
    assert look(per, 0, 1, 10.0, fine=1.0) == "unsure" == look(per, 0, 1, 10.0, fine=1.0, stake=526.0)
    assert look(per[:2], 0, 1, 10.0, fine=1.0) == "fine" != look(per[:2], 0, 1, 10.0, fine=1.0, stake=526.0)
    assert seen_only(per[:2], 0, 1, 10.0, fine=1.0, stake=526.0) == "fine"  # the replay's method-14 rule
    worse = [[0.0] * 64, [-50.0] * 64]  # always a contract worse: fine whatever is at stake
    assert look(worse, 0, 1, 10.0, fine=1.0, stake=526.0) == "fine"
    assert look([[0.0] * 16, [20.0] * 16], 0, 1, 10.0, fine=1.0, stake=526.0) == "mistake"


def run_looks(looks_said, budget=32, finish=True, extend=0, near="unsure"):
    """``values.Looks`` fed the given looks' verdicts in turn: (the verdict, the states
    drawn); ``extend``: method 9's edge extension (0: method 8's rule), where ``near`` is
    the budget's last look at ``values.EDGE`` width when that look is "unsure"."""
    from arbiter.analysis.values import Looks

    looks, n, said = Looks(budget, finish=finish, extend=extend), 0, iter(looks_said)
    while k := looks.wants(n):
        n += k
        if n >= looks.first:
            now = next(said)
            looks.see(now, n, now if now != "unsure" else near)
    return looks.verdict, n


def test_a_run_under_way_at_the_budget_may_finish():
    """Method 7 (``values.Looks``): a verdict that the budget's last looks began to give
    draws a batch more while each look still gives it, until it stands; a look that does
    not ends the decision unsure; without ``finish`` the budget is the end."""
    run = run_looks
    assert run(["unsure", "unsure", "mistake", "mistake", "mistake"]) == ("mistake", 48)
    assert run(["unsure", "fine", "fine", "fine"]) == ("fine", 40)
    assert run(["unsure", "unsure", "mistake", "unsure"]) == ("unsure", 40)
    assert run(["unsure", "unsure", "mistake"], finish=False) == ("unsure", 32)
    assert run(["unsure", "unsure", "unsure"]) == ("unsure", 32)
    assert run(["mistake", "mistake", "mistake"]) == ("mistake", 32)  # stood within the budget
    assert run(["fine"], budget=4) == ("fine", 4)  # a budget of one look


def test_no_run_finishes_past_the_budget_at_spot():
    """Method 8: at Spot the budget is the end (``values.FINISH``): the held-out decision
    whose run under way at 64 states finished a mistake at 72 under method 7 (match seed 5,
    its random seat 2, decision 15, sampling seed 1: a loss of 3.3 units against a margin
    of 2) stops at 64, unsure, as its other sampling seed said; method 9 does not extend
    the budget at Spot either (nor at Spades: ``values.EXTENDED``). With the extension forced on, the
    decision is near the edge at 64 (a run under way) and draws on: the run stands at 72,
    and method 8's verdict read off that run (``unextended``: the rule that stops at the
    budget sees no look past it) is still "unsure". The stopping rule is what is checked, so
    the decision is valued with the margins it was found under (2 units for both verdicts:
    until method 12; from it a Spot mistake costs an ante, ``values.MARGIN``)."""
    from arbiter.tools.analysis_bench import separation_matches

    assert not finishes("spot") and finishes("spades") and finishes("spite-and-malice")
    assert not extends("spot") and not extends("spades") and extends("spite-and-malice") == EXTEND
    record, bots, rnd = next(separation_matches("spot", 1, 5))
    assert (rnd, bots[rnd]) == (2, "random")
    row = next(analyse(record, 2, samples=64, seed=1, first=15, last=15, margin=2.0, fine=2.0))
    assert (row.samples, row.verdict, row.unextended) == (64, "unsure", "unsure"), row
    point = next(p for p in decisions(record, 2) if p.number == 15)
    forced = Valuer(record.game, record.options, 2, f"seed-{record.seed}", record.seat_names, samples=64, seed=1,
                    extend=EXTEND, margin=2.0, fine=2.0).decision(point, point.played)
    assert (forced.samples, forced.verdict, forced.unextended) == (72, "mistake", "unsure"), forced


def test_the_edge_extension_only_decides_what_method_8_left_unsure():
    """Method 9 (``values.Looks`` with ``extend``): a decision without a verdict at the
    budget's last look draws on to ``EXTEND`` times the budget when that look is near the
    edge (a verdict at ``values.EDGE`` width, or a run under way), and only then. For every
    sequence of looks (3 to the budget of 32, 4 past it; each "mistake", "fine" or
    "unsure") and either answer of the look at half width: wherever method 8's rule (the
    bench's ``unextended``) gives a verdict method 9 gives the same one at the same number
    of states; it turns only some "unsure" into a verdict; and it never draws past the bound."""
    import itertools

    decided = 0
    for said in itertools.product(("mistake", "fine", "unsure"), repeat=7):
        for near in ("unsure", "mistake", "fine"):
            before = run_looks(said, finish=True)
            after = run_looks(said, extend=EXTEND, near=near)
            assert after[1] <= EXTEND * 32, said
            if before[0] != "unsure":
                assert after == before, (said, near)
            elif after[0] != "unsure":
                decided += 1
                assert after[1] > 32 and (near != "unsure" or said[2] != "unsure"), (said, near)
            if said[2] == "unsure" and near == "unsure":
                assert after[1] <= 32, said  # not near the edge: the budget is the end
    assert decided
    assert run_looks(["unsure", "unsure", "unsure", "mistake", "mistake", "mistake"], extend=EXTEND, near="mistake") \
        == ("mistake", 56)
    assert run_looks(["unsure"] * 7, extend=EXTEND, near="fine") == ("unsure", 64)  # the bound


def test_spite_and_malice_splits_its_error_rates_over_fixed_looks():
    """Method 16 (``values.SPLIT``, ``Looks``'s ``split``): at Spite and Malice the looks are
    at 32, 64, 96 and 128 states, each at the error rates divided by four (Bonferroni over
    the looks), "fine" tests each candidate at that rate (``look``'s ``each``), and the
    first look that gives a verdict decides. The heuristic's 25th at the bench's match seed
    2 (10 classes of the same play): under method 15's looks (a run of three after each
    batch, the edge extension) "unsure" at 64 states under sampling seed 1 and "fine" at 32
    under seed 2; under method 16 "fine" under both, at 128 and 32 states. The analysis and
    the kept samples' replay (``analysis_rule`` with the game's ``splits``) take the one rule
    (``Looks``) and give the same verdict on the same states; Spades and Spot keep theirs."""
    from arbiter.analysis.values import SPLIT, Looks, split_looks, splits
    from arbiter.tools.analysis_bench import separation_matches
    from arbiter.tools.analysis_samples import analysis_rule, draw

    assert splits("spite-and-malice") and not splits("spades") and not splits("spot") and SPLIT
    assert split_looks(64) == (32, 64, 96, 128) and split_looks(64, 0) == (32, 64) and split_looks(16) == (16, 24, 32)
    rule = Looks(64, split=True)
    assert [rule.wants(n) for n in (0, 24, 32)] == [8, 8, 8] and [rule.takes(n) for n in (16, 32, 40, 64)] == [
        False, True, False, True]
    record, bots, rnd = next(separation_matches("spite-and-malice", 1, 2))
    point = next(p for p in decisions(record, 1) if p.number == 25)
    assert bots[1] == "heuristic"
    got = {}
    for seed in (1, 2):
        valuer = Valuer(record.game, record.options, 1, f"seed-{record.seed}", record.seat_names, seed=seed)
        row = valuer.decision(point, point.played)
        got[seed] = row.verdict, row.samples
        if seed == 1:
            chosen = valuer.game.parse_action(point.played)
            cands, ref, per = draw(valuer, point.view, point.legal, chosen, f"{valuer.match_id}:1:25", row.samples)
            a = cands.index(chosen)
            assert len(cands) == 10
            assert analysis_rule(64, extend=extends("spite-and-malice"), split=True)(per, a, ref, valuer.margin) == got[1]
            assert analysis_rule(64, extend=extends("spite-and-malice"))(per, a, ref, valuer.margin) == ("unsure", 64)
    assert got == {1: ("fine", 128), 2: ("fine", 32)}, got


def test_fine_testing_each_candidate_only_turns_unsure_looks_into_fine():
    """``look``'s ``each`` (method 16's "fine" at each candidate's own rate; measured at
    Spades and Spot in session 13, docs/analysis.md "Method 16 at Spades and Spot") never
    changes a look's "mistake" (tested first, at the split rate) and keeps every "fine" of
    the split rate (each candidate's quantile is at most the split one): it can only turn
    an "unsure" look into "fine". So under one look it cannot mark or unmark a mistake.
    Seeded decisions of 2-8 candidates (the reference policy's among them or not), heavy-
    tailed like Spades' differences or not, at 16-64 states, margins of Spot and Spades;
    some looks move (a test that no look moves would pass with ``each`` ignored)."""
    rng = random.Random(14)
    moved = 0
    for _ in range(3000):
        k, n = rng.randint(2, 8), rng.choice((16, 32, 64))
        a = rng.randrange(k)
        ref = rng.choice([None, *range(k)])
        margin, fine = rng.choice(((5.0, 0.0), (10.0, 1.0), (0.5, 0.5)))
        base = [rng.gauss(0, 20) for _ in range(n)]
        per = []
        for i in range(k):
            loss, sd = (0.0, 0.0) if i == a else (rng.uniform(-3 * margin, 2 * margin), rng.choice((0.1, 0.5, 1.0, 3.0)))
            rare = rng.random() < 0.3
            per.append([b + loss + rng.gauss(0, sd * margin) + (-200.0 if rare and rng.random() < 0.03 else 0.0)
                        for b in base])
        split = look(per, a, ref, margin, fine=fine)
        each = look(per, a, ref, margin, fine=fine, each=True)
        assert (split == "mistake") == (each == "mistake"), (split, each)
        assert split != "fine" or each == "fine", (split, each)
        moved += split != each
    assert moved, "no look moved: the draws never reach where each candidate's rate differs"


def test_a_rules_error_rates_at_the_margin_are_measured_on_kept_noise():
    """``analysis_samples rules --at-margin`` (method 16's check of what a rule's verdicts
    state): a kept decision's top rival is shifted to a loss of exactly the margin and
    resampled, so a rule that reads the mean alone says "mistake" about half the time, and
    the analysis's rule at Spite and Malice (looks split) within its stated 5% ("fine",
    which a loss of the margin must not get, once in 200 runs here: one resample's mean
    4.8 standard errors below the truth); a rival equal to the chosen action plus a
    constant on every state has no noise and is left out."""
    from arbiter.tools.analysis_samples import analysis_rule, at_margin

    rng = random.Random(3)
    noisy = [rng.gauss(0.2, 1.0) for _ in range(256)]
    row = {"game": "spite-and-malice", "cands": ["a", "b"], "anchor": 0, "ref": None,
           "values": {"1": [[0.0] * 128, noisy[:128]], "2": [[0.0] * 128, noisy[128:]]}}
    flat = {**row, "values": {"1": [[0.0] * 128, [1.0] * 128], "2": [[0.0] * 128, [1.0] * 128]}}
    assert at_margin([flat], analysis_rule(64, split=True))["runs"] == 0

    def by_mean(per, a, ref, margin, stake=0.0):
        return ("mistake" if sum(per[1]) / len(per[1]) - sum(per[a]) / len(per[a]) > margin else "fine"), len(per[a])

    half = at_margin([row, flat], by_mean, reps=200)
    assert half["runs"] == 200 and 0.4 < half["mistake"] / 200 < 0.6, half
    split = at_margin([row], analysis_rule(64, extend=extends("spite-and-malice"), split=True), reps=200)
    assert split["mistake"] / 200 <= 0.05 and split["fine"] / 200 <= 0.01, split


def test_spite_and_malice_order_cost_counts_blocked_side_cards():
    """The shaped Spite and Malice value measured for the analysis (docs/analysis.md, the
    setting ``order_cost`` of the search bot's horizon, 0 by default): the cards of the
    seat's side stacks under a card out of order (not one below, equal, or wild) are
    ``blocked``, and the value at the horizon loses ``order_cost`` for each."""
    from bots import spite_malice_search as S
    from tests.games.test_spite_malice import layout

    st = layout(side=[[["9H", "8D", "8C", "7S"], ["5H", "9D", "8C"], ["3C", "KH", "9D"], ["2C", "7D", "JH", "JS"]],
                      [["5H", "QD"], [], [], []]])
    view = st.view(0)
    assert S.blocked(view, 0) == 0 + 1 + 0 + 2  # a run played off in a row; 5H; a wild bridges; 2C 7D
    assert S.blocked(view, 1) == 1
    plain = S.Horizon(0, view, bonus=0.0)
    shaped = S.Horizon(0, view, bonus=0.0, order_cost=0.25)
    for h in (plain, shaped):
        assert h.check(st.view(1), 1) is None  # the other seat's turn: on
    assert plain.check(view, 0) - shaped.check(view, 0) == pytest.approx(0.75)


def test_spite_and_malice_random_play_is_marked_more_than_the_heuristics():
    """A small seeded Spite and Malice separation check (the bench measures more matches):
    in the bench's separation match of seed 1 the random seat's pay-off card is an ace,
    playable from its first decision, and it discards instead; each of its first four
    decisions is a mistake, each of the heuristic seat's first four is fine (32 states, 4
    actions a decision: 1.1 CPU-s). The match of seed 0 would not do: there the random
    seat's pay-off card never becomes playable and every decision of both is fine
    (docs/analysis.md, "Spite and Malice: separation over more matches")."""
    record = play_local("spite-and-malice", ["heuristic", "random"], seed=1, options={"max_turns": 30},
                        transport="inproc")
    verdicts = {}
    for seat in (0, 1):
        valuer = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, samples=32,
                        max_actions=4, seed=1)
        verdicts[seat] = [valuer.decision(p, p.played).verdict for p in decisions(record, seat)
                          if len(p.legal) > 1 and p.number <= 4]
    assert verdicts == {0: ["fine"] * 4, 1: ["mistake"] * 4}, verdicts


def test_a_spite_and_malice_game_drawn_at_its_turn_limit_is_worth_its_result():
    """Method 6: a rollout that finishes the game is worth the game's result alone. A game
    stopped at its turn limit is a draw whatever the pay-off counts (the rules' guard, with
    the default ``stalemate_rule``), so a choice in the last turns costs nothing: counting
    the pay-off cards there marked the heuristic's last four decisions of the bench's
    held-out match of seed 3 mistakes (docs/analysis.md). Here a 6-turn match: the random
    seat, in the last turn, discards with its pay-off card playable."""
    from bots import spite_malice_search as S

    options = {"max_turns": 6}
    record = play_local("spite-and-malice", ["heuristic", "random"], seed=1, options=options, transport="inproc")
    end = _state_at(record, len(record.actions))
    assert end.is_terminal and end.outcome().ranks == (1, 1)  # drawn at the limit
    point = next(p for p in decisions(record, 1) if p.number == 3)
    assert point.view.turn_number == 5 and any("payoff" in str(a) for a in point.legal), point.view
    valuer = Valuer("spite-and-malice", options, 1, f"seed-{record.seed}", record.seat_names, samples=16,
                    max_actions=4, seed=1)
    got = valuer.decision(point, point.played)
    assert got.verdict == "fine" and all(v.mean == 0.0 for v in got.values), got
    valuer.reference.result_only = False  # method 5: the pay-off cards ahead at the end, too
    old = valuer.decision(point, point.played)
    assert old.verdict == "mistake" and old.loss > 1.0, old
    mover = S.terminal_value(end, 1) - S.terminal_value(end, 1, result_only=True)
    counts = [p.payoff_count for p in end.view(1).players]
    assert mover == counts[0] - counts[1]


def test_the_noise_of_a_loss_taken_apart():
    """``analysis_samples noise`` splits the variance of a decision's paired loss into the
    rollout's own randomness within a state and the rest between states (docs/analysis.md,
    "Spot: where the noise comes from"). At Spot the reference rollout is deterministic on
    a state (the heuristic plays, the hand ends when the stock does): all of it is between
    states. With a random rollout policy on the same states the rollout's own randomness
    shows within them."""
    from arbiter.tools.analysis_samples import noise

    record = play_local("spot", ["random", "heuristic", "heuristic"], seed=0, options={"hands": 1, "players": 3},
                        transport="inproc")
    point = next(p for p in decisions(record, 0) if len(p.legal) > 2 and p.played is not None)
    valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, seed=1)
    chosen = valuer.game.parse_action(point.played)
    r = noise(valuer, point.view, point.legal, chosen, "noise", 8)
    assert r["candidates"] > 2 and r["within"] == 0.0 and r["between"] == r["total"] > 0.0 and -1.0 <= r["corr"] <= 1.0, r
    valuer.reference.policy = lambda view, legal, rng: rng.choice(list(legal))  # the rollout now draws on its seed
    r = noise(valuer, point.view, point.legal, chosen, "noise", 8)
    assert r["within"] > 0.0 and r["total"] > 0.0, r


def test_the_edge_look_reads_an_unsure_decision_at_half_width_at_its_budget_only():
    """``edge_look`` (method 9's "near the edge"): a decision unsure at its budget's last look,
    whose loss interval at half width (``values.EDGE``) clears the margin, is near the edge; at
    any other look, with no extension, or once decided, the look stands as it is."""
    import random

    rng = random.Random(0)
    per = [[0.0] * 64, [3.5 + rng.gauss(0, 10) for _ in range(64)]]  # the other candidate gains ~3.5 ± 1.25
    now = look(per, 0, None, 2.0)
    assert now == "unsure"
    assert edge_look(now, per, 0, None, 2.0, 64, 64, EXTEND) == "mistake"
    assert edge_look(now, per, 0, None, 2.0, 56, 64, EXTEND) == "unsure"  # not the budget's last look
    assert edge_look(now, per, 0, None, 2.0, 64, 64, 0) == "unsure"  # the game does not extend
    assert edge_look("fine", per, 0, None, 2.0, 64, 64, EXTEND) == "fine"  # decided: as it is


def test_a_spot_verdict_is_given_only_where_the_analysis_resolves_it():
    """Method 12 (``values.MARGIN``, ``values.FINE``): at Spot a mistake costs at least one
    ante (5 units) and "fine" says that no other action was better at all; the losses
    between are "unsure" (docs/analysis.md, "What mistake, fine and unsure mean"). Two
    decisions of a separation match (match seed 2), sampling seed 1, 64 states, each a draw
    (stock or discard): the random seat's 10th (a loss of 10 ± 3.4 units: its 95% bound
    clears 2 units, not an ante) and the heuristic seat's 17th (the other draw worse, its
    99.9% bound below 2 units, not below 0) were a "mistake" and a "fine" under one margin of
    2 units for both (methods 5-10), and are "unsure" now."""
    from arbiter.analysis.values import FINE, MARGIN, fine_margin, quantile
    from arbiter.tools.analysis_bench import separation_matches

    assert (MARGIN["spot"], FINE["spot"], fine_margin("spot")) == (5.0, 0.0, 0.0)
    assert fine_margin("spite-and-malice") == MARGIN["spite-and-malice"]  # Spades: method 13, below
    record, bots, rnd = next(separation_matches("spot", 1, 2))
    assert (rnd, bots[rnd], bots[0]) == (2, "random", "heuristic")
    got = {}
    for seat, number in ((2, 10), (0, 17)):
        point = next(p for p in decisions(record, seat) if p.number == number)
        for name, settings in (("now", {}), ("one margin of 2", {"margin": 2.0, "fine": 2.0})):
            v = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=1,
                       **settings).decision(point, point.played)
            got[seat, name] = (v.verdict, v.samples)
            assert v.margin == settings.get("margin", 5.0)
        if seat == 2:
            assert 2.0 < v.loss - quantile(64, 1) * v.loss_se < 5.0, v  # resolved above 2 units, not above an ante
    assert got == {(2, "now"): ("unsure", 64), (2, "one margin of 2"): ("mistake", 64),
                   (0, "now"): ("unsure", 64), (0, "one margin of 2"): ("fine", 64)}, got


def test_a_spades_verdict_is_given_only_where_a_player_would_give_it():
    """Method 13 (``values.MARGIN``, ``values.FINE``): at Spades a mistake costs at least a
    trick of a contract (10 points) and "fine" says that nothing was better by as much as a
    point (a bag); the losses between, and those the interval does not place, are "unsure"
    (docs/analysis.md, "Spades: method 13"). Two late decisions of the bench's separation
    matches, sampling seed 1: the heuristic seat's 9th at match seed 7 (4D, where 3S was
    20.2 +- 4.2 points better: its 95% bound clears 5 points, not a trick) is a "mistake"
    under one margin of 5 points (method 11; at 56 states from method 17, whose "mistake"
    bounds a rare unseen difference too: 48 before) and "unsure" now; the heuristic seat's 14th at
    match seed 1 (9D, the JH equal on every state drawn: not the same play by the rules,
    another suit) is "fine" now, and could not be with a fine margin of 0 (Spot's, method
    12: the chosen card's loss 0 is not below 0). (Method 13's own examples moved with
    method 14: the 4S of match seed 8, its twins 5S and 6S no longer compared, is a mistake
    at a trick's margin too; the 7D of match seed 0: ``test_a_decision_whose_only_rival_is_the_same_play_is_fine``.)"""
    from arbiter.analysis.values import FINE, MARGIN, fine_margin
    from arbiter.tools.analysis_bench import separation_matches

    assert (MARGIN["spades"], FINE["spades"], fine_margin("spades")) == (10.0, 1.0, 1.0)
    got = {}
    for match_seed, seat, number, other in ((7, 0, 9, {"margin": 5.0, "fine": 5.0}), (1, 2, 14, {"fine": 0.0})):
        record, bots, rnd = next(separation_matches("spades", 1, match_seed))
        assert bots[seat] == "heuristic" and rnd != seat
        point = next(p for p in decisions(record, seat) if p.number == number)
        for name, settings in (("now", {}), ("other", other)):
            v = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=1,
                       **settings).decision(point, point.played)
            got[match_seed, number, name] = (v.verdict, v.samples, round(v.loss, 1))
    assert got == {(7, 9, "now"): ("unsure", 64, 20.2), (7, 9, "other"): ("mistake", 56, 22.9),
                   (1, 14, "now"): ("fine", 32, 0.0), (1, 14, "other"): ("unsure", 64, 0.0)}, got


def test_a_decision_whose_only_rival_is_the_same_play_is_fine(monkeypatch):
    """Method 14 (``values.same_plays``): the random seat's 12th at the bench's match seed 0
    (7D, its other diamonds QD, JD and 9D touching it: every diamond between them played)
    has no rival but its own twins. The analysis values the 7D alone and lists the three
    as the same play (gain exactly 0), and the decision is "fine" under either sampling
    seed, whatever the spread of values (105 points on the 32 states of sampling seed 1: a
    difference that wide unseen on 2 in 32 states is over 5 points, not below a point,
    method 7's bound), and whatever the fine margin (0 too: nothing is compared). Without the rule
    (method 13) the twins were compared like other cards, and the decision "unsure"."""
    import arbiter.analysis.values as values
    from arbiter.tools.analysis_bench import separation_matches
    from arbiter.tools.analysis_samples import draw

    record, bots, rnd = next(separation_matches("spades", 1, 0))
    assert bots[0] == "random"
    point = next(p for p in decisions(record, 0) if p.number == 12)
    got = []
    for seed, fine in ((1, None), (2, None), (1, 0.0)):
        valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, seed=seed, fine=fine)
        v = valuer.decision(point, point.played)
        got.append((v.verdict, v.samples))
        assert [(x.action, x.gain, x.gain_se, x.same_as) for x in v.values] == [
            ("play 7D", 0.0, 0.0, ""), ("play QD", 0.0, 0.0, "play 7D"), ("play JD", 0.0, 0.0, "play 7D"),
            ("play 9D", 0.0, 0.0, "play 7D")]
        cands, ref, per = draw(valuer, point.view, point.legal, valuer.game.parse_action(point.played),
                               f"{valuer.match_id}:0:12", v.samples)
        assert [str(c) for c in cands] == ["play 7D"] and ref == 0
        assert values.RARE / v.samples * (max(per[0]) - min(per[0])) > 5.0  # method 7's bound: over 5 points, not under 1
    assert got == [("fine", 32)] * 3
    monkeypatch.setattr(values, "SAME_PLAY", {})
    valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, seed=1)
    v = valuer.decision(point, point.played)
    assert (v.verdict, v.samples, len(v.values), {x.same_as for x in v.values}) == ("unsure", 64, 4, {""})


def test_each_games_verdicts_are_stated_in_its_units():
    """``values.meaning``: the one wording of MARGIN and FINE that the CLI's header and the
    inspector's legend show, in each game's unit (its ``Platform.value_unit``)."""
    from arbiter.analysis.values import meaning

    assert meaning("spades") == ("mistake: it cost more than 10 points (95% confidence); fine: nothing better by 1 point or "
                                 "more (99.9%); unsure: a loss between, or the samples could not tell")
    assert meaning("spot").startswith("mistake: it cost more than 5 units (95% confidence); fine: nothing better at all")
    assert meaning("spite-and-malice") == ("mistake: it cost more than 0.5 pay-off cards (95% confidence); fine: nothing "
                                           "better by 0.5 pay-off cards or more (99.9%); unsure: the samples could not tell")


def test_fine_on_positive_parts_ignores_only_a_rare_state_where_the_rival_is_worse():
    """``analysis_samples.gains_only`` (a look measured at Spades and not kept, docs/analysis.md
    "Spades: the edge extension and larger budgets"): a rival equal to the chosen card on
    63 states and a contract worse on one has a symmetric interval wide enough that
    ``values.look`` says "unsure"; bounded on the states where it gains, it is "fine". A
    rival a contract *better* on one state stays "unsure" under both."""
    from arbiter.tools.analysis_samples import gains_only

    chosen = [0.0] * 64
    worse = [0.0] * 63 + [-400.0]
    better = [0.0] * 63 + [400.0]
    assert look([chosen, worse], 0, None, 10.0, fine=1.0) == "unsure"
    assert gains_only([chosen, worse], 0, None, 10.0, fine=1.0) == "fine"
    assert look([chosen, better], 0, None, 10.0, fine=1.0) == gains_only([chosen, better], 0, None, 10.0, fine=1.0) == "unsure"


def test_a_spades_mistake_bounds_a_rare_difference_not_yet_seen(monkeypatch):
    """Method 17 (``values.RARE_MISTAKE``, ``look``'s ``rare_mistake``): at Spades "mistake"
    bounds a difference not yet seen as "fine" does: some gain's lower bound less ``1 / n``
    times the deal's stake must still clear 10 points. The heuristic seat 1's 12th at the
    bench's match seed 8 (4S; the AC its one rival, 525 points at stake): sampling seed 1's
    64 states show the AC 398 points better on 8 (a loss of 49.6, its 95% lower bound 17),
    seed 2's on 4 (24.5); method 16 said "mistake" under seed 1 and "unsure" under seed 2;
    method 17 (the bound less 525 / 64 = 8.2) "unsure" under both, and the kept samples'
    replay (``analysis_rule`` with the game's ``mistake_rare``) the same on the same states.
    Where the truth sits at the margin on heavy-tailed differences (a loss of about 20 on
    most states, 400 the other way on 8 in 256: a run of 64 misses those one time in eight;
    ``at_margin``), method 16 says "mistake" in 38% of runs, far above the 5% it states;
    method 17 in 4%."""
    import arbiter.analysis.values as values
    from arbiter.tools.analysis_samples import analysis_rule, at_margin

    assert values.mistake_rare("spades") == 1.0 and values.mistake_rare("spot") == 0.0 == values.mistake_rare(
        "spite-and-malice")
    got, who, at, per, a, ref, fine = spades_verdicts_now_and_without(monkeypatch, 8, 1, 12, "RARE_MISTAKE")
    assert who == "heuristic" and at == 525.0
    assert got == {("now", 1): ("unsure", 64, 49.6), ("now", 2): ("unsure", 64, 24.5),  # "without": method 16
                   ("without", 1): ("mistake", 64, 49.6), ("without", 2): ("unsure", 64, 24.5)}, got
    for r, want in ((values.mistake_rare("spades"), "unsure"), (0.0, "mistake")):
        rule = analysis_rule(64, finish=finishes("spades"), extend=extends("spades"), fine=fine, rare_mistake=r)
        assert rule(per, a, ref, 10.0, 525.0) == (want, 64)
    rng = random.Random(17)
    heavy = [-400.0 if rng.random() < 1 / 40 else rng.gauss(20.0, 10.0) for _ in range(256)]
    row = {"game": "spades", "cands": ["a", "b"], "anchor": 0, "ref": None, "stake": 1000.0,
           "values": {"1": [[0.0] * 128, heavy[:128]], "2": [[0.0] * 128, heavy[128:]]}}
    rates = {r: at_margin([row], analysis_rule(64, finish=finishes("spades"), extend=extends("spades"), fine=1.0,
                                               rare_mistake=r), reps=200) for r in (0.0, values.mistake_rare("spades"))}
    assert rates[0.0]["mistake"] / 200 > 0.1 and rates[1.0]["mistake"] / 200 <= 0.05, rates


@pytest.mark.parametrize("game", ["spades", "spot", "spite-and-malice"])
@pytest.mark.parametrize("samples", [16, 32, 64])
def test_the_most_states_said_is_the_most_a_decision_draws(game, samples):
    """``most_states`` (what `arbiter analyse`'s header says a decision is valued on) is the
    most either rule the Valuer runs (``stopping``) draws, driven to its longest: every look "unsure"
    (an extension's or a split rule's last look), or "unsure" until the budget and then a
    verdict (a run under way finishing past it), or near the edge at the budget."""
    from arbiter.analysis.values import Looks, most_states, stopping

    def drawn(rule: Looks, verdict) -> int:
        n = 0
        while k := rule.wants(n):
            n += k
            if rule.takes(n):
                now = verdict(n, rule)
                rule.see(now, n, "mistake" if n == rule.budget else now)  # near the edge at the budget
        return n

    longest = 0
    for verdict in (lambda n, r: "unsure", lambda n, r: "mistake" if n >= r.budget else "unsure"):
        for rule in stopping(game, samples):  # fresh rules for each drive
            longest = max(longest, drawn(rule, verdict))
    assert longest == most_states(game, samples)
    assert most_states(game, samples) >= samples
