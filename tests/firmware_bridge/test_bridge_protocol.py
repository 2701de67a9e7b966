"""Frames and messages: round trips, COBS against the PyPI `cobs` oracle, and a decoder
that survives garbage without ever delivering a damaged frame. The generated streams
are a few dozen a test here, their old volume in ``bench/bench_volume.py``."""

import doctest
import random

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol
from firmware_bridge.protocol import (
    MAX_ENCODED,
    Ack,
    Config,
    Decoder,
    Error,
    Hello,
    Nack,
    Ping,
    Pong,
    Raw,
    Scan,
    SetLeds,
    Thresholds,
    cobs_decode,
    cobs_encode,
    encode,
)
from tests.volume import volume

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
short_text = st.text(max_size=12).filter(lambda text: len(text.encode("utf-8")) <= 32)


def _colors(count):
    return st.binary(min_size=3 * count, max_size=3 * count)


full_leds = st.integers(0, 255).flatmap(lambda n: st.builds(SetLeds, colors=_colors(n), seq=u8))
delta_leds = st.integers(0, 255).flatmap(
    lambda n: st.builds(SetLeds, colors=_colors(n), cells=st.binary(min_size=n, max_size=n), seq=u8)
)
config_settings = st.dictionaries(
    st.sampled_from(sorted(protocol.CONFIG_KEYS)) | st.integers(len(protocol.CONFIG_KEYS) + 1, 255),
    u16,
    max_size=8,
)

messages = st.one_of(
    st.builds(
        Hello, cells=u16, sensor_kind=u8, firmware=short_text, protocol_version=st.just(1), seq=u8
    ),
    st.builds(Scan, counter=u16, cells=st.binary(max_size=255), seq=u8),
    st.builds(Scan, counter=u16, cells=st.lists(st.integers(0, 1), max_size=255).map(bytes)),
    full_leds,
    delta_leds,
    st.builds(Ack, seq=u8),
    st.builds(Nack, rejected=u8, code=u8, seq=u8),
    st.builds(Ping, token=u32, seq=u8),
    st.builds(Pong, token=u32, uptime_ms=u32, seq=u8),
    st.builds(Config, settings=config_settings, seq=u8),
    st.builds(Raw, readings=st.lists(u16, max_size=255), seq=u8),
    st.integers(0, 255).flatmap(
        lambda n: st.builds(
            Thresholds,
            north=st.lists(u16, min_size=n, max_size=n),
            south=st.lists(u16, min_size=n, max_size=n),
            seq=u8,
        )
    ),
    st.builds(Error, code=u8, detail=short_text, seq=u8),
)

EXAMPLES = [
    Hello(121, protocol.SENSOR_PRESENCE, "boardref-fw 0.1.0", seq=0),
    Scan(7, bytes([0, 1] * 60 + [1]), seq=3),
    Scan(8, bytes([0, 1, 2] * 31 + [0, 1]), seq=3),
    SetLeds(bytes(i % 256 for i in range(3 * 121)), seq=4),
    SetLeds(bytes([255, 0, 0, 0, 0, 255]), cells=bytes([5, 120]), seq=5),
    Ack(seq=6),
    Nack(rejected=7, code=protocol.BAD_PAYLOAD, seq=6),
    Ping(0xDEADBEEF, seq=9),
    Pong(0xDEADBEEF, 123456, seq=9),
    Config({"brightness": 40, "heartbeat_ms": 250}, seq=10),
    Error(protocol.SENSOR_FAULT, "chain reads all ones", seq=10),
    Raw([0, 32768, 65535] * 40 + [1], seq=11),
    Thresholds([40000 + i for i in range(121)], [25000 - i for i in range(121)], seq=12),
]


def _decode_all(stream, chunk=None):
    decoder = Decoder()
    if chunk is None:
        return decoder.feed(stream), decoder
    found = []
    for start in range(0, len(stream), chunk):
        found += decoder.feed(stream[start : start + chunk])
    return found, decoder


def test_module_example_runs():
    assert doctest.testmod(protocol).failed == 0


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_type_round_trips(message):
    found, decoder = _decode_all(encode(message))
    assert found == [message]
    assert decoder.errors == 0


def test_examples_cover_every_message_type():
    assert {type(m) for m in EXAMPLES} == set(protocol._TYPES.values())


@pytest.mark.slow
@given(messages)
def test_any_message_round_trips(message):
    frame = encode(message)
    assert frame[0] == 0 and frame[-1] == 0 and 0 not in frame[1:-1]
    assert Decoder().feed(frame) == [message]


@settings(max_examples=volume(25, 100))
@given(st.lists(messages, min_size=1, max_size=8), st.integers(1, 64))
def test_messages_survive_any_split_of_the_stream(batch, chunk):
    found, decoder = _decode_all(b"".join(encode(m) for m in batch), chunk)
    assert found == batch
    assert decoder.errors == 0


def test_presence_scan_of_121_cells_travels_as_a_bitmap():
    frame = encode(Scan(1, bytes([1] * 121)))
    # 2 head + 4 scan header + 16 bitmap + 4 CRC, plus COBS and two delimiters
    assert len(frame) <= 26 + 1 + 2


@given(st.binary(max_size=2000))
def test_cobs_encoding_matches_the_cobs_package(data):
    assert cobs_encode(data) == cobs.encode(data)
    assert bytes(cobs_decode(cobs.encode(data))) == data


@given(st.binary(max_size=600).map(lambda raw: raw.replace(b"\x00", b"\x01")))
def test_cobs_decoding_accepts_exactly_what_the_cobs_package_accepts(encoded):
    try:
        expected = cobs.decode(encoded)
    except cobs.DecodeError:
        expected = None
    ours = cobs_decode(encoded)
    assert (None if ours is None else bytes(ours)) == expected


def test_hello_of_another_protocol_version_is_still_read():
    frame = encode(Hello(121, 1, "future", protocol_version=2))
    assert Decoder().feed(frame) == [Hello(121, 1, "future", protocol_version=2)]


def test_other_messages_of_another_protocol_version_are_dropped_and_counted():
    decoder = Decoder()
    assert decoder.feed(encode(Scan(1, b"\x01"), version=2)) == []
    assert (decoder.errors, decoder.rejected) == (1, 1)


def test_unparseable_payload_with_good_crc_is_dropped():
    body = bytearray([(1 << 4) | protocol.SCAN, 0, 1, 0, 9, 4, 0])  # unknown encoding 9
    body += protocol.struct.pack("<I", protocol.binascii.crc32(body))
    decoder = Decoder()
    assert decoder.feed(b"\x00" + cobs_encode(body) + b"\x00") == []
    assert decoder.rejected == 1


def test_over_long_garbage_is_dropped_once_and_the_next_frame_found():
    decoder = Decoder()
    garbage = bytes(random.Random(1).randrange(1, 256) for _ in range(3 * MAX_ENCODED))
    found = []
    for start in range(0, len(garbage), 100):
        found += decoder.feed(garbage[start : start + 100])
    found += decoder.feed(encode(EXAMPLES[1]))
    assert found == [EXAMPLES[1]]
    assert (decoder.errors, decoder.framing_errors) == (1, 1)


def test_a_million_random_bytes_deliver_nothing_and_raise_nothing():
    rng = random.Random(20240601)
    decoder = Decoder()
    delivered = []
    for _ in range(250):
        delivered += decoder.feed(rng.randbytes(4000))
    assert delivered == []
    assert decoder.errors > 1000


def _frames(rng, count):
    frames = [encode(rng.choice(EXAMPLES)) for _ in range(count)]
    spans, start = [], 0
    for frame in frames:
        spans.append((start, start + len(frame)))
        start += len(frame)
    return frames, spans


def test_bit_flips_never_deliver_a_damaged_frame_and_spare_untouched_ones():
    rng = random.Random(7)
    originals = {encode(m): m for m in EXAMPLES}
    for _ in range(40):
        frames, spans = _frames(rng, 100)
        stream = bytearray(b"".join(frames))
        flipped = set()
        for _ in range(rng.randrange(1, 60)):
            position = rng.randrange(len(stream))
            stream[position] ^= 1 << rng.randrange(8)
            flipped.add(position)
        found, _ = _decode_all(bytes(stream), chunk=rng.randrange(1, 500))
        intact = [
            originals[frame]
            for frame, (start, end) in zip(frames, spans, strict=True)
            if not any(start <= position < end for position in flipped)
        ]
        # Intact frames arrive in order; a damaged one never does.
        assert found == intact


def test_truncated_frames_cost_only_themselves():
    rng = random.Random(11)
    for _ in range(200):
        frames, _ = _frames(rng, 30)
        kept, stream = [], b""
        for frame in frames:
            if rng.random() < 0.3:
                # The cut-off piece loses its closing delimiter.
                stream += frame[: rng.randrange(1, len(frame) - 1)]
            else:
                stream += frame
                kept.append(Decoder().feed(frame)[0])
        found, decoder = _decode_all(stream, chunk=rng.randrange(1, 300))
        assert found == kept
        assert decoder.frames == len(kept)


@settings(max_examples=volume(40, 200))
@given(st.lists(st.one_of(messages, st.binary(min_size=1, max_size=300)), max_size=12))
def test_valid_frames_after_garbage_are_still_found(items):
    stream, expected = b"", []
    for item in items:
        if isinstance(item, bytes):
            stream += item
        else:
            stream += encode(item)
            expected.append(item)
    found, _ = _decode_all(stream)
    # Garbage adjacent to a frame is cut off at the frame's own delimiters.
    assert found == expected


@settings(max_examples=volume(25, 100))
@given(st.lists(messages, min_size=2, max_size=6), st.data())
def test_concatenated_streams_with_stray_delimiters_lose_nothing(batch, data):
    repeats = [data.draw(st.integers(1, 3)) for _ in batch]
    stream = b"\x00".join(encode(m) * k for m, k in zip(batch, repeats, strict=True))
    found, decoder = _decode_all(stream, chunk=data.draw(st.integers(1, 50)))
    assert found == [m for m, k in zip(batch, repeats, strict=True) for _ in range(k)]
    assert decoder.errors == 0
