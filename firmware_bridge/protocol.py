"""Frames and messages of the serial link between the board's microcontroller and the host.

PROTOCOL.md beside this file is the specification; this module implements it once
for both ends: the host imports it as ``firmware_bridge.protocol`` and the RP2040
firmware copies it as ``protocol.py``. So it keeps to the Python that MicroPython
runs: no dataclasses, typing or enum, plain f-strings only, and only ``struct`` and
``binascii`` from the library. Annotations are fine (MicroPython ignores them) as long
as CPython can evaluate them without ``typing``. It must never do I/O or keep time,
and garbage on the line must never raise out of ``Decoder.feed``.

>>> frame = encode(Scan(counter=7, cells=bytes([0, 1, 1, 0])))
>>> Decoder().feed(frame)
[Scan(counter=7, cells=b'\\x00\\x01\\x01\\x00', seq=0)]
"""

import binascii
import struct

PROTOCOL_VERSION = 1
MAX_CELLS = 255

# Message types: the low nibble of a frame's head byte.
HELLO = 1
SCAN = 2
SET_LEDS = 3
ACK = 4
NACK = 5
PING = 6
PONG = 7
CONFIG = 8
ERROR = 9
RAW = 10
THRESHOLDS = 11

# What a cell state means, announced in HELLO.
SENSOR_NONE = 0
SENSOR_PRESENCE = 1
SENSOR_MAGNET = 2

# Cell states in SCAN.
EMPTY = 0
PRESENT = 1  # also: a magnet with its north pole up
SOUTH_UP = 2

# Error codes carried by NACK and ERROR.
UNSUPPORTED = 1
BAD_PAYLOAD = 2
BAD_CONFIG = 3
SENSOR_FAULT = 4
WATCHDOG_RESET = 5
FRAMES_DROPPED = 6

# CONFIG keys on the wire, and the range each value must lie in.
CONFIG_KEYS = {
    "brightness": 1,
    "debounce_scans": 2,
    "heartbeat_ms": 3,
    "scan_period_ms": 4,
    "raw_readings": 5,
}
CONFIG_RANGES = {
    "brightness": (0, 255),
    "debounce_scans": (1, 20),
    "heartbeat_ms": (50, 1000),
    "scan_period_ms": (1, 100),
    "raw_readings": (0, 1),
}
_CONFIG_NAMES: dict[int, str] = {}
for _name in CONFIG_KEYS:
    _CONFIG_NAMES[CONFIG_KEYS[_name]] = _name

_SCAN_BITMAP = 0
_SCAN_BYTES = 1
_LEDS_FULL = 0
_LEDS_DELTA = 1

MAX_FIRMWARE = 32
MAX_BODY = 2 + 2 + MAX_CELLS * 4 + 4  # the largest message is a SET_LEDS delta of every cell
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1
_MIN_BODY = 6
# The CRC-32 of a body followed by its own little-endian CRC-32 is always this
# constant, so a receiver checks a frame with one crc32 call and no slicing.
_CRC_RESIDUE = 0x2144DF1C


def cobs_encode(data: bytes | bytearray) -> bytes:
    """COBS-encode ``data``: the same bytes without any 0x00, as the PyPI ``cobs`` does."""
    out = bytearray()
    chunks = bytes(data).split(b"\x00")
    last = len(chunks) - 1
    for index, chunk in enumerate(chunks):
        size = len(chunk)
        start = 0
        while size - start >= 254:
            out.append(0xFF)
            out += chunk[start : start + 254]
            start += 254
        # A final run that filled whole 254-byte blocks needs no closing block:
        # a 0xFF block implies no zero, and nothing follows.
        if start < size or start == 0 or index < last:
            out.append(size - start + 1)
            out += chunk[start:]
    return bytes(out)


def cobs_decode(data: bytes | bytearray) -> bytearray | None:
    """Undo ``cobs_encode``; None when ``data`` is not valid COBS."""
    if b"\x00" in data:
        return None
    out = bytearray()
    size = len(data)
    index = 0
    while index < size:
        code = data[index]
        end = index + code
        if end > size:
            return None
        out += data[index + 1 : end]
        index = end
        if code != 0xFF and index < size:
            out.append(0)
    return out


def _string(text: str, limit: int) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > limit:
        raise ValueError(f"string longer than {limit} bytes")
    return bytes([len(raw)]) + raw


def _unstring(payload: bytes | bytearray, offset: int) -> tuple[str, int]:
    size = payload[offset]
    end = offset + 1 + size
    if end > len(payload):
        raise ValueError("string runs past the payload")
    return str(bytes(payload[offset + 1 : end]), "utf-8"), end


def _exact(payload: bytes | bytearray, size: int) -> None:
    if len(payload) != size:
        raise ValueError(f"payload is {len(payload)} bytes, expected {size}")


# Byte i of this table is the eight cell states that bitmap byte i stands for.
_BITMAP_CELLS = [bytes([(value >> bit) & 1 for bit in range(8)]) for value in range(256)]


class Message:
    """Base of all messages: equality and repr over ``FIELDS``; ``seq`` is the frame's."""

    TYPE = 0
    FIELDS: tuple[str, ...] = ()
    seq = 0

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    # MicroPython does not derive != from __eq__.
    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __repr__(self) -> str:
        parts = [f"{name}={getattr(self, name)!r}" for name in self.FIELDS]
        return "{}({})".format(type(self).__name__, ", ".join(parts))

    def _pack(self) -> bytes:
        raise NotImplementedError  # each message type packs its own payload

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        raise NotImplementedError  # each message type parses its own payload


class Hello(Message):
    """Each side introduces itself; readable whatever protocol version sent it."""

    TYPE = HELLO
    FIELDS = ("cells", "sensor_kind", "firmware", "protocol_version", "seq")

    def __init__(
        self,
        cells: int = 0,
        sensor_kind: int = SENSOR_NONE,
        firmware: str = "",
        protocol_version: int = PROTOCOL_VERSION,
        seq: int = 0,
    ) -> None:
        self.cells = cells
        self.sensor_kind = sensor_kind
        self.firmware = firmware
        self.protocol_version = protocol_version
        self.seq = seq

    def _pack(self) -> bytes:
        return struct.pack("<HB", self.cells, self.sensor_kind) + _string(
            self.firmware, MAX_FIRMWARE
        )

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        # Later versions may append fields; everything past the firmware string is theirs.
        cells, sensor_kind = struct.unpack_from("<HB", payload, 0)
        firmware = _unstring(payload, 3)[0]
        return cls(cells, sensor_kind, firmware)


class Scan(Message):
    """The debounced state of every cell, one byte per cell (see PROTOCOL.md, SCAN)."""

    TYPE = SCAN
    FIELDS = ("counter", "cells", "seq")

    def __init__(self, counter: int, cells: bytes, seq: int = 0) -> None:
        self.counter = counter
        self.cells = cells
        self.seq = seq

    def _pack(self) -> bytes:
        cells = self.cells
        count = len(cells)
        if count > MAX_CELLS:
            raise ValueError(f"a scan holds at most {MAX_CELLS} cells")
        if count and max(cells) > PRESENT:
            return struct.pack("<HBB", self.counter, _SCAN_BYTES, count) + bytes(cells)
        bitmap = bytearray((count + 7) // 8)
        for cell in range(count):
            if cells[cell]:
                bitmap[cell >> 3] |= 1 << (cell & 7)
        return struct.pack("<HBB", self.counter, _SCAN_BITMAP, count) + bitmap

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        counter, encoding, count = struct.unpack_from("<HBB", payload, 0)
        states = payload[4:]
        if encoding == _SCAN_BYTES:
            _exact(states, count)
            return cls(counter, bytes(states))
        if encoding != _SCAN_BITMAP:
            raise ValueError(f"unknown scan encoding {encoding}")
        _exact(states, (count + 7) // 8)
        if count & 7 and states[-1] >> (count & 7):
            raise ValueError("padding bits set in scan bitmap")
        table = _BITMAP_CELLS
        return cls(counter, b"".join([table[byte] for byte in states])[:count])


class SetLeds(Message):
    """Cell colours: ``colors`` holds r, g, b per entry. ``cells`` None is a full frame
    (entries are cells 0, 1, ...; the rest go dark); otherwise a delta naming each cell."""

    TYPE = SET_LEDS
    FIELDS = ("colors", "cells", "seq")

    def __init__(self, colors: bytes, cells: bytes | None = None, seq: int = 0) -> None:
        self.colors = colors
        self.cells = cells
        self.seq = seq

    def _pack(self) -> bytes:
        count = len(self.colors) // 3
        if len(self.colors) != count * 3 or count > MAX_CELLS:
            raise ValueError(f"colors must be r, g, b for at most {MAX_CELLS} cells")
        if self.cells is None:
            return bytes([_LEDS_FULL, count]) + bytes(self.colors)
        if len(self.cells) != count:
            raise ValueError("a delta names one cell per colour")
        return bytes([_LEDS_DELTA, count]) + bytes(self.cells) + bytes(self.colors)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        mode = payload[0]
        count = payload[1]
        if mode == _LEDS_FULL:
            _exact(payload, 2 + 3 * count)
            return cls(bytes(payload[2:]))
        if mode != _LEDS_DELTA:
            raise ValueError(f"unknown LED frame mode {mode}")
        _exact(payload, 2 + 4 * count)
        return cls(bytes(payload[2 + count :]), bytes(payload[2 : 2 + count]))


class Ack(Message):
    """The device accepted the command whose sequence number is this frame's ``seq``."""

    TYPE = ACK
    FIELDS = ("seq",)

    def __init__(self, seq: int = 0) -> None:
        self.seq = seq

    def _pack(self) -> bytes:
        return b""

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        _exact(payload, 0)
        return cls()


class Nack(Message):
    """The device rejected command ``rejected`` with error ``code``."""

    TYPE = NACK
    FIELDS = ("rejected", "code", "seq")

    def __init__(self, rejected: int, code: int, seq: int = 0) -> None:
        self.rejected = rejected
        self.code = code
        self.seq = seq

    def _pack(self) -> bytes:
        return bytes([self.rejected, self.code])

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        _exact(payload, 2)
        return cls(payload[0], payload[1])


class Ping(Message):
    """The host asks for a PONG echoing ``token``."""

    TYPE = PING
    FIELDS = ("token", "seq")

    def __init__(self, token: int, seq: int = 0) -> None:
        self.token = token
        self.seq = seq

    def _pack(self) -> bytes:
        return struct.pack("<I", self.token)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        _exact(payload, 4)
        return cls(struct.unpack("<I", payload)[0])


class Pong(Message):
    """Answer to PING: its ``token`` and the device's uptime in ms (wrapping)."""

    TYPE = PONG
    FIELDS = ("token", "uptime_ms", "seq")

    def __init__(self, token: int, uptime_ms: int, seq: int = 0) -> None:
        self.token = token
        self.uptime_ms = uptime_ms
        self.seq = seq

    def _pack(self) -> bytes:
        return struct.pack("<II", self.token, self.uptime_ms & 0xFFFFFFFF)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        _exact(payload, 8)
        token, uptime_ms = struct.unpack("<II", payload)
        return cls(token, uptime_ms)


class Config(Message):
    """Device settings by name (``CONFIG_KEYS``); an unknown key number decodes as an int."""

    TYPE = CONFIG
    FIELDS = ("settings", "seq")

    def __init__(self, settings: "dict[str | int, int]", seq: int = 0) -> None:
        self.settings = settings
        self.seq = seq

    def _pack(self) -> bytes:
        out = bytearray([len(self.settings)])
        # A key may also be a bare number, so a host can send keys it has no name for.
        for name in self.settings:
            key = CONFIG_KEYS.get(name, name) if isinstance(name, str) else name
            out += struct.pack("<BH", key, self.settings[name])
        return bytes(out)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        count = payload[0]
        _exact(payload, 1 + 3 * count)
        settings: dict[str | int, int] = {}
        for offset in range(1, 1 + 3 * count, 3):
            key, value = struct.unpack_from("<BH", payload, offset)
            settings[_CONFIG_NAMES.get(key, key)] = value
        return cls(settings)


class Error(Message):
    """Something the device reports on its own: an error ``code`` and a short ``detail``."""

    TYPE = ERROR
    FIELDS = ("code", "detail", "seq")

    def __init__(self, code: int, detail: str = "", seq: int = 0) -> None:
        self.code = code
        self.detail = detail
        self.seq = seq

    def _pack(self) -> bytes:
        return bytes([self.code]) + _string(self.detail, 255)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        detail, end = _unstring(payload, 1)
        _exact(payload, end)
        return cls(payload[0], detail)


class Raw(Message):
    """Each magnet sensor's raw reading (ADC counts, 0..65535), cell 0 first."""

    TYPE = RAW
    FIELDS = ("readings", "seq")

    def __init__(self, readings: "list[int] | tuple[int, ...]", seq: int = 0) -> None:
        self.readings = list(readings)
        self.seq = seq

    def _pack(self) -> bytes:
        return bytes([len(self.readings)]) + struct.pack(f"<{len(self.readings)}H", *self.readings)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        count = payload[0]
        _exact(payload, 1 + 2 * count)
        return cls(struct.unpack_from(f"<{count}H", payload, 1))


class Thresholds(Message):
    """Per-cell thresholds of a magnet board, cell 0 first: a reading at or above
    ``north[i]`` is state 1, at or below ``south[i]`` state 2, else empty."""

    TYPE = THRESHOLDS
    FIELDS = ("north", "south", "seq")

    def __init__(self, north: "list[int]", south: "list[int]", seq: int = 0) -> None:
        if len(north) != len(south):
            raise ValueError("one north and one south threshold per cell")
        self.north = list(north)
        self.south = list(south)
        self.seq = seq

    def _pack(self) -> bytes:
        out = bytearray([len(self.north)])
        for north, south in zip(self.north, self.south):
            out += struct.pack("<HH", north, south)
        return bytes(out)

    @classmethod
    def _unpack(cls, payload: bytes | bytearray) -> "Message":
        count = payload[0]
        _exact(payload, 1 + 4 * count)
        pairs = struct.unpack_from(f"<{2 * count}H", payload, 1)
        # MicroPython slices only with step 1: no pairs[0::2].
        return cls([pairs[2 * i] for i in range(count)], [pairs[2 * i + 1] for i in range(count)])


_TYPES: "dict[int, type[Message]]" = {}
for _class in (Hello, Scan, SetLeds, Ack, Nack, Ping, Pong, Config, Error, Raw, Thresholds):
    _TYPES[_class.TYPE] = _class


def encode(message: Message, version: int = PROTOCOL_VERSION) -> bytes:
    """One complete frame for ``message``, delimiters included.

    The head byte carries ``version``, except for a HELLO, which states its own
    ``protocol_version``. Raises ValueError (struct.error for a number out of its
    field's range) for a message that cannot be sent.
    """
    if isinstance(message, Hello):
        version = message.protocol_version
    if not 0 < version < 16 or not 0 <= message.seq < 256:
        raise ValueError("version must be 1..15 and seq 0..255")
    body = bytearray([(version << 4) | message.TYPE, message.seq])
    body += message._pack()
    body += struct.pack("<I", binascii.crc32(body) & 0xFFFFFFFF)
    if len(body) > MAX_BODY:
        raise ValueError("message too long for one frame")
    return b"\x00" + cobs_encode(body) + b"\x00"


class Decoder:
    """Turns received bytes into messages, in order, across any split of the stream.

    ``feed`` never raises: whatever cannot be a valid frame is dropped and counted.
    ``errors`` counts every dropped frame; ``crc_errors`` the ones whose CRC failed,
    ``framing_errors`` bad COBS or length, ``rejected`` a type, version or payload
    this side does not understand. ``frames`` counts the messages delivered.
    """

    def __init__(self, version: int = PROTOCOL_VERSION) -> None:
        self.version = version
        self.frames = 0
        self.errors = 0
        self.crc_errors = 0
        self.framing_errors = 0
        self.rejected = 0
        self._tail = b""
        self._skipping = False

    def reset(self) -> None:
        """Forget a partly received frame (the line was closed and reopened)."""
        self._tail = b""
        self._skipping = False

    def feed(self, data: bytes) -> list[Message]:
        """Add received bytes; return the list of messages completed by them."""
        parts = (self._tail + bytes(data)).split(b"\x00")
        tail = parts.pop()
        messages: list[Message] = []
        for part in parts:
            if self._skipping:
                # The end of an over-long frame, dropped and counted already.
                self._skipping = False
            elif part:
                message = self._message(part)
                if message is not None:
                    messages.append(message)
        if len(tail) > MAX_ENCODED:
            if not self._skipping:
                self._drop_framing()
            self._skipping = True
            tail = b""
        self._tail = tail
        return messages

    def _drop_framing(self) -> None:
        self.errors += 1
        self.framing_errors += 1

    def _message(self, part: bytes) -> Message | None:
        if len(part) > MAX_ENCODED:
            self._drop_framing()
            return None
        body = cobs_decode(part)
        if body is None or len(body) < _MIN_BODY:
            self._drop_framing()
            return None
        if binascii.crc32(body) != _CRC_RESIDUE:
            self.errors += 1
            self.crc_errors += 1
            return None
        head = body[0]
        version = head >> 4
        kind = _TYPES.get(head & 0x0F)
        message = None
        if kind is not None and (version == self.version or kind is Hello):
            # A payload that passed its CRC but does not parse was made by a broken
            # or foreign sender; whatever the parser raises, it is a dropped frame.
            try:
                message = kind._unpack(body[2:-4])
            except Exception:
                message = None
        if message is None:
            self.errors += 1
            self.rejected += 1
            return None
        message.seq = body[1]
        if isinstance(message, Hello):
            message.protocol_version = version
        self.frames += 1
        return message
