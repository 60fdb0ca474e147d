"""A seat's analysis of a stored match, computed once and kept in the store.

``settings_key`` names an analysis by what changes its numbers (samples, seed, max actions);
``stored_analysis(store, match_id, seat, ...)`` returns the stored one under those settings,
or computes it (``values.analyse``, the whole match), stores it when the store is writable,
and returns it. The rows are ``Analysed`` decisions: plain values (the decision's number,
step, what was played, each valued action with its interval, the verdict), what the
inspector page and ``arbiter analyse`` show, with no view in them (a page rebuilds the
seat's view from the record).

The record is read through the one reader (``Store.read_match``) and refused when its
disclosure withholds it (``Withheld``), as ``arbiter replay`` refuses it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Callable, Iterable

from arbiter.analysis.values import DEFAULT_MAX_ACTIONS, DEFAULT_SAMPLES, ActionValue, DecisionValue, ValuedActions, analyse
from arbiter.store.analyses import StoredRow, analysed, load_analysis, save_analysis
from arbiter.store.db import Store, StoreError
from cardarena.records import MatchRecord

__all__ = ["Analysed", "Costly", "costliest", "costliest_of", "current_analysis", "method_key", "settings_key", "stored_analysis", "from_json",
           "to_json", "analysed_rows"]


@dataclass(frozen=True)
class Analysed(ValuedActions):
    """One decision of a seat, valued: ``values`` best first (empty when it was not valued:
    ``note`` says why), ``chosen`` the action played (None: the match ended here),
    ``loss``/``loss_se`` against the best valued action, ``verdict`` ("mistake", "fine",
    "unsure", or "" when not valued), ``ms`` the seat's time as the arbiter saw it."""

    number: int
    step: int
    chosen: str | None
    values: tuple[ActionValue, ...]
    loss: float
    loss_se: float
    verdict: str
    legal_count: int
    samples: int
    margin: float
    note: str = ""
    forced: str = ""
    ms: int = 0

    @property
    def mistake(self) -> bool:
        return self.verdict == "mistake"

    @property
    def played(self) -> str:
        """What was played, and, when the arbiter chose it for the bot (a timeout, an illegal
        answer under ``--policy default``), why: so that the loss of a failure is not read as
        a choice the bot made. As the inspector's decision page says it; the terminal and
        the bots' pages show this."""
        text = self.chosen or "(nothing: the match ended)"
        return f"{text} (by the arbiter: {self.forced})" if self.forced else text


    @classmethod
    def of(cls, d: DecisionValue) -> "Analysed":
        p = d.point
        verdict = "mistake" if d.mistake else d.verdict
        return cls(p.number, p.step, d.chosen, d.values, d.loss, d.loss_se, verdict, d.legal_count, d.samples,
                   d.margin, d.note, p.forced, p.ms)


#: Raised when the way values are computed changes: analyses stored before are not reused.
METHOD = 17  # 2: live nils solved double dummy, 16 states; 3: two looks agree, S&M without the reach bonus; 4: a fine at a 1% error rate, three looks agree; 5: a fine at 0.1%; 6: a finished Spite and Malice game worth its result alone; 7: a "fine" bounds a rare difference not yet seen (values.RARE), a run under way at the budget may finish (values.FINISH); 8: not at Spot; 9: at Spite and Malice a decision near the edge at the budget's end draws on to twice the budget (values.EDGE, values.EXTEND, values.EXTENDED); 10: at Spades a live nil valued as at the table: a nil bid's fate played out single dummy, its opponents defending against it (bots.spades_dds.AT_TABLE); 11: at Spades the heuristic (the reference policy, whose action is the comparison named first) defends against an opponent's nil itself (bots.spades_heuristic.defend_nil, the play-outs' defence moved there): the values are method 10's, the named action moves where an opponent's nil is alive; 12: at Spot a mistake costs at least an ante (5 units, values.MARGIN) and a fine means no better action at all (values.FINE): the losses between are unsure; 13: at Spades a mistake costs at least a trick of a contract (10 points, values.MARGIN) and a fine means nothing better by a point (a bag, values.FINE): the losses between are unsure; 14: one action of each class of the same play by the game's rules valued (values.same_plays, Platform.same_play: Spades' touching cards, Spite and Malice's alike cards, piles and stacks), its twins showing its values (ActionValue.same_as), the chosen action's twins the chosen play itself, not compared; 15: a "fine" bounds a difference not yet seen by what the deal still puts at stake, read from the view (values.stake, Platform.value_stake: at Spades the range of the deal's outcome still possible), not by the spread of values seen; 16: at Spite and Malice looks at 32, 64, 96 and 128 states only, each verdict's error rate split over them and the first look that gives one deciding, a fine testing each candidate at its rate (values.SPLIT, values.Looks's split; no edge extension there); 17: at Spades a "mistake" bounds a difference not yet seen as a "fine" does: some gain's lower bound less 1 / n times the deal's stake still clears the margin (values.RARE_MISTAKE, look's rare_mistake)


def settings_key(samples: int = DEFAULT_SAMPLES, seed: int = 0, max_actions: int = DEFAULT_MAX_ACTIONS) -> str:
    """The canonical text of an analysis's settings (its key in the store), with the
    method's version (``METHOD``)."""
    return f"{method_key()}samples={samples};seed={seed};max_actions={max_actions}"


def method_key() -> str:
    """The start of every settings key of the current ``METHOD``: an analysis stored under
    another method is neither shown nor reused (the inspector, a bot's costliest decisions),
    it is computed again."""
    return f"method={METHOD};"


def settings_words(key: str) -> str:
    """A stored analysis's settings key (``settings_key``) in words, with the flags of `arbiter
    analyse` that give them: the inspector showed the key as it is, "method=17, samples=64,
    seed=0, max_actions=12", which names no flag and a version its reader has no use for."""
    held = dict(part.split("=", 1) for part in key.split(";") if "=" in part)
    if not {"samples", "seed", "max_actions"} <= held.keys():
        return key.replace(";", ", ")
    samples, seed, most = held["samples"], held["seed"], held["max_actions"]
    return (f"{samples} sampled states per decision, seed {seed}, at most {most} actions valued (arbiter analyse "
            f"--samples {samples} --seed {seed} --max-actions {most}; the analysis's method {held.get('method', '?')})")


def current_analysis(store: Store, match_id: str, seat: int) -> StoredRow | None:
    """The newest stored analysis of ``seat`` in ``match_id`` made by the current ``METHOD``
    (any budget or seed), or None: what the inspector shows."""
    return load_analysis(store, match_id, seat, prefix=method_key())


def to_json(rows: Iterable[Analysed]) -> str:
    return json.dumps([asdict(r) for r in rows], separators=(",", ":"))


def from_json(text: str) -> list[Analysed]:
    """Stored rows back; ValueError for text that is not a stored analysis."""
    try:
        out = []
        for r in json.loads(text):
            r["values"] = tuple(ActionValue(**v) for v in r["values"])
            out.append(Analysed(**r))
        return out
    except (TypeError, KeyError, AttributeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a stored analysis: {exc}") from None


def analysed_rows(record: MatchRecord, seat: int, *, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                  max_actions: int = DEFAULT_MAX_ACTIONS, first: int = 1, last: int | None = None,
                  progress: Callable[[Analysed], None] | None = None) -> list[Analysed]:
    """The decisions ``first``..``last`` of ``seat`` in ``record`` valued (``values.analyse``), as rows."""
    rows = []
    for d in analyse(record, seat, samples=samples, seed=seed, max_actions=max_actions, first=first, last=last):
        rows.append(Analysed.of(d))
        if progress is not None:
            progress(rows[-1])
    return rows


def stored_analysis(store: Store, match_id: str, seat: int, *, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                    max_actions: int = DEFAULT_MAX_ACTIONS, compute: bool = True,
                    progress: Callable[[Analysed], None] | None = None) -> tuple[list[Analysed] | None, bool]:
    """(rows, stored) of ``seat`` in ``match_id`` under these settings: the stored rows if
    any; else (with ``compute``) computed, then stored if the store can be written
    (``stored`` says whether they are in the store now); else (None, False).

    StoreError for no such match; ``cardarena.disclosure.Withheld`` for a match its
    disclosure withholds; ValueError for a seat the game does not have."""
    record, shown = store.read_match(match_id)
    shown.require_match(match_id)
    if not 0 <= seat < len(record.seat_names):
        raise ValueError(f"seat {seat}: {record.game} match {match_id} has seats 0 to {len(record.seat_names) - 1}")
    key = settings_key(samples, seed, max_actions)
    found = load_analysis(store, match_id, seat, key)
    if found is not None:
        try:
            return from_json(found.rows_json), True
        except ValueError:
            pass  # an unreadable row is computed again (and replaced)
    if not compute:
        return None, False
    rows = analysed_rows(record, seat, samples=samples, seed=seed, max_actions=max_actions, progress=progress)
    try:
        save_analysis(store, match_id, seat, key, to_json(rows))
        saved = True
    except StoreError:
        saved = False
    return rows, saved


@dataclass(frozen=True)
class Costly:
    """One costly decision of a bot: the match, the seat it sat in, the decision."""

    match_id: str
    seat: int
    row: Analysed


def costliest(store: Store, bot: str, top: int = 10, recent: int = 1000,
              within: set[str] | None = None) -> tuple[list[Costly], int]:
    """(the ``top`` decisions that cost ``bot`` most, how many analysed matches they come from)
    across its last ``recent`` stored matches already analysed (the newest analysis of each
    seat it sat in, by the current ``METHOD``; ``within``: only those of these match ids), leaving out matches their
    disclosure withholds. A decision counts when
    it lost something against the best valued action; mistakes first, then by loss."""
    rows = [m for m in store.bot_matches(bot, recent) if store.disclosure_of(m).matches]
    if within is not None:
        rows = [m for m in rows if m.match_id in within]
    seats = {m.match_id: {i for i, name in enumerate(m.seats) if name == bot} for m in rows}
    seen: set[tuple[str, int]] = set()
    found: list[Costly] = []
    for a in analysed(store, list(seats), prefix=method_key()):  # no older method's
        if a.seat not in seats.get(a.match_id, ()) or (a.match_id, a.seat) in seen:
            continue
        seen.add((a.match_id, a.seat))
        try:
            found += [Costly(a.match_id, a.seat, r) for r in from_json(a.rows_json) if r.loss > 0]
        except ValueError:
            continue
    found.sort(key=_costly_order)
    return found[:top], len({m for m, _ in seen})


def _costly_order(c: Costly) -> tuple:
    return (not c.row.mistake, -c.row.loss, c.match_id, c.row.number)


def costliest_of(store: Store, names: Iterable[str], top: int = 10,
                 within: set[str] | None = None) -> tuple[list[Costly], int]:
    """``costliest`` over the names one bot sat under (one per version of a registered bot),
    merged: the ``top`` of them all, and how many analysed matches they come from."""
    found: list[Costly] = []
    n = 0
    for name in names:
        f, k = costliest(store, name, top, within=within)
        found += f
        n += k
    found.sort(key=_costly_order)
    return found[:top], n
