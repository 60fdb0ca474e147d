"""The card table of the web pages: a seat's view drawn as a table, for ``/play`` and the
replay viewer alike.

``table_model()`` turns one view (what ``State.view(seat)`` handed a seat, or a replay
step's view; in a replay's "every hand" mode also every seat's view) and the seat's legal
actions into a ``TableModel``: the seats around the table (names, "you", who is to act,
their public facts, their piles), the middle (the trick laid out by seat, the centre
piles, the stock and discard pile, the melds), the hand, and a sentence that explains the
choice being asked. ``render_table()`` draws it as HTML; nothing else reaches the page,
so the page shows only what the view carries.

How a person acts (the script in ``TABLE_SCRIPT``, bound by event delegation on the
document, so it survives the table being swapped in anew): every legal action is an
entry of a catalogue (the page's fallback ``<select>``, one ``<option>`` per action with
``data-from``, the card sources it moves, and ``data-to``, where to). Clicking a source
(a hand card, the pay-off pile, a side stack) selects it; the targets of the actions
that move exactly the selection light up, and clicking one acts. An action of one card
and no target (Spades' ``play QS``) acts at the first click; one of several cards and no
target (a blind-nil ``give``) gets a button once its cards are selected. Actions of no
card (bids, ``look``, ``end``) are buttons. Without the script the fallback form still
submits any legal action.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from markupsafe import Markup

from arbiter.present.boards import hand_for, plural, spot_hand_text
from arbiter.present.games import PAGES, page_part
from cardarena.games import Card, ConfigError, get_game
from cardarena.games.cards import RANK_TOKENS
from cardarena.games.spades import trick_winner
from cardarena.records import visible

__all__ = ["TABLE_SCRIPT", "TABLE_STYLE", "TableModel", "face", "render_table", "table_model"]

_SUITS = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}


_SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def shown(value: Any) -> Any:
    """A value as a page shows it: text (a ``str``, not ``Markup``) with its control
    characters written as their escapes (``visible``: an ESC or a CR in a bot's note, a
    stderr or a tournament's name would otherwise show as nothing, or as a line break),
    anything else as it is. The pages' templates' ``finalize`` (web.py, inspector.py), and
    ``_escaped`` for the HTML built here; autoescaping still does the escaping."""
    return visible(value) if type(value) is str else value


def _escaped(text: str) -> str:
    """``text`` shown (``shown``) and escaped for HTML, for an element's text or an attribute."""
    return html.escape(visible(text))


def card_name(card: Card | str) -> str:
    """A card in words, as a screen reader should say it: ``queen of spades``, ``10 of hearts``, ``joker``."""
    token = str(card)
    if token == "JK":
        return "joker"
    rank = token[:-1]
    return f"{_RANK_NAMES.get(rank, rank)} of {_SUIT_NAMES[token[-1]]}"


def card_symbol(card: Card | str) -> str:
    """A card as the table prints it in a sentence: ``Q♠``."""
    token = str(card)
    return token if token == "JK" else token[:-1] + _SUITS[token[-1]][0]


def face(card: Card, small: bool = False) -> Markup:
    """A card face drawn in HTML (rank over suit symbol, red or black), named in words for
    a screen reader (``role="img"``, ``aria-label="queen of spades"``); no image."""
    token = str(card)
    size = " sm" if small else ""
    name = card_name(token)
    if token == "JK":
        return Markup(f'<span class="card joker{size}" role="img" aria-label="joker" title="joker" data-card="JK">'
                      '<b aria-hidden="true">JK</b><i aria-hidden="true">★</i></span>')
    sym, colour = _SUITS[token[-1]]
    rank = _escaped(token[:-1])
    ten = ' class="ten"' if len(token) == 3 else ""
    return Markup(f'<span class="card {colour}{size}" role="img" aria-label="{name}" title="{name}" data-card="{token}">'
                  f'<b{ten} aria-hidden="true">{rank}</b><i aria-hidden="true">{sym}</i></span>')


def back(small: bool = False) -> Markup:
    return Markup(f'<span class="card back{" sm" if small else ""}" role="img" aria-label="a face-down card" title="face down"></span>')


#: Spades' seats by compass point, seat 0 first (partners face each other: North and South, East and West).
COMPASS = ("North", "East", "South", "West")


def seat_place(game: str, seat: int) -> str:
    """Where a seat sits, in words: a compass point in Spades, else its number."""
    return COMPASS[seat] if game == "spades" and 0 <= seat < 4 else f"seat {seat}"


def seat_labels(names: Sequence[str], versions: Sequence[str] = ()) -> tuple[str, ...]:
    """The seats' names as a table shows them: each bot with the version it said it is
    (``name@version``, as a registered bot is written; a name that says it already, and a
    seat whose bot said none, as it is). The table adds the seat's place (``seat_place``)."""
    def label(name: str, version: str) -> str:
        return f"{name}@{version}" if version and not name.endswith(f"@{version}") else name
    return tuple(label(n, versions[i] if i < len(versions) else "") for i, n in enumerate(names))


_SPITE_PLACE = re.compile(r"\b(partner_payoff|partner_side:(\d+)|payoff(?::(\d+))?|side:(\d+)|center:(\d+|new)|hand:(10|[2-9AJQK])([SHDC])|hand:JK)")


def _spite_place(m: "re.Match[str]") -> str:
    text = m.group(0)
    if text.startswith("hand:"):
        return (card_symbol(text[5:]) + " from the hand") if text != "hand:JK" else "the joker from the hand"
    if text == "partner_payoff":
        return "the partner's pay-off pile"
    if text.startswith("partner_side:"):
        return f"the partner's side stack {int(m.group(2)) + 1}"
    if text.startswith("payoff"):
        return "the pay-off pile" + (f" of seat {m.group(3)}" if m.group(3) else "")
    if text.startswith("side:"):
        return f"side stack {int(m.group(4)) + 1}"
    return "a new centre pile" if m.group(5) == "new" else f"centre pile {int(m.group(5)) + 1}"


_GIVES = re.compile(r"^seat (\d+) gives two cards to seat (\d+)$")


def told_once(texts: Sequence[str]) -> list[str]:
    """Events as a person reads them: a blind-nil give that the seat sees with its cards
    ("seat 2 gives 7H 4H to seat 0") is not told again without them (the public line
    every seat gets, "seat 2 gives two cards to seat 0")."""
    out = []
    for k, t in enumerate(texts):
        m = _GIVES.match(t)
        if m and k + 1 < len(texts):
            nxt = texts[k + 1]
            if nxt.startswith(f"seat {m.group(1)} gives ") and nxt.endswith(f" to seat {m.group(2)}"):
                continue
        out.append(t)
    return out


_SEAT = re.compile(r"\bseat (\d+)\b")
#: Two seats at once: Spades' exchange ("seats 1 and 3 exchange ...") and score events ("side A (seats 0,2)").
_SEATS = re.compile(r"\bseats (\d+)(?:,| and )(\d+)\b")


def say(game: str, text: str) -> str:
    """A move or an event in words where the game's notation is not for people (Spite
    and Malice's ``play side:0 -> center:1`` reads "play side stack 1 to centre pile 2";
    ``hand:2S`` reads "2♠ from the hand"), and its seats named as the table names them
    (``seat_place``: Spades' "seat 1 wins trick 3" reads "East wins trick 3", since its
    table has no seat numbers to look them up by); other games' text is left as it is."""
    if game == "spades":
        text = _SEATS.sub(lambda m: f"{seat_place(game, int(m.group(1)))} and {seat_place(game, int(m.group(2)))}", text)
        return _SEAT.sub(lambda m: seat_place(game, int(m.group(1))), text)
    if game != "spite-and-malice":
        return text
    return _SPITE_PLACE.sub(_spite_place, text).replace(" -> ", " to ")


# --------------------------------------------------------------------------------------
# The model.


@dataclass
class Pile:
    """A place on the table: a pile, a side stack, a meld, a trick card or an empty slot."""

    label: str
    cards: tuple[Card, ...] = ()  # face up, bottom first (the top, the playable one, last)
    backs: int = 0  # face-down cards under them (drawn as one back with a count)
    note: str = ""
    src: str = ""  # the source token its top card is picked as (only the seat's own piles)
    dst: str = ""  # the target token it is as a destination
    spread: bool = False  # every card shown (side stacks, melds); else the top card only
    tag: str = ""  # "leader", "winner", "winning": marks on a trick card
    pos: str = ""  # where a trick card lies: the seat's place at the table


@dataclass
class SeatBox:
    seat: int
    name: str
    you: bool
    pos: str  # "bottom", "left", "top", "right", "tl", "tr"
    to_act: bool = False
    facts: list[str] = field(default_factory=list)
    piles: list[Pile] = field(default_factory=list)
    cards: tuple[Card, ...] = ()  # its hand face up (a replay's "every hand", or the end)
    backs: int = 0  # its hand face down
    partner: bool = False
    where: str = ""  # its place in words: a compass point (Spades) or "seat N"


@dataclass
class HandCard:
    card: Card
    src: str
    legal: bool


@dataclass
class Entry:
    """One legal action in the catalogue: its text, the sources it moves, its target."""

    text: str
    srcs: tuple[str, ...] = ()
    dst: str = ""
    label: str = ""


@dataclass
class TableModel:
    game: str
    seats: list[SeatBox]
    middle: list[Pile]  # the centre of the table
    middle_title: str
    trick: list[Pile]  # Spades: the trick laid out by seat (pos); empty otherwise
    hand: list[HandCard]
    hand_title: str
    explain: str  # the choice being asked, in a sentence ("" when none)
    status: str  # the table's state in a line (deal, phase, who is to act)
    catalogue: list[Entry]
    choices: list[Entry]  # actions of no card and no target on the table: buttons
    instant: bool  # an action of one card and no target acts at the first click
    peek: list[Pile] = field(default_factory=list)  # Spades: the last finished trick, while the next one is played
    peek_title: str = ""
    sheet_head: tuple[str, ...] = ()  # Spades: the score sheet's columns
    sheet: list[tuple[str, ...]] = field(default_factory=list)  # one row per deal (the current one last)
    trick_no: int = 0  # the trick shown (Spades), for the page's motion
    trick_done: bool = False  # it is finished (its winner marked)
    over: bool = False  # the game is over (the score sheet opens by itself)

    @property
    def mine(self) -> SeatBox | None:
        return next((s for s in self.seats if s.you), None)


def _positions(n: int) -> list[str]:
    return {2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"],
            5: ["bottom", "left", "tl", "tr", "right"], 6: ["bottom", "left", "tl", "top", "tr", "right"]}.get(
        n, ["bottom"] + ["top"] * (n - 1))


def _place(n: int, me: int) -> dict[int, str]:
    """Each seat's place, the viewpoint seat at the bottom, the next ones clockwise."""
    pos = _positions(n)
    return {(me + k) % n: pos[k] for k in range(n)}


def _who(names: Sequence[str], s: int, me: int | None) -> str:
    if me is not None and s == me:
        return "you"
    return names[s] if s < len(names) else f"seat {s}"


def _whose(names: Sequence[str], s: int, me: int | None, game: str = "") -> str:
    """A seat in a sentence: "you", or its name and place (bots often share a name)."""
    return "you" if me is not None and s == me else f"{_who(names, s, None)} ({seat_place(game, s)})"


def _partner_of(game: str, viewer: int, me: int | None) -> str:
    """The "partner" fact of a seat: of the person's own seat on their page ("partner"), else
    of the seat the table is drawn for, the bottom one, by name ("North's partner"). A
    replay's every-hand and spectator views are drawn for seat 0 whoever is to act, and a bare
    "partner" beside South while West acted read as West's partner."""
    return "partner" if me is not None else f"{seat_place(game, viewer)}'s partner"


def _entry(game: str, text: str) -> Entry:
    """An action's sources and target, read from its notation (rules/README.md)."""
    fn = page_part(game, "entry")
    return (fn(text) if fn is not None else None) or Entry(text, label=text)


def _spades_entry(text: str) -> Entry:
    if text.startswith("play "):
        return Entry(text, (text[5:],))
    if text.startswith("give "):
        return Entry(text, tuple(text[5:].split()), "", "give these to your partner")
    label = {"look": "look at my cards", "bid nil": "nil", "bid blind_nil": "blind nil"}.get(text, text[4:] if text.startswith("bid ") else text)
    return Entry(text, label=label)


def _spite_entry(text: str) -> Entry:
    if " -> " in text and text.split(" ", 1)[0] in ("play", "load"):
        src, dst = text.split(" ", 1)[1].split(" -> ")
        return Entry(text, (src,), dst)
    return Entry(text, label={"end": "end my turn"}.get(text, text))


def _spot_entry(text: str) -> Entry | None:
    if text.startswith("draw "):
        return Entry(text, (), text[5:], {"draw stock": "draw from the stock", "draw discard": "take the discard"}.get(text, text))
    if text.startswith("discard "):
        return Entry(text, (text[8:],), "discard")
    if text.startswith("meld "):
        return Entry(text, tuple(text[5:].strip("[]").split()), "newmeld")
    if text.startswith("layoff "):
        card, meld = text[7:].split(" -> ")
        return Entry(text, (card,), meld)
    return None


def table_model(game: str, view: Any, names: Sequence[str], *, me: int | None = None,
                legal: Iterable[Any] = (), seat_views: Sequence[Any] = (), options: dict[str, Any] | None = None) -> TableModel:
    """The table of ``view`` as seen by seat ``me`` (None: a spectator; the view's own
    seat is the viewpoint when it has one); ``legal``: the actions ``me`` may take now;
    ``seat_views``: every seat's view (a replay's "every hand"), else only ``view``'s."""
    catalogue = [_entry(game, str(a)) for a in legal]
    fn = page_part(game, "table")
    model = fn(view, tuple(names), me, catalogue, tuple(seat_views), options or {})
    used = {s for e in catalogue for s in e.srcs}
    for h in model.hand:
        h.legal = h.src in used
    targets = {p.dst for p in model.middle + [p for s in model.seats for p in s.piles]}
    model.choices = [e for e in catalogue if not e.srcs and (not e.dst or e.dst not in targets or game == "spot")]
    return model


# -- Spades ----------------------------------------------------------------------------


def _spades(v: Any, names: tuple[str, ...], me: int | None, cat: list[Entry], seat_views: tuple[Any, ...],
            options: dict[str, Any]) -> TableModel:
    viewer = me if me is not None else (v.seat if v.seat is not None else 0)
    place = _place(4, viewer)
    seats = []
    for st in v.seats:
        bid = "no bid yet" if st.bid is None else ("bid blind nil" if st.blind_nil else ("bid nil" if st.bid == 0 else f"bid {st.bid}"))
        facts = [bid, plural(st.tricks_won, "trick")]
        if (st.seat - viewer) % 4 == 2:
            facts.insert(0, _partner_of("spades", viewer, me))
        if st.seat == v.dealer:
            facts.append("dealer")
        if v.leader == st.seat and v.phase.name == "PLAY":
            facts.append("leads")
        box = SeatBox(st.seat, _who(names, st.seat, viewer if me is not None else None), me is not None and st.seat == me,
                      place[st.seat], v.to_act == st.seat, facts, partner=(st.seat - viewer) % 4 == 2,
                      where=COMPASS[st.seat])
        hand = hand_for(v, seat_views, st.seat)
        if not (st.seat == viewer and (me is not None or v.seat is not None)):  # the viewpoint's own hand: below
            if hand is not None:
                box.cards = hand
            else:
                box.backs = st.hand_count
        seats.append(box)
    trick: list[Pile] = []
    title = "the trick"
    # the seat winning it so far, by the engine's own rule (as sdk.spades documents it)
    shown, winner = v.trick, trick_winner([(p.seat, int(p.card)) for p in v.trick]) if v.trick else None
    tag_win = "winning"
    if not v.trick and v.tricks:
        last = v.tricks[-1]
        shown, winner, tag_win = last.cards, last.winner, "winner"
        title = f"trick {len(v.tricks)}, won by {_whose(names, last.winner, me, 'spades')}" if last.winner is not None else f"trick {len(v.tricks)}"
    elif v.trick:
        title = f"trick {len(v.tricks) + 1}, led by {_whose(names, v.trick[0].seat, me, 'spades')}"
    for k, p in enumerate(shown):
        tag = "winner" if p.seat == winner and tag_win == "winner" else ("winning" if p.seat == winner else "")
        trick.append(Pile("you" if p.seat == me else COMPASS[p.seat], (p.card,), tag=tag or ("leader" if k == 0 else ""),
                          pos=place[p.seat], note="led" if k == 0 else ""))
    peek, peek_title = [], ""
    if v.tricks:  # the last finished trick, to look back at (the one shown in the middle goes to its winner)
        last = v.tricks[-1]
        peek_title = f"last trick, won by {_whose(names, last.winner, me, 'spades')}" if last.winner is not None else "last trick"
        for k, p in enumerate(last.cards):
            peek.append(Pile("you" if p.seat == me else COMPASS[p.seat], (p.card,), tag="winner" if p.seat == last.winner else "",
                             pos=place[p.seat]))
    sides = " · ".join(f"{' & '.join('you' if x == me else COMPASS[x] for x in s.seats)}: "
                       f"{plural(s.score, 'point')}, {plural(s.bags, 'bag')}"
                       for s in v.sides)
    hand = [HandCard(c, str(c), False) for c in (v.hand if v.hand_visible and me is not None else ())]
    if me is None and v.seat is not None:
        own = hand_for(v, seat_views, v.seat)
        hand = [HandCard(c, str(c), False) for c in (own or ())]
    mine = next((s for s in seats if s.seat == viewer), None)
    if mine is not None and not hand and (me is not None or v.seat is not None):
        mine.backs = v.seats[viewer].hand_count
    phase = v.phase.name.lower()
    status = f"deal {v.deal} · {phase}" + (f" · {_whose(names, v.to_act, me, 'spades')} to act" if v.to_act is not None else "") + f" · {sides}"
    head, sheet = _score_sheet(v, me)
    return TableModel("spades", seats, [], title, trick, hand, "your hand" if me is not None else "hand",
                      _spades_explain(v, cat, options), status, cat, [], True, peek, peek_title, head, sheet,
                      len(v.tricks) + (1 if v.trick else 0), bool(not v.trick and v.tricks), v.phase.name == "GAME_OVER")


def _score_sheet(v: Any, me: int | None) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The score sheet: a row per finished deal (each side's bids, tricks, points, bags and
    total), then the deal being played (bids so far, tricks so far)."""
    def side_name(side: Any) -> str:
        return " & ".join("you" if x == me else COMPASS[x] for x in side.seats)

    def bids(seats: Sequence[int], bid_of: Any, blind: Any) -> str:
        return "+".join("–" if bid_of(x) is None else ("BN" if blind(x) else ("nil" if bid_of(x) == 0 else str(bid_of(x))))
                        for x in seats)

    head = tuple(side_name(sd) for sd in v.sides)  # each side's columns: bid, took, score, bags
    rows = []
    before = [0] * len(v.sides)  # each side's total before the deal (a game starts at 0)
    for d in v.history:
        row = [str(d.deal)]
        for k, (sd, res) in enumerate(zip(v.sides, d.sides)):
            # the deal's change of the total, bag penalties included: ``res.penalties`` is how
            # many penalties there were, not their points, so the total tells the change
            row += [bids(sd.seats, lambda x: d.bids[x], lambda x: d.blind_nil[x]), str(sum(d.tricks_won[x] for x in sd.seats)),
                    f"{res.score - before[k]:+d} → {res.score}", f"{res.bags_added:+d} → {res.bags}"]
            before[k] = res.score
        rows.append(tuple(row))
    if v.phase.name != "GAME_OVER" and (not v.history or v.history[-1].deal != v.deal):
        row = [f"{v.deal} (now)"]
        for sd in v.sides:
            row += [bids(sd.seats, lambda x: v.seats[x].bid, lambda x: v.seats[x].blind_nil),
                    str(sum(v.seats[x].tricks_won for x in sd.seats)), str(sd.score), str(sd.bags)]
        rows.append(tuple(row))
    return head, rows


def _spades_explain(v: Any, cat: list[Entry], options: dict[str, Any]) -> str:
    texts = {e.text for e in cat}
    if not texts:
        return ""
    if "look" in texts:
        value = options.get("blind_nil_value", 200)
        # partners who both bid blind nil swap nothing (rules §3.3)
        partner_blind = v.seat is not None and v.seats[(v.seat + 2) % 4].blind_nil
        swap = options.get("blind_nil_exchange", True) and not partner_blind
        return (f"Before you look at your cards you may bid blind nil: you promise to take no trick at all, for "
                f"+{value} points to your side (−{value} if you take one)"
                + (", and you and your partner swap two cards" if swap else "")
                + ". Or look at your cards first, then bid as usual.")
    if any(t.startswith("bid ") for t in texts):
        nil = options.get("nil_value", 100)
        return ("Bid the number of tricks you expect to take (of 13); your side's bids add up to its contract, "
                f"made or set as a side" + (f". Nil: you promise to take none (±{nil})." if "bid nil" in texts else "."))
    if any(t.startswith("give ") for t in texts):
        return "Blind nil exchange: choose two cards of your hand to give your partner, then press the button."
    if v.trick:
        return "Play a card to the trick: follow the suit led if you can (raised cards are the ones you may play); spades are trump."
    return "You lead the trick: play any raised card (spades may be led once a spade has been played, or if you hold only spades)."


# -- Spite and Malice ------------------------------------------------------------------


def _rank_name(value: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(value, str(value))


def _spite_wild(kings: bool, options: dict[str, Any]) -> str:
    """Which cards are wild, and which ranks they may not stand for, as the explanation's
    clause (", kings and jokers are wild (never as an A)"); "" for none."""
    wild = [w for w, on in (("kings", kings), ("jokers", bool(options.get("jokers")))) if on]
    if not wild:
        return ""
    excluded = sorted(options.get("wild_excluded_ranks") or (), key=lambda r: RANK_TOKENS.index(r) if r in RANK_TOKENS else 99)
    return (f", {' and '.join(wild)} are wild" + (f" (never as {' or '.join(excluded)})" if excluded else ""))


def _spite_forced(v: Any, cat: list[Entry], options: dict[str, Any]) -> str:
    """Why no card may go to a side stack now (the turn cannot end yet): the option that
    forces a card to the centre first, in words, so a person does not look for a discard
    that none of the lit piles offers. A hand ace or 2 offered after a pass is the
    deadlock rule's (rules §8.12.6), whatever else is set: the book's ace-and-two
    compulsion never reads the hand."""
    if (options.get("deadlock_rule") == "hand_ace_two_then_end" and v.consecutive_passes
            and any(src.startswith("hand:") for e in cat for src in e.srcs)):
        who = "every player passed" if v.consecutive_passes >= len(v.players) else "the player before you passed"
        return (f"Not yet: {who}, so an ace or a natural 2 from your hand must go to the centre first "
                "(deadlock_rule hand_ace_two_then_end).")
    if options.get("forced_aces") or options.get("loading"):  # (loading implies forced_aces)
        return "Not yet: an ace in your hand or on top of your pay-off pile must be played to the centre at once (forced_aces)."
    if options.get("ace_two_compulsion"):
        return ("Not yet: an ace or a natural 2 on top of your pay-off pile or a side stack must go to the centre "
                "first (ace_two_compulsion).")
    return "Not yet: first play a card to the centre (only the piles that light up take one now)."


def _spite(v: Any, names: tuple[str, ...], me: int | None, cat: list[Entry], seat_views: tuple[Any, ...],
           options: dict[str, Any]) -> TableModel:
    n = len(v.players)
    viewer = me if me is not None else (v.seat if v.seat is not None else 0)
    place = _place(n, viewer)
    srcs = {s for e in cat for s in e.srcs}
    dsts = {e.dst for e in cat}
    me_player = v.players[me] if me is not None and me < n else None
    drawn_for = v.players[viewer] if viewer < n else None  # the bottom seat, whose partner a replay marks
    seats = []
    series = any(p.points for p in v.players)
    for p in v.players:
        own = me is not None and p.seat == me
        partner = me_player is not None and not own and p.team == me_player.team
        marked = partner or (me is None and drawn_for is not None and options.get("partnerships") and p.seat != viewer
                             and p.team == drawn_for.team)
        facts = ([_partner_of("spite-and-malice", viewer, me)] if marked else []) + [f"{p.payoff_count} to pay off", f"{p.hand_count} in hand"] + (
            [plural(p.points, "point")] if series else [])
        box = SeatBox(p.seat, _who(names, p.seat, me), own, place[p.seat], v.current_seat == p.seat, facts, partner=bool(marked),
                      where=f"seat {p.seat}")
        payoff_src = "payoff" if own else ("partner_payoff" if partner else "")
        under = max(0, p.payoff_count - len(p.payoff_face_up))
        box.piles.append(Pile("pay-off", tuple(p.payoff_face_up[-1:]), under + max(0, len(p.payoff_face_up) - 1),
                              f"{p.payoff_count} left", src=payoff_src if payoff_src in srcs else "",
                              dst=f"payoff:{p.seat}" if f"payoff:{p.seat}" in dsts else ""))
        for j, stack in enumerate(p.side_stacks):
            src = f"side:{j}" if own else (f"partner_side:{j}" if partner else "")
            box.piles.append(Pile(f"side {j + 1}", tuple(stack.cards), src=src if src in srcs else "",
                                  dst=f"side:{j}" if own and f"side:{j}" in dsts else "", spread=True))
        hand = hand_for(v, seat_views, p.seat)
        if not own and p.seat != v.seat:
            if hand is not None:
                box.cards = hand
            else:
                box.backs = p.hand_count
        seats.append(box)
    middle = []
    for i, pile in enumerate(v.center):
        middle.append(Pile(f"centre {i + 1}", pile.cards[-1:], max(0, len(pile.cards) - 1),
                           f"at {_rank_name(pile.value)}, next {_rank_name(pile.value + 1)}", dst=f"center:{i}"))
    if "center:new" in dsts or (not v.center and me is None):
        middle.append(Pile("new pile", note="starts with an ace", dst="center:new"))
    for i, pile in enumerate(v.completed):
        middle.append(Pile(f"completed {i + 1}", pile.cards[-1:], max(0, len(pile.cards) - 1), "set aside"))
    middle.append(Pile("stock", (), v.stock_count, plural(v.stock_count, "card")))
    hand = []
    if me is not None:
        hand = [HandCard(c, f"hand:{c}", False) for c in v.hand]
    elif v.seat is not None:
        hand = [HandCard(c, f"hand:{c}", False) for c in (hand_for(v, seat_views, v.seat) or ())]
    status = (f"game {v.game_number + 1} · turn {v.turn_number + 1} · {_whose(names, v.current_seat, me)} to act"
              if v.current_seat is not None else f"over after {plural(v.turn_number, 'turn')}")
    if v.turn_moves:
        status += " · this turn: " + ", ".join(say("spite-and-malice", m.action) for m in v.turn_moves[-4:])
    explain = ""
    if cat:
        if v.phase.name == "FILLING":  # (Massachusetts §8.11: fills, then the discard once none is empty)
            actor = v.players[v.current_seat] if v.current_seat is not None else None
            explain = ("Fill your empty side stacks: pick a hand card, then an empty side stack."
                       if actor is None or any(not stack.cards for stack in actor.side_stacks) else
                       "Every side stack is filled: end your turn by putting a hand card on any of them.")
        else:
            top = _rank_name(v.top_rank)
            team = bool(options.get("partnerships"))  # (the partner's tops are sources too; the side wins together)
            actor = v.players[v.current_seat] if v.current_seat is not None else None
            # Massachusetts (§8.11): a card on an empty side stack is a fill, not the discard that ends the turn
            fill = bool(options.get("fill_empty_side_stacks")) and actor is not None and any(
                not stack.cards for stack in actor.side_stacks)
            explain = ("Pick a card (your pay-off top, a side-stack top or a hand card"
                       + (", or your partner's pay-off or side-stack top" if team else "") + "), then a pile that lights up: "
                       f"centre piles are built up from an ace to {top}" + _spite_wild(v.kings_wild, options)
                       + (". Your side wins when your pay-off pile and your partner's are both played out" if team
                          else ". Play your whole pay-off pile out to win")
                       + (". First put a hand card on each empty side stack (that does not end your turn), then end it "
                          "by putting one on any side stack" if fill else ". End your turn by putting a hand card on a side stack")
                       + (" (or press end)" if any(e.text == "end" for e in cat) else "")
                       + ("; a side stack takes a card equal to or one lower than its top, or any card when empty (book "
                          "rules)" if options.get("side_stack_order") == "descending" else "") + ".")
            if any(e.text.startswith("load ") for e in cat):  # an opponent's pay-off pile lights up: say why
                explain += (" You may also load a card onto an opponent's pay-off pile: same suit, one rank up or down "
                            "(loading).")
            if not any(e.dst.startswith("side:") or e.text == "end" for e in cat):  # nothing ends the turn yet: a rule forces a card
                explain += " " + _spite_forced(v, cat, options)
    return TableModel("spite-and-malice", seats, middle, "the centre", [], hand, "your hand" if me is not None else "hand",
                      explain, status, cat, [], False)


# -- Spot ------------------------------------------------------------------------------


def _spot(v: Any, names: tuple[str, ...], me: int | None, cat: list[Entry], seat_views: tuple[Any, ...],
          options: dict[str, Any]) -> TableModel:
    n = v.num_players
    viewer = me if me is not None else (v.seat if v.seat is not None else 0)
    place = _place(n, viewer)
    dsts = {e.dst for e in cat}
    seats = []
    for s in range(n):
        own = me is not None and s == me
        facts = [plural(v.hand_counts[s], "card"), f"balance {v.balances[s]:+g}"] + (["dealer"] if s == v.dealer else [])
        box = SeatBox(s, _who(names, s, me), own, place[s], v.current_seat == s, facts, where=f"seat {s}")
        hand = hand_for(v, seat_views, s)
        if not own and s != v.seat:
            if hand is not None:
                box.cards = hand
            else:
                box.backs = v.hand_counts[s]
        seats.append(box)
    middle = [Pile("stock", (), v.stock_count, plural(v.stock_count, "card"), dst="stock" if "stock" in dsts else ""),
              Pile("discard pile", tuple(v.discard_pile[-1:]), max(0, len(v.discard_pile) - 1),
                   plural(len(v.discard_pile), "card"), dst="discard" if "discard" in dsts else "")]
    for m in v.melds:
        middle.append(Pile(f"m{m.id} {m.kind.value}", tuple(m.cards), note=f"by {_who(names, m.owner, me)}",
                           dst=f"m{m.id}" if f"m{m.id}" in dsts else "", spread=True))
    if "newmeld" in dsts:
        middle.append(Pile("new meld", note="3-4 of a rank or 3-4 in a row of a suit", dst="newmeld"))
    hand = []
    if me is not None:
        hand = [HandCard(c, str(c), False) for c in v.hand]
    elif v.seat is not None:
        hand = [HandCard(c, str(c), False) for c in (hand_for(v, seat_views, v.seat) or ())]
    status = (f"{spot_hand_text(v)} · pot {v.pot:g}"
              + (f" · {_whose(names, v.current_seat, me)} to act ({v.phase.value})" if v.current_seat is not None else ""))
    explain = ""
    if cat:
        if v.phase.name == "DRAW":
            explain = "Draw a card: click the stock, or the discard pile to take its top card."
        else:
            explain = ("Select cards, then where they go: a new meld (3 or 4 of a rank, or 3 or 4 in a row of one suit), "
                       "a meld on the table to lay one off, or the discard pile, which ends your turn. "
                       f"You have laid down {v.dropped} of at most 4 cards this turn"
                       + (", and made this turn's one new meld: lay off or discard." if v.new_meld_made else "."))
            if v.taken_discard is not None and not options.get("allow_discard_of_taken_card"):
                # the pile does not light up for it: say why before the person looks for a way
                explain += f" The {card_symbol(v.taken_discard)} you took from the discard pile may not go back on it this turn."
    return TableModel("spot", seats, middle, "the table", [], hand, "your hand" if me is not None else "hand",
                      explain, status, cat, [], False)


# --------------------------------------------------------------------------------------
# The end: who won, by how much, and why.


def _people(seats: Sequence[int], names: Sequence[str], me: int | None, game: str) -> str:
    who = ["you" if s == me else f"{_who(names, s, None)} ({seat_place(game, s)})" for s in seats]
    return who[0] if len(who) == 1 else ", ".join(who[:-1]) + " and " + who[-1]


def verdict(game: str, outcome: Any, names: Sequence[str], me: int | None = None, final_view: Any = None,
            options: dict[str, Any] | None = None) -> str:
    """The end of a match in a sentence for every game: who won, by how much, and why
    ("North and South won 312 to 250, by 62 points: they reached the target of 300")."""
    text = _verdict(game, outcome, names, me, final_view, options)
    return "Y" + text[1:] if text.startswith("you") else text  # (a bot's name keeps its case)


def _verdict(game: str, outcome: Any, names: Sequence[str], me: int | None, final_view: Any,
             options: dict[str, Any] | None) -> str:
    o = outcome
    n = len(o.scores)
    winners = tuple(s for s in range(n) if o.ranks[s] == 1)
    others = tuple(s for s in range(n) if o.ranks[s] != 1)
    if o.reason.is_forfeit:
        # the failing side ranks last; the others by where they stood (not all first: record format 2)
        failed = tuple(s for s in range(n) if o.ranks[s] == max(o.ranks) != 1) or tuple(range(n))
        how = {"forfeit_timeout": "ran out of time", "forfeit_illegal": "made an illegal move",
               "forfeit_disconnect": "left the table", "forfeit_crash": "crashed"}.get(o.reason.value, o.reason.value)
        if len(failed) == 1:
            lost = f"{_people(failed, names, me, game)} {how}"
        else:  # a side: one of its seats failed (the detail says which)
            lost = f"{'your side' if me in failed else _people(failed, names, me, game)} lost: a seat {how}"
        text = (f"{_people(winners, names, me, game)} won by forfeit: {lost}" if winners and others
                else f"The match ended by forfeit: {lost}")
        detail = o.detail
        if me is not None and me < len(names):  # the runner names the seat by its player's name; the page calls it you
            detail = detail.replace(f"seat {me} ({names[me]}):", "you:")
        return text + (f" ({detail})." if detail else ".")
    if o.reason.value == "aborted":
        return "The match was stopped by the arbiter: no result counts."
    fn = page_part(game, "result") if game in PAGES else None  # (a game being written, its pages line not yet added: the plain sentence)
    if fn is not None:
        return fn(o, winners, others, names, me, final_view, options)
    if not others:
        return f"A draw: {o.detail}." if o.detail else "A draw."
    return f"{_people(winners, names, me, game)} won" + (f": {o.detail}." if o.detail else ".")


def _spades_result(o: Any, winners: tuple[int, ...], others: tuple[int, ...], names: Sequence[str], me: int | None, final_view: Any,
                   options: dict[str, Any] | None) -> str:
    game = "spades"
    draw = not others
    top = max(o.scores)
    low = min(o.scores)
    deals = getattr(final_view, "deal", None) or len(getattr(final_view, "history", ()) or ())
    target = getattr(final_view, "target", None) or (options or {}).get("target")
    fixed = (options or {}).get("deals")
    if fixed:
        why = f"the match was {plural(int(fixed), 'deal')} long"
    elif o.reason.value == "turn_limit":
        # a turn limit ends Spades only at its deal limit: with no final view (the CLI's
        # record) the limit is the match's own ``max_deals``, its default where not given
        deals = deals or _spades_max_deals(options)
        why = f"the deal limit was reached after {plural(deals, 'deal')}"
    elif target and top >= target:
        if not draw and o.scores[winners[0]] < o.scores[others[0]]:
            # both reached the target in one deal and the lower total won it: the rule
            # simultaneous_target_rule=higher_deal_score (the only way a lower total wins)
            win, lose = o.scores[winners[0]], o.scores[others[0]]
            gains = _spades_last_deal_scores(final_view, winners[0] % 2, options)
            return (f"{_people(winners, names, me, game)} won with {win:g} to {lose:g}: both sides reached the target "
                    f"of {target} in {f'deal {deals}' if final_view is not None and deals else 'the same deal'}, and "
                    f"{'you' if me in winners else 'they'} scored more in it"
                    + (f" ({gains[0]:+d} to {gains[1]:+d})" if gains else "") + ".")
        why = f"{'you' if me in winners else 'they'} reached the target of {target}" + (
            f" after {plural(deals, 'deal')}" if deals else "")
    else:
        why = f"the other side fell to {low:g}" + (f" after {plural(deals, 'deal')}" if deals else "")
    if draw:
        return f"A draw at {top:g} all: {why}."
    return (f"{_people(winners, names, me, game)} won {top:g} to {low:g}, by {plural(int(top - low), 'point')}: {why}.")


def _spades_last_deal_scores(final_view: Any, side: int, options: dict[str, Any] | None) -> tuple[int, int] | None:
    """What side ``side`` and the other scored in the last deal, as the rule
    higher_deal_score compares them (the change of the total, bag penalties included), from
    the final view's last deal result; None without it."""
    history = getattr(final_view, "history", None)
    if not history:
        return None
    penalty = int((options or {}).get("bag_penalty_points", 100))
    change = [r.points - r.penalties * penalty for r in history[-1].sides]
    return change[side], change[1 - side]


def _spades_max_deals(options: dict[str, Any] | None) -> int:
    try:
        return int(get_game("spades", options).options.max_deals)
    except (ConfigError, TypeError, ValueError):
        return int((options or {}).get("max_deals") or 0)


def _spot_result(o: Any, winners: tuple[int, ...], others: tuple[int, ...], names: Sequence[str], me: int | None, final_view: Any,
                 options: dict[str, Any] | None) -> str:
    game = "spot"
    draw = not others
    best = max(o.scores)
    rest = max((o.scores[s] for s in others), default=best)
    hands = o.detail.split(" hand")[0] if " hand" in o.detail else ""
    why = f"after {plural(int(hands), 'hand')}" if hands.isdigit() else o.detail
    if hands.isdigit() and "(" in o.detail:  # why it stopped there: "(max_extra_hands reached; pot split equally)"
        why += " " + o.detail[o.detail.index("("):]
    if draw:
        return f"A draw, every seat at {best:+g}: {why}."
    return (f"{_people(winners, names, me, game)} won with {best:+g} units, {best - rest:g} ahead of the next seat "
            f"({rest:+g}), {why}.")


def _spite_result(o: Any, winners: tuple[int, ...], others: tuple[int, ...], names: Sequence[str], me: int | None, final_view: Any,
                  options: dict[str, Any] | None) -> str:
    game = "spite-and-malice"
    draw = not others
    # Spite and Malice: who emptied a pay-off pile; how many pay-off cards the others kept
    players = getattr(final_view, "players", None) or ()
    # each by name and seat, as the winners are: three seats of one bot all read "random@1.0: 3"
    left = ", ".join(f"{_people((p.seat,), names, me, game)}: {p.payoff_count}" for p in players)
    # a stalemate is either end of the rules (the engine's detail says which): a player had to
    # draw from an empty stock, or (book rules) every player passed: only that one is blocked
    stalemate = ("the game was blocked (every player passed)" if o.detail.startswith("deadlock")
                 else "the stock ran out")
    why = {"completed": "emptied the pay-off pile" if len(winners) == 1 else "emptied their pay-off piles",
           "stalemate": stalemate, "turn_limit": "the turn limit was reached"}.get(o.reason.value, o.reason.value)
    if o.reason.value == "completed" and winners:
        sentence = f"{_people(winners, names, me, game)} {why}" + (" first" if len(winners) == 1 else "")
    elif draw:
        sentence = f"A draw: {why}"
    else:
        sentence = f"{_people(winners, names, me, game)} won: {why}, and fewer pay-off cards were left"
    sentence += f" (pay-off cards left: {left})." if left else "."
    if (options or {}).get("series_scoring") and winners and others:  # the match is the series, the sentence its last game
        lead = max(o.scores[s] for s in others)
        return (f"{_people(winners, names, me, game)} won the series {o.scores[winners[0]]:g} points to {lead:g} "
                f"(the first to {(options or {}).get('match_target', 50)}). Its last game: {sentence}")
    return sentence


# --------------------------------------------------------------------------------------
# HTML.

TABLE_STYLE = """<style>
#board { background:#1f6f4a; background:radial-gradient(ellipse at center,#2b8a5c 0%,#1c6443 75%); border-radius:14px; padding:8px;
  color:#f3f7f4; display:grid; gap:6px; grid-template-columns:minmax(0,1fr) minmax(0,2.2fr) minmax(0,1fr);
  grid-template-areas:"tl top tr" "left mid right" "bottom bottom bottom"; }
#board.seats-2 { grid-template-columns:minmax(0,1fr) minmax(0,1.3fr); grid-template-areas:"top mid" "bottom bottom"; }
#board.seats-3 { grid-template-areas:"left mid right" "bottom bottom bottom"; }
#board.seats-4 { grid-template-areas:"lc top rc" "left mid right" "bottom bottom bottom"; }
#board .left-corner { grid-area:lc; } #board .right-corner { grid-area:rc; } #board .corner { min-width:0; font-size:12px; }
#board details.sheet, #board details.peek { background:#17583d; border-radius:8px; padding:3px 8px; }
#board details summary { cursor:pointer; font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
#board details summary:focus-visible { outline:3px solid #ffd54f; }
#board .sheet .scroll { overflow-x:auto; }
#board .sheet table { border-collapse:collapse; font-size:11px; margin-top:4px; background:none; color:inherit; width:100%; }
#board .sheet th, #board .sheet td { border:1px solid rgba(255,255,255,.25); padding:1px 4px; text-align:center; font-weight:400; color:inherit; background:none; }
#board .sheet thead th { font-weight:700; }
#board .peek .trick.small { grid-template-columns:repeat(3,40px); margin:4px 0; }
#board .peek .trick.small .pile { margin:0; } #board .peek .trick.small .pile .stack { min-height:46px; }
#board .peek .trick.small .pile .note, #board .peek .trick.small .pile > span:not(.stack) { display:none; }
#board h2.ttl { margin:0 0 2px; font-weight:400; color:inherit; border:none; }
#board .seat { background:rgba(0,0,0,.18); border:2px solid transparent; border-radius:10px; padding:6px 8px; min-width:0; }
#board .seat.to-act { border-color:#ffd54f; box-shadow:0 0 0 2px rgba(255,213,79,.35); }
#board .seat .name { font-weight:700; } #board .seat .facts { font-size:12px; font-weight:400; opacity:.9; }
#board .seat .where { font-weight:400; font-size:12px; background:rgba(255,255,255,.16); border-radius:4px; padding:0 5px; margin-left:3px; }
#board .seat .name .backs { margin-left:6px; font-weight:400; }
#board .seat.you { display:flex; flex-wrap:wrap; gap:4px 16px; align-items:flex-end; } #board .seat.you > .name { flex-basis:100%; }
#board .pos-bottom { grid-area:bottom; } #board .pos-top { grid-area:top; } #board .pos-left { grid-area:left; }
#board .pos-right { grid-area:right; } #board .pos-tl { grid-area:tl; } #board .pos-tr { grid-area:tr; } #board .mid { grid-area:mid; }
#board .mid { background:rgba(0,0,0,.12); border-radius:10px; padding:6px 8px; }
#board .ttl { font-size:12px; text-transform:uppercase; letter-spacing:.04em; opacity:.85; margin-bottom:2px; }
#board .piles { display:flex; flex-wrap:wrap; gap:8px; align-items:flex-start; }
#board .pile { display:flex; flex-direction:column; align-items:center; gap:2px; font-size:11px; min-width:52px;
  border:2px solid transparent; border-radius:8px; padding:2px; background:none; color:inherit; font-family:inherit; }
#board .pile .stack { display:flex; align-items:flex-end; min-height:76px; }
#board .pile.spread .stack .card + .card { margin-left:-30px; }
#board .pile.spread .stack .card.sm + .card.sm { margin-left:-18px; }
#board .pile .slot { display:inline-block; width:54px; height:76px; border:2px dashed rgba(255,255,255,.35); border-radius:6px; }
#board .pile.target { border-color:#ffd54f; background:rgba(255,213,79,.18); cursor:pointer; }
#board .pile.selected, #board .pick.selected .card { outline:3px solid #4fc3f7; outline-offset:1px; }
#board .pile[data-src] { cursor:pointer; }
#board .pile[data-src] .stack .card:last-child { transform:translateY(-6px); box-shadow:0 6px 10px rgba(0,0,0,.35); }
#board .card { display:inline-flex; flex-direction:column; justify-content:space-between; align-items:center; width:54px; height:76px; padding:3px 2px;
  margin:1px; border:1px solid #b8bec9; border-radius:7px; background:#fff; font-weight:700; line-height:1; vertical-align:bottom;
  box-shadow:0 1px 2px rgba(0,0,0,.25); }
#board .card b { font-size:20px; align-self:flex-start; padding-left:2px; } #board .card i { font-style:normal; font-size:30px; }
#board .card b.ten { letter-spacing:-1px; margin-left:-1px; transform:scaleX(.7); transform-origin:left center; }
#board .card.sm { width:34px; height:48px; border-radius:5px; } #board .card.sm b { font-size:14px; padding-left:1px; } #board .card.sm i { font-size:18px; }
#board .card.sm b.ten { letter-spacing:-1px; font-size:13px; }
#board .card.red { color:#c62828; } #board .card.black { color:#111; } #board .card.joker { color:#7b1fa2; }
#board .card.back { background:repeating-linear-gradient(45deg,#3b5bb5,#3b5bb5 4px,#5a78cc 4px,#5a78cc 8px); border-color:#2d4690; }
.backs { display:inline-flex; align-items:center; gap:4px; font-size:12px; }
#board .trick { display:grid; grid-template-columns:repeat(3,64px); grid-template-rows:repeat(3,auto); gap:0 8px; justify-content:center;
  grid-template-areas:". top ." "left . right" ". bottom ."; }
#board .trick .pile:nth-child(n) { margin:-10px 0; }
#board .trick .pile { min-width:0; }
#board .trick .pile.winner .card, #board .trick .pile.winning .card { box-shadow:0 0 0 3px #ffd54f; }
#board .hand { display:flex; flex-wrap:wrap; gap:2px; padding-top:12px; }
#board .pick { border:none; background:none; padding:0; margin:0; font:inherit; cursor:pointer; border-radius:7px; }
#board .pick .card { transition:transform .08s; }
#board .pick.legal .card { transform:translateY(-10px); box-shadow:0 8px 12px rgba(0,0,0,.35); }
#board .pick.legal:hover .card, #board .pick.legal:focus .card { outline:3px solid #ffd54f; }
#board .pick.dim { cursor:default; } #board .pick.dim .card { opacity:.55; } #board .pick.idle { cursor:default; }
#board .hand .pick + .pick, #board .hand > .card + .card { margin-left:-8px; }
/* motion: a card played slides in from its seat; a finished trick, after a pause, goes to its winner */
@keyframes from-bottom { from { transform:translateY(90px); opacity:.2; } } @keyframes from-top { from { transform:translateY(-90px); opacity:.2; } }
@keyframes from-left { from { transform:translateX(-110px); opacity:.2; } } @keyframes from-right { from { transform:translateX(110px); opacity:.2; } }
#board .trick .pile.enter { animation:.35s ease-out both; position:relative; z-index:3; }
#board .trick .pile.enter.at-bottom { animation-name:from-bottom; } #board .trick .pile.enter.at-top { animation-name:from-top; }
#board .trick .pile.enter.at-left { animation-name:from-left; } #board .trick .pile.enter.at-right { animation-name:from-right; }
@keyframes to-bottom { to { transform:translateY(110px) scale(.5); opacity:0; } } @keyframes to-top { to { transform:translateY(-110px) scale(.5); opacity:0; } }
@keyframes to-left { to { transform:translateX(-130px) scale(.5); opacity:0; } } @keyframes to-right { to { transform:translateX(130px) scale(.5); opacity:0; } }
#board .trick.collect-bottom .pile { animation:to-bottom .5s ease-in 1.2s both; } #board .trick.collect-top .pile { animation:to-top .5s ease-in 1.2s both; }
#board .trick.collect-left .pile { animation:to-left .5s ease-in 1.2s both; } #board .trick.collect-right .pile { animation:to-right .5s ease-in 1.2s both; }
@media (prefers-reduced-motion: reduce) { #board .trick .pile, #board .trick.collect-bottom .pile, #board .trick.collect-top .pile,
  #board .trick.collect-left .pile, #board .trick.collect-right .pile, #board .pick .card { animation:none !important; transition:none !important; } }
.sr-only { position:absolute; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden; clip:rect(0,0,0,0); white-space:nowrap; border:0; }
#explain { margin:6px 0; }
#choices { display:flex; flex-wrap:wrap; gap:6px; align-items:center; margin:6px 0; }
#choices button, #selection button { padding:6px 12px; border:1px solid var(--accent); border-radius:6px; background:#fff; cursor:pointer; font:inherit; }
#choices button:hover, #selection button:hover { background:#eef2ff; }
#choices kbd, .keys kbd { font:12px ui-monospace,monospace; border:1px solid #c5cad3; border-radius:3px; padding:0 4px; background:#f8f9fb; color:#344054; }
#selection { min-height:0; margin:4px 0; }
#live [data-n] { position:relative; }
#live [data-n]::after { content:attr(data-n); position:absolute; top:-7px; right:-7px; min-width:17px; height:17px; border-radius:9px;
  background:#ffd54f; color:#1d2330; font:700 11px/17px system-ui,sans-serif; text-align:center; z-index:2; }
.keys { font-size:12px; color:var(--muted); }
#clock { font-variant-numeric:tabular-nums; font-weight:600; }
@media (max-width:700px) {
  #board, #board.seats-2, #board.seats-3, #board.seats-4 { grid-template-columns:minmax(0,1fr) minmax(0,1fr); grid-template-areas:"tl tr" "top top" "left right" "mid mid" "bottom bottom"; padding:6px; }
  #board.seats-4 { grid-template-areas:"top top" "left right" "mid mid" "lc rc" "bottom bottom"; }
  #board .sheet table { font-size:10px; } #board .sheet th, #board .sheet td { padding:1px 2px; }
  #board.seats-2 { grid-template-areas:"top top" "mid mid" "bottom bottom"; }
  #board .card { width:40px; height:58px; } #board .card b { font-size:16px; } #board .card i { font-size:22px; }
  #board .pile .slot { width:40px; height:58px; } #board .pile .stack { min-height:58px; }
  #board .pile.spread .stack .card + .card { margin-left:-22px; }
  #board .hand .pick + .pick, #board .hand > .card + .card { margin-left:-14px; }
  #board .trick { grid-template-columns:repeat(3,46px); gap:0 4px; }
  #board .trick .pile .card { width:36px; height:50px; } #board .trick .pile .card b { font-size:14px; } #board .trick .pile .card i { font-size:19px; }
  #board .trick .pile .stack { min-height:50px; } #board .trick .pile .note { display:none; }
  #board .seat:not(.you) .backs .card { display:none; } #board .seat { padding:4px 6px; }
  #board .seat.you .ttl { display:none; } #board .hand { padding-top:8px; }
  #board .mid { padding:4px; } #explain { font-size:13px; } .keys { display:none; }
}
</style>"""


def _pile_html(p: Pile, small: bool = False) -> str:
    attrs = ""
    if p.src:
        attrs += f' data-src="{_escaped(p.src)}"'
    if p.dst:
        attrs += f' data-dst="{_escaped(p.dst)}"'
    cls = "pile" + (" spread" if p.spread else "") + (f" {p.tag}" if p.tag else "")
    tag = "button type=\"button\"" if (p.src or p.dst) else "div"
    end = "button" if (p.src or p.dst) else "div"
    inner = ""
    if p.backs:
        inner += str(back(small)) + (f'<span class="muted-on">×{p.backs}</span>' if p.backs > 1 and not p.cards else "")
    inner += "".join(str(face(c, small)) for c in (p.cards if p.spread else p.cards[-1:]))
    if not inner:
        inner = '<span class="slot"></span>'
    note = f"<span>{_escaped(p.label)}</span>" + (f'<span class="note">{_escaped(p.note)}</span>' if p.note else "")
    pos = f' style="grid-area:{p.pos}" data-pos="{p.pos}"' if p.pos else ""
    return f'<{tag} class="{cls}"{attrs}{pos}><span class="stack">{inner}</span>{note}</{end}>'


def _seat_html(s: SeatBox) -> str:
    cls = "seat" + (" you" if s.you else "") + (" to-act" if s.to_act else "") + (" partner" if s.partner else "")
    backs = f'<span class="backs">{back(True)} ×{s.backs}</span>' if s.backs and not s.piles else ""
    where = f' <span class="where">{_escaped(s.where)}</span>' if s.where else ""
    label = f'{"you" if s.you else s.name} · {s.where or f"seat {s.seat}"}' + (" · to act" if s.to_act else "")
    out = [f'<section class="{cls} pos-{s.pos}" data-seat="{s.seat}" aria-label="{_escaped(label)}"><div class="name">'
           f'{_escaped(s.name)}{where}'
           + (' <span class="turn-tag">· to act</span>' if s.to_act else "")
           + f' <span class="facts">· {_escaped(" · ".join(s.facts))}</span>{backs}</div>']
    if s.piles:
        out.append('<div class="piles">' + "".join(_pile_html(p, small=not s.you) for p in s.piles) + "</div>")
    if s.cards:
        out.append('<div class="cards">' + "".join(str(face(c, True)) for c in s.cards) + "</div>")
    out.append("</section>")
    return "".join(out)


def _sheet_html(m: TableModel) -> str:
    if not m.sheet_head:
        return ""
    head = ('<tr><td></td>' + "".join(f'<th scope="colgroup" colspan="4">{_escaped(h)}</th>' for h in m.sheet_head) + "</tr>"
            + '<tr><th scope="col">deal</th>' + '<th scope="col">bid</th><th scope="col">took</th><th scope="col">score</th>'
            '<th scope="col">bags</th>' * len(m.sheet_head) + "</tr>")
    rows = "".join("<tr>" + "".join((f"<th scope=\"row\">{_escaped(c)}</th>" if k == 0 else f"<td>{_escaped(c)}</td>")
                                    for k, c in enumerate(r)) + "</tr>" for r in m.sheet)
    return (f'<details class="sheet" id="score-sheet"{" open" if m.over else ""}><summary>score sheet ({plural(len(m.sheet), "deal")})</summary>'
            f'<div class="scroll" tabindex="0" role="region" aria-label="score sheet"><table><thead>{head}</thead><tbody>{rows}</tbody></table></div></details>')


def _peek_html(m: TableModel) -> str:
    if not m.peek:
        return ""
    cards = "".join(_pile_html(p, small=True) for p in m.peek)
    return (f'<details class="peek" id="last-trick"><summary>{_escaped(m.peek_title)}</summary>'
            f'<div class="trick small">{cards}</div></details>')


def render_table(m: TableModel, interactive: bool = True) -> Markup:
    """The table as HTML (``#board``, the hand inside it); ``interactive``: the hand's
    cards and the piles are buttons the script binds (a seat's page), else plain."""
    out = [f'<div id="board" class="table-{m.game} seats-{len(m.seats)}" data-instant="{1 if m.instant and interactive else 0}">']
    mid = [f'<div class="mid"><h2 class="ttl" id="middle-title">{_escaped(m.middle_title)}</h2>']
    if m.trick or m.game == "spades":
        mid.append(f'<div class="trick" id="trick" data-trick="{m.trick_no}" data-done="{1 if m.trick_done else 0}" role="group" '
                   f'aria-label="{_escaped(m.middle_title)}">' + "".join(_pile_html(p) for p in m.trick) + "</div>")
    if m.middle:
        mid.append('<div class="piles" id="middle">' + "".join(_pile_html(p) for p in m.middle) + "</div>")
    mid.append("</div>")
    out.append("".join(mid))
    if m.peek or m.sheet_head:
        out.append(f'<div class="corner left-corner">{_peek_html(m)}</div><div class="corner right-corner">{_sheet_html(m)}</div>')
    for s in m.seats:
        if s.you or (s.pos == "bottom"):
            inner = _seat_html(s)[:-len("</section>")]  # without its closing tag: the hand goes inside
            if m.hand:
                cards = []
                playing = any(h.legal for h in m.hand)  # a choice of cards (not a bid): the others are dimmed
                for k, h in enumerate(m.hand):
                    if interactive and h.src:
                        cls = "pick " + ("legal" if h.legal else ("dim" if playing else "idle"))
                        dis = "" if h.legal else " disabled"
                        cards.append(f'<button type="button" class="{cls}" data-src="{_escaped(h.src)}" data-key="{k + 1}"'
                                     f'{dis}>{face(h.card)}</button>')
                    elif h.src and m.catalogue:  # a replay of the seat's decision: what it could play
                        cards.append(f'<span class="pick {"legal" if h.legal else ("dim" if playing else "idle")}">{face(h.card)}</span>')
                    else:
                        cards.append(str(face(h.card)))
                inner += (f'<div class="hand-box"><h2 class="ttl" id="hand-title">{_escaped(m.hand_title)}</h2>'
                          f'<div class="hand" id="hand" role="group" aria-labelledby="hand-title">{"".join(cards)}</div></div>')
            out.append(inner + "</section>")
        else:
            out.append(_seat_html(s))
    out.append("</div>")
    return Markup("".join(out))


TABLE_SCRIPT = r"""
(function () {
  if (window.arenaTable) { return; }
  var sel = [];
  function $(id) { return document.getElementById(id); }
  function catalogue() {
    var box = $("all-actions"); if (!box) { return []; }
    return Array.prototype.map.call(box.options, function (o) {
      var f = o.getAttribute("data-from") || "";
      return {text: o.value, srcs: f ? f.split(" ").sort() : [], dst: o.getAttribute("data-to") || ""};
    });
  }
  function same(a, b) { a = a.slice().sort(); b = b.slice().sort(); return a.length === b.length && a.every(function (x, i) { return x === b[i]; }); }
  function show() {
    var cat = catalogue();
    document.querySelectorAll("#board [data-src]").forEach(function (el) {
      el.classList.toggle("selected", sel.indexOf(el.getAttribute("data-src")) >= 0); });
    document.querySelectorAll("#board [data-dst]").forEach(function (el) {
      var d = el.getAttribute("data-dst");
      el.classList.toggle("target", cat.some(function (e) { return e.dst === d && same(e.srcs, sel) && (sel.length || e.srcs.length === 0); }));
    });
    var bar = $("selection");
    if (bar) { bar.innerHTML = ""; }
    if (bar && sel.length) { fill(bar, cat); }
    document.querySelectorAll("#live [data-n]").forEach(function (el) { el.removeAttribute("data-n"); });
    // a button that reads as a digit (a bid of 3) is that digit; the rest take the free ones in order
    var all = keyed(), taken = {}, n = 1;
    all.forEach(function (el) { var t = el.textContent.trim(); if (/^[1-9]$/.test(t) && el.hasAttribute("data-act")) { el.setAttribute("data-n", t); taken[t] = 1; } });
    all.forEach(function (el) {
      if (el.hasAttribute("data-n")) { return; }
      while (taken[String(n)]) { n++; }
      if (n <= 9) { el.setAttribute("data-n", String(n)); taken[String(n)] = 1; }
    });
  }
  function keyed() {  // what the digit keys reach, in order: the lit places, then the buttons
    return Array.prototype.slice.call(document.querySelectorAll("#board .target, #choices [data-act], #selection [data-act]"));
  }
  function fill(bar, cat) {
    var txt = document.createElement("span"); txt.textContent = "selected: " + sel.join(" ") + " · ";
    bar.appendChild(txt);
    var any = false;
    cat.forEach(function (e) {
      if (!e.dst && e.srcs.length > 1 && same(e.srcs, sel)) {
        var b = document.createElement("button"); b.type = "button"; b.setAttribute("data-act", e.text); b.textContent = e.text; bar.appendChild(b); any = true;
      }
    });
    var lit = document.querySelectorAll("#board .target").length;
    var hint = document.createElement("span"); hint.className = "muted small";
    hint.textContent = lit ? " now click a lit place (" + lit + ")" : (any ? "" : " select more cards, or Esc to start again");
    bar.appendChild(hint);
  }
  function busy(on) { var l = $("live"); if (l) { l.classList.toggle("busy", on); } }
  function swap(htmlText) {
    var doc = new DOMParser().parseFromString(htmlText, "text/html");
    var fresh = doc.getElementById("live") || doc.body;
    var live = $("live");
    var was = $("status"), now = fresh && fresh.querySelector("#status");
    if (was && now && was.getAttribute("data-version") === now.getAttribute("data-version")) { return; }  // nothing new
    if (live && fresh) { live.innerHTML = fresh.innerHTML; }
    sel = []; show(); window.arenaTable.changed();
  }
  function refresh() {
    return fetch(window.location.pathname + "?fragment=1", {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { return r.text(); }).then(swap);
  }
  function act(text) {
    var form = $("actions"); if (!form || form.getAttribute("data-sent")) { return; }
    form.setAttribute("data-sent", "1"); busy(true);
    var body = new URLSearchParams();
    body.append("request", form.elements.request.value); body.append("action", text);
    fetch(form.getAttribute("action"), {method: "POST", body: body, credentials: "same-origin", cache: "no-store"})
      .then(function (r) { return r.text().then(function (t) { return {ok: r.ok, text: t}; }); })
      .then(function (res) {
        busy(false);
        var l = $("live");
        // a live page's event stream brings the table; a browser without EventSource has none
        if (res.ok) { return l && l.hasAttribute("data-hash") && window.EventSource ? null : refresh(); }
        var doc = new DOMParser().parseFromString(res.text, "text/html"), err = doc.getElementById("play-error");
        var n = $("act-error"); if (n) { n.textContent = err ? err.textContent : "the action was refused"; n.hidden = false; }
        form.removeAttribute("data-sent");
      })
      .catch(function () { form.elements.action.value = text; form.submit(); });
  }
  function click(el) {
    var cat = catalogue();
    if (el.hasAttribute("data-act")) { act(el.getAttribute("data-act")); return; }
    var dst = el.getAttribute("data-dst"), src = el.getAttribute("data-src");
    if (dst && el.classList.contains("target")) {
      var hit = cat.filter(function (e) { return e.dst === dst && same(e.srcs, sel); });
      if (hit.length) { act(hit[0].text); return; }
    }
    if (!src) { return; }
    var uses = cat.filter(function (e) { return e.srcs.indexOf(src) >= 0; });
    if (!uses.length) { return; }
    var board = $("board");
    if (board && board.getAttribute("data-instant") === "1" && uses.length === 1 && uses[0].srcs.length === 1 && !uses[0].dst) {
      act(uses[0].text); return;
    }
    var i = sel.indexOf(src);
    if (i >= 0) { sel.splice(i, 1); }
    else {
      var next = sel.concat([src]);
      var fits = cat.some(function (e) { return next.every(function (s) { return e.srcs.indexOf(s) >= 0; }); });
      sel = fits ? next : [src];
    }
    show();
  }
  document.addEventListener("click", function (e) {
    var el = e.target.closest && e.target.closest("#live [data-src], #live [data-dst], #live [data-act]");
    if (!el) { return; }
    e.preventDefault(); click(el);
  });
  document.addEventListener("submit", function (e) {
    if (e.target.id === "actions" && e.target.elements.action) { e.preventDefault(); act(e.target.elements.action.value); }
  });
  document.addEventListener("keydown", function (e) {
    if (!$("actions") || e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) { return; }
    var cards = Array.prototype.slice.call(document.querySelectorAll("#hand button.pick.legal"));
    var at = cards.indexOf(document.activeElement);
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      if (!cards.length) { return; }
      var k = at < 0 ? 0 : (at + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
      cards[k].focus(); e.preventDefault();
    } else if (e.key === "Enter" || e.key === " ") {
      if (at >= 0) { click(cards[at]); e.preventDefault(); }
      else if (document.activeElement && document.activeElement.closest && document.activeElement.closest("#live [data-act], #live [data-dst]")) {
        click(document.activeElement.closest("#live [data-act], #live [data-dst]")); e.preventDefault(); }
    } else if (/^[1-9]$/.test(e.key)) {
      var t = document.querySelector('#live [data-n="' + e.key + '"]'); if (t) { click(t); e.preventDefault(); }
    } else if (e.key === "Escape") { sel = []; show(); }
  });
  function tick() {  // what is left of the decision's clock, counted down to its deadline
    var c = $("clock"); if (!c) { return; }
    var left = Number(c.getAttribute("data-deadline")) - Date.now(), most = Number(c.getAttribute("data-decision-ms"));
    var s = Math.round(Math.max(0, Math.min(left, most)) / 1000);
    c.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  window.setInterval(tick, 500);
  // motion: the cards new to the trick slide in from their seats; a finished trick goes to
  // its winner after a pause (CSS; none under prefers-reduced-motion). The first drawing
  // of the page moves nothing.
  var seen = null;
  function motion() {
    var t = $("trick");
    if (!t) { seen = null; return; }
    var no = t.getAttribute("data-trick"), done = t.getAttribute("data-done") === "1";
    var cards = Array.prototype.map.call(t.querySelectorAll(".card[data-card]"), function (c) { return c.getAttribute("data-card"); });
    if (seen !== null) {
      t.querySelectorAll(".pile[data-pos]").forEach(function (p) {
        var c = p.querySelector(".card[data-card]");
        if (c && (seen.no !== no || seen.cards.indexOf(c.getAttribute("data-card")) < 0)) {
          p.classList.add("enter", "at-" + p.getAttribute("data-pos"));
        }
      });
      var w = t.querySelector(".pile.winner[data-pos]");
      if (done && w && !(seen.no === no && seen.done)) { t.classList.add("collect-" + w.getAttribute("data-pos")); }
    }
    seen = {no: no, cards: cards, done: done};
  }
  // what changed, said to a screen reader (#announce is aria-live): whose turn, the trick, the end
  function announce() {
    var a = $("announce"); if (!a) { return; }
    var parts = [], over = $("over"), turn = $("your-turn"), waiting = $("waiting"), title = $("middle-title");
    if (over) { parts.push(over.textContent); }
    else if (turn) { parts.push("Your turn."); var ex = $("explain"); if (ex) { parts.push(ex.textContent); } }
    else if (waiting) { parts.push(waiting.textContent.split("·")[0]); }
    if (title && $("trick")) { parts.push(title.textContent + "."); }
    var text = parts.join(" ").replace(/\s+/g, " ").trim();
    if (text && text !== a.getAttribute("data-said")) { a.textContent = text; a.setAttribute("data-said", text); }
  }
  window.arenaTable = {swap: swap, refresh: refresh, changed: function () {}, motion: motion, announce: announce};
  // whoever swaps the table in anew (this script, or the page's live updates): a fresh
  // selection, and the targets an action of no card reaches (the stock) lit at once
  var live = $("live");
  if (live && window.MutationObserver) {
    new MutationObserver(function () { sel = []; show(); tick(); motion(); announce(); }).observe(live, {childList: true});
  }
  show(); tick(); motion(); announce();
})();
"""
