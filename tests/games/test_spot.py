"""Spot engine: the conformance cases of docs/rules/spot.md §8, its worked examples (§4.4),
every option of §6 and the edge cases of §7.

Property tests (random playouts, hidden information) are in test_spot_properties.py;
the generic conformance suite, run for every game, in test_conformance.py.
"""

from __future__ import annotations

import itertools
import random

import pytest

from cardarena.games import ConfigError, EndReason, IllegalActionError, InvalidActionError, get_game
from cardarena.games.cards import Card, parse_cards
from cardarena.games.spot import DRAW_DISCARD, DRAW_STOCK, Discard, Draw, DrawSource, HandEnd, LayOff, Meld, MeldKind, Phase, Spot, settle_hand


def C(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def c(token: str) -> Card:
    return Card.parse(token)


def game(**options) -> Spot:
    return get_game("spot", options)


def act(state, *texts: str) -> list:
    """Apply actions written in notation; returns all events."""
    events = []
    for t in texts:
        events += state.apply(state.game.parse_action(t))
    return events


def legal_text(state) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def assert_illegal(state, text: str, reason: str = "") -> None:
    """``text`` is rejected (naming the action and ``reason``), not listed, state unchanged."""
    before = [state.view(s) for s in range(state.game.num_seats)]
    with pytest.raises(IllegalActionError) as info:
        act(state, text)
    assert str(info.value).startswith(str(state.game.parse_action(text)) + ":")
    assert reason in str(info.value)
    assert text.lower() not in {t.lower() for t in legal_text(state)}
    assert [state.view(s) for s in range(state.game.num_seats)] == before


FILLER = object()  # stand-in: "the stock is the top given, then 12 unused cards"


def deal(g, hands, stock, **kw):
    """``g.state_from_deal`` where ``stock`` may be ``("<top cards>", FILLER)``-like:
    a tuple (top, FILLER) adds 12 cards no hand, meld or pile uses."""
    if isinstance(stock, tuple):
        top, _ = stock
        used = set(C(" ".join(hands) + " " + top + " " + kw.get("discard_pile", "")))
        for _, m in kw.get("melds", ()):
            used |= set(C(m))
        free = [x for x in Card._all[:52] if x not in used][:12]
        stock = list(C(top)) + free
    return g.state_from_deal(hands, stock, **kw)


# --------------------------------------------------------------------------------------
# §8 conformance cases (4 players, default options)


def test_case01_no_draw_on_first_turn():
    g = game(first_dealer=0)
    s = g.new_initial_state(7)
    v = s.view(1)
    assert s.current_seat == 1 and v.first_player == 1 and len(v.hand) == 9 and v.first_turn
    assert v.hand_counts == (8, 9, 8, 8) and v.stock_count == 19
    assert not any(isinstance(a, Draw) for a in s.legal_actions())
    assert_illegal(s, "draw stock", "no draw on the first turn")
    assert_illegal(s, "draw discard", "no draw on the first turn")


def test_case02_first_turn_meld_then_discard():
    g = game()
    s = deal(
        g,
        ["4S 5S", "7S 7H 7D 2C 9H JD QC KS 4D", "6S 6H", "8S 8H"], ("", FILLER), dealer=0
    )
    assert s.current_seat == 1 and s.view(1).phase is Phase.DROP
    act(s, "meld [7S 7H 7D]", "discard 2C")
    v = s.view(1)
    assert v.discard_pile == (c("2C"),)
    assert v.melds[0].cards == C("7S 7H 7D") and v.melds[0].owner == 1 and v.melds[0].id == 0
    assert v.melds[0].kind is MeldKind.GROUP
    assert s.current_seat == 2 and v.phase is Phase.DRAW and not v.first_turn
    assert legal_text(s) == {"draw stock", "draw discard"}


def _drop_state(hand: str, melds=(), taken_discard: bool = False, **options):
    """Seat 1 in its DROP phase with ``hand`` (first turn unless drawing from the pile)."""
    g = game(**options)
    return deal(g, ["AD", hand, "AS", "AC"], ("", FILLER), dealer=0, melds=melds)


def test_case03_five_card_meld_illegal():
    s = _drop_state("4H 5H 6H 7H 8H 2C")
    assert_illegal(s, "meld [4H 5H 6H 7H 8H]", "at most 4 cards")
    # the 5-card run can be laid as 3 or 4 of it instead (§3.3)
    assert {"meld [5H 6H 7H]", "meld [4H 5H 6H 7H]", "meld [5H 6H 7H 8H]"} <= legal_text(s)


def test_case04_ace_is_low_no_wrap():
    s = _drop_state("QH KH AH 2C")
    assert_illegal(s, "meld [QH KH AH]", "not a group")
    assert not any(isinstance(a, Meld) for a in s.legal_actions())


def test_case05_ace_low_sequence_legal():
    s = _drop_state("AH 2H 3H 9C KD")
    assert "meld [AH 2H 3H]" in legal_text(s)
    act(s, "meld [AH 2H 3H]")
    assert s.view(1).melds[0].kind is MeldKind.SEQUENCE


def test_case06_one_new_meld_per_turn():
    s = _drop_state("9C 10C JC 5D 6D 7D KS")
    act(s, "meld [9C 10C JC]")
    assert s.view(1).new_meld_made and s.view(1).dropped == 3
    assert_illegal(s, "meld [5D 6D 7D]", "one new meld per turn")
    assert not any(isinstance(a, Meld) for a in s.legal_actions())


def test_case07_meld_plus_layoff_then_no_more():
    s = _drop_state("9C 10C JC QC KC 5D", melds=[(0, "5S 5H 5C")])
    act(s, "meld [9C 10C JC]", "layoff QC -> m1")
    assert s.view(1).dropped == 4
    assert_illegal(s, "layoff KC -> m1", "at most 4 cards")
    assert_illegal(s, "layoff 5D -> m0")
    assert all(isinstance(a, Discard) for a in s.legal_actions())


def test_case08_four_layoffs_then_no_fifth():
    melds = [(0, "5S 5H 5C"), (2, "9C 10C JC"), (3, "8D 9D 10D")]
    s = _drop_state("5D QC 8C 7D JD KH", melds=melds)
    # all five layoffs are available at the start
    assert {"layoff 5D -> m0", "layoff QC -> m1", "layoff 8C -> m1", "layoff 7D -> m2", "layoff JD -> m2"} <= legal_text(s)
    act(s, "layoff 5D -> m0", "layoff QC -> m1", "layoff 8C -> m1", "layoff 7D -> m2")
    assert s.view(1).dropped == 4
    assert s.view(1).melds[1].cards == C("8C 9C 10C JC QC")
    assert_illegal(s, "layoff JD -> m2", "at most 4 cards")


def test_case09_must_keep_a_card_to_discard():
    g = game()
    s = deal(g, ["AD", "8S 8H", "AS", "AC"], ("8D", FILLER), dealer=3, discard_pile="KC", current=1)
    act(s, "draw stock")
    assert s.view(1).hand == C("8S 8H 8D")
    assert_illegal(s, "meld [8S 8H 8D]", "keep a card")
    assert legal_text(s) == {"discard 8S", "discard 8H", "discard 8D"}


def test_case10_layoff_then_discard_goes_out():
    melds = [(0, "AS 2S 3S"), (2, "KD KH KC"), (3, "9C 10C JC"), (0, "5D 5H 5C")]
    g = game()
    s = deal(g, ["AD 2D", "QC", "6S 7S", "8H 9H"], ("5S", FILLER), dealer=0, discard_pile="KS", current=1, melds=melds)
    act(s, "draw stock")
    assert s.view(1).hand == C("5S QC")
    act(s, "layoff QC -> m2")
    # 5S also fits m3, but laying it off would leave nothing to discard
    assert_illegal(s, "layoff 5S -> m3", "keep a card")
    events = act(s, "discard 5S")
    summary = s.view(1).last_hand
    assert summary.end is HandEnd.WENT_OUT and summary.went_out == 1
    assert any(e.kind == "score" for e in events)


def test_case11_group_of_four_is_closed():
    s = _drop_state("6S 2C 3C 9D", melds=[(0, "KS KH KD"), (2, "5S 5H 5D 5C")])
    assert not any(isinstance(a, LayOff) and a.meld == 1 for a in s.legal_actions())
    assert_illegal(s, "layoff 6S -> m1", "does not fit m1")
    assert_illegal(s, "layoff 2C -> m1")


def test_case12_blocked_ace_low_sequence():
    s = _drop_state("6H 2C 3C 9D KH", melds=[(0, "AH 2H 3H 4H"), (1, "5S 5H 5D 5C")])
    assert not any(isinstance(a, LayOff) for a in s.legal_actions())
    assert_illegal(s, "layoff 6H -> m0")
    assert_illegal(s, "layoff KH -> m0")


def test_case13_cannot_discard_the_taken_discard():
    g = game()
    s = deal(g, ["AD 2D", "3C 4C 8S", "6S 7S", "8H 9H"], ("", FILLER), dealer=3, discard_pile="KS 9D", current=1)
    assert "draw discard" in legal_text(s)
    act(s, "draw discard")
    v = s.view(1)
    assert v.taken_discard == c("9D") and v.pickups[0].seat == 1 and v.pickups[0].card == c("9D")
    assert_illegal(s, "discard 9D", "just took")
    assert legal_text(s) == {"discard 3C", "discard 4C", "discard 8S"}


def _all_turn_ends(state, seat):
    """Every state reachable by finishing ``seat``'s current turn (DFS over actions)."""
    out = []
    for a in state.legal_actions():
        nxt = state.clone()
        events = nxt.apply(a)
        if isinstance(a, Discard):
            out.append((nxt, events))
        else:
            out.extend(_all_turn_ends(nxt, seat))
    return out


def test_case14_more_than_four_cards_cannot_go_out():
    melds = [(0, "9S 9H 9C"), (2, "2D 3D 4D"), (3, "JH QH KH")]
    g = game()
    # 5 cards at the start: 5D 6D 7D run (and extends m1), a 9 and a 10H for the hearts
    s = deal(g, ["AS", "5D 6D 7D 9D 10H", "AC", "AH"], ("8D", FILLER), dealer=3, discard_pile="KS", current=1, melds=melds)
    act(s, "draw stock")
    ends = _all_turn_ends(s, 1)
    assert len(ends) > 50
    assert all(st.view(1).hand_counts[1] >= 1 and st.view(1).last_hand is None for st, _ in ends)
    # control: with 4 cards at the start the same table lets the player go out
    s4 = deal(g, ["AS", "5D 6D 7D 10H", "AC", "AH"], ("8D", FILLER), dealer=3, discard_pile="KS", current=1, melds=melds)
    act(s4, "draw stock")
    outs = [st for st, _ in _all_turn_ends(s4, 1) if st.view(1).last_hand is not None]
    assert outs and all(st.view(1).last_hand.went_out == 1 for st in outs)


def _seed_hand1_state(**options):
    """§4.4 hand 1: Enda (0) draws the last stock card and discards it; nobody is out."""
    g = game(hands=2, first_dealer=3, **options)
    return deal(
        g,
        ["JS 10S", "AC 3C", "2D 9D", "QH KH"], "KD", dealer=3, discard_pile="4S", current=0
    )


def test_case15_seed_hand1_scoring():
    s = _seed_hand1_state()
    assert s.view(0).pot == 20 and s.view(0).balances == (-5, -5, -5, -5)
    act(s, "draw stock", "discard KD")
    last = s.view(0).last_hand
    assert last.end is HandEnd.STOCK_EXHAUSTED and last.went_out is None
    assert [h.spots for h in last.hands] == [20, 4, 11, 20]
    assert last.winners == (1,)
    assert last.net == (-25, 46, -16, -25)  # John collects 20 + 11 + 20 = 51
    assert last.pot_after == 20
    # the next hand's antes are already in: pot 20 -> 40
    v = s.view(0)
    assert v.hand_number == 2 and v.pot == 40 and v.balances == (-30, 41, -21, -30)
    assert sum(v.balances) + v.pot == 0


def _seed_hand2_state():
    """§4.4 hand 2 (pot 40 after the antes): Enda lays off 4H and discards 4S to go out."""
    g = game(hands=2)
    return deal(
        g,
        ["4S", "5C 5D 6C", "KS", "3C 5S"],
        ("4H", FILLER),
        dealer=2,
        discard_pile="7C",
        melds=[(1, "5H 6H 7H")],
        current=0,
        pot=40,
        balances60=[-30 * 60, 41 * 60, -21 * 60, -30 * 60],
        hand_index=1,
    )


def test_case16_seed_hand2_scoring():
    s = _seed_hand2_state()
    act(s, "draw stock", "layoff 4H -> m0", "discard 4S")
    last = s.view(0).last_hand
    assert last.went_out == 0 and last.winners == (0,)
    assert [h.spots for h in last.hands] == [0, 16, 10, 8]
    assert last.net == (69, -21, -15, -13)  # Enda receives 40 + 16 + 10 + 8 = 74
    assert last.pot_after == 0


def test_case17_tie_scoring():
    delta, pot, winners = settle_hand([4, 4, 11, 20], None, 20 * 60, 60)
    assert winners == (0, 1) and pot == 20 * 60
    assert [d / 60 for d in delta] == [15.5, 15.5, -11, -20]
    g = game(hands=1)
    s = deal(g, ["AC 3C", "2S 2H", "2D 9D", "QH KH"], "KD", dealer=3, discard_pile="4S", current=3)
    act(s, "draw stock", "discard KD")
    last = s.view(0).last_hand
    assert last.winners == (0, 1) and last.net == (10.5, 10.5, -16, -25) and last.pot_after == 20


def test_case18_last_stock_card_ends_the_hand():
    g = game(hands=2)
    s = deal(g, ["AS 2S", "9C 10C", "AH", "KS QS"], "KD", dealer=0, discard_pile="4S", current=1)
    assert s.view(1).stock_count == 1
    act(s, "draw stock", "discard KD")
    last = s.view(1).last_hand
    assert last.end is HandEnd.STOCK_EXHAUSTED and last.winners == (2,)
    assert last.net == (-8, -24, 37, -25)
    assert s.view(0).hand_number == 2 and s.view(0).pot == 40


def test_case19_last_stock_card_and_going_out():
    g = game(hands=2)
    s = deal(
        g,
        ["AS 2S", "9C", "AH", "KS QS"], "10C", dealer=0, discard_pile="4S", current=1, melds=[(0, "6C 7C 8C")]
    )
    act(s, "draw stock", "layoff 9C -> m0", "discard 10C")
    last = s.view(1).last_hand
    assert last.end is HandEnd.WENT_OUT and last.went_out == 1
    assert last.net == (-8, 20 + 3 + 1 + 20 - 5, -6, -25) and last.pot_after == 0


def test_the_seat_that_went_out_shows_no_cards_in_words():
    """The reveal of the seat that went out read "seat 1 shows  (0 spots)", a gap where its
    cards would be, in replays and every seat's events."""
    g = game(hands=2)
    s = deal(g, ["AS 2S", "9C", "AH", "KS QS"], "10C", dealer=0, discard_pile="4S", current=1, melds=[(0, "6C 7C 8C")])
    events = act(s, "draw stock", "layoff 9C -> m0", "discard 10C")
    shows = [e.text for e in events if e.kind == "reveal"]
    assert shows[1] == "seat 1 shows no cards (went out)" and shows[0] == "seat 0 shows AS 2S (3 spots)"


def test_case20_deal_passes_right():
    g = game(first_dealer=2, hands=2)
    s = g.new_initial_state(3)
    assert s.view(0).dealer == 2 and s.view(0).first_player == 3
    rng = random.Random(0)
    while s.view(0).hand_number == 1:
        s.apply(rng.choice(s.legal_actions()))
    v = s.view(0)
    assert v.dealer == 1 and v.first_player == 2 and s.current_seat == 2 and v.hand_counts[2] == 9


# --------------------------------------------------------------------------------------
# §4.4 worked examples


def test_seed_example_two_hands_cumulative():
    s1 = _seed_hand1_state()
    act(s1, "draw stock", "discard KD")
    balances_after_antes = s1.view(0).balances
    assert balances_after_antes == (-30, 41, -21, -30) and s1.view(0).pot == 40
    s2 = _seed_hand2_state()  # built with exactly these balances and pot
    act(s2, "draw stock", "layoff 4H -> m0", "discard 4S")
    out = s2.outcome()  # hands=2: the match is over; the pot is empty
    assert out.scores == (44, 25, -31, -38) and sum(out.scores) == 0
    assert out.ranks == (1, 2, 3, 4) and out.reason is EndReason.COMPLETED


def _tactics_state():
    g = game(players=2, hands=1)
    return deal(
        g,
        ["KH KD KC 6D", "KS 7D 8D 9D"],
        "JC 2C",
        dealer=1,
        discard_pile="QD AC",
        melds=[(0, "AH 2H 3H 4H"), (1, "5S 5H 5D 5C")],
        current=0,
    )


def test_tactics_option1_melding_kings_lets_seat1_go_out():
    s = _tactics_state()
    act(s, "draw stock", "meld [KH KD KC]", "discard JC")
    assert s.view(0).hand == C("6D") and s.view(1).stock_count == 1
    act(s, "draw stock", "meld [7D 8D 9D]", "layoff KS -> m2")
    assert s.view(1).dropped == 4 and s.view(1).hand == C("2C")
    act(s, "discard 2C")
    last = s.view(0).last_hand
    assert last.went_out == 1 and [h.spots for h in last.hands] == [6, 0]
    assert last.net == (-5 - 6, 10 + 6 - 5)


def test_tactics_option2_keeping_kings():
    s = _tactics_state()
    act(s, "draw stock", "discard JC")
    assert s.view(0).hand == C("6D KH KD KC")
    act(s, "draw stock", "meld [7D 8D 9D]", "discard KS")
    last = s.view(0).last_hand
    assert last.end is HandEnd.STOCK_EXHAUSTED and [h.spots for h in last.hands] == [36, 2]
    assert last.winners == (1,) and last.net == (-41, 31) and last.pot_after == 10


# --------------------------------------------------------------------------------------
# §7 edge cases


def test_taken_card_alone_does_not_count_as_discardable():
    def state(**o):
        g = game(**o)
        return deal(g, ["AS", "7S 7H 7D", "AC", "AH"], ("", FILLER), dealer=3, discard_pile="9D", current=1)

    s = state()
    act(s, "draw discard")
    assert_illegal(s, "meld [7S 7H 7D]")
    s = state(allow_discard_of_taken_card=True)
    act(s, "draw discard", "meld [7S 7H 7D]", "discard 9D")
    assert s.view(1).last_hand.went_out == 1


def test_ambiguous_layoff_names_the_meld():
    s = _drop_state("7H 2C 9D", melds=[(0, "7S 7D 7C"), (2, "4H 5H 6H")])
    assert {"layoff 7H -> m0", "layoff 7H -> m1"} <= legal_text(s)
    act(s, "layoff 7H -> m1")
    v = s.view(1)
    assert v.melds[1].cards == C("4H 5H 6H 7H") and v.melds[0].cards == C("7S 7D 7C")


def test_layoff_onto_meld_made_this_turn_and_sequence_grows_past_four():
    s = _drop_state("5D 6D 7D 8D 2C", melds=[(0, "9D 10D JD QD")])
    act(s, "meld [5D 6D 7D]", "layoff 8D -> m1")
    assert s.view(1).melds[1].cards == C("5D 6D 7D 8D")
    # a king extends the other sequence to 5 cards on a later turn
    s2 = _drop_state("KD 2C", melds=[(0, "9D 10D JD QD")])
    act(s2, "layoff KD -> m0")
    m = s2.view(1).melds[0]
    assert m.cards == C("9D 10D JD QD KD") and m.kind is MeldKind.SEQUENCE
    # nothing above the king
    s3 = _drop_state("2C 3C", melds=[(0, "JD QD KD")])
    assert not any(isinstance(a, LayOff) for a in s3.legal_actions())


def test_group_of_three_takes_the_fourth_only():
    s = _drop_state("8C 9S 2C", melds=[(0, "8S 8H 8D")])
    assert "layoff 8C -> m0" in legal_text(s) and "layoff 9S -> m0" not in legal_text(s)


def test_group_melds_every_subset():
    s = _drop_state("9S 9H 9D 9C 2C")
    melds = {str(a) for a in s.legal_actions() if isinstance(a, Meld)}
    assert melds == {
        "meld [9S 9H 9D 9C]",
        "meld [9S 9H 9D]",
        "meld [9S 9H 9C]",
        "meld [9S 9D 9C]",
        "meld [9H 9D 9C]",
    }


def test_stock_exhaustion_everyone_ties_pays_nothing():
    g = game(hands=1)
    s = deal(g, ["AS 3S", "2H 2D", "AH 3H", "AC 3C"], "KD", dealer=2, discard_pile="4S", current=3)
    act(s, "draw stock", "discard KD")
    last = s.view(0).last_hand
    assert last.winners == (0, 1, 2, 3) and last.net == (-5, -5, -5, -5) and last.pot_after == 20
    assert s.outcome().scores == (0, 0, 0, 0) and s.outcome().ranks == (1, 1, 1, 1)


# --------------------------------------------------------------------------------------
# §6 options


@pytest.mark.parametrize("n,stock", [(2, 35), (3, 27), (4, 19), (5, 11), (6, 3)])
def test_option_players_deal_sizes(n, stock):
    g = game(players=n, first_dealer=0)
    s = g.new_initial_state(11)
    v = s.view(1)
    assert g.num_seats == n and v.stock_count == stock
    assert v.hand_counts == tuple(9 if p == 1 else 8 for p in range(n))
    assert v.pot == 5 * n and g.num_hands == 3 * n


@pytest.mark.parametrize(
    "options",
    [
        {"players": 1},
        {"players": 7},
        {"ante": -1},
        {"unit_per_spot": -1},
        {"unit_per_spot": 0.5, "players": 6},  # 1/2 unit split 5 ways is not exact in 60ths
        {"unit_per_spot": 0.001},
        {"unit_per_spot": "nan"},  # -o unit_per_spot=nan: past the range check (NaN compares false), a traceback
        {"unit_per_spot": float("nan")},  # a tournament's [options] (TOML has nan)
        {"first_dealer": 4},
        {"first_dealer": "somebody"},
        {"hands": 0},
        {"end_pot": "never"},
        {"tie_rule": "pair"},
        {"max_turns_per_hand": 0},
        {"max_extra_hands": -1},
        {"colour": "red"},
    ],
)
def test_bad_options_rejected(options):
    with pytest.raises(ConfigError):
        game(**options)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_an_inexact_unit_per_spot_is_told_a_step_it_can_type(players):
    """-o unit_per_spot=0.001 was told "use a multiple of 1/30" (3 players) or "of 1/60" (2):
    an option given as a decimal number cannot be 1/30, nor 1/60 (0.0333... is refused as
    inexact in its turn). The step offered is the smallest one a decimal writes exactly, and
    -o unit_per_spot=<that step> is then accepted."""
    with pytest.raises(ConfigError) as info:
        game(players=players, unit_per_spot="0.001")
    said = str(info.value)
    step = said.rsplit("use a multiple of ", 1)[1]
    assert "/" not in step, said
    assert game(players=players, unit_per_spot=step).options.unit_per_spot == float(step)
    assert step == {2: "0.05", 3: "0.1", 4: "0.1", 5: "0.2", 6: "1"}[players]
    # and `arbiter rules spot` says the same steps (it said "any whole number; halves up to 4 players")
    from cardarena.games.options import option_specs
    doc = " ".join(next(o.meaning for o in option_specs(Spot.Options) if o.name == "unit_per_spot").split())
    assert "a multiple of 0.05 (2 players), 0.1 (3 or 4), 0.2 (5) or 1 (6)" in doc, doc


def test_option_ante():
    s0 = game(ante=0).new_initial_state(1)
    assert s0.view(0).pot == 0 and s0.view(0).balances == (0, 0, 0, 0)
    s3 = game(ante=3).new_initial_state(1)
    assert s3.view(0).pot == 12 and s3.view(0).balances == (-3, -3, -3, -3)


def test_option_unit_per_spot():
    for unit, expected in ((2, (-45, 97, -27, -45)), ("0.5", (-15, 20.5, -10.5, -15))):
        s = _seed_hand1_state(unit_per_spot=unit)
        act(s, "draw stock", "discard KD")
        assert s.view(0).last_hand.net == expected
    # a tie with half units among 2 winners (4 players: multiples of 1/10 are exact)
    delta, _, _ = settle_hand([4, 4, 11, 20], None, 0, 30)
    assert delta == [465, 465, -330, -600]


def test_option_pot_carry_over_false():
    s = _seed_hand1_state(pot_carry_over=False)
    act(s, "draw stock", "discard KD")
    last = s.view(0).last_hand
    assert last.net == (-25, 66, -16, -25) and last.pot_after == 0
    assert s.view(0).pot == 20  # only the new antes
    delta, pot, _ = settle_hand([4, 4, 11, 20], None, 20 * 60, 60, pot_carry_over=False)
    assert pot == 0 and delta[:2] == [(15.5 + 10) * 60] * 2


def test_option_tie_rule_split_is_the_default():
    assert game().options.tie_rule.value == "split"
    assert game(tie_rule="split").options == game().options


def test_option_allow_discard_of_taken_card():
    g = game(allow_discard_of_taken_card=True)
    s = deal(g, ["AD 2D", "3C 4C 8S", "6S 7S", "8H 9H"], ("", FILLER), dealer=3, discard_pile="KS 9D", current=1)
    act(s, "draw discard")
    assert "discard 9D" in legal_text(s)
    act(s, "discard 9D")
    assert s.view(1).discard_pile == C("KS 9D")


def test_option_first_dealer():
    assert {game(first_dealer=k).new_initial_state(5).view(0).dealer for k in range(4)} == {0, 1, 2, 3}
    dealers = {game().new_initial_state(seed).view(0).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}  # random by seed
    assert game().new_initial_state(9).view(0).dealer == game().new_initial_state(9).view(0).dealer


def _play_random(state, seed=0):
    rng = random.Random(seed)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_option_hands():
    s = _play_random(game(hands=2, players=3).new_initial_state(4))
    assert sum(e.kind == "hand_start" for e in s.log) == 2
    s = _play_random(game(players=2).new_initial_state(4))
    assert sum(e.kind == "hand_start" for e in s.log) == 6  # default 3 × players


def _exhausting_last_hand(**options):
    """A 1-hand match whose only hand ends with the stock exhausted (pot 20 unwon)."""
    g = game(hands=1, **options)
    s = deal(g, ["JS 10S", "AC 3C", "2D 9D", "QH KH"], "KD", dealer=3, discard_pile="4S", current=0, seed=5)
    act(s, "draw stock", "discard KD")
    return s


def test_option_end_pot_split_equally():
    s = _exhausting_last_hand()
    assert s.is_terminal and s.outcome().reason is EndReason.COMPLETED
    assert s.outcome().scores == (-25 + 5, 46 + 5, -16 + 5, -25 + 5)
    assert s.outcome().ranks == (3, 1, 2, 3)
    assert any(e.kind == "pot" for e in s.log)


def test_option_end_pot_play_until_won():
    s = _exhausting_last_hand(end_pot="play_until_won")
    assert not s.is_terminal and s.view(0).hand_number == 2 and s.view(0).pot == 40
    _play_random(s, 1)
    last = s.view(0).last_hand
    assert last.end is HandEnd.WENT_OUT or last.hand_number == 21  # 1 + max_extra_hands
    assert s.view(0).pot == 0 and abs(sum(s.outcome().scores)) < 1e-9


def test_option_max_extra_hands_guard():
    s = _exhausting_last_hand(end_pot="play_until_won", max_extra_hands=0)
    assert s.is_terminal and s.outcome().reason is EndReason.TURN_LIMIT
    assert s.outcome().scores == (-20, 51, -11, -20)
    # with a guard of 2 extra hands and a turn cap that never lets anyone out
    s = _exhausting_last_hand(end_pot="play_until_won", max_extra_hands=2, max_turns_per_hand=1)
    _play_random(s)
    assert s.view(0).last_hand.hand_number == 3 and s.outcome().reason is EndReason.TURN_LIMIT


def test_option_max_turns_per_hand():
    s = game(max_turns_per_hand=3, hands=1).new_initial_state(2)
    _play_random(s)
    last = s.view(0).last_hand
    assert last.end is HandEnd.TURN_LIMIT and sum(e.kind == "discard" for e in s.log) == 3
    assert s.outcome().reason is EndReason.COMPLETED


# --------------------------------------------------------------------------------------
# Notation


def test_notation_round_trip_and_case():
    g = game()
    for text in ("draw stock", "draw discard", "meld [7S 7H 7D]", "meld [AH 2H 3H 4H]", "layoff QC -> m2", "discard 10S"):
        a = g.parse_action(text)
        assert str(a) == text and g.parse_action(str(a)) == a
    assert g.parse_action("DRAW Stock") == DRAW_STOCK and g.parse_action("draw discard") == DRAW_DISCARD
    assert g.parse_action("meld [7h 7s 7d]") == Meld(C("7S 7H 7D")) == Meld(C("7D 7S 7H"))
    assert str(g.parse_action("meld 7h 7s 7d")) == "meld [7S 7H 7D]"
    assert g.parse_action("layoff qc->m12") == LayOff(c("QC"), 12)
    assert g.parse_action(" discard th ") == Discard(c("10H"))
    assert Draw(DrawSource.STOCK) == DRAW_STOCK


@pytest.mark.parametrize(
    "text",
    ["", "pass", "draw", "draw hand", "meld []", "meld [7S 7X 7D]", "layoff QC", "layoff QC -> 2", "layoff QC -> mx", "discard", "discard 1S", "discard QC QD"],
)
def test_notation_malformed(text):
    with pytest.raises(InvalidActionError):
        game().parse_action(text)


def test_a_typed_action_of_the_wrong_shape_is_refused_or_taken_as_its_legal_twin():
    """``apply(Draw("stock"))`` (a bot's or a search's own action, the source a string) was
    accepted and drew from the discard pile; ``LayOff(card, "0")`` raised TypeError; and
    ``Discard(11)``, equal to the legal ``Discard(Card('3C'))``, left the int 11 on the pile,
    in every view. An illegal action is refused with the state unchanged (rules README §5);
    one equal to a legal action is played as that action."""
    g = game()
    s = deal(g, ["AD 2D", "3C 4C 8S", "6S 7S", "8H 9H"], ("KD", FILLER), dealer=3, discard_pile="KS 9D", current=1,
             melds=[(0, "5C 6C 7C")])

    def refused(state, action, said):
        before = [state.view(p) for p in range(4)]
        with pytest.raises(IllegalActionError) as info:
            state.apply(action)
        assert said in str(info.value), str(info.value)
        assert [state.view(p) for p in range(4)] == before

    refused(s, Draw("stock"), "draw from the stock or the discard pile")
    refused(s, Draw(None), "draw from the stock or the discard pile")
    assert s.illegal_reason(Draw("stock"))
    s.apply(DRAW_STOCK)
    refused(s, LayOff(c("8S"), "0"), "a meld is named by its number")
    refused(s, Discard("3C"), "'3C' is not a card")
    assert s.illegal_reason(LayOff(c("8S"), "0")) and s.illegal_reason(Discard("3C"))
    events = s.apply(Discard(int(c("3C"))))
    top = s.view(2).discard_pile[-1]
    assert top == c("3C") and type(top) is Card and events[0].cards == (c("3C"),) and type(events[0].cards[0]) is Card


def test_illegal_messages_do_not_name_hidden_cards():
    s = game(first_dealer=0).new_initial_state(8)
    other = s._hands[2][0]
    with pytest.raises(IllegalActionError) as info:
        s.apply(Discard(other))
    assert str(info.value) == f"discard {other}: {other} is not in your hand"
    with pytest.raises(IllegalActionError, match="no meld m3"):
        s.apply(LayOff(s._hands[1][0], 3))


@pytest.mark.parametrize("text, form", [("layoff 8H m2", "layoff <card> -> m<k>"), ("layoff 8H -> 2", "layoff <card> -> m<k>"),
                                        ("discard", "discard <card>"), ("draw", "draw stock"),
                                        ("discard QC QD", "discard <card>")])
def test_a_malformed_action_shows_the_form_it_should_have(text, form):
    """"malformed layoff (see the notation of rules §3.2)" sent a bot's author to a section
    number that `arbiter rules spot` does not show: the error shows the form itself, as
    Spades' and Spite and Malice's do."""
    with pytest.raises(InvalidActionError) as caught:
        game().parse_action(text)
    assert form in str(caught.value) and "§" not in str(caught.value), str(caught.value)


def test_rules_summary_says_a_new_meld_is_3_or_4_cards():
    """`arbiter rules spot` defined the turn's new meld as "a sequence of 3+ cards of one
    suit": a new meld is 3 or 4 cards (a 5-card run cannot be laid in one turn, §3.3), and
    "of one suit" left out that the ranks run in a row; nor did it say what a layoff may add."""
    text = " ".join(Spot.rules_summary.split())
    assert "3+" not in text
    assert "a sequence of 3 or 4 cards of one suit in a row" in text
    assert "the 4th card of a group of 3" in text and "nothing below an ace or above a king" in text


@pytest.mark.parametrize("text", ["discard JK", "discard jk", "layoff JK -> m0", "meld [JK 7S 7H]"])
def test_a_joker_is_refused_by_name(text):
    """Spot is played with one 52-card deck and no jokers (rules §1): ``discard JK`` was
    taken as an action and the move refused as "JK is not in your hand", as if a joker could
    be. The notation refuses it, as Spades' does."""
    with pytest.raises(InvalidActionError, match="Spot is played without jokers"):
        game().parse_action(text)


def test_a_meld_naming_a_card_twice_says_so():
    """``meld [7S 7S 7H]`` from a seat holding 7S and 7H was told "those cards are not all in
    your hand", which they are: the notation and the engine say the card is named twice."""
    with pytest.raises(InvalidActionError, match="7S is named twice"):
        game().parse_action("meld [7S 7S 7H]")
    s = _drop_state("7S 7H 7D 2C")
    with pytest.raises(IllegalActionError) as info:
        s.apply(Meld(C("7S 7S 7H")))
    assert "7S is named twice" in str(info.value) and "not all in your hand" not in str(info.value)
