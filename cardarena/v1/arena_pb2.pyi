from cardarena.v1 import spades_pb2 as _spades_pb2
from cardarena.v1 import spite_and_malice_pb2 as _spite_and_malice_pb2
from cardarena.v1 import spot_pb2 as _spot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_COMPLETED: _ClassVar[EndReason]
    END_REASON_STALEMATE: _ClassVar[EndReason]
    END_REASON_TURN_LIMIT: _ClassVar[EndReason]
    END_REASON_FORFEIT_TIMEOUT: _ClassVar[EndReason]
    END_REASON_FORFEIT_ILLEGAL: _ClassVar[EndReason]
    END_REASON_FORFEIT_DISCONNECT: _ClassVar[EndReason]
    END_REASON_FORFEIT_CRASH: _ClassVar[EndReason]
    END_REASON_ABORTED: _ClassVar[EndReason]
END_REASON_UNSPECIFIED: EndReason
END_REASON_COMPLETED: EndReason
END_REASON_STALEMATE: EndReason
END_REASON_TURN_LIMIT: EndReason
END_REASON_FORFEIT_TIMEOUT: EndReason
END_REASON_FORFEIT_ILLEGAL: EndReason
END_REASON_FORFEIT_DISCONNECT: EndReason
END_REASON_FORFEIT_CRASH: EndReason
END_REASON_ABORTED: EndReason

class BotMessage(_message.Message):
    __slots__ = ("hello", "act")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    act: Act
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., act: _Optional[_Union[Act, _Mapping]] = ...) -> None: ...

class ArbiterMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "turn", "update", "match_end", "error")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    turn: Turn
    update: Update
    match_end: MatchEnd
    error: Error
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., update: _Optional[_Union[Update, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot_name", "bot_version", "token", "games", "protocol_version", "view_deltas")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_DELTAS_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    bot_version: str
    token: str
    games: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: int
    view_deltas: int
    def __init__(self, bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., token: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., protocol_version: _Optional[int] = ..., view_deltas: _Optional[int] = ...) -> None: ...

class Act(_message.Message):
    __slots__ = ("match_id", "request_id", "action", "seat_token", "failure", "think_us", "note", "resync")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    THINK_US_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    RESYNC_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    action: Action
    seat_token: str
    failure: str
    think_us: int
    note: str
    resync: bool
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., seat_token: _Optional[str] = ..., failure: _Optional[str] = ..., think_us: _Optional[int] = ..., note: _Optional[str] = ..., resync: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "protocol_version", "view_deltas")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_DELTAS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    protocol_version: int
    view_deltas: int
    def __init__(self, session_id: _Optional[str] = ..., protocol_version: _Optional[int] = ..., view_deltas: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "options", "seat", "num_seats", "teams", "seat_names", "clock", "bot_seed", "seat_token")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    BOT_SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    options: _containers.ScalarMap[str, str]
    seat: int
    num_seats: int
    teams: _containers.RepeatedCompositeFieldContainer[Team]
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    clock: Clock
    bot_seed: int
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seat: _Optional[int] = ..., num_seats: _Optional[int] = ..., teams: _Optional[_Iterable[_Union[Team, _Mapping]]] = ..., seat_names: _Optional[_Iterable[str]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., bot_seed: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class Team(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("match_id", "request_id", "seat", "view", "legal_actions", "clock", "events", "view_delta")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_DELTA_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    seat: int
    view: View
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    clock: Clock
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view_delta: ViewDelta
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., seat: _Optional[int] = ..., view: _Optional[_Union[View, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view_delta: _Optional[_Union[ViewDelta, _Mapping]] = ...) -> None: ...

class ViewDelta(_message.Message):
    __slots__ = ("seq", "base", "numbers", "data", "appended", "digest")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    BASE_FIELD_NUMBER: _ClassVar[int]
    NUMBERS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    APPENDED_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    seq: int
    base: int
    numbers: _containers.RepeatedScalarFieldContainer[int]
    data: _containers.RepeatedScalarFieldContainer[bytes]
    appended: _containers.RepeatedScalarFieldContainer[int]
    digest: int
    def __init__(self, seq: _Optional[int] = ..., base: _Optional[int] = ..., numbers: _Optional[_Iterable[int]] = ..., data: _Optional[_Iterable[bytes]] = ..., appended: _Optional[_Iterable[int]] = ..., digest: _Optional[int] = ...) -> None: ...

class Update(_message.Message):
    __slots__ = ("match_id", "seat", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "seat", "text", "cards")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    text: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., text: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "seat", "outcome", "final_view", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    FINAL_VIEW_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    outcome: Outcome
    final_view: View
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., final_view: _Optional[_Union[View, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("scores", "ranks", "reason", "detail")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    reason: EndReason
    detail: str
    def __init__(self, scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., reason: _Optional[_Union[EndReason, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "match_id", "request_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    match_id: str
    request_id: int
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., match_id: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("spades", "spite_and_malice", "spot")
    SPADES_FIELD_NUMBER: _ClassVar[int]
    SPITE_AND_MALICE_FIELD_NUMBER: _ClassVar[int]
    SPOT_FIELD_NUMBER: _ClassVar[int]
    spades: _spades_pb2.SpadesView
    spite_and_malice: _spite_and_malice_pb2.SpiteAndMaliceView
    spot: _spot_pb2.SpotView
    def __init__(self, spades: _Optional[_Union[_spades_pb2.SpadesView, _Mapping]] = ..., spite_and_malice: _Optional[_Union[_spite_and_malice_pb2.SpiteAndMaliceView, _Mapping]] = ..., spot: _Optional[_Union[_spot_pb2.SpotView, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("spades", "spite_and_malice", "spot", "notation")
    SPADES_FIELD_NUMBER: _ClassVar[int]
    SPITE_AND_MALICE_FIELD_NUMBER: _ClassVar[int]
    SPOT_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    spades: _spades_pb2.SpadesAction
    spite_and_malice: _spite_and_malice_pb2.SpiteAndMaliceAction
    spot: _spot_pb2.SpotAction
    notation: str
    def __init__(self, spades: _Optional[_Union[_spades_pb2.SpadesAction, _Mapping]] = ..., spite_and_malice: _Optional[_Union[_spite_and_malice_pb2.SpiteAndMaliceAction, _Mapping]] = ..., spot: _Optional[_Union[_spot_pb2.SpotAction, _Mapping]] = ..., notation: _Optional[str] = ...) -> None: ...

class RunMatchRequest(_message.Message):
    __slots__ = ("game", "options", "preset", "seed", "seats", "clock", "policy", "max_strikes", "admin_token", "seat_sessions")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    game: str
    options: _containers.ScalarMap[str, str]
    preset: str
    seed: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    clock: Clock
    policy: str
    max_strikes: int
    admin_token: str
    seat_sessions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., preset: _Optional[str] = ..., seed: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., policy: _Optional[str] = ..., max_strikes: _Optional[int] = ..., admin_token: _Optional[str] = ..., seat_sessions: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "outcome", "decisions", "actions", "incidents", "seed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    INCIDENTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    outcome: Outcome
    decisions: int
    actions: _containers.RepeatedScalarFieldContainer[str]
    incidents: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    def __init__(self, match_id: _Optional[str] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., decisions: _Optional[int] = ..., actions: _Optional[_Iterable[str]] = ..., incidents: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("admin_token",)
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    def __init__(self, admin_token: _Optional[str] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions",)
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[SessionInfo]
    def __init__(self, sessions: _Optional[_Iterable[_Union[SessionInfo, _Mapping]]] = ...) -> None: ...

class SessionInfo(_message.Message):
    __slots__ = ("session_id", "bot_name", "bot_version", "games")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    bot_name: str
    bot_version: str
    games: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, session_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ...) -> None: ...
