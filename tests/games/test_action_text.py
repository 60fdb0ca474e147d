"""``Game.action_text``: how an action just taken reads to each viewer.

Spades: the two cards of a blind-nil ``give`` pass face down (rules §3.3, §6); only the
giver and the receiver (its partner) read them, everyone else, spectators included,
reads what the public event says. Spite and Malice and Spot have no private part in any
action: everyone reads the notation. The generic checks (no viewer reads a card the
engine's events do not show it) run for every game in test_conformance.py.
"""

from __future__ import annotations

import random

import pytest

from cardarena.games import events_for, get_game
from cardarena.games.spades import PUBLIC_GIVE_TEXT, Bid, Give, Look, Phase, Spades, SpadesState, partner
from tests.games.conformance import card_tokens, shown_cards

VIEWERS = (0, 1, 2, 3, None)


def blind_nil_bidder(st: SpadesState, rng: random.Random, blind: int):
    """Seat ``blind`` bids blind nil whenever it may; the others look and bid 3 (4 when
    their partner bid blind nil, to cover it); gives and plays are random."""
    seat = st.current_seat
    legal = st.legal_actions()
    if st.phase is Phase.BIDDING:
        if seat == blind and Bid(0, True) in legal:
            return Bid(0, True)
        if Look() in legal:
            return Look()
        return Bid(4 if st.blind[partner(seat)] else 3)
    return rng.choice(legal)


def play_blind_nil_match(options: dict, seed: int, blind: int = 2) -> list[tuple]:
    """A match in which seat ``blind`` bids blind nil in every deal; returns every give
    as (state before, give, giver, events)."""
    game = Spades(options)
    st = game.new_initial_state(seed)
    rng = random.Random(seed)
    gives = []
    while not st.is_terminal:
        action = blind_nil_bidder(st, rng, blind)
        before = st.clone()
        seat = st.current_seat
        events = st.apply(action)
        if isinstance(action, Give):
            gives.append((before, action, seat, events))
    return gives


@pytest.mark.parametrize("order", ["partner_first", "bidder_first"])
def test_blind_nil_give_reads_two_cards_to_opponents_and_spectators(order):
    options = {"deals": 2, "first_dealer": 3, "blind_nil_exchange_order": order}
    gives = play_blind_nil_match(options, seed=5)
    assert len(gives) == 4  # two deals, a give each way per deal
    game = Spades(options)
    givers = [g for _, _, g, _ in gives]
    assert givers == ([0, 2, 0, 2] if order == "partner_first" else [2, 0, 2, 0])
    for before, give, giver, events in gives:
        receiver = partner(giver)
        notation = str(give)
        assert len(card_tokens(notation)) == 2
        for viewer in VIEWERS:
            text = game.action_text(give, giver, viewer)
            if viewer in (giver, receiver):
                assert text == notation  # the giver and the receiver read the cards
            else:
                assert text == PUBLIC_GIVE_TEXT == "give two cards"
                assert not card_tokens(text)
            # What the text names, the events that viewer sees show it (and no more).
            shown = set(shown_cards(events_for(events, viewer)))
            assert set(card_tokens(text)) <= shown
            if viewer not in (giver, receiver):
                assert not set(give.cards) & shown
        public = [e for e in events_for(events, None) if e.kind == "give"]
        assert [e.text for e in public] == [f"seat {giver} gives two cards to seat {receiver}"]
        assert not public[0].cards
    assert str(gives[0][1]).startswith("give ")  # str() stays the full notation
    assert game.parse_action(str(gives[0][1])) == gives[0][1]


def test_public_give_text_is_the_same_whichever_cards():
    """The text an opponent or a spectator reads depends on no hidden card: every give
    the giver could make reads the same, in every exchange step of a match."""
    options = {"deals": 2, "first_dealer": 0}
    game = Spades(options)
    steps = 0
    for before, _, giver, _ in play_blind_nil_match(options, seed=9, blind=1):
        legal = before.legal_actions()
        assert len(legal) in (13 * 12 // 2, 15 * 14 // 2) and all(isinstance(a, Give) for a in legal)
        for viewer in VIEWERS:
            texts = {game.action_text(a, giver, viewer) for a in legal}
            if viewer in (giver, partner(giver)):
                assert texts == {str(a) for a in legal}
            else:
                assert texts == {PUBLIC_GIVE_TEXT}
        steps += 1
    assert steps == 4


def test_spectator_transcript_of_a_blind_nil_deal_names_only_public_cards():
    """A spectator's running text of a deal (seat + action text per step) names no card
    but those played face up."""
    game = Spades({"deals": 1, "first_dealer": 3})
    st = game.new_initial_state(3)
    rng = random.Random(3)
    transcript, played = [], set()
    while not st.is_terminal:
        seat = st.current_seat
        action = blind_nil_bidder(st, rng, blind=1)
        st.apply(action)
        transcript.append(f"seat {seat}: {game.action_text(action, seat, None)}")
        played.update(pc.card for t in st.tricks for pc in t.cards)
        played.update(c for _, c in st.trick)
    assert sum("give two cards" in line for line in transcript) == 2
    named = {c for line in transcript for c in card_tokens(line)}
    assert named == played and len(played) == 52


def test_other_spades_actions_read_the_notation_for_everyone():
    game = get_game("spades")
    for text in ("look", "bid blind_nil", "bid nil", "bid 7", "play QS", "play 10H"):
        action = game.parse_action(text)
        for viewer in VIEWERS:
            assert game.action_text(action, 1, viewer) == text


@pytest.mark.parametrize("name, options", [
    ("spite-and-malice", {"payoff_size": 6}),
    ("spite-and-malice", {"players": 4, "partnerships": True, "payoff_size": 4, "loading": False}),
    ("spite-and-malice", {"loading": True, "payoff_size": 6}),
    ("spot", {"hands": 1}),
])
def test_games_without_private_action_parts_read_the_notation(name, options):
    """Spite and Malice and Spot: every action is public once taken (a draw from the
    stock names no card), so every viewer reads the notation, for every legal action."""
    game = get_game(name, options)
    st = game.new_initial_state(1)
    rng = random.Random(1)
    viewers = [*range(game.num_seats), None]
    checked = 0
    while not st.is_terminal:
        seat = st.current_seat
        legal = st.legal_actions()
        for action in legal:
            assert {game.action_text(action, seat, v) for v in viewers} == {str(action)}
            checked += 1
        st.apply(rng.choice(legal))
    assert checked > 100
