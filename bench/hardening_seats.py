"""Attacks on the seats of a served card table (`boardref serve --sim`, Fang den Hut!
card game, 3 players), from phones that stand in for LAN addresses (the panel's
``proxies`` names 127.0.0.1, each phone sends its own X-Forwarded-For and keeps its own
cookies): a second device with a joined seat's token (state, play, WebSocket), the join
code of a joined seat, a token after its seat was handed over, a token of the game
before, and a restart, after which the old phone must keep its seat and a new phone
must still be refused.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
import websockets
from smoke import sized
from tally import Tally

from boardref.eventlog.store import Store
from boardref.outputs.panel.seats import DEVICE_COOKIE, Seats
from tests.harness import free_port

SEATS = 3
#: other devices that try each joined seat's token
THIEVES = sized(12, 2)


def attack(scratch: Path) -> Tally:
    tally = Tally("seats")
    port = free_port()
    config = scratch / "config.toml"
    config.write_text(
        f'[game]\nname = "fang_den_hut_cards"\nplayers = {SEATS}\n'
        f'[store]\npath = "{scratch / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nproxies = ["127.0.0.1"]\n'
    )
    url = f"http://127.0.0.1:{port}"
    service = _serve(config, url)
    try:
        table = httpx.Client(base_url=url, timeout=30)
        table.post("/api/draw", json={})  # shuffle and deal
        tokens = [_token_of(scratch, seat) for seat in range(SEATS)]
        phones = [_phone(url, 31 + seat) for seat in range(SEATS)]
        for seat, (phone, token) in enumerate(zip(phones, tokens, strict=True)):
            mine = {"seat": seat, "token": token}
            held = phone.get("/api/state", params=mine)
            tally.check(_sees_hand(held), f"the first phone of seat {seat} reads its hand")
            for n in range(THIEVES):
                _thief_tries(tally, _phone(url, 100 + n), url, mine)
            qr = table.get(f"/api/qr/{seat}")
            tally.check(qr.status_code == 409, f"/api/qr of joined seat {seat}: {qr.status_code}")

        # handed over: the old token is refused to the old phone and to anyone
        old = {"seat": 0, "token": tokens[0]}
        table.post("/api/hand-over", json={"seat": 0})
        for who, device in (("old phone", phones[0]), ("a new phone", _phone(url, 90))):
            state = device.get("/api/state", params=old)
            tally.check(state.status_code == 403, f"{who}, stale token: {state.status_code}")
            play = device.post("/api/play", json={"move": "x", **old})
            tally.check(play.status_code == 403, f"{who} plays, stale token: {play.status_code}")
            tally.check(not _socket_sees_hand(url, device, old), f"{who}'s socket, stale token")
        tokens[0] = _token_of(scratch, 0)
        tally.check(
            _sees_hand(phones[0].get("/api/state", params={"seat": 0, "token": tokens[0]})),
            "the old phone joins anew with the new code",
        )

        service.terminate()
        service.wait(30)
        service = _serve(config, url)
        for seat, (phone, token) in enumerate(zip(phones, tokens, strict=True)):
            mine = {"seat": seat, "token": token}
            tally.check(
                _sees_hand(phone.get("/api/state", params=mine)),
                f"after a restart the phone of seat {seat} keeps its seat",
            )
            tally.check(
                _socket_sees_hand(url, phone, mine),
                f"after a restart the socket of seat {seat} shows its hand",
            )
            _thief_tries(tally, _phone(url, 200 + seat), url, mine)

        # a new game: every token of the game before is refused
        table.post("/api/game", json={"game": "fang_den_hut_cards", "players": SEATS})
        for seat, (phone, token) in enumerate(zip(phones, tokens, strict=True)):
            before = phone.get("/api/state", params={"seat": seat, "token": token})
            tally.check(
                before.status_code == 403,
                f"seat {seat}'s token of the game before: {before.status_code}",
            )
    finally:
        service.terminate()
        service.wait(30)
    return tally


def _thief_tries(tally: Tally, thief: httpx.Client, url: str, mine: dict) -> None:
    """Another device shows a joined seat's token: state, play and socket refused."""
    state = thief.get("/api/state", params=mine)
    tally.check(
        state.status_code == 403 and '"view"' not in state.text,
        f"a second device reads seat {mine['seat']}: {state.status_code}",
    )
    play = thief.post("/api/play", json={"move": "x", **mine})
    tally.check(
        play.status_code == 403, f"a second device plays seat {mine['seat']}: {play.status_code}"
    )
    tally.check(
        not _socket_sees_hand(url, thief, mine), f"a second device's socket for seat {mine['seat']}"
    )


def _serve(config: Path, url: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("boardref serve --sim did not answer within 60 s")


def _phone(url: str, host: int) -> httpx.Client:
    """A phone on the LAN (192.168.1.<host>) with a cookie jar of its own."""
    return httpx.Client(base_url=url, timeout=30, headers={"X-Forwarded-For": f"192.168.1.{host}"})


def _token_of(scratch: Path, seat: int) -> str:
    """A seat's token as its join code carries it (a photo of the code gives it away):
    made from the service's own log, read beside the running service."""
    log = Store(scratch / "boardref.db", reading=True)
    try:
        (game_id,) = log.read("SELECT id FROM games WHERE ended IS NULL ORDER BY id DESC")[0]
        return Seats(log).token(game_id, seat)
    finally:
        log.close()


def _sees_hand(answer: httpx.Response) -> bool:
    return answer.status_code == 200 and bool((answer.json().get("view") or {}).get("hand"))


def _socket_sees_hand(url: str, device: httpx.Client, mine: dict) -> bool:
    """Whether the first frame of a socket opened with ``mine`` shows a hand."""

    async def first() -> dict:
        address = f"{url.replace('http', 'ws')}/ws?seat={mine['seat']}&token={mine['token']}"
        mark = device.cookies.get(DEVICE_COOKIE)
        headers = {"X-Forwarded-For": device.headers["X-Forwarded-For"]}
        if mark:
            headers["Cookie"] = f"{DEVICE_COOKIE}={mark}"
        async with websockets.connect(address, additional_headers=headers) as socket:
            return json.loads(await asyncio.wait_for(socket.recv(), 10))

    return bool((asyncio.run(first()).get("view") or {}).get("hand"))
