"""The card table's model and HTML (arbiter.present.table) and the /play form's fields,
from real engine states: what a seat may do lights up, nothing it may not see is drawn."""

from __future__ import annotations

import random
import re

from arbiter.present.play_page import _given_options, option_fields
from arbiter.present.table import render_table, table_model
from arbiter.present.web import first_decision
from cardarena.games import get_game


def _state(game: str, options: dict, until, seed: int = 7, limit: int = 2000):
    """A real state of ``game``, random play from ``seed`` until ``until(state)`` holds."""
    st = get_game(game, options).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if until(st):
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("no such state within the limit")


def _tokens(html: str) -> set[str]:
    return set(re.findall(r'data-card="([^"]+)"', html))


def test_spades_the_trick_is_laid_out_by_seat_and_only_the_own_hand_is_face_up():
    st = _state("spades", {}, lambda s: s.spectator_view().phase.name == "PLAY" and len(s.spectator_view().trick) == 2)
    me = st.current_seat
    view = st.view(me)
    m = table_model("spades", view, ["a", "b", "c", "d"], me=me, legal=st.legal_actions())
    assert [s.name for s in m.seats if s.you] == ["you"] and sum(s.to_act for s in m.seats) == 1
    assert [p.pos for p in m.trick] == [{1: "left", 2: "top", 3: "right"}[(p.seat - me) % 4] for p in view.trick]
    assert m.trick[0].tag in ("leader", "winning") and sum(p.tag == "winning" for p in m.trick) == 1
    legal_cards = {str(a)[5:] for a in st.legal_actions()}
    assert {h.src for h in m.hand if h.legal} == legal_cards
    html = str(render_table(m))
    # the face-up cards are the own hand and the trick; the others' hands are counted backs
    assert _tokens(html) == {str(c) for c in view.hand} | {str(p.card) for p in view.trick}
    assert html.count('class="pick legal"') == len(legal_cards)
    assert all(f"play {c}" in {e.text for e in m.catalogue} for c in legal_cards)
    assert m.instant and "follow the suit" in m.explain


def test_spades_look_and_blind_nil_are_explained_and_are_buttons():
    st = _state("spades", {}, lambda s: "look" in {str(a) for a in s.legal_actions()})
    m = table_model("spades", st.view(st.current_seat), "abcd", me=st.current_seat, legal=st.legal_actions(),
                    options={"blind_nil_value": 200})
    assert "blind nil" in m.explain and "+200" in m.explain and "look at your cards" in m.explain
    assert {e.label for e in m.choices} == {"look at my cards", "blind nil"}
    assert not m.hand  # not looked at yet: nothing to show


def test_spite_only_the_legal_targets_of_a_source_are_targets_and_empty_stacks_are_slots():
    st = _state("spite-and-malice", {"payoff_size": 5},
                lambda s: not s.is_terminal and any(str(a).startswith("play hand:") and "center" in str(a) for a in s.legal_actions()))
    me = st.current_seat
    m = table_model("spite-and-malice", st.view(me), ["x", "y"], me=me, legal=st.legal_actions())
    mine = m.mine
    assert mine is not None and [p.label for p in mine.piles] == ["pay-off", "side 1", "side 2", "side 3", "side 4"]
    places = {p.dst for p in m.middle + [p for s in m.seats for p in s.piles] if p.dst}
    for e in m.catalogue:
        if e.srcs:
            assert e.dst in places, e  # every move's target is a place on the table
    html = str(render_table(m))
    assert "side:3</button>" not in html and "-&gt; side" not in html  # no wall of buttons: the table is the choice
    assert not m.choices or {e.text for e in m.choices} <= {"end"}
    opponent = next(s for s in m.seats if not s.you)
    assert not opponent.cards and opponent.backs == st.view(me).players[opponent.seat].hand_count
    assert "Pick a card" in m.explain


def test_spot_draw_targets_the_stock_and_melds_are_selected_cards():
    st = _state("spot", {"players": 2}, lambda s: not s.is_terminal and any(str(a).startswith("meld ") for a in s.legal_actions()))
    me = st.current_seat
    m = table_model("spot", st.view(me), ["x", "y"], me=me, legal=st.legal_actions())
    meld = next(e for e in m.catalogue if e.text.startswith("meld "))
    assert meld.dst == "newmeld" and len(meld.srcs) >= 3 and any(p.dst == "newmeld" for p in m.middle)
    assert all(any(h.src == c and h.legal for h in m.hand) for c in meld.srcs)
    st2 = _state("spot", {"players": 2}, lambda s: not s.is_terminal and "draw stock" in {str(a) for a in s.legal_actions()})
    m2 = table_model("spot", st2.view(st2.current_seat), "xy", me=st2.current_seat, legal=st2.legal_actions())
    assert any(p.dst == "stock" for p in m2.middle) and "Draw a card" in m2.explain


def test_spot_says_a_new_meld_is_3_or_4_cards():
    """The page called a new meld "3 or 4 of a rank, or 3 or more in a row of one suit" (the
    "new meld" place: "3+ in a suit"): a new meld is at most 4 cards, a sequence grows past
    4 only by layoffs on later turns (rules §3.3), so a person who selected five hearts in a
    row lit no place and was not told why."""
    st = _state("spot", {"players": 2}, lambda s: not s.is_terminal and any(str(a).startswith("meld ") for a in s.legal_actions()))
    m = table_model("spot", st.view(st.current_seat), "xy", me=st.current_seat, legal=st.legal_actions())
    place = next(p for p in m.middle if p.dst == "newmeld")
    assert place.note == "3-4 of a rank or 3-4 in a row of a suit", place.note
    assert "a new meld (3 or 4 of a rank, or 3 or 4 in a row of one suit)" in m.explain, m.explain
    assert "3+" not in place.note and "or more" not in m.explain


def test_spot_an_extra_hand_is_not_hand_2_of_1():
    """With end_pot=play_until_won the hands past the match's length read "hand 2 of 1",
    "hand 21 of 1" in replays (the board) and on the web table: they say they are extra, past
    the match's length, and why they are played."""
    from arbiter.present.boards import board

    st = _state("spot", {"players": 3, "hands": 1, "end_pot": "play_until_won"},
                lambda s: not s.is_terminal and s.spectator_view().hand_number == 2, seed=3, limit=20_000)
    v = st.spectator_view()
    said = "hand 2, extra hand 1 after 1 (until the pot is won)"
    note = next(r.note for r in board("spot", v, "abc") if r.label == "hand")
    assert note.startswith(said + ",") and " of 1" not in note, note
    status = table_model("spot", v, "abc").status
    assert status.startswith(said + " ·") and " of 1" not in status, status
    first = get_game("spot", {"players": 3, "hands": 2}).new_initial_state(3).spectator_view()
    assert table_model("spot", first, "abc").status.startswith("hand 1 of 2 ·")


def test_a_replay_table_from_the_spectator_shows_no_hand():
    st = _state("spades", {}, lambda s: s.spectator_view().phase.name == "PLAY")
    html = str(render_table(table_model("spades", st.spectator_view(), "abcd"), interactive=False))
    assert not _tokens(html) - {str(p.card) for p in st.spectator_view().trick}
    assert "<button" not in html


def test_the_form_is_drawn_from_the_option_schema():
    fields = {f.name: f for f in option_fields("spite-and-malice", {})}
    assert fields["kings_wild"].kind == "bool" and fields["kings_wild"].value == "true"
    assert fields["recycle"].kind == "choice" and fields["recycle"].choices == ("immediate", "deferred")
    assert fields["players"].kind == "number" and (fields["players"].min, fields["players"].max) == (2, 6)
    assert fields["payoff_size"].min == 1
    assert fields["decks"].kind == "number" and "blank: none" in fields["decks"].range
    assert all("``" not in str(f.help) for f in fields.values())
    assert "<code>unlimited</code>" in str(fields["center_limit"].help)
    # a text box says what it takes in words, not the schema's type names ("int or unlimited")
    assert fields["center_limit"].range == "a whole number or unlimited"
    assert {f.name: f for f in option_fields("spades", {})}["first_dealer"].range == "random or a whole number"
    # a choice of one name (Spot's tie_rule) is a menu of it, not a text box that asks for "split"
    tie = {f.name: f for f in option_fields("spot", {})}["tie_rule"]
    assert (tie.kind, tie.choices, tie.value) == ("choice", ("split",), "split")
    spades = {f.name: f for f in option_fields("spades", {"nil": "false"})}
    assert spades["nil"].value == "false" and spades["lose_at"].min == -1_000_000  # a score may be negative (bounded as the wire carries it)
    # a check box sends "false" then "true" when ticked: the last one counts; defaults are not options given
    assert _given_options("spades", {"o.nil": ["false", "true"], "o.bag_penalty": ["false"], "o.target": ["500"]}) == {
        "bag_penalty": "false"}


def test_a_replay_opens_on_the_first_decision_that_is_not_a_look():
    class A:
        def __init__(self, seat, action):
            self.seat, self.action = seat, action

    class R:
        actions = [A(1, "look"), A(1, "bid 3"), A(2, "look"), A(2, "bid nil")]

    assert first_decision(R(), None) == 1 and first_decision(R(), 2) == 3 and first_decision(R(), 0) == 0


def test_the_live_fragment_is_one_balanced_part_the_same_for_the_same_moment():
    """What a live page swaps in: its <div>s balanced (the site cuts #live out by them), and
    two renders of one snapshot alike (the clock is a deadline, not a count that moves)."""
    import re as _re

    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment, table_page

    st = _state("spite-and-malice", {}, lambda s: s.current_seat == 0 and s.legal_actions())
    g = get_game("spite-and-malice")
    s = Snapshot("web-0", "spite-and-malice", 0, ("browser", "random"), g.teams, {}, 300000, 3, 4, 5, st.view(0),
                 tuple(st.legal_actions()), ("seat 1 plays",), (), None, None, "", "", 1_800_000_000_000)
    one, two = live_fragment(web._env, s), live_fragment(web._env, s)
    assert one == two
    assert len(_re.findall(r"<div\b", one)) == len(_re.findall(r"</div\s*>", one))
    page = table_page(web._env, s, "n0nce")
    assert one in page and page.count('id="live"') == 1
    assert 'data-deadline="1800000000000"' in one and "data-live-end" not in one


def test_the_board_of_the_end_calls_the_person_you_as_the_page_does():
    """The seat's page said "You won" and listed "you" in its result, then named the same
    seat "seat 0 (browser)" (the seat's internal name) all through "Everything shown at the end"."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment

    st = _state("spite-and-malice", {"payoff_size": 2}, lambda s: s.is_terminal, limit=20_000)
    g = get_game("spite-and-malice", {"payoff_size": 2})
    s = Snapshot("web-0", "spite-and-malice", 0, ("browser", "random"), g.teams, {}, 300000, 3, 4, None, st.view(0),
                 (), (), (), st.outcome(), st.view(0), "stored", "", 0, ("", "1.0"))
    html = live_fragment(web._env, s)
    board = html[html.index('id="final-board"'):]
    assert "seat 0 (you)" in board and "browser" not in board and "seat 1 (random@1.0)" in board


def test_the_replay_command_at_the_end_names_the_store_the_match_is_in(tmp_path):
    """"Recorded: its replay, or arbiter replay web-…" left out --db: pasted, it looked in
    arena.sqlite, not in the store /play keeps its matches in (arbiter web --db club.sqlite)."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import table_page

    st = _state("spite-and-malice", {"payoff_size": 2}, lambda s: s.is_terminal, limit=20_000)
    g = get_game("spite-and-malice", {"payoff_size": 2})
    s = Snapshot("web-0a", "spite-and-malice", 0, ("browser", "random"), g.teams, {}, 300000, 3, 4, None, st.view(0),
                 (), (), (), st.outcome(), st.view(0), "stored", "", 0, ("", "1.0"))
    db = tmp_path / "club night.sqlite"
    assert f"<code>arbiter replay web-0a --db &#39;{db}&#39;</code>" in table_page(web._env, s, "n0nce", db)


def test_the_events_list_says_it_is_the_last_ones_and_numbers_them_so():
    """The seat's page listed "Events (78)" and then 40 of them numbered 1 to 40: the first
    one shown (the 39th event) read as the match's first."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment

    st = _state("spite-and-malice", {}, lambda s: s.current_seat == 0 and s.legal_actions())
    g = get_game("spite-and-malice")
    events = tuple(f"seat 1 plays card {k}" for k in range(1, 79))
    s = Snapshot("web-0", "spite-and-malice", 0, ("browser", "random"), g.teams, {}, 300000, 3, 4, 5, st.view(0),
                 tuple(st.legal_actions()), events, (), None, None, "", "", 0)
    html = live_fragment(web._env, s)
    assert "Events (78: the last 40)" in html and '<ol id="events" start="39">' in html
    assert "card 39<" in html and "card 38<" not in html


def test_spades_events_name_the_seats_as_its_table_does():
    """The Spades table names its seats North, East, South and West (and "you"), but its
    events list said "seat 1 bids 12", "seat 3 wins trick 2": a person had to work out
    which player seat 1 was."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment

    st = _state("spades", {}, lambda s: s.current_seat == 0 and s.legal_actions())
    g = get_game("spades")
    events = ("deal 1: seat 3 deals 13 cards to each seat", "seat 1 bids 12", "seat 2 gives two cards to seat 0",
              "seat 3 wins trick 2")
    s = Snapshot("web-0", "spades", 0, ("browser", "random", "random", "random"), g.teams, {}, 300000, 3, 4, 5,
                 st.view(0), tuple(st.legal_actions()), events, (), None, None, "", "", 0)
    html = live_fragment(web._env, s)
    listed = re.findall(r"<li>(.*?)</li>", html[html.index('id="events"'):])
    assert listed == ["deal 1: West deals 13 cards to each seat", "East bids 12", "South gives two cards to North",
                      "West wins trick 2"]


def test_spades_events_of_two_seats_name_them_as_its_table_does():
    """The exchange's and the score's events name two seats at once ("seats 1 and 3
    exchange two cards", "side A (seats 0,2): ..."), which the table, without seat numbers,
    left as they were."""
    from arbiter.present.table import say

    assert say("spades", "seats 1 and 3 exchange two cards (blind nil)") == "East and West exchange two cards (blind nil)"
    assert say("spades", "side A (seats 0,2): contract 5, took 6; +51 points, 1 bag; total 51, bags 1") == (
        "side A (North and South): contract 5, took 6; +51 points, 1 bag; total 51, bags 1")


def test_the_spades_result_names_the_seats_as_its_table_does():
    """The Spades table names its seats North, East, South and West, but the result at the
    end listed them as seats 0 to 3."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment

    st = _state("spades", {"deals": 1}, lambda s: s.is_terminal, limit=20_000)
    g = get_game("spades", {"deals": 1})
    s = Snapshot("web-0", "spades", 1, ("random", "browser", "random", "random"), g.teams, {"deals": 1}, 300000, 3, 4,
                 None, st.view(1), (), (), (), st.outcome(), st.view(1), "stored", "", 0)
    html = live_fragment(web._env, s)
    result = html[html.index('id="result"'):html.index("</table>", html.index('id="result"'))]
    assert [re.sub(r"<.*", "", r) for r in re.findall(r"<tr[^>]*><td>(.*?)</td>", result)] == ["North", "East", "South", "West"]
    assert '<tr id="result-you"><td>East</td><td>you</td>' in result


def test_a_spades_win_on_the_deal_score_names_each_side_s_own_total():
    """With simultaneous_target_rule=higher_deal_score the side with the lower total can win
    (both reached the target, it scored more in the deal), and the result said "East and
    West won 710 to 700, by 10 points": the other side's total as theirs."""
    from arbiter.present.table import verdict

    options = {"simultaneous_target_rule": "higher_deal_score", "blind_nil": True}
    hands = ["AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
             "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D", "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"]
    g = get_game("spades", options)
    st = g.state_from_deal(hands, dealer=3, scores=(480, 300))
    for text in ("look", "bid 13", "bid blind_nil", "look", "bid nil", "bid blind_nil"):  # A +230, B +400
        st.apply(g.parse_action(text))
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    assert st.scores == [710, 700] and st.outcome().ranks == (2, 1, 2, 1)
    text = verdict("spades", st.outcome(), ("a", "b", "c", "d"), final_view=st.spectator_view(),
                   options=g.describe_options())
    assert text == ("b (East) and d (West) won with 700 to 710: both sides reached the target of 500 in deal 1, "
                    "and they scored more in it (+400 to +230).")
    # without the final view (the CLI's record) the deal's scores are not known: no figures
    text = verdict("spades", st.outcome(), ("a", "b", "c", "d"), options=g.describe_options())
    assert text == ("b (East) and d (West) won with 700 to 710: both sides reached the target of 500 in the same "
                    "deal, and they scored more in it.")


def test_the_list_of_every_legal_action_numbers_piles_as_the_table_does():
    """Spite and Malice's table labels its piles "centre 1".."centre 3" and "side 1".."side 4",
    but the page's list of every legal action read "play hand:2D -> center:0": centre
    pile 1 under the number 0 (the notation's), beside the table that says 1."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment

    st = _state("spite-and-malice", {}, lambda s: s.current_seat == 0 and any("side:3" in str(a) for a in s.legal_actions()))
    g = get_game("spite-and-malice")
    s = Snapshot("web-0", "spite-and-malice", 0, ("browser", "random"), g.teams, {}, 300000, 3, 4, 5, st.view(0),
                 tuple(st.legal_actions()), (), (), None, None, "", "", 0)
    html = live_fragment(web._env, s)
    import html as _html

    listed = {_html.unescape(v): _html.unescape(t) for v, t in
              re.findall(r'<option value="([^"]*)" data-action="[^"]*"[^>]*>([^<]*)</option>', html)}
    side = next(a for a in listed if a.endswith("-> side:3"))  # a discard onto the fourth side stack
    assert listed[side].endswith(" to side stack 4") and "side:" not in listed[side] and "->" not in listed[side]
    assert len(listed) == len(st.legal_actions())  # each still sends its notation


def test_a_forced_card_is_explained_where_the_usual_discard_is_not_offered():
    """With forced_aces (or the book's ace-and-two compulsion), a turn with an ace to play
    offered only that ace, but the page still said "End your turn by putting a hand card on
    a side stack", which no lit pile allowed: the person was left to guess why."""
    for options, rule in (({"forced_aces": True}, "forced_aces"), ({"ace_two_compulsion": True}, "ace_two_compulsion")):
        def forced(s):
            return (s.current_seat is not None and s.view(s.current_seat).phase.name != "FILLING" and s.legal_actions()
                    and not any("-> side:" in str(a) or str(a) == "end" for a in s.legal_actions()))
        st = _state("spite-and-malice", options, forced)
        g = get_game("spite-and-malice", options)
        t = table_model("spite-and-malice", st.view(st.current_seat), ("a", "b"), me=st.current_seat,
                        legal=tuple(st.legal_actions()), options=g.describe_options())
        assert f"must be played to the centre at once ({rule})" in t.explain or f"must go to the centre first ({rule})" in t.explain
    plain = _state("spite-and-malice", {}, lambda s: s.current_seat == 0 and s.legal_actions())
    t = table_model("spite-and-malice", plain.view(0), ("a", "b"), me=0, legal=tuple(plain.legal_actions()),
                    options=get_game("spite-and-malice").describe_options())
    assert "Not yet" not in t.explain


def test_a_hand_ace_forced_by_the_deadlock_rule_is_explained_as_that_rule():
    """Book rules with deadlock_rule = hand_ace_two_then_end: after a pass, the next player
    must play a hand ace or 2; the page blamed the ace-and-two compulsion, which reads only
    the pay-off and side-stack tops ('on top of your pay-off pile or a side stack'), while
    the lit card was in the hand."""
    g = get_game("spite-and-malice", {"deadlock_rule": "hand_ace_two_then_end"}, "book")
    st = g.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["9S 9S 9H 9H 9C", "AS 9S 9H 9H 9C"])
    st.apply(g.parse_action("end"))  # seat 0 passes
    assert [str(a) for a in st.legal_actions()] == ["play hand:AS -> center:new"]
    t = table_model("spite-and-malice", st.view(1), ("a", "b"), me=1, legal=tuple(st.legal_actions()),
                    options=g.describe_options())
    assert ("the player before you passed, so an ace or a natural 2 from your hand must go to the centre first "
            "(deadlock_rule hand_ace_two_then_end)") in t.explain
    assert "ace_two_compulsion" not in t.explain


def test_massachusetts_filling_says_when_the_last_stack_is_filled_and_the_discard_is_due():
    """Massachusetts (§8.11): once every side stack is filled, the turn ends with a discard
    onto any of them; the page still said 'Fill your empty side stacks: pick a hand card,
    then an empty side stack', and there was none."""
    g = get_game("spite-and-malice", None, "massachusetts")
    st = g.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["4C 9D 5C 5C 5C", "9S 9S 9H 9H 9C"],
                             stock="5H 5H 5D 5D 6D 6D", side=[[["9D"], [], [], ["8C"]], [["9D"], ["7D"], ["2C"], ["8C"]]])
    st.apply(g.parse_action("play hand:4C -> side:1"))  # a fill: side:2 is still empty
    t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                    options=g.describe_options())
    assert t.explain.startswith("Fill your empty side stacks")
    st.apply(g.parse_action("play hand:9D -> side:2"))  # the last one
    t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                    options=g.describe_options())
    assert "empty side stack" not in t.explain
    assert t.explain == "Every side stack is filled: end your turn by putting a hand card on any of them."


def test_massachusetts_main_phase_tells_a_card_on_an_empty_stack_is_a_fill_not_the_discard():
    """Massachusetts (§8.11) with an empty side stack: a hand card put there fills it and the
    turn goes on, and no other stack takes one until all are filled; the page said 'End your
    turn by putting a hand card on a side stack', so the person expected the turn to end."""
    g = get_game("spite-and-malice", None, "massachusetts")
    st = g.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["4C 9D 5C 5C 5C", "9S 9S 9H 9H 9C"],
                             stock="5H 5H 5D 5D 6D 6D", side=[[["9D"], [], ["7D"], ["8C"]], [["9D"], ["7D"], ["2C"], ["8C"]]])
    t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                    options=g.describe_options())
    assert "End your turn by putting a hand card on a side stack" not in t.explain
    assert ("First put a hand card on each empty side stack (that does not end your turn), then end it by putting "
            "one on any side stack") in t.explain
    full = g.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["4C 9D 5C 5C 5C", "9S 9S 9H 9H 9C"],
                               stock="5H 5H 5D 5D 6D 6D", side=[[["9D"], ["6D"], ["7D"], ["8C"]]] * 2)
    t = table_model("spite-and-malice", full.view(0), ("a", "b"), me=0, legal=tuple(full.legal_actions()),
                    options=g.describe_options())
    assert "End your turn by putting a hand card on a side stack" in t.explain


def test_book_table_says_which_card_a_descending_side_stack_takes():
    """The book rules (§8.12.2): a side stack takes only a card equal to or one lower than its
    top, so most stacks stay dark for most hand cards; the page said only 'End your turn by
    putting a hand card on a side stack (or press end)', leaving the dark stacks unexplained."""
    g = get_game("spite-and-malice", None, "book")
    st = g.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["4C 9D 5C 5C 5C", "9S 9S 9H 9H 9C"],
                             stock="5H 5H 5D 5D 6D 6D", side=[[["9D"], ["QC"], ["7D"], ["8C"]], [[], [], [], []]])
    t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                    options=g.describe_options())
    assert "a side stack takes a card equal to or one lower than its top, or any card when empty" in t.explain
    plain = get_game("spite-and-malice")
    st = plain.state_from_layout(payoffs=["3D 3D 9C", "4D 4D 10C"], hands=["4C 9D 5C 5C 5C", "9S 9S 9H 9H 9C"])
    t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                    options=plain.describe_options())
    assert "one lower than its top" not in t.explain


def test_spot_says_the_card_taken_from_the_discard_pile_may_not_go_back():
    """Having taken the top of the discard pile, a person who chose that card to discard
    found the pile dark, and the page said only "or the discard pile, which ends your turn"."""
    from arbiter.present.table import card_symbol

    def took(s):
        return s.current_seat is not None and s.view(s.current_seat).taken_discard is not None
    st = _state("spot", {"players": 2}, took, seed=3)
    v = st.view(st.current_seat)
    assert f"discard {v.taken_discard}" not in {str(a) for a in st.legal_actions()}
    t = table_model("spot", v, ("a", "b"), me=st.current_seat, legal=tuple(st.legal_actions()),
                    options=get_game("spot", {"players": 2}).describe_options())
    assert f"The {card_symbol(v.taken_discard)} you took from the discard pile may not go back on it this turn." in t.explain
    allowed = get_game("spot", {"players": 2, "allow_discard_of_taken_card": True}).describe_options()
    assert "may not go back" not in table_model("spot", v, ("a", "b"), me=st.current_seat,
                                                legal=tuple(st.legal_actions()), options=allowed).explain


def test_a_load_onto_an_opponents_pay_off_pile_is_explained_when_offered():
    """With loading, an opponent's pay-off pile lit up as a target while the page spoke only
    of the centre and the side stacks."""
    options = {"loading": True}
    st = _state("spite-and-malice", options, lambda s: any(str(a).startswith("load ") for a in s.legal_actions()), seed=3)
    t = table_model("spite-and-malice", st.view(st.current_seat), ("a", "b"), me=st.current_seat,
                    legal=tuple(st.legal_actions()), options=get_game("spite-and-malice", options).describe_options())
    assert "load a card onto an opponent's pay-off pile: same suit, one rank up or down (loading)" in t.explain


def test_partners_are_told_they_win_together_and_may_play_from_each_other():
    """In partnerships the page said "Play your whole pay-off pile out to win", but a side
    wins when both partners' pay-off piles are out (docs/rules §8.10), and never said that
    the partner's pay-off and side-stack tops, lit up as sources, may be played."""
    options = {"players": 4, "partnerships": True}
    st = _state("spite-and-malice", options, lambda s: s.current_seat == 0 and s.legal_actions())
    t = table_model("spite-and-malice", st.view(0), ("a", "b", "c", "d"), me=0, legal=tuple(st.legal_actions()),
                    options=get_game("spite-and-malice", options).describe_options())
    assert "or your partner's pay-off or side-stack top" in t.explain
    assert "Your side wins when your pay-off pile and your partner's are both played out" in t.explain
    assert "Play your whole pay-off pile out to win" not in t.explain


def test_blind_nil_without_the_exchange_promises_no_swap():
    """With blind_nil_exchange=false the look-or-blind-nil decision still said "you and your
    partner swap two cards", which that game never asks for."""
    for exchange in (True, False):
        options = {"blind_nil_exchange": exchange}
        st = _state("spades", options, lambda s: any(str(a) == "look" for a in s.legal_actions()))
        t = table_model("spades", st.view(st.current_seat), ("a", "b", "c", "d"), me=st.current_seat,
                        legal=tuple(st.legal_actions()), options=get_game("spades", options).describe_options())
        assert ("swap two cards" in t.explain) == exchange and "Or look at your cards first" in t.explain


def test_blind_nil_after_the_partner_s_blind_nil_promises_no_swap():
    """Partners who both bid blind nil exchange nothing (rules §3.3), yet the seat whose
    partner had bid blind nil was still told "you and your partner swap two cards"."""
    st = get_game("spades", {"first_dealer": 3}).new_initial_state(1)
    for text in ("bid blind_nil", "look", "bid 3"):  # seat 0 blind nil, seat 1 bids 3
        st.apply(st.game.parse_action(text))
    assert st.current_seat == 2 and "look" in {str(a) for a in st.legal_actions()}
    t = table_model("spades", st.view(2), ("a", "b", "c", "d"), me=2, legal=tuple(st.legal_actions()),
                    options=st.game.describe_options())
    assert "swap two cards" not in t.explain and "Or look at your cards first" in t.explain


def test_the_wild_cards_of_the_game_are_the_ones_the_page_names():
    """The book's jokers are wild (kings natural, and no wild card may stand for an ace), but
    the page named no wild card at all: it said only whether kings were."""
    for options, said in (({}, ", kings are wild."), ({"kings_wild": False}, "from an ace to K. "),
                          ({"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A"}, ", jokers are wild (never as A)."),
                          ({"jokers": 2, "wild_excluded_ranks": "A,7"}, ", kings and jokers are wild (never as A or 7).")):
        st = _state("spite-and-malice", options, lambda s: s.current_seat == 0 and s.legal_actions())
        t = table_model("spite-and-malice", st.view(0), ("a", "b"), me=0, legal=tuple(st.legal_actions()),
                        options=get_game("spite-and-malice", options).describe_options())
        assert said in t.explain, (options, t.explain)


def test_a_forfeit_of_the_person_calls_the_person_you_in_its_detail():
    """The person's own forfeit read "you ran out of time (seat 0 (browser): no answer ...)":
    the page calls the seat you everywhere else, and "browser" is only its name in records."""
    from arbiter.present.table import verdict
    from cardarena.games import EndReason, Outcome

    o = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_TIMEOUT, "seat 0 (browser): no answer within the decision limit (2000 ms)")
    said = verdict("spot", o, ("browser", "random@1.0"), 0)
    assert said == "random@1.0 (seat 1) won by forfeit: you ran out of time (you: no answer within the decision limit (2000 ms))."
    assert "browser" in verdict("spot", o, ("browser", "random@1.0"), None)  # a spectator's page keeps the name


def test_spot_a_pot_split_by_the_extra_hands_guard_is_said():
    """With end_pot=play_until_won a match whose pot stayed unwon through max_extra_hands
    ends as turn_limit with the pot split equally, but the sentence read only "... after 21
    hands." (with hands=1): it now says why the match stopped there."""
    from arbiter.present.table import verdict

    st = _state("spot", {"players": 3, "hands": 1, "end_pot": "play_until_won", "max_extra_hands": 2,
                         "max_turns_per_hand": 3}, lambda s: s.is_terminal, seed=3, limit=20_000)
    o = st.outcome()
    assert o.reason.value == "turn_limit"
    said = verdict("spot", o, ("a", "b", "c"))
    assert said.endswith("after 3 hands (max_extra_hands reached; pot split equally)."), said
    plain = _state("spot", {"players": 2, "hands": 1}, lambda s: s.is_terminal, seed=3, limit=20_000).outcome()
    assert verdict("spot", plain, ("a", "b")).endswith("after 1 hand.")


def test_a_match_ended_by_forfeit_shows_nobody_to_act():
    """A person who ran out of time saw "You lost" above a table that still said "you ·
    to act": a forfeit shows the last decision's view (no final view is disclosed after one)."""
    from arbiter.person.tables import Snapshot
    from arbiter.present import web
    from arbiter.present.play_page import live_fragment
    from cardarena.games import EndReason, Outcome

    st = _state("spot", {"players": 2}, lambda s: s.current_seat == 0 and s.legal_actions())
    g = get_game("spot", {"players": 2})
    o = Outcome((0.0, 0.0), (2, 1), EndReason.FORFEIT_TIMEOUT, "seat 0 (browser): no answer within the decision limit (2000 ms)")
    s = Snapshot("web-0", "spot", 0, ("browser", "random"), g.teams, {"players": 2}, 2000, 3, 4, None, st.view(0),
                 (), (), (), o, None, "stored", "", 0)
    html = live_fragment(web._env, s)
    assert "You lost." in html and "to act" not in html


def test_a_series_is_told_as_a_series():
    """With series_scoring the match is a series of games scored in points, but its verdict
    told only the last game ("You emptied the pay-off pile first"), not who won the series
    and by how many points."""
    from arbiter.present.table import verdict

    options = {"series_scoring": True, "match_target": 8, "payoff_size": 3}
    g = get_game("spite-and-malice", options)
    st = g.new_initial_state(5)
    rng = random.Random(2)
    while not st.is_terminal:
        la = st.legal_actions()
        centre = [a for a in la if "center" in str(a)]
        st.apply(rng.choice(centre) if centre and rng.random() < 0.9 else rng.choice(la))
    o = st.outcome()
    said = verdict("spite-and-malice", o, ("browser", "random"), 0, st.view(0), g.describe_options())
    assert said.startswith("You won the series 15 points to 0 (the first to 8). Its last game: you emptied the pay-off pile first"), said


def test_spot_says_the_turns_one_new_meld_is_made():
    """After a new meld the page still offered "a new meld (3 or 4 of a rank...)" as where
    selected cards could go, though a second one is not allowed in a turn: no selection lit
    a place for it."""
    def melded(s):
        return s.current_seat is not None and s.view(s.current_seat).new_meld_made
    st = _state("spot", {"players": 2}, melded, seed=1, limit=20_000)
    v = st.view(st.current_seat)
    assert not any(str(a).startswith("meld ") for a in st.legal_actions())
    t = table_model("spot", v, ("a", "b"), me=st.current_seat, legal=tuple(st.legal_actions()),
                    options=get_game("spot", {"players": 2}).describe_options())
    assert "and made this turn's one new meld: lay off or discard." in t.explain
