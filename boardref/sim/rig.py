"""The simulated board of ``boardref simulate`` (``Rig``): the hall sensors on the
simulated MCU read through the real host driver, a rendered camera, or both, and the
table that lights the cells, kept in step on a simulated clock. The simulated hands
(``hands.py``) act on it; it never decides a rule.
"""

from __future__ import annotations

import queue
import time

from boardref.devices.board import SensorBoard
from boardref.referee.kinds import Sensor
from boardref.referee.referee import Referee
from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator
from hardware.lights import CellLights, Palette

#: fast scanning and a long debounce: noise never passes, changes arrive in ~15 ms
MCU_SETTINGS = {"scan_period_ms": 2, "debounce_scans": 6}
WAIT = 10.0  # seconds of real time a scan may take to arrive before we give up
#: the simulated camera: a quarter of 1280x720 keeps 200 moves within minutes
FRAME_SIZE = (640, 360)
FPS = 10
#: the camera scene's difficulty (vision.render.DIFFICULTY)
SCENE = "easy"
SCENE_TRIES = 5
#: a camera knocked by a mishap is knocked after this many frames (a minute of play)
BUMP_AFTER = 600


class SimClock:
    """The simulated time the referee judges by."""

    def __init__(self):
        self.now = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Rig:
    """The simulated board: the hall sensors on the simulated MCU and the real link,
    a rendered camera, or both, and a table, kept in step on a simulated clock."""

    fps = FPS  # the simulated camera's frames a second

    def __init__(
        self, referee: Referee, noise: float, seed: int, sensor: str, mishap=None, table=None
    ):
        self.clock = SimClock()
        #: what goes wrong at the camera's table (``vision.mishaps.Mishaps``), or None
        self.mishap = mishap
        #: where the camera's frames come from: ``table(game, seed)`` gives a renderer
        #: (``frame(tokens, hands, under)``) and its lens; None for ``vision.render``'s
        self.table = table
        self.game = referee.game
        self.cells = [cell.id for cell in self.game.board.cells]
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.mcu = self.link = self.camera = None
        self.scans: queue.Queue[bytes] = queue.Queue()
        if sensor in ("hall", "both"):
            settings = MCU_SETTINGS
            try:
                self.mcu = Simulator(len(self.cells), noise=noise, seed=seed, settings=settings)
            except ValueError as exc:  # Hägar's table: more places than a board scans
                raise ValueError(f"{self.game.name}: {exc}; use --sensor camera") from None
            self.mcu.start()
            self.link = Link(self.mcu.path)
            self.link.subscribe(lambda scan: self.scans.put(bytes(scan.cells)))
            self.link.open(timeout=WAIT)
        lights = CellLights(self.cells, Palette.load())
        send = self.link.set_leds if self.link is not None else None
        self.board = SensorBoard(referee, self.cells, lights, send_leds=send)
        self.verdict_ms: list[float] = []
        self.delivered = bytes(len(self.cells))
        #: what the camera sees: tokens, disks under figures, the cells under a hand
        self.tokens: dict[str, str | None] = {}
        self.under: dict[str, str] = {}
        self.hands: tuple[str, ...] = ()
        #: frames taken with a hand over the board, and those the reader read anyway
        self.hand_frames = self.hand_frames_read = 0
        if sensor in ("camera", "both"):
            self.camera = self._camera(referee, seed)

    def _camera(self, referee: Referee, seed: int):
        """The rendered camera, set up as at a real table: it learns the bare board,
        then the start position. At ``FRAME_SIZE`` a scene now and then shows the
        markers too small to find; then the next scene is used (``scene_seed``)."""
        from boardref.devices.camera import TableCamera, reader_for
        from boardref.sim.rendered_source import rendered_camera
        from hardware.frame_source import SyntheticSource

        start = self.game.initial_state()
        for scene_seed in range(seed, seed + SCENE_TRIES):
            try:
                if self.table is not None:
                    renderer, lens = self.table(self.game, scene_seed)
                elif self.mishap is None:
                    renderer, lens = rendered_camera(self.game, scene_seed, SCENE, FRAME_SIZE)
                else:
                    from vision.mishaps import staged_camera

                    renderer, lens = staged_camera(
                        self.game, scene_seed, SCENE, FRAME_SIZE, self.mishap, BUMP_AFTER
                    )
            except KeyError:  # vision has no look for its pieces (the card game)
                raise ValueError(
                    f"the camera cannot read {self.game.name} yet: it is played on the panel; "
                    "simulate it with --sensor hall"
                ) from None
            source = SyntheticSource(renderer, self._shown, lens.size)
            reader = reader_for(self.game, lens)
            if hasattr(reader, "clock"):  # a board's reader waits by the table's clock
                reader.clock = lambda: self.clock.now
            camera = TableCamera(referee, source, reader)
            self.under = self._underlays(start)
            learned = True
            bare = self.mishap is None or self.mishap.bare_board
            shown = ([dict.fromkeys(self.cells)] if bare else []) + [self.game.observe(start)]
            for truth in shown:
                self.tokens = truth
                learned = learned and camera.learn(truth)
            if learned:
                self.scene_seed = scene_seed
                return camera
            camera.close()
        raise RuntimeError(f"the simulated camera found the board in none of {SCENE_TRIES} scenes")

    def _shown(self):
        under = {c: k for c, k in self.under.items() if self.tokens.get(c) not in (None, k)}
        return self.tokens, self.hands, under

    def _underlays(self, state) -> dict[str, str]:
        from vision.render import underlays

        return underlays(self.game, state)

    def close(self) -> None:
        for part in (self.camera, self.link, self.mcu):
            if part is not None:
                part.close()

    def set_board(self, state) -> None:
        """Put the true board in ``state`` (no hand over it) and wait until the host has
        seen it."""
        self.tokens, self.hands = self.game.observe(state), ()
        self.under = self._underlays(state)
        if self.mcu is not None:
            felt = self.game.sense(state, Sensor.PRESENCE)
            states = bytes(1 if felt[cell] else 0 for cell in self.cells)
            self.mcu.set_board(states)
            self._until_seen(states)

    def expect_disks(self, *states) -> None:
        """The disks under figures of the positions a move passes through."""
        self.under = {k: v for state in states for k, v in self._underlays(state).items()}

    def set_cell(self, cell: str, token: str | None, felt: bool) -> None:
        """A hand over ``cell`` leaves ``token`` there, which the hall sensor feels or not."""
        self.tokens = {**self.tokens, cell: token}
        self.hands = (cell,)
        if self.mcu is not None:
            self.mcu.set_cell(self.index[cell], 1 if felt else 0)
            self._until_seen(self.mcu.board)

    def show(self, tokens: dict[str, str | None], hand: str) -> None:
        """A hand over ``hand`` leaves the table showing ``tokens`` (a coaster laid
        whole: only the camera sees Hägar's table)."""
        self.tokens = dict(tokens)
        self.hands = (hand,)

    def withdraw(self) -> None:
        """The hand leaves the board."""
        self.hands = ()

    def pause(self, seconds: float) -> None:
        """Let simulated time pass, judging whatever has settled meanwhile; the camera
        takes its frames meanwhile."""
        self._drain()
        frames = 0 if self.camera is None else max(1, round(seconds * FPS))
        for _ in range(frames):
            self.clock.advance(seconds / frames)
            last = self.camera.observation
            if not self.camera.step(self.clock.now):
                raise RuntimeError(f"the simulated camera failed: {self.camera.failure}")
            if self.hands:
                self.hand_frames += 1
                self.hand_frames_read += self.camera.observation is not last
            self._drain()
            self._tick()
        if not frames:
            self.clock.advance(seconds)
            self._tick()

    def _tick(self) -> None:
        start = time.perf_counter()
        if self.board.tick(self.clock.now):
            self.verdict_ms.append((time.perf_counter() - start) * 1000)

    def _drain(self) -> None:
        while True:
            try:
                states = self.scans.get_nowait()
            except queue.Empty:
                return
            self.delivered = states
            self.board.on_scan(states, self.clock.now)

    def _until_seen(self, states: bytes) -> None:
        deadline = time.monotonic() + WAIT
        self._drain()
        while self.delivered != states:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the simulated board did not report the change in time")
            try:
                self.delivered = self.scans.get(timeout=remaining)
            except queue.Empty:
                continue
            self.board.on_scan(self.delivered, self.clock.now)
