"""One writer per event log: a second `boardref serve`, `simulate --store` or `games
import` on a log in use is refused in one sentence naming the holder; readers work
beside it and write nothing; a killed holder leaves no lock behind."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.eventlog.log_lock import OWN_LOG, LogLock
from boardref.eventlog.store import Store
from boardref.referee.referee import Referee
from tests.boardref.conftest import new_game, start_service, stop_service
from tests.harness import free_port

WAIT = 30.0  # generous: the machine may be busy; nothing here measures speed
runner = CliRunner()


def health(port: int) -> dict:
    return httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=WAIT).json()


def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def games_in(log: Path) -> list[tuple]:
    store = Store(log, reading=True)
    try:
        return store.read("SELECT id, game, ended IS NOT NULL FROM games ORDER BY id")
    finally:
        store.close()


def log_with_an_ended_game(path: Path) -> None:
    """A log as a table leaves it: a game abandoned after one move for the next,
    which is open, one move played."""
    store = Store(path)
    referee = Referee(store, sensor="panel")
    for seed in (b"first", b"second"):
        referee.new_game("catch_the_hare", seed=seed)
        referee.play(str(referee.game.legal_moves(referee.positions[-1])[0]))
    store.close()


@pytest.mark.process
def test_a_second_serve_on_a_log_in_use_is_refused_and_the_first_keeps_its_game(tmp_path):
    port = free_port()
    first = start_service(tmp_path, port, "--port", str(port), "--game", "catch_the_hare")
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(free_port())],
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},  # the same sim.db
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            out, errors = second.communicate(timeout=WAIT)
        finally:
            second.kill()
        still = health(port)
    finally:
        stop_service(first)
    log = tmp_path / "boardref" / "sim.db"
    assert second.returncode == 2
    assert errors == (
        f"error: the event log {log} is in use by another boardref service (PID {first.pid}, "
        f"panel on port {port}); stop it first (Ctrl+C where it runs, or kill {first.pid}) "
        "or give this one its own log with --store PATH\n"
    )
    assert out == ""
    # the second would have abandoned it for its own sternhalma
    assert still["game"] == "catch_the_hare"
    assert games_in(log) == [(1, "catch_the_hare", 0)]


@pytest.mark.process
def test_two_sim_tables_with_their_own_store_run_side_by_side(tmp_path):
    tables = []
    try:
        for game in ("catch_the_hare", "sternhalma"):
            port = free_port()
            log = tmp_path / f"{game}.db"
            service = start_service(
                tmp_path, port, "--port", str(port), "--game", game, "--store", str(log)
            )
            tables.append((service, port, log, game))
        answers = [health(port)["game"] for _, port, _, _ in tables]
    finally:
        for service, *_ in tables:
            stop_service(service)
    assert answers == ["catch_the_hare", "sternhalma"]
    for _, _, log, game in tables:
        assert games_in(log) == [(1, game, 0)]
    assert not (tmp_path / "boardref" / "sim.db").exists()  # --store wins over the default


@pytest.mark.process
def test_a_killed_service_leaves_no_lock_behind(tmp_path):
    port, log = free_port(), tmp_path / "table.db"
    killed = start_service(tmp_path, port, "--port", str(port), "--store", str(log))
    killed.kill()  # SIGKILL: nothing of its own runs
    killed.wait(WAIT)
    # the lock file stays (deleting it would guard nothing), its lock went with the process
    assert Path(f"{log}.lock").exists()
    again = start_service(tmp_path, port, "--port", str(port), "--store", str(log))
    stop_service(again)
    assert games_in(log) == [(1, "sternhalma", 0)]  # resumed, not started afresh


@pytest.mark.process
def test_readers_work_beside_a_service_and_writers_are_refused(tmp_path):
    log, port = tmp_path / "table.db", free_port()
    log_with_an_ended_game(log)
    record = tmp_path / "record.json"
    assert (
        runner.invoke(
            app, ["games", "export", "1", "--json", "--out", str(record), "--store", str(log)]
        ).exit_code
        == 0
    )
    service = start_service(
        tmp_path, port, "--port", str(port), "--game", "catch_the_hare", "--store", str(log)
    )
    try:
        new_game(f"http://127.0.0.1:{port}", "catch_the_hare", 2)  # ends game 2 in the WAL
        listed = runner.invoke(app, ["games", "list", "--json", "--store", str(log)])
        exported = runner.invoke(app, ["games", "export", "2", "--store", str(log)])
        imported = runner.invoke(app, ["games", "import", str(record), "--store", str(log)])
        simulated = runner.invoke(app, ["simulate", "--moves", "1", "--store", str(log)])
        before = games_in(log)
    finally:
        stop_service(service)
    assert [game["id"] for game in json.loads(listed.stdout)] == [2, 1]
    assert exported.exit_code == 0 and '[Game "catch_the_hare"]' in exported.stdout
    holder = f"another boardref service (PID {service.pid}, panel on port {port})"
    where = f"the event log {log} is in use by {holder}"
    stop = f"stop it first (Ctrl+C where it runs, or kill {service.pid})"
    assert imported.exit_code == 2
    assert imported.stderr == f"error: {where}; {stop}, then import again\n"
    assert simulated.exit_code == 2
    assert simulated.stderr.startswith(f"error: {where}; ")
    assert before == [(1, "catch_the_hare", 1), (2, "catch_the_hare", 1), (3, "catch_the_hare", 0)]


def test_reading_a_log_creates_and_writes_nothing(tmp_path):
    log = tmp_path / "table.db"
    log_with_an_ended_game(log)  # written by the referee alone: no history table yet
    kept = files(tmp_path)
    listed = runner.invoke(app, ["games", "list", "--store", str(log)])
    exported = runner.invoke(app, ["games", "export", "1", "--store", str(log)])
    assert listed.exit_code == 0 and "abandoned" in listed.stdout
    assert exported.exit_code == 0
    assert files(tmp_path) == kept
    missing = runner.invoke(app, ["games", "list", "--store", str(tmp_path / "none" / "x.db")])
    assert missing.exit_code == 2
    assert missing.stderr == f"error: there is no event log at {tmp_path / 'none' / 'x.db'}\n"
    assert files(tmp_path) == kept


def test_a_log_held_by_the_systemd_service_says_how_to_stop_it(tmp_path):
    log = tmp_path / "boardref.db"
    # the service's own note, as it writes it under systemd
    with LogLock(log, "serve", OWN_LOG), socket.socket() as taken:
        note = {"pid": 1234, "command": "serve", "unit": "boardref.service", "port": 8000}
        Path(f"{log}.lock").write_text(json.dumps(note))
        taken.bind(("127.0.0.1", 0))  # were the log not refused, the port would be (exit 1)
        port = str(taken.getsockname()[1])
        refused = runner.invoke(app, ["serve", "--sim", "--port", port, "--store", str(log)])
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"error: the event log {log} is in use by the boardref service (PID 1234, panel on "
        "port 8000); stop it first (sudo systemctl stop boardref) or give this one its own "
        "log with --store PATH\n"
    )
    with LogLock(log, "serve", OWN_LOG):  # let go when the first was closed
        pass
