"""The panel's gate: what every request passes before the app sees it.

It answers at once, in words and without echoing what was sent, when the Host header
names a machine this is not (a web page that rebinds its own name to the table's
address), when a body is larger than any real request (``MAX_BODY``, checked while it
arrives, so a huge body never reaches the JSON parser), and when a body is not
strict JSON: not UTF-8, NaN or Infinity, numbers too large for a float, or text with
lone surrogates. It knows nothing of games or roles.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable

from engines.words import Words, words

#: the largest body a page sends (a whole position record is well under 2 KB)
MAX_BODY = 8 * 1024
_BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def refusal_body(said: Words) -> bytes:
    """The JSON of a refusal: ``detail`` in English, ``said`` for the page to translate;
    every refusal of the panel has it."""
    return json.dumps({"detail": str(said), "said": said.to_json()}).encode()


class BadBody(ValueError):
    """A body that is not strict JSON; the message says why without quoting it."""


def strict_json(body: bytes):
    """The JSON value of ``body``, refusing what Python's parser lets through but
    JSON does not allow or cannot be answered: NaN, Infinity, overflowing numbers,
    lone surrogates, text that is not UTF-8."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody("the body is not UTF-8 text") from None
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise BadBody("the body nests too deeply") from None
    except BadBody:
        raise
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        raise BadBody(f"the body is not JSON ({type(exc).__name__})") from None
    _check_text(value)
    return value


def _no_constant(name: str):
    raise BadBody(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise BadBody("a number is too large")
    return number


def _check_text(value) -> None:
    """Refuse strings (and keys) that cannot be encoded, such as a lone surrogate."""
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, dict):
            waiting.extend(item.keys())
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadBody("the text holds a lone surrogate, not a character") from None


class Gate:
    """ASGI middleware in front of the panel's app (see the module's docstring).

    ``host_allowed`` decides on the Host header's name; ``answer`` turns a refusal
    into the JSON body every refusal of the panel has.
    """

    def __init__(
        self,
        app,
        host_allowed: Callable[[str | None], Awaitable[bool]],
        answer: Callable[[Words], bytes],
        limit: int = MAX_BODY,
    ):
        self.app = app
        self.host_allowed = host_allowed
        self.answer = answer
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1") or None
        if not await self.host_allowed(host):
            said = words(
                "server.unknown_host",
                "This table answers only to its own names and addresses",
            )
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await self._refuse(send, 421, said)
            return
        if scope["type"] == "http" and scope["method"] in _BODY_METHODS:
            body = await self._body(headers, receive, send)
            if body is None:
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    async def _body(self, headers, receive, send) -> bytes | None:
        """The whole body, or None once a refusal has been sent."""
        too_large = words(
            "server.too_large",
            "The request is too large: at most {limit} bytes",
            limit=self.limit,
        )
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send, 413, too_large)
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send, 413, too_large)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            try:
                strict_json(body)
            except BadBody as exc:
                said = words(
                    "server.bad_json", "The request is not valid JSON: {why}", why=str(exc)
                )
                await self._refuse(send, 422, said)
                return None
        return body

    async def _refuse(self, send, status: int, said: Words) -> None:
        content = self.answer(said)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(content)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})


def _replay(body: bytes, receive):
    """A ``receive`` that gives the body read already, then waits as the server's does."""
    given = False

    async def replayed():
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
