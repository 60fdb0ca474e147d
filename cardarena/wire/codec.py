"""The one place where domain values meet protobuf.

A generic codec maps the engines' frozen dataclasses (views, actions) to protobuf
messages and back BY FIELD NAME, recursively: Card <-> string notation, tuple <->
repeated, ``X | None`` <-> field presence, Enum <-> proto enum value ``<PREFIX>_<NAME>``
(the prefix is the one of the enum's ``..._UNSPECIFIED`` zero value), nested dataclass
<-> message. Adding a game means writing its proto messages with the same field names;
no per-game conversion code.

Two implementations of that one mapping live here. ``to_message`` / ``from_message`` walk
the type hints on every call: they are the reference, and they produce the error messages
(a WireError naming the field). The hot path (every Turn the arbiter sends, every view and
legal action a bot decodes) uses codecs COMPILED once per (dataclass, proto message): the
same rules turned into one generated Python function per class, which builds the message
from plain dicts in a single protobuf constructor call and decodes with direct attribute
reads and table look-ups. A compiled decoder that meets anything unusual (an unknown card
token or enum number, a value the dataclass refuses) hands the message to the reference
decoder, which either accepts it (e.g. a lower-case card) or raises the WireError; so both
give the same result on every input. tests/cardarena/wire/test_convert.py checks they agree.

The SDK's conversion module builds on these functions; engines never import this.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import sys
import types
import typing
from typing import Any, Callable, Mapping, Sequence

from google.protobuf import message_factory

from cardarena.games import Card, EndReason, Event, GameError, Outcome, game_class
from cardarena.games.cards import InvalidCardError
from cardarena.v1 import arena_pb2 as pb

#: The wire encoder's inner loops in C (cardarena/wire/_wirec.c), when the install built
#: them (``make venv`` does, with a C compiler; ARENA_NO_WIREC=1 turns them off): the
#: compiled Python encoders below are the reference and the fallback, byte for byte the same.
_WIREC_VERSION = 4


def _load_wirec() -> Any:
    import os

    if os.environ.get("ARENA_NO_WIREC"):
        return None
    try:
        from cardarena.wire import _wirec
    except ImportError:
        return None
    return _wirec if getattr(_wirec, "VERSION", None) == _WIREC_VERSION else None  # a stale build: not used


_wirec = _load_wirec()

PROTOCOL_VERSION = 1


class WireError(ValueError):
    """A message that does not decode to a valid domain value; says which field and why."""


def game_field(game: str) -> str:
    """The oneof field of View/Action for a game name ("spite-and-malice" -> "spite_and_malice")."""
    return game.replace("-", "_")


def carries(game: str) -> bool:
    """Whether the protocol carries ``game``: its View and Action messages are in the
    oneofs of protos/cardarena/v1/arena.proto (every game of the product; a game registered
    in process only, a test's or one being written, is not, and its bots play in process)."""
    gf = game_field(game)
    return gf in pb.View.DESCRIPTOR.fields_by_name and gf in pb.Action.DESCRIPTOR.fields_by_name


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
# Compiled codecs: the same mapping as to_message / from_message, generated once per class.

#: Card -> its token, by index (Card is an int); token -> Card for the canonical tokens.
_CARD_STR: tuple[str, ...] = tuple(str(Card(i)) for i in range(53))
_CARD_OF: dict[str, Card] = {s: Card(i) for i, s in enumerate(_CARD_STR)}


class _Unsupported(Exception):
    """A field shape the compiler does not handle; the class uses the reference codec."""


def _kind(tp: Any, field: Any) -> str:
    """How one (item) value crosses: 'card', 'enum', 'msg', 'scalar' or 'other' (runtime)."""
    if field.message_type is not None:
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return "msg"
        raise _Unsupported(f"{field.full_name}: {tp!r} is not a dataclass")
    if tp is Card:
        return "card"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        if field.enum_type is None:
            raise _Unsupported(f"{field.full_name}: enum {tp.__name__} on a non-enum field")
        return "enum"
    if tp in _SCALARS:
        return "scalar"
    return "other"  # e.g. a bare ``tuple`` hint: decided per value, as to_message does


def _field_plan(cls: type, descriptor: Any) -> list[tuple[str, Any, Any, bool, bool, str]]:
    """(name, field, item type, optional, repeated, kind) for every field of ``cls``."""
    plan = []
    for name, tp in _fields(cls):
        field = descriptor.fields_by_name.get(name)
        if field is None:
            raise TypeError(f"{descriptor.full_name} has no field {name!r} for {cls.__name__}")
        inner, optional = _unwrap_optional(tp)
        item = inner
        if field.is_repeated:
            args = [a for a in typing.get_args(inner) if a is not Ellipsis]
            if len(args) != 1:
                raise _Unsupported(f"{cls.__name__}.{name}: repeated field needs tuple[X, ...], got {inner!r}")
            item = args[0]
        plan.append((name, field, item, optional, field.is_repeated, _kind(item, field)))
    return plan


def _enum_tables(tp: type, field: Any) -> tuple[dict, dict]:
    """(member -> wire number, wire number -> member) of a domain enum and its proto enum."""
    prefix = _enum_prefix(field.enum_type)
    to_wire, from_wire = {}, {}
    for member in tp:
        value = field.enum_type.values_by_name.get(prefix + member.name)
        if value is not None:
            to_wire[member] = value.number
            from_wire[value.number] = member
    return to_wire, from_wire


#: Entries kept by each memo of nested items (cleared when full). The memos rely on what
#: base.py requires of views: immutable values (frozen dataclasses, never changed after
#: they are made); test_convert checks every view of random games against the reference.
MEMO_SIZE = 4096


def _keep(cache: dict, key: Any, value: Any, size: int) -> None:
    """Put ``value`` in a bounded cache, emptied whole when it holds ``size`` entries (what
    it keeps recurs, so it fills again at once): every memo and cache of this module."""
    if len(cache) >= size:
        cache.clear()
    cache[key] = value


def _nested(cls: type, descriptor: Any) -> bool:
    """True if ``cls`` has a field that is itself a message (worth memoizing as an item)."""
    return any(f.message_type is not None for f in descriptor.fields) and dataclasses.is_dataclass(cls)


def _memo_by_identity(encode_item: Callable[[Any], Any], message_class: type) -> Callable[[Any], Any]:
    """encode_item, as a message, remembered per item object. Engines keep the items of
    growing lists (a deal's finished tricks) as the same immutable objects from view to
    view, so each is converted once. The entry holds the object, so its id stays unique."""
    cache: dict[int, tuple[Any, Any]] = {}

    def encode(item: Any) -> Any:
        hit = cache.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        fields = encode_item(item)
        msg = message_class(**fields) if isinstance(fields, dict) else fields
        _keep(cache, id(item), (item, msg), MEMO_SIZE)
        return msg

    return encode


def _memo_by_wire(decode_item: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """decode_item, remembered by the item's serialized bytes (decoding is a pure function
    of them, the values are immutable, and serializing is much quicker than decoding)."""
    cache: dict[bytes, Any] = {}

    def decode(msg: Any) -> Any:
        key = msg.SerializeToString()
        value = cache.get(key)
        if value is None:
            value = decode_item(msg)
            _keep(cache, key, value, MEMO_SIZE)
        return value

    return decode


@functools.lru_cache(maxsize=None)
def _encoder(cls: type, descriptor: Any) -> Callable[[Any], Any]:
    """value -> a dict the protobuf constructor takes for ``descriptor`` (or, for a class the
    compiler does not handle, a message built by to_message; the constructor takes both)."""
    try:
        plan = _field_plan(cls, descriptor)
    except _Unsupported:
        message_class = message_factory.GetMessageClass(descriptor)
        return lambda value: to_message(value, message_class())
    env: dict[str, Any] = {"CS": _CARD_STR, "wire": _scalar_to_wire}
    items = []
    for i, (name, field, item, optional, repeated, kind) in enumerate(plan):
        if kind == "card":
            conv = "CS[{}]"
        elif kind == "enum":
            env[f"E{i}"] = _enum_tables(item, field)[0]
            conv = f"E{i}[{{}}]"
        elif kind == "msg":
            env[f"M{i}"] = _encoder(item, field.message_type)
            if repeated and _nested(item, field.message_type):  # e.g. finished tricks
                env[f"M{i}"] = _memo_by_identity(env[f"M{i}"], message_factory.GetMessageClass(field.message_type))
            conv = f"M{i}({{}})"
        elif kind == "other":
            env[f"F{i}"] = field
            conv = f"wire({{}}, F{i})"
        else:
            conv = "{}"
        if repeated:
            expr = f"[{conv.format('x')} for x in v.{name}]" if conv != "{}" else f"list(v.{name})"
        else:
            expr = conv.format(f"v.{name}")
        if optional and expr != f"v.{name}":
            expr = f"(None if v.{name} is None else {expr})"  # None: the field stays unset
        items.append(f"{name!r}: {expr}")
    src = "def encode(v):\n    return {" + ", ".join(items) + "}\n"
    exec(compile(src, f"<encoder {cls.__name__}>", "exec"), env)
    return env["encode"]


# --------------------------------------------------------------------------------------
# Compiled wire encoders: a value straight to its message's serialized bytes, with no
# protobuf message built on the way (the dicts of ``_encoder`` cost little; the protobuf
# constructor taking them cost about three times as much: docs/performance.md). The same
# mapping again; test_convert checks that the bytes parse to the message ``_encoder``'s
# dict makes, for every view of random games of every game.

_VARINT_TABLE: tuple[bytes, ...] = tuple(bytes([n]) if n < 0x80 else bytes([(n & 0x7F) | 0x80, n >> 7]) for n in range(1 << 14))


def _varint_any(n: int) -> bytes:
    """``n`` as a protobuf varint; a negative int32/int64 as its 64-bit two's complement."""
    if n < 0:
        n += 1 << 64
    return _varint(n)


def _tag(field: Any, wire_type: int) -> bytes:
    return _varint((field.number << 3) | wire_type)


def _wire_kinds() -> tuple[set[int], int, int, int, int]:
    from google.protobuf.descriptor import FieldDescriptor as FD

    varints = {FD.TYPE_INT32, FD.TYPE_INT64, FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_BOOL, FD.TYPE_ENUM}
    return varints, FD.TYPE_STRING, FD.TYPE_DOUBLE, FD.TYPE_MESSAGE, FD.TYPE_BYTES


def _memo_bytes_by_identity(encode_item: Callable[[Any], bytes],
                            cache: dict[int, tuple[Any, bytes]] | None = None) -> Callable[[Any], bytes]:
    """encode_item, remembered per item object (as ``_memo_by_identity``, for bytes) in
    ``cache`` (id -> (item, its bytes); a new one if not given)."""
    if cache is None:
        cache = {}

    def encode(item: Any) -> bytes:
        hit = cache.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        wire = encode_item(item)
        _keep(cache, id(item), (item, wire), MEMO_SIZE)
        return wire

    return encode


def _wire_field_lines(i: int, name: str, field: Any, item: Any, optional: bool, repeated: bool, kind: str,
                      env: dict[str, Any]) -> list[str]:
    """The lines that write field ``name``'s value ``x`` with ``a`` (its tags, lengths and
    values; nothing at its default), at a function body's indentation; names they need go
    into ``env``. _Unsupported for a shape the compiler leaves to the fallback."""
    varints, t_string, t_double, t_message, _ = _wire_kinds()
    ftype = field.type
    if kind == "other" or (ftype not in varints and ftype not in (t_string, t_double, t_message)):
        raise _Unsupported(name)
    if kind == "enum":
        env[f"E{i}"] = _enum_tables(item, field)[0]
        num = f"E{i}[{{}}]"
    elif kind in ("scalar",) and ftype in varints:
        num = "{}"
    else:
        num = None
    if kind == "card" and ftype != t_string:
        raise _Unsupported(name)
    presence = field.has_presence and not repeated
    lines = []
    if repeated:
        lines.append("    if x:")
        if ftype in varints or ftype == t_double:  # packed
            env[f"T{i}"] = _tag(field, 2)
            if ftype == t_double:
                lines.append(f"        b = pack('<%dd' % len(x), *x)")
            else:
                n = num.format("y")
                lines.append(f"        b = b''.join([VT[{n}] if 0 <= {n} < 16384 else VA({n}) for y in x])")
            lines.append(f"        a(T{i}); a(VT[len(b)] if len(b) < 16384 else VA(len(b))); a(b)")
        elif kind == "card":
            env[f"C{i}"] = tuple(_tag(field, 2) + _varint(len(t)) + t.encode() for t in _CARD_STR)
            lines.append(f"        for y in x: a(C{i}[y])")
        elif ftype == t_string:
            env[f"T{i}"] = _tag(field, 2)
            lines.append(f"        for y in x:")
            lines.append(f"            b = y.encode(); a(T{i}); a(VT[len(b)] if len(b) < 16384 else VA(len(b))); a(b)")
        else:  # messages: each item's tag, length and body, made once per item object
            inner = _wire_encoder(item, field.message_type)
            tag = _tag(field, 2)
            env[f"K{i}"] = cache = {}
            env[f"M{i}"] = _memo_bytes_by_identity(
                lambda y, inner=inner, tag=tag: (lambda b: tag + _varint(len(b)) + b)(inner(y)), cache)
            # the memo's lookup inline (no call per item that was seen before: most are)
            lines.append(f"        for y in x:")
            lines.append(f"            h = K{i}.get(id(y))")
            lines.append(f"            a(h[1] if h is not None and h[0] is y else M{i}(y))")
        return lines
    test = "x is not None" if (presence or ftype == t_message or kind == "card") else "x"  # Card(0) is a card
    if optional and not presence and ftype != t_message:
        test = "x is not None and x"  # None: unset; the default value is not written either
    lines.append(f"    if {test}:")
    if kind == "card":
        env[f"C{i}"] = tuple(_tag(field, 2) + _varint(len(t)) + t.encode() for t in _CARD_STR)
        lines.append(f"        a(C{i}[x])")
    elif ftype in varints:
        env[f"T{i}"] = _tag(field, 0)
        n = num.format("x")
        if kind == "enum" and not presence:
            lines.append(f"        n = {n}")
            lines.append(f"        if n: a(T{i}); a(VT[n] if n < 16384 else VA(n))")
        else:
            lines.append(f"        n = {n}")
            lines.append(f"        a(T{i}); a(VT[n] if 0 <= n < 16384 else VA(n))")
    elif ftype == t_double:
        env[f"T{i}"] = _tag(field, 1)
        lines.append(f"        a(T{i}); a(pack('<d', x))")
    elif ftype == t_string:
        env[f"T{i}"] = _tag(field, 2)
        lines.append(f"        b = x.encode(); a(T{i}); a(VT[len(b)] if len(b) < 16384 else VA(len(b))); a(b)")
    else:
        env[f"M{i}"] = _wire_encoder(item, field.message_type)
        env[f"T{i}"] = _tag(field, 2)
        lines.append(f"        b = M{i}(x); a(T{i}); a(VT[len(b)] if len(b) < 16384 else VA(len(b))); a(b)")
    return lines


def _wire_env() -> dict[str, Any]:
    return {"VT": _VARINT_TABLE, "VA": _varint_any, "pack": __import__("struct").pack, "CS": _CARD_STR}


@functools.lru_cache(maxsize=None)
def _wire_encoder(cls: type, descriptor: Any) -> Callable[[Any], bytes]:
    """value -> the serialized bytes of its ``descriptor`` message (the body, no tag)."""
    message_class = message_factory.GetMessageClass(descriptor)

    def fallback() -> Callable[[Any], bytes]:
        enc = _encoder(cls, descriptor)
        return lambda value: (lambda f: (message_class(**f) if isinstance(f, dict) else f).SerializeToString())(enc(value))

    env = _wire_env()
    lines = ["def encode(v):", "    o = []", "    a = o.append"]
    try:
        # In field-number order, as protobuf writes a message, whatever the class's order
        # (Spite and Malice's view declares deadlock_reshuffles, 19, before reveal, 18).
        plan = sorted(_field_plan(cls, descriptor), key=lambda entry: entry[1].number)
        for i, entry in enumerate(plan):
            lines.append(f"    x = v.{entry[0]}")
            lines.extend(_wire_field_lines(i, *entry, env))
    except _Unsupported:
        return fallback()
    lines.append("    return b''.join(o)")
    exec(compile("\n".join(lines) + "\n", f"<wire encoder {cls.__name__}>", "exec"), env)
    if _wirec is not None:  # the same fields, tables and memos, written by the C loop
        return functools.partial(_wirec.encode, _c_plan(plan, env))
    return env["encode"]


def _c_plan(plan: list, env: dict[str, Any]) -> tuple:
    """The field plan as ``_wirec.encode`` reads it: (attribute, kind, test, a, b) a field,
    with the tables, memos and nested encoders ``_wire_field_lines`` put in ``env`` (the
    same objects the Python encoder uses, so the memos are shared). Kinds, as _wirec.c's
    enum: 0 varint, 1 enum, 2 card, 3 string, 4 message, 5 repeated cards, 6 packed
    varints, 7 repeated strings, 8 repeated messages, 9 double, 10 packed doubles; tests:
    0 ``if x``, 1 ``if x is not None``, 2 ``if x is not None and x``."""
    varints, t_string, t_double, t_message, _ = _wire_kinds()
    out = []
    for i, (name, field, _item, optional, repeated, kind) in enumerate(plan):
        ftype = field.type
        if repeated:
            test = 0
            if ftype == t_double:
                spec = (10, env[f"T{i}"], None)
            elif kind == "card":
                spec = (5, env[f"C{i}"], None)
            elif ftype in varints:
                spec = (6, env[f"T{i}"], env.get(f"E{i}"))
            elif ftype == t_string:
                spec = (7, env[f"T{i}"], None)
            else:
                spec = (8, env[f"K{i}"], env[f"M{i}"])
        else:
            presence = field.has_presence
            test = 1 if (presence or ftype == t_message or kind == "card") else 0
            if optional and not presence and ftype != t_message:
                test = 2
            if ftype == t_double:
                spec = (9, env[f"T{i}"], None)
            elif kind == "card":
                spec = (2, env[f"C{i}"], None)
            elif kind == "enum":
                spec = (1, env[f"T{i}"], env[f"E{i}"])
            elif ftype in varints:
                spec = (0, env[f"T{i}"], None)
            elif ftype == t_string:
                spec = (3, env[f"T{i}"], None)
            else:
                spec = (4, env[f"T{i}"], env[f"M{i}"])
        out.append((sys.intern(name), spec[0], test, spec[1], spec[2]))
    return tuple(out)


def _plain_init(cls: type) -> bool:
    """True if ``cls(...)`` only stores its fields: a dataclass's generated ``__init__``
    (every field an ordinary parameter, no ``__post_init__``, no slots). Its instances can
    then be made by filling a fresh object's ``__dict__``, which gives the same object as
    the constructor for a fraction of the cost (a frozen dataclass's ``__init__`` calls
    ``object.__setattr__`` once per field)."""
    return (dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and "__slots__" not in cls.__dict__
            and all(f.init and not f.kw_only for f in dataclasses.fields(cls)))


def _decode_exprs(cls: type, descriptor: Any, plan: list, env: dict[str, Any]) -> list[str]:
    """The Python expression decoding each field of ``cls`` from a message ``m`` (names it
    needs go into ``env``), in field order."""
    env.update({"CP": _CARD_OF, "CLS": cls})
    exprs = []
    for i, (name, field, item, optional, repeated, kind) in enumerate(plan):
        if kind == "card":
            conv = "CP[{}]"
        elif kind == "enum":
            env[f"E{i}"] = _enum_tables(item, field)[1]
            conv = f"E{i}[{{}}]"
        elif kind == "msg":
            env[f"M{i}"] = _decoder(item, field.message_type)
            if repeated:  # every item of a list, even of scalars only (a seat's public facts): most recur
                env[f"M{i}"] = _memo_by_wire(env[f"M{i}"])
            conv = f"M{i}({{}})"
        elif kind == "other":
            env[f"T{i}"], env[f"F{i}"] = item, field
            env["scalar"] = _scalar_from_wire
            conv = f"scalar({{}}, T{i}, F{i}, {name!r})"
        else:
            conv = "{}"
        if repeated:
            expr = f"tuple([{conv.format('x')} for x in m.{name}])" if conv != "{}" else f"tuple(m.{name})"
        else:
            expr = conv.format(f"m.{name}")
            if optional and field.has_presence:
                expr = f"({expr} if m.HasField({name!r}) else None)"
        exprs.append(expr)
    return exprs


@functools.lru_cache(maxsize=None)
def _decoder(cls: type, descriptor: Any) -> Callable[[Any], Any]:
    """message -> ``cls``; raises anything (KeyError, ValueError, ...) on data it does not
    expect; callers then run the reference decoder for the answer or the WireError."""
    try:
        plan = _field_plan(cls, descriptor)
    except _Unsupported:
        return lambda msg: from_message(msg, cls)
    env: dict[str, Any] = {}
    exprs = _decode_exprs(cls, descriptor, plan, env)
    # Positional arguments are quicker than keywords; they match when every field is an
    # ordinary __init__ parameter (in field order).
    positional = all(f.init and not f.kw_only for f in dataclasses.fields(cls))
    items = [expr if positional else f"{name}={expr}" for (name, *_), expr in zip(plan, exprs)]
    if positional and _plain_init(cls):
        env["NEW"] = object.__new__
        fields = ", ".join(f"{name!r}: {expr}" for (name, *_), expr in zip(plan, exprs))
        src = "def decode(m):\n    o = NEW(CLS)\n    o.__dict__.update({" + fields + "})\n    return o\n"
    else:
        src = "def decode(m):\n    return CLS(" + ", ".join(items) + ")\n"
    exec(compile(src, f"<decoder {cls.__name__}>", "exec"), env)
    return env["decode"]


_LAZY_MESSAGE = "_lazy_view_message"
#: A view rebuilt from view deltas keeps the bytes of its whole message, parsed when a bot
#: first reads a field it did not carry over.

_LAZY_WHOLE = "_lazy_view_bytes"


@functools.lru_cache(maxsize=None)
def _lazy_class(cls: type, descriptor: Any) -> tuple[type, dict[str, Callable[[Any], Any]]] | None:
    """A subclass of the view class ``cls`` whose fields are decoded from the message the
    first time they are read (then kept), and the decoder of each field; None if ``cls``
    is not one the compiled decoder handles."""
    try:
        plan = _field_plan(cls, descriptor)
    except _Unsupported:
        return None
    env: dict[str, Any] = {}
    exprs = _decode_exprs(cls, descriptor, plan, env)
    src = "".join(f"def f{i}(m):\n    return {expr}\n" for i, expr in enumerate(exprs))
    exec(compile(src, f"<decoder {cls.__name__}>", "exec"), env)
    fields = {name: env[f"f{i}"] for i, (name, *_) in enumerate(plan)}
    names = tuple(fields)
    setter = object.__setattr__
    parse = message_factory.GetMessageClass(descriptor).FromString

    def whole(d: dict) -> Any:
        """The view's message (for a view rebuilt from deltas: parsed from all its fields)."""
        msg = d.get(_LAZY_MESSAGE)
        if msg is None:
            try:
                msg = d[_LAZY_MESSAGE] = parse(d[_LAZY_WHOLE])
            except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError
                raise WireError(f"view: {exc}") from None
        return msg

    def __getattr__(self: Any, name: str) -> Any:  # only for a field not read yet
        dec = fields.get(name)
        if dec is None:
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
        d = self.__dict__
        msg = d.get(_LAZY_MESSAGE) or whole(d)  # (rebuilt from view deltas: parsed at the first read)
        try:
            value = dec(msg)
        except Exception:  # noqa: BLE001 - the reference decoder gives the answer or the WireError
            value = getattr(from_message(msg, cls, "view"), name)
        setter(self, name, value)
        return value

    def __eq__(self: Any, other: Any) -> Any:
        if isinstance(other, cls):
            return all(getattr(self, n) == getattr(other, n) for n in names)
        return NotImplemented

    def __reduce__(self: Any) -> Any:  # a copy or a pickle is the engine's own class, whole
        return (cls, tuple(getattr(self, n) for n in names))

    lazy = type(cls.__name__, (cls,), {
        "__getattr__": __getattr__, "__eq__": __eq__, "__hash__": cls.__hash__, "__reduce__": __reduce__,
        "__qualname__": cls.__qualname__, "__module__": cls.__module__, "__doc__": cls.__doc__,
        # A field with a default is a class attribute of ``cls``, found before __getattr__ is
        # asked: the lazy class hides it behind a descriptor that decodes the field (the
        # default was read instead: a final view's ``reveal``, a field added last).
        **{name: _LazyField(name, __getattr__) for name in names if hasattr(cls, name)},
    })
    return lazy, fields


class _LazyField:
    """A field of a lazy view class that its view class gives a default: read, it is
    decoded (by the class's ``__getattr__``, which keeps it in the instance's dict, where
    the next read finds it first: a descriptor without ``__set__``)."""

    __slots__ = ("name", "decode")

    def __init__(self, name: str, decode: Callable[[Any, str], Any]):
        self.name, self.decode = name, decode

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return getattr(owner.__mro__[1], self.name)  # the class's default, as on the view class
        return self.decode(obj, self.name)


def lazy_view_from_proto(game: str, msg: pb.View) -> Any:
    """``view_from_proto``, lazily: an instance of the game's view class (a subclass of it:
    ``isinstance`` holds, its repr, equality, hash and copies are the view's) whose fields
    are decoded the first time a bot reads them. A bot that reads three fields of its view
    pays for three (docs/performance.md). A field that does not decode raises WireError
    where it is read."""
    gf, lazy = _lazy_for(game)
    which = msg.WhichOneof("game")
    if which != gf:
        raise WireError(f"view is for {which!r}, expected {gf!r}")
    if lazy is None:
        return view_from_proto(game, msg)
    view = object.__new__(lazy)
    view.__dict__[_LAZY_MESSAGE] = getattr(msg, which)
    return view


def _lazy_for(game: str) -> tuple[str, Any]:
    """(the game's View oneof field, its lazy view class or None)."""
    known = _LAZY_BY_GAME.get(game)
    if known is None:
        gf, _, _, cls = _view_codec(game)
        made = _lazy_class(cls, pb.View.DESCRIPTOR.fields_by_name[gf].message_type)
        known = _LAZY_BY_GAME[game] = (gf, made[0] if made is not None else None)
    return known


def decode(msg: Any, cls: type, path: str = "") -> Any:
    """``msg`` as a ``cls`` (the compiled from_message; same results, same WireErrors)."""
    try:
        return _decoder(cls, msg.DESCRIPTOR)(msg)
    except Exception:  # noqa: BLE001 - anything unusual: the reference decoder decides
        return from_message(msg, cls, path)


# --------------------------------------------------------------------------------------
# Views and actions.


@functools.lru_cache(maxsize=None)
def _action_classes(game: str) -> dict[str, type]:
    return {_snake(cls.__name__): cls for cls in game_class(game).action_types}


@functools.lru_cache(maxsize=None)
def _view_codec(game: str) -> tuple[str, Callable[[Any], Any], Callable[[Any], Any], type]:
    """(View oneof field, encoder, decoder, view class) of a game."""
    gf = game_field(game)
    descriptor = pb.View.DESCRIPTOR.fields_by_name[gf].message_type
    cls = game_class(game).view_type
    return gf, _encoder(cls, descriptor), _decoder(cls, descriptor), cls


@functools.lru_cache(maxsize=None)
def _action_encoders(game: str) -> dict[type, tuple[str, Callable[[Any], Any]]]:
    """action class -> (its oneof field in the game's Action message, encoder)."""
    gf = game_field(game)
    union = pb.Action.DESCRIPTOR.fields_by_name[gf].message_type
    return {cls: (verb, _encoder(cls, union.fields_by_name[verb].message_type)) for verb, cls in _action_classes(game).items()}


@functools.lru_cache(maxsize=None)
def _action_decoders(game: str) -> dict[str, tuple[type, Callable[[Any], Any]]]:
    """verb -> (action class, compiled decoder)."""
    union = pb.Action.DESCRIPTOR.fields_by_name[game_field(game)].message_type
    return {verb: (cls, _decoder(cls, union.fields_by_name[verb].message_type)) for verb, cls in _action_classes(game).items()}


def view_fields(game: str, view: Any) -> dict[str, Any]:
    """The View message of ``view`` as constructor fields: ``pb.View(**view_fields(...))``,
    or a value for a View field of a bigger message (Turn.view) built in one call."""
    gf, enc, _, _ = _view_codec(game)
    return {gf: enc(view)}


def view_to_proto(game: str, view: Any) -> pb.View:
    return pb.View(**view_fields(game, view))


def view_from_proto(game: str, msg: pb.View) -> Any:
    which = msg.WhichOneof("game")
    gf, _, dec, cls = _view_codec(game)
    if which != gf:
        raise WireError(f"view is for {which!r}, expected {gf!r}")
    inner = getattr(msg, which)
    try:
        return dec(inner)
    except Exception:  # noqa: BLE001 - the reference decoder gives the answer or the WireError
        return from_message(inner, cls, "view")


def action_fields(game: str, action: Any) -> dict[str, Any]:
    """The Action message of ``action`` as constructor fields (see view_fields)."""
    entry = _action_encoders(game).get(type(action))
    if entry is None:
        raise TypeError(f"{type(action).__name__} is not an action of {game}")
    verb, enc = entry
    return {"notation": str(action), game_field(game): {verb: enc(action)}}


def action_to_proto(game: str, action: Any) -> pb.Action:
    return pb.Action(**action_fields(game, action))


#: Entries kept per game by the wire caches of legal actions (cleared when full).
ACTION_CACHE_SIZE = 16384


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_LEGAL_TAG = _varint((pb.Turn.DESCRIPTOR.fields_by_name["legal_actions"].number << 3) | 2)  # length-delimited
_ACTION_WIRE: dict[str, dict[Any, Any]] = {}  # game -> _spliced's cache
_ACTION_OF_WIRE: dict[str, dict[bytes, Any]] = {}


def legal_actions_wire(game: str, actions: Sequence[Any]) -> bytes:
    """``actions`` as the serialized ``Turn.legal_actions`` field, to merge into a Turn.

    Protobuf appends the items of a repeated field when it parses (merges) more of them,
    so a Turn's legal actions can be spliced in as bytes. Each action's bytes are made
    once (actions are immutable values and recur from decision to decision) and kept in
    a bounded cache; this is the largest part of a Turn for games with many legal moves.
    """
    return _spliced(actions, _ACTION_WIRE.setdefault(game, {}), _LEGAL_TAG,
                    lambda action: action_to_proto(game, action).SerializeToString())


_WARMED: set[str] = set()


def warm_actions(game: str) -> None:
    """Once per game in a process: every action its engine lists (``Game.every_action``,
    the engine's own objects) encoded for ``legal_actions_wire`` and kept by its bytes for
    ``action_from_proto``, as if each had been offered in a Turn and answered. Otherwise a
    process offers each one for the first time in a match: a Spades give turn's ~78-91
    gives are encoded then (~10 µs each), and a give answered is decoded (~20 µs), on that
    decision's critical path (docs/performance.md, attempt 111). ~9 ms once for Spades;
    an arbiter calls it when it first hosts the game (``RemoteSeat``)."""
    if game in _WARMED:
        return
    _WARMED.add(game)
    offered = _ACTION_WIRE.setdefault(game, {})
    known = _ACTION_OF_WIRE.setdefault(game, {})
    for action in _parser(game).every_action():
        body = action_to_proto(game, action).SerializeToString()
        _item_wire(action, offered, _LEGAL_TAG, lambda _, body=body: body)
        _keep(known, body, action, ACTION_CACHE_SIZE)


def _spliced(items: Sequence[Any], cache: dict[Any, Any], tag: bytes, encode: Callable[[Any], bytes]) -> bytes:
    """``items`` as the serialized repeated field whose key is ``tag``: each item's bytes
    (its ``encode``d message's bytes, length-delimited) made once and kept in ``cache``,
    bounded by ACTION_CACHE_SIZE. The items must be immutable values. The engines hand out
    the same objects for the same actions and events (interned), so an item is looked up
    by its identity first (``id``: no hashing of a dataclass in Python; the entry holds
    the item, so its id stays unique), then by its value (``_item_wire``)."""
    if _wirec is not None:  # the lookups by identity in C, _item_wire for the rest
        miss = _MISSES.get(id(cache))
        if miss is None:
            miss = _MISSES[id(cache)] = functools.partial(_item_wire, cache=cache, tag=tag, encode=encode)
        return _wirec.splice(items, cache, miss)
    out = []
    for item in items:
        hit = cache.get(id(item))
        out.append(hit[1] if hit is not None and hit[0] is item else _item_wire(item, cache, tag, encode))
    return b"".join(out)


#: id(cache) -> its _item_wire, for _wirec.splice (the caches are the module's own: they live as long).
_MISSES: dict[int, Callable[[Any], bytes]] = {}


def _item_wire(item: Any, cache: dict[Any, Any], tag: bytes, encode: Callable[[Any], bytes]) -> bytes:
    """``_spliced``'s item not kept by its identity: by its value (``(item,)``: the first
    object of that value and its bytes), else encoded; kept by identity either way."""
    hit = cache.get((item,))
    if hit is None:
        body = encode(item)
        hit = (item, tag + _varint(len(body)) + body)
        _keep(cache, (item,), hit, ACTION_CACHE_SIZE)
    elif hit[0] is not item:
        hit = (item, hit[1])
    _keep(cache, id(item), hit, ACTION_CACHE_SIZE)
    return hit[1]


def legal_actions_from_proto(game: str, msgs: Sequence[pb.Action]) -> list[Any]:
    """Decode a Turn's legal actions, each as action_from_proto does (WireError alike).

    Decoding is a pure function of an action's bytes, and the same actions recur from
    turn to turn, so decoded actions are kept by their serialized form (bounded cache):
    serializing a small message is much quicker than decoding it.
    """
    cache = _ACTION_OF_WIRE.get(game)
    if cache is not None:
        out = list(map(cache.get, map(_SERIALIZE_ACTION, msgs)))
        if all(out):  # every one seen before (the usual case; an action is a true value)
            return out
    cache = _ACTION_OF_WIRE.setdefault(game, {})
    bodies = _ACTION_BODY.setdefault(game, {})
    out = []
    for msg in msgs:
        key = msg.SerializeToString()
        action = cache.get(key)
        if action is None:
            action = action_from_proto(game, msg)
            _keep(cache, key, action, ACTION_CACHE_SIZE)
            _keep(bodies, action, key, ACTION_CACHE_SIZE)  # an answer with this action echoes these bytes (action_wire)
        out.append(action)
    return out


_ARBITER_TURN_NUMBER = pb.ArbiterMessage.DESCRIPTOR.fields_by_name["turn"].number
_LEGAL_NUMBER = pb.Turn.DESCRIPTOR.fields_by_name["legal_actions"].number


def legal_actions_from_frame(game: str, frame: bytes, count: int) -> list[Any] | None:
    """The legal actions of the Turn in ``frame`` (the serialized ArbiterMessage it was
    parsed from), read from those bytes by the C reader (``_wirec.field_items``: no
    message made per action): each looked up by its bytes as ``legal_actions_from_proto``
    does. None, for the caller to decode the message's, unless all ``count`` of them were
    seen before (or without the C extension)."""
    return _turn_items_from_frame(frame, _LEGAL_NUMBER, _ACTION_OF_WIRE.get(game), count)


def _turn_items_from_frame(frame: bytes, number: int, cache: dict[bytes, Any] | None, count: int) -> list[Any] | None:
    """The items of the Turn's repeated field ``number`` in ``frame``, each looked up by its
    bytes in ``cache``; None unless all ``count`` of them are there (or without the C
    extension)."""
    if _wirec is None or cache is None:
        return None
    items = _wirec.field_items(frame, _ARBITER_TURN_NUMBER, number)
    if items is None or len(items) != count:
        return None
    out = list(map(cache.get, items))
    return out if all(out) else None


_SERIALIZE_ACTION = pb.Action.SerializeToString
#: game -> action -> its serialized Action message (action_wire).
_ACTION_BODY: dict[str, dict[Any, bytes]] = {}


def action_wire(game: str, action: Any) -> bytes:
    """``action`` as its serialized Action message, to merge into an Act: the bytes it came
    in as, for one of a Turn's legal actions (legal_actions_from_proto keeps them), else
    encoded once and kept (bounded, as the legal actions' caches). TypeError as
    action_fields for a value that is no action of ``game``."""
    bodies = _ACTION_BODY.setdefault(game, {})
    body = bodies.get(action)
    if body is None:
        body = action_to_proto(game, action).SerializeToString()
        _keep(bodies, action, body, ACTION_CACHE_SIZE)
    return body


_EVENTS_TAG = _varint((pb.Turn.DESCRIPTOR.fields_by_name["events"].number << 3) | 2)
_EVENT_WIRE: dict[Any, Any] = {}  # _spliced's cache


def events_wire(events: Sequence[Event]) -> bytes:
    """``events`` as the serialized ``Turn.events`` field, to merge into a Turn (as
    legal_actions_wire): events are immutable values, most of them the engines' interned
    ones, so each one's bytes are made once and kept (bounded cache). ``visible_to`` is not
    in them (event_fields)."""
    return _spliced(events, _EVENT_WIRE, _EVENTS_TAG, lambda event: event_to_proto(event).SerializeToString())


def serialized(msg: Any) -> bytes:
    """The bytes a stream carries for ``msg``: a message already written as bytes (a Turn,
    MatchStart or MatchEnd by ``turn_wire`` and its siblings, an Act by ``act_wire``) as
    it is, any other message serialized. Every transport's writer, both directions."""
    return msg if isinstance(msg, bytes) else msg.SerializeToString()


def _length_delimited(tag: bytes, body: bytes) -> bytes:
    n = len(body)
    return tag + (_VARINT_TABLE[n] if n < 16384 else _varint(n)) + body


@functools.lru_cache(maxsize=None)
def _view_wire_codec(game: str) -> Callable[[Any], bytes]:
    """view -> the serialized bytes of its View message (the game's field of the oneof)."""
    gf = game_field(game)
    field = pb.View.DESCRIPTOR.fields_by_name[gf]
    body = _wire_encoder(game_class(game).view_type, field.message_type)
    tag = _tag(field, 2)
    return lambda view: _length_delimited(tag, body(view))


def view_wire(game: str, view: Any) -> bytes:
    """``view`` as the serialized View message: ``view_to_proto(game, view)``'s bytes, made
    without building the message."""
    return _view_wire_codec(game)(view)


_TURN = pb.Turn.DESCRIPTOR.fields_by_name
_TURN_TAGS = {name: _tag(_TURN[name], 0 if name in ("request_id", "seat") else 2) for name in ("match_id", "request_id", "seat", "view", "clock")}
_CLOCK_TAGS = (_tag(pb.Clock.DESCRIPTOR.fields_by_name["decision_ms"], 0), _tag(pb.Clock.DESCRIPTOR.fields_by_name["bank_ms"], 0))
_ARBITER_TURN_TAG = _tag(pb.ArbiterMessage.DESCRIPTOR.fields_by_name["turn"], 2)


_MATCH_ID_WIRE: dict[str, bytes] = {}
_CLOCK_WIRE: dict[tuple[int, int], bytes] = {}
_T_MATCH_ID, _T_REQUEST_ID, _T_SEAT, _T_VIEW, _T_CLOCK = (_TURN_TAGS[k] for k in ("match_id", "request_id", "seat", "view", "clock"))


def _turn_head(match_id: str, request_id: int, seat: int) -> bytes:
    """A Turn's first fields (match, request, seat) as bytes: the match's kept (a match
    sends the same id with each of its Turns), the numbers from the varint table."""
    head = _MATCH_ID_WIRE.get(match_id)
    if head is None:
        head = _length_delimited(_T_MATCH_ID, match_id.encode()) if match_id else b""
        _keep(_MATCH_ID_WIRE, match_id, head, MEMO_SIZE)
    if request_id:
        head += _T_REQUEST_ID + (_VARINT_TABLE[request_id] if 0 < request_id < 16384 else _varint_any(request_id))
    if seat:
        head += _T_SEAT + (_VARINT_TABLE[seat] if 0 < seat < 16384 else _varint_any(seat))
    return head


def _clock_wire(decision_ms: int, bank_ms: int) -> bytes:
    """A Turn's ``clock`` field as bytes, kept per (decision, bank): a bank changes only
    when a seat takes longer than its decision time."""
    key = (decision_ms, bank_ms)
    wire = _CLOCK_WIRE.get(key)
    if wire is None:
        clock = ((_CLOCK_TAGS[0] + _varint_any(decision_ms)) if decision_ms else b"") + (
            (_CLOCK_TAGS[1] + _varint_any(bank_ms)) if bank_ms else b"")
        wire = _length_delimited(_T_CLOCK, clock)
        _keep(_CLOCK_WIRE, key, wire, MEMO_SIZE)
    return wire


def turn_wire(game: str, match_id: str, request_id: int, seat: int, view: Any, legal_actions: Sequence[Any],
              decision_ms: int, bank_ms: int, events: Sequence[Event] = (), view_delta: bytes | None = None) -> bytes:
    """The serialized ArbiterMessage carrying a Turn (what ``turn_to_proto`` builds), made
    as bytes: the view by its compiled wire encoder, the legal actions and events from
    their caches, the match id and the clock kept. ``events`` must already be filtered for
    ``seat`` (``events_for``). ``view_delta``: the Turn's ``view_delta`` field
    (``ViewDeltaWriter.delta``), sent in place of the whole view."""
    body = b"".join((
        _turn_head(match_id, request_id, seat),
        _length_delimited(_T_VIEW, _view_wire_codec(game)(view)) if view_delta is None else view_delta,
        legal_actions_wire(game, legal_actions),
        _clock_wire(decision_ms, bank_ms),
        events_wire(events) if events else b"",
    ))
    return _length_delimited(_ARBITER_TURN_TAG, body)


_MATCH_END = pb.MatchEnd.DESCRIPTOR.fields_by_name
_FINAL_VIEW_TAG = _tag(_MATCH_END["final_view"], 2)
_ARBITER_MATCH_END_TAG = _tag(pb.ArbiterMessage.DESCRIPTOR.fields_by_name["match_end"], 2)
_END_TAGS = tuple(_tag(_MATCH_END[name], 0 if name == "seat" else 2) for name in ("match_id", "seat", "outcome", "events"))
_END_EVENT_WIRE: dict[Any, Any] = {}  # _spliced's cache, for MatchEnd.events
#: id(outcome) -> (outcome, its MatchEnd.outcome field's bytes): the seats of a match are
#: told the same Outcome object, so it is encoded once a match, not once a seat.
_OUTCOME_WIRE: dict[int, tuple[Outcome, bytes]] = {}


def _outcome_wire(outcome: Outcome) -> bytes:
    hit = _OUTCOME_WIRE.get(id(outcome))
    if hit is None or hit[0] is not outcome:
        hit = (outcome, _length_delimited(_END_TAGS[2], outcome_to_proto(outcome).SerializeToString()))
        _keep(_OUTCOME_WIRE, id(outcome), hit, MEMO_SIZE)  # the entry holds the outcome: its id stays unique
    return hit[1]


def match_end_wire(game: str, match_id: str, seat: int, outcome: Outcome, events: Sequence[Event] = (),
                   final_view: Any = None) -> bytes:
    """The serialized ArbiterMessage carrying a MatchEnd, made as bytes (as ``turn_wire``):
    the match id, the seat, the outcome (encoded once per Outcome object), the final view
    by the compiled wire encoder (the largest part: every hand of the deal in an open
    match), the events from their cache (as a Turn's: ``events_wire``). No message is
    built, copied or serialized again. ``events`` must already be filtered for ``seat``."""
    body = b"".join((
        _length_delimited(_END_TAGS[0], match_id.encode()) if match_id else b"",
        (_END_TAGS[1] + _varint_any(seat)) if seat else b"",
        _outcome_wire(outcome),
        _length_delimited(_FINAL_VIEW_TAG, _view_wire_codec(game)(final_view)) if final_view is not None else b"",
        _spliced(events, _END_EVENT_WIRE, _END_TAGS[3], lambda event: event_to_proto(event).SerializeToString())
        if events else b"",
    ))
    return _length_delimited(_ARBITER_MATCH_END_TAG, body)


_MATCH_START = pb.MatchStart.DESCRIPTOR.fields_by_name
_START_TAGS = tuple(_tag(_MATCH_START[name], 0 if name in ("seat", "bot_seed") else 2)
                    for name in ("match_id", "seat", "bot_seed", "seat_token"))
_ARBITER_MATCH_START_TAG = _tag(pb.ArbiterMessage.DESCRIPTOR.fields_by_name["match_start"], 2)
#: (game, options, seats, clock) -> the bytes of the MatchStart fields every seat of a match
#: is told alike: encoded once, not once a seat (and again for every match of a batch).
_START_SHARED: dict[tuple, tuple[bytes, bytes]] = {}


def _start_shared(info: Any) -> tuple[bytes, bytes]:
    """The fields of ``info``'s MatchStart that are the same for each seat of its match, as
    the bytes of the two runs of them between the seat's own fields (game and options;
    seats and clock), kept per their values."""
    try:
        key: tuple | None = (info.game, tuple([(k, type(v), v) for k, v in info.options.items()]), info.num_seats,
                             info.teams, info.seat_names, info.decision_ms, info.bank_ms)
        wire = _START_SHARED.get(key)  # type: ignore[arg-type]
    except TypeError:  # an option's value that is not hashable (a list): encoded each time
        key = wire = None
    if wire is None:
        game = pb.MatchStart(game=info.game)
        game.options.update(options_to_wire(info.options))
        seats = pb.MatchStart(num_seats=info.num_seats, seat_names=info.seat_names)
        for t in info.teams:
            seats.teams.add().seats.extend(t)
        seats.clock.decision_ms, seats.clock.bank_ms = info.decision_ms, info.bank_ms
        wire = (game.SerializeToString(), seats.SerializeToString())
        if key is not None:
            _keep(_START_SHARED, key, wire, MEMO_SIZE)
    return wire


def match_start_wire(info: Any, seat_token: str) -> bytes:
    """The serialized ArbiterMessage carrying ``info``'s MatchStart (a ``MatchInfo``) with
    ``seat_token``, made as bytes (exactly the message's serialization): the fields every
    seat of the match is told alike encoded once (``_start_shared``), the seat's own
    (match, seat, seed, token) in their places between them."""
    match_id = info.match_id
    game, seats = _start_shared(info)
    body = b"".join((
        _length_delimited(_START_TAGS[0], match_id.encode()) if match_id else b"",
        game,
        (_START_TAGS[1] + _varint_any(info.seat)) if info.seat else b"",
        seats,
        (_START_TAGS[2] + _varint_any(info.seed)) if info.seed else b"",
        _length_delimited(_START_TAGS[3], seat_token.encode()) if seat_token else b"",
    ))
    return _length_delimited(_ARBITER_MATCH_START_TAG, body)


_ACT = pb.Act.DESCRIPTOR.fields_by_name
_ACT_TAGS = tuple(_tag(_ACT[name], 0 if name in ("request_id", "think_us") else 2)
                  for name in ("match_id", "request_id", "action", "seat_token", "think_us"))
_BOT_ACT_TAG = _tag(pb.BotMessage.DESCRIPTOR.fields_by_name["act"], 2)
#: (match id, seat token) -> the bytes of an Act's match_id field and of its seat_token
#: field: a seat sends the same two with every answer of its match.
_ACT_IDS: dict[tuple[str, str], tuple[bytes, bytes]] = {}
#: game -> id(action) -> (action, the bytes of an Act's action field): the engines' (and
#: the SDK's decoded) actions are interned, so an answer's field is found by identity.
_ACT_ACTIONS: dict[str, dict[int, tuple[Any, bytes]]] = {}


def act_wire(game: str, match_id: str, request_id: int, action: Any, seat_token: str = "", think_us: int = 0) -> bytes:
    """The serialized BotMessage carrying the Act that answers ``request_id`` with
    ``action``, made as bytes (exactly the serialization of the message
    ``sdk.convert.act_to_proto`` builds, with ``think_us`` set): the action's bytes as
    ``action_wire`` keeps them (a Turn's legal action as it came), the match's and the
    seat's ids kept per match. The bot's every answer, so no message is built for it."""
    ids = _ACT_IDS.get((match_id, seat_token))
    if ids is None:
        ids = (_length_delimited(_ACT_TAGS[0], match_id.encode()) if match_id else b"",
               _length_delimited(_ACT_TAGS[3], seat_token.encode()) if seat_token else b"")
        _keep(_ACT_IDS, (match_id, seat_token), ids, MEMO_SIZE)
    actions = _ACT_ACTIONS.get(game)
    if actions is None:
        actions = _ACT_ACTIONS[game] = {}
    hit = actions.get(id(action))
    if hit is None or hit[0] is not action:
        hit = (action, _length_delimited(_ACT_TAGS[2], action_wire(game, action)))
        _keep(actions, id(action), hit, ACTION_CACHE_SIZE)
    body = b"".join((
        ids[0],
        (_ACT_TAGS[1] + (_VARINT_TABLE[request_id] if 0 < request_id < 16384 else _varint(request_id))) if request_id else b"",
        hit[1],
        ids[1],
        (_ACT_TAGS[4] + (_VARINT_TABLE[think_us] if 0 < think_us < 16384 else _varint(think_us))) if think_us else b"",
    ))
    return _length_delimited(_BOT_ACT_TAG, body)


def turn_to_proto(game: str, match_id: str, request_id: int, seat: int, view: Any, legal_actions: Sequence[Any],
                  decision_ms: int, bank_ms: int, events: Sequence[Event] = ()) -> pb.ArbiterMessage:
    """The ArbiterMessage carrying a Turn (``turn_wire``, parsed). ``events`` must already
    be filtered for ``seat`` (``events_for``): they are sent as given."""
    return pb.ArbiterMessage.FromString(turn_wire(game, match_id, request_id, seat, view, legal_actions,
                                                  decision_ms, bank_ms, events))


_LAZY_BY_GAME: dict[str, tuple[str, Any]] = {}


# --------------------------------------------------------------------------------------
# View deltas (arena.proto, ViewDelta): a seat's view kept on both sides as its top-level
# fields' encoded bytes, and a Turn carrying only the fields that changed. Game-agnostic:
# the fields are those of the game's view message, their bytes what the compiled wire
# encoder writes. The writer sees nothing but the seat's own view (the one Turn.view would
# carry), so a delta holds nothing the whole view would not (tests/cardarena/wire/test_view_delta.py).

#: The revision of view deltas this codec speaks (Hello.view_deltas, Welcome.view_deltas).
VIEW_DELTAS = 1

_DELTA_TAG = _tag(_TURN["view_delta"], 2)


@functools.lru_cache(maxsize=None)
def _view_field_encoders(game: str) -> tuple[tuple[str, int, bool, Callable[[Any], bytes]], ...] | None:
    """(name, field number, appendable, encode) of every top-level field of the game's view
    message, in increasing field number: ``encode(value)`` is the field's bytes as the whole
    view's encoder writes them. Appendable: a repeated field written item by item (cards,
    strings, messages: not packed), whose new items can be sent alone. None if the view
    class is one the compiler leaves to the reference codec (its Turns carry whole views)."""
    gf = game_field(game)
    descriptor = pb.View.DESCRIPTOR.fields_by_name[gf].message_type
    cls = game_class(game).view_type
    _, t_string, _, t_message, _ = _wire_kinds()
    out = []
    try:
        for i, entry in enumerate(_field_plan(cls, descriptor)):
            name, field, _, _, repeated, kind = entry
            env = _wire_env()
            lines = ["def f(x):", "    o = []", "    a = o.append", *_wire_field_lines(i, *entry, env), "    return b''.join(o)"]
            exec(compile("\n".join(lines) + "\n", f"<wire field {cls.__name__}.{name}>", "exec"), env)
            appendable = repeated and (kind == "card" or field.type in (t_string, t_message))
            out.append((name, field.number, appendable, env["f"]))
    except _Unsupported:
        return None
    return tuple(sorted(out, key=lambda e: e[1]))


@functools.lru_cache(maxsize=None)
def _delta_function(game: str) -> Callable[..., None] | None:
    """``delta(view, values, parts, numbers, data, appended)``, compiled for the game's view
    class: a structural diff of the view's encoded fields. A field whose value is the very
    object the last view had is unchanged; any other is encoded (engines reuse the items
    of growing lists, whose bytes are kept per item) and its bytes compared with the last
    ones: equal, unchanged; the old bytes followed by more (a repeated field that grew at
    its end: a finished trick, a card played to the trick), only the new items are sent;
    else the field's bytes. Updates ``values`` and ``parts`` and lists what changed in
    ``numbers``, ``data`` and ``appended``."""
    fields = _view_field_encoders(game)
    if fields is None:
        return None
    gf = game_field(game)
    descriptor = pb.View.DESCRIPTOR.fields_by_name[gf].message_type
    plan = {entry[1].number: (i, entry) for i, entry in enumerate(_field_plan(game_class(game).view_type, descriptor))}
    env = _wire_env()
    lines = ["def delta(v, o, p, nums, datas, apps):"]
    for i, (name, number, appendable, enc) in enumerate(fields):
        j, entry = plan[number]  # the field's encoding, written inline (no call per field)
        block = ["    " + line for line in _wire_field_lines(j, *entry, env)]
        lines += [f"    x = v.{name}", f"    if x is not o[{i}]:", f"        o[{i}] = x", "        c = []; a = c.append",
                  *block, "        b = b''.join(c)",
                  f"        y = p[{i}]", "        if b != y:", f"            p[{i}] = b; nums.append({number})"]
        if appendable:
            lines += ["            if y and len(b) > len(y) and b.startswith(y):",
                      f"                datas.append(b[len(y):]); apps.append({number})",
                      "            else:", "                datas.append(b)"]
        else:
            lines.append("            datas.append(b)")
    lines.append("    return None")
    exec(compile("\n".join(lines) + "\n", f"<view delta {game}>", "exec"), env)
    return env["delta"]


def _packed(tag: bytes, numbers: list[int]) -> bytes:
    """A packed repeated varint field of small numbers (field numbers)."""
    body = bytes(numbers) if max(numbers) < 128 else b"".join([_varint(n) for n in numbers])
    return tag + _VARINT_TABLE[len(body)] + body


class ViewDeltaWriter:
    """The arbiter's side of one seat's view deltas: what it last sent the seat (each
    field's value and bytes) and the view's number. ``delta(view)`` is the next Turn's
    ``view_delta`` field; ``reset()`` makes the next one a whole view (base 0)."""

    __slots__ = ("fields", "function", "seq", "values", "parts")

    def __init__(self, game: str):
        self.fields = _view_field_encoders(game)
        self.function = _delta_function(game)
        self.seq = 0
        self.values: list[Any] | None = None
        self.parts: list[bytes] = []

    def reset(self) -> None:
        self.values = None

    def delta(self, view: Any) -> bytes | None:
        """The serialized ``Turn.view_delta`` (its tag included) taking the seat from the view
        it was last given to ``view``; None if this game's views go whole (Turn.view)."""
        fields = self.fields
        if fields is None:
            return None
        base = self.seq if self.values is not None else 0
        seq = self.seq = self.seq + 1
        numbers: list[int] = []
        data: list[bytes] = []
        appended: list[int] = []
        if not base:
            self.values = [getattr(view, f[0]) for f in fields]
            parts = self.parts = [f[3](x) for f, x in zip(fields, self.values)]
            for f, b in zip(fields, parts):
                if b:
                    numbers.append(f[1])
                    data.append(b)
        else:
            parts = self.parts
            self.function(view, self.values, parts, numbers, data, appended)
        vt = _VARINT_TABLE
        out = [b"\x08", vt[seq] if seq < 16384 else _varint(seq)]
        if base:
            out += (b"\x10", vt[base] if base < 16384 else _varint(base))
        if numbers:
            out.append(_packed(b"\x1a", numbers))
            for b in data:
                n = len(b)
                out += (b"\x22", vt[n] if n < 16384 else _varint(n), b)
            if appended:
                out.append(_packed(b"\x2a", appended))
        out += (b"\x35", _CRC(_crc32(b"".join(parts))))
        body = b"".join(out)
        n = len(body)
        return _DELTA_TAG + (vt[n] if n < 16384 else _varint(n)) + body


_CRC = __import__("struct").Struct("<I").pack
_crc32 = __import__("zlib").crc32


class ViewDeltaReader:
    """The bot's side of one seat's view deltas: the fields' bytes of the last view it
    applied (a slot per field of the game's view message, in increasing field number) and
    that view (lazy, as ``lazy_view_from_proto``'s: a field is decoded from its own bytes
    when first read, and one the previous view had decoded is carried over while its
    bytes stay the same). ``apply(delta)`` is the new view, or None when the delta does
    not apply (its base is not the view held, or the rebuilt view's digest differs): the
    bot then answers Act.resync, and holds no view until a whole one comes."""

    __slots__ = ("game", "seq", "slots", "numbers", "view", "lazy", "slot_of")

    def __init__(self, game: str):
        self.game = game
        self.seq = 0
        gf, self.lazy = _lazy_for(game)
        descriptor = pb.View.DESCRIPTOR.fields_by_name[gf].message_type
        self.numbers = _field_numbers(descriptor)  # name -> number
        ordered = sorted(self.numbers.values())
        self.slot_of = {n: i for i, n in enumerate(ordered)}
        self.slots: list[bytes] = [b""] * len(ordered)
        self.view: Any = None

    def _widen(self, numbers: Any) -> list[bytes]:
        """Slots for field numbers the game's view message does not know too (kept in their
        place in field-number order: the view's bytes, and so the digest, are the arbiter's;
        protobuf keeps such a field as unknown when it parses the view)."""
        held = dict(zip(sorted(self.slot_of, key=self.slot_of.get), self.slots))
        ordered = sorted(set(held) | set(numbers))
        self.slot_of = {n: i for i, n in enumerate(ordered)}
        self.slots = [held.get(n, b"") for n in ordered]
        return self.slots

    @property
    def parts(self) -> dict[int, bytes]:
        """The bytes held, by field number (a field at its default holds none)."""
        ordered = sorted(self.slot_of, key=self.slot_of.get)
        return {n: b for n, b in zip(ordered, self.slots) if b}

    def apply(self, delta: pb.ViewDelta) -> Any | None:
        base = delta.base
        slots = self.slots
        previous = self.view
        if base:
            if base != self.seq or previous is None:
                self.view = None
                return None
        else:
            slots = self.slots = [b""] * len(slots)
        self.view = None  # until this delta is known to apply (the slots are changed in place)
        numbers, data = delta.numbers, delta.data
        if len(numbers) != len(data):
            return None
        slot_of = self.slot_of
        if not slot_of.keys() >= set(numbers):  # a field this SDK's view message lacks (a newer arbiter's)
            slots = self._widen(numbers)
            slot_of = self.slot_of
        appended = delta.appended
        if appended:
            more = set(appended)
            for n, b in zip(numbers, data):
                i = slot_of[n]
                slots[i] = slots[i] + b if n in more else b
        else:
            for n, b in zip(numbers, data):
                slots[slot_of[n]] = b
        whole = b"".join(slots)
        if _crc32(whole) != delta.digest:
            return None
        lazy = self.lazy
        if lazy is None:  # a view class the compiled decoder does not handle: decoded whole
            view = lazy_view_from_bytes(self.game, whole)
        else:
            view = object.__new__(lazy)
            own = view.__dict__
            own[_LAZY_WHOLE] = whole
            if base and len(previous.__dict__) > 1:  # it decoded some fields: keep the unchanged
                changed = set(numbers)
                index = self.numbers
                for name, value in previous.__dict__.items():
                    number = index.get(name)
                    if number is not None and number not in changed:
                        own[name] = value
        self.seq, self.view = delta.seq, view
        return view


def lazy_view_from_bytes(game: str, data: bytes) -> Any:
    """The lazy view (``lazy_view_from_proto``) of the game's view message serialized as
    ``data``; WireError if it does not parse."""
    gf, _ = _lazy_for(game)
    descriptor = pb.View.DESCRIPTOR.fields_by_name[gf].message_type
    try:
        inner = message_factory.GetMessageClass(descriptor).FromString(data)
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError
        raise WireError(f"view: {exc}") from None
    return lazy_view_from_proto(game, pb.View(**{gf: inner}))


@functools.lru_cache(maxsize=None)
def _field_numbers(descriptor: Any) -> dict[str, int]:
    return {f.name: f.number for f in descriptor.fields}


@functools.lru_cache(maxsize=None)
def _parser(game: str) -> Any:
    """A default-configured engine of ``game``, for its notation (which no option changes)."""
    return game_class(game)()


def action_from_proto(game: str, msg: pb.Action) -> Any:
    """Decode a bot's action; WireError (never anything else) if it is malformed.

    Decoding is a pure function of the message's bytes, so an action decoded before (an
    answer, or one of a Turn's legal actions: ``legal_actions_from_proto``) is the one kept
    for them, found by serializing the message (much quicker than decoding it). In the
    arbiter an answer is kept as the very object its engine offered in a Turn (the legal
    actions' cache, ``_spliced``: equal to what the bytes decode to), so the runner's
    legality check of the next answer with these bytes is an identity test."""
    key = msg.SerializeToString()
    known = _ACTION_OF_WIRE.get(game)
    if known is not None:
        action = known.get(key)
        if action is not None:
            return action
    action = _action_decoded(game, msg)
    offered = _ACTION_WIRE.get(game)
    seen = offered.get((action,)) if offered is not None else None
    if seen is not None:  # an action of a Turn this process wrote: kept as the engine's object
        action = seen[0]
        _keep(_ACTION_OF_WIRE.setdefault(game, {}), key, action, ACTION_CACHE_SIZE)
    return action


def _action_decoded(game: str, msg: pb.Action) -> Any:
    """``action_from_proto``, decoded."""
    which = msg.WhichOneof("game")
    if which is None:
        if msg.notation:  # an answer in notation alone: the engine parses it
            try:
                return _parser(game).parse_action(msg.notation)
            except GameError as exc:
                raise WireError(str(exc)) from None
        raise WireError("action is empty: set the field of the match's game (or its notation)")
    if which != game_field(game):
        raise WireError(f"action is for game {which!r}, but this match plays {game!r}")
    union = getattr(msg, which)
    verb = union.WhichOneof("action")
    if verb is None:
        raise WireError(f"{which} action has no verb set")
    cls, dec = _action_decoders(game)[verb]
    inner = getattr(union, verb)
    try:
        return dec(inner)
    except Exception:  # noqa: BLE001
        return from_message(inner, cls, f"action.{verb}")


# --------------------------------------------------------------------------------------
# Events, outcomes, options.


def event_fields(event: Event) -> dict[str, Any]:
    """The Event message as constructor fields. ``visible_to`` is never sent: the arbiter
    filters events per seat (events_for) before they are put on the wire."""
    return {"kind": event.kind, "seat": event.seat, "text": event.text, "cards": [_CARD_STR[c] for c in event.cards]}


def event_to_proto(event: Event) -> pb.Event:
    return pb.Event(**event_fields(event))


def events_from_proto(msgs: Sequence[pb.Event]) -> list[Event]:
    """Decode events, each as event_from_proto does (WireError alike), found by their
    serialized form where seen before (bounded cache): an Event is an immutable value and
    most recur (a seat's play of a card, a trick won, a bid), as the engines intern them,
    and serializing one is much quicker than decoding it (legal_actions_from_proto)."""
    keys = list(map(_SERIALIZE_EVENT, msgs))
    out = list(map(_EVENT_OF_WIRE.get, keys))
    if all(out):  # every one seen before (an Event is a true value)
        return out
    for i, event in enumerate(out):
        if event is None:
            event = out[i] = event_from_proto(msgs[i])
            _keep(_EVENT_OF_WIRE, keys[i], event, ACTION_CACHE_SIZE)
    return out


def events_from_frame(frame: bytes, count: int) -> list[Event] | None:
    """The events of the Turn in ``frame`` (the serialized ArbiterMessage), found by their
    bytes as ``events_from_proto`` finds them (``legal_actions_from_frame``'s way); None,
    for the caller to decode the message's, unless all ``count`` of them were seen before."""
    return _turn_items_from_frame(frame, _EVENTS_NUMBER, _EVENT_OF_WIRE, count)


_EVENTS_NUMBER = pb.Turn.DESCRIPTOR.fields_by_name["events"].number
_SERIALIZE_EVENT = pb.Event.SerializeToString
#: serialized Event message -> the Event it decodes to (events_from_proto).
_EVENT_OF_WIRE: dict[bytes, Event] = {}


def event_from_proto(msg: pb.Event) -> Event:
    try:
        cards = tuple([_CARD_OF[c] for c in msg.cards])
    except KeyError:
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


#: How ``Matches.RunMatch``'s summary words an incident (``MatchSummary.incidents``).
_INCIDENT = re.compile(r"seat (\d+): (\w+): (.*)", re.DOTALL)


def incident_text(incident: Any) -> str:
    """An incident (``cardarena.records.Incident``) as a match summary words it: "seat N: KIND: DETAIL"
    (its stderr is the record's, not the summary's)."""
    return f"seat {incident.seat}: {incident.kind}: {incident.detail}"


def incident_from_text(text: str) -> tuple[int, str, str]:
    """(seat, kind, detail) of a summary's incident (``incident_text``); WireError if it is not one."""
    m = _INCIDENT.fullmatch(text)
    if m is None:
        raise WireError(f"incident: expected 'seat N: KIND: DETAIL', got {text[:200]!r}")
    return int(m.group(1)), m.group(2), m.group(3)


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
