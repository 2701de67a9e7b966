"""A simulated board microcontroller on a pseudo-terminal.

It runs the firmware's own device logic (``firmware/device.py``: debounce, SCAN,
heartbeat, LED commands) against simulated hall sensors, so the host driver, the
service and the tests talk to it exactly as to a Pico. Tests and the service drive
it in-process through ``Simulator``; ``python -m firmware_bridge.sim`` runs one and
takes the same controls as lines on standard input. It must never implement any
part of the protocol itself: whatever it says, the firmware says.
"""

import argparse
import contextlib
import os
import random
import select
import signal
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterable

from firmware_bridge import protocol
from firmware_bridge.firmware.device import Device
from firmware_bridge.flash import shipped_firmware, version_of

#: the simulated board runs the firmware this boardref ships, and says so in HELLO
FIRMWARE = f"boardref-sim {version_of(shipped_firmware())}"


def _now_ms() -> int:
    return int(time.monotonic() * 1000)


class SimulatedSensors:
    """What the hall sensors read: the true board, plus noise, injected flicker and the
    faults a board build can have (a stuck sensor, a dead one, one that answers for
    its neighbour's piece too)."""

    #: A magnet sensor at rest reads half supply; a piece moves it by SWING times the
    #: sensor's gain, up for north-up pieces and down for south-up ones.
    MID = 32768
    SWING = 12000
    DEFAULT_THRESHOLD = 6000

    def __init__(self, cells: int, noise: float, rng: random.Random, magnet: bool = False) -> None:
        self.board = bytearray(cells)
        self.noise = noise
        self.magnet = magnet
        self.baseline: list[float] = [self.MID] * cells
        self.gain = [1.0] * cells
        self.north = [self.MID + self.DEFAULT_THRESHOLD] * cells
        self.south = [self.MID - self.DEFAULT_THRESHOLD] * cells
        #: the last readings of a magnet board (ADC counts), or None
        self.readings: list[int] | None = None
        self.stuck: set[int] = set()
        self.dead: set[int] = set()
        #: sensor -> the neighbouring sensors whose piece it answers to as well
        self.crosstalk: dict[int, set[int]] = {}
        self._rng = rng
        self._flicker_until: dict[int, float] = {}

    def flicker(self, cell: int, seconds: float) -> None:
        """Make ``cell`` read at random for ``seconds``, like a hand passing over it."""
        self._flicker_until[cell] = time.monotonic() + seconds

    def calibrate(self, north: list[int], south: list[int]) -> None:
        """Per-sensor thresholds from the host (THRESHOLDS), as the firmware keeps them."""
        self.north, self.south = list(north), list(south)

    def _classified(self) -> bytearray:
        readings = []
        raw = bytearray(len(self.board))
        for cell, state in enumerate(self.board):
            pole = 1 if state == protocol.PRESENT else -1 if state == protocol.SOUTH_UP else 0
            reading = int(self.baseline[cell] + pole * self.SWING * self.gain[cell])
            reading = min(0xFFFF, max(0, reading))
            readings.append(reading)
            if reading >= self.north[cell]:
                raw[cell] = protocol.PRESENT
            elif reading <= self.south[cell]:
                raw[cell] = protocol.SOUTH_UP
        self.readings = readings
        return raw

    def read(self) -> bytes:
        """One scan's raw states, a byte per cell (a magnet board classifies its
        readings by its thresholds, as the firmware does)."""
        raw = self._classified() if self.magnet else bytearray(self.board)
        for sensor, neighbours in self.crosstalk.items():
            if not raw[sensor]:
                raw[sensor] = max(self.board[n] for n in neighbours)
        for sensor in self.stuck:
            raw[sensor] = protocol.PRESENT
        for sensor in self.dead:
            raw[sensor] = protocol.EMPTY
        rng = self._rng
        if self.noise:
            for cell in range(len(raw)):
                if rng.random() < self.noise:
                    raw[cell] = protocol.EMPTY if raw[cell] else protocol.PRESENT
        now = time.monotonic()
        for cell, until in list(self._flicker_until.items()):
            if now >= until:
                del self._flicker_until[cell]
            else:
                raw[cell] = rng.choice((protocol.EMPTY, protocol.PRESENT))
        return bytes(raw)


class Simulator:
    """A board microcontroller on a pseudo-terminal, reachable at the stable ``path``.

    ``path`` is a symlink to the current pseudo-terminal, like a udev name or a
    ``/dev/serial/by-id`` link: ``unplug`` removes it and hangs the terminal up,
    ``plug`` boots a fresh device on a new terminal and points the link at it.
    """

    def __init__(
        self,
        cells: int = 121,
        noise: float = 0.0,
        path: str | None = None,
        sensor_kind: int = protocol.SENSOR_PRESENCE,
        settings: dict[str, int] | None = None,
        protocol_version: int = protocol.PROTOCOL_VERSION,
        seed: int | None = None,
        firmware: str = FIRMWARE,
    ) -> None:
        if not 0 < cells <= protocol.MAX_CELLS:  # more would never reach the host
            raise ValueError(f"{cells} cells: a scan carries 1 to {protocol.MAX_CELLS}")
        self._own_dir: str | None = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="boardref-sim-")
            path = os.path.join(self._own_dir, "boardref-pico")
        self.path = path
        self.cells = cells
        magnet = sensor_kind == protocol.SENSOR_MAGNET
        self.sensors = SimulatedSensors(cells, noise, random.Random(seed), magnet)
        self.device: Device | None = None
        self.output_dropped = 0
        self._sensor_kind = sensor_kind
        self._settings = settings
        self._protocol_version = protocol_version
        self._firmware = firmware
        self._master: int | None = None
        self._slave: int | None = None
        self._want_plugged = True
        self._stalled_until = 0.0
        self._stalled = False
        self._injected: list[bytes] = []
        self._changed = threading.Condition()
        self._closing = False
        #: a control changed what the sensors read or what the device must do: the
        #: device, resting between heartbeats, scans again at once
        self._nudged, self._nudge_line = os.pipe()
        os.set_blocking(self._nudged, False)
        os.set_blocking(self._nudge_line, False)
        self._thread = threading.Thread(target=self._run, name="boardref-sim", daemon=True)

    # -- controls -------------------------------------------------------------------

    def start(self) -> "Simulator":
        """Plug the device in and start it; returns self."""
        self._thread.start()
        self._wait_applied()
        return self

    def close(self) -> None:
        """Unplug and stop for good."""
        with self._changed:
            self._closing = True
            self._want_plugged = False
        self._nudge()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for end in (self._nudged, self._nudge_line):
            with contextlib.suppress(OSError):  # closed already by an earlier close
                os.close(end)
        if self._own_dir:
            os.rmdir(self._own_dir)
            self._own_dir = None

    def __enter__(self) -> "Simulator":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def set_cell(self, cell: int, state: int) -> None:
        """Put (state 1, or a magnet class) or take away (state 0) the piece on ``cell``."""
        self.sensors.board[cell] = state
        self._nudge()

    def set_board(self, states: bytes | Iterable[int]) -> None:
        """Set every cell at once, a byte (or int) per cell."""
        cells = bytes(states)
        if len(cells) != self.cells:
            raise ValueError(f"the board has {self.cells} cells, not {len(cells)}")
        self.sensors.board[:] = cells
        self._nudge()

    @property
    def board(self) -> bytes:
        """What truly stands on the board, a byte per cell."""
        return bytes(self.sensors.board)

    def flicker(self, cell: int, seconds: float) -> None:
        """Make one sensor read at random for a while."""
        self.sensors.flicker(cell, seconds)
        self._nudge()

    def stick(self, cell: int) -> None:
        """Make one sensor read a piece whatever stands there (a shorted switch)."""
        self.sensors.stuck.add(cell)
        self._nudge()

    def kill(self, cell: int) -> None:
        """Make one sensor read nothing whatever stands there (a dead or unwired sensor)."""
        self.sensors.dead.add(cell)
        self._nudge()

    def couple(self, cell: int, neighbour: int) -> None:
        """Make sensor ``cell`` answer to a piece on ``neighbour`` too (a magnet too
        strong, a sensor mounted off-centre)."""
        self.sensors.crosstalk.setdefault(cell, set()).add(neighbour)
        self._nudge()

    def tune(self, cell: int, baseline: float | None = None, gain: float | None = None) -> None:
        """Give one magnet sensor its own resting reading (ADC counts) or gain (1.0 is
        a typical sensor; a weak magnet or a sensor mounted low reads less)."""
        if baseline is not None:
            self.sensors.baseline[cell] = baseline
        if gain is not None:
            self.sensors.gain[cell] = gain
        self._nudge()

    def stall(self, seconds: float) -> None:
        """Hang the device for ``seconds`` (0 ends a stall): no scans, no answers, no
        heartbeat; then it carries on where it was. Returns once the device has
        stopped (or resumed), so nothing slips through after the call."""
        with self._changed:
            self._stalled_until = time.monotonic() + seconds
            self._nudge()
            self._changed.wait_for(
                lambda: self._stalled == (seconds > 0) or not self._thread.is_alive(), timeout=5
            )

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the line towards the host, between frames, like line noise."""
        self._injected.append(bytes(data))
        self._nudge()

    def unplug(self) -> None:
        """Pull the USB cable: the link vanishes and the terminal hangs up."""
        with self._changed:
            self._want_plugged = False
        self._nudge()
        self._wait_applied()

    def plug(self) -> None:
        """Plug the cable back in: the device boots afresh (LEDs dark) and reappears."""
        with self._changed:
            self._want_plugged = True
        self._nudge()
        self._wait_applied()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    @property
    def leds(self) -> bytes:
        """The LED colours the device shows, r, g, b per cell (before brightness)."""
        device = self.device
        return bytes(device.colors) if device else bytes(3 * self.cells)

    # -- the device's main loop ---------------------------------------------------------

    def _wait_applied(self) -> None:
        with self._changed:
            if not self._changed.wait_for(
                lambda: self.plugged == self._want_plugged or not self._thread.is_alive(),
                timeout=5,
            ):
                raise TimeoutError("the simulator did not follow the control in time")

    def _nudge(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):  # a nudge is pending already
            os.write(self._nudge_line, b"!")

    def _resting(self, alike: int, device: Device) -> bool:
        """Whether the next scans can say nothing until the heartbeat: the board read
        alike for more scans in a row than the debouncer needs (so it has taken the
        board as it reads), and nothing read at random (noise, a flicker)."""
        sensors = self.sensors
        settled = alike > device.settings["debounce_scans"]
        return settled and not sensors.noise and not sensors._flicker_until

    def _run(self) -> None:
        next_scan = 0
        # A resting board is scanned only for the heartbeat, as its scans would say
        # nothing (the firmware still decides what each scan says): the simulated
        # board on a table nobody touches costs no CPU for 250 scans a second
        alike, last_raw, said_at = 0, b"", _now_ms()
        try:
            while not self._closing:
                if self._want_plugged != self.plugged:
                    self._apply_plug()
                    next_scan = _now_ms()
                stalled = self._stalled_until > time.monotonic()
                if stalled != self._stalled:
                    with self._changed:
                        self._stalled = stalled
                        self._changed.notify_all()
                device, master = self.device, self._master
                if device is None or master is None or stalled:
                    time.sleep(0.01)
                    continue
                due = next_scan
                if self._resting(alike, device):
                    due = max(due, said_at + device.settings["heartbeat_ms"])
                wait = max(0, due - _now_ms()) / 1000
                ready = select.select([master, self._nudged], [], [], wait)[0]
                if self._nudged in ready:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._nudged, 4096)
                    alike = 0
                if master in ready:
                    self._send(device.receive(self._read(master), _now_ms()))
                    alike = 0
                while self._injected:
                    self._send(self._injected.pop(0))
                now = _now_ms()
                if now >= next_scan:
                    raw = self.sensors.read()
                    alike = alike + 1 if raw == last_raw else 0
                    last_raw = raw
                    said = device.scan(raw, now, self.sensors.readings)
                    if said:
                        said_at = now
                    self._send(said)
                    period = device.settings["scan_period_ms"]
                    next_scan = max(next_scan + period, now)
        finally:
            self._hang_up()
            with self._changed:
                self._changed.notify_all()

    def _apply_plug(self) -> None:
        if self._want_plugged:
            master, slave = os.openpty()
            # Raw before anyone opens it: the line discipline must not echo our frames.
            tty.setraw(slave)
            os.set_blocking(master, False)
            device = Device(
                self.cells,
                self._sensor_kind,
                self._firmware,
                lambda colors, brightness: None,
                self._settings,
                self._protocol_version,
                self.sensors.calibrate if self.sensors.magnet else None,
            )
            staged = self.path + ".new"
            os.symlink(os.ttyname(slave), staged)
            os.replace(staged, self.path)
            # Plugged only now, with the name in place: whoever waited may open it.
            self.device = device
            self._master, self._slave = master, slave
            self._send(device.boot(self.sensors.read(), _now_ms()))
        else:
            self._hang_up()
        with self._changed:
            self._changed.notify_all()

    def _hang_up(self) -> None:
        master, slave = self._master, self._slave
        if master is None or slave is None:
            return
        # The name goes first, as udev removes it, so nobody reopens a dying terminal.
        if os.path.lexists(self.path):
            os.unlink(self.path)
        os.close(slave)
        os.close(master)
        self._master = self._slave = None

    def _read(self, master: int) -> bytes:
        try:
            return os.read(master, 4096)
        except BlockingIOError:
            return b""

    def _send(self, data: bytes) -> None:
        master = self._master
        if master is None:
            return
        # Like USB CDC with nobody listening: what does not fit is lost, never waited for.
        while data:
            try:
                written = os.write(master, data)
            except BlockingIOError:
                self.output_dropped += len(data)
                return
            data = data[written:]


def _control(simulator: Simulator, line: str) -> str:
    """Apply one command line from standard input; returns the reply to print."""
    words = line.split()
    if not words:
        return ""
    command, args = words[0], words[1:]
    if command == "set" and len(args) == 2:
        simulator.set_cell(int(args[0]), int(args[1]))
    elif command == "flicker" and len(args) == 2:
        simulator.flicker(int(args[0]), float(args[1]))
    elif command == "stick" and len(args) == 1:
        simulator.stick(int(args[0]))
    elif command == "kill" and len(args) == 1:
        simulator.kill(int(args[0]))
    elif command == "couple" and len(args) == 2:
        simulator.couple(int(args[0]), int(args[1]))
    elif command == "stall" and len(args) == 1:
        simulator.stall(float(args[0]))
    elif command == "inject" and len(args) == 1:
        simulator.inject(bytes.fromhex(args[0]))
    elif command == "unplug" and not args:
        simulator.unplug()
    elif command == "plug" and not args:
        simulator.plug()
    elif command == "board" and not args:
        return " ".join(str(state) for state in simulator.board)
    elif command == "leds" and not args:
        return simulator.leds.hex()
    else:
        return (
            "commands: set CELL STATE | flicker CELL SECONDS | stick CELL | kill CELL"
            " | couple CELL NEIGHBOUR | stall SECONDS | inject HEX"
            " | unplug | plug | board | leds"
        )
    return "ok"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m firmware_bridge.sim",
        description="Run a simulated board microcontroller on a pseudo-terminal. Prints the"
        " device path, then takes commands on standard input (try 'help').",
    )
    parser.add_argument("--cells", type=int, default=121, help="number of sensor cells")
    parser.add_argument("--noise", type=float, default=0.0, help="chance a reading is wrong")
    parser.add_argument("--path", help="where to put the device link (default: a temp dir)")
    parser.add_argument("--seed", type=int, help="seed for noise and flicker")
    parser.add_argument("--magnet", action="store_true", help="report magnet classes")
    parser.add_argument(
        "--protocol-version",
        type=int,
        default=protocol.PROTOCOL_VERSION,
        help="speak another protocol version (to try a host's mismatch error)",
    )
    args = parser.parse_args(argv)
    if not 0 < args.cells <= protocol.MAX_CELLS:
        parser.error(f"--cells must be 1..{protocol.MAX_CELLS}")
    kind = protocol.SENSOR_MAGNET if args.magnet else protocol.SENSOR_PRESENCE
    simulator = Simulator(
        args.cells,
        args.noise,
        args.path,
        kind,
        protocol_version=args.protocol_version,
        seed=args.seed,
    )
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    with simulator:
        print(simulator.path, flush=True)
        try:
            for line in sys.stdin:
                try:
                    reply = _control(simulator, line)
                except (ValueError, IndexError) as error:
                    reply = f"error: {error}"
                if reply:
                    print(reply, flush=True)
            # Standard input closed (started in the background): run until stopped.
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
