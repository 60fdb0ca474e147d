from cardarena.v1 import arena_pb2 as _arena_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListMatchesRequest(_message.Message):
    __slots__ = ("include_finished", "token")
    INCLUDE_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    include_finished: bool
    token: str
    def __init__(self, include_finished: _Optional[bool] = ..., token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchListing]
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchListing, _Mapping]]] = ...) -> None: ...

class MatchListing(_message.Message):
    __slots__ = ("match_id", "game", "seat_names", "steps", "running", "started")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    steps: int
    running: bool
    started: float
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ..., steps: _Optional[int] = ..., running: _Optional[bool] = ..., started: _Optional[float] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("match_id", "hidden_cards", "token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_CARDS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hidden_cards: bool
    token: str
    def __init__(self, match_id: _Optional[str] = ..., hidden_cards: _Optional[bool] = ..., token: _Optional[str] = ...) -> None: ...

class WatchFrame(_message.Message):
    __slots__ = ("header", "step", "over")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    header: MatchHeader
    step: Step
    over: MatchOver
    def __init__(self, header: _Optional[_Union[MatchHeader, _Mapping]] = ..., step: _Optional[_Union[Step, _Mapping]] = ..., over: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...

class MatchHeader(_message.Message):
    __slots__ = ("match_id", "game", "seat_names", "started", "view", "hands", "delay_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    started: float
    view: _arena_pb2.View
    hands: _containers.RepeatedCompositeFieldContainer[SeatHand]
    delay_ms: int
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ..., started: _Optional[float] = ..., view: _Optional[_Union[_arena_pb2.View, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[SeatHand, _Mapping]]] = ..., delay_ms: _Optional[int] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("index", "seat", "action", "events", "view", "hands", "at")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    index: int
    seat: int
    action: str
    events: _containers.RepeatedCompositeFieldContainer[_arena_pb2.Event]
    view: _arena_pb2.View
    hands: _containers.RepeatedCompositeFieldContainer[SeatHand]
    at: float
    def __init__(self, index: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_arena_pb2.Event, _Mapping]]] = ..., view: _Optional[_Union[_arena_pb2.View, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[SeatHand, _Mapping]]] = ..., at: _Optional[float] = ...) -> None: ...

class SeatHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("outcome", "final_view", "seed", "actions", "action_seats", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    FINAL_VIEW_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    outcome: _arena_pb2.Outcome
    final_view: _arena_pb2.View
    seed: int
    actions: _containers.RepeatedScalarFieldContainer[str]
    action_seats: _containers.RepeatedScalarFieldContainer[int]
    options: _containers.ScalarMap[str, str]
    def __init__(self, outcome: _Optional[_Union[_arena_pb2.Outcome, _Mapping]] = ..., final_view: _Optional[_Union[_arena_pb2.View, _Mapping]] = ..., seed: _Optional[int] = ..., actions: _Optional[_Iterable[str]] = ..., action_seats: _Optional[_Iterable[int]] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...
