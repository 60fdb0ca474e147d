"""The card table as people read it (issue 44): cards named in words, counts in English,
Spite and Malice's moves in words, the hand not greyed while bidding, a blind-nil give
told once, the last trick and the score sheet, and an end that says who won, by how much
and why, in every game. From real engine states."""

from __future__ import annotations

import random

from arbiter.present.boards import plural
from arbiter.present.table import card_name, render_table, say, table_model, told_once, verdict
from cardarena.games import get_game


def _state(game: str, options: dict, until, seed: int = 7, limit: int = 5000):
    st = get_game(game, options).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if until(st):
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("no such state within the limit")


def _end(game: str, options: dict, seed: int = 5):
    return _state(game, options, lambda s: s.is_terminal, seed=seed, limit=200_000)


def test_cards_are_named_in_words_and_a_ten_keeps_both_digits():
    assert card_name("QS") == "queen of spades" and card_name("10H") == "10 of hearts" and card_name("AC") == "ace of clubs"
    st = _state("spades", {}, lambda s: s.spectator_view().phase.name == "PLAY")
    me = st.current_seat
    html = str(render_table(table_model("spades", st.view(me), "abcd", me=me, legal=st.legal_actions())))
    for c in st.view(me).hand:
        assert f'aria-label="{card_name(c)}"' in html
    if any(str(c).startswith("10") for c in st.view(me).hand):
        assert '<b class="ten" aria-hidden="true">10</b>' in html


def test_counts_read_as_english():
    assert plural(1, "card") == "1 card" and plural(2, "card") == "2 cards" and plural(0, "deal") == "0 deals"
    st = _state("spot", {"players": 2}, lambda s: len(s.spectator_view().discard_pile) == 1)
    m = table_model("spot", st.view(0), "ab", me=0)
    assert "1 card" in [p.note for p in m.middle] and "1 cards" not in str(render_table(m))


def test_the_hand_is_not_greyed_while_bidding():
    """Item 13: the hand you must read to bid was drawn dimmed."""
    st = _state("spades", {"blind_nil": False},
                lambda s: any(str(a).startswith("bid ") for a in s.legal_actions()) and s.view(s.current_seat).hand_visible)
    me = st.current_seat
    html = str(render_table(table_model("spades", st.view(me), "abcd", me=me, legal=st.legal_actions())))
    assert 'class="pick dim"' not in html and html.count('class="pick idle"') == 13


def test_spite_and_malice_moves_read_in_words():
    """Item 11: the status and events said "play side:0 -> center:1" and "hand:2S"."""
    assert say("spite-and-malice", "seat 1: play hand:3D -> side:2") == "seat 1: play 3♦ from the hand to side stack 3"
    assert say("spite-and-malice", "play side:0 -> center:1") == "play side stack 1 to centre pile 2"
    assert say("spite-and-malice", "play payoff -> center:new") == "play the pay-off pile to a new centre pile"
    assert say("spot", "seat 1 discards QS") == "seat 1 discards QS"  # other games' text is left alone
    assert say("spades", "seat 1 plays QS") == "East plays QS"  # (but Spades' seats, by compass point as its table names them)
    st = _state("spite-and-malice", {}, lambda s: bool(s.spectator_view().turn_moves) and s.current_seat is not None)
    m = table_model("spite-and-malice", st.view(st.current_seat), "ab", me=st.current_seat)
    assert "this turn: " in m.status and "->" not in m.status and "hand:" not in m.status and "side:" not in m.status


def test_a_blind_nil_give_is_told_once():
    """Item 16: the seats of a give saw it twice, once without its cards and once with."""
    texts = ["seat 2 bids 9", "seat 2 gives two cards to seat 0", "seat 2 gives 7H 4H to seat 0", "seat 0 gives two cards to seat 2"]
    assert told_once(texts) == ["seat 2 bids 9", "seat 2 gives 7H 4H to seat 0", "seat 0 gives two cards to seat 2"]


def test_seats_are_named_by_compass_point_with_the_last_trick_and_a_score_sheet():
    st = _state("spades", {"target": 10_000}, lambda s: len(s.spectator_view().history) >= 1
                and len(s.spectator_view().trick) == 1 and len(s.spectator_view().tricks) >= 2, limit=50_000)
    me = st.current_seat
    v = st.view(me)
    m = table_model("spades", v, ["heuristic 1.0"] * 4, me=me, legal=st.legal_actions())
    assert [s.where for s in m.seats] == ["North", "East", "South", "West"]
    html = str(render_table(m))
    assert 'id="last-trick"' in html and m.peek_title.startswith("last trick, won by")
    assert {p.cards[0] for p in m.peek} == {p.card for p in v.tricks[-1].cards}
    assert 'id="score-sheet"' in html and len(m.sheet) == len(v.history) + 1 and m.sheet[-1][0] == f"{v.deal} (now)"
    first = v.history[0]
    assert m.sheet[0][2] == str(first.tricks_won[0] + first.tricks_won[2])  # North and South's tricks
    assert f"{first.sides[0].score}" in m.sheet[0][3]


def test_a_seat_names_its_bot_with_the_version_it_said():
    """Issue 44: three seats all read "heuristic"; a version said is shown once, none is not made up."""
    from arbiter.present.table import seat_labels

    assert seat_labels(("person", "heuristic", "mine@2.0", "greedy"), ("", "1.0", "2.0")) == \
        ("person", "heuristic@1.0", "mine@2.0", "greedy")


def test_every_game_ends_with_who_won_by_how_much_and_why():
    """Item 10: Spot and Spite and Malice said only "completed (3 hands)"."""
    names = ["heuristic 1.0", "random 1.0", "greedy 1.0", "search 1.0"]
    st = _end("spades", {"deals": 1})
    o = st.outcome()
    text = verdict("spades", o, names, 0, st.spectator_view(), {"deals": 1})
    top, low = max(o.scores), min(o.scores)
    assert (f"won {top:g} to {low:g}, by {plural(int(top - low), 'point')}: the match was 1 deal long" in text
            or text.startswith("A draw")), text
    st = _end("spot", {"players": 3, "hands": 2})
    o = st.outcome()
    text = verdict("spot", o, names[:3], 1, st.spectator_view())
    assert " won with " in text and "ahead of the next seat" in text and "after 2 hands" in text, text
    st = _end("spite-and-malice", {"payoff_size": 2, "max_turns": 80})
    o = st.outcome()
    text = verdict("spite-and-malice", o, names[:2], 1, st.spectator_view())
    assert "pay-off cards left:" in text and ("emptied the pay-off pile first" in text or "A draw" in text or " won: " in text), text
    assert "completed" not in text


def test_a_replay_with_every_hand_shows_every_hand_from_the_deal():
    """Item 15: the replay's "every hand" view at step 0 showed 4 × 13 card backs (no seat
    had looked at its cards yet); a seat's own view still hides them until it looks."""
    from cardarena.replay import step_record
    from sdk.harness import play_match
    from sdk.random_bot import RandomBot

    record = play_match("spades", [RandomBot() for _ in range(4)], seed=9, options={"deals": 1})
    first = next(step_record(record, full=True))
    assert first.index == 0 and all(len(v.hand) == 13 and v.hand_visible for v in first.seat_views)
    html = str(render_table(table_model("spades", first.view, "abcd", seat_views=first.seat_views), interactive=False))
    assert html.count("data-card=") == 52 and "face-down" not in html
    own = next(step_record(record, seat=0))
    assert not own.view.hand_visible and not own.view.hand  # the seat itself: not before it looks


def test_a_forfeit_says_who_failed_and_how():
    from cardarena.games import EndReason, Outcome

    names = ["browser", "random 1.0", "random 1.0", "random 1.0"]
    o = Outcome((0.0, 1.0, 0.0, 1.0), (2, 1, 2, 1), EndReason.FORFEIT_TIMEOUT, "seat 0 (browser) timed out")
    text = verdict("spades", o, names, 0)
    assert text == ("random 1.0 (East) and random 1.0 (West) won by forfeit: your side lost: a seat ran out of time "
                    "(seat 0 (browser) timed out)."), text
    o = Outcome((0.0, 1.0), (2, 1), EndReason.FORFEIT_CRASH, "")
    assert verdict("spot", o, ["mine", "random 1.0"], 1) == "You won by forfeit: mine (seat 0) crashed."


def test_a_spades_deal_limit_names_the_deals_played_with_or_without_the_final_view():
    """`arbiter play` gives no final view (only the record): a match ended by its deal
    limit said "the deal limit was reached after 0 deals"."""
    names = ["random 1.0"] * 4
    options = {"max_deals": 2, "target": 5000}
    st = _end("spades", options)
    o = st.outcome()
    assert o.reason.value == "turn_limit", o
    for final_view in (st.spectator_view(), None):
        text = verdict("spades", o, names, 0, final_view, options)
        assert "the deal limit was reached after 2 deals" in text, text
    default = get_game("spades").options.max_deals
    assert f"after {plural(default, 'deal')}" in verdict("spades", o, names, 0, None, {"target": 5000})


def test_a_spite_and_malice_draw_says_whether_the_stock_ran_out_or_every_player_passed():
    """`arbiter play` said "A draw: the game was blocked." of a game whose stock ran out
    (the engine: "seat 1 must draw and the stock is empty"): nothing was blocked, and a
    newcomer reading it looked for a deadlock. Blocked is the deadlock's word (book rules)."""
    from cardarena.games import EndReason, Outcome

    seed = next(s for s in range(40) if _end("spite-and-malice", {"payoff_size": 20}, seed=s).outcome().reason
                == EndReason.STALEMATE)
    st = _end("spite-and-malice", {"payoff_size": 20}, seed=seed)
    assert "the stock is empty" in st.outcome().detail
    text = verdict("spite-and-malice", st.outcome(), ["a", "b"], None, st.spectator_view())
    assert text.startswith("A draw: the stock ran out") and "blocked" not in text, text
    passed = Outcome((0.5, 0.5), (1, 1), EndReason.STALEMATE, "deadlock: every player passed")
    assert verdict("spite-and-malice", passed, ["a", "b"]) == "A draw: the game was blocked (every player passed)."


def test_the_score_sheet_counts_a_bag_penalty_in_points():
    """A deal with a bag penalty read "-221 → -320": the sheet took the number of penalties
    (1) for the points they cost (100). Each deal's score is its change of the total."""
    st = _state("spades", {"target": 10_000, "bag_limit": 2},
                lambda s: any(r.penalties for d in s.spectator_view().history for r in d.sides), limit=50_000)
    v = st.spectator_view()
    m = table_model("spades", v, ["random 1.0"] * 4)
    before = [0, 0]
    for row, d in zip(m.sheet, v.history):
        for k, res in enumerate(d.sides):
            assert row[1 + 4 * k + 2] == f"{res.score - before[k]:+d} → {res.score}"
            before[k] = res.score


def test_the_pay_off_cards_left_name_each_seat_when_one_bot_sits_at_several():
    """Four-player Spite and Malice against three copies of one bot said "(pay-off cards
    left: random@1.0: 0, random@1.0: 3, you: 0, random@1.0: 3)": which one kept 3?"""
    st = _end("spite-and-malice", {"players": 4, "partnerships": True, "payoff_size": 2, "max_turns": 200})
    names = ["random@1.0", "random@1.0", "person", "random@1.0"]
    text = verdict("spite-and-malice", st.outcome(), names, 2, st.spectator_view())
    left = text.split("pay-off cards left: ")[1]
    for p in st.spectator_view().players:
        who = "you" if p.seat == 2 else f"random@1.0 (seat {p.seat})"
        assert f"{who}: {p.payoff_count}" in left, text


def test_a_free_for_all_forfeit_names_only_the_seat_that_failed():
    """Since a forfeit ranks the sides that did not fail by where they stood (record format 2),
    a seat ranked second beside the failing one is not one that failed: "mine and random 1.0
    crashed" named the second-placed seat too."""
    from cardarena.games import EndReason, Outcome

    o = Outcome((0.0, 0.0, 0.0), (1, 2, 3), EndReason.FORFEIT_CRASH, "seat 2 (random 1.0): boom")
    assert verdict("spot", o, ["a", "b", "c"], None) == "a (seat 0) won by forfeit: c (seat 2) crashed (seat 2 (random 1.0): boom)."
    o = Outcome((0.0, 0.0, 0.0), (1, 1, 3), EndReason.FORFEIT_CRASH, "")  # format 1: every other side first
    assert verdict("spot", o, ["a", "b", "c"], None) == "a (seat 0) and b (seat 1) won by forfeit: c (seat 2) crashed."
