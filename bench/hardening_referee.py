"""Attacks on the referee's login, session and headers, against a real `boardref serve
--sim` that believes a proxy on this machine (``[panel] proxies``), so X-Forwarded-For
stands in for other LAN addresses: PIN guessing from one address and from many, the
table's own screen logging in meanwhile, `pin-hash` given a short PIN, a session
cookie replayed from another address, the cookie's flags, and the security headers
on every kind of answer (the fleet dashboard's too).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from fastapi.testclient import TestClient
from smoke import sized
from tally import Tally

from boardref.cafe.dashboard import CAFE_BUILD, Fleet, dashboard_app
from boardref.outputs.fleet import Broker
from boardref.outputs.panel.access import PIN_ATTEMPTS, PIN_EVERYONE_ATTEMPTS, hash_pin
from boardref.outputs.panel.headers import HEADERS
from boardref.outputs.panel.pages import BUILD
from tests.harness import WAIT, free_port, until

PIN = "318642"
#: the addresses guessing together (a /24 of a café's Wi-Fi), and their rounds
ADDRESSES = sized(250, 32)
ROUNDS = 3
#: PINs too short for `pin-hash` (each a process of its own: one in the smoke run)
SHORT_PINS = sized(("12345", "1234", ""), ("12345",))


def attack(scratch: Path) -> Tally:
    tally = Tally("referee")
    port = free_port()
    config = scratch / "config.toml"
    config.write_text(
        f'[store]\npath = "{scratch / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(PIN)}"\n'
        'proxies = ["127.0.0.1"]\n'
    )
    service = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as panel:
            until(lambda: _health(panel), "the table to answer", WAIT)
            _guessing(panel, tally)
            _session(panel, tally)
            _headers(panel, tally)
    finally:
        service.terminate()
        service.wait(15)
    _short_pin(tally)
    return tally


def _health(panel: httpx.Client) -> bool:
    try:
        return panel.get("/api/health").status_code == 200
    except httpx.HTTPError:
        return False


def login(panel: httpx.Client, pin: str, address: str | None = None) -> httpx.Response:
    headers = {} if address is None else {"X-Forwarded-For": address}
    return panel.post("/api/referee/login", json={"pin": pin}, headers=headers)


def _guessing(panel: httpx.Client, tally: Tally) -> None:
    one = [login(panel, "000000", "192.168.7.1").status_code for _ in range(PIN_ATTEMPTS + 3)]
    tally.check(
        one == [403] * PIN_ATTEMPTS + [429] * 3,
        f"one address guessing: {PIN_ATTEMPTS} wrong PINs checked, then held back ({one})",
    )
    waiting = login(panel, PIN, "192.168.7.1")
    tally.check(
        waiting.status_code == 429 and int(waiting.headers["retry-after"]) >= 60,
        "one address: even the right PIN waits, told for how long",
    )
    checked = 0
    for round_ in range(ROUNDS):
        for n in range(ADDRESSES):
            checked += (
                login(panel, f"{round_:02d}{n:04d}", f"10.9.{n // 250}.{n % 250}").status_code
                == 403
            )
    tally.check(
        checked <= ADDRESSES + PIN_EVERYONE_ATTEMPTS,
        f"{ADDRESSES} addresses x {ROUNDS} rounds: {checked} PINs checked "
        f"(at most one per new address and {PIN_EVERYONE_ATTEMPTS} for all)",
    )
    tally.check(
        login(panel, PIN, "10.9.0.3").status_code == 429,
        "an address that guessed wrong waits while the guard for everyone is on",
    )
    tally.check(login(panel, PIN).status_code == 200, "the table's own screen logs in meanwhile")
    tally.check(
        login(panel, PIN, "192.168.9.9").status_code == 200,
        "a device that has not guessed wrong logs in meanwhile",
    )


def _session(panel: httpx.Client, tally: Tally) -> None:
    made = login(panel, PIN, "192.168.5.5")
    cookie = made.headers.get("set-cookie", "").lower()
    tally.check("httponly" in cookie and "samesite=strict" in cookie, "the session cookie's flags")
    jar = made.cookies
    for thief in ("192.168.5.6", "10.0.0.1"):
        replayed = panel.get(
            "/api/referee/session", cookies=jar, headers={"X-Forwarded-For": thief}
        )
        tally.check(replayed.json()["ok"] is False, f"the cookie replayed from {thief}")
        panel.cookies.clear()
    own = panel.get("/api/referee/session", cookies=jar, headers={"X-Forwarded-For": "192.168.5.5"})
    tally.check(own.json()["ok"] is True, "the cookie from the address that made it")
    panel.cookies.clear()


def _headers(panel: httpx.Client, tally: Tally) -> None:
    answers = {
        path: panel.get(path, follow_redirects=False)
        for path in ("/", "/table", "/play/0", "/games", "/api/state", "/api/docs",
                     f"/static/{BUILD}/panel.js", "/i18n/de.json", "/missing")
    }  # fmt: skip
    answers["a foreign Host"] = panel.get("/table", headers={"host": "evil.example"})
    answers["a refused body"] = panel.post("/api/takeback", content=b"[" * 20_000)
    dashboard = TestClient(dashboard_app(Fleet(Broker.from_url("mqtt://127.0.0.1:1"))))
    for path in ("/", "/api/tables", f"/static/{CAFE_BUILD}/dashboard.js"):
        answers[f"dashboard {path}"] = dashboard.get(path)
    for what, answer in answers.items():
        missing = [name.decode() for name, _ in HEADERS if name.decode() not in answer.headers]
        policy = answer.headers.get("content-security-policy", "")
        framing = "frame-ancestors 'none'" in policy and answer.headers.get("x-frame-options")
        tally.check(
            not missing and "script-src 'self'" in policy and "unsafe-inline" not in policy
            and bool(framing),
            f"headers on {what} ({answer.status_code}): missing {missing or 'none'}",
        )  # fmt: skip


def _short_pin(tally: Tally) -> None:
    for pin in SHORT_PINS:
        said = subprocess.run(
            [sys.executable, "-m", "boardref", "pin-hash", "--pin", pin],
            capture_output=True,
            text=True,
            timeout=60,
        )
        tally.check(
            said.returncode == 2 and "Traceback" not in said.stderr and said.stdout == ""
            and said.stderr.strip().startswith("error: "),
            f"pin-hash --pin {pin!r}: exit {said.returncode}, {said.stderr.strip()[:80]!r}",
        )  # fmt: skip
