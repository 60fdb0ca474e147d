"""View deltas (arena.proto ViewDelta): what a Turn carries when a bot asks for them.

The arbiter's ViewDeltaWriter and the SDK's ViewDeltaReader, with no transport between
them: the reader rebuilds every seat's view exactly, a delta carries nothing the seat's
whole view would not (each field it sends is the whole view's own bytes for that field,
or their end), a reader that misses or spoils a delta refuses it (then the arbiter sends
the whole view), and a field the bot read and that did not change is not decoded again.
The same over real transports: tests/e2e/test_transport_parity.py, test_hostile_protocol.py,
test_hidden_info_wire.py.
"""

from __future__ import annotations

import random
import zlib

import pytest

from cardarena.games import get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec

GAMES = ["spades", "spite-and-malice", "spot"]


def delta_of(wire: bytes) -> pb.ViewDelta:
    """The ViewDelta of a Turn's ``view_delta`` field as the writer serialized it."""
    turn = pb.Turn.FromString(wire)
    assert turn.HasField("view_delta") and not turn.HasField("view")
    return turn.view_delta


def entries(delta: pb.ViewDelta) -> list[tuple[int, bytes, bool]]:
    """(field number, data, appended) of each field a delta carries."""
    assert len(delta.numbers) == len(delta.data) and list(delta.numbers) == sorted(set(delta.numbers))
    return [(n, b, n in delta.appended) for n, b in zip(delta.numbers, delta.data)]


def whole_fields(game: str, view) -> dict[int, bytes]:
    """Each top-level field's bytes in the seat's whole view, by field number."""
    return {number: enc(getattr(view, name)) for name, number, _, enc in codec._view_field_encoders(game)}


def play(name: str, seed: int, steps: int = 250):
    """(state, seat) at each decision of a random game, and the state after it."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    n = 0
    while not state.is_terminal and n < steps:
        yield state, state.current_seat
        state.apply(rng.choice(state.legal_actions()))
        n += 1


@pytest.mark.parametrize("name", GAMES)
def test_the_reader_rebuilds_every_seats_view_exactly(name):
    """Every seat's view, delta after delta, as the whole view decodes: equal values and
    the very bytes of the whole view (so the digest is the whole view's)."""
    num_seats = get_game(name).num_seats
    for seed in range(2):
        writers = [codec.ViewDeltaWriter(name) for _ in range(num_seats)]
        readers = [codec.ViewDeltaReader(name) for _ in range(num_seats)]
        appended = replaced = 0
        for state, _ in play(name, seed):
            for seat in range(num_seats):  # every seat, every step: its view changes when others act
                view = state.view(seat)
                delta = delta_of(writers[seat].delta(view))
                appended += sum(a for _, _, a in entries(delta))
                replaced += sum(not a for _, _, a in entries(delta))
                got = readers[seat].apply(delta)
                assert got is not None
                assert got == view and view == got
                whole = pb.View.FromString(codec.view_wire(name, view))
                rebuilt = b"".join(readers[seat].parts[n] for n in sorted(readers[seat].parts))
                assert getattr(whole, codec.game_field(name)).SerializeToString(deterministic=True) == \
                    type(getattr(whole, codec.game_field(name))).FromString(rebuilt).SerializeToString(deterministic=True)
                assert zlib.crc32(rebuilt) == delta.digest
        assert replaced > 0
        if name == "spades":
            assert appended > 0  # the trick in progress and the finished tricks grow by appends


@pytest.mark.parametrize("name", GAMES)
def test_a_delta_carries_nothing_the_seats_whole_view_would_not(name):
    """Disclosure: the writer is given the seat's own view and nothing else, and every field
    a delta sends is, byte for byte, that field of the seat's whole view at that moment
    (replaced), or the end of it (appended). A field that did not change is not sent."""
    num_seats = get_game(name).num_seats
    writers = [codec.ViewDeltaWriter(name) for _ in range(num_seats)]
    before: list[dict[int, bytes] | None] = [None] * num_seats
    checked = 0
    for state, _ in play(name, 7):
        for seat in range(num_seats):
            view = state.view(seat)
            whole = whole_fields(name, view)
            delta = delta_of(writers[seat].delta(view))
            sent = set()
            for number, data, append in entries(delta):
                sent.add(number)
                if append:
                    assert before[seat] is not None and whole[number].endswith(data)
                    assert before[seat][number] + data == whole[number]
                else:
                    assert data == whole[number]
                checked += 1
            if before[seat] is not None:
                assert {n for n in whole if whole[n] != before[seat][n]} == sent  # exactly what changed
            before[seat] = whole
    assert checked > 100


def test_a_reader_that_missed_or_spoiled_a_delta_refuses_it_and_a_whole_view_puts_it_right():
    state = get_game("spades").new_initial_state(3)
    rng = random.Random(3)
    writer, reader = codec.ViewDeltaWriter("spades"), codec.ViewDeltaReader("spades")
    assert reader.apply(delta_of(writer.delta(state.view(0)))) == state.view(0)
    state.apply(rng.choice(state.legal_actions()))
    missed = delta_of(writer.delta(state.view(0)))  # never reaches the reader
    state.apply(rng.choice(state.legal_actions()))
    nxt = delta_of(writer.delta(state.view(0)))
    assert nxt.base == missed.seq and reader.seq == missed.base
    assert reader.apply(nxt) is None  # not the view it holds: resync
    assert codec.ViewDeltaReader("spades").apply(nxt) is None  # a reader that holds nothing

    writer.reset()  # what the arbiter does on Act.resync
    whole = delta_of(writer.delta(state.view(0)))
    assert whole.base == 0
    assert reader.apply(whole) == state.view(0)

    # a spoiled view (a bit flipped in what it holds): the digest tells, resync again
    i = next(i for i, b in enumerate(reader.slots) if b)
    number = sorted(reader.slot_of, key=reader.slot_of.get)[i]
    reader.slots[i] = reader.slots[i][:-1] + bytes([reader.slots[i][-1] ^ 1])
    state.apply(rng.choice(state.legal_actions()))
    delta = delta_of(writer.delta(state.view(0)))
    assert number not in {n for n, _, a in entries(delta) if not a}  # (the seat field: it never changes)
    assert reader.apply(delta) is None
    assert reader.apply(delta) is None  # and it holds no view until a whole one comes
    writer.reset()
    assert reader.apply(delta_of(writer.delta(state.view(0)))) == state.view(0)


def test_a_field_the_bot_read_is_not_decoded_again_until_it_changes():
    state = get_game("spades").new_initial_state(5)
    rng = random.Random(5)
    writer, reader = codec.ViewDeltaWriter("spades"), codec.ViewDeltaReader("spades")
    seat = 0
    first = reader.apply(delta_of(writer.delta(state.view(seat))))
    hand, seats = first.hand, first.seats
    state.apply(rng.choice(state.legal_actions()))
    second = reader.apply(delta_of(writer.delta(state.view(seat))))
    assert second == state.view(seat)
    if state.view(seat).hand == hand:
        assert "hand" in second.__dict__ and second.__dict__["hand"] is hand  # carried over, not decoded
    again = delta_of(writer.delta(state.view(seat)))
    assert not again.numbers and reader.apply(again) == state.view(seat)  # the same view again: an empty delta
    assert second.seats == state.view(seat).seats and seats is not None


def test_a_delta_that_does_not_parse_is_a_wire_error_where_the_view_is_read():
    bad = pb.ViewDelta(seq=1, base=0, numbers=[7], data=[b"\x3a\xff\xff\xff"])
    bad.digest = zlib.crc32(b"\x3a\xff\xff\xff")
    view = codec.ViewDeltaReader("spades").apply(bad)  # it applies (the digest holds) ...
    with pytest.raises(codec.WireError):
        view.hand  # noqa: B018 - ... and says what is wrong where the bot reads it
    uneven = pb.ViewDelta(seq=1, base=0, numbers=[7, 8], data=[b""])
    assert codec.ViewDeltaReader("spades").apply(uneven) is None


def test_the_arbiter_grants_deltas_to_a_bot_that_asks_over_grpc_and_whole_views_on_the_local_channel():
    """Hello.view_deltas is a request: an old client (0) gets whole views everywhere; the
    arbiter grants revision 1 over gRPC, and whole views on the local channel, where CPU,
    not bytes, is the measure (docs/performance.md)."""
    from arbiter.server.botstream import Hub

    hub = Hub(open_join=True)
    asks = pb.Hello(bot_name="b", protocol_version=1, view_deltas=codec.VIEW_DELTAS)
    old = pb.Hello(bot_name="b", protocol_version=1)
    future = pb.Hello(bot_name="b", protocol_version=1, view_deltas=codec.VIEW_DELTAS + 5)
    assert hub.add(asks).view_deltas == codec.VIEW_DELTAS == 1
    assert hub.add(future).view_deltas == codec.VIEW_DELTAS  # never more than it speaks
    assert hub.add(old).view_deltas == 0
    assert hub.add(asks, local=True).view_deltas == 0


def test_a_field_the_sdks_view_message_does_not_know_is_kept_in_its_place():
    """A newer arbiter's view may have a field this SDK's message lacks: the delta still
    applies (the digest is over the arbiter's bytes, the unknown field in its place), and
    the fields the SDK knows decode as before."""
    state = get_game("spades").new_initial_state(2)
    writer, reader = codec.ViewDeltaWriter("spades"), codec.ViewDeltaReader("spades")
    delta = delta_of(writer.delta(state.view(1)))
    extra = b"\xc2\x3e\x03abc"  # field 1000, a string: unknown to SpadesView
    numbers, data = list(delta.numbers) + [1000], list(delta.data) + [extra]
    whole = b"".join(b for _, b in sorted(zip(numbers, data)))
    newer = pb.ViewDelta(seq=delta.seq, base=0, numbers=numbers, data=data, digest=zlib.crc32(whole))
    view = reader.apply(newer)
    assert view == state.view(1) and view.hand == state.view(1).hand
    assert reader.parts[1000] == extra
