"""`boardref serve` as a process: ready for systemd, alive without hardware, stops
on SIGTERM; and the game survives SIGKILL at any moment."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.eventlog.store import Store
from boardref.referee.referee import Referee
from boardref.runtime.notify import notify, watchdog_interval
from tests.boardref.conftest import PIN, PIN_HASH
from tests.harness import free_port, until_on_loop
from tests.volume import volume

BOARDREF = [sys.executable, "-m", "boardref"]
WAIT = 30.0  # generous: the machine may be busy; nothing here measures speed
#: runs of simulate killed at a random moment (bench/bench_volume.py kills 8)
KILLS = volume(3, 8)


def run(args, tmp_path, **env):
    """``boardref ARGS`` with its state, and its temporary files (a simulated board's
    device, which a process killed outright leaves behind), under ``tmp_path``."""
    environment = {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TMPDIR": str(tmp_path),
        **env,
    }
    return subprocess.Popen(
        BOARDREF + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, text=True
    )


def notifications(tmp_path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify.sock"
    sock.bind(str(path))
    sock.settimeout(WAIT)
    return sock, str(path)


def test_notify_speaks_to_the_socket_systemd_names(tmp_path, monkeypatch):
    sock, path = notifications(tmp_path)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    assert notify("READY=1")
    assert sock.recv(100) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not notify("READY=1")
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 5.0


@pytest.mark.process
def test_the_simulated_service_tells_systemd_it_is_ready_and_stops_on_sigterm(tmp_path):
    sock, path = notifications(tmp_path)
    port = free_port()
    service = run(
        ["serve", "--sim", "--port", str(port)],
        tmp_path,
        NOTIFY_SOCKET=path,
        WATCHDOG_USEC="2000000",
    )
    try:
        messages = set()
        while "READY=1" not in messages:
            messages.add(sock.recv(200).decode())
        health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=WAIT).json()
        assert health["status"] == "ok" and health["game"] == "sternhalma"
        # a table without a camera never loads OpenCV (some 20 MB resident on a Pi)
        mapped = Path(f"/proc/{service.pid}/maps").read_text()
        assert "cv2" not in mapped, "OpenCV loaded by a table with no camera"
        while "WATCHDOG=1" not in messages:
            messages.add(sock.recv(200).decode())
        service.send_signal(signal.SIGTERM)
        assert service.wait(WAIT) == 0
    finally:
        service.kill()
    assert (tmp_path / "state" / "boardref" / "sim.db").exists()


@pytest.mark.process
def test_a_missing_board_is_retried_while_the_service_keeps_running(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        f'[sensors.hall]\ndevice = "{tmp_path}/no-such-pico"\n[store]\npath = "{tmp_path}/log.db"\n'
    )
    sock, path = notifications(tmp_path)
    service = run(
        ["serve", "--config", str(config), "--port", str(free_port())], tmp_path, NOTIFY_SOCKET=path
    )
    try:
        assert sock.recv(200) == b"READY=1"
        time.sleep(1.5)
        assert service.poll() is None, "the service must not die for want of a board"
        service.send_signal(signal.SIGTERM)
        _, errors = service.communicate(timeout=WAIT)
    finally:
        service.kill()
    assert "no-such-pico" in errors


def test_a_bad_config_is_refused_before_anything_starts(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[gpio]\ndraw = 99\n")
    # in this process (typer's CliRunner): refusing starts nothing, and a process of its
    # own costs 0.5 s; test_boardref_runs_as_a_module starts boardref as a process
    result = CliRunner().invoke(app, ["serve", "--config", str(config)])
    assert result.exit_code == 2
    assert "gpio.draw = 99" in result.stderr


def until_committed(player: subprocess.Popen) -> str:
    """The first "committed" line ``player`` prints (it is killed if none comes)."""
    watchdog = threading.Timer(WAIT * 4, player.kill)
    watchdog.start()
    try:
        for line in player.stdout:
            if line.startswith("committed"):
                return line
    finally:
        watchdog.cancel()
    raise AssertionError("simulate printed no move")


@pytest.mark.process
def test_sigkill_at_any_moment_never_loses_the_game(tmp_path):
    """Each run continues the game in the log and prints every move once it is logged;
    killed at a random moment, the log must hold every printed move, in order, plus at
    most the one it was writing, and resume into the very position those moves make."""
    store = tmp_path / "log.db"
    pick = random.Random(5)
    printed: list[str] = []
    for attempt in range(KILLS):
        player = run(
            [
                "simulate",
                "--moves",
                "1000",
                "--seed",
                str(attempt),
                "--store",
                str(store),
                "--echo-moves",
            ],
            tmp_path,
        )
        # the random moment counts from its first logged move, however long a busy
        # machine takes to start it
        first = until_committed(player)
        time.sleep(pick.uniform(0.0, 2.5))
        player.send_signal(signal.SIGKILL)
        player.wait(WAIT)
        # read through the same buffered stream the first line came from
        lines = [first, *player.stdout.read().splitlines()]
        player.stdout.close()
        player.stderr.close()
        printed += [line.split()[1] for line in lines if line.startswith("committed")]
        log = Store(store)
        referee = Referee(log)
        assert referee.resume(), "the open game is always found again"
        logged = [data["move"] for kind, data in referee.log if kind == "move"]
        assert logged[: len(printed)] == printed
        assert len(logged) - len(printed) <= 1
        printed = logged
        # a busy machine may make the simulated players miss a move; they then set
        # the position right (a correction), which the log keeps as well
        game, state = referee.game, referee.game.initial_state()
        for kind, data in referee.log:
            if kind == "move":
                state = game.apply(state, game.parse_move(state, data["move"]))
            elif kind == "correction":
                state = game.from_json(data["record"])
        assert referee.positions[-1] == state
        log.close()
    assert len(printed) > 8, "the runs were too short to test anything"


def test_simulate_prints_one_json_line(tmp_path):
    # in this process (typer's CliRunner), as a process of its own costs 0.6 s more;
    # test_sigkill_at_any_moment_never_loses_the_game runs simulate as a process
    result = CliRunner().invoke(app, ["simulate", "--moves", "5", "--seed", "3"])
    assert result.exit_code == 0, result.stderr
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["moves_played"] == 5 and line["final_state_match"]


@pytest.mark.parametrize("bad", [["--game", "chess"], ["--sensor", "sonar"]])
def test_simulate_refuses_what_it_cannot_do(bad):
    # in this process: refusing starts no board, and a process of its own costs 0.6 s
    result = CliRunner().invoke(app, ["simulate", *bad])
    assert result.exit_code == 2 and "error:" in result.stderr


@pytest.mark.process
def test_boardref_runs_as_a_module():
    result = subprocess.run(BOARDREF + ["--help"], capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 0
    assert all(command in result.stdout for command in ("serve", "simulate", "fleet", "arena"))


def _serve_for(config, seconds: float, during=None, sim: bool = False):
    """Run the service of ``config`` on a loop of its own for ``seconds`` and return
    it, closed; ``during(service)`` is called on the loop once it is running (and
    awaited, if a coroutine)."""
    import asyncio
    import inspect

    from boardref.runtime.service import Service

    made = []

    async def main():
        stop = asyncio.Event()
        service = Service(config, asyncio.get_running_loop(), sim)
        made.append(service)
        running = asyncio.create_task(service.run(stop))
        await asyncio.sleep(0.3)  # the panel listens, the first lookups are indexed
        if during is not None:
            done = during(service)
            if inspect.isawaitable(done):
                await done
        await asyncio.sleep(seconds)
        stop.set()
        await running

    try:
        asyncio.run(main())
    finally:
        for service in made:
            service.close()
    return made[0]


def _config(tmp_path, **settings):
    from boardref.runtime.config import load_config

    return load_config(
        **{
            "store.path": tmp_path / "table.db",
            "panel.port": free_port(),
            "game.name": "sternhalma",
            **settings,
        }
    )


@pytest.mark.slow
def test_an_idle_table_sleeps_until_something_happens(tmp_path):
    looks = []

    def counting(service):
        tick = service.board.tick
        service.board.tick = lambda now: looks.append(now) or tick(now)

    _serve_for(_config(tmp_path), 1.0, counting)
    assert len(looks) <= 2  # a busy loop looked a hundred times a second


@pytest.mark.slow
def test_the_loop_lag_timer_is_off_by_default_and_when_asked_for_sees_a_stalled_loop(tmp_path):
    quiet = _serve_for(_config(tmp_path), 0.0)
    assert quiet.loop_lag is None  # an idle table never wakes for it

    def stalling(service):
        service._loop.call_soon(time.sleep, 0.3)  # work that holds the loop

    service = _serve_for(_config(tmp_path, **{"diagnostics.loop_lag_every_ms": 20}), 0.6, stalling)
    seen = service.loop_lag.figures()
    assert seen["samples"] >= 5 and seen["max_ms"] >= 250, seen


@pytest.mark.slow
def test_the_start_position_is_judged_once_the_board_has_settled(tmp_path):
    service = _serve_for(_config(tmp_path), 1.5, sim=True)  # the simulated board reports it once
    assert service.referee.phase == "move"


@pytest.mark.slow
def test_a_reading_that_settles_while_its_moves_are_indexed_waits_for_that_index(
    tmp_path, monkeypatch
):
    import asyncio

    import boardref.referee.match
    import boardref.runtime.refereeing

    built, slow, on_the_loop = boardref.runtime.refereeing.index_successors, [False], []

    def in_the_worker(game, state, sensor):
        if slow[0]:
            time.sleep(1.5)  # a turn with tens of thousands of outcomes, on a Pi
        return built(game, state, sensor)

    def on_the_loop_too(game, state, sensor):
        on_the_loop.append(state)
        return built(game, state, sensor)

    monkeypatch.setattr(boardref.runtime.refereeing, "index_successors", in_the_worker)
    monkeypatch.setattr(boardref.referee.match, "index_successors", on_the_loop_too)
    from boardref.runtime.service import Service

    config, made = _config(tmp_path), []

    def play_one():
        service = made[0]
        referee = service.referee
        move = referee.game.legal_moves(referee.positions[-1])[0]
        service.sim_act("lift", move.path[0])
        service.sim_act("place", move.path[-1])

    async def main():
        stop = asyncio.Event()
        service = Service(config, asyncio.get_running_loop(), sim=True)
        made.append(service)
        running = asyncio.create_task(service.run(stop))
        referee = service.referee

        def ready():
            return referee.phase == "move" and not referee.unprepared()

        await until_on_loop(ready, "the start position indexed")
        slow[0] = True
        play_one()  # a step: taken at once; the next position's indexing begins
        await until_on_loop(lambda: len(referee.positions) == 2, "the step taken")
        play_one()  # set down while that indexing still runs
        await until_on_loop(lambda: len(referee.positions) == 3, "the second step taken")
        stop.set()
        await running

    try:
        asyncio.run(main())
    finally:
        for service in made:
            service.close()
    assert on_the_loop == []  # the verdict used the worker's index, not one of its own


def diagnostics_camera(service) -> str:
    """What the referee's diagnostics say of the camera."""
    with httpx.Client(base_url=f"http://127.0.0.1:{service.config.panel.port}") as referee:
        assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        return referee.get("/api/diagnostics").json()["camera"]


@pytest.mark.process
def test_the_loop_runs_on_while_a_slow_camera_opens(tmp_path, monkeypatch):
    """A camera that takes its time to answer (the rendered one starts a process, a
    USB camera may hang on open) is opened off the loop: the panel, the lights and the
    hall sensors go on meanwhile, and the camera is read once it opens."""
    import asyncio

    import boardref.devices.camera

    opening = threading.Event()
    answer = threading.Event()
    opened = boardref.devices.camera.camera_source

    def slow_camera(*args):
        opening.set()
        answer.wait(WAIT)  # released by the loop below, or by the timer: never hangs
        return opened(*args)

    monkeypatch.setattr(boardref.devices.camera, "camera_source", slow_camera)
    config = _config(tmp_path, **{"camera.source": "synthetic", "panel.referee_pin_hash": PIN_HASH})
    release = threading.Timer(WAIT, answer.set)
    release.start()
    ran_while_opening, said = [], []

    async def while_it_opens(service):
        await asyncio.to_thread(opening.wait, WAIT)
        for _ in range(5):  # the loop turns while the camera has not answered
            await asyncio.sleep(0.01)
            ran_while_opening.append(not answer.is_set())
        assert service.referee.sensor == "both"  # waits for the camera's first view
        # the referee's tools say so: a page opened now offers the camera tools
        said.append(await asyncio.to_thread(diagnostics_camera, service))
        answer.set()
        for _ in range(int(WAIT * 10)):
            if service.camera is not None:
                break
            await asyncio.sleep(0.1)

    try:
        service = _serve_for(config, 0, while_it_opens, sim=True)
    finally:
        release.cancel()
    assert ran_while_opening == [True] * 5
    assert said == ["opening"]
    assert service.camera is not None, "the camera is read once it opened"
    assert service.camera_opening.done()


def test_the_referee_points_at_the_cell_lights_only_while_the_board_link_is_up(service):
    """A board whose link is down shows no lights: the referee's words then point at
    the board on the screen."""
    match = service.referee.match
    service._link_shown(False)
    assert not match.lit()
    service._link_shown(True)
    assert match.lit()


def test_a_hall_board_built_without_cell_lights_points_at_the_screen(tmp_path):
    """A board whose wiring puts no LED under a cell (built without the strip) lights
    nothing, its link up or not; a strip mapped on the Board tab lights it, and one
    mapped with every LED skipped again does not."""
    from engines import load_game
    from hardware.wiring import Wiring, wiring_path
    from tests.boardref.conftest import started

    cells = [cell.id for cell in load_game("sternhalma", 2).board.cells]
    hall = {"device": str(tmp_path / "unplugged-pico"), "wiring_dir": tmp_path / "wiring"}
    Wiring("sternhalma", cells, [None] * len(cells)).save(
        wiring_path(hall["wiring_dir"], "sternhalma")
    )
    service = started(_config(tmp_path, **{"sensors.hall": hall}))
    try:
        match = service.referee.match
        service._link_shown(True)
        assert not match.lit()
        service.keep_strip(cells)
        assert match.lit()
        service.keep_strip([None] * len(cells))
        assert not match.lit()
    finally:
        service.close()
