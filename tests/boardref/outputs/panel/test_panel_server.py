"""The panel's web server inside the service's loop: idle, it wakes the loop for
nothing (uvicorn's own loop looked ten times a second whether to stop and to
refresh its Date header); it still stops when told, and every answer carries the
date of the second it is made."""

from __future__ import annotations

import asyncio
import time
from email.utils import parsedate_to_datetime

import pytest

from boardref.outputs.panel.server import Server, panel_socket, server_config
from boardref.runtime.config import load_config
from tests.harness import free_port


async def _ok(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _server() -> tuple[Server, object]:
    panel = load_config(**{"panel.port": free_port(), "panel.host": "127.0.0.1"}).panel
    return Server(server_config(_ok, panel)), panel


async def _get(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = await reader.read()
    writer.close()
    return answer


def _date(answer: bytes) -> float:
    for line in answer.decode().split("\r\n"):
        if line.lower().startswith("date:"):
            return parsedate_to_datetime(line.split(":", 1)[1].strip()).timestamp()
    raise AssertionError(f"no Date header in {answer!r}")


@pytest.mark.slow
def test_an_idle_panel_does_not_wake_the_loop_and_stops_when_told():
    async def main():
        server, panel = _server()
        serving = asyncio.create_task(server.serve(sockets=[panel_socket("127.0.0.1", panel.port)]))
        while not server.started:
            await asyncio.sleep(0.01)
        assert b"200 OK" in await _get(panel.port)
        selector = asyncio.get_running_loop()._selector
        select, wakes = selector.select, []
        selector.select = lambda timeout=None: wakes.append(timeout) or select(timeout)
        await asyncio.sleep(1.0)  # one wake-up: this sleep's own
        selector.select = select
        server.should_exit = True
        await asyncio.wait_for(serving, 5)
        return wakes

    wakes = asyncio.run(main())
    assert len(wakes) <= 3, wakes  # uvicorn's tick woke it ten times


def test_every_answer_carries_the_date_of_its_second(monkeypatch):
    clock = [time.time()]
    monkeypatch.setattr("boardref.outputs.panel.server.time.time", lambda: clock[0])

    async def main():
        server, panel = _server()
        serving = asyncio.create_task(server.serve(sockets=[panel_socket("127.0.0.1", panel.port)]))
        while not server.started:
            await asyncio.sleep(0.01)
        first = _date(await _get(panel.port))
        clock[0] += 3600
        later = _date(await _get(panel.port))
        server.should_exit = True
        await serving
        return first, later

    first, later = asyncio.run(main())
    assert abs(first - int(clock[0] - 3600)) < 1
    assert later - first == 3600
