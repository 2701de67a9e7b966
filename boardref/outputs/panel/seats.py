"""Who holds each seat: the join tokens and the claims of the phones that joined.

A seat's token is an HMAC of the game, the seat and the seat's round, keyed by a
secret kept in the event log. The first phone (device) that uses a token claims the
seat; the token then works on that phone alone, until the table hands the seat over,
which starts a new round with a new token. Secret and claims are kept in the log, so a
restart keeps every phone in its seat. It decides about phones, never about the game,
and it never keeps a device's mark in clear (only its hash).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from boardref.eventlog.store import StoreError
from engines.words import Words, words

log = logging.getLogger("boardref")

#: the cookie a phone's browser keeps: which device it is. HttpOnly; SameSite=Lax, not
#: Strict: a join link opened from another site or app must still carry it, or the
#: phone would be given a new mark and lose its own seat. It grants nothing alone.
DEVICE_COOKIE = "boardref_device"
DEVICE_SECONDS = 400 * 24 * 3600  # as long as a browser keeps a cookie
_DEVICE = re.compile(r"[A-Za-z0-9_-]{43}")  # what ``new_device`` makes
TOKEN_CHARS = 24

#: how a phone stands with a seat, as ``Seats.admit`` answers
JOINED, ELSEWHERE, HANDED_OVER, NOT_JOINED = "joined", "elsewhere", "handed_over", "not_joined"

SECRETS = "panel_secrets"
CLAIMS = "seat_claims"

#: what a phone is told where its token is right but the seat is not its own
STANDING_WORDS = {
    ELSEWHERE: words(
        "server.seat_elsewhere",
        "This seat has joined on another phone; ask the table to hand it over",
    ),
    HANDED_OVER: words(
        "server.seat_handed_over",
        "This seat was handed over to another phone; scan the seat's new code to play here",
    ),
}


def new_device() -> str:
    """A fresh device mark for a browser that has none."""
    return secrets.token_urlsafe(32)


def device_mark(cookie: str | None) -> str | None:
    """The device a cookie names, or None where it names none (absent or malformed)."""
    return cookie if cookie and _DEVICE.fullmatch(cookie) else None


def the_device(request: Request) -> str:
    """The device a request comes from (a route's dependency); one without a mark is
    given a new one, which ``DeviceMarks`` sends home as a cookie."""
    device = device_mark(request.cookies.get(DEVICE_COOKIE))
    if device is None:  # asked again within one request: the mark given the first time
        device = getattr(request.state, "new_device", None)
    if device is None:
        device = request.state.new_device = new_device()
    return device


class DeviceMarks:
    """ASGI middleware: a request given a new device mark carries it home as a cookie
    whatever its answer, a refusal included, so that no seat is ever claimed by a mark
    its phone never got. The browser then sends it again, the WebSocket included."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        state = scope.setdefault("state", {})

        async def marked(message):
            device = state.get("new_device")
            if message["type"] == "http.response.start" and device:
                cookie = (
                    f"{DEVICE_COOKIE}={device}; HttpOnly; Max-Age={DEVICE_SECONDS}; Path=/;"
                    " SameSite=lax"
                )
                message = {
                    **message,
                    "headers": [*message["headers"], (b"set-cookie", cookie.encode())],
                }
            await send(message)

        return await self.app(scope, receive, marked)


async def _device_of(request: Request) -> str:
    """``the_device`` as a route's dependency: a coroutine, run on the loop, where a
    plain function would be handed to a worker thread and back."""
    return the_device(request)


Device = Annotated[str, Depends(_device_of)]


def standing_words(standing: str, otherwise: Words) -> Words:
    """What a phone is told about its ``standing`` with a seat it asked for."""
    return STANDING_WORDS.get(standing, otherwise)


@dataclass
class Claim:
    """A seat's round (handovers so far) and the hash of the device holding it."""

    round: int = 0
    device: str | None = None


class Seats:
    """The seats' tokens and claims of one table, kept in its event log ``store``;
    ``changed`` is called whenever a seat is claimed or handed over."""

    def __init__(self, store, changed: Callable[[], None] = lambda: None):
        self._store = store
        self._changed = changed
        self._secret = self._kept_secret()
        self._claims: dict[tuple[int, int], Claim] = {
            (game_id, seat): Claim(round_, device)
            for game_id, seat, round_, device in store.read(
                f"SELECT game_id, seat, round, device FROM {CLAIMS}"
            )
        }

    def _kept_secret(self) -> bytes:
        """The secret tokens are made with: the log's, or a new one kept there."""
        found = self._store.read(f"SELECT value FROM {SECRETS} WHERE name = 'seat_tokens'")
        if found:
            return bytes(found[0][0])
        secret = secrets.token_bytes(32)
        try:
            self._store.write(
                [(f"INSERT INTO {SECRETS} (name, value) VALUES ('seat_tokens', ?)", (secret,))]
            )
        except StoreError as exc:  # the table still plays; its codes last this run only
            log.warning("seat tokens not kept, so phones must join again after a restart: %s", exc)
        return secret

    def _claim(self, game_id: int, seat: int) -> Claim:
        return self._claims.get((game_id, seat), Claim())

    def _token(self, game_id: int, seat: int, round_: int) -> str:
        message = f"{game_id}:{seat}:{round_}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:TOKEN_CHARS]

    def token(self, game_id: int, seat: int) -> str:
        """The token a seat's phone joins with now; it changes with every game and
        every handover."""
        return self._token(game_id, seat, self._claim(game_id, seat).round)

    def admit(self, game_id: int | None, seat: int, token: str | None, device: str | None) -> str:
        """How the phone ``device`` showing ``token`` stands with ``seat``: JOINED (it
        holds the seat, claiming it if no phone did), ELSEWHERE (another phone holds
        it), HANDED_OVER (the token of an earlier round) or NOT_JOINED."""
        if game_id is None or not token:
            return NOT_JOINED
        claim = self._claim(game_id, seat)
        given = token.encode("utf-8", "replace")
        if not hmac.compare_digest(self._token(game_id, seat, claim.round).encode(), given):
            earlier = (self._token(game_id, seat, r).encode() for r in range(claim.round))
            stale = any(hmac.compare_digest(old, given) for old in earlier)
            return HANDED_OVER if stale else NOT_JOINED
        if device is None:
            return NOT_JOINED
        mark = _hashed(device)
        if claim.device is None:
            self._keep(game_id, seat, Claim(claim.round, mark))
            self._changed()
            return JOINED
        return JOINED if hmac.compare_digest(claim.device, mark) else ELSEWHERE

    def holds(self, game_id: int | None, seat: int, token: str | None, device: str | None) -> bool:
        """Whether ``device`` holds ``seat`` with ``token`` (claiming a free seat)."""
        return self.admit(game_id, seat, token, device) == JOINED

    def joined(self, game_id: int | None) -> list[int]:
        """The seats of a game a phone holds."""
        return sorted(s for (g, s), c in self._claims.items() if g == game_id and c.device)

    def is_joined(self, game_id: int | None, seat: int) -> bool:
        return self._claim(game_id, seat).device is not None

    def handovers(self, game_id: int | None) -> int:
        """How many times a seat of a game was handed over: a page's join codes change
        with it."""
        return sum(c.round for (g, _), c in self._claims.items() if g == game_id)

    def hand_over(self, game_id: int, seat: int) -> None:
        """Release ``seat`` from its phone and make its token new: the old token, and
        every picture of its code, no longer works."""
        self._keep(game_id, seat, Claim(self._claim(game_id, seat).round + 1, None))
        self._changed()

    def carry(self, before: int, now: int, moved: Sequence[int]) -> None:
        """Keep each phone of game ``before`` with its player in game ``now`` (a
        rematch): the phone of seat ``s`` holds seat ``moved[s]``."""
        for (game_id, seat), claim in list(self._claims.items()):
            if game_id == before and claim.device:
                self._keep(now, moved[seat], Claim(0, claim.device))
        self._changed()

    def _keep(self, game_id: int, seat: int, claim: Claim) -> None:
        """Hold ``claim`` from now on and keep it in the log; a log that cannot take it
        (a full disk) loses it at the next restart, but the game goes on meanwhile."""
        self._claims[(game_id, seat)] = claim
        try:
            self._store.write(
                [
                    (
                        f"INSERT OR REPLACE INTO {CLAIMS} (game_id, seat, round, device)"
                        " VALUES (?, ?, ?, ?)",
                        (game_id, seat, claim.round, claim.device),
                    )
                ]
            )
        except StoreError as exc:
            log.warning("seat %d's phone not kept for a restart: %s", seat + 1, exc)


def _hashed(device: str) -> str:
    return hashlib.sha256(device.encode()).hexdigest()
