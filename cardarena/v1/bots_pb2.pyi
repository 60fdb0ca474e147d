from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SubmitChunk(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: SubmitHeader
    data: FileChunk
    def __init__(self, header: _Optional[_Union[SubmitHeader, _Mapping]] = ..., data: _Optional[_Union[FileChunk, _Mapping]] = ...) -> None: ...

class SubmitHeader(_message.Message):
    __slots__ = ("token", "name", "version", "entry")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    version: str
    entry: str
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., entry: _Optional[str] = ...) -> None: ...

class FileChunk(_message.Message):
    __slots__ = ("path", "content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    content: bytes
    def __init__(self, path: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class BotVersionInfo(_message.Message):
    __slots__ = ("name", "version", "content_hash", "games", "deterministic", "author", "submitted", "report_json", "entry", "notices")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    DETERMINISTIC_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    content_hash: str
    games: _containers.RepeatedScalarFieldContainer[str]
    deterministic: bool
    author: str
    submitted: float
    report_json: str
    entry: str
    notices: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., content_hash: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., deterministic: _Optional[bool] = ..., author: _Optional[str] = ..., submitted: _Optional[float] = ..., report_json: _Optional[str] = ..., entry: _Optional[str] = ..., notices: _Optional[_Iterable[str]] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[BotVersionInfo]
    def __init__(self, versions: _Optional[_Iterable[_Union[BotVersionInfo, _Mapping]]] = ...) -> None: ...

class ShowBotRequest(_message.Message):
    __slots__ = ("token", "name")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ShowBotResponse(_message.Message):
    __slots__ = ("versions", "ladders")
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    LADDERS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[BotVersionInfo]
    ladders: _containers.RepeatedCompositeFieldContainer[LadderStanding]
    def __init__(self, versions: _Optional[_Iterable[_Union[BotVersionInfo, _Mapping]]] = ..., ladders: _Optional[_Iterable[_Union[LadderStanding, _Mapping]]] = ...) -> None: ...

class LadderStanding(_message.Message):
    __slots__ = ("arena", "player", "status", "reason", "mu", "sigma", "encounters", "matches", "failures")
    ARENA_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ENCOUNTERS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    arena: str
    player: str
    status: str
    reason: str
    mu: float
    sigma: float
    encounters: int
    matches: int
    failures: int
    def __init__(self, arena: _Optional[str] = ..., player: _Optional[str] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., encounters: _Optional[int] = ..., matches: _Optional[int] = ..., failures: _Optional[int] = ...) -> None: ...

class RemoveBotRequest(_message.Message):
    __slots__ = ("token", "name", "version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    version: str
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class RemoveBotResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: int
    def __init__(self, removed: _Optional[int] = ...) -> None: ...
