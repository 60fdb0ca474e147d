"""arbiter.present: boards label Spite and Malice piles as the notation does, the exports
and displays say what was played (preset and options as applied, clock, teams), partners
are one row, and W-D-L is explained in a free for all."""

from __future__ import annotations

import random
import re

from arbiter.present.boards import board
from arbiter.present.export import render
from arbiter.present.played import FFA_WDL_NOTE, describe, team_rows, with_clock
from arbiter.rating.ratings import Rating, Standings, StandingRow
from cardarena.games import get_game


def _played_state(game: str, steps: int, seed: int = 3, **kw):
    g = get_game(game, **kw)
    st = g.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_terminal:
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


def test_spite_and_malice_board_labels_piles_as_the_notation_does():
    st = _played_state("spite-and-malice", 60)
    v = st.spectator_view()
    rows = board("spite-and-malice", v, ["a", "b"])
    labels = [r.label for r in rows]
    assert [lab for lab in labels if lab.startswith("center")] == [f"center:{i}" for i in range(len(v.center))] or (
        not v.center and "center" in labels)
    for seat, name in enumerate("ab"):
        assert [lab for lab in labels if " side" in lab and f"({name})" in lab] == [
            f"seat {seat} ({name}) side:{j}" for j in range(4)]
    assert not any(re.search(r"\b(centre|side) \d", lab) for lab in labels)  # no 1-based "side 4", "centre 2"
    # every pile an action names is a label of the board
    legal = [str(a) for a in st.legal_actions()]
    named = {m for a in legal for m in re.findall(r"(?:center|side):\d+", a)}
    own = st.current_seat
    for target in named:
        kind, _, j = target.partition(":")
        want = f"center:{j}" if kind == "center" else f"seat {own} ({'ab'[own]}) side:{j}"
        assert want in labels, (target, labels)


def test_the_spades_board_says_a_deal_s_bag_penalty():
    """A deal result read "side A +158 = 395" from 337: the points of the deal before its
    bag penalty, then the total after it, with nothing to say 100 went missing between."""
    hands = ["AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
             "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D", "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"]
    st = get_game("spades", {"blind_nil": False}).state_from_deal(hands, dealer=3, scores=(337, 0), bags=(7, 0))
    for text in ("bid 5", "bid 1", "bid nil", "bid 1"):  # seat 0 takes all 13: A +158, 8 bags
        st.apply(st.game.parse_action(text))
    while st.deal_no == 1:
        st.apply(st.legal_actions()[0])
    (row,) = [r for r in board("spades", st.spectator_view(), ["a", "b", "c", "d"]) if r.label == "deal 1 result"]
    assert row.note.startswith("side A +158, 1 bag penalty = 395, side B ")


def test_the_board_says_game_and_turn_as_the_events_do():
    st = _played_state("spite-and-malice", 10)
    v = st.spectator_view()
    note = board("spite-and-malice", v, ["a", "b"])[0].note
    turn_event = [e.text for e in st.log if e.kind == "turn"][-1]  # "seat N to play (turn T)"
    number = re.search(r"turn (\d+)", turn_event).group(1)
    assert f"turn {number}," in note and note.startswith("game 1,")


def test_the_boards_show_the_first_players_turn_ups_and_who_laid_off_what():
    """The public history the views carry is on the boards (the replay's, the spectator's):
    Spite and Malice's cards turned up to choose the first player, Spot's layoffs."""
    st = get_game("spite-and-malice", {"decks": 1, "payoff_size": 8}).new_initial_state(0)  # a tie, then a choice
    v = st.spectator_view()
    (row,) = [r for r in board("spite-and-malice", v, ["a", "b"]) if r.label == "first player"]
    assert row.cards == tuple(t.card for t in v.first_player_turn_ups) and len(row.cards) == 4
    assert row.note == f"seat {v.first_player} ({'ab'[v.first_player]}) plays first; turned up by seats 0 1, then 0 1 (1 tie: the tied reshuffled)"
    st, rng = get_game("spot").new_initial_state(0), random.Random(0)
    while not st.spectator_view().layoffs:
        st.apply(rng.choice(st.legal_actions()))
    v = st.spectator_view()
    x = v.layoffs[0]
    (row,) = [r for r in board("spot", v, ["a", "b", "c", "d"]) if r.label.startswith(f"m{x.meld} ")]
    assert f"laid off {x.card} by seat {x.seat} ({'abcd'[x.seat]})" in row.note


def test_a_preset_is_described_as_applied():
    p = describe({"game": "spite-and-malice", "preset": "book", "options": {"max_turns": 40}, "decision_ms": 2000,
                  "bank_ms": 0, "policy": "forfeit"})
    assert p.options["deck_split"] is True and p.changed["payoff_size"] == 26 and "players" not in p.changed
    assert p.options_text.startswith("preset book, max_turns=40; as applied: ")
    assert "deck_split=true" in p.options_text and "max_turns=40" in p.applied_text
    assert p.clock_text == "2000 ms a decision"
    assert describe({"game": "spades", "options": {}}).options_text == "defaults"
    assert describe({"game": "spades", "options": {"target": "300"}}).options_text == "target=300"
    assert describe({"game": "spades", "options": {"nope": 1}}).error  # an unusable spec is said, not raised


def test_teams_wdl_and_the_summary_of_the_exports():
    spades = describe({"game": "spades", "teams": [["a", "b"], ["c", "d"]]})
    assert spades.teams_text == "a + b, c + d" and not spades.free_for_all and spades.wdl_note == ""
    assert describe({"game": "spades"}).teams_text == "each bot with its copy"
    spot = describe({"game": "spot", "options": {"players": 3}})
    assert spot.free_for_all and spot.wdl_note == FFA_WDL_NOTE and spot.seats_per_side == 1

    def row(rank, name, **kw):
        r = StandingRow(rank, name, matches=4, wins=2, draws=0, losses=2, points=2.0, margin_sum=4.0, **kw)
        r.rating = Rating(25.0 if name in "ab" else 20.0, 10.0, 40.0)
        return r

    st = Standings([row(1, "a"), row(2, "b"), row(3, "c"), row(4, "d")], "plackett-luce", {}, 8, True)
    shown = team_rows(st, [["a", "b"], ["c", "d"]])
    assert [(d.rank, d.label) for d in shown] == [(1, "a + b"), (2, "c + d")]
    assert [d.label for d in team_rows(st, [])] == ["a", "b", "c", "d"]
    st.rows[1].wins = 3  # partners whose numbers differ stay apart, marked
    assert [d.label for d in team_rows(st, [["a", "b"], ["c", "d"]])][:2] == ["a (team a + b)", "b (team a + b)"]
    st.rows[1].wins = 2
    info = with_clock({"name": "t", "game": "spades", "options": {"deals": 1}, "preset": None, "format": "round-robin",
                       "teams": [["a", "b"], ["c", "d"]], "planned": 8, "seed": 1},
                      {"decision_ms": 500, "bank_ms": 1000, "policy": "forfeit", "bots": ["secret"]})
    assert "bots" not in info and info["decision_ms"] == 500
    md = render("md", st, info)
    assert "teams a + b, c + d" in md and "clock 500 ms a decision + 1000 ms bank" in md
    table = md.split("## Cross-table")[0]
    assert "| 1 | a + b |" in table and "| 2 | c + d |" in table and "| b |" not in table
    html = render("html", st, info)
    assert "a + b" in html and "W-D-L counts" not in html
    csv_text = render("csv", st, info)
    assert csv_text.splitlines()[0].endswith(",team") and csv_text.splitlines()[1].endswith(",a + b")


def test_standings_and_the_web_page_say_which_variance_reduction_was_used():
    from arbiter.present.played import describe

    dup = describe({"game": "spades", "duplicate": True, "seatings": "permutations"})
    assert ("variance reduction", dup.variance_text) in dup.lines() and "every permutation" in dup.variance_text
    plain = describe({"game": "spades", "duplicate": False})
    assert plain.variance_text.startswith("none")


def test_the_margin_column_neither_claims_plus_minus_zero_nor_rounds_an_s_e_to_it():
    # a bot that forfeited every deal (every deal -1: s.e. 0, no certainty) and a Spite and
    # Malice bot whose s.e. over 400 deals is below the column's one decimal: both were "± 0.0"
    from arbiter.present.export import margin_note, margin_text

    def row(rank, name, values):
        r = StandingRow(rank, name, matches=2 * len(values), dup_values=values)
        r.rating = Rating(1500.0, 1400.0, 1600.0)
        return r

    st = Standings([row(1, "a", [1.0] * 5), row(2, "b", [-1.0] * 5), row(3, "c", [0.5 + 0.03 * (i % 2) for i in range(400)])],
                   "bradley-terry", {}, 10, True)
    assert [margin_text(st, r) for r in st.rows] == ["+1.0 (no spread)", "-1.0 (no spread)", "+0.5150 ± 0.0008"]
    assert "no spread: every deal alike" in margin_note(st)
    assert "no spread" not in margin_note(Standings([st.rows[2]], "bradley-terry", {}, 10, True))


def test_a_bot_with_no_match_yet_shows_no_score_or_margin_of_0():
    # its row read "score% 0.0, margin +0.0": a bot that lost everything, level on margin
    played = StandingRow(1, "a", matches=2, wins=2, points=2.0, margin_sum=4.0, dup_values=[2.0])
    played.rating = Rating(1500.0, 1400.0, 1600.0)
    st = Standings([played, StandingRow(2, "c")], "bradley-terry", {}, 2, True)
    md = render("md", st, {"name": "t", "game": "spades", "options": {}, "preset": None, "format": "round-robin",
                           "planned": 4, "seed": 1})
    line = next(x for x in md.splitlines() if x.startswith("| 2 | c |"))
    assert "0.0" not in line and "+0.0" not in line and line.count("–") >= 2, line


def test_a_likelihood_of_superiority_is_never_shown_as_a_certain_100_or_0():
    # LOS is a normal approximation's probability, never 1: random over a bot that forfeited all
    # its matches, 0.9955, read "100%" in the CLI's table, 0.9999999 "100.0%" on the pages
    from arbiter.present.export import los_text

    assert [los_text(p) for p in (0.5, 0.9945, 0.9999999, 1e-9, 0.0004)] == ["50.0%", "99.5%", ">99.9%", "<0.1%", "<0.1%"]
    assert [los_text(p, 0) for p in (0.9955, 0.004, 0.72)] == [">99%", "<1%", "72%"]


def test_an_option_given_at_its_default_is_not_said_to_be_left_out():
    """Spot's -o players=4 (its default) and -o hands=2 read "hands=2, players=4; as applied:
    hands=2", as if players=4 had not been applied. Given options all in force, and nothing else
    changed, the text is what was given; a derived change (Spite and Malice's partnerships deal
    four decks) is still said."""
    assert describe({"game": "spot", "options": {"hands": 2, "players": 4}}).options_text == "hands=2, players=4"
    partners = describe({"game": "spite-and-malice", "options": {"partnerships": True, "players": 4}}).options_text
    assert partners.startswith("partnerships=true, players=4; as applied: ") and "decks=4" in partners, partners
    assert describe({"game": "spades", "options": {"deals": 1}}).options_text == "deals=1"
