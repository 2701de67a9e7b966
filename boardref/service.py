"""`boardref serve`: the long-running service on the Pi.

It resumes the open game (or starts one), links the hall-sensor board, the status LED,
buzzer and buttons, and runs the referee's clock in an asyncio loop; it tells systemd
when it is ready and pings its watchdog. ``--sim`` swaps the hardware for the
simulated MCU and gpiozero's mock pins, so the very same paths run on any machine.
Device threads only hand work to the loop; the referee is touched on the loop alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import time
from collections.abc import Callable
from pathlib import Path

import uvicorn

from boardref.config import Config
from boardref.fleet import Broker, Reporter, dashboard_state
from boardref.notify import notify, watchdog_interval
from boardref.panel.access import hash_pin
from boardref.panel.api import Panel
from boardref.referee import PANEL, Referee, RefereeError, index_successors
from boardref.store import Store, StoreError
from boardref.table import Table
from engines import RulesError, load_game
from firmware_bridge.host import UP, Link
from firmware_bridge.sim import Simulator
from hardware.lights import CellLights, Palette
from hardware.status import StatusPanel, StatusPins

log = logging.getLogger("boardref")

TICK = 0.01  # seconds between looks at the settle clock
THINKING_S = 2.0  # the longest the computer thinks about a move


def sim_store_path() -> Path:
    """Where ``--sim`` keeps its event log when the config names none."""
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "boardref" / "sim.db"


class Service:
    """One table's service: built by ``start``, run by ``run``, ended by ``close``."""

    def __init__(self, config: Config, sim: bool = False):
        self.config = config
        self.sim = sim
        self.store: Store | None = None
        self.referee: Referee | None = None
        self.table: Table | None = None
        self.link: Link | None = None
        self.simulator: Simulator | None = None
        self.status: StatusPanel | None = None
        self.palette: Palette | None = None
        self.panel: Panel | None = None
        self.reporter: Reporter | None = None
        self._thinking: asyncio.Future | None = None
        self._indexing: asyncio.Future | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the log, resume or start the game, and connect the devices."""
        self._loop = loop
        config = self.config
        self.store = Store(config.store.path)
        self.referee = Referee(self.store, "presence", config.sensors.settle_ms / 1000)
        self.referee.prepare_on_tick = False  # indexed in a worker thread: see _prepare
        self._start_reporting()  # before the game starts, so the broker hears of it
        try:
            resumed = self.referee.resume()
        except StoreError as exc:
            log.error("%s; starting a new game, the old one stays in the log", exc)
            resumed = False
        if resumed and self.referee.game.name != config.game.name:
            log.info(
                "the open game is %s, the table is set for %s: starting that",
                self.referee.game.name,
                config.game.name,
            )
            resumed = False
        if not resumed:
            game = config.game
            self.referee.new_game(game.name, game.players, game.options)
            if game.computer:
                self.referee.seat_computer(game.computer, game.level)
        else:
            log.info("resumed %s after %d events", self.referee.game.name, len(self.referee.log))
        self.palette = Palette.load(config.palette)
        self.status = self._status_panel(self.palette)
        self._connect_board()
        pin_hash = config.panel.referee_pin_hash
        if pin_hash is None and self.sim:
            # a simulated table still has a referee page: this run's PIN is in the log
            pin = f"{secrets.randbelow(10**4):04d}"
            pin_hash = hash_pin(pin)
            log.info("referee PIN for this run: %s", pin)
        self.panel = Panel(self, pin_hash)
        self.referee.listeners.append(self.panel.publish)
        if self.reporter is not None:
            self.referee.listeners.append(
                lambda event: self._report() if event.kind == "display" else None
            )
            self._report()

    def _start_reporting(self) -> None:
        """Report to the café's broker when the config names one."""
        fleet = self.config.fleet
        if fleet.url is None:
            return
        self.reporter = Reporter(
            self.store,
            Broker.from_url(fleet.url),
            fleet.table_id,
            fleet.ca_file,
            fleet.discovery_prefix,
        )
        self.referee.listeners.append(self.reporter.on_event)
        self.reporter.start()

    def _report(self) -> None:
        if self.reporter is None or self.panel is None:
            return
        panel = self.config.panel
        url = panel.public_url or f"http://{panel.host}:{panel.port}"
        self.reporter.report_state(
            dashboard_state(self.panel.state().model_dump(), self.referee.started, url)
        )

    def _connect_board(self) -> None:
        """Link the sensors and lights of the current game's board (again, after a
        simulated table switched to a game on another board)."""
        if self.link is not None:
            self.link.close()
        if self.simulator is not None:
            self.simulator.close()
        if self.table is not None:
            self.table.close()
        config = self.config
        self.link = self.simulator = None
        hall = config.sensors.hall is not None or self.sim
        sensed = hall and "presence" in self.referee.game.SENSORS
        self.referee.use_sensor("presence" if sensed else PANEL)
        cells = config.sensor_cells(self.referee.game.board)
        device = config.sensors.hall.device if sensed and config.sensors.hall else None
        if sensed and self.sim:
            self.simulator = Simulator(len(cells)).start()
            device = self.simulator.path
        self.link = Link(device) if device is not None else None
        self.table = Table(
            self.referee,
            cells,
            CellLights(cells, self.palette),
            self.link.set_leds if self.link else None,
            self.status,
            self.palette,
        )
        if self.simulator is not None:
            self._lay_out()
        if self.link is not None:
            table = self.table
            self.link.subscribe(
                lambda scan: self._soon(table.on_scan, bytes(scan.cells), time.monotonic())
            )
            self.link.subscribe_state(lambda state, error: self._link_changed(state, error))
            self.link.open()
        self.table.refresh()

    async def run(self, stop: asyncio.Event) -> None:
        """Serve the panel and tick the referee until ``stop`` is set; tell systemd
        we are ready once the panel listens."""
        panel = self.config.panel
        server = _Server(
            uvicorn.Config(
                self.panel.app,
                host=panel.host,
                port=panel.port,
                log_level="warning",
                lifespan="off",
            )
        )
        serving = asyncio.create_task(server.serve())
        while not server.started:
            if serving.done():
                serving.result()  # the panel could not start (port taken...): say why
                raise OSError(f"the panel could not listen on {panel.host}:{panel.port}")
            await asyncio.sleep(0.02)
        log.info("panel on http://%s:%d/", panel.host, panel.port)
        try:
            await self._tick(stop)
        finally:
            server.should_exit = True
            await serving

    async def _tick(self, stop: asyncio.Event) -> None:
        notify("READY=1")
        notify(f"STATUS=refereeing {self.referee.game.name}")
        ping_every = watchdog_interval()
        next_ping = next_report = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            try:
                self.table.tick(now)
                self._prepare()
                self._computer_turn()
            except Exception:  # a fault in one verdict must not take the table down
                log.exception("the referee failed on a reading; the game stays as it was")
            if now >= next_report:  # the link may change without a verdict
                self._report()
                next_report = now + 1.0
            if ping_every is not None and now >= next_ping:
                notify("WATCHDOG=1")
                next_ping = now + ping_every
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK)
        notify("STOPPING=1")

    def close(self) -> None:
        for part in (self.reporter, self.link, self.simulator, self.status, self.store):
            if part is not None:
                part.close()

    def _prepare(self) -> None:
        """Index the next verdict's lookups in a worker thread, so that a game with
        tens of thousands of outcomes a turn never stalls the loop or the panel."""
        referee = self.referee
        if self._indexing is not None:
            return
        wanted = referee.unprepared()
        if not wanted:
            return
        game, state, sensor = referee.game, wanted[0], referee.sensor

        async def index() -> None:
            try:
                found = await asyncio.to_thread(index_successors, game, state, sensor)
                referee.adopt(game, state, found)
            finally:
                self._indexing = None

        self._indexing = asyncio.ensure_future(index())

    def _computer_turn(self) -> None:
        """When a computer seat is to move, think in a worker thread (the state is
        immutable) and announce the move back on the loop, if nothing changed."""
        referee = self.referee
        if self._thinking is not None or not referee.computer_to_move():
            return
        from engines.players import computer_move  # the search, needed only by kiosks

        state = referee.positions[-1]
        game = referee.game

        async def think() -> None:
            try:
                move = await asyncio.to_thread(
                    computer_move, game, state, THINKING_S, referee.level
                )
                if (
                    referee.game is game
                    and referee.positions[-1] == state
                    and referee.computer_to_move()
                ):
                    referee.expect(str(move))
            except (RefereeError, RulesError) as exc:
                log.warning("the computer's move was not announced: %s", exc)
            finally:
                self._thinking = None

        self._thinking = asyncio.ensure_future(think())

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
        self.referee.new_game(name, players, options)
        if computer:
            self.referee.seat_computer(computer, level)
        if board_changes:
            self._connect_board()
        elif self.simulator is not None:
            self._lay_out()

    def sim_board(self) -> dict[str, bool]:
        """What stands on the virtual board, cell by cell (nothing at a panel table)."""
        if self.simulator is None:
            return {}
        return {
            cell: bool(state) for cell, state in zip(self.table.sensor_cells, self.simulator.board)
        }

    def sim_set(self, cell: str, present: bool) -> None:
        """Lift a piece from (False) or put one on (True) a cell of the virtual board."""
        if self.simulator is None:
            raise RefereeError("this game is played on the panel, not on the board")
        cells = self.table.sensor_cells
        if cell not in cells:
            raise RefereeError(f"there is no cell {cell} on this board")
        index = cells.index(cell)
        if bool(self.simulator.board[index]) == present:
            raise RefereeError(f"{cell} is {'already taken' if present else 'empty'}")
        self.simulator.set_cell(index, 1 if present else 0)

    def command(self, name: str, *args) -> None:
        """Run a referee command (draw, confirm, takeback...) and log a refusal."""
        try:
            getattr(self.referee, name)(*args)
        except (RefereeError, RulesError) as exc:
            log.warning("%s refused: %s", name, exc)
            if self.status is not None:
                self.status.signal("error")

    # --- inside ----------------------------------------------------------------------------

    def _soon(self, work: Callable, *args) -> None:
        """Hand work from a device thread to the loop."""
        self._loop.call_soon_threadsafe(work, *args)

    def _link_changed(self, state: str, error: str | None) -> None:
        if state != UP and error:
            log.warning("board link %s: %s", state, error)
        self._soon(self.table.on_link, state == UP)

    def _lay_out(self) -> None:
        """On the simulated board the pieces start where the game stands."""
        expected = self.referee.expected_reading()
        cells = self.table.sensor_cells
        self.simulator.set_board(bytes(1 if expected.get(c) else 0 for c in cells))

    def _status_panel(self, palette: Palette) -> StatusPanel | None:
        gpio = self.config.gpio
        led = gpio.status_led or (None, None, None)
        pins = StatusPins(
            led_red=led[0],
            led_green=led[1],
            led_blue=led[2],
            buzzer=gpio.buzzer,
            draw=gpio.draw,
            confirm=gpio.confirm,
            takeback=gpio.takeback,
        )
        factory = None
        if self.sim:
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            factory = MockFactory(pin_class=MockPWMPin)
        try:
            return StatusPanel(
                pins,
                factory,
                palette=palette,
                on_draw=lambda: self._soon(self.command, "draw"),
                on_confirm=lambda: self._soon(self.command, "confirm"),
                on_takeback=lambda: self._soon(self.command, "takeback"),
            )
        except Exception as exc:  # gpiozero raises many kinds; none may stop the referee
            log.error("status LED, buzzer and buttons unavailable: %s", exc)
            return None


class _Server(uvicorn.Server):
    """uvicorn inside our loop: the service, not uvicorn, owns SIGTERM and SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self):
        yield


async def serve(config: Config, sim: bool = False) -> None:
    """Run the service until SIGTERM or SIGINT."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    service = Service(config, sim)
    try:
        service.start(loop)
        await service.run(stop)
    finally:
        service.close()
