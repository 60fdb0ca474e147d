"""The local channel's frames (cardarena.wire.framing): the one reader both ends use, fed
in whatever chunks the socket gives."""

from __future__ import annotations

import pytest

from cardarena.wire.framing import FrameError, FrameReader, frame


def test_frames_come_out_whole_whatever_the_chunks():
    payloads = [b"", b"a", b"hello" * 100, bytes(range(256))]
    stream = b"".join(frame(p) for p in payloads)
    for size in (1, 3, 7, len(stream)):
        reader, out = FrameReader(limit=4096), []
        for i in range(0, len(stream), size):
            reader.feed(stream[i:i + size])
            while (p := reader.next()) is not None:
                out.append(p)
        assert out == payloads
        reader.end()  # ended between frames: fine


def test_an_oversized_or_cut_frame_is_an_error_naming_it():
    reader = FrameReader(limit=10)
    reader.feed(frame(b"x" * 11))
    with pytest.raises(FrameError, match="a frame of 11 bytes; at most 10 are accepted"):
        reader.next()
    cut = FrameReader(limit=10)
    cut.feed(frame(b"abcdef")[:5])
    assert cut.next() is None
    with pytest.raises(FrameError, match=r"the stream ended inside a frame \(5 bytes\)"):
        cut.end()


def test_a_chunk_that_is_exactly_one_frame_is_taken_whole_and_anything_else_is_fed():
    """``whole``: the blocking reader's usual read (one frame, nothing held) needs no buffer;
    a chunk with more or less than one frame, an oversized one, or one read while bytes are
    held is left to ``feed``, and reads as it always did."""
    reader = FrameReader(limit=10)
    assert reader.whole(frame(b"hello")) == b"hello"
    assert reader.whole(frame(b"")) == b""
    assert reader.whole(frame(b"x" * 11)) is None  # over the limit: feed, then next() says so
    assert reader.whole(frame(b"ab") + frame(b"cd")) is None  # two frames
    assert reader.whole(frame(b"abcdef")[:5]) is None  # a part of one
    assert reader.whole(b"\x00\x00") is None  # not even a header
    reader.feed(frame(b"ab")[:3])
    assert reader.whole(frame(b"cd")) is None  # bytes held: they come first
    reader.feed(frame(b"ab")[3:])
    assert reader.next() == b"ab" and reader.next() is None
    reader.end()
