"""Spades scoring (cardarena/games/spades_scoring.py): rules §4.3 worked examples and §9 cases 13-20."""

from __future__ import annotations

from cardarena.games.spades_scoring import FailedNilTricks, ScoringRules, SimultaneousTargetRule, game_result, score_side

N = False  # not blind
B = True  # blind


def side(bids, tricks, score=0, bags=0, blind=(N, N), **rules):
    return score_side(bids, blind, tricks, score, bags, ScoringRules(**rules))


# ---- §4.3 worked examples -------------------------------------------------------------


def test_example1_seed_bidding_side_a_makes_with_one_bag():
    r = side([3, 4], [5, 3])  # Ali 3 takes 5, Hossein 4 takes 3
    assert (r.contract, r.contract_tricks, r.points, r.bags_added, r.score, r.bags) == (7, 8, 71, 1, 71, 1)
    assert r.made is True


def test_example1_side_b_exact_and_set():
    assert side([1, 4], [2, 3]).points == 50
    r = side([1, 4], [1, 3])
    assert (r.points, r.bags_added, r.made) == (-50, 0, False)


def test_example2_bag_penalty_from_337():
    r7 = side([2, 3], [4, 3], 337, 7)
    assert (r7.score, r7.bags, r7.penalties) == (389, 9, 0)
    r8 = side([2, 3], [4, 4], 337, 7)
    assert (r8.score, r8.bags, r8.penalties) == (290, 0, 1)
    r9 = side([2, 3], [5, 4], 337, 7)
    assert (r9.score, r9.bags, r9.penalties) == (291, 1, 1)


def test_example3_nil_made():
    r = side([0, 4], [0, 5])
    assert (r.points, r.bags_added) == (141, 1)


def test_example4_nil_failed_partner_set():
    r = side([0, 2], [1, 1])  # nil took 1 (does not count for partner), partner 2 took 1
    assert (r.points, r.bags_added, r.contract_tricks) == (-119, 1, 1)


def test_example5_blind_nil_made():
    r = side([3, 0], [3, 0], blind=(N, B))
    assert (r.points, r.bags_added) == (230, 0)


def test_example6_blind_nil_failed_and_contract_set():
    r = side([5, 0], [4, 2], blind=(N, B))
    assert (r.points, r.bags_added) == (-248, 2)


def test_example7_both_reach_target_higher_total_wins():
    assert game_result((480, 495), (510, 505), 500) == 0
    # The readings differ: A 480 -> 510 (+30), B 430 -> 505 (+75).
    assert game_result((480, 430), (510, 505), 500, SimultaneousTargetRule.HIGHER_TOTAL) == 0
    assert game_result((480, 430), (510, 505), 500, SimultaneousTargetRule.HIGHER_DEAL_SCORE) == 1


# ---- §9 conformance cases 13-20 --------------------------------------------------------


def test_case13_bids_3_4_take_8():
    r = side([3, 4], [4, 4])
    assert (r.points, r.bags_added) == (71, 1)


def test_case14_bid_5_take_4():
    r = side([2, 3], [2, 2])
    assert (r.points, r.bags_added) == (-50, 0)


def test_case15_nil_made_partner_4_takes_5():
    assert (side([0, 4], [0, 5]).points, side([0, 4], [0, 5]).bags_added) == (141, 1)


def test_case16_nil_took_1_partner_2_took_1():
    assert (side([2, 0], [1, 1]).points, side([2, 0], [1, 1]).bags_added) == (-119, 1)


def test_case17_337_7_bags_contract_5_takes_8():
    r = side([1, 4], [3, 5], 337, 7)
    assert (r.score, r.bags) == (290, 0)


def test_case18_337_7_bags_contract_5_takes_7():
    r = side([1, 4], [3, 4], 337, 7)
    assert (r.score, r.bags) == (389, 9)


def test_case19_both_over_target_higher_total():
    assert game_result((480, 495), (510, 505), 500) == 0


def test_case20_equal_totals_over_target_play_on():
    assert game_result((480, 490), (510, 510), 500) is None
    assert game_result((480, 490), (510, 510), 500, SimultaneousTargetRule.HIGHER_DEAL_SCORE) == 0


# ---- the scoring options ----------------------------------------------------------------


def test_both_partners_nil_no_contract():
    r = side([0, 0], [0, 2])
    assert (r.contract, r.points, r.bags_added, r.made) == (0, 100 - 100 + 2, 2, None)


def test_failed_nil_tricks_options():
    # Nil took 2, partner bid 4 took 3: only count_for_partner makes the contract.
    bags = side([0, 4], [2, 3])
    assert (bags.points, bags.bags_added) == (-100 - 40 + 2, 2)
    ignored = side([0, 4], [2, 3], failed_nil_tricks=FailedNilTricks.IGNORED)
    assert (ignored.points, ignored.bags_added) == (-140, 0)
    partner = side([0, 4], [2, 3], failed_nil_tricks=FailedNilTricks.COUNT_FOR_PARTNER)
    assert (partner.points, partner.bags_added, partner.contract_tricks) == (-100 + 40 + 1, 1, 5)
    # No contract on the side: count_for_partner scores them as bags.
    both = side([0, 0], [1, 0], failed_nil_tricks=FailedNilTricks.COUNT_FOR_PARTNER)
    assert (both.points, both.bags_added) == (1, 1)


def test_nil_values_options():
    assert side([0, 3], [0, 3], nil_value=50).points == 80
    assert side([0, 3], [1, 2], nil_value=50).points == -50 - 30 + 1
    assert side([0, 3], [0, 3], blind=(B, N), blind_nil_value=300).points == 330
    assert side([0, 3], [0, 3], blind=(B, N), nil_value=1).points == 230  # blind uses its own value


def test_bag_penalty_options():
    r = side([1, 1], [6, 6])  # 10 bags
    assert (r.score, r.bags, r.penalties) == (20 + 10 - 100, 0, 1)
    off = side([1, 1], [6, 6], bag_penalty=False)
    assert (off.score, off.bags) == (30, 10)
    lim = side([1, 1], [6, 6], bag_limit=5)
    assert (lim.score, lim.bags, lim.penalties) == (30 - 200, 0, 2)
    pts = side([1, 1], [6, 6], bag_penalty_points=50)
    assert pts.score == -20


def test_negative_score_and_bags_carry_over():
    r = side([4, 4], [2, 2], score=-30, bags=9)
    assert (r.score, r.bags) == (-110, 9)
    r = side([4, 4], [5, 5], score=-30, bags=9)  # 2 bags: 11 -> penalty, 1 left
    assert (r.score, r.bags) == (-30 + 82 - 100, 1)


def test_lose_at():
    assert game_result((0, 0), (100, -200), 500, lose_at=-200) == 0
    assert game_result((0, 0), (-250, -210), 500, lose_at=-200) == 1  # both below: higher wins
    assert game_result((0, 0), (-210, -210), 500, lose_at=-200) is None
    assert game_result((0, 0), (100, -200), 500) is None
    assert game_result((0, 0), (510, -300), 500, lose_at=-200) == 0  # the winning check first


def test_exactly_target_counts():
    assert game_result((0, 0), (500, 499), 500) == 0
    assert game_result((0, 0), (499, 499), 500) is None
