from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SpadesPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPADES_PHASE_UNSPECIFIED: _ClassVar[SpadesPhase]
    SPADES_PHASE_BIDDING: _ClassVar[SpadesPhase]
    SPADES_PHASE_EXCHANGE: _ClassVar[SpadesPhase]
    SPADES_PHASE_PLAY: _ClassVar[SpadesPhase]
    SPADES_PHASE_GAME_OVER: _ClassVar[SpadesPhase]
SPADES_PHASE_UNSPECIFIED: SpadesPhase
SPADES_PHASE_BIDDING: SpadesPhase
SPADES_PHASE_EXCHANGE: SpadesPhase
SPADES_PHASE_PLAY: SpadesPhase
SPADES_PHASE_GAME_OVER: SpadesPhase

class SpadesView(_message.Message):
    __slots__ = ("seat", "phase", "deal", "dealer", "to_act", "target", "hand", "hand_visible", "seats", "exchanges", "leader", "trick", "tricks", "spades_broken", "sides", "history", "winner", "record")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    SPADES_BROKEN_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: SpadesPhase
    deal: int
    dealer: int
    to_act: int
    target: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_visible: bool
    seats: _containers.RepeatedCompositeFieldContainer[SpadesSeat]
    exchanges: _containers.RepeatedCompositeFieldContainer[SpadesExchange]
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[SpadesPlayedCard]
    tricks: _containers.RepeatedCompositeFieldContainer[SpadesTrick]
    spades_broken: bool
    sides: _containers.RepeatedCompositeFieldContainer[SpadesSide]
    history: _containers.RepeatedCompositeFieldContainer[SpadesDealResult]
    winner: int
    record: _containers.RepeatedCompositeFieldContainer[SpadesDealRecord]
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[_Union[SpadesPhase, str]] = ..., deal: _Optional[int] = ..., dealer: _Optional[int] = ..., to_act: _Optional[int] = ..., target: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_visible: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[SpadesSeat, _Mapping]]] = ..., exchanges: _Optional[_Iterable[_Union[SpadesExchange, _Mapping]]] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[SpadesPlayedCard, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[SpadesTrick, _Mapping]]] = ..., spades_broken: _Optional[bool] = ..., sides: _Optional[_Iterable[_Union[SpadesSide, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[SpadesDealResult, _Mapping]]] = ..., winner: _Optional[int] = ..., record: _Optional[_Iterable[_Union[SpadesDealRecord, _Mapping]]] = ...) -> None: ...

class SpadesSeat(_message.Message):
    __slots__ = ("seat", "hand_count", "looked", "bid", "blind_nil", "tricks_won")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    LOOKED_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    BLIND_NIL_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_count: int
    looked: bool
    bid: int
    blind_nil: bool
    tricks_won: int
    def __init__(self, seat: _Optional[int] = ..., hand_count: _Optional[int] = ..., looked: _Optional[bool] = ..., bid: _Optional[int] = ..., blind_nil: _Optional[bool] = ..., tricks_won: _Optional[int] = ...) -> None: ...

class SpadesExchange(_message.Message):
    __slots__ = ("giver", "receiver", "done", "cards")
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    giver: int
    receiver: int
    done: bool
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, giver: _Optional[int] = ..., receiver: _Optional[int] = ..., done: _Optional[bool] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpadesPlayedCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class SpadesTrick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[SpadesPlayedCard]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[SpadesPlayedCard, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class SpadesSide(_message.Message):
    __slots__ = ("side", "seats", "score", "bags")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BAGS_FIELD_NUMBER: _ClassVar[int]
    side: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    score: int
    bags: int
    def __init__(self, side: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., score: _Optional[int] = ..., bags: _Optional[int] = ...) -> None: ...

class SpadesSideResult(_message.Message):
    __slots__ = ("side", "contract", "contract_tricks", "nil_tricks", "points", "bags_added", "penalties", "score", "bags")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_TRICKS_FIELD_NUMBER: _ClassVar[int]
    NIL_TRICKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    BAGS_ADDED_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BAGS_FIELD_NUMBER: _ClassVar[int]
    side: int
    contract: int
    contract_tricks: int
    nil_tricks: int
    points: int
    bags_added: int
    penalties: int
    score: int
    bags: int
    def __init__(self, side: _Optional[int] = ..., contract: _Optional[int] = ..., contract_tricks: _Optional[int] = ..., nil_tricks: _Optional[int] = ..., points: _Optional[int] = ..., bags_added: _Optional[int] = ..., penalties: _Optional[int] = ..., score: _Optional[int] = ..., bags: _Optional[int] = ...) -> None: ...

class SpadesDealResult(_message.Message):
    __slots__ = ("deal", "dealer", "bids", "blind_nil", "tricks_won", "sides")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    BLIND_NIL_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    deal: int
    dealer: int
    bids: _containers.RepeatedScalarFieldContainer[int]
    blind_nil: _containers.RepeatedScalarFieldContainer[bool]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    sides: _containers.RepeatedCompositeFieldContainer[SpadesSideResult]
    def __init__(self, deal: _Optional[int] = ..., dealer: _Optional[int] = ..., bids: _Optional[_Iterable[int]] = ..., blind_nil: _Optional[_Iterable[bool]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., sides: _Optional[_Iterable[_Union[SpadesSideResult, _Mapping]]] = ...) -> None: ...

class SpadesHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpadesDealRecord(_message.Message):
    __slots__ = ("deal", "hands", "exchanges")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    deal: int
    hands: _containers.RepeatedCompositeFieldContainer[SpadesHand]
    exchanges: _containers.RepeatedCompositeFieldContainer[SpadesExchange]
    def __init__(self, deal: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[SpadesHand, _Mapping]]] = ..., exchanges: _Optional[_Iterable[_Union[SpadesExchange, _Mapping]]] = ...) -> None: ...

class SpadesAction(_message.Message):
    __slots__ = ("look", "bid", "give", "play")
    LOOK_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    GIVE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    look: SpadesLook
    bid: SpadesBid
    give: SpadesGive
    play: SpadesPlay
    def __init__(self, look: _Optional[_Union[SpadesLook, _Mapping]] = ..., bid: _Optional[_Union[SpadesBid, _Mapping]] = ..., give: _Optional[_Union[SpadesGive, _Mapping]] = ..., play: _Optional[_Union[SpadesPlay, _Mapping]] = ...) -> None: ...

class SpadesLook(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpadesBid(_message.Message):
    __slots__ = ("tricks", "blind")
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    BLIND_FIELD_NUMBER: _ClassVar[int]
    tricks: int
    blind: bool
    def __init__(self, tricks: _Optional[int] = ..., blind: _Optional[bool] = ...) -> None: ...

class SpadesGive(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpadesPlay(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...
