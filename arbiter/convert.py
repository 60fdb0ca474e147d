"""The one place where domain values meet protobuf (STYLE.md §5).

A generic codec maps the engines' frozen dataclasses (views, actions) to protobuf
messages and back BY FIELD NAME, recursively: Card <-> string notation, tuple <->
repeated, ``X | None`` <-> field presence, Enum <-> proto enum value ``<PREFIX>_<NAME>``
(the prefix is the one of the enum's ``..._UNSPECIFIED`` zero value), nested dataclass
<-> message. Adding a game means writing its proto messages with the same field names;
no per-game conversion code.

The SDK's conversion module builds on these functions; engines never import this.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import types
import typing
from typing import Any, Mapping

from arbiter.games import Card, EndReason, Event, Outcome, game_class
from arbiter.games.cards import InvalidCardError
from cardarena.v1 import arena_pb2 as pb

PROTOCOL_VERSION = 1


class WireError(ValueError):
    """A message that does not decode to a valid domain value; says which field and why."""


def game_field(game: str) -> str:
    """The oneof field of View/Action for a game name ("spite-and-malice" -> "spite_and_malice")."""
    return game.replace("-", "_")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# --------------------------------------------------------------------------------------
# The generic dataclass <-> message codec.

_SCALARS = (int, float, bool, str)


@functools.lru_cache(maxsize=None)
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def _unwrap_optional(tp: Any) -> tuple[Any, bool]:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(args) < len(typing.get_args(tp)):
            return args[0], True
    return tp, False


@functools.lru_cache(maxsize=None)
def _enum_prefix(enum_descriptor: Any) -> str:
    for v in enum_descriptor.values:
        if v.name.endswith("_UNSPECIFIED"):
            return v.name[: -len("UNSPECIFIED")]
    raise TypeError(f"proto enum {enum_descriptor.full_name} has no *_UNSPECIFIED zero value")


def _scalar_to_wire(value: Any, field: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        prefix = _enum_prefix(field.enum_type)
        return field.enum_type.values_by_name[prefix + value.name].number
    return value


def to_message(value: Any, msg: Any) -> Any:
    """Fill ``msg`` from the dataclass ``value`` field by field; returns ``msg``."""
    descriptor = msg.DESCRIPTOR
    for name, tp in _fields(type(value)):
        field = descriptor.fields_by_name.get(name)
        if field is None:
            raise TypeError(f"{descriptor.full_name} has no field {name!r} for {type(value).__name__}")
        v = getattr(value, name)
        if v is None:
            continue
        if field.message_type is not None:
            if field.is_repeated:
                target = getattr(msg, name)
                for item in v:
                    to_message(item, target.add())
            else:
                to_message(v, getattr(msg, name))
                getattr(msg, name).SetInParent()
        elif field.is_repeated:
            getattr(msg, name).extend(_scalar_to_wire(item, field) for item in v)
        else:
            setattr(msg, name, _scalar_to_wire(v, field))
    return msg


def _scalar_from_wire(raw: Any, tp: Any, field: Any, path: str) -> Any:
    if tp is Card:
        try:
            return Card.parse(raw)
        except InvalidCardError as exc:
            raise WireError(f"{path}: {exc}") from None
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        value = field.enum_type.values_by_number.get(raw)
        prefix = _enum_prefix(field.enum_type)
        member = value.name[len(prefix):] if value is not None else None
        if member is None or member not in tp.__members__:
            raise WireError(f"{path}: unknown or unset value {raw} of {field.enum_type.name}")
        return tp[member]
    return raw


def from_message(msg: Any, cls: type, path: str = "") -> Any:
    """Build the dataclass ``cls`` from ``msg``; WireError naming the field on bad data."""
    kwargs = {}
    descriptor = msg.DESCRIPTOR
    for name, tp in _fields(cls):
        field = descriptor.fields_by_name[name]
        inner, optional = _unwrap_optional(tp)
        where = f"{path}.{name}" if path else name
        if field.is_repeated:
            (item_tp,) = [a for a in typing.get_args(inner) if a is not Ellipsis]
            raw = getattr(msg, name)
            if field.message_type is not None:
                kwargs[name] = tuple(from_message(m, item_tp, f"{where}[{i}]") for i, m in enumerate(raw))
            else:
                kwargs[name] = tuple(_scalar_from_wire(r, item_tp, field, f"{where}[{i}]") for i, r in enumerate(raw))
            continue
        if optional and field.has_presence and not msg.HasField(name):
            kwargs[name] = None
            continue
        raw = getattr(msg, name)
        if field.message_type is not None:
            kwargs[name] = from_message(raw, inner, where)
        else:
            kwargs[name] = _scalar_from_wire(raw, inner, field, where)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise WireError(f"{path or cls.__name__}: {exc}") from None


# --------------------------------------------------------------------------------------
# Views and actions.


@functools.lru_cache(maxsize=None)
def _action_classes(game: str) -> dict[str, type]:
    return {_snake(cls.__name__): cls for cls in game_class(game).action_types}


def view_to_proto(game: str, view: Any) -> pb.View:
    out = pb.View()
    to_message(view, getattr(out, game_field(game)))
    getattr(out, game_field(game)).SetInParent()
    return out


def view_from_proto(game: str, msg: pb.View) -> Any:
    which = msg.WhichOneof("game")
    if which != game_field(game):
        raise WireError(f"view is for {which!r}, expected {game_field(game)!r}")
    return from_message(getattr(msg, which), game_class(game).view_type, "view")


def action_to_proto(game: str, action: Any) -> pb.Action:
    out = pb.Action(notation=str(action))
    union = getattr(out, game_field(game))
    field = _snake(type(action).__name__)
    if field not in _action_classes(game):
        raise TypeError(f"{type(action).__name__} is not an action of {game}")
    to_message(action, getattr(union, field))
    getattr(union, field).SetInParent()
    return out


def action_from_proto(game: str, msg: pb.Action) -> Any:
    """Decode a bot's action; WireError (never anything else) if it is malformed."""
    which = msg.WhichOneof("game")
    if which is None:
        raise WireError("action is empty: set the field of the match's game")
    if which != game_field(game):
        raise WireError(f"action is for game {which!r}, but this match plays {game!r}")
    union = getattr(msg, which)
    verb = union.WhichOneof("action")
    if verb is None:
        raise WireError(f"{which} action has no verb set")
    return from_message(getattr(union, verb), _action_classes(game)[verb], f"action.{verb}")


# --------------------------------------------------------------------------------------
# Events, outcomes, options.


def event_to_proto(event: Event) -> pb.Event:
    out = pb.Event(kind=event.kind, text=event.text, cards=[str(c) for c in event.cards])
    if event.seat is not None:
        out.seat = event.seat
    return out


def event_from_proto(msg: pb.Event) -> Event:
    try:
        cards = tuple(Card.parse(c) for c in msg.cards)
    except InvalidCardError as exc:
        raise WireError(f"event.cards: {exc}") from None
    return Event(msg.kind, msg.seat if msg.HasField("seat") else None, msg.text, cards)


def outcome_to_proto(outcome: Outcome) -> pb.Outcome:
    return pb.Outcome(
        scores=list(outcome.scores),
        ranks=list(outcome.ranks),
        reason=pb.EndReason.Value("END_REASON_" + outcome.reason.name),
        detail=outcome.detail,
    )


def outcome_from_proto(msg: pb.Outcome) -> Outcome:
    name = pb.EndReason.Name(msg.reason).removeprefix("END_REASON_")
    if name not in EndReason.__members__:
        raise WireError(f"outcome.reason: unknown value {msg.reason}")
    return Outcome(tuple(msg.scores), tuple(msg.ranks), EndReason[name], msg.detail)


def options_to_wire(options: Mapping[str, Any]) -> dict[str, str]:
    """Options as the text form `--option KEY=VALUE` accepts."""
    out = {}
    for k, v in options.items():
        if v is None:
            out[k] = "off"
        elif isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, (list, tuple, frozenset, set)):
            out[k] = ",".join(str(x) for x in v)
        else:
            out[k] = str(v)
    return out
