"""Connections that cannot pile up, and proxies that make no one the table: a real
`boardref serve --sim` (or the panel on a real uvicorn, with short limits) under
idle, half-sent and never-reading connections; a real file limit run out; real
requests carrying forwarding headers."""

from __future__ import annotations

import contextlib
import dataclasses
import resource
import socket
import time

import httpx
import pytest

from boardref.outputs.panel import connections
from tests.boardref.outputs.panel.test_hardening import RealServer
from tests.flood import HALF_SENT, TABLE_CLAIMS, closed, flood, state_seconds, upgrade
from tests.harness import Mosquitto, free_port, serve_sim, start_dashboard

FLOOD = 1100
#: limits short enough to watch them act within a test
SHORT = dataclasses.replace(
    connections.limits(),
    request_seconds=1,
    idle_seconds=1,
    drain_seconds=1,
    ping_seconds=1,
    per_client=4,
    sockets_per_client=2,
)
#: how long a test waits for the server to close what it should (many times the limits)
PATIENCE_S = 30


def enough_files(needed: int) -> None:
    """This process (and the servers it starts) may open ``needed`` files, or the test
    is skipped: CI's hard limit may be 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"needs {needed} open files, the hard limit here is {hard}")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def closed_in_time(opened: list[socket.socket], trickle: socket.socket | None = None) -> bool:
    """Whether the server closes every one of ``opened`` within ``PATIENCE_S``;
    ``trickle`` is sent a byte of a header every quarter second meanwhile."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if trickle is not None:
            with contextlib.suppress(OSError):  # closed already
                trickle.send(b"X")
        if all(closed(connection) for connection in opened):
            return True
        time.sleep(0.25)
    return False


@pytest.fixture
def short_limits(monkeypatch):
    monkeypatch.setattr(connections, "limits", lambda: SHORT)


@pytest.mark.process
def test_1100_slow_connections_leave_the_panel_answering(tmp_path):
    enough_files(FLOOD + 512)
    # 1024: what a service gets that is started without the unit's LimitNOFILE
    process, url = serve_sim(str(tmp_path), files=1024)
    opened: list[socket.socket] = []
    try:
        opened = flood(int(url.rsplit(":", 1)[1]), idle=400, half_sent=400, sockets=300)
        # the best of three: a machine busy with other work must not fail the test
        assert min(state_seconds(url)) < 1.0
    finally:
        for connection in opened:
            connection.close()
        process.terminate()
        process.wait(30)


@pytest.mark.slow
def test_idle_half_sent_trickling_and_never_reading_connections_are_closed(service, short_limits):
    with RealServer(service) as base:
        port = int(base.rsplit(":", 1)[1])
        idle, half_sent, trickling, done, never_reading = (
            socket.create_connection(("127.0.0.1", port)) for _ in range(5)
        )
        half_sent.sendall(HALF_SENT)
        trickling.sendall(HALF_SENT)
        done.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert done.recv(65536).startswith(b"HTTP/1.1 200")
        never_reading.sendall(upgrade(port))
        opened = [idle, half_sent, trickling, done, never_reading]
        assert closed_in_time(opened, trickle=trickling)


def test_a_new_request_closes_the_oldest_idle_connection_of_its_client(service, short_limits):
    with RealServer(service) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = flood(port, idle=SHORT.per_client)
        assert httpx.get(f"{base}/api/state").status_code == 200
        assert closed_in_time(idle[:1])
        assert not any(closed(connection) for connection in idle[2:])


def test_websockets_beyond_a_clients_share_are_refused(service, short_limits):
    with RealServer(service) as base:
        port = int(base.rsplit(":", 1)[1])
        pages = flood(port, sockets=SHORT.sockets_per_client + 1)
        answers = []
        for page in pages:
            page.settimeout(10)
            answers.append(page.recv(12))
        assert answers == [b"HTTP/1.1 101"] * SHORT.sockets_per_client + [b"HTTP/1.1 503"]


@pytest.mark.process
def test_running_out_of_files_is_said_once_and_the_panel_keeps_answering(tmp_path):
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        # 64 files: the service starts, 200 connections run it out
        process, url = serve_sim(str(tmp_path), files=64, stderr=stderr)
    opened: list[socket.socket] = []
    try:
        opened = flood(int(url.rsplit(":", 1)[1]), idle=200)
        assert any(s < float("inf") for s in state_seconds(url))
    finally:
        for connection in opened:
            connection.close()
        process.terminate()
        process.wait(30)
    said = errors.read_text()
    assert said.count("new connections could not be accepted") == 1, said[-3000:]
    assert "out of system resource" not in said and "Exception in callback" not in said


@pytest.mark.parametrize("claim", TABLE_CLAIMS, ids=lambda claim: next(iter(claim)))
def test_a_request_through_a_proxy_is_never_the_table(service, claim):
    with RealServer(service) as base:
        kiosk = httpx.post(f"{base}/api/takeback", json={})
        assert kiosk.status_code == 409, "the kiosk acted (nothing to take back)"
        forwarded = httpx.post(f"{base}/api/takeback", json={}, headers=claim)
        assert forwarded.status_code == 403


@pytest.mark.broker
def test_the_cafe_dashboard_keeps_the_same_limits(tmp_path):
    broker = Mosquitto(tmp_path)
    broker.start()
    port = free_port()
    dashboard = start_dashboard(broker.url, port)
    opened: list[socket.socket] = []
    try:
        opened = flood(port, idle=2 * connections.limits().per_client)
        seconds = state_seconds(f"http://127.0.0.1:{port}", path="/api/tables")
        assert min(seconds) < float("inf"), "the dashboard did not answer"
        assert closed_in_time(opened[: connections.limits().per_client])
    finally:
        for connection in opened:
            connection.close()
        dashboard.terminate()
        dashboard.wait(30)
        broker.stop()


@pytest.mark.slow
def test_a_page_that_stops_reading_is_dropped_when_a_send_stalls(service, monkeypatch):
    # pings far off: only the stalled send can drop the page
    slow_pings = dataclasses.replace(SHORT, ping_seconds=600)
    monkeypatch.setattr(connections, "limits", lambda: slow_pings)
    real = RealServer(service)
    with real as base:
        port = int(base.rsplit(":", 1)[1])
        page = socket.socket()
        page.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        page.connect(("127.0.0.1", port))
        page.sendall(upgrade(port))
        hub = service.panel.hub
        deadline = time.monotonic() + PATIENCE_S
        while not hub.subscribers and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.subscribers, "the page never joined"
        loop = real.server.servers[0].get_loop()
        for n in range(40):  # states far larger than any socket buffer, never read
            loop.call_soon_threadsafe(hub.broadcast, str(n) * 1_000_000)
            time.sleep(0.05)
            if not hub.subscribers:
                break
        while hub.subscribers and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not hub.subscribers
        page.close()
