"""Card notation: parsing, canonical output, errors."""

import pickle

import pytest

from cardarena.games.cards import JOKER, STANDARD_DECK, Card, InvalidCardError, Suit, format_cards, parse_cards


def test_every_card_round_trips_through_its_notation():
    assert len(set(STANDARD_DECK)) == 52
    for card in (*STANDARD_DECK, JOKER):
        assert Card.parse(str(card)) is card
        assert eval(repr(card)) == card
        assert pickle.loads(pickle.dumps(card)) is card


def test_parsing_is_case_insensitive_and_accepts_t_for_ten():
    assert Card.parse("qs") == Card.of(12, Suit.S)
    assert Card.parse("th") == Card.parse("10H") and str(Card.parse("th")) == "10H"
    assert Card.parse(" jk ").is_joker and JOKER.suit is None and JOKER.rank == 0


def test_rank_and_suit():
    c = Card.parse("10D")
    assert (c.rank, c.suit) == (10, Suit.D)
    assert Card.parse("AC").rank == 1 and Card.parse("KS").rank == 13


@pytest.mark.parametrize("bad", ["", "1S", "11H", "ZZ", "QX", "JOKER", "10", "S"])
def test_unknown_cards_are_named_in_the_error(bad):
    with pytest.raises(InvalidCardError, match="unknown card"):
        Card.parse(bad)


def test_card_lists():
    assert parse_cards("[7S 7H, 7D]") == (Card.parse("7S"), Card.parse("7H"), Card.parse("7D"))
    assert format_cards(parse_cards("as 10c")) == "AS 10C"
