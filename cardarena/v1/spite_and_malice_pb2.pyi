from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SpiteAndMalicePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPITE_AND_MALICE_PHASE_UNSPECIFIED: _ClassVar[SpiteAndMalicePhase]
    SPITE_AND_MALICE_PHASE_MAIN: _ClassVar[SpiteAndMalicePhase]
    SPITE_AND_MALICE_PHASE_FILLING: _ClassVar[SpiteAndMalicePhase]
    SPITE_AND_MALICE_PHASE_GAME_OVER: _ClassVar[SpiteAndMalicePhase]

class SpiteAndMaliceSourceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPITE_AND_MALICE_SOURCE_KIND_UNSPECIFIED: _ClassVar[SpiteAndMaliceSourceKind]
    SPITE_AND_MALICE_SOURCE_KIND_HAND: _ClassVar[SpiteAndMaliceSourceKind]
    SPITE_AND_MALICE_SOURCE_KIND_PAYOFF: _ClassVar[SpiteAndMaliceSourceKind]
    SPITE_AND_MALICE_SOURCE_KIND_SIDE: _ClassVar[SpiteAndMaliceSourceKind]
    SPITE_AND_MALICE_SOURCE_KIND_PARTNER_PAYOFF: _ClassVar[SpiteAndMaliceSourceKind]
    SPITE_AND_MALICE_SOURCE_KIND_PARTNER_SIDE: _ClassVar[SpiteAndMaliceSourceKind]

class SpiteAndMaliceTargetKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPITE_AND_MALICE_TARGET_KIND_UNSPECIFIED: _ClassVar[SpiteAndMaliceTargetKind]
    SPITE_AND_MALICE_TARGET_KIND_CENTER: _ClassVar[SpiteAndMaliceTargetKind]
    SPITE_AND_MALICE_TARGET_KIND_SIDE: _ClassVar[SpiteAndMaliceTargetKind]
SPITE_AND_MALICE_PHASE_UNSPECIFIED: SpiteAndMalicePhase
SPITE_AND_MALICE_PHASE_MAIN: SpiteAndMalicePhase
SPITE_AND_MALICE_PHASE_FILLING: SpiteAndMalicePhase
SPITE_AND_MALICE_PHASE_GAME_OVER: SpiteAndMalicePhase
SPITE_AND_MALICE_SOURCE_KIND_UNSPECIFIED: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_SOURCE_KIND_HAND: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_SOURCE_KIND_PAYOFF: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_SOURCE_KIND_SIDE: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_SOURCE_KIND_PARTNER_PAYOFF: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_SOURCE_KIND_PARTNER_SIDE: SpiteAndMaliceSourceKind
SPITE_AND_MALICE_TARGET_KIND_UNSPECIFIED: SpiteAndMaliceTargetKind
SPITE_AND_MALICE_TARGET_KIND_CENTER: SpiteAndMaliceTargetKind
SPITE_AND_MALICE_TARGET_KIND_SIDE: SpiteAndMaliceTargetKind

class SpiteAndMaliceSource(_message.Message):
    __slots__ = ("kind", "index", "card")
    KIND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    kind: SpiteAndMaliceSourceKind
    index: int
    card: str
    def __init__(self, kind: _Optional[_Union[SpiteAndMaliceSourceKind, str]] = ..., index: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class SpiteAndMalicePlay(_message.Message):
    __slots__ = ("source", "target", "index")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    source: SpiteAndMaliceSource
    target: SpiteAndMaliceTargetKind
    index: int
    def __init__(self, source: _Optional[_Union[SpiteAndMaliceSource, _Mapping]] = ..., target: _Optional[_Union[SpiteAndMaliceTargetKind, str]] = ..., index: _Optional[int] = ...) -> None: ...

class SpiteAndMaliceLoad(_message.Message):
    __slots__ = ("source", "seat")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    source: SpiteAndMaliceSource
    seat: int
    def __init__(self, source: _Optional[_Union[SpiteAndMaliceSource, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class SpiteAndMaliceEnd(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpiteAndMaliceAction(_message.Message):
    __slots__ = ("play", "load", "end")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    LOAD_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    play: SpiteAndMalicePlay
    load: SpiteAndMaliceLoad
    end: SpiteAndMaliceEnd
    def __init__(self, play: _Optional[_Union[SpiteAndMalicePlay, _Mapping]] = ..., load: _Optional[_Union[SpiteAndMaliceLoad, _Mapping]] = ..., end: _Optional[_Union[SpiteAndMaliceEnd, _Mapping]] = ...) -> None: ...

class SpiteAndMaliceCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpiteAndMalicePile(_message.Message):
    __slots__ = ("cards", "value")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    value: int
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., value: _Optional[int] = ...) -> None: ...

class SpiteAndMalicePlayer(_message.Message):
    __slots__ = ("seat", "team", "payoff_count", "payoff_top", "payoff_face_up", "hand_count", "side_stacks", "points")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    PAYOFF_COUNT_FIELD_NUMBER: _ClassVar[int]
    PAYOFF_TOP_FIELD_NUMBER: _ClassVar[int]
    PAYOFF_FACE_UP_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    SIDE_STACKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    payoff_count: int
    payoff_top: str
    payoff_face_up: _containers.RepeatedScalarFieldContainer[str]
    hand_count: int
    side_stacks: _containers.RepeatedCompositeFieldContainer[SpiteAndMaliceCards]
    points: int
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., payoff_count: _Optional[int] = ..., payoff_top: _Optional[str] = ..., payoff_face_up: _Optional[_Iterable[str]] = ..., hand_count: _Optional[int] = ..., side_stacks: _Optional[_Iterable[_Union[SpiteAndMaliceCards, _Mapping]]] = ..., points: _Optional[int] = ...) -> None: ...

class SpiteAndMaliceMove(_message.Message):
    __slots__ = ("seat", "action", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: str
    card: str
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[str] = ..., card: _Optional[str] = ...) -> None: ...

class SpiteAndMaliceTurnUp(_message.Message):
    __slots__ = ("round", "seat", "card")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    round: int
    seat: int
    card: str
    def __init__(self, round: _Optional[int] = ..., seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class SpiteAndMaliceReveal(_message.Message):
    __slots__ = ("hands", "payoffs", "stock")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PAYOFFS_FIELD_NUMBER: _ClassVar[int]
    STOCK_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[SpiteAndMaliceCards]
    payoffs: _containers.RepeatedCompositeFieldContainer[SpiteAndMaliceCards]
    stock: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hands: _Optional[_Iterable[_Union[SpiteAndMaliceCards, _Mapping]]] = ..., payoffs: _Optional[_Iterable[_Union[SpiteAndMaliceCards, _Mapping]]] = ..., stock: _Optional[_Iterable[str]] = ...) -> None: ...

class SpiteAndMaliceView(_message.Message):
    __slots__ = ("seat", "phase", "current_seat", "hand", "players", "center", "completed", "center_limit", "top_rank", "kings_wild", "wild_excluded_ranks", "stock_count", "recycled", "game_number", "turn_number", "turn_moves", "consecutive_passes", "reveal", "deadlock_reshuffles", "first_player", "first_player_turn_ups")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CENTER_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    CENTER_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOP_RANK_FIELD_NUMBER: _ClassVar[int]
    KINGS_WILD_FIELD_NUMBER: _ClassVar[int]
    WILD_EXCLUDED_RANKS_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    RECYCLED_FIELD_NUMBER: _ClassVar[int]
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TURN_MOVES_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_PASSES_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    DEADLOCK_RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_TURN_UPS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: SpiteAndMalicePhase
    current_seat: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedCompositeFieldContainer[SpiteAndMalicePlayer]
    center: _containers.RepeatedCompositeFieldContainer[SpiteAndMalicePile]
    completed: _containers.RepeatedCompositeFieldContainer[SpiteAndMalicePile]
    center_limit: int
    top_rank: int
    kings_wild: bool
    wild_excluded_ranks: _containers.RepeatedScalarFieldContainer[int]
    stock_count: int
    recycled: _containers.RepeatedScalarFieldContainer[str]
    game_number: int
    turn_number: int
    turn_moves: _containers.RepeatedCompositeFieldContainer[SpiteAndMaliceMove]
    consecutive_passes: int
    reveal: SpiteAndMaliceReveal
    deadlock_reshuffles: int
    first_player: int
    first_player_turn_ups: _containers.RepeatedCompositeFieldContainer[SpiteAndMaliceTurnUp]
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[_Union[SpiteAndMalicePhase, str]] = ..., current_seat: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[_Union[SpiteAndMalicePlayer, _Mapping]]] = ..., center: _Optional[_Iterable[_Union[SpiteAndMalicePile, _Mapping]]] = ..., completed: _Optional[_Iterable[_Union[SpiteAndMalicePile, _Mapping]]] = ..., center_limit: _Optional[int] = ..., top_rank: _Optional[int] = ..., kings_wild: _Optional[bool] = ..., wild_excluded_ranks: _Optional[_Iterable[int]] = ..., stock_count: _Optional[int] = ..., recycled: _Optional[_Iterable[str]] = ..., game_number: _Optional[int] = ..., turn_number: _Optional[int] = ..., turn_moves: _Optional[_Iterable[_Union[SpiteAndMaliceMove, _Mapping]]] = ..., consecutive_passes: _Optional[int] = ..., reveal: _Optional[_Union[SpiteAndMaliceReveal, _Mapping]] = ..., deadlock_reshuffles: _Optional[int] = ..., first_player: _Optional[int] = ..., first_player_turn_ups: _Optional[_Iterable[_Union[SpiteAndMaliceTurnUp, _Mapping]]] = ...) -> None: ...
