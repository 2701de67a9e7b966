"""The host end of the serial link: a pyserial driver for the board's microcontroller.

``Link`` opens the device (a path, a ``/dev/serial/by-id`` link or any pyserial URL),
shakes hands, hands every change of the board to its subscribers, sends LED frames
with acknowledgement and retransmission, and keeps itself alive: a silent or
unplugged device is noticed, reopened with backoff and resynchronised with a full
scan (PROTOCOL.md section 6). It must never decide anything about the game, and a
device fault must never reach its callers as an exception: they see the link state,
the counters and the last known board instead.
"""

import contextlib
import logging
import os
import select
import threading
import time
from collections.abc import Callable, Iterable
from importlib.metadata import version
from typing import Any

import serial

from firmware_bridge import protocol
from firmware_bridge.protocol import (
    Config,
    Decoder,
    Hello,
    Message,
    Nack,
    Ping,
    Raw,
    Scan,
    SetLeds,
    Thresholds,
)

log = logging.getLogger(__name__)

#: called with each changed ``Scan``
ScanSubscriber = Callable[[Scan], object]
#: called with the link state and its error sentence (or None)
StateSubscriber = Callable[[str, "str | None"], object]

#: what the host says of itself in its HELLO: the installed boardref's version
HOST_FIRMWARE = f"boardref-host {version('boardref')}"

# PROTOCOL.md section 6.
DEAD_AFTER = 2.0
HANDSHAKE_TIMEOUT = 1.0
HELLO_RETRY = 0.25
ACK_TIMEOUT = 0.15
MAX_RETRANSMITS = 8
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 10.0

# How long one read may block on a pyserial URL that offers no file descriptor to wait
# on (a real device's thread sleeps until bytes come, a command is sent or it closes):
# bounds how late a retransmission or shutdown is there.
_READ_TIMEOUT = 0.02
# How often a vanished device path is checked for coming back.
_PRESENCE_POLL = 0.05
_WRITE_TIMEOUT = 0.5

CLOSED = "closed"
CONNECTING = "connecting"
UP = "up"
DOWN = "down"
INCOMPATIBLE = "incompatible"

_ERROR_NAMES = {
    protocol.UNSUPPORTED: "UNSUPPORTED",
    protocol.BAD_PAYLOAD: "BAD_PAYLOAD",
    protocol.BAD_CONFIG: "BAD_CONFIG",
    protocol.SENSOR_FAULT: "SENSOR_FAULT",
    protocol.WATCHDOG_RESET: "WATCHDOG_RESET",
    protocol.FRAMES_DROPPED: "FRAMES_DROPPED",
}


class LinkError(Exception):
    """The device cannot be reached, or stopped answering as a board."""


class ProtocolVersionError(LinkError):
    """The device speaks a protocol version this host does not."""

    def __init__(self, port: str, hello: Hello) -> None:
        self.device_version = hello.protocol_version
        self.host_version = protocol.PROTOCOL_VERSION
        super().__init__(
            f"device {port} speaks protocol version {hello.protocol_version}"
            f" (firmware {hello.firmware!r}), this host speaks version"
            f" {protocol.PROTOCOL_VERSION}: flash the firmware that ships with this"
            " boardref (see firmware_bridge/firmware/README.md)"
        )


class _Command:
    """A host command on its way: its frame, when it was sent and what it carries."""

    def __init__(
        self,
        seq: int,
        frame: bytes,
        colors: bytes | None = None,
        answered: "_PingWaiter | None" = None,
    ) -> None:
        self.seq = seq
        self.frame = frame
        self.colors = colors
        self.answered = answered
        self.sent_at = 0.0
        self.first_sent_at: float | None = None
        self.retransmits = 0


class _PingWaiter:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.round_trip: float | None = None

    def __call__(self, round_trip: float) -> None:
        self.round_trip = round_trip
        self.done.set()


def _rgb(colors: bytes | bytearray | memoryview | Iterable[Iterable[int]]) -> bytes:
    """LED colours as bytes, r, g, b per cell, from bytes or a sequence of triples."""
    if isinstance(colors, (bytes, bytearray, memoryview)):
        return bytes(colors)
    return bytes(channel for color in colors for channel in color)


class Link:
    """A board microcontroller on a serial port, kept connected in the background.

    >>> link = Link("/dev/boardref-pico")            # doctest: +SKIP
    >>> link.subscribe(lambda scan: print(scan.cells))  # doctest: +SKIP
    >>> link.open(timeout=5)                          # doctest: +SKIP
    >>> link.set_leds([(255, 0, 0)] * 121)            # doctest: +SKIP

    Subscribers are called on the link's thread with each ``Scan`` whose cells
    differ from the last one delivered, including after a reconnect when pieces
    moved while the link was down. ``state``, ``error``, ``hello``, ``last_scan``
    and ``counters()`` are for diagnostics and may be read at any time.
    """

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        self.port = port
        self.baudrate = baudrate
        self.state = CLOSED
        self.error: str | None = None
        self.hello: Hello | None = None
        self.last_scan: Scan | None = None
        #: a magnet board's last raw readings (ADC counts per cell), while asked for
        self.last_readings: list[int] | None = None
        self._lock = threading.RLock()
        self._state_changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: serial.Serial | None = None
        self._broken: str | None = None
        self._decoder = Decoder()
        self._counts = {
            "frames_sent": 0,
            "retransmits": 0,
            "reconnects": 0,
            "nacks": 0,
            "device_errors": 0,
            "scans": 0,
        }
        self._subscribers: list[ScanSubscriber] = []
        self._state_subscribers: list[StateSubscriber] = []
        self._seq = 0
        self._hello_seq: int | None = None
        self._in_flight: _Command | None = None
        self._desired: bytes | None = None
        self._shown: bytes | None = None
        self._rejected: bytes | None = None
        self._settings: dict[str | int, int] = {}
        self._settings_due = False
        self._thresholds: Thresholds | None = None
        self._thresholds_due = False
        self._pings: list[_PingWaiter] = []
        self._last_heard = 0.0
        self._incompatible: ProtocolVersionError | None = None
        #: written to wake the link thread from its wait for bytes: a command was sent
        #: (its retransmission is due sooner) or the link closes
        self._wake_read: int | None = None
        self._wake_write: int | None = None

    # -- the caller's side --------------------------------------------------------------

    def open(self, timeout: float | None = None) -> None:
        """Start the link in the background.

        With a ``timeout`` (seconds), wait until the board is up: raise
        ``ProtocolVersionError`` if it speaks another protocol version and
        ``LinkError`` if it is not up in time. The link keeps trying either way
        until ``close``.
        """
        if self._thread is None:
            self._wake_read, self._wake_write = os.pipe()
            os.set_blocking(self._wake_write, False)
            thread = threading.Thread(target=self._run, name="boardref-link", daemon=True)
            self._thread = thread
            thread.start()
        if timeout is None:
            return
        with self._state_changed:
            self._state_changed.wait_for(
                lambda: self.state == UP or self._incompatible is not None, timeout
            )
            if self._incompatible is not None:
                raise self._incompatible
            if self.state != UP:
                raise LinkError(f"no board on {self.port} within {timeout} s: {self.error}")

    def close(self) -> None:
        """Stop the link and release the port; a closed link stays closed."""
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
            if (
                not self._thread.is_alive()
                and self._wake_read is not None
                and self._wake_write is not None
            ):
                os.close(self._wake_read)
                os.close(self._wake_write)
                self._wake_read = self._wake_write = None
        self._set_state(CLOSED, self.error)

    def __enter__(self) -> "Link":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def subscribe(self, callback: ScanSubscriber) -> Callable[[], None]:
        """Call ``callback(scan)`` on every change of the board; returns an unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)
        return lambda: self._unsubscribe(self._subscribers, callback)

    def subscribe_state(self, callback: StateSubscriber) -> Callable[[], None]:
        """Call ``callback(state, error)`` on every change of link state; returns an
        unsubscribe. The error is a sentence for logs and the panel, or None."""
        with self._lock:
            self._state_subscribers.append(callback)
        return lambda: self._unsubscribe(self._state_subscribers, callback)

    def set_leds(self, colors: bytes | bytearray | Iterable[Iterable[int]]) -> None:
        """Show ``colors`` (bytes r, g, b per cell, or one (r, g, b) per cell).

        Returns at once. Only the newest colours are kept: the device gets them as
        soon as it is ready, whatever happened in between.
        """
        rgb = _rgb(colors)
        with self._lock:
            if self.hello is not None and len(rgb) != 3 * self.hello.cells:
                raise ValueError(f"the board has {self.hello.cells} LEDs, not {len(rgb) // 3}")
            self._desired = rgb
            self._pump()

    def configure(self, **settings: int) -> None:
        """Change device settings (names and ranges in PROTOCOL.md, CONFIG); they are
        sent now and again after every reconnect."""
        for name, value in settings.items():
            limits = protocol.CONFIG_RANGES.get(name)
            if limits is None or not limits[0] <= value <= limits[1]:
                raise ValueError(f"{name}={value!r} is not a valid device setting")
        with self._lock:
            self._settings.update(settings)
            self._settings_due = True
            self._pump()

    def calibrate(self, north: list[int], south: list[int]) -> None:
        """Per-cell thresholds for a magnet board (PROTOCOL.md, THRESHOLDS), cell 0
        first; sent now and again after every reconnect."""
        thresholds = Thresholds(north, south)
        with self._lock:
            self._thresholds = thresholds
            self._thresholds_due = True
            self._pump()

    def ping(self, timeout: float = 1.0) -> float | None:
        """Round-trip time to the device in seconds; LinkError if there is no answer."""
        waiter = _PingWaiter()
        with self._lock:
            self._pings.append(waiter)
            self._pump()
        if not waiter.done.wait(timeout):
            with self._lock:
                if waiter in self._pings:
                    self._pings.remove(waiter)
            raise LinkError(f"no answer to PING within {timeout} s (link {self.state})")
        return waiter.round_trip

    def counters(self) -> dict[str, int]:
        """Counts since the link was made, for diagnostics."""
        decoder = self._decoder
        with self._lock:
            counts = dict(self._counts)
        counts.update(
            frames_received=decoder.frames,
            dropped=decoder.errors,
            crc_errors=decoder.crc_errors,
            framing_errors=decoder.framing_errors,
            rejected=decoder.rejected,
        )
        return counts

    @property
    def shown(self) -> bytes | None:
        """The LED colours the device has acknowledged, or None while unknown."""
        return self._shown

    # -- the link thread --------------------------------------------------------------

    def _run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self._stop.is_set():
            delay = backoff
            if not self._device_present():
                # Nothing to open: wait for the device path to appear (plug-in).
                self._set_state(DOWN, f"no device at {self.port}: is the board plugged in?")
                self._pause(BACKOFF_MAX, was_present=False)
                continue
            try:
                port = self._connect()
            except ProtocolVersionError as error:
                with self._lock:
                    self._incompatible = error
                self._set_state(INCOMPATIBLE, str(error))
                delay = BACKOFF_MAX
            except (LinkError, serial.SerialException, OSError) as error:
                self._set_state(DOWN, f"cannot connect to {self.port}: {error}")
                backoff = min(2 * backoff, BACKOFF_MAX)
            else:
                backoff = BACKOFF_FIRST
                try:
                    self._serve(port)
                except (LinkError, serial.SerialException, OSError) as error:
                    self._set_state(DOWN, f"lost {self.port}: {error}")
                finally:
                    self._release(port)
            if not self._stop.is_set():
                self._pause(delay, self._device_present())

    def _pause(self, delay: float, was_present: bool) -> None:
        """Wait ``delay`` seconds before the next attempt, but go at once when the
        device path appears (it vanishes on unplug and comes back on plug-in)."""
        deadline = time.monotonic() + delay
        while not self._stop.wait(_PRESENCE_POLL):
            present = self._device_present()
            if time.monotonic() >= deadline or (present and not was_present):
                return
            was_present = present

    def _device_present(self) -> bool:
        return "://" in self.port or os.path.exists(self.port)

    def _connect(self) -> serial.Serial:
        self._set_state(CONNECTING, self.error)
        port = serial.serial_for_url(
            self.port,
            baudrate=self.baudrate,
            timeout=_READ_TIMEOUT,
            write_timeout=_WRITE_TIMEOUT,
        )
        try:
            if _waitable(port):
                port.timeout = 0  # read what select says is there, never wait in read
            port.reset_input_buffer()
            with self._lock:
                self._serial = port
                self._broken = None
                self._in_flight = None
                self._decoder.reset()
            hello, scan = self._handshake(port)
        except BaseException:
            self._release(port)
            raise
        with self._lock:
            if self._desired is not None and len(self._desired) != 3 * hello.cells:
                log.warning(
                    "dropping LED colours for %d cells: the board has %d",
                    len(self._desired) // 3,
                    hello.cells,
                )
                self._desired = None
            # counted before the link says it is up and the LEDs are sent again, so
            # whoever sees the link back sees the reconnect counted
            if self.hello is not None:  # it was up before
                self._counts["reconnects"] += 1
            self.hello = hello
            self._incompatible = None
            # The device may have rebooted: it shows nothing we know of, and has
            # forgotten its settings.
            self._shown = None
            self._rejected = None
            self._settings_due = bool(self._settings)
            self._thresholds_due = self._thresholds is not None
            self._last_heard = time.monotonic()
        self._set_state(UP, None)
        self._deliver(scan)
        with self._lock:
            self._pump()
        return port

    def _handshake(self, port: serial.Serial) -> tuple[Hello, Scan]:
        """HELLO until the device answers, then its full SCAN: PROTOCOL.md section 6."""
        with self._lock:
            seq = self._hello_seq = self._next_seq()
        frame = protocol.encode(Hello(0, protocol.SENSOR_NONE, HOST_FIRMWARE, seq=seq))
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        resend_at = 0.0
        hello: Hello | None = None
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= deadline:
                waited = "HELLO" if hello is None else "its board scan"
                raise LinkError(f"the device did not send {waited} within {HANDSHAKE_TIMEOUT} s")
            if hello is None and now >= resend_at:
                with self._lock:
                    self._write(frame)
                resend_at = now + HELLO_RETRY
            for message in self._receive(port, deadline if hello else min(deadline, resend_at)):
                if isinstance(message, Hello):
                    if message.protocol_version != protocol.PROTOCOL_VERSION:
                        raise ProtocolVersionError(self.port, message)
                    if hello is None:
                        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
                    hello = message
                elif hello is not None and isinstance(message, Scan):
                    return hello, message
        raise LinkError("closed")

    def _serve(self, port: serial.Serial) -> None:
        while not self._stop.is_set():
            due = self._last_heard + DEAD_AFTER
            command = self._in_flight
            if command is not None:
                due = min(due, command.sent_at + ACK_TIMEOUT)
            for message in self._receive(port, due):
                self._handle(message)
            with self._lock:
                if self._broken:
                    raise LinkError(self._broken)
                self._retransmit()
            silent = time.monotonic() - self._last_heard
            if silent > DEAD_AFTER:
                raise LinkError(f"no frame from the device for {silent:.1f} s")

    def _receive(self, port: serial.Serial, due: float) -> list[Message]:
        """The frames that came, waiting for bytes until ``due`` (monotonic seconds)
        at the latest: the thread sleeps until bytes come, a command is sent or the
        link closes, so an idle board costs only its heartbeats."""
        wake = self._wake_read
        if not _waitable(port) or wake is None:
            data = port.read(port.in_waiting or 1)
        else:
            device = port.fileno()
            ready, _, _ = select.select([device, wake], [], [], max(0.0, due - time.monotonic()))
            if wake in ready:
                os.read(wake, 4096)
            # a device gone reads as ready with nothing to read: pyserial raises
            data = port.read(max(1, port.in_waiting)) if device in ready else b""
        messages = self._decoder.feed(data)
        if messages:
            self._last_heard = time.monotonic()
        return messages

    def _handle(self, message: Message) -> None:
        with self._lock:
            self._acknowledge(message)
        if isinstance(message, Scan):
            self._deliver(message)
        elif isinstance(message, Raw):
            self.last_readings = message.readings
        elif isinstance(message, Hello) and message.seq != self._hello_seq:
            # Not an answer to our HELLO: the device restarted under us, shows nothing
            # and forgot its settings. Its full SCAN follows, as after every HELLO.
            log.warning("board on %s restarted (%s)", self.port, message.firmware)
            with self._lock:
                self._shown = None
                self._settings_due = bool(self._settings)
                self._thresholds_due = self._thresholds is not None
                self._pump()
        elif isinstance(message, protocol.Error):
            with self._lock:
                self._counts["device_errors"] += 1
            log.warning(
                "board on %s reports %s: %s",
                self.port,
                _ERROR_NAMES.get(message.code, message.code),
                message.detail,
            )

    def _deliver(self, scan: Scan) -> None:
        with self._lock:
            self._counts["scans"] += 1
            previous = self.last_scan
            self.last_scan = scan
            subscribers = list(self._subscribers)
        if previous is not None and previous.cells == scan.cells:
            return
        for callback in subscribers:
            try:
                callback(scan)
            except Exception:
                # A broken subscriber must not stop the board reaching the others.
                log.exception("scan subscriber %r failed", callback)

    def _release(self, port: serial.Serial) -> None:
        with self._lock:
            self._serial = None
            self._in_flight = None
        try:
            port.close()
        except (serial.SerialException, OSError):
            log.debug("closing %s failed", self.port, exc_info=True)

    # -- commands: one in flight, acknowledged by any device frame (PROTOCOL.md 3) --------
    # Everything below runs with self._lock held.

    def _next_seq(self) -> int:
        self._seq = self._seq % 255 + 1
        return self._seq

    def _pump(self) -> None:
        """Send the next command if the link is up and none is in flight."""
        if self.state != UP or self._in_flight is not None or self._serial is None:
            return
        if self._settings_due:
            self._settings_due = False
            self._send(Config(dict(self._settings)))
        elif self._thresholds_due and self._thresholds is not None:
            self._thresholds_due = False
            north, south = self._thresholds.north, self._thresholds.south
            self._send(Thresholds(north, south))
        elif self._pings:
            waiter = self._pings.pop(0)
            self._send(Ping(int(time.monotonic() * 1000) & 0xFFFFFFFF), answered=waiter)
        elif self._desired is not None and self._leds_due(self._desired):
            self._send(self._led_frame(self._desired), colors=self._desired)

    def _leds_due(self, desired: bytes) -> bool:
        return desired != self._shown and desired != self._rejected

    def _led_frame(self, desired: bytes) -> SetLeds:
        shown = self._shown
        if shown is not None:
            changed = [
                cell
                for cell in range(len(desired) // 3)
                if desired[3 * cell : 3 * cell + 3] != shown[3 * cell : 3 * cell + 3]
            ]
            if 4 * len(changed) < len(desired):
                colors = b"".join(desired[3 * cell : 3 * cell + 3] for cell in changed)
                return SetLeds(colors, bytes(changed))
        return SetLeds(desired)

    def _send(
        self,
        message: Message,
        colors: bytes | None = None,
        answered: _PingWaiter | None = None,
    ) -> _Command:
        message.seq = self._next_seq()
        command = _Command(message.seq, protocol.encode(message), colors, answered)
        self._in_flight = command
        self._transmit(command)
        return command

    def _transmit(self, command: _Command) -> None:
        command.sent_at = time.monotonic()
        if command.first_sent_at is None:
            command.first_sent_at = command.sent_at
        self._write(command.frame)
        self._wake()  # its retransmission may be due before the link thread would wake

    def _wake(self) -> None:
        """Wake the link thread from its wait for bytes."""
        if self._wake_write is not None:
            # a full pipe has woken it already
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(self._wake_write, b"\0")

    def _write(self, frame: bytes) -> None:
        if self._serial is None:
            return
        try:
            self._serial.write(frame)
        except (serial.SerialException, OSError) as error:
            # Possibly the caller's thread: leave the reconnecting to the link thread.
            self._broken = f"write failed: {error}"
            return
        self._counts["frames_sent"] += 1

    def _acknowledge(self, message: Message) -> None:
        command = self._in_flight
        if command is None:
            return
        if isinstance(message, Nack):
            if message.rejected != command.seq:
                return
            self._counts["nacks"] += 1
            log.warning(
                "board on %s rejected command %d: %s",
                self.port,
                command.seq,
                _ERROR_NAMES.get(message.code, message.code),
            )
            if command.colors is not None:
                self._shown = None
                self._rejected = command.colors
        elif message.seq != command.seq:
            return
        elif command.colors is not None:
            self._shown = command.colors
        elif command.answered is not None and command.first_sent_at is not None:
            command.answered(time.monotonic() - command.first_sent_at)
        self._in_flight = None
        self._pump()

    def _retransmit(self) -> None:
        command = self._in_flight
        if command is None or time.monotonic() - command.sent_at < ACK_TIMEOUT:
            return
        if command.retransmits >= MAX_RETRANSMITS:
            raise LinkError(
                f"command {command.seq} unanswered after {MAX_RETRANSMITS} retransmissions"
            )
        self._counts["retransmits"] += 1
        desired = self._desired
        if command.colors is not None and desired is not None and command.colors != desired:
            # Newer colours are wanted. The old frame may or may not have landed,
            # so only a full frame of the newest colours is safe.
            self._shown = None
            replacement = self._send(SetLeds(desired), colors=desired)
            replacement.retransmits = command.retransmits + 1
            return
        command.retransmits += 1
        self._transmit(command)

    # -- state --------------------------------------------------------------------------

    def _set_state(self, state: str, error: str | None) -> None:
        with self._state_changed:
            if state == self.state and error == self.error:
                return
            self.state, self.error = state, error
            self._state_changed.notify_all()
            subscribers = list(self._state_subscribers)
        if error and state != CONNECTING:
            log.warning("board link %s: %s", state, error)
        else:
            log.info("board link %s", state)
        for callback in subscribers:
            try:
                callback(state, error)
            except Exception:
                log.exception("link state subscriber %r failed", callback)

    def _unsubscribe(self, subscribers: list[Any], callback: object) -> None:
        with self._lock:
            if callback in subscribers:
                subscribers.remove(callback)


def _waitable(port: serial.Serial) -> bool:
    """Whether ``port`` has a file descriptor to wait on (a device; not every pyserial
    URL has one)."""
    try:
        return port.fileno() >= 0
    except (AttributeError, OSError, ValueError, serial.SerialException):
        return False
