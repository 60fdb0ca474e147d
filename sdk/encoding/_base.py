"""The shared machinery of the encodings: a layout of named slices, a tensor builder, an
action table (index <-> action) and the mask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from cardarena.games import Action


@dataclass(frozen=True)
class Segment:
    """One slice of the observation tensor: ``tensor[start:stop]`` means ``meaning``."""

    name: str
    start: int
    stop: int
    meaning: str

    @property
    def size(self) -> int:
        return self.stop - self.start


class Layout:
    """The observation's slices, in order; built once per option set."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.size = 0
        self._by_name: dict[str, Segment] = {}
        #: name -> the slice's start, as a plain dict (what the games' fills index: fast)
        self.starts: dict[str, int] = {}

    def add(self, name: str, size: int, meaning: str) -> int:
        """Append a slice of ``size`` values; returns its start."""
        if name in self._by_name:
            raise ValueError(f"duplicate segment {name!r}")
        seg = Segment(name, self.size, self.size + size, meaning)
        self.segments.append(seg)
        self._by_name[name] = seg
        self.starts[name] = seg.start
        self.size += size
        return seg.start

    def __getitem__(self, name: str) -> Segment:
        return self._by_name[name]

    def table(self) -> str:
        """The layout as a text table, slice -> meaning (what the docstrings show)."""
        rows = [f"{'slice':>13}  {'name':<22} meaning"]
        for s in self.segments:
            rows.append(f"{f'[{s.start}:{s.stop}]':>13}  {s.name:<22} {s.meaning}")
        return "\n".join(rows)


class Encoder:
    """One game's observation encoding and action index space, for one option set.

    ``encode(view)`` is a list of ``size`` floats, laid out as ``layout`` says; seats are
    relative to the view's own seat (offset 0 is the seat itself, 1 the next seat to its
    left, ...), so one policy serves every seat. ``num_actions`` indices number every
    action the game can offer under these options; ``action_index(a)`` and
    ``action_of(i)`` map between them and ``mask(legal_actions)`` marks the legal ones.
    Everything is computed from the view and the options alone: nothing a seat may not
    see can move a value.
    """

    game_name: str = ""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.options = game.options
        self.layout = Layout()
        self._actions: list[Action] = []
        self._index: dict[Action, int] = {}
        self._build()
        self._build_actions()

    def __deepcopy__(self, memo: dict) -> "Encoder":
        # Immutable once built: the copies the harness and the arbiter make of a bot per
        # match (sdk.bot.fresh_copy) share it instead of copying its action tables.
        return self

    # -- to implement per game --
    def _build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _build_actions(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fill(self, view: Any, out: Any) -> None:  # pragma: no cover - abstract
        """Set (or add to, ``+=``) the tensor's entries of ``out``, zeros on entry: item
        assignment, so a list and a memoryview of any float format both take it (a slice
        assignment only with a fallback to items: Spades writes a cached float32 block)."""
        raise NotImplementedError

    # -- the public API --
    @property
    def size(self) -> int:
        """The length of every observation tensor."""
        return self.layout.size

    @property
    def shape(self) -> tuple[int]:
        return (self.layout.size,)

    @property
    def num_actions(self) -> int:
        return len(self._actions)

    def encode(self, view: Any) -> list[float]:
        """The observation tensor of a seat's view (a list of ``size`` floats)."""
        out = [0.0] * self.layout.size
        self.encode_into(view, out)
        return out

    def encode_into(self, view: Any, out: Any) -> None:
        """The same tensor written into ``out``: ``size`` zeros that take item assignment
        (a list, or ``memoryview(numpy.zeros(size, numpy.float32))``: how a numpy caller
        skips converting a list of ``size`` Python floats; cardarena_envs does)."""
        if not isinstance(view, self.game.view_type):
            raise TypeError(f"{self.game_name} encodes a {self.game.view_type.__name__}, got {type(view).__name__}")
        if view.seat is None:
            raise ValueError("encode needs a seat's view, not the spectator view")
        if len(out) != self.layout.size:
            raise ValueError(f"encode_into: out holds {len(out)} values, the encoding {self.layout.size}")
        self._fill(view, out)

    def action_index(self, action: Action) -> int:
        """The index of ``action``; ValueError for an action outside this option set's space."""
        try:
            return self._index[action]
        except (KeyError, TypeError):
            raise ValueError(f"{action} is not an action of {self.game_name} with these options") from None

    def action_of(self, index: int) -> Action:
        """The action at ``index`` (0 <= index < num_actions)."""
        if not 0 <= index < len(self._actions):
            raise ValueError(f"action index {index} out of range 0..{len(self._actions) - 1}")
        return self._actions[index]

    def mask(self, legal_actions: Iterable[Action]) -> list[int]:
        """1 at the index of every legal action, 0 elsewhere (a list of ``num_actions`` ints)."""
        out = [0] * len(self._actions)
        for a in legal_actions:
            out[self.action_index(a)] = 1
        return out

    def legal_indices(self, legal_actions: Iterable[Action]) -> list[int]:
        """The indices of ``legal_actions``, in their order."""
        return [self.action_index(a) for a in legal_actions]

    # -- helpers for the games --
    def _add_actions(self, actions: Iterable[Action]) -> None:
        for a in actions:
            if a in self._index:
                raise AssertionError(f"action {a} numbered twice")
            self._index[a] = len(self._actions)
            self._actions.append(a)


def one_hot(out: Any, start: int, index: int | None, size: int) -> None:
    """Set ``out[start + index]`` (nothing for None; index must be below ``size``)."""
    if index is not None:
        if not 0 <= index < size:
            raise ValueError(f"value {index} outside a one-hot of {size}")
        out[start + index] = 1.0


def cards_hot(out: Any, start: int, cards: Sequence[int], weight: float = 1.0) -> None:
    """Add ``weight`` at ``start + card`` for each card (multi-deck piles count copies)."""
    for c in cards:
        out[start + c] += weight
