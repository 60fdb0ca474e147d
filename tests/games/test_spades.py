"""Spades engine (cardarena/games/spades.py): rules §9 conformance cases, options, flow.

Deals are written in card notation; ``deal({0: "AS 2H ..."})`` fills the unnamed cards
into the other hands in deck order. Unless stated, the dealer is seat 3 (seat 0 bids
and leads first).
"""

from __future__ import annotations

import random

import pytest

from cardarena.games import ConfigError, EndReason, IllegalActionError, InvalidActionError, get_game
from cardarena.games.cards import STANDARD_DECK, Card, parse_cards
from cardarena.games.spades import Bid, Give, Look, Phase, Play, Spades, SpadesState

ALL_SPADES = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"
ALL_HEARTS = "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H"
ALL_DIAMONDS = "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D"
ALL_CLUBS = "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"
SUITED = [ALL_SPADES, ALL_HEARTS, ALL_DIAMONDS, ALL_CLUBS]  # seat i holds one suit


def C(text: str) -> Card:
    return Card.parse(text)


def deal(fixed: dict[int, str]) -> list[tuple[Card, ...]]:
    """Four 13-card hands: the given cards, the rest of the deck filled in order."""
    hands = {s: list(parse_cards(t)) for s, t in fixed.items()}
    used = {c for h in hands.values() for c in h}
    rest = [c for c in STANDARD_DECK if c not in used]
    out = []
    for s in range(4):
        h = hands.get(s, [])
        while len(h) < 13:
            h.append(rest.pop(0))
        out.append(tuple(h))
    assert not rest
    return out


def state(hands, options=None, dealer=3, scores=(0, 0), bags=(0, 0)) -> SpadesState:
    game = Spades(options or {})
    return game.state_from_deal(hands, dealer=dealer, scores=scores, bags=bags)


def act(st: SpadesState, *texts: str) -> None:
    for t in texts:
        st.apply(st.game.parse_action(t))


def bid_all(st: SpadesState, *bids: str) -> None:
    """Bid in turn order ("3", "nil", "blind_nil"), looking first where needed."""
    for b in bids:
        if b != "blind_nil" and Look() in st.legal_actions():
            act(st, "look")
        act(st, f"bid {b}")


def legal_texts(st: SpadesState) -> list[str]:
    return [str(a) for a in st.legal_actions()]


def play_out(st: SpadesState, rng: random.Random | None = None) -> None:
    """Play the current deal to its end with random legal cards."""
    rng = rng or random.Random(0)
    deal_no = st.deal_no
    while not st.is_terminal and st.deal_no == deal_no:
        st.apply(rng.choice(st.legal_actions()))


# ---- §9 conformance cases 1-12 ----------------------------------------------------------


def case1_state():
    st = state(deal({0: "AS 2H 3H 4H 5H 6H 2C 3C 4C 5C 6C 7C 8C"}))
    bid_all(st, "3", "3", "3", "3")
    assert st.phase is Phase.PLAY and st.current_seat == 0
    return st


def test_case1_spade_lead_before_broken_is_illegal():
    st = case1_state()
    with pytest.raises(IllegalActionError, match="spades are not broken"):
        act(st, "play AS")
    assert st.current_seat == 0 and len(st.hands[0]) == 13


def test_case2_heart_lead_is_legal():
    st = case1_state()
    assert "play 2H" in legal_texts(st)
    act(st, "play 2H")
    assert st.trick == [(0, C("2H"))]


def test_case3_only_spades_may_lead_spade_and_breaks_spades():
    st = state(deal({0: ALL_SPADES}))
    bid_all(st, "5", "2", "2", "2")
    assert legal_texts(st) == [f"play {c}" for c in ALL_SPADES.split()]
    assert not st.spades_broken
    act(st, "play 3S")
    assert st.spades_broken and st.view(1).spades_broken


def test_case4_must_follow_suit():
    st = state(deal({0: "5D 2H 3H 4H 5H 6H 7H 8H 9H 2C 3C 4C 5C", 1: "9D AS KH QH JH 10H 6C 7C 8C 9C 10C JC QC"}))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play 5D")
    with pytest.raises(IllegalActionError, match="must follow suit"):
        act(st, "play AS")
    assert legal_texts(st) == ["play 9D"]


def test_case5_void_may_trump_or_discard():
    st = state(deal({0: "5D 4D 3D 2D", 1: "2S KH QH JH 10H 9H 8H 7H 6H 2C 3C 4C 5C"}))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play 5D")
    legal = legal_texts(st)
    assert "play 2S" in legal and "play KH" in legal and len(legal) == 13
    trump = st.clone()
    act(trump, "play 2S")
    act(st, "play KH")


def test_case6_lowest_spade_beats_led_suit():
    st = state(deal({0: "10H 2C", 1: "JH 3C", 2: "2S KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D", 3: "AH 4C"}))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play 10H", "play JH", "play 2S", "play AH")
    assert st.tricks_won == [0, 0, 1, 0]
    assert st.current_seat == 2 and st.view(0).leader == 2
    assert st.view(0).tricks[0].winner == 2


def test_case7_off_suit_never_wins():
    st = state(deal({0: "10H 2C", 1: "QC AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D", 2: "KH 3C", 3: "3H 4C"}))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play 10H", "play QC", "play KH", "play 3H")
    assert st.tricks_won == [0, 0, 1, 0] and st.current_seat == 2


def test_case8_spades_broken_by_a_trump_allow_spade_lead():
    st = state(deal({
        0: "AH 4C",
        1: "2H 5H 6H 7H 8H 9H 4S KS 2D 3D 4D 5D 6D",
        2: "3H 5C",
        3: "4H 6C",
    }))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play AH", "play 2H", "play 3H", "play 4H")  # trick 1: seat 0
    act(st, "play 4C", "play 4S", "play 5C", "play 6C")  # trick 2: seat 1 trumps
    assert st.spades_broken and st.current_seat == 1
    assert "play KS" in legal_texts(st)
    act(st, "play KS")


def test_case8_without_the_trump_spade_lead_stays_illegal():
    st = state(deal({
        0: "AH 4C",
        1: "2H 5H 6H 7H 8H 9H 4S KS 2D 3D 4D 5D 6D",
        2: "3H 5C",
        3: "4H 6C",
    }))
    bid_all(st, "3", "3", "3", "3")
    act(st, "play AH", "play 2H", "play 3H", "play 4H")
    act(st, "play 4C", "play 2D", "play 5C", "play 6C")  # seat 1 discards instead
    assert not st.spades_broken and st.current_seat == 3
    assert all(C(t[5:]).suit.name != "S" for t in legal_texts(st))


def looked_seat1():
    st = state(deal({}))
    bid_all(st, "3")
    act(st, "look")
    assert st.current_seat == 1
    return st


def test_case9_bid_14_and_blind_nil_after_look_are_illegal():
    st = looked_seat1()
    for text in ("bid 14", "bid blind_nil", "look"):
        with pytest.raises(IllegalActionError):
            act(st, text)
    assert st.current_seat == 1 and st.bids[1] is None


def test_case10_nil_zero_and_13_are_legal():
    st = looked_seat1()
    legal = legal_texts(st)
    assert legal == ["bid nil"] + [f"bid {n}" for n in range(1, 14)]
    assert st.game.parse_action("bid 0") == Bid(0) == st.game.parse_action("bid nil")
    for text in ("bid nil", "bid 0", "bid 13"):
        c = st.clone()
        act(c, text)
        assert c.bids[1] == (0 if text != "bid 13" else 13) and not c.blind[1]


def test_case11_min_deficit_not_met_no_blind_nil():
    st = state(deal({}), {"blind_nil_min_deficit": 100}, scores=(300, 390))
    assert st.current_seat == 0
    legal = legal_texts(st)
    assert "bid blind_nil" not in legal
    # Resolution of §9 case 11 vs §3.1/§3.2: blind nil impossible => no look offered;
    # the seat sees its hand and bids at once.
    assert legal == ["bid nil"] + [f"bid {n}" for n in range(1, 14)]
    assert st.view(0).hand_visible and st.view(0).seats[0].looked
    with pytest.raises(IllegalActionError):
        act(st, "bid blind_nil")


def test_case11_min_deficit_met_blind_nil_offered():
    st = state(deal({}), {"blind_nil_min_deficit": 100}, scores=(290, 390))
    assert legal_texts(st) == ["look", "bid blind_nil"]
    assert not st.view(0).hand_visible and st.view(0).hand == ()
    # The leading side never may: seat 1 sees its hand from the deal.
    assert st.view(1).hand_visible and not st.view(2).hand_visible


def test_case12_partner_gives_first_then_blind_bidder_gives_from_15():
    st = state(deal({0: "2C 3D"}))
    bid_all(st, "3", "3", "blind_nil", "3")
    assert st.phase is Phase.EXCHANGE and st.current_seat == 0
    assert not st.view(2).hand_visible
    assert st.game.parse_action("give 2C 3D") in st.legal_actions()
    act(st, "give 2C 3D")
    assert st.current_seat == 2
    v2 = st.view(2)
    assert v2.hand_visible and len(v2.hand) == 15 and {C("2C"), C("3D")} <= set(v2.hand)
    legal = st.legal_actions()
    assert len(legal) == 15 * 14 // 2 and all(isinstance(a, Give) for a in legal)
    assert st.view(0).seats[0].hand_count == 11 and st.view(1).seats[2].hand_count == 15
    act(st, "give 2C 3D")  # it may hand the same cards back
    assert st.phase is Phase.PLAY and [len(h) for h in st.hands] == [13] * 4
    assert st.current_seat == 0


def test_case12_give_of_cards_not_held_is_illegal():
    st = state(deal({0: "2C 3D"}))
    bid_all(st, "3", "3", "blind_nil", "3")
    with pytest.raises(IllegalActionError, match="two cards you hold"):
        act(st, "give 2C KD")
    assert st.current_seat == 0 and len(st.hands[0]) == 13


def test_a_refused_give_names_the_card_not_held():
    st = state(deal({0: "2C 3D"}))
    bid_all(st, "3", "3", "blind_nil", "3")
    held = st.hands[0][0]
    other = next(c for c in STANDARD_DECK if c not in st.hands[0] and c != C("4H"))
    with pytest.raises(IllegalActionError, match=f"you must give two cards you hold: seat 0 holds neither 4H nor {other}"):
        st.apply(Give((C("4H"), other)))
    with pytest.raises(IllegalActionError, match="you must give two cards you hold: seat 0 does not hold 4H"):
        st.apply(Give((held, C("4H"))))


def test_case12_a_give_is_legal_exactly_when_it_is_two_held_cards():
    """The gives are every pair of the hand's cards, in hand order (the order is part of
    the record: attempt 95 builds them another way), and apply takes exactly those: for
    every pair of the deck (gives made afresh, not the engine's objects) and one card
    twice, legal iff in legal_actions()."""
    st = state(deal({0: "2C 3D"}))
    bid_all(st, "3", "3", "blind_nil", "3")
    hand = st.hands[0]
    legal = st.legal_actions()
    assert [g.cards for g in legal] == [(a, b) for i, a in enumerate(hand) for b in hand[i + 1 :]]
    pairs = [(a, b) for i, a in enumerate(STANDARD_DECK) for b in STANDARD_DECK[i:]]  # (a, a) too
    for a, b in pairs:
        give, trial = Give((a, b)), st.clone()
        if give in legal:
            trial.apply(give)
            assert trial.hands[0] == [c for c in hand if c not in (a, b)]
        else:
            with pytest.raises(IllegalActionError, match="two cards you hold"):
                trial.apply(give)
    assert sum(Give(p) in legal for p in pairs) == len(legal) == 13 * 12 // 2


def test_the_ended_games_seat_views_keep_the_exchanged_cards_between_the_partners():
    """A seat's view of the ended game is what it is told at the end of a match whose deal
    comes back (cardarena.disclosure.final_view: a running duplicate tournament, an arena
    encounter), said to show nothing it could not see anyway. The cards one side exchanged
    for a blind nil are seen by its two partners only (SpadesExchange.cards: "always empty
    for everyone else"), and the hands as dealt (``record``) would tell them too: only the
    spectator's view of the ended game, the whole deal, shows them."""
    st = state(deal({0: "2C 3D"}), {"deals": 1})
    bid_all(st, "3", "3", "blind_nil", "3")
    first = next(a for a in st.legal_actions() if set(a.cards) == {C("2C"), C("3D")})
    st.apply(first)
    back = st.legal_actions()[-1]
    st.apply(back)
    given = [first.cards, back.cards]
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    whole = st.spectator_view()
    assert [x.cards for x in whole.exchanges] == given and len(whole.record) == 1
    for seat in (0, 2):  # the partners who exchanged them
        assert [x.cards for x in st.view(seat).exchanges] == given
    for seat in (1, 3):  # their opponents
        view = st.view(seat)
        assert [x.cards for x in view.exchanges] == [(), ()] and [x.done for x in view.exchanges] == [True, True]
    for seat in range(4):
        assert st.view(seat).record == (), f"seat {seat} is shown every hand as dealt"


# ---- cases 13-20 end to end: seat i holds one whole suit ---------------------------------
# Seat 0 (all spades) leads every trick and wins all 13, whatever the others play.


def suited(options=None, scores=(0, 0), bags=(0, 0)) -> SpadesState:
    return state([parse_cards(h) for h in SUITED], options, scores=scores, bags=bags)


def test_full_deal_scoring_and_next_deal():
    st = suited()
    bid_all(st, "5", "3", "nil", "nil")
    play_out(st)
    assert st.history[0].tricks_won == (13, 0, 0, 0)
    # A: contract 5, took 13: 50 + 8, nil made +100. B: set -30, nil made +100.
    assert (st.scores, st.bags) == ([158, 70], [8, 0])
    assert st.deal_no == 2 and st.dealer == 0 and st.current_seat == 1  # deal passes left
    assert st.phase is Phase.BIDDING and not st.spades_broken and st.tricks == []


def test_the_score_events_say_what_nil_bidders_took():
    """The public score line said 'contract 2, took 0, -107 points, 13 bags' of a side that
    took all 13 tricks (its nil bidder did), and 'contract 0, took 0' of two nil bidders
    who took 13: the nil bidders' tricks, the bags, were nowhere."""
    st = suited()
    bid_all(st, "nil", "3", "2", "nil")
    play_out(st)
    assert [e.text for e in st.log if e.kind == "score"] == [
        "side A (seats 0,2): contract 2, took 0; its nil bidder took 13; -107 points, 13 bags, 1 bag penalty; "
        "total -207, bags 3",
        "side B (seats 1,3): contract 3, took 0; its nil bidder took 0; +70 points, 0 bags; total 70, bags 0",
    ]
    st = suited()
    bid_all(st, "nil", "3", "nil", "1")
    play_out(st)
    assert [e.text for e in st.log if e.kind == "score"][0] == (
        "side A (seats 0,2): no contract; its nil bidders took 13; +13 points, 13 bags, 1 bag penalty; "
        "total -87, bags 3")
    st = suited({"failed_nil_tricks": "count_for_partner"})
    bid_all(st, "nil", "3", "2", "nil")
    play_out(st)
    assert [e.text for e in st.log if e.kind == "score"][0] == (
        "side A (seats 0,2): contract 2, took 13 (its nil bidder's 13 counted); -69 points, 11 bags, 1 bag penalty; "
        "total -169, bags 1")


@pytest.mark.parametrize(
    "options, score, bags",
    [
        ({}, -207, 3),  # -100 nil, -20 set, +13 bags -> 13 bags -> -100, 3 left
        ({"failed_nil_tricks": "ignored"}, -120, 0),
        ({"failed_nil_tricks": "count_for_partner"}, -169, 1),  # 20 + 11 - 100, 11 bags
        ({"bag_penalty": False}, -107, 13),
        ({"bag_limit": 20}, -107, 13),
        ({"bag_penalty_points": 50}, -157, 3),
        ({"nil_value": 50}, -157, 3),
    ],
)
def test_scoring_options_reach_the_engine(options, score, bags):
    st = suited(options)
    bid_all(st, "nil", "3", "2", "3")  # seat 0 bids nil but must take all 13 tricks
    play_out(st)
    assert (st.scores[0], st.bags[0]) == (score, bags)


@pytest.mark.parametrize("options, points", [({}, 400), ({"blind_nil_value": 100}, 200)])
def test_blind_nil_value_reaches_the_engine(options, points):
    st = suited(options)
    bid_all(st, "13", "blind_nil", "nil", "blind_nil")  # both B blind: no exchange
    assert st.phase is Phase.PLAY
    play_out(st)
    assert st.scores == [230, points]


def test_case19_higher_total_wins_when_both_reach_target():
    st = suited(scores=(480, 300))
    bid_all(st, "13", "blind_nil", "nil", "blind_nil")  # A +230 -> 710, B +400 -> 700
    play_out(st)
    assert st.is_terminal and st.scores == [710, 700]
    out = st.outcome()
    assert out.ranks == (1, 2, 1, 2) and out.reason is EndReason.COMPLETED
    assert out.scores == (710, 700, 710, 700)


def test_simultaneous_target_rule_higher_deal_score():
    st = suited({"simultaneous_target_rule": "higher_deal_score"}, scores=(480, 300))
    bid_all(st, "13", "blind_nil", "nil", "blind_nil")
    play_out(st)
    assert st.is_terminal and st.outcome().ranks == (2, 1, 2, 1)  # B gained 400 > 230


def test_case20_equal_totals_over_target_play_on_dealer_passes_left():
    st = suited(scores=(280, 310))
    bid_all(st, "13", "nil", "nil", "nil")  # A +230 -> 510, B +200 -> 510
    play_out(st)
    assert st.scores == [510, 510] and not st.is_terminal
    assert st.deal_no == 2 and st.dealer == 0


def test_target_option():
    st = suited({"target": 200})
    bid_all(st, "13", "nil", "nil", "nil")
    play_out(st)
    assert st.is_terminal and st.outcome().ranks == (1, 2, 1, 2)
    st = suited()
    bid_all(st, "13", "nil", "nil", "nil")
    play_out(st)
    assert not st.is_terminal


def test_lose_at_option():
    for options, over in (({"lose_at": -200}, True), ({}, False)):
        st = suited(options, scores=(0, -100))
        bid_all(st, "13", "5", "nil", "5")  # B set on 10: -100 -> -200
        play_out(st)
        assert st.scores[1] == -200 and st.is_terminal is over
        if over:
            assert st.outcome().ranks == (1, 2, 1, 2)


def test_deals_option_ends_after_exactly_n_deals_and_draw_on_equal():
    st = suited({"deals": 1}, scores=(0, 260))
    bid_all(st, "10", "7", "3", "6")  # A +130, B -130 -> 130 each
    play_out(st)
    out = st.outcome()
    assert st.is_terminal and out.ranks == (1, 1, 1, 1) and out.reason is EndReason.COMPLETED
    game = get_game("spades", {"deals": 3, "target": 1})  # the target is ignored
    st = game.new_initial_state(5)
    play_out(st, random.Random(1))
    assert not st.is_terminal
    rng = random.Random(2)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    assert st.deal_no == 3 and st.outcome().reason is EndReason.COMPLETED


def test_max_deals_guard():
    game = get_game("spades", {"max_deals": 2})
    st = game.new_initial_state(3)
    rng = random.Random(3)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    assert st.deal_no == 2 and st.outcome().reason is EndReason.TURN_LIMIT
    a, b = st.scores
    assert st.outcome().ranks == ((1, 1, 1, 1) if a == b else (1, 2, 1, 2) if a > b else (2, 1, 2, 1))


def test_first_dealer_option():
    game = get_game("spades", {"first_dealer": 2})
    st = game.new_initial_state(0)
    assert st.dealer == 2 and st.current_seat == 3
    dealers = {get_game("spades").new_initial_state(seed).dealer for seed in range(30)}
    assert dealers == {0, 1, 2, 3}


def test_nil_option_off():
    st = state(deal({}), {"nil": False})
    act(st, "look")
    assert legal_texts(st) == [f"bid {n}" for n in range(1, 14)]
    with pytest.raises(IllegalActionError, match="nil"):
        act(st, "bid nil")


def test_blind_nil_option_off_every_seat_sees_at_once():
    st = state(deal({}), {"blind_nil": False})
    assert all(st.view(s).hand_visible and len(st.view(s).hand) == 13 for s in range(4))
    assert "look" not in legal_texts(st) and "bid blind_nil" not in legal_texts(st)


@pytest.mark.parametrize("options, scores, why", [
    ({"blind_nil": False}, (0, 0), r"option blind_nil is off"),
    ({"blind_nil_min_deficit": 100}, (300, 390), r"trail by at least 100 .* side A trails by 90"),
    ({"blind_nil_min_deficit": 100}, (390, 300), r"trail by at least 100 .* side A leads by 90"),
])
def test_refused_blind_nil_and_look_say_why_blind_nil_is_not_possible(options, scores, why):
    """A seat that never could bid blind nil in this deal was told "blind nil is only
    possible before looking at the hand" (it never chose to look: it was shown its cards)
    and "already looked, or blind nil is not possible": the reason is the option, or the
    side's deficit at the start of the deal (§7), both public."""
    st = state(deal({}), options, scores=scores)
    for text in ("bid blind_nil", "look"):
        with pytest.raises(IllegalActionError, match=why):
            act(st, text)


def test_refused_blind_nil_and_look_after_looking_say_so():
    st = state(deal({}))
    act(st, "look")
    with pytest.raises(IllegalActionError, match="only possible before looking at the hand, and seat 0 has looked"):
        act(st, "bid blind_nil")
    with pytest.raises(IllegalActionError, match="seat 0 has already looked at its hand"):
        act(st, "look")


def test_blind_nil_exchange_off_goes_to_play():
    st = state(deal({}), {"blind_nil_exchange": False})
    bid_all(st, "3", "3", "blind_nil", "3")
    assert st.phase is Phase.PLAY and st.exchanges == []
    assert st.view(2).hand_visible  # the blind bidder sees its cards at the start of play


def test_exchange_order_bidder_first():
    st = state(deal({2: "2C 3D"}), {"blind_nil_exchange_order": "bidder_first"})
    bid_all(st, "3", "3", "blind_nil", "3")
    assert st.phase is Phase.EXCHANGE and st.current_seat == 2
    assert st.view(2).hand_visible and len(st.view(2).hand) == 13
    act(st, "give 3D 2C")
    assert st.current_seat == 0 and len(st.hands[0]) == 15
    assert len(st.legal_actions()) == 105
    act(st, "give 2C 3D")
    assert st.phase is Phase.PLAY and [len(h) for h in st.hands] == [13] * 4


def test_both_partners_blind_nil_no_exchange():
    st = state(deal({}))
    bid_all(st, "blind_nil", "3", "blind_nil", "3")
    assert st.phase is Phase.PLAY and st.exchanges == []
    assert st.view(0).hand_visible and st.view(2).hand_visible


def test_two_exchanges_in_order_of_the_blind_bids():
    st = state(deal({}))
    bid_all(st, "3", "blind_nil", "blind_nil", "3")  # seat 1 (side B) bid blind first
    assert [x[:2] for x in st.exchanges] == [[3, 1], [1, 3], [0, 2], [2, 0]]
    order = []
    while st.phase is Phase.EXCHANGE:
        order.append(st.current_seat)
        if st.current_seat in (3, 1):
            assert not st.view(2).hand_visible  # side A's blind bidder still blind
        st.apply(st.legal_actions()[0])
    assert order == [3, 1, 0, 2]


def test_look_is_public_and_same_seat_bids_again():
    st = state(deal({}))
    assert not st.view(0).hand_visible and st.view(0).hand == ()
    events = st.apply(Look())
    assert st.current_seat == 0 and st.view(0).hand_visible and len(st.view(0).hand) == 13
    assert st.view(1).seats[0].looked
    public = [e for e in events if e.visible_to is None]
    assert [e.kind for e in public] == ["look"] and public[0].cards == ()
    private = [e for e in events if e.visible_to is not None]
    assert len(private) == 1 and private[0].visible_to == {0} and len(private[0].cards) == 13


def test_blind_nil_bidder_sees_cards_at_start_of_play_without_exchange():
    st = state(deal({}), {"blind_nil_exchange": False})
    bid_all(st, "blind_nil")
    assert not st.view(0).hand_visible and st.view(0).seats[0].blind_nil
    bid_all(st, "1", "1", "1")
    assert st.view(0).hand_visible


# ---- same seed, same deals ----------------------------------------------------------------


def test_deals_depend_only_on_seed_and_deal_number():
    game = get_game("spades", {"max_deals": 4})
    dealt = []
    for play_seed in (1, 2):
        st = game.new_initial_state(42)
        rng = random.Random(play_seed)
        seen = {}
        while not st.is_terminal:
            seen[st.deal_no] = st.dealt
            st.apply(rng.choice(st.legal_actions()))
        dealt.append(seen)
    assert dealt[0] == dealt[1] and len(dealt[0]) == 4
    assert len({d for d in dealt[0].values()}) == 4  # a fresh shuffle each deal


def test_deal_one_card_at_a_time_from_dealers_left():
    st = get_game("spades", {"first_dealer": 1}).new_initial_state(9)
    deck = list(STANDARD_DECK)
    random.Random("9:deal:1").shuffle(deck)
    assert set(st.hands[2]) == set(deck[0::4]) and set(st.hands[1]) == set(deck[3::4])


# ---- notation ------------------------------------------------------------------------------


def test_notation_round_trip_and_aliases():
    game = Spades()
    for text, action in [
        ("look", Look()),
        ("bid 4", Bid(4)),
        ("bid nil", Bid(0)),
        ("BID 0", Bid(0)),
        ("bid blind_nil", Bid(0, True)),
        ("give 2C 3D", Give((C("2C"), C("3D")))),
        ("give 3d 2c", Give((C("2C"), C("3D")))),
        ("play QS", Play(C("QS"))),
        ("play th", Play(C("10H"))),
    ]:
        assert game.parse_action(text) == action
        assert game.parse_action(str(action)) == action
    assert str(Bid(0, True)) == "bid blind_nil" and str(Bid(0)) == "bid nil" and str(Play(C("10H"))) == "play 10H"


@pytest.mark.parametrize("dealer", [4, -1, 7])
def test_state_from_deal_refuses_a_dealer_that_is_no_seat(dealer):
    """With dealer=4 the bidding, which ends after the dealer's bid, never ended: the four
    seats bid round and round, each bid overwriting the last."""
    with pytest.raises(ValueError, match=f"dealer must be a seat 0-3, got {dealer}"):
        Spades().state_from_deal(SUITED, dealer=dealer)


@pytest.mark.parametrize("text", ["give [2C 3D]", "give [2C, 3D]", "give 2C,3D", "give [3d 2c]"])
def test_a_give_may_write_its_cards_as_a_list(text):
    """Rules README §2: lists of cards are written in square brackets or space-separated
    (``meld [7S 7H 7D]``); ``give [2C 3D]`` was refused as "unknown card '[2C'"."""
    assert Spades().parse_action(text) == Give((C("2C"), C("3D")))


@pytest.mark.parametrize("text", ["", "jump", "look now", "bid", "bid -1", "bid x", "give 2C", "give 2C 2C",
                                  "give 2C 3D 4H", "play", "play 1S", "play QS KS", "play JK", "give JK 2C"])
def test_malformed_actions(text):
    with pytest.raises(InvalidActionError):
        Spades().parse_action(text)


@pytest.mark.parametrize("text", ["bid \u00b2", "bid \u0661\u0662", "bid 1\u00b3", "bid " + "9" * 5000])
def test_a_bid_is_written_in_ascii_digits_of_sane_length(text):
    """``str.isdigit`` also passes superscripts ('²', which ``int`` refuses with a bare
    ValueError: the wire and the person table catch only GameError) and other scripts'
    digits ('١٢', read as 12 though the notation writes ASCII); ``int`` refuses more than
    4,300 digits. Each is a malformed action, said by name."""
    with pytest.raises(InvalidActionError, match="the bid must be a number"):
        Spades().parse_action(text)


def test_bad_action_values():
    with pytest.raises(ValueError):
        Bid(3, True)


# ---- options validation ------------------------------------------------------------------------


@pytest.mark.parametrize("options, name", [
    ({"target": 0}, "target"),
    ({"bag_limit": 0}, "bag_limit"),
    ({"nil_value": -1}, "nil_value"),
    ({"blind_nil_min_deficit": -5}, "blind_nil_min_deficit"),
    ({"lose_at": 500}, "lose_at"),
    ({"first_dealer": 4}, "first_dealer"),
    ({"first_dealer": "north"}, "first_dealer"),
    ({"max_deals": 0}, "max_deals"),
    ({"deals": 0}, "deals"),
    ({"failed_nil_tricks": "double"}, "failed_nil_tricks"),
    ({"bogus": 1}, "bogus"),
])
def test_option_validation(options, name):
    with pytest.raises(ConfigError, match=name):
        Spades(options)


def test_options_from_text():
    g = Spades({"lose_at": "-200", "first_dealer": "random", "deals": "off", "blind_nil_exchange_order": "bidder_first"})
    assert g.options.lose_at == -200 and g.options.first_dealer == "random" and g.options.deals is None
    assert Spades({"first_dealer": "2"}).options.first_dealer == 2
    assert Spades().describe_options()["blind_nil_exchange_order"] == "partner_first"


def test_the_rules_summary_says_what_a_nil_bidder_s_tricks_count_for():
    """``arbiter rules spades`` said a made contract scores "1 per overtrick (a bag)" and
    nothing of a nil bidder's tricks, so a reader pooled them with the partner's (they do
    not count for the contract: each is a bag, §4.1), and promised an exchange after any
    blind nil (none when both partners bid it, §3.3)."""
    summary = " ".join(Spades.rules_summary.split())
    assert "A nil bidder's tricks do not count towards its partner's contract" in summary
    assert "unless both partners bid blind nil" in summary


@pytest.mark.parametrize("options", [{"nil": False, "blind_nil": False}, {"nil_value": 0, "blind_nil_value": 10}])
def test_margin_bounds_hold_a_set_contract_of_26(options):
    """A side's two seats may bid 13 each: set, that is -260 in one deal, while the other
    side makes 13 for +130. margin_bounds took a side's worst deal for minus its best
    (max(130, v + 130, 2v)), 130 with nil off, so the margin -390 lay outside the bounds
    the betting test of ``arbiter evaluate`` relies on (it clips a margin outside them)."""
    options = {**options, "deals": 1}
    hands = [ALL_HEARTS, ALL_SPADES, ALL_DIAMONDS, ALL_CLUBS]  # seat 1 trumps, then leads, every trick
    st = state([parse_cards(h) for h in hands], options)
    bid_all(st, "13", "6", "13", "7")
    play_out(st)
    assert st.is_terminal and st.scores == [-260, 130]
    lo, hi = st.game.margin_bounds()
    assert lo <= st.scores[0] - st.scores[1] and st.scores[1] - st.scores[0] <= hi


def test_registry_and_teams():
    g = get_game("spades")
    assert isinstance(g, Spades) and g.num_seats == 4 and g.teams == ((0, 2), (1, 3))


def test_illegal_action_leaves_state_unchanged_and_game_over_rejects():
    st = suited({"deals": 1})
    bid_all(st, "3", "3", "3", "3")
    before = [st.view(s) for s in range(4)]
    for text in ("bid 3", "look", "give 2H 3H", "play 2H"):  # seat 0 holds spades only
        with pytest.raises(IllegalActionError):
            act(st, text)
    assert [st.view(s) for s in range(4)] == before
    play_out(st)
    assert st.is_terminal and st.legal_actions() == [] and st.current_seat is None
    with pytest.raises(IllegalActionError, match="over"):
        act(st, "play 2S")
