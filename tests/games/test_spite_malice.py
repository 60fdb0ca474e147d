"""Spite and Malice: the standard game (rules §1-§7), conformance cases 1-16 of §10,
the worked examples of §4.4 and §5, notation and option validation.

Variants (cases 17-25 and every §8 option) are in test_spite_malice_variants.py; seeded
property and leak tests in test_spite_malice_properties.py; the generic conformance
suite, run for every game, in test_conformance.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.games import ConfigError, EndReason, IllegalActionError, InvalidActionError, get_game
from cardarena.games.cards import STANDARD_DECK, Card, Suit, parse_cards
from cardarena.games.spite_malice import End, Load, Phase, Play, Recycle, Source, SourceKind, SpiteAndMalice, SpiteAndMaliceState, StalemateRule, TargetKind, game_points, game_result, series_over

# ---------------------------------------------------------------------------------------
# Helpers shared with the other Spite and Malice test files.


def pile(value: int, suit: Suit = Suit.S) -> list[Card]:
    """A centre pile of the given value built from naturals A..value."""
    return [Card.of(r, suit) for r in range(1, value + 1)]


def filler(n: int, token: str = "3D") -> list[Card]:
    return [Card.parse(token)] * n


def legal(state) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def do(state, text: str):
    return state.apply(state.game.parse_action(text))


def is_legal(state, text: str) -> bool:
    return state.game.parse_action(text) in state.legal_actions()


def layout(g: SpiteAndMalice | None = None, **kw) -> SpiteAndMaliceState:
    """A two-seat layout with harmless defaults: seat 1 holds 5 cards and a pay-off pile."""
    g = g or SpiteAndMalice()
    n = g.num_seats
    kw.setdefault("payoffs", ["3D 3D 9C"] + ["4D 4D 10C"] * (n - 1))
    kw.setdefault("hands", ["8S 8S 8H 8H 8C"] * n)
    kw.setdefault("stock", "5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    return g.state_from_layout(**kw)


# ---------------------------------------------------------------------------------------
# Conformance cases 1-16 (§10), standard options.


def test_case01_new_pile_needs_an_ace():
    st = layout(hands=["AH 2H 8S 8S 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5)])
    with pytest.raises(IllegalActionError, match="ace"):
        do(st, "play hand:2H -> center:new")


def test_case02_ace_starts_a_new_pile():
    st = layout(hands=["AH 2H 8S 8S 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5)])
    do(st, "play hand:AH -> center:new")
    assert len(st.center) == 3 and st.center[2] == [Card.parse("AH")]
    assert st.current_seat == 0  # a centre play never ends the turn


def test_case03_centre_limit_blocks_new_pile():
    st = layout(hands=["AS 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5), pile(7)])
    assert not is_legal(st, "play hand:AS -> center:new")
    with pytest.raises(IllegalActionError, match="limit of 3"):
        do(st, "play hand:AS -> center:new")
    # §7.6: the ace may still be discarded.
    assert is_legal(st, "play hand:AS -> side:0")


def test_case04_king_starts_a_pile_as_ace():
    st = layout(hands=["KS 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5)])
    do(st, "play hand:KS -> center:new")
    assert st.view(0).center[2].value == 1
    assert is_legal(st, "play hand:8S -> center:0") is False
    st2 = layout(hands=["KS 2C 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5)])
    do(st2, "play hand:KS -> center:new")
    assert is_legal(st2, "play hand:2C -> center:2")  # the K represented A


def test_case05_wild_excluded_ace():
    g = SpiteAndMalice({"wild_excluded_ranks": "A"})
    st = layout(g, hands=["KS 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(3), pile(5)])
    with pytest.raises(IllegalActionError):
        do(st, "play hand:KS -> center:new")


def test_case06_naturals_need_value_plus_one_kings_fill_in():
    st = layout(hands=["6C 7C KD 8S 8S", "8S 8S 8H 8H 8C"], center=[pile(5)])
    assert not is_legal(st, "play hand:7C -> center:0")
    assert is_legal(st, "play hand:6C -> center:0")
    assert is_legal(st, "play hand:KD -> center:0")
    do(st, "play hand:KD -> center:0")
    assert st.view(0).center[0].value == 6
    assert is_legal(st, "play hand:7C -> center:0")  # K represented 6


def test_case07_completed_pile_recycled_indices_shift():
    st = layout(
        payoffs=["4D 4D 4D 5H QH", "4D 4D 10C"],
        center=[pile(6), pile(11), pile(3)],
        stock="5H 5H 5D",
    )
    stock_before = Counter(st.stock)
    events = do(st, "play payoff -> center:1")
    assert [len(p) for p in st.center] == [6, 3]  # old center:2 is now center:1
    assert len(st.stock) == 3 + 12
    assert Counter(st.stock) == stock_before + Counter(pile(11) + [Card.parse("QH")])
    assert st.payoff[0][-1] == Card.parse("5H") and st.view(1).players[0].payoff_top == Card.parse("5H")
    assert st.current_seat == 0 and st.phase is Phase.MAIN
    assert any(e.kind == "recycle" and len(e.cards) == 12 for e in events)


def test_case08_payoff_cannot_go_to_side():
    st = layout(payoffs=["4D 9D", "4D 10C"])
    assert not any(str(a).startswith("play payoff -> side") for a in st.legal_actions())
    with pytest.raises(IllegalActionError, match="centre"):
        do(st, "play payoff -> side:0")


def test_case09_side_to_side_forbidden():
    st = layout(side=[[["9C"], ["10C"], [], []], [[], [], [], []]])
    with pytest.raises(IllegalActionError, match="hand"):
        do(st, "play side:0 -> side:1")
    assert st.side[0][:2] == [[Card.parse("9C")], [Card.parse("10C")]]


def test_case10_discard_to_empty_slot_ends_turn():
    st = layout(hands=["9D 8S 8S 8H 8C", "8S 8S 8H 8H 8C"])
    do(st, "play hand:9D -> side:2")
    assert st.side[0][2] == [Card.parse("9D")]
    assert st.current_seat == 1


def test_case11_discard_on_any_existing_stack():
    st = layout(hands=["9D 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], side=[[["2C"], ["QC"], ["5S"], ["9H"]], [[], [], [], []]])
    do(st, "play hand:9D -> side:3")
    assert st.side[0][3] == list(parse_cards("9H 9D"))
    assert st.current_seat == 1


def test_case12_hand_emptied_draws_five_and_continues():
    stock = [Card.parse("7D")] * 30
    st = layout(hands=["5S", "8S 8S 8H 8H 8C"], center=[pile(4)], stock=stock)
    # The layout's turn start drew 4 cards; play them away first is not needed: build
    # the hand of one card directly by drawing state (turn start draws to 5).
    st.hands[0] = [Card.parse("5S")]
    st.stock = list(stock)
    events = do(st, "play hand:5S -> center:0")
    assert len(st.hands[0]) == 5 and len(st.stock) == 25
    assert st.current_seat == 0
    assert any(e.kind == "draw" and e.visible_to == frozenset({0}) and len(e.cards) == 5 for e in events)


def test_case13_turn_start_draws_up_to_five():
    st = layout(hands=["8S 8S 8H 8H 8C", "9S 9H"], stock=filler(10, "7D"))
    do(st, "play hand:8C -> side:0")
    assert st.current_seat == 1 and len(st.hands[1]) == 5 and len(st.stock) == 7


@pytest.mark.parametrize("series", [False, True])
def test_case14_stock_exhausted_at_turn_start_is_stalemate(series):
    opts = {"series_scoring": True, "match_target": 5} if series else {}
    g = SpiteAndMalice(opts)
    st = layout(g, payoffs=[" ".join(["4D"] * 4), " ".join(["4D"] * 9)],
                hands=["8S 8S 8H 8H 8C", "9S 9H"], stock="")
    do(st, "play hand:8C -> side:0")
    assert st.is_terminal
    out = st.outcome()
    if series:
        assert out.scores == (5.0, 0.0) and out.ranks == (1, 2)  # 9 - 4 = 5 for the seat with fewer
    else:
        assert out.reason is EndReason.STALEMATE and out.scores == (0.5, 0.5) and out.ranks == (1, 1)


def test_case14_player_not_needing_to_draw_is_unaffected():
    st = layout(hands=["8S 8S 8H 8H 8C", "9S 9H 9C 9D 10S"], stock="")
    do(st, "play hand:8C -> side:0")
    assert not st.is_terminal and st.current_seat == 1


def test_case15_last_payoff_card_wins_series_points():
    g = SpiteAndMalice({"series_scoring": True, "match_target": 11})
    st = layout(g, payoffs=["7C", " ".join(["4D"] * 6)], center=[pile(6)])
    do(st, "play payoff -> center:0")
    assert st.is_terminal
    out = st.outcome()
    assert out.reason is EndReason.COMPLETED and out.scores == (11.0, 0.0) and out.winners == (0,)


def test_case15_single_game_win():
    st = layout(payoffs=["7C", " ".join(["4D"] * 6)], center=[pile(6)], hands=["8S 8S 8H 8H 8C"] * 2)
    do(st, "play payoff -> center:0")
    assert st.outcome().scores == (1.0, 0.0) and st.outcome().ranks == (1, 2)
    assert st.legal_actions() == [] and st.current_seat is None


def test_case16_first_player_tie_reshuffles_both_piles():
    g = SpiteAndMalice()
    st = SpiteAndMaliceState(g, 0)
    st.payoff = [list(parse_cards("2C 5C JD 9S")), list(parse_cards("AH 3H QS 9H"))]
    before = [Counter(p) for p in st.payoff]
    first = st._first_player(random.Random(7))
    kinds = [e.kind for e in st.log]
    assert kinds[:2] == ["turn_up", "first_player_tie"]
    assert [Counter(p) for p in st.payoff] == before  # reshuffled, not changed
    tops = [p[-1] for p in st.payoff]
    rank = lambda c: 14 if c.is_joker else c.rank  # noqa: E731
    assert rank(tops[first]) > rank(tops[1 - first])
    assert st.log[-2].cards == tuple(tops)  # the new tops were turned up and compared


def test_case16_first_player_from_real_deal_is_higher_top():
    g = SpiteAndMalice()
    for seed in range(40):
        st = g.new_initial_state(seed)
        tops = [st.payoff[s][-1] for s in range(2)]
        assert tops[st.current_seat].rank > tops[1 - st.current_seat].rank or tops[st.current_seat].rank == 13
        ties = [e for e in st.log if e.kind == "first_player_tie"]
        if ties:
            return
    pytest.fail("no seed in 0..39 had a first-player tie")  # pragma: no cover


def test_first_player_guard_after_100_ties():
    g = SpiteAndMalice({"payoff_size": 1})
    st = SpiteAndMaliceState(g, 0)
    st.payoff = [list(parse_cards("9S")), list(parse_cards("9H"))]
    first = st._first_player(random.Random(3))
    assert first in (0, 1)
    assert sum(e.kind == "first_player_tie" for e in st.log) == 100


def test_first_player_three_players_only_tied_highest_reshuffle():
    g = SpiteAndMalice({"players": 3})
    st = SpiteAndMaliceState(g, 0)
    st.payoff = [list(parse_cards("2C 3C 9S")), list(parse_cards("AH QH 9H")), list(parse_cards("KH 2S 5S"))]
    seat2 = list(st.payoff[2])
    first = st._first_player(random.Random(1))
    assert st.payoff[2] == seat2  # seat 2 (lower card) did not reshuffle
    assert first in (0, 1)


# ---------------------------------------------------------------------------------------
# §5 worked turn example.


def test_worked_turn_example():
    st = layout(
        payoffs=[" ".join(["4D"] * 16) + " 9C QH 5D", "4D 4D 10C"],
        hands=["6H 2C KD 10S 7C", "8S 8S 8H 8H 8C"],
        center=[pile(4, Suit.C), pile(9, Suit.H)],
    )
    assert len(st.payoff[0]) == 19
    do(st, "play payoff -> center:0")
    assert len(st.center[0]) == 5 and st.payoff[0][-1] == Card.parse("QH")
    do(st, "play hand:6H -> center:0")
    do(st, "play hand:7C -> center:0")
    assert len(st.center[0]) == 7
    do(st, "play hand:10S -> center:1")
    do(st, "play hand:KD -> center:1")
    assert st.view(0).center[1].value == 11
    assert st.hands[0] == [Card.parse("2C")]
    stock_before = len(st.stock)
    do(st, "play payoff -> center:1")
    assert len(st.center) == 1 and len(st.center[0]) == 7
    assert len(st.stock) == stock_before + 12
    assert st.payoff[0][-1] == Card.parse("9C")  # a new pay-off card turned up
    do(st, "play hand:2C -> side:0")
    assert st.hands[0] == [] and st.current_seat == 1
    do(st, "play hand:8C -> side:0")
    assert st.current_seat == 0 and len(st.hands[0]) == 5  # drew 5 at the start of its turn


# ---------------------------------------------------------------------------------------
# Edge cases of §7 not covered above.


def test_king_on_jack_completes_pile_as_queen():
    st = layout(hands=["KS 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(11)])
    do(st, "play hand:KS -> center:0")
    assert st.center == [] and len(st.stock) >= 12


def test_freed_slot_reusable_same_turn():
    st = layout(hands=["QS AC 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(11), pile(3), pile(5)])
    assert not is_legal(st, "play hand:AC -> center:new")
    do(st, "play hand:QS -> center:0")
    assert is_legal(st, "play hand:AC -> center:new")


def test_king_on_side_stack_is_uncommitted():
    st = layout(hands=["KS 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(4)])
    do(st, "play hand:KS -> side:0")
    do(st, "play hand:8C -> side:0")
    assert is_legal(st, "play side:0 -> center:0") and is_legal(st, "play side:0 -> center:new")


def test_hand_emptied_several_times_in_one_turn():
    stock = parse_cards("7D 7D 7D 7D 7D 5S 4S 3S 2S AS")
    st = layout(hands=["AC 2C 3C 4C 5C", "8S 8S 8H 8H 8C"], stock="")
    st.stock = list(stock)
    for c in ["AC", "2C", "3C", "4C", "5C"]:
        do(st, f"play hand:{c} -> center:{'new' if c == 'AC' else 0}")
    assert sorted(map(str, st.hands[0])) == sorted(["AS", "2S", "3S", "4S", "5S"])
    for c in ["AS", "2S", "3S", "4S", "5S"]:
        do(st, f"play hand:{c} -> center:{'new' if c == 'AS' else 1}")
    assert len(st.hands[0]) == 5 and st.current_seat == 0


def test_stock_runs_out_mid_turn_draw_card_by_card():
    st = layout(hands=["5S 8S 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(4)], stock="")
    st.hands[0] = [Card.parse("5S")]
    st.stock = list(parse_cards("7D 7D"))
    do(st, "play hand:5S -> center:0")
    assert st.is_terminal and st.outcome().reason is EndReason.STALEMATE
    assert len(st.hands[0]) == 2  # drew what there was, then the stock was empty


def test_payoff_emptied_with_cards_in_hand_wins_at_once():
    st = layout(payoffs=["AC", "4D 4D"], hands=["8S 8S 8H 8H 8C"] * 2)
    do(st, "play payoff -> center:new")
    assert st.is_terminal and st.outcome().winners == (0,)


def test_duplicate_cards_one_copy_removed():
    st = layout(hands=["5C 5C 8S 8H 8C", "8S 8S 8H 8H 8C"], center=[pile(4)])
    assert legal(st).count("play hand:5C -> center:0") == 1
    do(st, "play hand:5C -> center:0")
    assert st.hands[0].count(Card.parse("5C")) == 1


def test_first_player_starts_with_five_cards_no_draw():
    st = SpiteAndMalice().new_initial_state(1)
    assert all(len(h) == 5 for h in st.hands)
    assert len(st.stock) == 54
    assert not any(e.kind == "draw" for e in st.log)


def test_standard_deal_counts_and_pack():
    st = SpiteAndMalice().new_initial_state(5)
    assert [len(p) for p in st.payoff] == [20, 20] and len(st.stock) == 54
    assert st.all_cards() == Counter(list(STANDARD_DECK) * 2)
    v = st.view(0)
    assert v.players[0].payoff_face_up == (st.payoff[0][-1],) and v.players[1].payoff_count == 20


def test_deal_depends_only_on_seed():
    g = SpiteAndMalice()
    a, b = g.new_initial_state(11), g.new_initial_state(11)
    assert a.payoff == b.payoff and a.hands == b.hands and a.stock == b.stock
    c = g.new_initial_state(12)
    assert c.payoff != a.payoff


def test_turn_limit_guard_ends_as_stalemate():
    g = SpiteAndMalice({"max_turns": 3})
    st = g.new_initial_state(2)
    for _ in range(3):
        p = st.current_seat
        do(st, f"play hand:{st.hands[p][0]} -> side:0")
    assert st.is_terminal and st.outcome().reason is EndReason.TURN_LIMIT
    assert st.outcome().scores == (0.5, 0.5)


def test_standard_game_always_offers_a_discard():
    g = SpiteAndMalice()
    rng = random.Random(0)
    for seed in range(5):
        st = g.new_initial_state(seed)
        while not st.is_terminal:
            acts = st.legal_actions()
            assert any(isinstance(a, Play) and a.target is TargetKind.SIDE for a in acts)
            assert not any(isinstance(a, (End, Load)) for a in acts)
            st.apply(rng.choice(acts))


# ---------------------------------------------------------------------------------------
# Notation.


@pytest.mark.parametrize(
    "text, action",
    [
        ("play hand:5C -> center:2", Play(Source(SourceKind.HAND, 0, Card.parse("5C")), TargetKind.CENTER, 2)),
        ("play payoff -> center:new", Play(Source(SourceKind.PAYOFF), TargetKind.CENTER, None)),
        ("play side:1 -> center:0", Play(Source(SourceKind.SIDE, 1), TargetKind.CENTER, 0)),
        ("play hand:9D -> side:2", Play(Source(SourceKind.HAND, 0, Card.parse("9D")), TargetKind.SIDE, 2)),
        ("load hand:9H -> payoff:1", Load(Source(SourceKind.HAND, 0, Card.parse("9H")), 1)),
        ("end", End()),
        ("play partner_payoff -> center:0", Play(Source(SourceKind.PARTNER_PAYOFF), TargetKind.CENTER, 0)),
        ("play partner_side:1 -> center:0", Play(Source(SourceKind.PARTNER_SIDE, 1), TargetKind.CENTER, 0)),
        ("play hand:JK -> center:new", Play(Source(SourceKind.HAND, 0, Card.parse("JK")), TargetKind.CENTER, None)),
    ],
)
def test_notation_round_trip(text, action):
    g = SpiteAndMalice()
    assert g.parse_action(text) == action
    assert str(action) == text
    assert g.parse_action(text.upper().replace("->", " -> ")) == action


def test_parse_accepts_loose_spacing_and_t_for_ten():
    g = SpiteAndMalice()
    assert str(g.parse_action("PLAY Hand : tc->Center : NEW")) == "play hand:10C -> center:new"


@pytest.mark.parametrize(
    "text, words",
    [
        ("play hand:5X -> center:0", "unknown card"),
        ("play hand:5C -> partner_side:1", "source only"),
        ("play deck -> center:0", "unknown source"),
        ("play hand:5C -> payoff:1", "load"),
        ("play hand:5C center:0", "cannot parse"),
        ("load hand:5C -> center:0", "payoff"),
        ("discard 5C", "cannot parse"),
        ("play hand:5C -> middle:0", "unknown destination"),
    ],
)
def test_parse_errors(text, words):
    with pytest.raises(InvalidActionError, match=words):
        SpiteAndMalice().parse_action(text)


def test_illegal_action_leaves_state_unchanged_and_names_reason():
    st = layout(hands=["6C 7C 8S 8H 8C", "9S 9S 9H 9H 9C"], center=[pile(5)])
    before = [st.view(s) for s in range(2)]
    n_log = len(st.log)
    for text, why in [
        ("play hand:7C -> center:0", "does not fit"),
        ("play hand:QS -> center:0", "no QS in your hand"),
        ("play side:0 -> center:0", "empty"),
        ("play hand:6C -> center:3", "no center:3"),
        ("end", "only with may_end_without_discard"),
        ("load hand:6C -> payoff:1", "loading is not played"),
        ("play partner_payoff -> center:0", "no partnerships"),
    ]:
        with pytest.raises(IllegalActionError, match=why):
            do(st, text)
    assert [st.view(s) for s in range(2)] == before and len(st.log) == n_log
    # The message never names the opponent's cards.
    with pytest.raises(IllegalActionError) as info:
        do(st, "play hand:9S -> center:0")
    assert "9H" not in str(info.value) and "9C" not in str(info.value)


# ---------------------------------------------------------------------------------------
# Scoring (§4.4) worked examples, pure functions.


def test_series_example_1_winner_scores_5_plus_loser_pile():
    assert game_points([0, 6], 0) == [11, 0]


def test_series_example_2_stalemate_difference_and_results():
    assert game_points([4, 9], None) == [5, 0]
    assert game_result([4, 9], None, StalemateRule.DRAW) == [0.5, 0.5]
    assert game_result([4, 9], None, StalemateRule.FEWER_PAYOFF_WINS) == [1.0, 0.0]
    assert game_result([4, 4], None, StalemateRule.FEWER_PAYOFF_WINS) == [0.5, 0.5]
    assert game_points([4, 4], None) == [0, 0]


def test_series_example_3_match_to_50():
    total = [0, 0]
    for pts in (11, 5, 18):
        total[0] += pts
        assert not series_over(total, 50)
    total[0] += 20
    assert total[0] == 54 and series_over(total, 50)


def test_more_players_series_points():
    assert game_points([0, 3, 7], 0) == [15, 0, 0]
    assert game_points([2, 5, 9], None) == [10, 0, 0]  # (5-2) + (9-2)
    assert game_points([2, 2, 9], None) == [0, 0, 0]
    assert game_result([2, 2, 9], None, StalemateRule.FEWER_PAYOFF_WINS) == [0.5, 0.5, 0.0]


def test_series_continues_with_fresh_deal_and_keeps_points():
    g = SpiteAndMalice({"series_scoring": True, "match_target": 30})
    st = layout(g, payoffs=["7C", " ".join(["4D"] * 6)], center=[pile(6)])
    do(st, "play payoff -> center:0")
    assert not st.is_terminal and st.game_index == 1
    assert st.points == [11, 0] and st.view(1).players[0].points == 11
    fresh = g.new_initial_state(0)
    ref = SpiteAndMaliceState(g, 0)
    ref._start_game(1)
    assert st.payoff == ref.payoff and st.hands == ref.hands and st.stock == ref.stock
    assert st.payoff != fresh.payoff  # game 1 is not game 0's deal
    assert st.view(0).game_number == 1 and st.turns_played == 0


def test_series_played_to_the_end_reaches_target():
    g = SpiteAndMalice({"series_scoring": True, "match_target": 15, "payoff_size": 5})
    rng = random.Random(4)
    st = g.new_initial_state(4)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    out = st.outcome()
    assert max(out.scores) >= 15 and out.reason is EndReason.COMPLETED
    assert sum(e.kind == "game_over" for e in st.log) == st.game_index + 1


# ---------------------------------------------------------------------------------------
# Options and presets.


def test_default_options_are_standard():
    o = SpiteAndMalice().options
    assert (o.players, o.decks, o.jokers, o.payoff_size, o.center_limit) == (2, 2, 0, 20, 3)
    assert o.recycle is Recycle.IMMEDIATE and o.kings_wild and not o.series_scoring and o.max_turns == 2000
    assert SpiteAndMalice(preset="standard").options == o


def test_presets():
    m = SpiteAndMalice(preset="massachusetts").options
    assert (m.payoff_size, m.initial_side_cards, m.fill_empty_side_stacks) == (14, 1, True)
    b = SpiteAndMalice(preset="book").options
    assert b.deck_split and b.decks == 2 and b.jokers == 4 and not b.kings_wild
    assert b.wild_excluded_ranks == frozenset({"A"}) and b.payoff_size == 26 and b.center_limit == "unlimited"
    assert b.may_end_without_discard and b.ace_two_compulsion and b.side_stack_order.value == "descending"
    assert SpiteAndMalice({"series_scoring": True}, preset="book").options.series_scoring
    assert get_game("spite-and-malice", preset="book").options == b


def test_decks_default_one_per_player():
    assert SpiteAndMalice({"players": 4}).options.decks == 4
    assert SpiteAndMalice({"players": 3}).options.decks == 3
    assert SpiteAndMalice({"players": 3, "decks": 4}).options.decks == 4


def test_option_parsing_from_text():
    g = SpiteAndMalice({"center_limit": "unlimited", "wild_excluded_ranks": "a,7", "recycle": "deferred"})
    assert g.options.center_limit == "unlimited" and g.options.wild_excluded_ranks == frozenset({"A", "7"})
    assert SpiteAndMalice({"center_limit": "4"}).options.center_limit == 4


@pytest.mark.parametrize(
    "opts, names",
    [
        ({"players": 7}, "players"),
        ({"players": 1}, "players"),
        ({"players": 3, "partnerships": True}, "partnerships"),
        ({"recycle": "deferred"}, "recycle"),
        ({"payoff_size": 50}, "payoff_size"),
        ({"players": 6, "decks": 2}, "decks"),
        ({"initial_side_cards": 2}, "initial_side_cards"),
        ({"loading": True, "forced_aces": False}, "forced_aces"),
        ({"forced_aces": True, "center_limit": 4}, "center_limit"),
        ({"side_stack_order": "descending"}, "may_end_without_discard"),
        ({"fill_empty_side_stacks": True, "may_end_without_discard": True}, "fill_empty_side_stacks"),
        ({"deadlock_rule": "reshuffle"}, "deadlock_rule"),
        ({"deck_split": True, "players": 3}, "deck_split"),
        ({"wild_excluded_ranks": "X"}, "wild_excluded_ranks"),
        ({"center_limit": 0}, "center_limit"),
        ({"colour": "red"}, "colour"),
        ({"max_turns": 0}, "max_turns"),
        ({"recycle": "sometimes"}, "recycle"),
    ],
)
def test_bad_options_rejected(opts, names):
    with pytest.raises(ConfigError, match=names):
        SpiteAndMalice(opts)


def test_loading_implies_forced_aces_and_unlimited():
    o = SpiteAndMalice({"loading": True}).options
    assert o.forced_aces and o.center_limit == "unlimited"
    assert SpiteAndMalice({"forced_aces": True}).options.center_limit == "unlimited"
    assert SpiteAndMalice({"forced_aces": True, "center_limit": "unlimited"}).options.forced_aces


def test_card_count_check_boundary():
    # 2·(25+5) = 60 < 104 fine; 2 players, 1 deck: 2·(20+5) = 50 < 52 fine, 2·(21+5) = 52 not.
    SpiteAndMalice({"payoff_size": 25})
    SpiteAndMalice({"decks": 1})
    with pytest.raises(ConfigError, match="§2.4"):
        SpiteAndMalice({"decks": 1, "payoff_size": 21})
    SpiteAndMalice({"decks": 1, "payoff_size": 21, "jokers": 1})
    with pytest.raises(ConfigError):
        SpiteAndMalice({"decks": 1, "payoff_size": 17, "initial_side_cards": 1})
    SpiteAndMalice({"decks": 1, "payoff_size": 16, "initial_side_cards": 1})


def test_registry():
    g = get_game("spite-and-malice")
    assert isinstance(g, SpiteAndMalice) and g.name == "spite-and-malice" and g.num_seats == 2
    assert g.describe_options()["center_limit"] == 3
    assert set(SpiteAndMalice.presets) == {"standard", "massachusetts", "book"}


_MEMO_GAMES = [({}, None), ({"center_limit": "unlimited", "recycle": "deferred", "payoff_size": 8}, None),
               ({"players": 4, "partnerships": True, "payoff_size": 8}, None),
               ({"deadlock_rule": "hand_ace_two_then_end", "center_limit": 4}, "book")]


def _play_legal(game: SpiteAndMalice, seed: int, decisions: int = 400) -> list[list[str]]:
    """The legal actions (as text) at each decision of a seeded random game."""
    rng, out = random.Random(seed), []
    st = game.new_initial_state(seed)
    while not st.is_terminal and len(out) < decisions:
        acts = st.legal_actions()
        out.append([str(a) for a in acts])
        st.apply(acts[rng.randrange(len(acts))])
    return out


@pytest.mark.parametrize("options, preset", _MEMO_GAMES)
def test_the_centre_plays_memo_changes_no_legal_action(monkeypatch, options, preset):
    """SpiteAndMalice.fit_memo (the centre plays of each layout of centre piles, shared by
    the games of the same fitting rules in the process: actions.FIT_MEMOS) is a cache only:
    the same seeded games played with it warm from other games, and with it emptied first
    and at every new layout (its bound at 0), give the same legal actions in the same order
    at every decision."""
    from cardarena.games.spite_malice import actions, legal

    warm = SpiteAndMalice(options, preset)
    for seed in range(20, 26):  # other games first: their layouts are in the memo
        _play_legal(warm, seed)
    assert warm.fit_memo, "the memo is filled as the game is played"
    assert SpiteAndMalice(options, preset).fit_memo is warm.fit_memo, "games of the same rules share it"
    played = [_play_legal(warm, seed) for seed in range(3)]
    actions.FIT_MEMOS.clear()
    monkeypatch.setattr(legal, "FIT_MEMO_SIZE", 0)  # and cleared at every new layout
    cold = SpiteAndMalice(options, preset)
    assert cold.fit_memo is not warm.fit_memo and not cold.fit_memo
    assert [_play_legal(cold, seed) for seed in range(3)] == played
    assert len(cold.fit_memo) <= 1


@pytest.mark.parametrize("options, preset", _MEMO_GAMES)
def test_what_the_centre_plays_memo_holds_depends_on_the_layout_alone(options, preset):
    """Hidden information: what the memo holds for a layout (and so how long a later
    position's legal actions take) must not depend on the cards the seats held when it was
    met. After random games, each layout's memo is exactly the one made for that layout by a
    state that holds no cards at all (fresh memos, the same piles' values): filled whole at
    once, never by the hands that came later."""
    from cardarena.games.spite_malice import actions

    actions.FIT_MEMOS.clear()
    game = SpiteAndMalice(options, preset)
    for seed in range(6):
        _play_legal(game, seed)
    played = dict(game.fit_memo)
    assert len(played) >= 10
    actions.FIT_MEMOS.clear()
    bare = SpiteAndMalice(options, preset)
    st = bare.new_initial_state(0)
    st.hands = [[] for _ in st.hands]
    for layout, (table, memo) in played.items():
        st.center = [[Card(0)] * v for v in layout]  # only the piles' values are read
        st._fit = None
        fresh_table, fresh_memo = st._new_fit()
        assert (fresh_table, fresh_memo) == (table, memo), layout


def test_a_copied_or_pickled_game_carries_no_memo_and_shares_its_rules_one():
    """The process's shared memo is a cache, not part of a game: a deep copy or a pickle of a
    game (a bot's copy for a match, a state sent elsewhere) neither carries its layouts nor
    grows with them, and lands on its rules' memo."""
    import copy
    import pickle

    game = SpiteAndMalice({"payoff_size": 9})
    before = len(pickle.dumps(game))
    _play_legal(game, 3)
    assert game.fit_memo
    assert len(pickle.dumps(game)) == before
    assert copy.deepcopy(game).fit_memo is game.fit_memo
    assert pickle.loads(pickle.dumps(game)).fit_memo is game.fit_memo
