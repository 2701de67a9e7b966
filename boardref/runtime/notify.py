"""systemd's notify protocol (sd_notify): READY, WATCHDOG, STATUS and STOPPING as
datagrams to ``$NOTIFY_SOCKET``. Without that variable (not under systemd) every call
does nothing. A few lines of socket code, so no library is needed for it.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send ``message`` (e.g. "READY=1") to systemd; False when not running under it."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket name
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(address)
            sock.sendall(message.encode())
        except OSError:
            return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between the watchdog pings systemd expects (half its WatchdogSec), or
    None when no watchdog is set for this process."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 2e6
    except ValueError:
        return None
