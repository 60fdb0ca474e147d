"""Spades values by determinized double-dummy analysis: DDS over deals sampled from a view.

For a seat's decision, full deals consistent with its view are drawn with the SDK's forward
model (``sdk.forward.sample_states``); on each deal every candidate action gets a value in
points of the seat's side minus the other side's, totals at the end of the current deal
(``action_values``). All candidates of a deal are valued on that same deal (common random
numbers: their differences carry no luck of the deal). How a deal values the actions:

* **Card play** (phase PLAY): one call of bridge's double-dummy solver (DDS, through
  endplay's bindings) on the position as it stands, the trick in progress included, spades
  trump, gives for every card the tricks the seat's side takes from here if everyone then
  plays perfectly with all cards seen. The side's final tricks (taken + to come; the other
  side the rest) are then **scored by Spades' rules** (``sdk.spades.score_side`` with the
  match's options): contracts made or set, bags and their penalty, failed nils.
* **Bids** (phase BIDDING, and the look / blind-nil choice): the candidate is played, the
  heuristic (``bots/spades_heuristic.py``) bids for the seats after it (and makes any
  exchange), then one DDS solve of the opening lead gives each side's tricks, scored as
  above. The trick count does not depend on the bids, so one solve per deal serves every
  candidate bid.
* **Nil** (Spades' rule bridge lacks): while a nil or blind nil of either side is still
  alive (its bidder has taken no trick yet), the trick count says nothing about whether
  the nil bidder can duck every trick. Its fate is then solved double dummy too, by
  ``bots/spades_nil.py`` (a search of the nil bidder and its partner ducking and covering
  against the opponents forcing, Spades' rules included): a nil that perfect play forces
  takes one of its side's tricks, a nil that survives takes none, and the DDS trick count
  is scored with that. Where that search would exceed its budget (long hands early in the
  deal, beyond a certain end it sees at once) the deal is played out by the heuristic
  (which ducks as a nil bidder, covers a nil partner and defends against an opponent's
  nil: ``spades_heuristic.defend_nil``) and that deal's score is the value.
* **Spades broken** (the other rule bridge lacks): the candidates at the seat's decision
  are only its legal actions, so the seat itself never leads an unbroken spade; deeper in
  the solver's play a spade may be led before spades are broken, as in bridge. This is the
  one approximation left, and it errs rarely (an early spade lead is seldom the best play).

Used by the bundled ``dds`` bot (``bots/dds.py``) and by the arbiter's analysis of Spades
decisions (``arbiter.analysis.values``). Needs endplay (``pip install endplay``; the
arbiter installs it); ``available()`` says whether it is there.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Sequence

from bots import spades_heuristic
from sdk.forward import Action, Game, State
from bots.spades_nil import NilSolver
from sdk.spades import Bid, Give, Look, Phase, Play, score_side

__all__ = ["DdsUnavailable", "action_values", "available", "candidates", "deal_value"]

_SUITS = "SHDC"

#: How a live nil is valued (``nils`` of ``action_values``/``deal_value``), the bot's way or
#: the analysis's: ``DOUBLE_DUMMY``: its fate solved double dummy (``bots.spades_nil``),
#: the heuristic playing the deal out past that search's budget; ``AT_TABLE``: as it is
#: played at the table: a nil alive before the deal's first card (a nil bid's fate over a
#: whole hand, where that search rarely ends: 9 of 422 deals) is played out single dummy,
#: every seat from its own view. In every play-out (either way) the heuristic plays, whose
#: seats defend against an opponent's live nil (``spades_heuristic.defend_nil``; until
#: session 11 only the analysis's play-outs did, with this module's own copy of it).
DOUBLE_DUMMY = "double dummy"
AT_TABLE = "at the table"


class DdsUnavailable(RuntimeError):
    """endplay (the DDS solver's bindings) is not installed."""


_DDS: Any = None


def _solver() -> Any:
    global _DDS
    if _DDS is None:
        try:
            import endplay.dds as dds
            from endplay.types import Card as ECard, Deal, Denom, Player
        except ImportError:
            raise DdsUnavailable("the double-dummy solver needs endplay: pip install endplay") from None
        _DDS = (dds, ECard, Deal, Denom, Player)
    return _DDS


def available() -> bool:
    """Whether the solver can be imported."""
    try:
        _solver()
    except DdsUnavailable:
        return False
    return True


def _rank(card: Any) -> str:
    t = str(card)[:-1]
    return "T" if t == "10" else t


def _pbn(hands: Sequence[Sequence[Any]]) -> str:
    """``N:`` PBN of four hands, seat 0 as North (seat k is endplay's Player(k))."""
    parts = []
    for hand in hands:
        by = {s: [] for s in _SUITS}
        for c in hand:
            by[str(c)[-1]].append(_rank(c))
        parts.append(".".join("".join(by[s]) for s in _SUITS))
    return "N:" + " ".join(parts)


def _ours(text: str) -> str:
    """endplay's ``♠T`` as our notation ``10S``."""
    suit = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}[text[0]]
    rank = text[1:]
    return ("10" if rank == "T" else rank) + suit


def _solve(world: State, best_only: bool = False) -> dict[str, int]:
    """DDS on ``world`` (phase PLAY): tricks still to come for the side to play, by card; with
    ``best_only`` one card of the most (DDS's ``OptimalOne``: it stops at the best card, where
    every card costs a search of its own; ``deal_value`` reads no other)."""
    views = [world.view(s) for s in range(4)]
    v = views[world.current_seat]
    hands = [list(views[s].hand) for s in range(4)]
    for p in v.trick:  # the deal as it stood when the trick began, then its cards played
        hands[p.seat].append(p.card)
    leader = v.trick[0].seat if v.trick else world.current_seat
    played = tuple(str(p.card)[-1] + _rank(p.card) for p in v.trick)
    return dict(_solved(_pbn(hands), leader, played, best_only))


@functools.lru_cache(maxsize=4096)
def _solved(pbn: str, leader: int, played: tuple[str, ...], best_only: bool) -> tuple[tuple[str, int], ...]:
    """DDS on a position (``_solve``'s), kept: the solver is a pure function of it, and the
    same positions recur (the analysis values a decision again under another look or
    sampling seed, a replay of a stored analysis re-solves what it solved; about 40% of the
    test suite's solves repeat one, ~3 ms each). A few MB at most."""
    dds, ECard, Deal, Denom, Player = _solver()
    deal = Deal(pbn, first=Player(leader), trump=Denom.spades)
    for card in played:
        deal.play(ECard(card))
    if best_only:
        from endplay.dds.solve import SolveMode

        return tuple((_ours(str(c)), int(t)) for c, t in dds.solve_board(deal, SolveMode.OptimalOne))
    return tuple((_ours(str(c)), int(t)) for c, t in dds.solve_board(deal))


def _live_nil(view: Any) -> bool:
    return bool(spades_heuristic.live_nils(view))


def _scored(game: Game, view: Any, seat: int, side_tricks: int, nil_fails: dict[int, bool] | None = None) -> float:
    """The deal scored with the seat's side taking ``side_tricks`` of 13 (the other side the
    rest), from the tricks taken so far: totals of the seat's side minus the other's.
    ``nil_fails``: for each nil still alive, whether it is forced to take a trick (it then
    takes one of its side's tricks to come; a surviving nil none)."""
    scoring = game.scoring
    nil_fails = nil_fails or {}
    mine = seat % 2
    totals = []
    for side, total in ((mine, side_tricks), (1 - mine, 13 - side_tricks)):
        seats = (side, side + 2)
        bids = [view.seats[s].bid or 0 for s in seats]
        blind = [view.seats[s].blind_nil for s in seats]
        tricks = [view.seats[s].tricks_won for s in seats]
        extra = total - sum(tricks)
        for i, s in enumerate(seats):  # a failing live nil takes one of the tricks to come
            if nil_fails.get(s) and extra > 0:
                tricks[i] += 1
                extra -= 1
        # The rest go to a partner who bid tricks (else to one still failing, or the second).
        k = 0 if bids[0] >= 1 or (bids[1] == 0 and not nil_fails.get(seats[1], True)) else 1
        if bids[k] == 0 and nil_fails.get(seats[k]) is False and nil_fails.get(seats[1 - k]) is not False:
            k = 1 - k
        tricks[k] += extra
        r = score_side(bids, blind, tricks, view.sides[side].score, view.sides[side].bags, scoring)
        totals.append(r.score)
    return float(totals[0] - totals[1])


class _Nils:
    """The double-dummy nil solvers of one sampled deal (``bots.spades_nil``), one per nil
    bidder, shared by every candidate valued on it."""

    def __init__(self) -> None:
        self.solvers: dict[int, NilSolver] = {}

    def outcomes(self, st: State) -> dict[int, bool] | None:
        """For each live nil at ``st`` (phase PLAY), whether perfect play forces it to take a
        trick; None when a search ran out of budget."""
        v = st.view(st.current_seat)
        hands = [st.view(s).hand for s in range(4)]
        trick = [(p.seat, p.card) for p in v.trick]
        out = {}
        for n in spades_heuristic.live_nils(v):
            solver = self.solvers.setdefault(n, NilSolver(n))
            r = solver.taken(hands, st.current_seat, trick, v.spades_broken)
            if r is None:
                return None
            out[n] = r
        return out


def _final(view: Any, seat: int) -> float:
    side = seat % 2
    return float(view.sides[side].score - view.sides[1 - side].score)


def _play_out(game: Game, st: State, seat: int, deal: int, rng: random.Random) -> float:
    """The heuristic plays every seat to the end of ``deal`` (a live nil's opponents defend
    against it: ``spades_heuristic.defend_nil``): the seat's side's total minus the other's
    then."""
    while not st.is_terminal:
        v = st.view(st.current_seat)
        if v.deal != deal:
            return _final(v, seat)
        st.apply(spades_heuristic.choose(v, st.legal_actions(), rng))
    out = st.outcome()
    return float(out.scores[seat] - out.scores[(seat + 1) % 4])


def deal_value(game: Game, world: State, seat: int, seed: int, cache: dict | None = None,
               solvers: "_Nils | None" = None, nils: str = DOUBLE_DUMMY) -> float:
    """What the deal in progress in ``world`` is worth to ``seat`` from here (module
    docstring): before play, the heuristic finishes bidding and exchange; then DDS tricks
    scored by the rules, with a live nil's fate solved double dummy, or the heuristic plays
    the deal out: past the nil search's budget, and with ``nils`` ``AT_TABLE`` whenever a
    nil is alive before the deal's first card.
    ``cache`` (per world) keeps the DDS count of the opening position across candidates."""
    rng = random.Random(seed)
    st = world.clone()
    deal = st.view(seat).deal
    while not st.is_terminal:
        v = st.view(st.current_seat)
        if v.deal != deal:
            return _final(v, seat)
        if v.phase is Phase.PLAY:
            break
        st.apply(spades_heuristic.choose(v, st.legal_actions(), rng))
    if st.is_terminal:
        out = st.outcome()
        return float(out.scores[seat] - out.scores[(seat + 1) % 4])
    actor = st.current_seat
    v = st.view(actor)
    fails = None
    if _live_nil(v):
        if nils == AT_TABLE and not v.tricks and not v.trick:  # a nil bid's fate, as played at the table
            return _play_out(game, st, seat, deal, rng)
        fails = (solvers or _Nils()).outcomes(st)
        if fails is None:  # the nil search ran out of budget: the heuristic plays it out
            return _play_out(game, st, seat, deal, rng)
    key = None
    if cache is not None:
        key = tuple(tuple(str(c) for c in st.view(s).hand) for s in range(4)) + (actor, len(v.tricks), len(v.trick))
    best = cache.get(key) if cache is not None else None
    if best is None:
        best = max(_solve(st, best_only=True).values())
        if cache is not None:
            cache[key] = best
    side_tricks = sum(v.seats[s].tricks_won for s in (actor % 2, actor % 2 + 2)) + best
    if actor % 2 != seat % 2:
        side_tricks = 13 - side_tricks
    return _scored(game, v, seat, side_tricks, fails)


def action_values(game: Game, world: State, seat: int, cands: Sequence[Action], seed: int,
                  nils: str = DOUBLE_DUMMY) -> list[float]:
    """Each candidate's value on one sampled ``world`` where ``seat`` is to act (module
    docstring), in ``cands``' order: points of the seat's side minus the other's at the end
    of the deal. ``seed`` seeds the heuristic's choices where it plays (the same for every
    candidate: common random numbers). ``nils``: how a live nil is valued (``DOUBLE_DUMMY``
    or ``AT_TABLE``)."""
    v = world.view(seat)
    if v.phase is Phase.PLAY and all(isinstance(a, Play) for a in cands):
        counts = _solve(world)
        side = sum(v.seats[s].tricks_won for s in (seat % 2, seat % 2 + 2))
        if not _live_nil(v):
            return [_scored(game, v, seat, side + counts[str(a.card)]) for a in cands]
        # A live nil: each candidate's position is searched for the nil's fate (double
        # dummy, ``bots.spades_nil``); the tricks are DDS's as above.
        solvers = _Nils()
        out = []
        for a in cands:
            st = world.clone()
            st.apply(a)
            after = st.view(seat)
            if st.is_terminal or after.deal != v.deal:
                out.append(_final(after, seat) if not st.is_terminal else _play_out(game, st, seat, v.deal, random.Random(seed)))
                continue
            fails = solvers.outcomes(st)
            if fails is None:  # out of budget: the heuristic plays the deal out
                out.append(_play_out(game, st, seat, v.deal, random.Random(seed)))
            else:
                out.append(_scored(game, after, seat, side + counts[str(a.card)], fails))
        return out
    out = []
    cache: dict = {}
    solvers = _Nils()
    for a in cands:
        st = world.clone()
        st.apply(a)
        out.append(deal_value(game, st, seat, seed, cache, solvers, nils))
    return out


def candidates(view: Any, legal: Sequence[Action], rng: random.Random) -> list[Action]:
    """The actions worth valuing for the ``dds`` bot: every card, every bid; the look /
    blind-nil choice; an exchange is the heuristic's (its pairs are too many)."""
    legal = list(legal)
    if any(isinstance(a, Give) for a in legal):
        return [spades_heuristic.choose(view, legal, rng)]
    if any(isinstance(a, (Look, Bid, Play)) for a in legal):
        return legal
    return legal


def opening_tricks(hands: Sequence[Sequence[Any]], leader: int) -> int:
    """Double-dummy tricks of the side of seats 0 and 2 in a whole deal (``hands`` per seat as
    dealt, spades trump, ``leader`` leading the first trick): one DDS solve."""
    dds, _, Deal, Denom, Player = _solver()
    from endplay.dds.solve import SolveMode

    best = max(int(t) for _, t in dds.solve_board(Deal(_pbn(hands), first=Player(leader), trump=Denom.spades),
                                                   SolveMode.OptimalOne))
    return best if leader % 2 == 0 else 13 - best
