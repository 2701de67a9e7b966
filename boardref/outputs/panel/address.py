"""The addresses of this machine: the one phones reach the panel at (for the join QR
codes on the table page), and the names a request may call the panel by.

The config's ``public_url`` wins; else the address the service is bound to, and when
that is every interface (0.0.0.0) the machine's LAN address. A loopback address is
returned as it is and marked, so the table page can warn that no phone reaches it.
A request whose Host header names another machine is no request for this table (a
web page that rebinds its own name to the table's address): ``Names`` tells them
apart. This module only looks addresses up; it never opens a connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

#: a TEST-NET address: "connecting" a UDP socket to it sends nothing, but makes the
#: kernel pick the interface (and so the address) that faces the network
_PROBE = ("192.0.2.1", 9)

#: how often the machine's own names and addresses are looked up again (DHCP moves them)
REFRESH_S = 30.0
_LOOPBACK = {"localhost", "localhost.localdomain", "ip6-localhost"}


def lan_address() -> str:
    """This machine's address on its LAN, or 127.0.0.1 when it has none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def public_base(public_url: str | None, host: str, port: int, scheme: str = "http") -> str:
    """The panel's base URL for phones (no trailing slash); ``scheme`` is https when
    the panel is served over TLS."""
    if public_url:
        return public_url.rstrip("/")
    if host in ("0.0.0.0", "", "::"):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}"


def is_loopback(base: str) -> bool:
    """Whether ``base`` names this machine only (no phone can reach it)."""
    host = urlsplit(base).hostname or ""
    return host in _LOOPBACK or _is_loopback_address(host)


def host_name(header: str | None) -> str:
    """The name or address of a Host header, lower case, without port or brackets."""
    host = (header or "").strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def own_names() -> set[str]:
    """This machine's host names and addresses, as phones on the LAN call it."""
    found = {lan_address()}
    try:
        name = socket.gethostname().lower()
    except OSError:
        return found
    found |= {name, f"{name}.local"}
    with contextlib.suppress(OSError):
        found |= {str(info[4][0]) for info in socket.getaddrinfo(name, None)}
        found.add(socket.getfqdn(name).lower())
    return found


class Names:
    """The names a request may call the panel by: the configured ones (``hosts``, the
    ``public_url``'s, the bound address), this machine's own, and loopback."""

    def __init__(self, configured: Iterable[str | None], look_up=own_names, clock=time.monotonic):
        self.configured = {host_name(name) for name in configured if name}
        self._look_up, self._clock = look_up, clock
        self._own: set[str] = set()
        self._looked = float("-inf")

    async def allow(self, header: str | None) -> bool:
        """Whether a request with this Host header is meant for this panel. A name not
        known yet has the machine's names looked up again (in a worker thread: a DNS
        lookup may wait), at most every ``REFRESH_S`` seconds."""
        name = host_name(header)
        if not name:
            return False
        if name in self.configured or name in _LOOPBACK or _is_loopback_address(name):
            return True
        if name not in self._own and self._clock() - self._looked > REFRESH_S:
            self._looked = self._clock()
            self._own = await asyncio.to_thread(self._look_up)
        return name in self._own


def _is_loopback_address(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
