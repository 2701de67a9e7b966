"""`boardref serve`: the long-running service on the Pi.

It resumes the open game (or starts one), links the hall-sensor board, the camera,
the status LED, buzzer and buttons, and runs the referee's clock in an asyncio loop; it
tells systemd when it is ready and pings its watchdog. ``--sim`` swaps the hardware
for the simulated MCU, a rendered camera and gpiozero's mock pins, so the very same
paths run on any machine. Device threads only hand work to the loop; whatever
touches the referee (a verdict, a scan, a frame's reading, a button, a page's
command) goes through the referee's own thread in order (``referee_thread.py``), and
the loop tells the outputs what it said and never waits for it. The loop sleeps
until something happens (a scan, a frame, a page's command, a worker's result) or a
reading is due to settle: an idle table costs next to no CPU. A camera that cannot
be opened or stops giving frames is logged and the table goes on with its hall
sensors (or the panel).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from boardref.devices.board import SensorBoard
from boardref.eventlog.history import History
from boardref.eventlog.retention import Pruner
from boardref.eventlog.store import open_log
from boardref.outputs.display import Display
from boardref.outputs.panel.access import PIN_DIGITS, hash_pin
from boardref.outputs.panel.doorway import Doorway
from boardref.outputs.panel.panel import Panel
from boardref.outputs.panel.server import Server, ServiceError, panel_socket, server_config
from boardref.outputs.pi_voice import PiVoice
from boardref.outputs.speech import TableSpeech
from boardref.referee.computer_seats import ComputerSeats
from boardref.referee.events import NewSnapshot
from boardref.referee.kinds import Sensor
from boardref.referee.referee import Referee
from boardref.referee.snapshot import TableState
from boardref.referee.verdicts import RefereeError
from boardref.runtime.config import Config
from boardref.runtime.displays import Displays
from boardref.runtime.kiosk import leave_kiosk_url
from boardref.runtime.memory import freeze_start_up
from boardref.runtime.notify import notify
from boardref.runtime.referee_thread import RefereeThread
from boardref.runtime.refereeing import RefereeClock
from boardref.runtime.reporting import dashboard_output, start_reporting
from boardref.runtime.resuming import resume_or_start
from boardref.runtime.table_control import ServiceControl
from boardref.sim.virtual_board import VirtualBoard
from engines import RulesError, load_game
from firmware_bridge.host import UP, Link
from hardware.board_check import BoardCheck
from hardware.calibration import Calibration
from hardware.lights import CellLights, Palette
from hardware.status import StatusPanel, open_status_panel
from hardware.wiring import wiring_path

if TYPE_CHECKING:  # the camera (OpenCV, numpy), the fleet (MQTT), the simulated MCU and
    # the loop-lag timer load only when used
    from boardref.devices.camera import TableCamera
    from boardref.outputs.fleet import Reporter
    from boardref.runtime.loop_lag import LoopLag
    from firmware_bridge.sim import Simulator

log = logging.getLogger("boardref")


class Service:
    """One table's service, whole once made: run by ``run``, ended by ``close``."""

    def __init__(self, config: Config, loop: asyncio.AbstractEventLoop, sim: bool = False):
        """Open the log, resume or start the game, connect the devices and the
        outputs. A log that cannot be opened raises ``LogFault``; whatever fails
        later closes what was opened before it."""
        self.config = config
        self.sim = sim
        self._loop = loop
        #: set when something happened that the referee's loop should look at
        self._wake = asyncio.Event()
        #: set when the camera was opened, replaced or closed (and on stopping)
        self._camera_changed = asyncio.Event()
        #: counts the cameras asked for (one per board connected); the camera opening
        #: in a worker thread, if any (done once open, or given up)
        self._camera_wanted = 0
        self.camera_opening: asyncio.Task | None = None
        # the parts a table may do without, and those of the board it has now
        #: how late the event loop runs a timer, when the config asks (a benchmark)
        self.loop_lag: LoopLag | None = None
        self.reporter: Reporter | None = None
        self.status: StatusPanel | None = None
        #: the Pi's own speaker (it speaks while [speech.pi] is on)
        self.pi_voice: PiVoice | None = None
        self.camera: TableCamera | None = None
        self.link: Link | None = None
        self.simulator: Simulator | None = None
        self.history: History | None = None
        self.pruner: Pruner | None = None
        #: the pieces of a simulated table's board, hand, tray and supply
        self.virtual: VirtualBoard | None = None
        #: the Board tab's counters of the sensors' changes (a table with a board link)
        self.board_check: BoardCheck | None = None
        self.store, damage = open_log(config.store.path)
        self.referee = Referee(self.store, Sensor.PRESENCE, config.sensors.settle_ms / 1000)
        #: every piece of work that touches the referee, in order, off the loop
        self.referee_thread = RefereeThread(loop, self.referee.outbox, self._wake.set)
        pause = config.game.computer_pause_ms / 1000
        self.computer = ComputerSeats(self._wake.set, pause, self.referee_thread.ask)
        #: judges readings as they settle, indexes, lets the computer act
        self.clock = RefereeClock(self, self._wake)
        #: where a damaged event log found at start was moved, for the referee page
        self.damaged_log = None if damage is None else damage.moved_to
        try:
            history = self.history = History(self.store, config.fleet.table_id)
            kept = config.store
            self.pruner = Pruner(history, kept.keep_days, kept.keep_games)
            self._open(damage, history)
        except BaseException:
            self.close()
            raise

    def _open(self, damage, history: History) -> None:
        """The rest of making the service, once its log and its history are open."""
        config = self.config
        every = config.diagnostics.loop_lag_every_ms
        if every is not None:
            from boardref.runtime.loop_lag import LoopLag

            self.loop_lag = LoopLag(self._loop, every / 1000)
            self.loop_lag.start()
        if damage is not None:
            log.error(
                "%s; it was moved to %s (kept, not deleted) and a new event log started",
                damage.why,
                damage.moved_to,
            )
        self.referee.listeners.append(self._prune)
        self.referee.prepare_on_tick = False  # indexed in a worker thread: see _prepare
        # before the game starts, so the broker hears of it
        self.reporter = start_reporting(config, self.referee, history)
        resume_or_start(self.referee, config.game)
        self.speech = TableSpeech(config.speech)
        self.displays = Displays(self._display, self.referee.published)
        self.palette = Palette.load(config.palette)
        self.status = self._status_panel(self.palette)
        self._link_board()
        pin_hash = config.panel.referee_pin_hash
        if pin_hash is None and self.sim:
            # a simulated table still has a referee page: this run's PIN is in the log
            pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
            pin_hash = hash_pin(pin)
            log.info("referee PIN for this run: %s", pin)
        self.panel = Panel(self, pin_hash, self.displays.shown, ServiceControl(self))
        self.displays.outputs.append(self.panel.show)
        buzz = None if self.status is None else self.status.signal
        self.pi_voice = PiVoice(self.speech, self._told_by_speaker, buzz=buzz)
        self.displays.outputs.append(self.pi_voice)
        if self.reporter is not None:
            self.displays.outputs.append(dashboard_output(self.reporter))
        self.referee.listeners.append(self._show)
        self.referee.listeners.append(self._follow_referee)
        self.referee.listeners.append(lambda event: self._wake.set())
        self.displays.show(self.referee.published)

    def _told_by_speaker(self, problem) -> None:
        """The Pi's speaker (on its own thread) found it can or cannot speak: the
        referee page is shown why, from the loop."""

        def show() -> None:
            if self.speech.trouble(problem):
                self.displays.show()

        self._loop.call_soon_threadsafe(show)

    def _show(self, event) -> None:
        """The referee's new snapshot goes to every output with the table's facts."""
        if isinstance(event, NewSnapshot):
            if self.clock.will_index():  # the moves it may ask about follow in a moment
                self.panel.hold()
            self.displays.show(event.table)

    def _display(self, state: TableState) -> Display:
        """``state`` with the table's own facts, as every output shows it."""
        referee = self.referee
        return Display(
            state, self.link_state(), referee.game_id, referee.started, self.sim,
            self.sim_virtual(), speech=self.speech.shown, camera=self._camera_state(),
        )

    def _camera_state(self) -> str:
        """The camera as ``Display.camera`` says it."""
        if self.camera is None:
            opening = self.camera_opening
            return "opening" if opening is not None and not opening.done() else "none"
        return "down" if self.camera.failure else "up"

    def _prune(self, event) -> None:
        """When a game ends or is abandoned for a new one, the history keeps only
        what ``[store] keep_days`` and ``keep_games`` allow."""
        if (
            self.pruner is not None
            and event.accepted
            and event.kind in ("game_over", "game_started")
        ):
            self.pruner.request()

    def _connect_board(self) -> None:
        """Link the sensors and lights of the current game's board again, after a
        simulated table switched to a game on another board."""
        if self.link is not None:
            self.link.close()
        if self.simulator is not None:
            self.simulator.close()
        self.board.close()
        self._link_board()

    def _link_board(self) -> None:
        """Link the sensors and lights of the current game's board: its wiring, and
        the board as the referee's sensor (with the link, if it has hall sensors)."""
        config = self.config
        was = self.virtual.version if self.virtual is not None else 0
        self.link = self.simulator = self.virtual = None
        hall = config.sensors.hall is not None or self.sim
        sensed = hall and Sensor.PRESENCE in self.referee.game.SENSORS
        seen = self._connect_camera()
        self.referee.use_sensor(
            (Sensor.BOTH if seen else Sensor.PRESENCE)
            if sensed
            else (Sensor.CAMERA if seen else Sensor.PANEL)
        )
        #: which cell each sensor and LED sits under
        wiring = self.wiring = config.board_wiring(self.referee.game.board)
        self.referee.fit_lights(wiring.has_cell_lights())
        cells = wiring.sensors
        device = config.sensors.hall.device if sensed and config.sensors.hall else None
        if sensed and self.sim:
            from firmware_bridge.sim import Simulator

            self.simulator = Simulator(len(cells)).start()
            device = self.simulator.path
            game = self.referee.game
            self.virtual = VirtualBoard((c.id for c in game.board.cells), game.STACKS, was)
        self.link = Link(device) if device is not None else None
        self.board = SensorBoard(
            self.referee,
            cells,
            CellLights(wiring.leds, self.palette),
            self.link.set_leds if self.link else None,
            self.status,
            self.palette,
        )
        if self.simulator is not None:
            self._lay_out()
        if self.link is not None:
            board = self.board
            self.link.subscribe(
                lambda scan: self._soon(board.on_scan, bytes(scan.cells), time.monotonic())
            )
            self.link.subscribe_state(self._link_changed)
            self.restart_board_check()
            self.link.subscribe(lambda scan: self.board_check.take_scan(bytes(scan.cells)))
            if wiring.calibration is not None:
                calibration = Calibration.from_json(wiring.calibration)
                self.link.calibrate(calibration.north, calibration.south)
            self.link.open()
        self.board.refresh()

    def keep_strip(self, leds: list[str | None]) -> str:
        """Take a newly mapped LED order (the Board tab's strip map): the cell lights
        follow it at once, and it is stored with the board's wiring when the config
        names a hall board; returns where it was stored, or "" (kept until restart)."""
        self.wiring.leds = list(leds)
        self.board.lights = CellLights(self.wiring.leds, self.palette)
        self.board.relight()
        # a strip mapped with every LED skipped lights no cell: the words say so
        self.referee_thread.run_here(self.referee.fit_lights, self.wiring.has_cell_lights())
        hall = self.config.sensors.hall
        if hall is None:
            return ""
        path = wiring_path(hall.wiring_dir, self.wiring.board)
        self.wiring.save(path)
        return str(path)

    def restart_board_check(self) -> None:
        """Count the board's sensor changes afresh (the Board tab's "count again")."""
        link = self.link
        self.board_check = BoardCheck(len(self.wiring.sensors), self.wiring.sensors)
        if link is not None and link.last_scan is not None:
            self.board_check.take_scan(bytes(link.last_scan.cells))

    async def run(self, stop: asyncio.Event, listening: socket.socket | None = None) -> None:
        """Serve the panel on ``listening`` (else a socket of its own, see
        ``panel_socket``) and tick the referee until ``stop`` is set. The panel's app is
        built once the panel listens (the doorway answers the pages meanwhile and holds
        the rest); systemd hears we are ready once it is."""
        panel = self.config.panel
        listening = listening or panel_socket(panel.host, panel.port)
        doorway = Doorway(self.panel.names.allow, self.sim)
        server = Server(server_config(doorway, panel))
        # uvicorn loads its protocols and logging first: imports, off the loop
        await asyncio.to_thread(server.config.load)
        serving = asyncio.create_task(server.serve(sockets=[listening]))
        while not server.started:
            if serving.done():
                serving.result()
                raise ServiceError(f"the panel could not listen on {panel.host}:{panel.port}")
            await asyncio.sleep(0.02)
        log.info("panel on %s://%s:%d/", panel.scheme, panel.host, panel.port)
        # before READY=1: the kiosk starts after it
        leave_kiosk_url(listening.getsockname(), panel.scheme)
        try:
            await self._open_panel(doorway)
            freeze_start_up()  # what it loaded to here it keeps: out of full collections
            watching = asyncio.create_task(self._watch(stop))
            stopping = asyncio.create_task(self._wake_on(stop))
            try:
                notify("READY=1")
                notify(f"STATUS=refereeing {self.referee.game.name}")
                await self.clock.run(stop)
                notify("STOPPING=1")
            finally:
                await watching
                await stopping
        finally:
            server.should_exit = True
            await serving

    async def _open_panel(self, doorway: Doorway) -> None:
        """Build the panel's app in a worker thread (FastAPI and the routes load there,
        the loop answers the pages meanwhile) and hand it the doorway's requests."""
        app = None
        try:
            app = await asyncio.to_thread(_build_app, self.panel)
        finally:
            doorway.open(app)

    async def _wake_on(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._wake.set()
        self._camera_changed.set()

    def _connect_camera(self) -> bool:
        """Open the camera the config names for the current game's board, in a worker
        thread: a camera takes a while to answer (the rendered one of ``--sim`` starts
        a process), and the panel, the lights and the hall sensors go on meanwhile.
        True if one is being opened; the table reads it once it gives frames. One
        that cannot be opened is logged and the table goes on without it."""
        self._camera_changed.set()
        self._camera_wanted += 1  # a camera still opening for the board before is let go
        if self.camera is not None:
            self.camera.close()
            self.camera = None
        settings, game = self.config.camera, self.referee.game
        if settings.source is None or "camera" not in game.SENSORS:
            return False
        wanted = self._camera_wanted

        async def opening() -> None:
            try:
                opened = await asyncio.to_thread(self._open_camera, settings, game, wanted)
            except Exception:  # a camera that fails oddly must not stop the table
                log.exception("camera: opening failed")
                opened = None
            if wanted != self._camera_wanted:  # another board's camera is wanted now
                if opened is not None:
                    opened[0].close()
                return
            if opened is None:
                self.referee_thread.run_here(self._without_camera)
                return
            from boardref.devices.camera import TableCamera
            from vision.lens import default_path

            source, reader = opened
            corners = default_path().with_name("corners.json")
            self.camera = TableCamera(self.referee, source, reader, corners)
            self._camera_changed.set()
            self.displays.show()
            log.info("camera %s on %s", settings.source, game.name)

        self.camera_opening = self._loop.create_task(opening())
        return True

    def _open_camera(self, settings, game, wanted: int):
        """The frame source and reader of ``game``'s board (``boardref.devices.camera.open_camera``,
        in a worker thread); the rendered camera of ``--sim`` draws ``_sim_view``. A
        camera no longer wanted once open (the service closed meanwhile, its loop
        stopped) is closed here: nobody else would."""
        from boardref.devices.camera import open_camera

        opened = open_camera(settings, game, self._sim_view if self.sim else None)
        if opened is not None and wanted != self._camera_wanted:
            opened[0].close()
            return None
        return opened

    def _without_camera(self) -> None:
        """The camera named could not be opened: the table referees with its hall
        sensors, or on the panel."""
        if self.referee.sensor == Sensor.BOTH:
            self.referee.use_sensor(Sensor.PRESENCE)
        elif self.referee.sensor == Sensor.CAMERA:
            self.referee.use_sensor(Sensor.PANEL)
        if self.board is not None:
            self.board.refresh()

    async def _watch(self, stop: asyncio.Event) -> None:
        """Take and read camera frames on the camera's own thread (``reading_thread``:
        a frame waits for the device; finding the board, sampling and classifying its
        cells take tens of milliseconds) and hand each reading to the referee on the
        loop. A table without a camera never loads the camera's libraries (OpenCV,
        some 20 MB resident)."""
        if not await self._fitted(stop):
            return
        from boardref.devices.camera import reading_thread

        with reading_thread() as reads:
            await self._watch_on(reads, stop)

    async def _fitted(self, stop: asyncio.Event) -> bool:
        """Wait until a camera is fitted (a game changes the board); False if the
        service stops first."""
        while self.camera is None:
            if stop.is_set():
                return False
            self._camera_changed.clear()
            await self._camera_changed.wait()
        return True

    async def _watch_on(self, reads: Executor, stop: asyncio.Event) -> None:
        fps = self.config.camera.fps
        period = 1 / fps
        failed = False
        while not stop.is_set():
            camera, started = self.camera, time.monotonic()
            if camera is None:  # none fitted: look again when a game changes the board
                await self._fitted(stop)
                continue
            truth = camera.first_truth()
            try:
                frame, reading = await self._loop.run_in_executor(
                    reads, camera.take_and_read, truth
                )
                # dated when the read began, not when it came back: a frame taken before
                # the hall sensors felt a move must never count as after it
                handed = self.referee_thread.ask(self._hand_over, camera, frame, reading, started)
                working = await handed
                period = camera.frame_period(fps, reading)
            except Exception:  # a fault in one frame must not stop the camera
                log.exception("the camera failed on a frame; the game stays as it was")
                working = True
            if camera is self.camera:
                self._wake.set()  # the reading may have changed
                if not working and not failed:
                    self.referee_thread.run_here(self._camera_failed, camera.failure)
                if failed == working:  # the camera came back or went away
                    self.displays.show()
                failed = not working
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, period - time.monotonic() + started)):
                    await stop.wait()

    def _hand_over(self, camera: TableCamera, frame, reading, at: float) -> bool:
        """On the referee's thread: the camera's reading of ``frame``, taken at ``at``,
        handed to the referee; a camera replaced by a new game's meanwhile hands
        nothing over. False when the camera gave no frame."""
        return camera is not self.camera or camera.hand_over(frame, reading, at)

    def _camera_failed(self, why: str) -> None:
        """The camera stopped giving frames: say so, and referee from the hall sensors
        alone where they are fitted. The game stays exactly as it was."""
        if self.referee.sensor == Sensor.BOTH:
            self.referee.use_sensor(Sensor.PRESENCE)
            log.error("camera: %s; refereeing from the hall sensors alone", why)
        else:
            log.error("camera: %s; waiting for frames", why)
        if self.status is not None:
            self.status.signal("error")

    def _sim_view(self):
        """What the rendered camera of ``--sim`` sees: the game's position where the
        virtual board holds it as the game has it, elsewhere the top piece of the
        cell's stack (or what lies under it)."""
        from vision.render import underlays

        game, state = self.referee.game, self.referee.current()
        tokens, under = game.observe(state), underlays(game, state)
        if self.virtual is not None:
            expected = game.stacks(state)
            for cell, stack in self.virtual.stacks.items():
                if tuple(stack) != expected.get(cell, ()):
                    tokens[cell] = stack[-1] if stack else under.get(cell)
        shown = {c: k for c, k in under.items() if tokens.get(c) not in (None, k)}
        return tokens, (), shown

    def close(self) -> None:
        self._camera_wanted += 1  # a camera still opening is closed once open
        for part in (
            self.referee_thread,
            self.loop_lag,
            self.camera,
            self.reporter,
            self.link,
            self.simulator,
            self.status,
            self.pi_voice,
        ):
            if part is not None:
                part.close()
        if self.pruner is not None:
            self.pruner.wait()
        if self.history is not None:
            self.history.close()
        self.store.close()

    # --- what the panel asks for -----------------------------------------------------------

    def link_state(self) -> str:
        return self.link.state if self.link is not None else "none"

    def new_game(
        self,
        name: str,
        players: int | None,
        options: dict,
        computer: list[int] = (),
        level: str = "hard",
    ) -> None:
        """Start a game; a simulated table may switch boards, a real one may not."""
        game = load_game(name, players, **options)
        board_changes = game.board.name != self.referee.game.board.name
        if board_changes and not self.sim and self.config.sensors.hall is not None:
            raise RefereeError(
                f"this table's sensors are wired for {self.referee.game.board.title}"
            )
        renamed = name != self.referee.game.name  # the camera reads one game's pieces
        self.referee.new_game(name, players, options)
        if computer:
            self.referee.seat_computer(computer, level)
        if board_changes or (renamed and self.config.camera.source is not None):
            self._connect_board()
        elif self.simulator is not None:
            self._lay_out()

    def sim_board(self) -> dict[str, bool]:
        """Whether a piece stands on each cell of the virtual board (nothing at a panel
        table)."""
        if self.virtual is None:
            return {}
        return dict(zip(self.virtual.cells, self.virtual.presence()))

    def sim_virtual(self) -> dict | None:
        """The virtual board as pages draw it (None at a panel table)."""
        return None if self.virtual is None else self.virtual.snapshot()

    def sim_act(self, action: str, *args, version: int | None = None):
        """Do ``action`` (a ``VirtualBoard`` verb: lift, place, take, put) on the
        virtual board, then let the simulated MCU feel it and every page see it."""
        if self.virtual is None:
            raise RefereeError("this game is played on the panel, not on the board")
        self.virtual.check(version)
        done = getattr(self.virtual, action)(*args)
        self._feel()
        return done

    def command(self, name: str, *args) -> None:
        """Run a referee command (draw, confirm, takeback...) and log a refusal; on the
        referee's thread, a button's sound on the loop."""
        try:
            getattr(self.referee, name)(*args)
        except (RefereeError, RulesError) as exc:
            log.warning("%s refused: %s", name, exc)
            if self.status is not None:
                self._loop.call_soon_threadsafe(self.status.signal, "error")

    # --- inside ----------------------------------------------------------------------------

    def _soon(self, work: Callable, *args) -> None:
        """Hand work from a device thread to the referee's thread, in turn, and wake the
        referee's loop after it."""
        self._loop.call_soon_threadsafe(self._then_wake, self.referee_thread.run, work, args)

    def _then_wake(self, hand_in: Callable, work: Callable, args: tuple) -> None:
        try:
            hand_in(work, *args)
        finally:
            self._wake.set()

    def _link_changed(self, state: str, error: str | None) -> None:
        if state != UP and error:
            log.warning("board link %s: %s", state, error)
        # the lights and the pages are the loop's: shown there, in turn
        hand_in = self.referee_thread.run_here
        self._loop.call_soon_threadsafe(self._then_wake, hand_in, self._link_shown, (state == UP,))

    def _link_shown(self, up: bool) -> None:
        """The board link went up or down: the table's lights and every output show it,
        and the referee's words point at the lights only while they are on."""
        self.referee.lights(up)
        self.board.on_link(up)
        self.displays.show()

    def _lay_out(self) -> None:
        """On the simulated board the pieces start where the game stands."""
        game, state = self.referee.game, self.referee.current()
        self.virtual.lay_out(game.stacks(state), game.supply(state))
        self._feel()

    def _follow_referee(self, event) -> None:
        """A referee who sets the whole position on a simulated table lays its pieces
        out as well; after a move, hats put over others nest into the game's tower
        (on the loop, once the referee has finished)."""
        if self.virtual is None or not event.accepted:
            return
        if event.kind == "correction" and "record" in event.data:
            self.referee_thread.run_here(self._lay_out)
        elif event.kind == "move":
            self.referee_thread.run_here(self._regroup)

    def _regroup(self) -> None:
        if self.virtual is not None:
            game = self.referee.game
            if self.virtual.regroup(game.stacks(self.referee.current())):
                self._feel()

    def _feel(self) -> None:
        """The simulated MCU feels the virtual board; the referee hears of lifts it
        cannot feel; every page sees the board."""
        present = self.virtual.presence(self.board.sensor_cells)
        self.simulator.set_board(bytes(map(int, present)))
        self.referee.hold(self.virtual.unseen_lifts())
        self._wake.set()
        self.displays.show()

    def _status_panel(self, palette: Palette) -> StatusPanel | None:
        return open_status_panel(
            self.config.gpio.status_pins(),
            self.sim,
            palette,
            on_draw=lambda: self._soon(self.command, "draw"),
            on_confirm=lambda: self._soon(self.command, "confirm"),
            on_takeback=lambda: self._soon(self.command, "takeback"),
        )


def _build_app(panel: Panel):
    """The panel's app; FastAPI and the routes load here, in the worker thread."""
    from boardref.outputs.panel.api import build_app

    return build_app(panel)
