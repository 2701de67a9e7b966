"""Who may do what on the panel: the referee PIN (stored hashed), session cookies,
limits on PIN attempts (per client, and for everyone at once
so that many addresses cannot share the guessing), and the Origin check that every
state-changing request passes. It decides about people, never about the game.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import re
import secrets
import time
from collections import deque

SESSION_COOKIE = "boardref_session"
SESSION_SECONDS = 12 * 3600
PIN_ATTEMPTS = 5  # failed PIN attempts allowed per client ...
PIN_WINDOW = 60.0  # ... within this many seconds
PIN_LOCKOUT_ATTEMPTS = 30  # failed PIN attempts from all clients together ...
PIN_LOCKOUT_WINDOW = 600.0  # ... within this many seconds lock the login for everyone
MAX_CLIENTS = 1024  # clients whose recent attempts are remembered one by one
#: what ``hash_pin`` writes: scrypt, a 16-byte salt and a 32-byte digest, in hex
PIN_HASH = re.compile(r"^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$")
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """A PIN as stored in the config: ``scrypt$<salt>$<hash>`` in hex."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode(), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_pin(pin: str, stored: str | None) -> bool:
    """Whether ``pin`` matches the stored hash (constant time); False without one."""
    if not stored or not isinstance(pin, str):
        return False
    try:
        kind, salt, digest = stored.split("$")
        expected = bytes.fromhex(digest)
        salt_bytes = bytes.fromhex(salt)
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    found = hashlib.scrypt(pin.encode("utf-8", "replace"), salt=salt_bytes, **_SCRYPT)
    return hmac.compare_digest(found, expected)


def is_local(host: str | None) -> bool:
    """A client on this machine: the kiosk browser on the table's own screen."""
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """A browser's Origin must be this panel itself; clients that send none (scripts,
    curl) pass, because a cross-site form cannot post JSON without one."""
    if origin is None:
        return True
    if origin == "null" or host is None:
        return False
    return origin.split("://", 1)[-1] == host


class Access:
    """Referee sessions and the PIN rate limit of one panel."""

    def __init__(self, pin_hash: str | None, clock=time.monotonic):
        self.pin_hash = pin_hash
        self._clock = clock
        self._sessions: dict[str, float] = {}
        self._failures: dict[str, deque[float]] = {}
        self._everyone: deque[float] = deque()

    async def login(self, pin: str, client: str) -> str | None:
        """A new referee session for a right PIN; None for a wrong one. The attempt
        counts before the PIN is checked (scrypt takes a tenth of a second, in a
        worker thread), so attempts sent side by side count each."""
        now = self._clock()
        if len(self._failures) > MAX_CLIENTS:  # forget clients that stopped trying
            for quiet in [c for c, t in self._failures.items() if now - t[-1] > PIN_WINDOW]:
                del self._failures[quiet]
        self._failures.setdefault(client, deque()).append(now)
        self._everyone.append(now)
        if not await asyncio.to_thread(check_pin, pin, self.pin_hash):
            return None
        self._failures.pop(client, None)
        self._everyone.remove(now)
        token = secrets.token_urlsafe(32)
        self._sessions[token] = self._clock() + SESSION_SECONDS
        return token

    def retry_after(self, client: str) -> tuple[float, bool]:
        """Seconds until ``client`` may try a PIN again (0: now), and whether the
        login is locked for everyone (too many wrong PINs from all clients)."""
        now = self._clock()
        everyone = _recent(self._everyone, now, PIN_LOCKOUT_WINDOW)
        if len(everyone) >= PIN_LOCKOUT_ATTEMPTS:
            return PIN_LOCKOUT_WINDOW - (now - everyone[-PIN_LOCKOUT_ATTEMPTS]), True
        recent = _recent(self._failures.get(client, deque()), now, PIN_WINDOW)
        if len(recent) < PIN_ATTEMPTS:
            return 0.0, False
        return PIN_WINDOW - (now - recent[-PIN_ATTEMPTS]), False

    def logout(self, token: str | None) -> None:
        self._sessions.pop(token or "", None)

    def is_referee(self, token: str | None) -> bool:
        expiry = self._sessions.get(token or "")
        if expiry is None:
            return False
        if expiry < self._clock():
            del self._sessions[token]
            return False
        return True


def _recent(attempts: deque[float], now: float, window: float) -> deque[float]:
    """``attempts`` without those older than ``window`` (dropped for good)."""
    while attempts and now - attempts[0] > window:
        attempts.popleft()
    return attempts
