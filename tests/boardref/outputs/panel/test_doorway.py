"""The panel while it opens (``boardref.outputs.panel.doorway``): the pages are answered at
once, as the app answers them and behind the same gate; every other request waits for
the app and is answered by it; the service says it is ready only once the app is
there."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

import boardref.outputs.panel.api
import boardref.runtime.service
from boardref.outputs.panel.api import build_app
from boardref.outputs.panel.doorway import Doorway
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.harness import free_port

PLAIN_PAGES = ("/", "/table", "/watch", "/referee", "/sim")


async def _get(app, path: str, host: str = "localhost") -> httpx.Response:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
        return await client.get(path)


def _answer(response: httpx.Response) -> tuple:
    return response.status_code, sorted(response.headers.items()), response.content


def test_the_pages_are_answered_before_the_app_as_the_app_answers_them(service):
    async def main():
        doorway = Doorway(service.panel.names.allow, service.sim)
        early = [_answer(await _get(doorway, path)) for path in PLAIN_PAGES]
        built = [_answer(await _get(build_app(service.panel), path)) for path in PLAIN_PAGES]
        return early, built

    early, built = asyncio.run(main())
    assert early == built
    assert early[0][0] == 307 and ("location", "/table") in early[0][1]
    assert all(status == 200 for status, _, _ in early[1:])


def test_the_gate_stands_before_the_pages_too(service):
    async def main():
        doorway = Doorway(service.panel.names.allow, service.sim)
        early = await _get(doorway, "/table", host="rebound.example")
        built = await _get(build_app(service.panel), "/table", host="rebound.example")
        return _answer(early), _answer(built)

    early, built = asyncio.run(main())
    assert early == built and early[0] == 421


def test_every_other_request_waits_for_the_app(service):
    async def main():
        doorway = Doorway(service.panel.names.allow, service.sim)
        waiting = [asyncio.create_task(_get(doorway, path)) for path in ("/api/health", "/play/1")]
        await asyncio.sleep(0.1)
        held = [not task.done() for task in waiting]
        doorway.open(build_app(service.panel))
        return held, [await task for task in waiting]

    held, (health, play) = asyncio.run(main())
    assert held == [True, True]
    assert health.json()["status"] == "ok" and 'data-role="play"' in play.text


def test_what_waited_fails_when_the_app_could_not_be_built(service):
    async def main():
        doorway = Doorway(service.panel.names.allow, service.sim)
        waiting = asyncio.create_task(_get(doorway, "/api/health"))
        await asyncio.sleep(0.05)
        doorway.open(None)
        await waiting

    with pytest.raises(RuntimeError, match="could not be built"):
        asyncio.run(main())


def test_the_service_answers_its_pages_while_its_app_is_built_and_is_ready_after(
    tmp_path, monkeypatch
):
    build, release, said = boardref.outputs.panel.api.build_app, threading.Event(), []

    def slow_build(panel):
        release.wait(10)  # FastAPI and the routes loading, on a Pi
        return build(panel)

    monkeypatch.setattr(boardref.outputs.panel.api, "build_app", slow_build)
    monkeypatch.setattr(boardref.runtime.service, "notify", said.append)
    port = free_port()
    config = load_config(**{"store.path": tmp_path / "t.db", "panel.port": port})
    made = []

    async def main():
        stop = asyncio.Event()
        service = Service(config, asyncio.get_running_loop())
        made.append(service)
        running = asyncio.create_task(service.run(stop))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            for _ in range(250):
                try:
                    page = await client.get("/table")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.02)
            health = asyncio.create_task(client.get("/api/health"))
            await asyncio.sleep(0.2)
            before = (page.status_code, health.done(), list(said))
            release.set()
            status = (await health).json()["status"]
        stop.set()
        await running
        return before, status

    try:
        before, status = asyncio.run(main())
    finally:
        release.set()
        for service in made:
            service.close()
    assert before == (200, False, [])
    assert status == "ok" and "READY=1" in said
