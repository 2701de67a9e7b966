"""Who may do what on the panel: the referee PIN (stored hashed), session cookies,
per-game player tokens, a rate limit on PIN attempts, and the Origin check that
every state-changing request passes. It decides about people, never about the game.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections import deque

SESSION_COOKIE = "boardref_session"
SESSION_SECONDS = 12 * 3600
PIN_ATTEMPTS = 5  # failed PIN attempts allowed per client ...
PIN_WINDOW = 60.0  # ... within this many seconds
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
    """Referee sessions, player tokens and the PIN rate limit of one panel."""

    def __init__(self, pin_hash: str | None, clock=time.monotonic):
        self.pin_hash = pin_hash
        self._clock = clock
        self._secret = secrets.token_bytes(32)
        self._sessions: dict[str, float] = {}
        self._failures: dict[str, deque[float]] = {}

    def login(self, pin: str, client: str) -> str | None:
        """A new referee session for a right PIN; None for a wrong one."""
        if not check_pin(pin, self.pin_hash):
            self._failures.setdefault(client, deque()).append(self._clock())
            return None
        self._failures.pop(client, None)
        token = secrets.token_urlsafe(32)
        self._sessions[token] = self._clock() + SESSION_SECONDS
        return token

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try a PIN again (0: now)."""
        now = self._clock()
        recent = self._failures.get(client, deque())
        while recent and now - recent[0] > PIN_WINDOW:
            recent.popleft()
        if len(recent) < PIN_ATTEMPTS:
            return 0.0
        return PIN_WINDOW - (now - recent[0])

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

    def player_token(self, game_id: int, seat: int) -> str:
        """The token a seat's phone joins with; it changes with every game."""
        message = f"{game_id}:{seat}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:24]

    def is_player(self, game_id: int | None, seat: int, token: str | None) -> bool:
        if game_id is None or not token:
            return False
        expected = self.player_token(game_id, seat).encode()
        return hmac.compare_digest(expected, token.encode("utf-8", "replace"))
