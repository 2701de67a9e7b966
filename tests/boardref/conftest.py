"""Shared helpers for the service tests: a referee driven by hand on a fake clock,
and for the browser tests a real `boardref serve` and Debian's chromium."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from boardref.eventlog.store import Store
from boardref.outputs.panel.access import hash_pin
from boardref.referee.events import Event
from boardref.referee.referee import Referee
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.harness import CHROMIUM, CHROMIUM_ARGS, PLAYWRIGHT_DISABLED, free_port


class Table:
    """A referee with a board we set by hand: put, lift, settle."""

    def __init__(self, referee: Referee, settle: float):
        self.referee = referee
        self.now = 0.0
        self.settle = settle
        self.events = []
        referee.listeners.append(self.events.append)

    @property
    def game(self):
        return self.referee.game

    def show(self, reading: dict) -> None:
        """Set the whole board, then let it settle."""
        self.now += 0.01
        self.referee.sense(reading, self.now)
        self.now += self.settle + 0.01
        self.referee.tick(self.now)

    def show_position(self, state) -> None:
        self.show(self.game.sense(state, self.referee.sensor))

    def lay_out_start(self) -> None:
        self.show_position(self.game.initial_state())

    def change(self, **cells) -> None:
        """Change some cells (``c3=None`` lifts, ``c4="piece"`` puts down) and settle."""
        unknown = set(cells) - set(self.game.board.index)
        assert not unknown, f"not cells of {self.game.board.name}: {unknown}"
        reading = dict(self.referee.reading)
        reading.update(cells)
        self.show(reading)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events if isinstance(e, Event)]

    def logged(self) -> list[tuple[str, dict]]:
        return self.referee.log


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "boardref.db")
    yield store
    store.close()


@pytest.fixture
def table(store):
    def start(game: str, players: int | None = None, options: dict | None = None, seed=b"test"):
        referee = Referee(store, sensor="presence", settle=0.3)
        referee.new_game(game, players, options, seed=seed)
        return Table(referee, 0.3)

    return start


#: the referee PIN of the tables the panel and browser tests start
PIN = "2468"
#: its hash as the config stores it, made once (scrypt takes some 60 ms a hash)
PIN_HASH = hash_pin(PIN)

needs_chromium = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason=f"{CHROMIUM} is missing; .ci/run installs it"
)


#: the `boardref` command of this tree
BOARDREF = (sys.executable, "-m", "boardref")


def start_service(
    tmp_path, port: int, *args: str, sim: bool = True, boardref=BOARDREF, wait: float = 30
) -> subprocess.Popen:
    """`boardref serve --sim ARGS` on ``port``, started in ``tmp_path``, once its panel
    answers and the virtual board has laid out the start position (without ``sim``: a
    table with no board sensors, its moves tapped on the panel, once its panel
    answers), within ``wait`` seconds. ``boardref`` is the command, this tree's unless
    another is given."""
    service = subprocess.Popen(
        [*boardref, "serve", *(["--sim"] if sim else []), *args],
        cwd=tmp_path,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _until_up(service, port, sim, wait)
    except BaseException:  # Ctrl-C as well: a service not handed out is not left running
        stop_service(service)
        raise
    return service


def stop_service(service: subprocess.Popen) -> None:
    """Ask a service started here to stop (SIGTERM, as systemd does) and wait for it."""
    service.terminate()
    service.wait(10)


def _until_up(service: subprocess.Popen, port: int, sim: bool, wait: float) -> None:
    deadline = time.monotonic() + wait
    # one client for every try: httpx.get builds a TLS context each time (20 ms of CPU)
    with httpx.Client(timeout=1) as client:
        while True:
            try:
                health = client.get(f"http://127.0.0.1:{port}/api/health")
                if health.status_code == 200 and not (sim and health.json()["phase"] == "setup"):
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the service did not come up"
            assert service.poll() is None, "the service stopped"
            time.sleep(0.1)


def serve(
    folder: Path,
    game: str,
    players: int,
    computer=(),
    settle_ms: int | None = None,
    public: bool = False,
    boardref=BOARDREF,
    computer_pause_ms: int | None = None,
    fleet: str | None = None,
) -> tuple[subprocess.Popen, str]:
    """A --sim service playing ``game`` (a panel table: no hall board in the config,
    the referee PIN ``PIN``), the computer playing the seats ``computer`` and showing
    what it plays itself for ``computer_pause_ms`` (else the config's default),
    readings settling after ``settle_ms`` (else the config's default), its join codes
    naming its own address when ``public``, run by the command ``boardref``,
    reporting to the broker at ``fleet`` when given; the service and its address."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    config = folder / "config.toml"
    config.write_text(
        f'[game]\nname = "{game}"\nplayers = {players}\ncomputer = {list(computer)}\n'
        + ("" if computer_pause_ms is None else f"computer_pause_ms = {computer_pause_ms}\n")
        + ("" if settle_ms is None else f"[sensors]\nsettle_ms = {settle_ms}\n")
        + f'[store]\npath = "{folder / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{PIN_HASH}"\n'
        + (f'public_url = "{url}"\n' if public else "")
        + ("" if fleet is None else f'[fleet]\nurl = "{fleet}"\ntable_id = "table-1"\n')
    )
    return start_service(folder, port, "--config", str(config), boardref=boardref), url


class SharedTable:
    """One table of ``serve`` for the browser tests that run in a row, each of which
    starts the game it needs: a service's start costs a second of CPU, a new game a
    twentieth. It is stopped before a test that uses neither it nor the browser."""

    service = None
    url = None

    @classmethod
    def started(cls, folders: pytest.TempPathFactory) -> str:
        if cls.service is not None and cls.service.poll() is not None:
            cls.stop()
        if cls.service is None:
            cls.service, cls.url = serve(folders.mktemp("table"), "sternhalma", 2)
        return cls.url

    @classmethod
    def stop(cls) -> None:
        service, cls.service = cls.service, None
        if service is not None:
            stop_service(service)


def new_game(url: str, game: str, players: int, computer=()) -> None:
    """Start ``game`` on the table at ``url`` (the computer playing the seats
    ``computer``), once its virtual board has laid out the start position."""
    with httpx.Client(base_url=url, timeout=10) as table:
        body = {"game": game, "players": players, "computer": list(computer)}
        assert table.post("/api/game", json=body).status_code == 200
        deadline = time.monotonic() + 30
        while table.get("/api/health").json()["phase"] == "setup":
            assert time.monotonic() < deadline, f"{game} was not laid out"
            time.sleep(0.05)


@pytest.fixture
def sim_table(tmp_path_factory):
    """The shared table's address; every test starts the game it needs on it."""
    return SharedTable.started(tmp_path_factory)


def _switches(pid: int) -> list[str]:
    """The command lines of ``pid``'s descendants (Linux: /proc); a process or thread
    gone meanwhile is passed over."""
    lines = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in _read(task).split():
            lines += [_read(Path(f"/proc/{child}/cmdline")), *_switches(int(child))]
    return lines


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _check_switches() -> None:
    """Every feature Playwright disables is still disabled by ``CHROMIUM_ARGS``."""
    for line in _switches(os.getpid()):
        switches = line.split("\0")
        if "--remote-debugging-pipe" not in switches:
            continue
        given = [s.split("=", 1)[1] for s in switches if s.startswith("--disable-features=")]
        missing = set(given[0].split(",")) - set(PLAYWRIGHT_DISABLED.split(","))
        assert not missing, f"Playwright disables {missing} too: add them to PLAYWRIGHT_DISABLED"
        return
    raise AssertionError("the browser Playwright launched was not found under /proc")


class CalmBrowser:
    """A browser whose pages ask for reduced motion unless a test asks otherwise. A
    roll's animation draws each open page anew, sixty times a second for 0.6 s: with
    several pages open that cost Chromium twice the CPU of the states the tests watch.
    (test_browser_games checks that a roll animates where motion is welcome.)"""

    def __init__(self, browser):
        self.browser = browser

    def new_context(self, **options):
        return self.browser.new_context(**{"reduced_motion": "reduce", **options})

    def new_page(self, **options):
        return self.browser.new_page(**{"reduced_motion": "reduce", **options})

    def __getattr__(self, name):
        return getattr(self.browser, name)


#: how long an ``expect`` of the browser tests waits for what a page shows
EXPECT_MS = 15_000


class Chromium:
    """Debian's Chromium, launched once for the browser tests that run in a row: a
    launch (Playwright's driver and the browser) costs more CPU than most of the tests.
    It is stopped before a test that does not use it, as Playwright's sync API keeps
    an event loop marked running while it is open (``asyncio.run`` refuses then)."""

    playwright = None
    browser = None

    @classmethod
    def launched(cls):
        if cls.browser is not None and not cls.browser.is_connected():
            cls.stop()
        if cls.browser is None:
            from playwright.sync_api import expect, sync_playwright

            # a page on a machine busy with other work may take longer than
            # Playwright's 5 s to show what it has been sent: nothing here is timed
            expect.set_options(timeout=EXPECT_MS)
            cls.playwright = sync_playwright().start()
            cls.browser = CalmBrowser(
                cls.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            )
            _check_switches()
        return cls.browser

    @classmethod
    def stop(cls) -> None:
        browser, playwright = cls.browser, cls.playwright
        cls.browser = cls.playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


@pytest.fixture
def browser():
    """The shared Chromium; every context and page a test opened is closed after it,
    so no test sees another's cookies, storage or pages (a context a module's fixture
    keeps for its tests is that fixture's to close)."""
    chromium = Chromium.launched()
    kept = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in kept:
            context.close()


def kept_page(**options):
    """A page in a context of its own, for a module fixture whose tests each go to it
    afresh: a new context costs a third of a second of CPU, a page in it as much
    again. Its tests must not log in or choose a language on it."""
    context = Chromium.launched().new_context(**options)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def kiosk():
    """A module's tab for the table page (English), which each test goes to afresh."""
    yield from kept_page(locale="en-US")


def on_board(page, url: str):
    """``page`` gone to ``url``, once the page has drawn its board."""
    page.goto(url)
    page.wait_for_selector("svg.board g[data-cell]", state="attached")
    return page


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield  # the test's fixtures are torn down first
    needs = set() if nextitem is None else set(nextitem.fixturenames)
    if "browser" not in needs:
        Chromium.stop()
    if not needs & {"browser", "sim_table"}:
        SharedTable.stop()


def pytest_sessionfinish(session, exitstatus):
    """A run stopped early (Ctrl-C, -x) leaves no shared table or Chromium behind (on
    Ctrl-C, Playwright's driver got the signal too and may be gone already)."""
    SharedTable.stop()
    with contextlib.suppress(Exception):
        Chromium.stop()


def started(config) -> Service:
    """A service started on a loop of its own (nothing runs it: tests call it)."""
    return Service(config, asyncio.new_event_loop())


@pytest.fixture
def service(tmp_path):
    """A board table whose microcontroller is unplugged: readings are fed by hand."""
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "panel.referee_pin_hash": PIN_HASH,
            "sensors.hall": {"device": str(tmp_path / "unplugged-pico")},
        }
    )
    service = started(config)
    yield service
    service.close()


# people at a table, for the play tests: imported last, as the harness uses the
# helpers above
from tests.boardref.at_the_table import people  # noqa: E402, F401
