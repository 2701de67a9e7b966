"""The address phones reach the panel at, for the join QR codes on the table page.

The config's ``public_url`` wins; else the address the service is bound to, and when
that is every interface (0.0.0.0) the machine's LAN address. A loopback address is
returned as it is and marked, so the table page can warn that no phone reaches it.
This module only looks addresses up; it never opens a connection.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

#: a TEST-NET address: "connecting" a UDP socket to it sends nothing, but makes the
#: kernel pick the interface (and so the address) that faces the network
_PROBE = ("192.0.2.1", 9)


def lan_address() -> str:
    """This machine's address on its LAN, or 127.0.0.1 when it has none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def public_base(public_url: str | None, host: str, port: int) -> str:
    """The panel's base URL for phones (no trailing slash)."""
    if public_url:
        return public_url.rstrip("/")
    if host in ("0.0.0.0", "", "::"):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def is_loopback(base: str) -> bool:
    """Whether ``base`` names this machine only (no phone can reach it)."""
    host = urlsplit(base).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
