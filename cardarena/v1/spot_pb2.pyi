from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SpotPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPOT_PHASE_UNSPECIFIED: _ClassVar[SpotPhase]
    SPOT_PHASE_DRAW: _ClassVar[SpotPhase]
    SPOT_PHASE_DROP: _ClassVar[SpotPhase]
    SPOT_PHASE_GAME_OVER: _ClassVar[SpotPhase]

class SpotMeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPOT_MELD_KIND_UNSPECIFIED: _ClassVar[SpotMeldKind]
    SPOT_MELD_KIND_GROUP: _ClassVar[SpotMeldKind]
    SPOT_MELD_KIND_SEQUENCE: _ClassVar[SpotMeldKind]

class SpotHandEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPOT_HAND_END_UNSPECIFIED: _ClassVar[SpotHandEnd]
    SPOT_HAND_END_WENT_OUT: _ClassVar[SpotHandEnd]
    SPOT_HAND_END_STOCK_EXHAUSTED: _ClassVar[SpotHandEnd]
    SPOT_HAND_END_TURN_LIMIT: _ClassVar[SpotHandEnd]

class SpotDrawSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPOT_DRAW_SOURCE_UNSPECIFIED: _ClassVar[SpotDrawSource]
    SPOT_DRAW_SOURCE_STOCK: _ClassVar[SpotDrawSource]
    SPOT_DRAW_SOURCE_DISCARD: _ClassVar[SpotDrawSource]
SPOT_PHASE_UNSPECIFIED: SpotPhase
SPOT_PHASE_DRAW: SpotPhase
SPOT_PHASE_DROP: SpotPhase
SPOT_PHASE_GAME_OVER: SpotPhase
SPOT_MELD_KIND_UNSPECIFIED: SpotMeldKind
SPOT_MELD_KIND_GROUP: SpotMeldKind
SPOT_MELD_KIND_SEQUENCE: SpotMeldKind
SPOT_HAND_END_UNSPECIFIED: SpotHandEnd
SPOT_HAND_END_WENT_OUT: SpotHandEnd
SPOT_HAND_END_STOCK_EXHAUSTED: SpotHandEnd
SPOT_HAND_END_TURN_LIMIT: SpotHandEnd
SPOT_DRAW_SOURCE_UNSPECIFIED: SpotDrawSource
SPOT_DRAW_SOURCE_STOCK: SpotDrawSource
SPOT_DRAW_SOURCE_DISCARD: SpotDrawSource

class SpotTableMeld(_message.Message):
    __slots__ = ("id", "owner", "kind", "cards")
    ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    id: int
    owner: int
    kind: SpotMeldKind
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., owner: _Optional[int] = ..., kind: _Optional[_Union[SpotMeldKind, str]] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpotPickup(_message.Message):
    __slots__ = ("seat", "card", "turn")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    turn: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., turn: _Optional[int] = ...) -> None: ...

class SpotLayoff(_message.Message):
    __slots__ = ("seat", "card", "meld", "turn")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    meld: int
    turn: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., meld: _Optional[int] = ..., turn: _Optional[int] = ...) -> None: ...

class SpotRevealedHand(_message.Message):
    __slots__ = ("seat", "cards", "spots")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SPOTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    spots: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., spots: _Optional[int] = ...) -> None: ...

class SpotHandSummary(_message.Message):
    __slots__ = ("hand_number", "end", "went_out", "hands", "winners", "net", "pot_after")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    POT_AFTER_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    end: SpotHandEnd
    went_out: int
    hands: _containers.RepeatedCompositeFieldContainer[SpotRevealedHand]
    winners: _containers.RepeatedScalarFieldContainer[int]
    net: _containers.RepeatedScalarFieldContainer[float]
    pot_after: float
    def __init__(self, hand_number: _Optional[int] = ..., end: _Optional[_Union[SpotHandEnd, str]] = ..., went_out: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[SpotRevealedHand, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ..., net: _Optional[_Iterable[float]] = ..., pot_after: _Optional[float] = ...) -> None: ...

class SpotView(_message.Message):
    __slots__ = ("seat", "num_players", "phase", "current_seat", "hand_number", "hands_in_match", "dealer", "first_player", "hand", "hand_counts", "stock_count", "discard_pile", "melds", "pickups", "pot", "balances", "turn_number", "first_turn", "dropped", "new_meld_made", "taken_discard", "last_hand", "game_over", "unused_stock", "layoffs")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HANDS_IN_MATCH_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNTS_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    PICKUPS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_TURN_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    NEW_MELD_MADE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    UNUSED_STOCK_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    phase: SpotPhase
    current_seat: int
    hand_number: int
    hands_in_match: int
    dealer: int
    first_player: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_counts: _containers.RepeatedScalarFieldContainer[int]
    stock_count: int
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    melds: _containers.RepeatedCompositeFieldContainer[SpotTableMeld]
    pickups: _containers.RepeatedCompositeFieldContainer[SpotPickup]
    pot: float
    balances: _containers.RepeatedScalarFieldContainer[float]
    turn_number: int
    first_turn: bool
    dropped: int
    new_meld_made: bool
    taken_discard: str
    last_hand: SpotHandSummary
    game_over: bool
    unused_stock: _containers.RepeatedScalarFieldContainer[str]
    layoffs: _containers.RepeatedCompositeFieldContainer[SpotLayoff]
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., phase: _Optional[_Union[SpotPhase, str]] = ..., current_seat: _Optional[int] = ..., hand_number: _Optional[int] = ..., hands_in_match: _Optional[int] = ..., dealer: _Optional[int] = ..., first_player: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_counts: _Optional[_Iterable[int]] = ..., stock_count: _Optional[int] = ..., discard_pile: _Optional[_Iterable[str]] = ..., melds: _Optional[_Iterable[_Union[SpotTableMeld, _Mapping]]] = ..., pickups: _Optional[_Iterable[_Union[SpotPickup, _Mapping]]] = ..., pot: _Optional[float] = ..., balances: _Optional[_Iterable[float]] = ..., turn_number: _Optional[int] = ..., first_turn: _Optional[bool] = ..., dropped: _Optional[int] = ..., new_meld_made: _Optional[bool] = ..., taken_discard: _Optional[str] = ..., last_hand: _Optional[_Union[SpotHandSummary, _Mapping]] = ..., game_over: _Optional[bool] = ..., unused_stock: _Optional[_Iterable[str]] = ..., layoffs: _Optional[_Iterable[_Union[SpotLayoff, _Mapping]]] = ...) -> None: ...

class SpotDraw(_message.Message):
    __slots__ = ("source",)
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    source: SpotDrawSource
    def __init__(self, source: _Optional[_Union[SpotDrawSource, str]] = ...) -> None: ...

class SpotMeld(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpotLayOff(_message.Message):
    __slots__ = ("card", "meld")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    card: str
    meld: int
    def __init__(self, card: _Optional[str] = ..., meld: _Optional[int] = ...) -> None: ...

class SpotDiscard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class SpotAction(_message.Message):
    __slots__ = ("draw", "meld", "lay_off", "discard")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    LAY_OFF_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    draw: SpotDraw
    meld: SpotMeld
    lay_off: SpotLayOff
    discard: SpotDiscard
    def __init__(self, draw: _Optional[_Union[SpotDraw, _Mapping]] = ..., meld: _Optional[_Union[SpotMeld, _Mapping]] = ..., lay_off: _Optional[_Union[SpotLayOff, _Mapping]] = ..., discard: _Optional[_Union[SpotDiscard, _Mapping]] = ...) -> None: ...
