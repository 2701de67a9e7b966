"""Who may do what on the panel: the referee PIN (stored hashed), session cookies
bound to the address that logged in, limits on PIN attempts
(a growing back-off per client, and a guard for everyone at once so that many
addresses cannot share the guessing) and the Origin check that every state-changing
request passes. It decides about people, never about the game, and it never locks
the table's own screen out.
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
from dataclasses import dataclass

SESSION_COOKIE = "boardref_session"
SESSION_SECONDS = 12 * 3600
#: the shortest PIN `boardref pin-hash` takes: a million PINs of digits
PIN_DIGITS = 6
PIN_ATTEMPTS = 5  # wrong PINs a client may send before it waits ...
PIN_BACKOFF = 60.0  # ... this long after the next, twice as long after each further
PIN_BACKOFF_MOST = 3600.0  # ... up to an hour between two guesses
PIN_FORGET = 24 * 3600.0  # a client's wrong PINs are forgotten after a day without one
#: wrong PINs from every client but the table's screen together, within the window,
#: after which a client that has guessed wrong in the last day waits for the window
PIN_EVERYONE_ATTEMPTS = 30
PIN_EVERYONE_WINDOW = 600.0
MAX_CLIENTS = 4096  # clients remembered one by one; beyond, none counts as new
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


@dataclass
class _Guesser:
    """One client's wrong PINs: how many since it last waited a day, and the last."""

    wrong: int
    last: float

    def wait(self, now: float) -> float:
        if self.wrong < PIN_ATTEMPTS:
            return 0.0
        pause = min(PIN_BACKOFF * 2 ** (self.wrong - PIN_ATTEMPTS), PIN_BACKOFF_MOST)
        return max(0.0, pause - (now - self.last))


def guesser_of(client: str) -> str:
    """Whom wrong PINs are counted for: an IPv6 client by its /64 (one device may
    take any address in it), any other by its address."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.ip_network(f"{address}/64", strict=False))


class Access:
    """Referee sessions and the PIN limits of one panel. ``kiosk`` marks the table's
    own screen: it never waits and its wrong PINs count nowhere."""

    def __init__(self, pin_hash: str | None, clock=time.monotonic):
        self.pin_hash = pin_hash
        self._clock = clock
        self._sessions: dict[str, tuple[float, str]] = {}
        self._guessers: dict[str, _Guesser] = {}
        self._everyone: deque[float] = deque()

    async def login(self, pin: str, client: str, kiosk: bool = False) -> str | None:
        """A new referee session for a right PIN, bound to ``client``; None for a
        wrong one. The attempt counts before the PIN is checked (scrypt takes a tenth
        of a second, in a worker thread), so attempts sent side by side count each."""
        now = self._clock()
        guesser = None
        if not kiosk:
            self._forget(now)
            guesser = self._guessers.setdefault(guesser_of(client), _Guesser(0, now))
            guesser.wrong, guesser.last = guesser.wrong + 1, now
            self._everyone.append(now)
        if not await asyncio.to_thread(check_pin, pin, self.pin_hash):
            return None
        if guesser is not None:
            self._guessers.pop(guesser_of(client), None)
            self._everyone.remove(now)
        token = secrets.token_urlsafe(32)
        self._sessions[token] = (self._clock() + SESSION_SECONDS, client)
        return token

    def retry_after(self, client: str, kiosk: bool = False) -> tuple[float, bool]:
        """Seconds until ``client`` may try a PIN again (0: now), and whether it waits
        for everyone's wrong PINs rather than its own. A client with no wrong PIN in
        the last day is never held back by others' (unless too many are remembered)."""
        if kiosk:
            return 0.0, False
        now = self._clock()
        guesser = self._guessers.get(guesser_of(client))
        if guesser is not None and now - guesser.last > PIN_FORGET:
            guesser = None
        own = guesser.wait(now) if guesser else 0.0
        if own > 0:
            return own, False
        everyone = _recent(self._everyone, now, PIN_EVERYONE_WINDOW)
        new = guesser is None and len(self._guessers) < MAX_CLIENTS
        if len(everyone) >= PIN_EVERYONE_ATTEMPTS and not new:
            return PIN_EVERYONE_WINDOW - (now - everyone[-PIN_EVERYONE_ATTEMPTS]), True
        return 0.0, False

    def _forget(self, now: float) -> None:
        """Drop the clients that have not guessed wrong for a day; with too many left,
        the one quiet the longest (at capacity no client counts as new, see
        ``retry_after``, so none gains by being forgotten)."""
        if len(self._guessers) >= MAX_CLIENTS:
            for quiet in [c for c, g in self._guessers.items() if now - g.last > PIN_FORGET]:
                del self._guessers[quiet]
        while len(self._guessers) >= MAX_CLIENTS:
            del self._guessers[min(self._guessers, key=lambda c: self._guessers[c].last)]

    def logout(self, token: str | None) -> None:
        self._sessions.pop(token or "", None)

    def is_referee(self, token: str | None, client: str | None) -> bool:
        """Whether ``token`` is a live session made from ``client``: a cookie taken to
        another address is no session."""
        session = self._sessions.get(token or "")
        if session is None:
            return False
        expiry, made_by = session
        if expiry < self._clock():
            del self._sessions[token]
            return False
        return client is not None and hmac.compare_digest(made_by, client)


def _recent(attempts: deque[float], now: float, window: float) -> deque[float]:
    """``attempts`` without those older than ``window`` (dropped for good)."""
    while attempts and now - attempts[0] > window:
        attempts.popleft()
    return attempts
