"""Each game's "same play" rule (``Platform.same_play``, method 14 of the analysis): two legal
actions with equal keys are provably the same play under the game's rules and options,
read from the seat's view alone (docs/analysis.md, "Method 14: the same play")."""

from __future__ import annotations

import random

from arbiter.analysis.values import SAME_PLAY, same_plays
from arbiter.hosting.forward import sample_states
from cardarena.games import get_game
from cardarena.games.spades import Look, Spades
from cardarena.games.spite_malice import SpiteAndMalice

# Seat 0's hearts 9 7 5 2 around the others' 8 (seat 1), 6 (seat 3), 4 (seat 2) and 3 (seat 1).
HANDS = ["9H 7H 5H 2H AC KC QC JC 10C 9C 8C 7C 6C",
         "8H 3H AH KH 5C 4C 3C 2C AD KD QD JD 10D",
         "4H QH JH 10H 9D 8D 7D 6D 5D 4D 3D 2D 2S",
         "6H AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S"]


def spades_at(*plays: str):
    """Seat 1 leads (dealer 0), everyone bids 3; then ``plays`` (from seat 1 on)."""
    game = Spades({"deals": 1})
    st = game.state_from_deal(HANDS, dealer=0)
    for _ in range(4):
        if Look() in st.legal_actions():
            st.apply(Look())
        st.apply(game.parse_action("bid 3"))
    for p in plays:
        st.apply(game.parse_action(f"play {p}"))
    return game, st


def classes(game, view, legal) -> list[set[str]]:
    """The legal actions grouped by the rule, each class as a set of texts, sorted."""
    keys = same_plays(game, view, legal)
    out: dict = {}
    for a in legal:
        out.setdefault(keys[a], set()).add(str(a))
    return sorted(out.values(), key=lambda c: sorted(c))


def same(game, st, a: str, b: str) -> bool:
    keys = same_plays(game, st.view(st.current_seat), st.legal_actions())
    return keys[game.parse_action(a)] == keys[game.parse_action(b)]


def test_touching_spades_cards_are_the_same_play_and_a_card_out_between_keeps_them_so():
    """9H and 7H with the 8H in a completed trick are the same play (so are 7H and 5H, the
    6H played); with the 8H still to be played (a seat may hold it), they are not."""
    game, st = spades_at("8H", "4H", "6H", "2H")  # the first trick: 8H, 4H, 6H and seat 0's 2H
    st.apply(game.parse_action("play 3H"))  # seat 1 (it won with the 8H) leads the 3H
    st.apply(game.parse_action("play QH"))  # seat 2 leads it now with the QH
    st.apply(game.parse_action("play 3S"))  # seat 3, void in hearts, trumps: nothing of seat 0's can win it
    assert st.current_seat == 0
    assert same(game, st, "play 9H", "play 7H") and same(game, st, "play 7H", "play 5H")
    game, st = spades_at("AH", "4H", "6H")  # the 8H still out
    assert st.current_seat == 0
    assert not same(game, st, "play 9H", "play 7H")
    assert same(game, st, "play 7H", "play 5H")  # the 6H, played, is under the AH that leads the trick
    assert not same(game, st, "play 5H", "play 2H")  # the 3H: seat 1 holds it


def test_a_card_leading_the_trick_under_way_tells_the_cards_around_it_apart():
    """The 8H leading the current trick lies between the 9H (which would take the lead) and
    the 7H (which would not): not the same play; the 6H under it is out of play."""
    game, st = spades_at("8H", "4H", "6H")
    assert st.current_seat == 0
    assert not same(game, st, "play 9H", "play 7H")
    assert same(game, st, "play 7H", "play 5H")
    assert not same(game, st, "play 5H", "play 2H")
    assert classes(game, st.view(0), st.legal_actions()) == [{"play 2H"}, {"play 5H", "play 7H"}, {"play 9H"}]


def test_spades_bids_and_leads_are_classed_by_the_rule():
    """Bids are never the same play; seat 1's first lead: its touching clubs (5 4 3 2), its
    ace-king of hearts and of diamonds (AD KD QD JD 10D) each one play, the 8H and 3H apart."""
    game = Spades({"deals": 1})
    st = game.state_from_deal(HANDS, dealer=0)
    st.apply(Look())
    assert all(len(c) == 1 for c in classes(game, st.view(1), st.legal_actions()))
    _, st = spades_at()
    assert st.current_seat == 1
    assert classes(game, st.view(1), st.legal_actions()) == [
        {"play 10D", "play AD", "play JD", "play KD", "play QD"}, {"play 2C", "play 3C", "play 4C", "play 5C"},
        {"play 3H"}, {"play 8H"}, {"play AH", "play KH"}]


def test_the_same_play_is_read_from_the_view_alone():
    """Two worlds consistent with seat 0's view (other hands: who holds the 3H, say) give
    the same classes as the view: the rule reads nothing of another seat's hand."""
    game, st = spades_at("8H", "4H", "6H")
    view = st.view(0)
    want = classes(game, view, st.legal_actions())
    worlds = sample_states(game, view, 6, random.Random(3))
    assert len({tuple(tuple(w.hands[s]) for s in (1, 2, 3)) for w in worlds}) > 1  # other hidden cards
    for w in worlds:
        assert w.view(0) == view
        assert classes(game, w.view(0), w.legal_actions()) == want


def test_spite_and_malice_same_play_is_read_from_the_view_alone():
    """As at Spades: worlds drawn from the seat's view (other hands, the stock, the face-down
    pay-off cards) give the view's classes, at every decision of the random seat of the
    bench's first separation match with a class of more than one action."""
    from arbiter.analysis.reask import decisions
    from arbiter.tools.analysis_bench import separation_matches

    record, bots, rnd = next(separation_matches("spite-and-malice", 1, 0))
    game = get_game(record.game, record.options)
    checked = 0
    for point in decisions(record, rnd):
        want = classes(game, point.view, point.legal)
        if len(want) == len(point.legal) or checked >= 5:
            continue
        worlds = sample_states(game, point.view, 3, random.Random(point.number))
        assert len({tuple(map(tuple, w.hands)) for w in worlds}) > 1
        for w in worlds:
            assert w.view(rnd) == point.view
            assert classes(game, w.view(rnd), w.legal_actions()) == want
        checked += 1
    assert checked == 5


def sm(options=None, **kw):
    g = SpiteAndMalice(options or {})
    kw.setdefault("payoffs", ["9D 9D 9C", "4D 4D 10C"])
    kw.setdefault("hands", ["5S 5H KH KS 9C", "8S 8S 8H 8H 8C"])
    kw.setdefault("stock", "5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    return g, g.state_from_layout(**kw)


def test_spite_and_malice_hand_cards_of_a_rank_are_the_same_play_but_not_with_loading():
    """Suits are read by no rule but loading's (§1, §8.4): the 5S and 5H to one pile are
    the same play, KH and KS (both wild) too; with ``loading`` they are not."""
    g, st = sm(center=["AD 2D 3D 4D"])
    assert same(g, st, "play hand:5S -> center:0", "play hand:5H -> center:0")
    assert same(g, st, "play hand:KS -> center:0", "play hand:KH -> center:0")
    assert same(g, st, "play hand:5S -> side:2", "play hand:5H -> side:2")
    assert not same(g, st, "play hand:5S -> center:0", "play hand:KS -> center:0")  # a king stands for a 5 here
    g, st = sm({"loading": True}, center=["AD 2D 3D 4D"])
    assert not same(g, st, "play hand:5S -> center:0", "play hand:5H -> center:0")
    assert not same(g, st, "play hand:KS -> center:0", "play hand:KH -> center:0")


def test_spite_and_malice_alike_piles_and_stacks_are_one_destination():
    """Two centre piles with the same cards (not only the same value: a king standing for a
    rank goes to the stock with the pile), two side stacks with the same cards in the same
    order, or both empty, are one destination; a joker is not a king."""
    g, st = sm(center=["AD 2D 3D 4D", "AS 2H 3C 4S", "AH KD 3H 4H"],
               side=[["7C", "", "7H", "3H 7C"], []])
    assert same(g, st, "play hand:5S -> center:0", "play hand:5H -> center:1")
    assert not same(g, st, "play hand:5S -> center:0", "play hand:5S -> center:2")
    assert same(g, st, "play hand:9C -> side:0", "play hand:9C -> side:2")  # a 7 either way
    assert not same(g, st, "play hand:9C -> side:0", "play hand:9C -> side:1")  # a 7 against nothing
    assert not same(g, st, "play hand:9C -> side:0", "play hand:9C -> side:3")  # the 3 under the 7
    g, st = sm({"jokers": 2}, center=["AD"], side=[["", "", "7H 2C", "7C 2S"], []],
               hands=["5S 5H KH KS JK", "8S 8S 8H 8H 8C"])
    assert same(g, st, "play hand:5S -> side:0", "play hand:5H -> side:1")  # both empty
    assert same(g, st, "play side:2 -> center:0", "play side:3 -> center:0")  # a 2 from two stacks of 7 2
    assert not same(g, st, "play hand:KS -> center:0", "play hand:JK -> center:0")


def test_spite_and_malice_descending_stacks_keep_their_order():
    """With the book's descending side stacks a stack's order says what it accepts: two
    stacks of the same cards in another order are not alike; in the same order they are."""
    g, st = sm({"side_stack_order": "descending", "may_end_without_discard": True}, side=[["8H 7C", "8C 7H", "7S 8S", ""], []],
               hands=["7D 6H 2C 3C 4C", "8S 8S 8H 8H 8C"])
    assert same(g, st, "play hand:7D -> side:0", "play hand:7D -> side:1")
    assert not same(g, st, "play hand:7D -> side:0", "play hand:7D -> side:2")


def test_spot_has_no_same_play():
    """Spot's rules read every card's suit and rank (sequences, layoffs): no two actions
    are the same play."""
    assert SAME_PLAY["spot"] is None
    game = get_game("spot", {"players": 3})
    st = game.new_initial_state(1)
    legal = st.legal_actions()
    assert len(set(same_plays(game, st.view(st.current_seat), legal).values())) == len(legal)


def test_spite_and_malice_partners_alike_stacks_are_one_source():
    """Partnerships (§8.10): the tops of two of the partner's side stacks holding the same
    cards are one source; one of the seat's own stacks alike to them is another kind."""
    g = SpiteAndMalice({"players": 4, "partnerships": True})
    st = g.state_from_layout(payoffs=["9D 9D 9C", "4D 4D 10C", "9D 9C 9S", "4D 4D 10C"],
                             hands=["5S 5H KH KS 9C", "8S 8S 8H 8H 8C", "8S 8S 8H 8H 8C", "8S 8S 8H 8H 8C"],
                             stock="5H 5H 5D 5D 6D 6D 6H 6H 7D 7D", center=["AD"],
                             side=[["7C 2C", "", "", ""], [], ["7H 2S", "7S 2H", "2H", ""], []])
    assert st.current_seat == 0 and g.partner_of[0] == 2
    assert same(g, st, "play partner_side:0 -> center:0", "play partner_side:1 -> center:0")
    assert not same(g, st, "play partner_side:0 -> center:0", "play partner_side:2 -> center:0")
    assert not same(g, st, "play partner_side:0 -> center:0", "play side:0 -> center:0")
