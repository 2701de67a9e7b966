"""The device end of the serial protocol, free of hardware.

It owns the debounced board, the LED colours, the command sequence rules and the
heartbeat (PROTOCOL.md sections 2 to 4). ``main.py`` hands it sensor readings and
received bytes and writes out the frames it returns; ``sim.py`` does the same with
simulated sensors. It must never touch pins, clocks or streams itself, so that the
very same code runs on the RP2040 and in the simulator.
"""

try:
    from firmware_bridge import protocol
    from firmware_bridge.firmware.debounce import Debouncer
except ImportError:  # on the Pico every module sits in the filesystem root
    import protocol  # type: ignore[import-not-found,no-redef]
    from debounce import Debouncer  # type: ignore[import-not-found,no-redef]

try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython: callers pass a monotonic millisecond count that never wraps

    def ticks_diff(new: int, old: int) -> int:
        return new - old


# mypy reads the names below; MicroPython, which has no typing module, never does.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


DEFAULTS = {
    "brightness": 64,
    "debounce_scans": 3,
    "heartbeat_ms": 500,
    "scan_period_ms": 10,
    "raw_readings": 0,
}


class Device:
    """One board's microcontroller: ``cells`` sensors and LEDs.

    ``show_leds(colors, brightness)`` is called whenever the LED colours change;
    ``colors`` holds r, g, b per cell. ``calibrate(north, south)`` (magnet boards
    only) takes per-cell thresholds from a THRESHOLDS command. Call ``boot`` first.
    Every method that may answer returns the encoded frames to send (``b""`` for
    none).
    """

    def __init__(
        self,
        cells: int,
        sensor_kind: int,
        firmware: str,
        show_leds: "Callable[[bytearray, int], object]",
        settings: "dict[str, int] | None" = None,
        protocol_version: int = protocol.PROTOCOL_VERSION,
        calibrate: "Callable[[list[int], list[int]], object] | None" = None,
    ) -> None:
        self.cells = cells
        self.sensor_kind = sensor_kind
        self.firmware = firmware
        self.protocol_version = protocol_version
        self.settings = dict(DEFAULTS)
        if settings:
            self.settings.update(settings)
        self.debouncer = Debouncer(cells, self.settings["debounce_scans"])
        self.colors = bytearray(3 * cells)
        self.counter = 0
        self.accepted = 0
        self.decoder = protocol.Decoder(protocol_version)
        self._show_leds = show_leds
        self._calibrate = calibrate
        self._last_scan_ms = 0
        self._drops_reported = 0

    def boot(self, raw: bytes | bytearray, now_ms: int) -> bytes:
        """What the device says when it starts: HELLO and the board as first read.

        The first reading is taken as it is, so a host never sees a full board
        reported empty while the debouncer would still be catching up.
        """
        self.debouncer.state[:] = raw
        return self._hello() + self._scan(now_ms)

    def scan(
        self, raw: bytes | bytearray, now_ms: int, readings: "list[int] | None" = None
    ) -> bytes:
        """Take one scan's raw states (a byte per cell) at ``now_ms``, and on a magnet
        board the sensors' ``readings`` (ADC counts per cell).

        Sends a SCAN when the debounced board changed, or as the heartbeat, followed
        by the readings while the host asked for them (CONFIG ``raw_readings``);
        reports frames the decoder dropped, at most once a heartbeat.
        """
        if self.debouncer.update(raw):
            self.counter = (self.counter + 1) & 0xFFFF
            return self._scan(now_ms) + self._raw(readings)
        if ticks_diff(now_ms, self._last_scan_ms) < self.settings["heartbeat_ms"]:
            return b""
        out = self._scan(now_ms) + self._raw(readings)
        if self.decoder.errors != self._drops_reported:
            self._drops_reported = self.decoder.errors
            detail = f"{self.decoder.errors} damaged frames dropped since boot"
            out += self.report(protocol.FRAMES_DROPPED, detail)
        return out

    def receive(self, data: bytes, now_ms: int) -> bytes:
        """Take bytes from the host; answer every complete command in them."""
        out = b""
        for message in self.decoder.feed(data):
            out += self._answer(message, now_ms)
        return out

    def report(self, code: int, detail: str) -> bytes:
        """An ERROR frame, for conditions the caller detects (sensor faults, resets)."""
        return self._frame(protocol.Error(code, detail))

    def _frame(self, message: protocol.Message) -> bytes:
        # Every device frame acknowledges the last accepted command (PROTOCOL.md 3).
        message.seq = self.accepted
        return protocol.encode(message, self.protocol_version)

    def _hello(self) -> bytes:
        return self._frame(
            protocol.Hello(self.cells, self.sensor_kind, self.firmware, self.protocol_version)
        )

    def _scan(self, now_ms: int) -> bytes:
        self._last_scan_ms = now_ms
        return self._frame(protocol.Scan(self.counter, bytes(self.debouncer.state)))

    def _raw(self, readings: "list[int] | None") -> bytes:
        if readings is None or not self.settings["raw_readings"]:
            return b""
        return self._frame(protocol.Raw(readings))

    def _answer(self, message: protocol.Message, now_ms: int) -> bytes:
        if isinstance(message, protocol.Hello):
            # A (re)connecting host: always answered, and it restarts duplicate detection.
            self.accepted = message.seq
            return self._hello() + self._scan(now_ms)
        if message.seq == self.accepted:
            # A retransmission whose answer was lost: acknowledge, do not repeat it.
            return self._frame(protocol.Ack())
        if isinstance(message, protocol.SetLeds):
            code = self._set_leds(message)
        elif isinstance(message, protocol.Config):
            code = self._configure(message.settings)
        elif isinstance(message, protocol.Ping):
            code = 0
        elif isinstance(message, protocol.Thresholds) and self._calibrate is not None:
            code = self._thresholds(message, self._calibrate)
        else:
            code = protocol.UNSUPPORTED
        if code:
            return self._frame(protocol.Nack(message.seq, code))
        self.accepted = message.seq
        if isinstance(message, protocol.Ping):
            return self._frame(protocol.Pong(message.token, now_ms))
        return self._frame(protocol.Ack())

    def _set_leds(self, message: protocol.SetLeds) -> int:
        colors = message.colors
        leds = self.colors
        if message.cells is None:
            if len(colors) > len(leds):
                return protocol.BAD_PAYLOAD
            leds[: len(colors)] = colors
            leds[len(colors) :] = bytes(len(leds) - len(colors))
        else:
            for cell in message.cells:
                if cell >= self.cells:
                    return protocol.BAD_PAYLOAD
            for index, cell in enumerate(message.cells):
                leds[3 * cell : 3 * cell + 3] = colors[3 * index : 3 * index + 3]
        self._show_leds(leds, self.settings["brightness"])
        return 0

    def _thresholds(
        self,
        message: protocol.Thresholds,
        calibrate: "Callable[[list[int], list[int]], object]",
    ) -> int:
        if len(message.north) != self.cells:
            return protocol.BAD_PAYLOAD
        for north, south in zip(message.north, message.south):
            if south >= north:
                return protocol.BAD_PAYLOAD
        calibrate(message.north, message.south)
        return 0

    def _configure(self, settings: "dict[str | int, int]") -> int:
        for name in settings:
            # A key number the firmware has no name for is not a setting it has.
            limits = protocol.CONFIG_RANGES.get(name) if isinstance(name, str) else None
            if limits is None or not limits[0] <= settings[name] <= limits[1]:
                return protocol.BAD_CONFIG
        self.settings.update({str(name): value for name, value in settings.items()})
        self.debouncer.scans = self.settings["debounce_scans"]
        if "brightness" in settings:
            self._show_leds(self.colors, self.settings["brightness"])
        return 0
