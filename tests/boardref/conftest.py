"""Shared helpers for the service tests: a referee driven by hand on a fake clock,
and for the browser tests a real `boardref serve` and Debian's chromium."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time

import httpx
import pytest

from boardref.config import load_config
from boardref.harness import CHROMIUM, CHROMIUM_ARGS
from boardref.panel.access import hash_pin
from boardref.referee import Referee
from boardref.service import Service
from boardref.store import Store


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
        return [e.kind for e in self.events if e.kind != "display"]

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


needs_chromium = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason=f"{CHROMIUM} is missing; .ci/run installs it"
)


def start_service(tmp_path, port: int, *args: str, sim: bool = True) -> subprocess.Popen:
    """`boardref serve --sim ARGS` on ``port``, once its panel answers (without
    ``sim``: a table with no board sensors, its moves tapped on the panel)."""
    service = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", *(["--sim"] if sim else []), *args],
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return service
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the service did not come up"
        assert service.poll() is None, "the service stopped"
        time.sleep(0.1)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# people at a table, for the play tests: imported last, as the harness uses the
# helpers above
#: the referee PIN of the tables the panel tests start
PIN = "2468"


def started(config) -> Service:
    """A service started on a loop of its own (nothing runs it: tests call it)."""
    service = Service(config)
    service.start(asyncio.new_event_loop())
    return service


@pytest.fixture
def service(tmp_path):
    """A board table whose microcontroller is unplugged: readings are fed by hand."""
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "panel.referee_pin_hash": hash_pin(PIN),
            "sensors.hall": {"device": str(tmp_path / "unplugged-pico")},
        }
    )
    service = started(config)
    yield service
    service.close()


from tests.boardref.at_the_table import people  # noqa: E402, F401
