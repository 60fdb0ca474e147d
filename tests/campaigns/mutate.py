"""Hostile bot messages for the fuzz campaign, built from the generated stubs.

Three layers, all seeded by the caller's ``random.Random``:

* ``Mutator.field``: structure-aware mutation of any message by reflection over its
  descriptor (cardarena.v1.arena_pb2): a field anywhere in the tree set to an extreme or
  garbage value of its type, a oneof switched, a repeated field emptied, padded or
  flooded, an enum given an undeclared number.
* ``Mutator.wire``: byte-level damage of a serialized message: bit flips, cuts,
  insertions, repeats, truncation, unknown fields, wrong wire types, lengths that run
  past the end, over-long varints, invalid UTF-8, deep group nesting, two messages glued.
* ``Mutator.giant``: messages whose fields are huge (under and over the arbiter's 64 KiB
  limit), or with thousands of repeated entries.

``hello_variants`` and ``act_variants`` give the protocol-level lies around a real Hello
or a real Act answering a real Turn: wrong, stale, future, duplicated and extreme request
ids, other seats' and forged seat tokens, other matches, other games' actions.
"""

from __future__ import annotations

import random
from typing import Callable

from google.protobuf import descriptor as _d
from google.protobuf.message import Message

from cardarena.v1 import arena_pb2 as pb

FD = _d.FieldDescriptor
MAX_MESSAGE = 64 * 1024  # the arbiter's limit (arbiter.server.botstream.MAX_BOT_MESSAGE_BYTES)

_INTS = {
    FD.TYPE_INT32: (-(2**31), 2**31 - 1), FD.TYPE_SINT32: (-(2**31), 2**31 - 1), FD.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FD.TYPE_INT64: (-(2**63), 2**63 - 1), FD.TYPE_SINT64: (-(2**63), 2**63 - 1), FD.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FD.TYPE_UINT32: (0, 2**32 - 1), FD.TYPE_FIXED32: (0, 2**32 - 1),
    FD.TYPE_UINT64: (0, 2**64 - 1), FD.TYPE_FIXED64: (0, 2**64 - 1),
}
_WORDS = ["", " ", "QS", "10H", "JK", "1S", "ZZ", "AS AS", "2C 3D", "bid 4", "bid 14", "bid -1", "bid nil",
          "bid blind_nil", "play QS", "play", "look", "give 2C", "give 2C 2C", "draw stock", "pass", "discard 0",
          "spades", "spot", "spite-and-malice", "\u00e9", "\u0663", "\U0001d7d9", "\x00", "\u202e", "a" * 65,
          "%s%s%n", "'; DROP TABLE matches; --", "../../etc/passwd", "${jndi:x}", "\n\r\t"]


class Mutator:
    def __init__(self, rng: random.Random):
        self.rng = rng

    # -- values ---------------------------------------------------------------------------

    def string(self) -> str:
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(_WORDS)
        if r < 0.8:
            return "".join(chr(self.rng.choice((self.rng.randrange(32, 127), self.rng.randrange(0x80, 0x3000))))
                           for _ in range(self.rng.randrange(0, 24)))
        if r < 0.95:
            return self.rng.choice("ab7.-_@+") * self.rng.randrange(30, 300)
        return "x" * self.rng.randrange(1000, 20000)

    def integer(self, ftype: int) -> int:
        lo, hi = _INTS.get(ftype, (0, 2**32 - 1))
        return self.rng.choice((lo, hi, 0, 1, -1 if lo < 0 else 2, self.rng.randint(lo, hi), self.rng.randint(-3, 60)
                                if lo < 0 else self.rng.randint(0, 60)))

    def _value(self, f: FD):
        if f.type in _INTS:
            return self.integer(f.type)
        if f.type == FD.TYPE_BOOL:
            return self.rng.random() < 0.5
        if f.type == FD.TYPE_STRING:
            return self.string()
        if f.type == FD.TYPE_BYTES:
            return self.rng.randbytes(self.rng.randrange(0, 64))
        if f.type == FD.TYPE_ENUM:
            values = [v.number for v in f.enum_type.values]
            return self.rng.choice(values + [self.rng.randint(-5, 1000), 2**31 - 1])
        if f.type in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
            return self.rng.choice((0.0, -1.0, 1e308, float("nan"), float("inf")))
        raise TypeError(f.type)

    # -- structure-aware --------------------------------------------------------------------

    def field(self, msg: Message, depth: int = 0) -> Message:
        """Mutate ``msg`` in place at one random place in its tree; returns it."""
        fields = list(msg.DESCRIPTOR.fields)
        if not fields:
            return msg
        f = self.rng.choice(fields)
        repeated = f.is_repeated
        if f.type == FD.TYPE_MESSAGE:
            if f.message_type.GetOptions().map_entry:
                return msg
            if repeated:
                items = getattr(msg, f.name)
                r = self.rng.random()
                if r < 0.3 or not len(items):
                    for _ in range(self.rng.randrange(1, 4)):
                        self.field(items.add(), depth + 1)
                elif r < 0.6:
                    del items[:]
                else:
                    self.field(self.rng.choice(items), depth + 1)
                return msg
            sub = getattr(msg, f.name)
            if self.rng.random() < 0.2 and msg.HasField(f.name):
                msg.ClearField(f.name)
            elif depth < 6:
                sub.SetInParent()
                self.field(sub, depth + 1)
            return msg
        if repeated:
            items = getattr(msg, f.name)
            r = self.rng.random()
            if r < 0.4:
                items.append(self._value(f))
            elif r < 0.6:
                del items[:]
            elif r < 0.8 and len(items):
                items[self.rng.randrange(len(items))] = self._value(f)
            else:
                items.extend(self._value(f) for _ in range(self.rng.randrange(2, 40)))
            return msg
        try:
            setattr(msg, f.name, self._value(f))
        except (ValueError, TypeError):  # e.g. NaN into an int: the stubs refuse, keep the message
            pass
        return msg

    def fields(self, msg: Message, n: int | None = None) -> Message:
        for _ in range(n or self.rng.randrange(1, 4)):
            self.field(msg)
        return msg

    # -- bytes ------------------------------------------------------------------------------

    def wire(self, data: bytes) -> bytes:
        """``data`` damaged 1 to 6 times at the byte level."""
        b = bytearray(data)
        for _ in range(self.rng.randrange(1, 7)):
            op = self.rng.randrange(12)
            i = self.rng.randrange(0, max(1, len(b)))
            if op == 0 and b:
                b[i] ^= 1 << self.rng.randrange(8)
            elif op == 1 and b:
                b[i] = self.rng.randrange(256)
            elif op == 2:
                del b[i:i + self.rng.randrange(1, 9)]
            elif op == 3:
                b[i:i] = self.rng.randbytes(self.rng.randrange(1, 9))
            elif op == 4:
                b += b[i:]
            elif op == 5:
                del b[i:]  # truncation
            elif op == 6:  # an unknown field, any wire type
                tag = (self.rng.choice((16, 99, 536870911, self.rng.randrange(1, 2000))) << 3) | self.rng.choice((0, 1, 2, 5))
                b += _varint(tag) + (_varint(self.rng.randrange(2**32)) if tag & 7 == 0 else
                                     self.rng.randbytes(8) if tag & 7 == 1 else self.rng.randbytes(4) if tag & 7 == 5 else
                                     _lp(self.rng.randbytes(self.rng.randrange(0, 40))))
            elif op == 7:  # a known field number with the wrong wire type
                b[i:i] = _varint((self.rng.choice((1, 2, 3, 4, 5)) << 3) | self.rng.choice((0, 1, 5))) + b"\x05"
            elif op == 8:  # a length that runs past the end
                b[i:i] = _varint((self.rng.choice((1, 2, 3)) << 3) | 2) + _varint(self.rng.choice((len(b) + 5, 2**31, 2**63)))
            elif op == 9:  # an over-long varint
                b[i:i] = b"\x10" + b"\xff" * self.rng.randrange(9, 14) + b"\x01"
            elif op == 10:  # invalid UTF-8 inside a string field
                b[i:i] = _varint((self.rng.choice((1, 2, 3)) << 3) | 2) + _lp(b"\xff\xfe\xc0\x80" + self.rng.randbytes(3))
            else:  # groups nested deeper than protobuf's recursion limit
                depth = self.rng.choice((50, 101, 200, 2000))
                b += _varint((99 << 3) | 3) * depth
        return bytes(b)

    def random_bytes(self) -> bytes:
        r = self.rng.random()
        n = self.rng.randrange(0, 64) if r < 0.6 else self.rng.randrange(64, 2048) if r < 0.95 else \
            self.rng.randrange(2048, MAX_MESSAGE + 4096)
        return self.rng.randbytes(n)

    def giant(self, base: pb.BotMessage) -> bytes:
        """``base`` with a huge field: sometimes just under the arbiter's limit, sometimes over."""
        msg = pb.BotMessage()
        msg.CopyFrom(base)
        size = self.rng.choice((MAX_MESSAGE - 200, MAX_MESSAGE - 10, MAX_MESSAGE + 1, MAX_MESSAGE * 2, 1 << 20, 30_000))
        which = msg.WhichOneof("msg")
        if which == "hello":
            r = self.rng.randrange(4)
            if r == 0:
                msg.hello.bot_name = "n" * size
            elif r == 1:
                msg.hello.token = "t" * size
            elif r == 2:
                msg.hello.games.extend(["spades"] * (size // 8))
            else:
                msg.hello.bot_version = "1" * size
        else:
            r = self.rng.randrange(4)
            if r == 0:
                msg.act.match_id = "m" * size
            elif r == 1:
                msg.act.action.notation = "play QS " * (size // 8)
            elif r == 2:
                msg.act.seat_token = "s" * size
            else:
                msg.act.action.spades.give.cards.extend(["QS"] * (size // 4))
        return msg.SerializeToString()

    def any_bytes(self, real: pb.BotMessage, pick: Callable[[], pb.BotMessage] | None = None) -> tuple[str, bytes]:
        """One hostile message derived from ``real``: (kind, bytes)."""
        r = self.rng.random()
        if r < 0.35:
            m = pb.BotMessage()
            m.CopyFrom(real)
            return "field", self.fields(m).SerializeToString()
        if r < 0.65:
            return "wire", self.wire(real.SerializeToString())
        if r < 0.75:
            return "random", self.random_bytes()
        if r < 0.8:
            return "giant", self.giant(real)
        if r < 0.9 and pick is not None:  # two messages glued: protobuf merges them, the last oneof wins
            return "glued", real.SerializeToString() + pick().SerializeToString()
        data = real.SerializeToString()
        return "truncated", data[: self.rng.randrange(0, max(1, len(data)))]


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _lp(data: bytes) -> bytes:
    return _varint(len(data)) + data


# -- protocol-level lies ----------------------------------------------------------------------


def hello(name: str, token: str, games=("spades", "spot", "spite-and-malice"), version: str = "fuzz") -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version=version, token=token, games=list(games),
                                        protocol_version=1))


def hello_variant(rng: random.Random, name: str, token: str, other_token: str) -> tuple[str, pb.BotMessage, bool]:
    """A Hello that must be refused: (what it tries, the message, whether it is well formed
    but does not authenticate: the arbiter answers those in turn, auth.GUESSES)."""
    m = hello(name, token)
    h = m.hello
    r = rng.randrange(11)
    if r == 0:
        h.protocol_version = rng.choice((0, 2, 2**32 - 1))
        return "version", m, False
    if r == 1:
        h.bot_name = rng.choice(("", "a" * 65, "bad name", "x/y", "\u00e9t\u00e9", "a@", "@1", "a@b@c", "..", "-"))
        return "name", m, False
    if r == 2:
        h.bot_version = rng.choice(("1 0", "v" * 33, "\x00", "1/2", "\u00e9"))
        return "version-text", m, False
    if r == 3:
        del h.games[:]
        h.games.extend(rng.choice((["chess"] * 17, ["spades"] * 17, ["", "spades"], ["no such game!"])))
        return "games", m, False
    if r == 4:
        h.token = rng.choice(("", "x" * 32, token[:-1] + ("A" if token[-1] != "A" else "B"), token + "x", token[1:]))
        return "token", m, True
    if r == 5:  # another bot's (valid) token under this name: an identity theft
        h.token = other_token
        return "stolen-token", m, True
    if r == 6:
        h.token = token.upper() if token.upper() != token else token.lower()
        return "token-case", m, True
    if r == 7:
        h.bot_name = name + "@9.9"
        return "name-version", m, True
    if r == 8:
        return "act-first", pb.BotMessage(act=pb.Act(match_id="m", request_id=1, seat_token="t")), False
    if r == 9:
        return "empty", pb.BotMessage(), False
    h.token = ""
    return "no-token", m, True


def act_lies(rng: random.Random, turn: pb.Turn, seat_token: str, legal: pb.Action, corpus: list[pb.Action],
             other_match: str, stale_rid: int) -> list[tuple[str, pb.BotMessage]]:
    """Protocol lies about one real Turn, none of which is a valid answer to it, except
    ``duplicate`` (the real answer sent a second time, after the first)."""
    rid = turn.request_id

    def a(**kw) -> pb.BotMessage:
        fields = dict(match_id=turn.match_id, request_id=rid, seat_token=seat_token, action=legal)
        fields.update(kw)
        return pb.BotMessage(act=pb.Act(**fields))

    tok_flip = seat_token[:-1] + ("A" if seat_token[-1:] != "A" else "B") if seat_token else "x"
    choices = [
        ("rid-future", lambda: a(request_id=rid + rng.randrange(1, 5))),
        ("rid-stale", lambda: a(request_id=stale_rid)),
        ("rid-zero", lambda: a(request_id=0)),
        ("rid-max", lambda: a(request_id=2**64 - 1)),
        ("rid-random", lambda: a(request_id=rng.randrange(2**64))),
        ("seat-token-empty", lambda: a(seat_token="")),
        ("seat-token-forged", lambda: a(seat_token=tok_flip)),
        ("seat-token-long", lambda: a(seat_token=seat_token * 50)),
        ("other-match", lambda: a(match_id=other_match)),
        ("match-empty", lambda: a(match_id="")),
        ("match-unicode", lambda: a(match_id=turn.match_id + "\u202e")),
    ]
    out = [rng.choice(choices) for _ in range(rng.randrange(1, 4))]
    return [(k, f()) for k, f in out]


def wrong_action(rng: random.Random, turn: pb.Turn, corpus: list[pb.Action], mut: Mutator) -> tuple[str, pb.Action]:
    """An action for this Turn that is not legal, not of its game, or not decodable."""
    legal = list(turn.legal_actions)
    r = rng.randrange(7)
    act = pb.Action()
    if r == 0 and corpus:  # an action of some other position, maybe of another game
        act.CopyFrom(rng.choice(corpus))
        return "foreign", act
    if r == 1:
        act.notation = mut.string()
        return "notation", act
    if r == 2:
        return "empty", act
    if r == 3 and legal:
        act.CopyFrom(rng.choice(legal))
        act.ClearField("notation")
        mut.fields(act)
        return "typed-field", act
    if r == 4 and legal:
        act.CopyFrom(rng.choice(legal))
        which = act.WhichOneof("game")
        other = rng.choice([g for g in ("spades", "spite_and_malice", "spot") if g != which])
        getattr(act, other).SetInParent()
        return "other-game", act
    if r == 5 and legal:  # a legal action's notation with its typed field cleared
        act.notation = rng.choice(legal).notation + rng.choice((" ", "  x", "S", ""))
        return "notation-near", act
    act.CopyFrom(rng.choice(legal)) if legal else None
    inner = act.WhichOneof("game")
    if inner:
        getattr(act, inner).Clear()  # a game field with no verb
    return "no-verb", act
