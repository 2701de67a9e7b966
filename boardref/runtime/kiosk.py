"""Where the table's kiosk browser finds the panel. Under systemd the service is given
a runtime directory (``RuntimeDirectory=`` sets ``$RUNTIME_DIRECTORY``); once the panel
listens it writes the table page's address there, and boardref-kiosk.service reads
that file, so the kiosk follows ``[panel] host`` and ``port`` without reading the
config, which holds the referee PIN's hash. It never writes outside that directory,
and writes nothing when systemd gave none.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from pathlib import Path

log = logging.getLogger("boardref")

#: the file in the runtime directory, in systemd's EnvironmentFile= format
KIOSK_FILE = "kiosk.env"
#: the variable boardref-kiosk.service opens (its unit holds the same name)
KIOSK_VARIABLE = "KIOSK_URL"
#: the table's page as the kiosk opens it: its address asks the page to keep still (a
#: new draw appears without rolling in, the turn line does not pulse while the table
#: speaks), as a screen that asks for reduced motion does. A Pi draws every frame of
#: an animation on its CPU, and a browser may not pass on a wish for less motion given
#: on its command line; the address is kept whatever that browser does.
KIOSK_PAGE = "/table?motion=reduce"


def kiosk_url(address: tuple, scheme: str = "http") -> str:
    """The kiosk's table page (``KIOSK_PAGE``) for a browser on this machine, given the
    address the panel's socket listens at (``getsockname()``). A panel on every address
    is reached on loopback, and on IPv6's when it listens on IPv6: a connection to
    127.0.0.1 there arrives from ::ffff:127.0.0.1, which is not counted as this
    machine's own browser.

    >>> kiosk_url(("0.0.0.0", 8000))
    'http://127.0.0.1:8000/table?motion=reduce'
    >>> kiosk_url(("::", 8080, 0, 0))
    'http://[::1]:8080/table?motion=reduce'
    """
    host, port = address[:2]
    if ipaddress.ip_address(host).is_unspecified:
        host = "::1" if ipaddress.ip_address(host).version == 6 else "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}{KIOSK_PAGE}"


def leave_kiosk_url(address: tuple, scheme: str = "http") -> Path | None:
    """Write the table page's address for the kiosk into the runtime directory systemd
    gave the service; where the file went, or None without one. A directory that
    cannot be written is logged: the table referees all the same."""
    folders = os.environ.get("RUNTIME_DIRECTORY")
    if not folders:
        return None
    path = Path(folders.split(":")[0]) / KIOSK_FILE
    written = path.with_name(KIOSK_FILE + ".new")
    try:
        written.write_text(f"{KIOSK_VARIABLE}={kiosk_url(address, scheme)}\n")
        written.replace(path)  # the kiosk never reads half a file
    except OSError as exc:
        log.warning("the kiosk's address could not be written to %s: %s", path, exc.strerror)
        return None
    return path
