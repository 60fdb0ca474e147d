"""Spite and Malice variants (rules §8): conformance cases 17-25 and one test per option
that would fail if the option were ignored."""

from __future__ import annotations

from collections import Counter

import pytest

from cardarena.games import EndReason, IllegalActionError, InvalidActionError
from cardarena.games.cards import JOKER, STANDARD_DECK, Card, parse_cards
from cardarena.games.options import field_docs
from cardarena.games.spite_malice import Phase, SpiteAndMalice
from tests.games.test_spite_malice import do, is_legal, layout, legal, pile


def book(**extra) -> SpiteAndMalice:
    return SpiteAndMalice(extra, preset="book")


def cards(text: str) -> list[Card]:
    return list(parse_cards(text))


# ---------------------------------------------------------------------------------------
# Conformance cases 17-25.


def test_case17_book_descending_side_stack():
    st = layout(book(), hands=["7H 6H 8H 5H 9S", "9S 9S 9H 9H 9C"], side=[[["7C"], ["QC"], ["QD"], ["QS"]], [[], [], [], []]])
    assert is_legal(st, "play hand:7H -> side:0")
    assert is_legal(st, "play hand:6H -> side:0")
    assert not is_legal(st, "play hand:8H -> side:0")
    assert not is_legal(st, "play hand:5H -> side:0")
    with pytest.raises(IllegalActionError, match="descending"):
        do(st, "play hand:5H -> side:0")


def test_case18_book_jokers_widen_side_interval():
    g = book()
    assert g.side_interval(cards("9C JK JK")) == (7, 9)
    assert g.side_interval(cards("9C JK")) == (8, 9)
    assert g.side_interval(cards("JK")) == (2, 13)
    st = layout(g, hands=["6C 5C 10C 9S 9S", "9S 9S 9H 9H 9C"], side=[[["9D", "JK", "JK"], ["QC"], ["QD"], ["QS"]], [[], [], [], []]])
    assert is_legal(st, "play hand:6C -> side:0")
    assert not is_legal(st, "play hand:5C -> side:0")
    assert not is_legal(st, "play hand:10C -> side:0")


def test_book_joker_cannot_go_on_bare_ace_side_stack():
    g = book()
    assert not g.side_accepts(cards("AC"), JOKER)
    assert g.side_accepts(cards("2C"), JOKER)
    assert g.side_accepts(cards("AC"), Card.parse("AD"))


def test_case19_book_joker_cannot_start_a_pile():
    st = layout(book(), hands=["JK 9S 9S 9H 9C", "9S 9S 9H 9H 9C"])
    assert not is_legal(st, "play hand:JK -> center:new")
    st2 = layout(book(), hands=["JK 9S 9S 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(4)])
    assert is_legal(st2, "play hand:JK -> center:0")  # joker represents v+1


def test_case20_book_two_on_payoff_is_compelled():
    st = layout(book(), payoffs=["4D 2D", "4D 10C"], hands=["5C 9S 9S 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(1), pile(4)])
    assert legal(st) == ["play payoff -> center:0"]
    with pytest.raises(IllegalActionError, match="compulsory"):
        do(st, "play hand:5C -> center:1")
    do(st, "play payoff -> center:0")
    assert is_legal(st, "play hand:5C -> center:1")


def test_ace_two_compulsion_side_stack_and_exceptions():
    # An ace on a side stack is compelled; a joker above a 2 is not; a hand 2 is not.
    st = layout(book(), hands=["2H 9S 9S 9H 9C", "9S 9S 9H 9H 9C"], side=[[["AC"], ["3C", "2C", "JK"], [], []], [[], [], [], []]])
    assert legal(st) == ["play side:0 -> center:new"]
    do(st, "play side:0 -> center:new")
    assert "play hand:2H -> center:0" in legal(st) and "end" in legal(st)
    # Without the option nothing is compelled.
    st2 = layout(book(ace_two_compulsion=False), hands=["2H 9S 9S 9H 9C", "9S 9S 9H 9H 9C"],
                 side=[[["AC"], [], [], []], [[], [], [], []]])
    assert len(legal(st2)) > 1


def test_case21_book_pass_pass_deadlock_ends_game():
    g = book(series_scoring=True, match_target=5)
    st = layout(g, payoffs=["4D 4D 4D 9C", "4D 4D 4D 4D 4D 4D 4D 4D 10C"], hands=["9S 9S 9H 9H 9C"] * 2)
    do(st, "end")
    assert st.consecutive_passes == 1 and not st.is_terminal
    do(st, "end")
    assert st.is_terminal and "deadlock" in st.outcome().detail  # the series is over too
    assert st.outcome().scores == (5.0, 0.0)


@pytest.mark.parametrize("rule, scores", [("draw", (0.5, 0.5)), ("fewer_payoff_wins", (1.0, 0.0))])
def test_case21_deadlock_single_game_result(rule, scores):
    st = layout(book(stalemate_rule=rule), payoffs=["4D 4D 4D 9C", "4D 4D 4D 4D 4D 4D 4D 4D 10C"], hands=["9S 9S 9H 9H 9C"] * 2)
    do(st, "end")
    do(st, "end")
    assert st.outcome().scores == scores


def test_pass_counter_reset_by_a_turn_with_a_move():
    st = layout(book(), hands=["9S 9S 9H 9H 9C"] * 2, stock="5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    do(st, "end")
    do(st, "play hand:9C -> side:0")
    assert st.consecutive_passes == 0
    do(st, "end")
    assert not st.is_terminal and st.consecutive_passes == 1


def test_case22_loading_suit_and_rank():
    g = SpiteAndMalice({"loading": True})
    st = layout(g, payoffs=["4D 4D 10S", "4D 4D 8H"], hands=["9H 9D 8S 8S 8C", "9S 9S 9C 9C 9C"], side=[[["7H"], [], [], []], [[], [], [], []]])
    assert is_legal(st, "load hand:9H -> payoff:1")
    assert not is_legal(st, "load hand:9D -> payoff:1")
    with pytest.raises(IllegalActionError, match="same suit"):
        do(st, "load hand:9D -> payoff:1")
    with pytest.raises(IllegalActionError, match="hand card or your pay-off"):
        do(st, "load side:0 -> payoff:1")
    do(st, "load hand:9H -> payoff:1")
    assert st.payoff[1][-1] == Card.parse("9H") and len(st.payoff[1]) == 4
    assert st.current_seat == 0  # loading does not end the turn
    v = st.view(0)
    assert v.players[1].payoff_face_up == (Card.parse("8H"), Card.parse("9H"))  # loaded card known


def test_loading_kings_natural_rank_no_wrap_and_own_payoff_win():
    g = SpiteAndMalice({"loading": True})
    st = layout(g, payoffs=["KH", "4D QH"], hands=["AH 8S 8S 8C 8C", "9S 9S 9C 9C 9C"])
    assert legal(st) == ["play hand:AH -> center:new"]  # forced aces come first
    do(st, "play hand:AH -> center:new")
    assert is_legal(st, "load payoff -> payoff:1")  # KH on QH: natural rank 13
    do(st, "load payoff -> payoff:1")
    assert st.is_terminal and st.outcome().winners == (0,)


def test_loading_onto_ace_with_king_not_adjacent():
    g = SpiteAndMalice({"loading": True})
    st = layout(g, payoffs=["4D 4D 10S", "4D 4D AH"], hands=["KH 2H 8S 8C 8C", "9S 9S 9C 9C 9C"])
    assert not is_legal(st, "load hand:KH -> payoff:1")
    assert is_legal(st, "load hand:2H -> payoff:1")


def test_case23_forced_aces_after_draw():
    g = SpiteAndMalice({"forced_aces": True})
    st = layout(g, hands=["9S 9S 9H 9H 9C", "5D 8S 8H 8C"], stock="7D 7D AC")
    do(st, "play hand:9C -> side:0")
    assert st.current_seat == 1 and Card.parse("AC") in st.hands[1]
    assert legal(st) == ["play hand:AC -> center:new"]
    with pytest.raises(IllegalActionError, match="compulsory"):
        do(st, "play hand:5D -> side:0")


def test_forced_aces_payoff_ace_and_unlimited_piles():
    g = SpiteAndMalice({"forced_aces": True})
    st = layout(g, payoffs=["4D AS", "4D 10C"], hands=["9S 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(2), pile(3), pile(4), pile(5)])
    assert legal(st) == ["play payoff -> center:new"]
    do(st, "play payoff -> center:new")
    assert len(st.center) == 5  # more than the standard limit of 3


def test_forced_aces_never_forces_a_wild():
    g = SpiteAndMalice({"forced_aces": True})
    st = layout(g, hands=["KS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"])
    assert len(legal(st)) > 1


def test_case24_massachusetts_filling():
    g = SpiteAndMalice(preset="massachusetts")
    st = layout(g, hands=["AS 2S 3S 4C 9D", "9S 9S 9H 9H 9C"], side=[[["QC"], ["QD"], [], ["QS"]], [["2C"], ["2D"], ["2H"], ["2S"]]])
    for c in ["AS", "2S", "3S"]:
        do(st, f"play hand:{c} -> center:{'new' if c == 'AS' else 0}")
    assert sorted(map(str, st.hands[0])) == ["4C", "9D"]
    with pytest.raises(IllegalActionError, match="fill"):
        do(st, "play hand:9D -> side:0")
    do(st, "play hand:4C -> side:2")
    assert st.current_seat == 0 and st.phase is Phase.FILLING
    assert legal(st) == [f"play hand:9D -> side:{j}" for j in range(4)]
    do(st, "play hand:9D -> side:0")
    assert st.current_seat == 1


def test_massachusetts_hand_runs_out_while_filling_draws_five():
    g = SpiteAndMalice(preset="massachusetts")
    st = layout(g, hands=["AS 2S 3S 4S 9D", "9S 9S 9H 9H 9C"], side=[[["QC"], [], [], []], [["2C"], ["2D"], ["2H"], ["2S"]]])
    for c in ["AS", "2S", "3S", "4S"]:
        do(st, f"play hand:{c} -> center:{'new' if c == 'AS' else 0}")
    do(st, "play hand:9D -> side:1")  # a fill with the last card
    assert st.current_seat == 0 and st.phase is Phase.MAIN and len(st.hands[0]) == 5
    assert not any(a.endswith("side:0") for a in legal(st))  # still empty slots: no ending discard


def test_massachusetts_initial_side_cards_dealt():
    g = SpiteAndMalice(preset="massachusetts")
    st = g.new_initial_state(3)
    assert all(len(s) == 1 for slots in st.side for s in slots)
    assert len(st.stock) == 104 - 2 * (14 + 5) - 8
    assert [len(p) for p in st.payoff] == [14, 14]


def test_case25_partnership_partner_payoff_source_only():
    g = SpiteAndMalice({"players": 4, "partnerships": True})
    st = layout(g, payoffs=["4D 9C", "4D 10C", "4D 3S", "4D 10D"], center=[pile(2)])
    assert g.teams == ((0, 2), (1, 3))
    assert is_legal(st, "play partner_payoff -> center:0")
    with pytest.raises(InvalidActionError, match="source only"):
        g.parse_action("play hand:4C -> partner_side:1")
    do(st, "play partner_payoff -> center:0")
    assert st.payoff[2] == [Card.parse("4D")]


def test_partnerships_team_wins_only_when_both_piles_empty():
    g = SpiteAndMalice({"players": 4, "partnerships": True})
    st = layout(g, payoffs=["AC", "4D 10C", "2C", "4D 10D"], hands=["9S 9S 9H 9H 9C"] * 4)
    do(st, "play payoff -> center:new")
    assert not st.is_terminal and st.current_seat == 0  # own pile empty, partner's not
    do(st, "play partner_payoff -> center:0")
    assert st.is_terminal
    out = st.outcome()
    assert out.scores == (1.0, 0.0, 1.0, 0.0) and out.ranks[0] == out.ranks[2] == 1


def test_partnerships_partner_side_source_and_six_players():
    g = SpiteAndMalice({"players": 6, "partnerships": True})
    assert g.teams == ((0, 3), (1, 4), (2, 5))
    sides = [[[], [], [], []] for _ in range(6)]
    sides[3][1] = ["3H"]
    st = layout(g, center=[pile(2)], side=sides)
    assert is_legal(st, "play partner_side:1 -> center:0")
    assert not is_legal(st, "play partner_side:0 -> center:0")


def test_partnership_series_points_team_shared():
    g = SpiteAndMalice({"players": 4, "partnerships": True, "series_scoring": True, "match_target": 5})
    st = layout(g, payoffs=["AC", "4D 10C", "", "4D 4D 10D"], hands=["9S 9S 9H 9H 9C"] * 4)
    do(st, "play payoff -> center:new")
    assert st.outcome().scores == (10.0, 0.0, 10.0, 0.0)  # 5 + 2 + 3


# ---------------------------------------------------------------------------------------
# One test per remaining option.


def test_players_three_and_decks_default():
    g = SpiteAndMalice({"players": 3})
    st = g.new_initial_state(0)
    assert g.num_seats == 3 and len(st.payoff) == 3
    assert st.all_cards() == Counter(list(STANDARD_DECK) * 3)
    assert len(st.stock) == 156 - 3 * 25


def test_decks_option():
    st = SpiteAndMalice({"decks": 3}).new_initial_state(0)
    assert sum(st.all_cards().values()) == 156


def test_jokers_in_pack_and_wild():
    st0 = SpiteAndMalice({"jokers": 2}).new_initial_state(0)
    assert st0.all_cards()[JOKER] == 2
    st = layout(SpiteAndMalice({"jokers": 2}), hands=["JK 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(5)])
    assert is_legal(st, "play hand:JK -> center:0") and is_legal(st, "play hand:JK -> center:new")


def test_kings_natural():
    g = SpiteAndMalice({"kings_wild": False, "jokers": 2})
    st = layout(g, hands=["KS QS 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(11), pile(5)])
    assert not is_legal(st, "play hand:KS -> center:new") and not is_legal(st, "play hand:KS -> center:1")
    do(st, "play hand:QS -> center:0")
    assert len(st.center) == 2 and len(st.center[0]) == 12  # Q does not complete
    do(st, "play hand:KS -> center:0")
    assert len(st.center) == 1  # K completes at 13
    assert st.view(0).top_rank == 13


def test_wild_excluded_a_and_7():
    g = SpiteAndMalice({"wild_excluded_ranks": "A,7"})
    st = layout(g, hands=["KS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(6), pile(5)])
    assert not is_legal(st, "play hand:KS -> center:0")
    assert is_legal(st, "play hand:KS -> center:1")
    assert not is_legal(st, "play hand:KS -> center:new")


def test_payoff_size_option():
    st = SpiteAndMalice({"payoff_size": 25}).new_initial_state(0)
    assert [len(p) for p in st.payoff] == [25, 25] and st.view(0).players[1].payoff_count == 25


@pytest.mark.parametrize("limit, ok", [(3, False), (4, True), ("unlimited", True)])
def test_center_limit_option(limit, ok):
    st = layout(SpiteAndMalice({"center_limit": limit}), hands=["AS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(2), pile(3), pile(4)])
    assert is_legal(st, "play hand:AS -> center:new") is ok


def test_unlimited_center_many_piles():
    st = layout(SpiteAndMalice({"center_limit": "unlimited"}), hands=["AS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"],
                center=[pile(2)] * 9)
    assert is_legal(st, "play hand:AS -> center:new")
    assert st.view(0).center_limit == 0


def test_recycle_deferred_sets_aside_then_restocks():
    g = SpiteAndMalice({"center_limit": "unlimited", "recycle": "deferred"})
    st = layout(g, hands=["QS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(11)], stock="")
    do(st, "play hand:QS -> center:0")
    assert st.center == [] and len(st.completed) == 1 and st.stock == []
    assert st.view(1).completed[0].value == 12
    do(st, "play hand:9C -> side:0")  # seat 1 has 5 cards: no draw
    do(st, "play hand:9C -> side:0")  # seat 0 must draw 2: completed piles become the stock
    assert not st.is_terminal and len(st.hands[0]) == 5 and len(st.stock) == 10 and st.completed == []
    assert sorted(st.view(1).recycled) == sorted(pile(11) + [Card.parse("QS")])


def test_recycle_immediate_goes_to_stock():
    st = layout(hands=["QS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(11)], stock="")
    do(st, "play hand:QS -> center:0")
    assert st.completed == [] and len(st.stock) == 12


def test_side_stacks_spread_full_content_in_view():
    for spread in (False, True):
        st = layout(SpiteAndMalice({"side_stacks_spread": spread}), side=[[["9C", "4H", "KD"], [], [], []], [[], [], [], []]])
        assert st.view(1).players[0].side_stacks[0].cards == tuple(cards("9C 4H KD"))


def test_fill_option_alone():
    g = SpiteAndMalice({"fill_empty_side_stacks": True})
    st = layout(g, hands=["9S 9S 9H 9H 9C", "9S 9S 9H 9H 9C"], side=[[["QC"], [], [], []], [[], [], [], []]])
    assert not is_legal(st, "play hand:9C -> side:0")
    do(st, "play hand:9C -> side:1")
    assert st.current_seat == 0


def test_may_end_without_discard_option():
    st = layout(book())
    assert "end" in legal(st)
    st2 = layout()
    assert "end" not in legal(st2)


def test_deadlock_hand_ace_two_then_end():
    g = book(deadlock_rule="hand_ace_two_then_end")
    st = layout(g, hands=["9S 9S 9H 9H 9C", "AS 9S 9H 9H 9C"])
    do(st, "end")  # seat 0 passes
    assert legal(st) == ["play hand:AS -> center:new"]
    do(st, "play hand:AS -> center:new")
    assert "end" in legal(st)
    # A full round of passes with nobody holding a playable A/2 ends the game.
    st2 = layout(g, hands=["9S 9S 9H 9H 9C"] * 2)
    do(st2, "end")
    assert "end" in legal(st2)
    do(st2, "end")
    assert st2.is_terminal and st2.outcome().reason is EndReason.STALEMATE


def test_deadlock_hand_ace_two_any_player_must_break_it():
    """§8.12.6 (hand_ace_two_then_end): at a deadlock the game does not end while a player
    holds a hand A or 2 it can play: here seat 0 passed first (nothing compelled it then)
    holding AS; seat 1 passes too, and seat 0 must play the ace."""
    g = book(deadlock_rule="hand_ace_two_then_end")
    st = layout(g, hands=["AS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"])
    assert "end" in legal(st)  # nobody passed before seat 0: no compulsion yet
    do(st, "end")
    assert "end" in legal(st)  # seat 1 holds no A or 2: it may pass
    events = do(st, "end")
    assert not st.is_terminal
    assert [e.seat for e in events if e.kind == "deadlock"] == [0]
    assert st.current_seat == 0 and legal(st) == ["play hand:AS -> center:new"]
    assert st.view(1).consecutive_passes == 2  # still the deadlock until a card moves
    do(st, "play hand:AS -> center:new")
    assert "end" in legal(st)  # then the turn proceeds normally
    do(st, "end")
    assert st.consecutive_passes == 0 and st.current_seat == 1  # play continues from seat 0


def test_deadlock_hand_ace_two_goes_to_the_first_holder_in_turn_order():
    """Three players: the search starts with the seat due to move (seat 1, holding no A
    or 2) and the move goes to the first seat in turn order holding one it can play (seat
    2: its 2D fits the pile of value 1)."""
    g = SpiteAndMalice({"players": 3, "may_end_without_discard": True, "deadlock_rule": "hand_ace_two_then_end"})
    hands = ["9S 9S 9H 9H 9C", "9S 9S 9H 9H 9C", "2D 9S 9H 9H 9C"]
    st = layout(g, hands=hands, center=[pile(1)], consecutive_passes=2)
    do(st, "end")  # the third pass in a row
    assert not st.is_terminal and st.current_seat == 2
    assert legal(st) == ["play hand:2D -> center:0"]
    # Nobody holding one: the deadlock ends the game.
    st2 = layout(g, hands=["9S 9S 9H 9H 9C"] * 3, center=[pile(1)], consecutive_passes=2)
    do(st2, "end")
    assert st2.is_terminal and st2.outcome().reason is EndReason.STALEMATE


def test_deadlock_hand_ace_two_holder_in_a_rebuilt_state():
    """The forward model's rebuilt state of the breaker's turn is compelled alike."""
    g = book(deadlock_rule="hand_ace_two_then_end")
    st = layout(g, hands=["AS 9S 9H 9H 9C", "9S 9S 9H 9H 9C"])
    do(st, "end")
    do(st, "end")
    v = st.view(0)
    rebuilt = g.state_from_view(v, [list(v.hand), st.hands[1]], [st.payoff[s][:st.hidden[s]] for s in range(2)],
                                st.stock, seed=5)
    assert [str(a) for a in rebuilt.legal_actions()] == legal(st) == ["play hand:AS -> center:new"]


def test_book_scores_points_only_with_series_scoring():
    """§8.12.8 / case 21: the book version's deadlock is scored in points only with
    series_scoring; without it the result follows stalemate_rule and nobody has points."""
    payoffs = ["4D 4D 4D 9C", "4D 4D 4D 4D 4D 4D 4D 4D 10C"]
    st = layout(book(), payoffs=payoffs, hands=["9S 9S 9H 9H 9C"] * 2)
    do(st, "end")
    events = do(st, "end")
    assert st.outcome().scores == (0.5, 0.5) and st.outcome().reason is EndReason.STALEMATE
    assert [p.points for p in st.view(0).players] == [0, 0]
    assert not any("points" in e.text for e in events)
    series = layout(book(series_scoring=True, match_target=50), payoffs=payoffs, hands=["9S 9S 9H 9H 9C"] * 2)
    do(series, "end")
    events = do(series, "end")
    assert not series.is_terminal and [p.points for p in series.view(0).players] == [5, 0]  # the next game is dealt
    assert any("points [5, 0]" in e.text for e in events)


def test_deadlock_reshuffles_are_in_the_view_and_a_rebuilt_state_counts_on():
    g = book(deadlock_rule="reshuffle", max_deadlock_reshuffles=1)
    st = layout(g, hands=["9S 9S 9H 9H 9C", "8S 8S 8H 8H 8C"], stock="5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    assert st.view(0).deadlock_reshuffles == 0
    do(st, "end")
    do(st, "end")
    v = st.view(0)
    assert v.deadlock_reshuffles == 1 and st.spectator_view().deadlock_reshuffles == 1
    rebuilt = g.state_from_view(v, [list(v.hand), st.hands[1]], [st.payoff[s][:st.hidden[s]] for s in range(2)],
                                st.stock, seed=5)
    assert rebuilt.view(0) == v
    for s in (st, rebuilt):
        do(s, "end")
        do(s, "end")
        assert s.is_terminal  # the guard is reached in the rebuilt state too


def test_deadlock_reshuffle_then_guard():
    g = book(deadlock_rule="reshuffle", max_deadlock_reshuffles=1)
    st = layout(g, hands=["9S 9S 9H 9H 9C", "8S 8S 8H 8H 8C"], side=[[["10C"], [], [], []], [[], [], [], []]],
                center=[pile(3)], stock="5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    pack = st.all_cards()
    payoffs = [list(p) for p in st.payoff]
    do(st, "end")
    do(st, "end")
    assert not st.is_terminal and st.deadlock_reshuffles == 1 and st.current_seat == 0
    assert st.center == [] and all(not s for slots in st.side for s in slots)
    assert [len(h) for h in st.hands] == [5, 5] and len(st.stock) == 10 + 10 + 4 - 10
    assert st.all_cards() == pack and st.payoff == payoffs
    assert sorted(st.view(0).recycled) == sorted([Card.parse("10C")] + pile(3))
    do(st, "end")
    do(st, "end")
    assert st.is_terminal  # max_deadlock_reshuffles reached: end_game applies


def test_deck_split_book_deal():
    g = book()
    for seed in range(5):
        st = g.new_initial_state(seed)
        assert Counter(st.payoff[0] + st.payoff[1]) == Counter(STANDARD_DECK)  # deck A exactly
        rest = Counter(st.stock) + Counter(st.hands[0]) + Counter(st.hands[1])
        assert rest == Counter(list(STANDARD_DECK) + [JOKER] * 4) and len(st.stock) == 46
    # Without deck_split the same settings mix the packs.
    mixed = SpiteAndMalice({"jokers": 4, "payoff_size": 26})
    assert any(Counter(mixed.new_initial_state(s).payoff[0]).most_common(1)[0][1] > 1
               or JOKER in mixed.new_initial_state(s).payoff[0] for s in range(10))


def test_max_turns_option():
    g = SpiteAndMalice(preset="book", options={"max_turns": 4})
    st = g.new_initial_state(1)
    turns = 0
    while not st.is_terminal:
        acts = st.legal_actions()
        discards = [a for a in acts if "side" in str(a) and "hand" in str(a)]
        st.apply(discards[0] if discards else acts[-1])
        turns = st.turns_played
    assert turns <= 4


def test_stalemate_rule_fewer_payoff_wins_on_stock_exhaustion():
    g = SpiteAndMalice({"stalemate_rule": "fewer_payoff_wins"})
    st = layout(g, payoffs=["4D 4D 4D 9C", "4D 4D 10C"], hands=["8S 8S 8H 8H 8C", "9S 9H"], stock="")
    do(st, "play hand:8C -> side:0")
    assert st.outcome().scores == (0.0, 1.0)


def _rebuilt(g, st, seat: int = 0):
    """The forward model's state of ``st`` from ``seat``'s view, every hidden card as it is."""
    v = st.view(seat)
    return g.state_from_view(v, [list(h) for h in st.hands], [st.payoff[s][:st.hidden[s]] for s in range(g.n)],
                             st.stock, seed=5)


def test_hand_ace_two_compulsion_is_judged_at_the_turn_start_in_a_rebuilt_state_too():
    """§8.12.6: the hand A/2 compulsion holds when the hand card is playable at the start of
    MAIN. Here the 2C in hand is not (no pile of value 1); the compelled pay-off ace then
    starts one. The turn is free, and the forward model's rebuilt state must say so too
    (it compelled the 2C: a search bot's simulated turn differed from the real one)."""
    g = book(deadlock_rule="hand_ace_two_then_end")
    st = layout(g, payoffs=["4D 5D AD", "4D 10C"], hands=["2C 9S 9S 9H 9C", "9S 9S 9H 9H 9C"], consecutive_passes=1)
    assert legal(st) == ["play payoff -> center:new"]  # the ace-and-two compulsion only
    do(st, "play payoff -> center:new")
    assert "end" in legal(st) and "play hand:9S -> side:0" in legal(st)
    assert [str(a) for a in _rebuilt(g, st).legal_actions()] == legal(st)


def test_hand_ace_two_compulsion_lapses_once_it_cannot_be_met():
    """The hand ace is compelled at the turn start (3 piles of 4); the compelled pay-off ace,
    played first, fills the fourth place, so the hand ace cannot be played: the compulsion
    lapses and the turn proceeds normally, also after a pile completes and frees a place
    (it came back then, which no view could tell: the rebuilt state disagreed)."""
    g = book(deadlock_rule="hand_ace_two_then_end", center_limit=4)
    st = layout(g, payoffs=["4D 5D AD", "4D 10C"], hands=["AS KC 9S 9H 9C", "9S 9S 9H 9H 9C"],
                center=[pile(12), pile(5), pile(5)], consecutive_passes=1)
    assert sorted(legal(st)) == ["play hand:AS -> center:new", "play payoff -> center:new"]
    do(st, "play payoff -> center:new")
    assert "end" in legal(st)
    assert [str(a) for a in _rebuilt(g, st).legal_actions()] == legal(st)
    do(st, "play hand:KC -> center:0")  # completes: 3 piles again
    assert "end" in legal(st) and "play hand:AS -> center:new" in legal(st)
    assert [str(a) for a in _rebuilt(g, st).legal_actions()] == legal(st)


def test_descending_side_stack_refusals_name_what_the_stack_takes():
    """A refused discard onto a descending side stack says which ranks the stack takes,
    and, under a wild top, what that top stands for: 'equal to or one lower than its top'
    read against a JK top told nothing, and a joker refused on a bare ace was told the
    same, where the reason is that a wild card may not stand for an ace there."""
    st = layout(book(), hands=["10C 5C JK 9S 9S", "9S 9S 9H 9H 9C"],
                side=[[["9D", "JK", "JK"], ["AC"], ["7D"], []], [[], [], [], []]])
    with pytest.raises(IllegalActionError, match=r"side:0 takes a 6 to 9 now .*its top, JK, which stands for 7 to 9; descending"):
        do(st, "play hand:10C -> side:0")
    with pytest.raises(IllegalActionError, match=r"side:2 takes a 6 or 7 now .*its top 7D.*descending"):
        do(st, "play hand:9S -> side:2")
    with pytest.raises(IllegalActionError, match=r"JK on side:1 would stand for an A .*may not stand for"):
        do(st, "play hand:JK -> side:1")
    with pytest.raises(IllegalActionError, match=r"side:1 takes an A now \(equal to or one lower than its top AC;"):
        do(st, "play hand:5C -> side:1")


def test_the_turn_limit_ends_a_game_as_a_stalemate_under_stalemate_rule_as_documented():
    """max_turns ends a game as a stalemate (rules §4.2), so stalemate_rule decides its result:
    the option's own text (arbiter rules spite-and-malice) named only the stock running out
    and a deadlock, and read as if a game cut off by the turn limit were always drawn."""
    g = SpiteAndMalice({"stalemate_rule": "fewer_payoff_wins", "max_turns": 1})
    st = layout(g, payoffs=["3D 9C", "4D 4D 10C"], hands=["8S 8S 8H 8H 8C", "8S 8S 8H 8H 8C"])
    do(st, "play hand:8S -> side:0")
    assert st.is_terminal and st.outcome().reason is EndReason.TURN_LIMIT
    assert st.outcome().scores == (1.0, 0.0)
    text = field_docs(type(g.options))["stalemate_rule"]
    assert "turn limit" in text and "max_turns" in text


def test_a_load_onto_a_seat_that_does_not_exist_says_so():
    """'load hand:9H -> payoff:7' in a two-seat game was told 'you may load only an
    opponent's pay-off pile', as if seat 7 were a partner: it names the seats there are."""
    g = SpiteAndMalice({"loading": True})
    st = layout(g, payoffs=["3D 8H", "4D 9H"], hands=["9H 8S 8S 8H 8C", "8S 8S 8H 8H 8C"])
    with pytest.raises(IllegalActionError, match=r"there is no seat 7 \(seats 0 to 1\)"):
        do(st, "load hand:9H -> payoff:7")
    with pytest.raises(IllegalActionError, match="your own pay-off pile: you may load only an opponent's"):
        do(st, "load hand:9H -> payoff:0")


def test_end_refused_names_the_option_that_allows_it():
    """'end' outside the book rules was refused as 'not allowed (book rule)', which reads as
    if the book rules forbade it; they are what allow it (may_end_without_discard)."""
    st = layout(SpiteAndMalice(preset="massachusetts"))
    with pytest.raises(IllegalActionError, match=r"end: .*a discard to a side stack ends the turn here; 'end' is "
                                                  r"played only with may_end_without_discard \(the book rules\)"):
        do(st, "end")
