"""The panel's web server: the socket it listens on, bound before anything starts so a
port in use or a wrong address is said in words, and uvicorn's settings (whom it
believes about a client's address), run inside the service's own event loop."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
import time
from email.utils import formatdate

import uvicorn
from uvicorn.server import ServerState

from boardref.outputs.panel import connections
from boardref.outputs.panel.tls import served_over_tls


class ServiceError(RuntimeError):
    """The service cannot run as configured; the message says why in words."""


def panel_socket(host: str, port: int) -> socket.socket:
    """The panel's listening socket, bound here so that a port in use or an address
    that is not this machine's is said in words before anything starts."""
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ServiceError(
            f"the panel cannot listen on {where}: {host!r} is not an address or a known "
            f"name ({getattr(exc, 'strerror', None) or exc}); set [panel] host"
        ) from None
    listening = socket.socket(family, kind, proto)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind(address)
    except OSError as exc:
        listening.close()
        hint = {
            errno.EADDRINUSE: "another program listens there; stop it or set [panel] port",
            errno.EADDRNOTAVAIL: "no network interface of this machine has that address",
            errno.EACCES: "ports below 1024 need privileges; use a port above 1024",
        }.get(exc.errno, "set [panel] host and port")
        raise ServiceError(f"the panel cannot listen on {where}: {exc.strerror}; {hint}") from None
    listening.set_inheritable(True)
    return listening


def server_config(app, panel) -> uvicorn.Config:
    """uvicorn's settings for the panel: X-Forwarded-For and -Proto are believed
    only from the configured reverse proxies (``[panel] proxies``), never by default,
    so no client can claim another's address (the PIN limit counts by address);
    connections are kept within ``connections.limits()``."""
    return uvicorn.Config(
        app,
        host=panel.host,
        port=panel.port,
        log_level="warning",
        lifespan="off",
        proxy_headers=bool(panel.proxies),
        forwarded_allow_ips=list(panel.proxies) or None,
        server_header=False,
        ws_max_size=4096,  # pages send nothing the panel acts on
        **connections.settings(connections.limits(), panel.proxies),
        **served_over_tls(panel),
    )


class _Headers(ServerState):
    """uvicorn's state shared by its connections, with the headers every answer
    carries made when an answer asks for them: the Date header is that second's,
    with no timer refreshing it while nobody asks."""

    def __init__(self, config: uvicorn.Config) -> None:
        self._config = config
        self._second: int | None = None
        self._headers: list[tuple[bytes, bytes]] = []
        super().__init__()

    @property
    def default_headers(self) -> list[tuple[bytes, bytes]]:
        now = int(time.time())
        if now != self._second:
            self._second = now
            date = [(b"date", formatdate(now, usegmt=True).encode())]
            self._headers = (date if self._config.date_header else []) + list(
                self._config.encoded_headers
            )
        return self._headers

    @default_headers.setter
    def default_headers(self, value: list[tuple[bytes, bytes]]) -> None:
        """uvicorn sets them as it starts; they are made on demand instead."""


class Server(uvicorn.Server):
    """uvicorn inside our loop: the service, not uvicorn, owns SIGTERM and SIGINT, and
    an idle panel costs no wake-ups: uvicorn looks ten times a second whether it
    should stop and refreshes its Date header; here it sleeps until ``should_exit``
    is set (on the loop's thread) and the header is made when an answer needs it.
    Failed accepts (no file descriptor left) are said once a minute, not each."""

    def __init__(self, config: uvicorn.Config) -> None:
        self._exit = asyncio.Event()
        super().__init__(config)
        self.server_state = _Headers(config)

    @property
    def should_exit(self) -> bool:
        return self._exit.is_set()

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        if value:
            self._exit.set()
        else:
            self._exit.clear()

    async def serve(self, sockets=None) -> None:
        connections.count_accept_errors(asyncio.get_running_loop())
        await super().serve(sockets=sockets)

    async def main_loop(self) -> None:
        await self._exit.wait()

    @contextlib.contextmanager
    def capture_signals(self):
        yield
