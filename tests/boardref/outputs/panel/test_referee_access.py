"""The referee's PIN and session: a growing back-off per client, a guard for everyone
that never shuts out the table's screen or a device that has not guessed wrong,
sessions bound to the address that made them, and the cookie's flags."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from boardref.outputs.panel import access
from boardref.outputs.panel.access import (
    PIN_ATTEMPTS,
    PIN_BACKOFF,
    PIN_BACKOFF_MOST,
    PIN_EVERYONE_ATTEMPTS,
    PIN_FORGET,
    Access,
    guesser_of,
    hash_pin,
)
from tests.boardref.conftest import PIN
from tests.boardref.outputs.panel.test_hardening import RealServer, behind_a_proxy
from tests.boardref.outputs.panel.test_panel import REMOTE, client

#: a cheap hash keeps these tests quick; the stored format is the same
FAST = {"n": 2**4, "r": 8, "p": 1, "dklen": 32}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def door(monkeypatch):
    monkeypatch.setattr(access, "_SCRYPT", FAST)
    clock = Clock()
    return Access(hash_pin("135790"), clock=clock), clock


def guess(door: Access, client: str, pin: str = "000000", kiosk: bool = False):
    wait, everyone = door.retry_after(client, kiosk)
    if wait > 0:
        return wait, everyone
    return asyncio.run(door.login(pin, client, kiosk)), None


def test_a_guessing_client_waits_twice_as_long_each_time_up_to_an_hour(door):
    door, clock = door
    for _ in range(PIN_ATTEMPTS):
        assert guess(door, "10.0.0.5") == (None, None)
    waits = []
    for _ in range(10):
        wait, everyone = door.retry_after("10.0.0.5")
        waits.append(wait)
        assert everyone is False
        clock.now += wait
        assert guess(door, "10.0.0.5") == (None, None)
    assert waits[:4] == [PIN_BACKOFF, 2 * PIN_BACKOFF, 4 * PIN_BACKOFF, 8 * PIN_BACKOFF]
    assert waits[-1] == PIN_BACKOFF_MOST
    # another device is not held back by this one's guesses
    assert guess(door, "10.0.0.6", "135790")[0] is not None
    # a day without a wrong PIN: forgotten
    clock.now += PIN_FORGET + 1
    assert door.retry_after("10.0.0.5") == (0.0, False)


def test_many_addresses_share_one_guard_that_spares_the_kiosk_and_new_devices(door):
    door, clock = door
    for n in range(PIN_EVERYONE_ATTEMPTS):
        assert guess(door, f"10.1.{n // 250}.{n % 250}") == (None, None)
    wait, everyone = door.retry_after("10.1.0.3")
    assert everyone is True and wait > 0
    # the guard holds back everyone who has guessed wrong: a new address gets one try
    assert guess(door, "10.9.9.9") == (None, None)
    assert door.retry_after("10.9.9.9")[1] is True
    assert guess(door, "10.9.9.10", "135790")[0] is not None
    for _ in range(PIN_ATTEMPTS * 3):  # the table's own screen, however wrong
        assert guess(door, "127.0.0.1", kiosk=True) == (None, None)
    assert guess(door, "127.0.0.1", "135790", kiosk=True)[0] is not None


def test_one_ipv6_device_counts_once_whatever_address_of_its_network_it_takes(door):
    door, _ = door
    assert guesser_of("2001:db8:1:2::1") == guesser_of("2001:db8:1:2:ffff::9")
    assert guesser_of("2001:db8:1:3::1") != guesser_of("2001:db8:1:2::1")
    assert guesser_of("::ffff:10.0.0.1") == "10.0.0.1"
    for n in range(PIN_ATTEMPTS):
        assert guess(door, f"2001:db8:1:2::{n + 1:x}") == (None, None)
    assert door.retry_after("2001:db8:1:2::beef")[0] > 0


def test_a_session_is_the_referee_only_from_the_address_that_made_it(door):
    door, _ = door
    token = asyncio.run(door.login("135790", "192.168.1.30"))
    assert door.is_referee(token, "192.168.1.30")
    assert not door.is_referee(token, "192.168.1.31")
    assert not door.is_referee(token, None)


@pytest.mark.slow
def test_a_cookie_replayed_from_another_address_is_no_referee_session(tmp_path):
    """On a real uvicorn behind a proxy on this machine: the phone that logged in is
    the referee, the same cookie sent for another phone is not."""
    service = behind_a_proxy(tmp_path)
    try:
        with RealServer(service) as base:
            phone = {"X-Forwarded-For": "192.168.1.30"}
            login = httpx.post(f"{base}/api/referee/login", json={"pin": PIN}, headers=phone)
            assert login.status_code == 200
            cookie = login.headers["set-cookie"].lower()
            assert "httponly" in cookie and "samesite=strict" in cookie
            assert "secure" not in cookie.replace("boardref_session", "")  # plain http
            jar = login.cookies
            session = f"{base}/api/referee/session"
            assert httpx.get(session, cookies=jar, headers=phone).json()["ok"] is True
            thief = {"X-Forwarded-For": "192.168.1.99"}
            assert httpx.get(session, cookies=jar, headers=thief).json()["ok"] is False
            refused = httpx.post(
                f"{base}/api/correct", json={"move": "a1-a2"}, cookies=jar, headers=thief
            )
            assert refused.status_code == 403
    finally:
        service.close()


@pytest.mark.slow
def test_the_kiosk_logs_in_while_phones_wait(service):
    guesser = client(service, REMOTE)
    for _ in range(PIN_ATTEMPTS):
        assert guesser.post("/api/referee/login", json={"pin": "000000"}).status_code == 403
    assert guesser.post("/api/referee/login", json={"pin": PIN}).status_code == 429
    kiosk = client(service)
    for _ in range(PIN_ATTEMPTS + 1):
        assert kiosk.post("/api/referee/login", json={"pin": "000000"}).status_code == 403
    assert kiosk.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    # from this machine but passed on by a proxy: a phone, not the kiosk
    forwarded = {"X-Forwarded-For": "192.168.1.50"}
    for _ in range(PIN_ATTEMPTS):
        kiosk.post("/api/referee/login", json={"pin": "000000"}, headers=forwarded)
    assert kiosk.post("/api/referee/login", json={"pin": PIN}, headers=forwarded).status_code == 429
