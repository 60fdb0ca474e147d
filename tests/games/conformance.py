"""One conformance suite for every game of the registry: the machinery.

``test_conformance.py`` runs these checks for every game in ``cardarena.games.GAMES``,
on its default options, each of its presets and a spread of option combinations
(``configs``), so a newly registered game gets all of them without new test code:

* ``check_deterministic``: the same seed and the same actions (replayed from their
  notation, with the global RNG disturbed) give the same views, events, action texts
  and outcome;
* ``check_playout``: random playouts to the end: a non-terminal state has legal actions,
  every legal action applies and round-trips through the notation and the wire (views
  too), actions legal elsewhere in the game are refused with ``IllegalActionError``
  leaving the state unchanged, the outcome is well formed;
* ``check_conservation``: ``State.all_cards()`` is the same multiset after every step;
* ``check_redeal_invariance``: re-dealing what seat S has not seen (the SDK's forward
  model, ``sdk.forward.sample_states``) changes neither S's view, nor S's legal actions,
  nor the events S sees from the next action;
* ``check_no_hidden_cards``: no view, private event or action text (``Game.action_text``,
  for every seat and the spectator) shows a viewer a card it has not seen: one that
  neither its view showed before nor the step's events show it (public events are the
  re-deal check's).

Cards are found in values by type (``Card``) and in texts by their notation
(``CARD_TOKEN``: ``QS``, ``10H``, the alias ``TH``, ``JK``), and compared by value: in a
multi-deck game a card is "seen" once any copy of it is, so the single-deck variants
are the sharp test there. The per-game leak tests check views and events against the
true state.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import math
import random
import re
import types
import typing
from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Iterable, Mapping

from cardarena.games import (
    GAMES,
    Action,
    Card,
    ConfigError,
    EndReason,
    Event,
    Game,
    IllegalActionError,
    State,
    events_for,
    game_class,
    get_game,
)

# --------------------------------------------------------------------------------------
# Cards in values and texts


#: A card in text: rank A, 2-10 (or T), J, Q, K then suit S, H, D, C; or the joker JK.
CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?:(?:10|[2-9TAJQK])[SHDC]|JK)(?![0-9A-Za-z])")


def card_tokens(text: str) -> list[Card]:
    """The cards named in ``text``, in order."""
    return [Card.parse(t) for t in CARD_TOKEN.findall(text)]


def walk_cards(value: Any, out: list[Card] | None = None) -> list[Card]:
    """Every Card anywhere inside a view/event/action value (dataclasses, tuples, lists,
    sets), in order. Written for speed: the leak playouts walk every seat's view at every
    step, and this walk was 95% of their time (a dataclass's field names are read once per
    class, atoms and strings are skipped without a look inside, and the cards of a part
    that cannot change are remembered, ``_WALKED``: an engine shares a view's unchanged
    parts, the finished tricks say, from one step and one seat to the next)."""
    if out is None:
        out = []
    cls = value.__class__
    if cls is Card:
        out.append(value)
    elif cls not in _LEAVES:
        out.extend(_walk(value, cls)[1])
    return out


def _walk(value: Any, cls: type) -> tuple[Any, list[Card]]:
    """``walk_cards`` of a value neither a card nor an atom: (value, its cards) as
    ``_WALKED`` keeps them if it cannot change (``_NOTHING`` for an enum member), else
    (None, its cards)."""
    kept = _WALKED.get(id(value))
    if kept is not None and kept[0] is value:
        return kept
    fixed = _FIXED.get(cls, _FIXED)
    if fixed is _FIXED:
        fixed = _fixed(cls)
    if fixed is None:  # an enum member holds nothing
        return _NOTHING
    if cls in _CONTAINERS or isinstance(value, (tuple, list, frozenset, set)):
        parts = value
    else:
        get = _WALK_GETTERS.get(cls)
        if get is None:
            names = (tuple(f.name for f in dataclasses.fields(value))
                     if dataclasses.is_dataclass(value) and not isinstance(value, type) else ())
            get = _WALK_GETTERS[cls] = _getter(names)
        parts = get(value)
    mine: list[Card] = []
    walked = _WALKED
    for v in parts:  # the cases above, for each part, without a call
        c = v.__class__
        if c is Card:
            mine.append(v)
        elif c not in _LEAVES:
            kept = walked.get(id(v))
            if kept is None or kept[0] is not v:
                kept = _walk(v, c)
                if kept[0] is None:  # may change: so may this value
                    fixed = False
            mine.extend(kept[1])
    if not fixed:
        return None, mine
    if len(_WALKED) > 2_000:  # bounded: it keeps what it read alive (so no id is reused)
        _WALKED.clear()
    kept = _WALKED[id(value)] = (value, mine)
    return kept


#: id -> (value, its cards) of the values ``walk_cards`` has read that cannot change (an
#: immutable value holding only such values); the value is kept, so its id cannot be
#: another object's while it is here. Bounded at 2,000, as ``_SHOWN`` (below).
_WALKED: dict[int, tuple[Any, list[Card]]] = {}
#: class -> True: its values cannot change, what they hold may (tuples, frozensets, frozen
#: dataclasses: remembered only when all they hold is remembered or an atom); None: an
#: atom holding no card (an enum member); False: may change (lists, sets, other classes).
_FIXED: dict[type, bool | None] = {tuple: True, frozenset: True, list: False, set: False}


def _fixed(cls: type) -> bool | None:
    known = _FIXED.get(cls, _FIXED)
    if known is _FIXED:  # not known yet (False == 0: a list's was worked out again at every call)
        if issubclass(cls, enum.Enum):
            known = None
        else:
            params = getattr(cls, "__dataclass_params__", None)
            known = bool(params is not None and params.frozen and "__dataclass_fields__" in cls.__dict__)
        _FIXED[cls] = known
    return known


_LEAVES = frozenset({int, float, bool, str, bytes, type(None)})
_CONTAINERS = frozenset({tuple, list, frozenset, set})
#: class -> a function reading its dataclass fields' values, as a tuple (none for a class
#: that is not a dataclass).
_WALK_GETTERS: dict[type, Any] = {}
#: What ``_walk`` gives for an enum member: nothing, and nothing that may change.
_NOTHING: tuple[Any, list[Card]] = (enum.Enum, [])


_ATOMS = (int, float, bool, type(None), enum.Enum)

#: How ``shown_cards`` and ``shown_mask`` read a value, by its class (what the isinstance
#: tests below decide depends on the class alone, so it is decided once per class).
_TEXT, _ATOM, _SEQ, _DATA, _OTHER = range(5)
_KIND: dict[type, int] = {Card: -1}
#: text -> the cards it names (event texts and moves repeat at every step of a playout).
_TEXT_CARDS: dict[str, tuple[Card, ...]] = {}
#: class -> a function reading its dataclass fields' values, as a tuple (``_getter``).
_GETTERS: dict[type, Any] = {}


def _getter(names: tuple[str, ...]) -> Any:
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return lambda value: ()


def _kind(cls: type, value: Any) -> int:
    if issubclass(cls, str):
        kind = _TEXT
    elif issubclass(cls, _ATOMS):
        kind = _ATOM
    elif issubclass(cls, (tuple, list, frozenset, set)):
        kind = _SEQ
    elif hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        kind = _DATA
    elif isinstance(value, type):
        return _OTHER  # a class (its class is type, or a metaclass): not remembered
    else:
        kind = _OTHER
    _KIND[cls] = kind
    return kind


def _text_cards(text: str) -> tuple[Card, ...]:
    hit = _TEXT_CARDS.get(text)
    if hit is None:
        if len(_TEXT_CARDS) > 100_000:
            _TEXT_CARDS.clear()
        hit = _TEXT_CARDS[text] = tuple(card_tokens(text))
    return hit


def shown_cards(value: Any, out: list[Card] | None = None) -> list[Card]:
    """Every card a value shows: ``Card`` values and card notation inside its strings
    (an event's text, a move written in notation inside a view), anywhere inside
    dataclasses, tuples, lists and sets, in order. Each class is sorted once (``_KIND``),
    each text read once (``_TEXT_CARDS``); the checks read the same cards as a set,
    ``shown_mask``."""
    if out is None:
        out = []
    cls = value.__class__
    kind = _KIND.get(cls)
    if kind is None:
        kind = _kind(cls, value)
    if kind == -1:
        out.append(value)
        return out
    if kind == _TEXT:
        out.extend(_text_cards(value))
        return out
    if kind == _ATOM or kind == _OTHER:
        return out
    mine: list[Card] | None = None
    if kind == _SEQ:
        parts = value
        mine = [v for v in parts if v.__class__ is Card]
        if len(mine) != len(parts):  # not only cards (a hand, a pile are): read each part
            mine = None
    else:
        get = _GETTERS.get(cls)
        if get is None:
            get = _GETTERS[cls] = _getter(tuple(value.__dataclass_fields__))
        parts = get(value)
    if mine is None:  # the cases at the top of this function, for each part, without a call
        mine = []
        kinds, texts = _KIND, _TEXT_CARDS
        for v in parts:
            k = kinds.get(v.__class__)
            if k == -1:
                mine.append(v)
            elif k == _TEXT:
                hit = texts.get(v)
                mine.extend(hit if hit is not None else _text_cards(v))
            elif k != _ATOM and k != _OTHER:
                shown_cards(v, mine)
    out.extend(mine)
    return out


def shown_mask(value: Any) -> int:
    """The cards ``shown_cards`` finds in ``value``, as a set written as an int: bit i for
    the card of index i (``Card`` is that int). The leak and re-deal checks compare sets
    of cards only (gained, named, hidden), and a set this way is one ``|`` or ``&``.

    What cannot change is read once across calls (``_SHOWN``): an engine shares a view's
    unchanged parts from one step and one viewer to the next (the finished tricks, every
    seat's public picture, the events of the log), so a view is read down to its new
    parts only."""
    cls = value.__class__
    kind = _KIND.get(cls)
    if kind is None:
        kind = _kind(cls, value)
    if kind == -1:
        return 1 << value
    if kind == _TEXT:
        hit = _TEXT_MASK.get(value)
        return hit if hit is not None else _text_mask(value)
    if kind == _ATOM or kind == _OTHER:
        return 0
    mask = _mask(value, cls, kind, False)
    return mask if mask >= 0 else ~mask


def _mask(value: Any, cls: type, kind: int, keep: bool = True) -> int:
    """The mask of a tuple, set, list or dataclass if it cannot change (then remembered,
    when ``keep``), else its complement (a negative int: what holds it may change too)."""
    mask = _SHOWN.get(id(value))
    if mask is not None:
        return mask
    fixed = _FIXED.get(cls)
    if fixed is None:  # not known yet (or an enum, never read here)
        fixed = _fixed(cls)
    mask = 0
    shown = _SHOWN
    if kind == _SEQ:
        if cls is tuple:  # a new tuple of the same parts (a seat's hand, every seat's picture)
            key = tuple(map(id, value))
            mask = _BY_PARTS.get(key)
            if mask is not None:
                return mask
            mask = 0
        kinds, texts = _KIND, _TEXT_MASK
        for v in value:  # the cases of shown_mask and the memo's hit, for each part, without a call
            c = v.__class__
            if c is Card:
                mask |= 1 << v
                continue
            k = kinds.get(c)
            if k is None:
                k = _kind(c, v)
            if k == _TEXT:
                hit = texts.get(v)
                mask |= hit if hit is not None else _text_mask(v)
            elif k == -1:
                mask |= 1 << v
            elif k != _ATOM and k != _OTHER:
                hit = shown.get(id(v))
                if hit is None:
                    hit = _mask(v, c, k)
                    if hit < 0:
                        hit = ~hit
                        fixed = False
                mask |= hit
    else:
        get = _GETTERS.get(cls)
        if get is None:
            get = _GETTERS[cls] = _getter(tuple(value.__dataclass_fields__))
        parts = get(value)
        classes = tuple(map(type, parts))
        plan = _PLANS.get(classes)
        if plan is None:
            plan = _plan(classes, parts)
        cards, texts, nested = plan
        for i in cards:
            mask |= 1 << parts[i]
        for i in texts:
            v = parts[i]
            hit = _TEXT_MASK.get(v)
            mask |= hit if hit is not None else _text_mask(v)
        for i, c, k in nested:
            v = parts[i]
            hit = shown.get(id(v))
            if hit is None:
                hit = _mask(v, c, k)
                if hit < 0:
                    hit = ~hit
                    fixed = False
            mask |= hit
    if not fixed:
        return ~mask
    if keep:
        if len(_KEPT) >= 2_000:  # bounded: most of it is one step's new tuples (below)
            _SHOWN.clear()
            _BY_PARTS.clear()
            _KEPT.clear()
        _SHOWN[id(value)] = mask
        if cls is tuple:
            _BY_PARTS[key] = mask
        _KEPT.append(value)
    return mask


def _plan(classes: tuple[type, ...], parts: tuple) -> tuple:
    """Where a dataclass's fields of these classes hold cards, texts and other values to
    read (its atoms, most of a view's fields, are passed over without a look)."""
    cards, texts, nested = [], [], []
    for i, (c, v) in enumerate(zip(classes, parts)):
        k = _KIND.get(c)
        if k is None:
            k = _kind(c, v)
        if k == -1:
            cards.append(i)
        elif k == _TEXT:
            texts.append(i)
        elif k != _ATOM and k != _OTHER:
            nested.append((i, c, k))
    plan = _PLANS[classes] = (tuple(cards), tuple(texts), tuple(nested))
    return plan


def _text_mask(text: str) -> int:
    mask = 0
    for card in _text_cards(text):
        mask |= 1 << card
    if len(_TEXT_MASK) > 100_000:
        _TEXT_MASK.clear()
    _TEXT_MASK[text] = mask
    return mask


def mask_cards(mask: int) -> list[str]:
    """The cards of a mask in notation, in card order (for a message)."""
    return [str(Card(i)) for i in range(mask.bit_length()) if mask >> i & 1]


#: id -> the mask of the cards it shows, of the values ``shown_mask`` has read that cannot
#: change (a tuple, frozenset or frozen dataclass holding only such values, texts, cards
#: and atoms), and those values, kept (so no id here is another object's while it is
#: here). Masks and a list, not (value, mask) pairs: ints and a list's slots are no
#: objects the garbage collector tracks, and 50,000 pairs made it a quarter of the check.
#: Bounded at 2,000 values, as ``_WALKED``: what an engine shares is a few hundred, the
#: rest one step's new tuples and views, which the collector reads again and again while
#: they are kept (50,000 kept cost the leak and re-deal tests 0.3-0.5 CPU-s more, 200,000
#: in ``_WALKED`` the Spades and Spot leak playouts 0.5 s more, than 2,000).
_SHOWN: dict[int, int] = {}
#: the ids of a remembered tuple's parts -> its mask: another tuple of the same parts (kept
#: alive in the remembered one) shows the same cards.
_BY_PARTS: dict[tuple[int, ...], int] = {}
_KEPT: list[Any] = []
#: the classes of a dataclass's field values -> ``_plan``.
_PLANS: dict[tuple[type, ...], tuple] = {}
#: text -> the mask of the cards it names.
_TEXT_MASK: dict[str, int] = {}


def view_of(state: State, viewer: int | None) -> Any:
    """``viewer``'s view (None: the spectator's)."""
    return state.spectator_view() if viewer is None else state.view(viewer)


def viewers(game: Game) -> list[int | None]:
    """Every seat, then the spectator (None)."""
    return [*range(game.num_seats), None]


# --------------------------------------------------------------------------------------
# Configurations: defaults, presets and a spread of options per game


@dataclass(frozen=True)
class Config:
    """One configured game: options on top of a preset (later wins, as in ``get_game``)."""

    game: str
    name: str
    options: tuple[tuple[str, Any], ...]
    preset: str | None = None

    def make(self) -> Game:
        return get_game(self.game, dict(self.options), self.preset)

    @property
    def id(self) -> str:
        return f"{self.game}/{self.name}"


#: Options that keep every random game short: laid under every configuration of the game
#: (a configuration's own value wins). A game missing here is played as configured.
BOUNDS: dict[str, dict[str, Any]] = {
    "spades": {"max_deals": 3},
    "spite-and-malice": {"max_turns": 300},
    "spot": {"hands": 2},
}

#: Option combinations chosen from each game's option table (rules §7 / §8 / §6), beside
#: the defaults and the presets; together they set every option to a non-default value
#: at least once (``test_every_option_is_covered``). A registered game missing here gets
#: ``auto_variants`` instead.
VARIANTS: dict[str, list[tuple[str, dict[str, Any], str | None]]] = {
    "spades": [
        ("target-lose_at", {"target": 150, "lose_at": -150, "simultaneous_target_rule": "higher_deal_score",
                            "first_dealer": 2, "max_deals": 8}, None),
        ("deals-bidder_first", {"deals": 2, "blind_nil_exchange_order": "bidder_first", "failed_nil_tricks": "ignored",
                                "nil_value": 50, "blind_nil_value": 120}, None),
        ("no-exchange-bags", {"blind_nil_exchange": False, "failed_nil_tricks": "count_for_partner", "bag_limit": 5,
                              "bag_penalty_points": 50}, None),
        ("no-nil", {"blind_nil": False, "nil": False, "bag_penalty": False}, None),
        ("deficit", {"blind_nil_min_deficit": 50, "max_deals": 4}, None),
    ],
    "spite-and-malice": [
        ("single-deck", {"decks": 1, "payoff_size": 10}, None),
        ("three-players", {"players": 3, "center_limit": 4, "stalemate_rule": "fewer_payoff_wins", "jokers": 2}, None),
        ("partners-4", {"players": 4, "partnerships": True, "payoff_size": 8, "side_stacks_spread": True}, None),
        ("partners-4-single-deck", {"players": 4, "partnerships": True, "decks": 1, "payoff_size": 4}, None),
        # games of 150 turns, not 300: random play ends a six-seat game at its turn limit, and
        # at 150 each test's seeds still play a series of several games with recycled piles
        # (games 2+1 at the re-deal seeds, 2+3 at the leak seeds, 3 at the determinism seed;
        # 0.6x the steps over the nine seeds the suite walks)
        ("partners-6-series", {"players": 6, "partnerships": True, "payoff_size": 5, "series_scoring": True,
                               "match_target": 6, "max_turns": 150}, None),
        ("jokers-kings-natural", {"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A,7",
                                  "initial_side_cards": 1}, None),
        ("loading", {"loading": True, "payoff_size": 10}, None),
        ("deferred-forced-aces", {"center_limit": "unlimited", "recycle": "deferred", "forced_aces": True,
                                  "payoff_size": 8}, None),
        # a target of 4 still plays a series of several games on the seeds the suite walks
        # (15 and 5 games at seeds 0 and 1 under random play; 8 took 34 and 21, 2.3x the steps)
        ("series", {"series_scoring": True, "match_target": 4, "payoff_size": 6}, None),
        ("book-reshuffle", {"deadlock_rule": "reshuffle", "max_deadlock_reshuffles": 2}, "book"),
        ("book-hand-ace-two", {"deadlock_rule": "hand_ace_two_then_end", "center_limit": 4}, "book"),
    ],
    "spot": [
        ("two-players", {"players": 2, "ante": 0, "unit_per_spot": 3, "first_dealer": 1, "hands": 3}, None),
        ("three-players", {"players": 3, "allow_discard_of_taken_card": True}, None),
        ("six-players", {"players": 6, "pot_carry_over": False}, None),
        ("play-until-won", {"players": 5, "end_pot": "play_until_won", "max_extra_hands": 2}, None),
        ("short-hands", {"max_turns_per_hand": 6, "unit_per_spot": 0.5}, None),
    ],
}


def _candidates(tp: Any, default: Any) -> list[Any]:
    """Non-default values to try for an option of type ``tp`` (bounded, generic)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    out: list[Any] = []
    if origin in (typing.Union, types.UnionType):
        for arm in args:
            if arm is type(None):
                out.append(None)
            else:
                arm_default = default if _is_instance(default, arm) else None
                out.extend(_candidates(arm, arm_default))
    elif origin is typing.Literal:
        out.extend(args)
    elif origin is frozenset:
        (inner,) = args
        members = _candidates(inner, None)
        if members:
            out.append(frozenset(members[:1]))
    elif tp is bool:
        out.append(not default if isinstance(default, bool) else True)
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        out.extend(m.value for m in tp)
    elif tp is int:  # the value above, else below (an option that defaults to its maximum)
        out.extend((default + 1, default - 1) if isinstance(default, int) and not isinstance(default, bool) else (1,))
    elif tp is float:
        out.extend((default * 2, default / 2) if isinstance(default, (int, float)) and default else (1.0,))
    return [v for v in dict.fromkeys(out, None) if _plain(v) != _plain(default)]


def _single_valued(tp: Any) -> bool:
    """An option type with one possible value (a one-member enum, a one-value Literal)."""
    if typing.get_origin(tp) is typing.Literal:
        return len(typing.get_args(tp)) == 1
    return isinstance(tp, type) and issubclass(tp, enum.Enum) and len(tp) == 1


def _is_instance(value: Any, tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return value in typing.get_args(tp)
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, tp) and not (tp is int and isinstance(value, bool))


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _valid(game: str, options: Mapping[str, Any]) -> bool:
    try:
        get_game(game, dict(options))
    except ConfigError:
        return False
    return True


def auto_variants(game: str) -> list[tuple[str, dict[str, Any], None]]:
    """Option combinations from the game's ``Options`` declaration alone: every
    non-default value ``_candidates`` finds for each option (but those ``BOUNDS`` sets),
    packed greedily into as few valid combinations as possible (for a registered game
    without ``VARIANTS``; an option no generic value covers, or one valid only beside
    another's non-default value, then needs ``VARIANTS``: ``uncovered_options`` says)."""
    cls = game_class(game)
    default = cls.Options()
    hints = typing.get_type_hints(cls.Options)
    bounds = BOUNDS.get(game, {})
    combos: list[dict[str, Any]] = []
    for f in dataclasses.fields(cls.Options):
        if f.name in bounds:
            continue  # set (to a non-default value) by the bounds already
        tp = hints[f.name]
        for value in _candidates(tp, getattr(default, f.name)):
            for combo in combos:
                if f.name not in combo and _valid(game, {**bounds, **combo, f.name: value}):
                    combo[f.name] = value
                    break
            else:
                if not _valid(game, {**bounds, f.name: value}):
                    continue
                combos.append({f.name: value})
            if tp in (int, float):
                break  # a number is covered by one other value: the next is tried only if this one is not valid
    return [(f"auto-{i}", combo, None) for i, combo in enumerate(combos)]


def configs(game: str) -> list[Config]:
    """The configurations the suite plays for ``game``: defaults, every preset, then the
    option combinations (``VARIANTS`` or ``auto_variants``), each under ``BOUNDS``."""
    cls = game_class(game)
    bounds = BOUNDS.get(game, {})
    chosen: list[tuple[str, dict[str, Any], str | None]] = [("default", {}, None)]
    chosen += [(f"preset-{p}", {}, p) for p in cls.presets]
    chosen += VARIANTS[game] if game in VARIANTS else auto_variants(game)
    out = []
    for name, options, preset in chosen:
        merged = {**bounds, **options}
        out.append(Config(game, name, tuple(sorted(merged.items())), preset))
    return out


def all_configs() -> list[Config]:
    """``configs`` of every registered game."""
    return [c for game in GAMES for c in configs(game)]


def uncovered_options(game: str) -> list[str]:
    """Options of ``game`` that no configuration of ``configs`` sets to a non-default
    value (an option with a single possible value counts as covered)."""
    cls = game_class(game)
    default = cls.Options()
    hints = typing.get_type_hints(cls.Options)
    built = [c.make().options for c in configs(game)]
    missing = []
    for f in dataclasses.fields(cls.Options):
        if _single_valued(hints[f.name]):
            continue
        if all(getattr(o, f.name) == getattr(default, f.name) for o in built):
            missing.append(f.name)
    return missing


# --------------------------------------------------------------------------------------
# Determinism


def _trace_step(game: Game, state: State, seat: int | None, action: Action | None, events: list[Event]) -> tuple:
    texts = () if action is None else tuple(game.action_text(action, seat, v) for v in viewers(game))
    return (
        seat,
        None if action is None else str(action),
        texts,
        tuple(events),
        tuple(view_of(state, v) for v in viewers(game)),
    )


def check_deterministic(game: Game, seed: int, max_steps: int = 100_000) -> int:
    """Play ``seed`` with random actions, then replay it from the actions' notation with
    the global RNG disturbed before every step: views, events, action texts and outcome
    must be identical. Returns the number of actions."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    trace = [_trace_step(game, state, None, None, state.log)]
    actions: list[str] = []
    while not state.is_terminal:
        seat = state.current_seat
        action = rng.choice(state.legal_actions())
        actions.append(str(action))
        trace.append(_trace_step(game, state, seat, action, state.apply(action)))
        assert len(actions) < max_steps, f"seed {seed}: no end within {max_steps} actions"
    trace.append(state.outcome())

    noise = random.Random(~seed)
    random.seed(noise.random())
    again = game.new_initial_state(seed)
    replayed = [_trace_step(game, again, None, None, again.log)]
    for text in actions:
        random.random()
        random.shuffle(list(range(10)))
        seat = again.current_seat
        action = game.parse_action(text)
        replayed.append(_trace_step(game, again, seat, action, again.apply(action)))
    replayed.append(again.outcome())
    assert len(replayed) == len(trace)
    for i, (a, b) in enumerate(zip(trace, replayed)):
        assert a == b, f"seed {seed}: replay differs at step {i} ({actions[i - 1] if i else 'the deal'})"
    assert again.log == state.log
    return len(actions)


# --------------------------------------------------------------------------------------
# Random playouts


def _snapshot(game: Game, state: State) -> tuple:
    return (
        state.current_seat,
        state.is_terminal,
        len(state.log),
        [str(a) for a in state.legal_actions()],
        [view_of(state, v) for v in viewers(game)],
    )


_INTEGER = re.compile(r"(?<![0-9A-Za-z])\d+(?![0-9A-Za-z])")


def mutated_actions(game: Game, legal: list[Action], rng: random.Random, n: int = 3) -> list[Action]:
    """Well-formed actions near legal ones: the notation of up to ``n`` legal actions
    with a card replaced by a random one (a card not held) or a number raised by 97 (a
    bid, a pile or a meld that does not exist). A text the notation rejects must raise
    ``InvalidActionError``; the others are returned (legal or not)."""
    from cardarena.games import InvalidActionError
    from cardarena.games.cards import JOKER, STANDARD_DECK

    deck = [*STANDARD_DECK, JOKER]
    out = []
    for action in rng.sample(legal, min(n, len(legal))):
        text = str(action)
        variants = []
        cards = list(CARD_TOKEN.finditer(text))
        if cards:
            m = rng.choice(cards)
            variants.append(text[:m.start()] + str(rng.choice(deck)) + text[m.end():])
        numbers = [m for m in _INTEGER.finditer(text) if not CARD_TOKEN.fullmatch(text[m.start():m.end() + 1])]
        if numbers:
            m = rng.choice(numbers)
            variants.append(text[:m.start()] + str(int(m.group()) + 97) + text[m.end():])
        for variant in variants:
            try:
                out.append(game.parse_action(variant))
            except InvalidActionError:
                pass
    return out


def check_playout(
    game: Game,
    seed: int,
    check_every: int = 3,
    probes_per_check: int = 6,
    max_steps: int = 100_000,
) -> tuple[Any, int]:
    """One seeded random playout to the end with the generic checks (module docstring).

    Illegal probes are actions that were legal at some other point of the same game (for
    any seat: another seat's card, a bid during play, a discard of a card just played)
    and ``mutated_actions`` (a card not held, a pile that does not exist). Returns the
    outcome and the number of probes refused.
    """
    from cardarena.wire import codec as convert

    wire = on_the_wire(game.name)
    rng = random.Random(seed)
    probe_rng = random.Random(seed + 7919)
    state = game.new_initial_state(seed)
    pool: dict[str, Action] = {}
    refused = 0
    step = 0
    while not state.is_terminal:
        seat = state.current_seat
        assert seat is not None and 0 <= seat < game.num_seats, f"seed {seed}: bad current seat {seat}"
        legal = state.legal_actions()
        assert legal, f"seed {seed}: no legal action for seat {seat} in a running game"
        texts = [str(a) for a in legal]
        assert len(set(texts)) == len(texts), f"seed {seed}: duplicate legal actions {texts}"
        for text, a in zip(texts, legal):
            pool.setdefault(text, a)
        if step % check_every == 0:
            for text, action in zip(texts, legal):
                assert game.parse_action(text) == action, f"notation does not round-trip: {action}"
                assert isinstance(game.action_text(action, seat, None), str)
                if wire:
                    message = convert.action_to_proto(game.name, action)
                    assert convert.action_from_proto(game.name, message) == action, f"{action} does not round-trip the wire"
            for v in viewers(game) if wire else ():
                view = view_of(state, v)
                assert convert.view_from_proto(game.name, convert.view_to_proto(game.name, view)) == view
            legal_texts = set(texts)
            others = [a for t, a in pool.items() if t not in legal_texts]
            probes = probe_rng.sample(others, min(probes_per_check, len(others)))
            probes += [a for a in mutated_actions(game, legal, probe_rng) if str(a) not in legal_texts]
            before = _snapshot(game, state)
            for probe in probes:
                try:
                    state.apply(probe)
                except IllegalActionError as exc:
                    assert str(probe) in str(exc), f"the error does not name the action: {exc}"
                else:
                    raise AssertionError(f"seed {seed}: illegal {probe} was applied")
                refused += 1
            assert _snapshot(game, state) == before, f"seed {seed}: a refused action changed the state"
        action = rng.choice(legal)
        n_before = len(state.log)
        new_events = state.apply(action)
        assert state.log[n_before:] == new_events, "apply must return exactly the events it logged"
        step += 1
        assert step < max_steps, f"seed {seed}: game did not end within {max_steps} actions"
    assert state.legal_actions() == []
    assert state.current_seat is None
    for probe in list(pool.values())[:5]:
        try:
            state.apply(probe)
        except IllegalActionError:
            refused += 1
        else:
            raise AssertionError(f"seed {seed}: {probe} was applied after the end")
    outcome = state.outcome()
    assert len(outcome.scores) == len(outcome.ranks) == game.num_seats
    assert min(outcome.ranks) == 1 and all(1 <= r <= game.num_seats for r in outcome.ranks)
    assert outcome.reason in (EndReason.COMPLETED, EndReason.STALEMATE, EndReason.TURN_LIMIT)
    for team in game.teams:
        assert len({outcome.ranks[s] for s in team}) == 1, "partners must share a rank"
    assert not any(x == 0 and math.copysign(1.0, x) < 0 for x in outcome.scores), (
        f"seed {seed}: scores {outcome.scores} hold a negative zero (a score negated: -len(hand)), which every "
        "table, page and export shows as -0; add 0.0")
    for v in viewers(game):
        assert events_for(state.log, v) == [e for e in state.log if e.visible_for(v)]
        view = view_of(state, v)
        assert not wire or convert.view_from_proto(game.name, convert.view_to_proto(game.name, view)) == view
    return outcome, refused


def on_the_wire(game: str) -> bool:
    """The protocol (protos/arena.proto's View and Action oneofs) carries ``game``: every
    game of the product does (test_registrations checks it); a test-only game played in
    process does not, and its playouts skip the wire round trip."""
    from cardarena.wire.codec import carries

    return carries(game)


# --------------------------------------------------------------------------------------
# Card conservation


def same_cards(cards: Counter, pack: Counter) -> bool:
    """``cards == pack``, the Counters' comparison (a Python loop over both, at every step
    of the conservation checks) after the dicts' (in C), which settles it whenever the
    counts are the same: equal dicts are equal Counters, and unequal dicts are compared
    as Counters (where a count of 0 is a card missing)."""
    return dict.__eq__(cards, pack) or cards == pack


def check_conservation(game: Game, seed: int) -> Counter | None:
    """``all_cards()`` after every step equals the multiset dealt; None if the engine
    does not count its cards."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    pack = state.all_cards()
    if pack is None:
        return None
    assert pack and all(isinstance(c, Card) and n > 0 for c, n in pack.items())
    step = 0
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
        step += 1
        cards = state.all_cards()
        assert same_cards(cards, pack), \
            f"seed {seed}, step {step}: cards {cards - pack} appeared, {pack - cards} vanished"
        if step % 17 == 0:
            cards = state.clone().all_cards()
            assert same_cards(cards, pack), \
                f"seed {seed}, step {step}: a clone's cards {cards - pack} appeared, {pack - cards} vanished"
    return pack


# --------------------------------------------------------------------------------------
# Re-dealing what a seat has not seen


def pinned_sampler(game: Game, seed: int):
    """``sample_states`` for ``game`` whose states continue with ``seed``.

    The forward model continues a sampled state from a fresh seed, the ``seed`` parameter
    of ``Game.state_from_view`` that it builds the state with (sdk.games); pinning it to
    the real game's seed makes what comes after the current deal (the next deal, a
    series' next game) the same as in the real game, so the events of a step that starts
    one can be compared too. A game whose forward model does not go that way is told so
    (the check read its stock or hands as the seed, and failed inside the engine).
    """
    from sdk.forward import knowledge, sample_states

    sampler_game = get_game(game.name, game.describe_options())
    method = getattr(type(sampler_game), "state_from_view", None)
    signature = inspect.signature(method) if method is not None else None
    if signature is None or "seed" not in signature.parameters:
        raise AssertionError(
            f"{game.name}: its forward model must build each sampled state with "
            f"{type(sampler_game).__name__}.state_from_view(view, ..., seed), the seed the state continues from "
            f"(later deals, shuffles); " + ("it has no state_from_view" if method is None else
                                           f"its state_from_view{signature} has no parameter 'seed'"))
    built = []
    param = signature.parameters["seed"]
    at = list(signature.parameters).index("seed") - 1  # its place in a call on the game
    by_name = param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)

    def state_from_view(*args, **kwargs):
        built.append(True)
        if by_name:  # what binding the call to the signature does, without its cost
            if len(args) > at and param.kind is param.POSITIONAL_OR_KEYWORD:
                args = (*args[:at], seed, *args[at + 1:])
            else:
                kwargs["seed"] = seed
            return method(sampler_game, *args, **kwargs)
        bound = signature.bind(sampler_game, *args, **kwargs)
        bound.arguments["seed"] = seed
        return method(*bound.args, **bound.kwargs)

    sampler_game.state_from_view = state_from_view  # type: ignore[method-assign]

    def sample(view: Any, n: int, rng: random.Random) -> tuple[set, list[State]]:
        """The cards the view's seat cannot place (the forward model's ``unseen``) and
        ``n`` states drawn from the view, on one reading of what the seat knows."""
        know = knowledge(sampler_game, view)
        states = sample_states(sampler_game, view, n, rng, known=know)
        assert not states or built, (f"{game.name}: its forward model built its states without "
                                     f"{type(sampler_game).__name__}.state_from_view(view, ..., seed): "
                                     f"what follows them cannot be pinned to the real game's seed")
        return set(know.unseen), states

    return sample


def _split(event: Event) -> tuple:
    """An event as (kind, seat, audience, text without its cards, cards of its text, cards)."""
    return (event.kind, event.seat, event.visible_to, tuple(CARD_TOKEN.split(event.text)),
            _text_cards(event.text), tuple(event.cards))


def events_differ(real: list[Event], other: list[Event], unseen: set, shown_real: int, shown_other: int) -> str | None:
    """Why two event lists are not the same up to cards the step shows the viewer for
    the first time (None if they are): same kinds, seats, audiences and texts, except

    * in a private event (one with an audience: the viewer's own draw, say), whose cards
      ``check_step_disclosure`` checks;
    * in a public event, cards the viewer could not place before the step (``unseen``)
      and that its view shows after it (``shown_*``, masks: a hand shown at the end of a
      deal).

    Once such cards of a public event differ, the words of the texts from there on may
    differ too (what is computed from them: the spots of that hand, who won it); cards
    the viewer could place may not."""
    if len(real) != len(other):
        return f"{len(real)} events {[e.text for e in real]} against {len(other)} {[e.text for e in other]}"
    revealed = False
    for e, f in zip(real, other):
        a, b = _split(e), _split(f)
        if a[:3] != b[:3] or len(a[4]) != len(b[4]) or len(a[5]) != len(b[5]):
            return f"{e.text!r} against {f.text!r}"
        private = e.visible_to is not None
        for xs, ys in ((a[4], b[4]), (a[5], b[5])):
            if xs == ys or private:
                continue
            fixed_x = Counter(x for x in xs if x not in unseen or not shown_real >> x & 1)
            fixed_y = Counter(y for y in ys if y not in unseen or not shown_other >> y & 1)
            if fixed_x != fixed_y:
                return (f"{e.text!r} against {f.text!r}: "
                        f"{sorted(map(str, (fixed_x - fixed_y) + (fixed_y - fixed_x)))} were hidden from the viewer")
            revealed = True
        if not revealed and a[3] != b[3]:
            return f"{e.text!r} against {f.text!r}"
    return None


#: Per game, the kinds of public event whose occurrence the rules make depend on cards the
#: viewer has not seen, announcing what they disclose: Spite and Malice's ``deadlock``
#: (``deadlock_rule = hand_ace_two_then_end``: at a deadlock the first seat holding a
#: playable hand A or 2 must play it, so the game ends or goes on as the hidden hands
#: decide, and the event says which seat holds one).
RULE_DISCLOSURES: dict[str, frozenset[str]] = {"spite-and-malice": frozenset({"deadlock"})}


def rule_disclosure_cut(game: Game, real: list[Event], other: list[Event]) -> tuple[list[Event], list[Event]]:
    """Both event lists up to the first rule disclosure (``RULE_DISCLOSURES``) in either:
    what follows one depends on hidden cards by the rules themselves, so a re-dealt state
    may go on differently from there without anything having leaked."""
    kinds = RULE_DISCLOSURES.get(game.name, frozenset())
    cut = min((i for events in (real, other) for i, e in enumerate(events) if e.kind in kinds), default=None)
    return (real, other) if cut is None else (real[:cut], other[:cut])


def check_redeal_invariance(game: Game, seed: int, every: int = 4, samples: int = 3) -> tuple[int, int]:
    """Along a seeded random game, every ``every`` steps and for every seat S: states
    re-dealt from S's view by the forward model (everything S has not seen re-dealt
    consistently with what S knows) show S the same view, give S the same legal actions
    when S is to act, and, after the next action (the real one; for another actor one
    that reads the same to S, ``Game.action_text``), show S the same events, up to the
    cards the step shows S for the first time (``events_differ``). The sampler
    succeeding at all is the card count seen from S (its view's cards and counts add up
    to the pack). Where each seat stands (``State.standing``) is the same in every re-dealt
    state (it reads only what every seat sees), and a game of more than two sides has one.

    Returns (views compared, steps whose events were compared).
    """
    sample = pinned_sampler(game, seed)
    rng = random.Random(seed)
    sample_rng = random.Random(seed ^ 0x5EED)
    state = game.new_initial_state(seed)
    views = steps = 0
    step = 0
    while not state.is_terminal:
        standing = state.standing()
        if len(game.teams) > 2:  # a forfeit ranks the sides that did not fail by it: one entry a seat, partners alike
            assert standing is not None and len(standing) == game.num_seats, f"{game.name}: no standing for its sides"
            assert all(standing[s] == standing[t[0]] for t in game.teams for s in t), f"partners stand apart: {standing}"
        actor = state.current_seat
        legal = state.legal_actions()
        action = rng.choice(legal)
        after = state.clone()
        real_events = after.apply(action)
        if step % every == 0:
            for seat in range(game.num_seats):
                view = state.view(seat)
                unseen, others = sample(view, samples, sample_rng)
                text = game.action_text(action, actor, seat)
                compared = False
                for other in others:
                    assert other.view(seat) == view, f"seed {seed}, step {step}: seat {seat}'s view changed under a re-deal"
                    # where each seat stands (a forfeit ranks the others by it) reads only what every seat sees
                    assert other.standing() == standing, \
                        f"seed {seed}, step {step}: the standing changed under a re-deal from seat {seat}'s view"
                    views += 1
                    other_legal = other.legal_actions()
                    if actor == seat:
                        assert other_legal == legal, f"seed {seed}, step {step}: seat {seat}'s legal actions changed"
                    if compared:
                        continue
                    same = [a for a in other_legal if game.action_text(a, actor, seat) == text]
                    if not same:
                        continue  # the re-dealt actor cannot take an action that reads the same
                    chosen = action if action in same else same[0]
                    other_events = other.apply(chosen)
                    mine, theirs = rule_disclosure_cut(
                        game, events_for(real_events, seat), events_for(other_events, seat))
                    why = events_differ(
                        mine, theirs, unseen, shown_mask(after.view(seat)), shown_mask(other.view(seat)),
                    )
                    assert why is None, f"seed {seed}, step {step}, seat {seat}, after {text!r}: {why}"
                    compared = True
                    steps += 1
        state = after
        step += 1
    return views, steps


# --------------------------------------------------------------------------------------
# No hidden card in views, events and action texts


def check_initial_disclosure(game: Game, state: State) -> None:
    """Before any action, a view shows only cards the deal's events showed its viewer,
    and a private event of the deal only cards the view shows (a seat that may not see
    its hand yet is not sent it)."""
    for v in viewers(game):
        seen = events_for(state.log, v)
        told = shown_mask(seen)
        shown = shown_mask(view_of(state, v))
        assert not shown & ~told, f"viewer {v} sees {mask_cards(shown & ~told)} no event showed it"
        for i, e in enumerate(seen):
            if e.visible_to is not None and not _superseded(seen, i, v):
                extra = shown_mask(e) & ~shown
                assert not extra, f"viewer {v} is shown {mask_cards(extra)} by {e.text!r} in the deal"


def _shown_per_viewer(game: Game, state: State) -> dict[int | None, int]:
    """The cards each viewer's view shows (``shown_mask``)."""
    return {v: shown_mask(view_of(state, v)) for v in viewers(game)}


def check_step_disclosure(
    game: Game,
    before: State,
    action: Action,
    after: State,
    events: list[Event],
    shown_before: dict[int | None, int] | None = None,
) -> dict[int | None, int]:
    """What one step shows each viewer V (every seat and the spectator). With B the cards
    V's view showed before, A the cards it shows after and D the cards of the events V
    sees from the step:

    * ``action_text(action, actor, V)`` names only cards of B or D: V reads no card the
      engine's events do not show it (the public text of a face-down give names none);
    * the view gains only cards of D (unless the game is over: the end-of-game reveal);
    * a private event V sees (one with an audience) shows only cards of B or A (but
      one about V itself followed by another private event about V, ``_superseded``).

    The actor reads the full notation. Public events are left to the re-deal test: one
    may show cards that are hidden again at once (pay-off tops turned up to pick the
    first player, then reshuffled), and what tells them from a leak is that they are the
    same in every world consistent with what the viewer knows.

    ``shown_before``: B per viewer if already known; returns A per viewer (sets of cards
    as masks, ``shown_mask``).
    """
    actor = before.current_seat
    assert game.action_text(action, actor, actor) == str(action), "the actor reads the notation"
    if shown_before is None:
        shown_before = _shown_per_viewer(game, before)
    shown_after = _shown_per_viewer(game, after)
    for v in viewers(game):
        b, a = shown_before[v], shown_after[v]
        seen = events_for(events, v)
        d = shown_mask(seen)
        text = game.action_text(action, actor, v)
        assert isinstance(text, str) and text
        hidden = shown_mask(text) & ~(b | d)
        assert not hidden, (
            f"viewer {v} reads {text!r} for {action} by seat {actor}: {mask_cards(hidden)} hidden from it")
        if not after.is_terminal:
            gained = a & ~b & ~d
            assert not gained, f"viewer {v}'s view gains {mask_cards(gained)} after {action}, no event showed them"
        for i, e in enumerate(seen):
            if e.visible_to is not None and not _superseded(seen, i, v):
                extra = shown_mask(e) & ~(b | a)
                assert not extra, f"viewer {v} is shown {mask_cards(extra)} by {e.text!r} after {action}"
    return shown_after


def _superseded(seen: list[Event], i: int, viewer: int | None) -> bool:
    """Whether event ``i`` is about ``viewer`` itself and a later private event of the step
    tells it about itself again (a new deal, say): what event ``i`` showed it may be gone
    from its view by then (cards it drew just before its game ended and a series dealt the
    next one). An event about another seat is never excused: a series' new deal that showed
    seat 0's hand to seat 1 was, while any later private event excused it (seventh session)."""
    return seen[i].seat == viewer and any(e.visible_to is not None and e.seat == viewer for e in seen[i + 1:])


def check_no_hidden_cards(game: Game, seed: int, fanout: int = 4, fanout_steps: int = 300) -> int:
    """Along a seeded random game, ``check_step_disclosure`` for the action taken and,
    in the first ``fanout_steps`` steps, for up to ``fanout`` other legal actions (each
    tried on a clone). Returns the number of steps checked."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    check_initial_disclosure(game, state)
    checked = step = 0
    shown = _shown_per_viewer(game, state)
    while not state.is_terminal:
        legal = state.legal_actions()
        chosen = rng.choice(legal)
        width = fanout if step < fanout_steps else 0
        tried = [chosen] + [a for a in rng.sample(legal, min(width, len(legal))) if a != chosen]
        step += 1
        nxt = None
        for action in tried:
            after = state.clone()
            events = after.apply(action)
            shown_after = check_step_disclosure(game, state, action, after, events, shown)
            checked += 1
            if nxt is None:
                nxt, nxt_shown = after, shown_after
        state, shown = nxt, nxt_shown
    return checked


def seeds(n: int, base: int = 0) -> Iterable[int]:
    return range(base, base + n)
