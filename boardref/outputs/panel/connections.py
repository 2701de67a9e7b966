"""How many connections the panel (and the café dashboard) keep open, and for how long.

A client has ``request_seconds`` to send a whole request, from connecting or from its
last answer, and ``idle_seconds`` between requests. Each client address has a share
of the connections and of the WebSockets, and there is a cap in all: a new connection
that finds its share (or the whole) full closes that client's (or else anyone's)
oldest connection that is waiting for a request, so idle or half-sent connections
never keep a real request out. A WebSocket whose page stops reading is dropped, and
accept errors (out of file descriptors) are logged once a minute with a count. This
module never reads a request or its body and answers nothing but a bare 503 to a
connection it turns away: it only decides which connections stay open. The figures
are data: ``connections.toml``.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import ipaddress
import logging
import resource
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger(__name__)

#: what a client over its share hears before the connection is closed
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n"
    b"retry-after: 5\r\nconnection: close\r\n\r\n"
)
#: how often accept errors are said, with how many there were meanwhile
SAID_EVERY_S = 60.0
#: file descriptors kept for everything but the panel's connections (the event log,
#: the board link, the camera, worker threads' pipes)
KEPT_FOR_THE_REST = 48
_OUT_OF = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


@dataclass(frozen=True)
class Limits:
    """The figures of ``connections.toml``."""

    request_seconds: float
    idle_seconds: float
    drain_seconds: float
    ping_seconds: float
    per_client: int
    in_all: int
    sockets_per_client: int
    sockets_in_all: int


def limits() -> Limits:
    """The limits the package ships with."""
    text = resources.files("boardref.outputs.panel").joinpath("connections.toml").read_text()
    return Limits(**tomllib.loads(text))


class Crowd:
    """The open connections of one server, oldest first, in all and by client address."""

    def __init__(self, limits: Limits, proxies: Iterable[str] = ()):
        self.limits = limits
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        self._in_all = max(1, min(limits.in_all, soft - KEPT_FOR_THE_REST))
        self._proxies = [ipaddress.ip_network(p, strict=False) for p in proxies]
        self._open: dict[asyncio.Transport, Http] = {}
        self._clients: dict[str, dict[asyncio.Transport, None]] = {}
        self._sockets: dict[asyncio.Transport, str] = {}

    def admit(self, transport: asyncio.Transport, http: Http) -> bool:
        """Count a new connection, making room by closing the oldest one waiting for a
        request; False when every connection in the way is busy answering."""
        client = _address(transport)
        mine = self._clients.get(client, {})
        full = len(mine) >= self.limits.per_client and not self._proxy(client)
        if full and not self._make_room(mine):
            return False
        if len(self._open) >= self._in_all and not self._make_room(self._open):
            return False
        self._open[transport] = http
        self._clients.setdefault(client, {})[transport] = None
        return True

    def upgrade(self, transport: asyncio.Transport) -> bool:
        """Count a connection turning into a WebSocket; False over the WebSocket caps
        (an open page is never closed for a new one), and the connection, about to be
        closed, no longer counts."""
        client = _address(transport)
        mine = sum(c == client for c in self._sockets.values())
        if len(self._sockets) >= self.limits.sockets_in_all or (
            not self._proxy(client) and mine >= self.limits.sockets_per_client
        ):
            self.leave(transport)
            return False
        self._sockets[transport] = client
        return True

    def leave(self, transport: asyncio.Transport) -> None:
        if self._open.pop(transport, None) is not None:
            client = _address(transport)
            mine = self._clients[client]
            del mine[transport]
            if not mine:
                del self._clients[client]
        self._sockets.pop(transport, None)

    def _make_room(self, oldest_first: Iterable[asyncio.Transport]) -> bool:
        for transport in oldest_first:
            if transport not in self._sockets and self._open[transport].waiting():
                self.leave(transport)
                transport.close()
                return True
        return False

    def _proxy(self, client: str) -> bool:
        """A configured reverse proxy: its many clients share its one address."""
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return False
        return any(address in network for network in self._proxies)


def _address(transport: asyncio.Transport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) else ""


class _Counted:
    """What both kinds of connection share: the server's ``Crowd`` they are counted in,
    and one timer that closes them (a request's deadline, a stalled send's)."""

    def __init__(self, *args, crowd: Crowd, **kwargs):
        super().__init__(*args, **kwargs)
        self.crowd = crowd
        self._timer: asyncio.TimerHandle | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._stop_timer()
        self.crowd.leave(self.transport)

    def _start_timer(self, seconds: float, then: Callable[[], None]) -> None:
        if self._timer is None:
            self._timer = self.loop.call_later(seconds, self._ring, then)

    def _ring(self, then: Callable[[], None]) -> None:
        self._timer = None
        then()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Http(_Counted, H11Protocol):
    """uvicorn's HTTP/1.1 connection with a deadline for each request."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        if not self.crowd.admit(transport, self):
            transport.write(BUSY)
            transport.close()
            return
        self._watch_request()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_request()

    def waiting(self) -> bool:
        """Whether the client owes the next request (it has sent none, or part of one)."""
        return self.conn.their_state is h11.IDLE and self._ours()

    def _ours(self) -> bool:
        """Still HTTP: the connection has not turned into a WebSocket."""
        return self.transport.get_protocol() is self and not self.transport.is_closing()

    def _watch_request(self) -> None:
        """The request's clock runs while the client owes it (or its body), is not
        reset by bytes that trickle in, and stops once the request is whole."""
        if self._ours() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._start_timer(self.crowd.limits.request_seconds, self._too_slow)
        else:
            self._stop_timer()

    def _too_slow(self) -> None:
        if self._ours():
            self.transport.close()


class Socket(_Counted, WebSocketsSansIOProtocol):
    """uvicorn's WebSocket connection, closed when a send has not drained for
    ``drain_seconds`` (the page stopped reading)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._refused = False

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        if not self.crowd.upgrade(transport):
            self._refused = True
            transport.write(BUSY)
            transport.close()

    def data_received(self, data: bytes) -> None:
        if not self._refused:  # a refused page's handshake reaches no app
            super().data_received(data)

    def pause_writing(self) -> None:
        super().pause_writing()
        self._start_timer(self.crowd.limits.drain_seconds, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_timer()


def settings(limits: Limits, proxies: Iterable[str] = ()) -> dict:
    """uvicorn.Config's arguments for a server kept within ``limits``."""
    crowd = Crowd(limits, proxies)
    return {
        "http": functools.partial(Http, crowd=crowd),
        "ws": functools.partial(Socket, crowd=crowd),
        "timeout_keep_alive": limits.idle_seconds,
        "ws_ping_interval": limits.ping_seconds,
        "ws_ping_timeout": limits.ping_seconds,
    }


class AcceptErrors:
    """The loop's exception handler: a failed accept (no file descriptor left) is said
    once, then counted and said once a minute while it lasts; asyncio tries the
    listening socket again a second later, so it keeps serving. Everything else goes
    to the handler that was there before."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = loop
        self._before = loop.get_exception_handler()
        self._count = 0
        self._saying: asyncio.TimerHandle | None = None

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        error = context.get("exception")
        if _retried_after_close(context):
            return
        if not (isinstance(error, OSError) and error.errno in _OUT_OF and "socket" in context):
            if self._before is None:
                loop.default_exception_handler(context)
            else:
                self._before(loop, context)
            return
        self._count += 1
        if self._saying is None:
            self._say(error)

    def _say(self, error: OSError) -> None:
        if not self._count:
            self._saying = None
            return
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        log.error(
            "new connections could not be accepted %d time(s) in the last minute: %s "
            "(this process may open %d files); open connections are still served",
            self._count,
            error.strerror,
            soft,
        )
        self._count = 0
        self._saying = self._loop.call_later(SAID_EVERY_S, self._say, error)


def _retried_after_close(context: dict) -> bool:
    """asyncio schedules a retry for every accept that failed in a burst (up to the
    listen backlog); the ones still pending when the server closes find no socket."""
    callback = getattr(context.get("handle"), "_callback", None)
    return isinstance(context.get("exception"), ValueError) and (
        getattr(callback, "__name__", "") == "_start_serving"
    )


def count_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Have ``loop`` say failed accepts once a minute instead of a traceback each, with
    as many file descriptors as this process may have (the soft limit raised to the
    hard one: Linux starts programs at 1024 whatever they may have)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if not isinstance(loop.get_exception_handler(), AcceptErrors):
        loop.set_exception_handler(AcceptErrors(loop))
