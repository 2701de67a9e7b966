"""A flood of connections to a panel, opened the way a hostile LAN client opens them:
sockets that send nothing, requests whose headers never end, WebSockets that never
read; and requests claiming to be the table through forwarding headers. For the
tests and the attack bench; it never sends a whole request on a flood connection.
"""

from __future__ import annotations

import itertools
import socket
import time

import httpx

#: a request's headers without the blank line that ends them
HALF_SENT = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n"

#: forwarding headers a request may carry to pass for the kiosk on the Pi itself
TABLE_CLAIMS = (
    {"X-Forwarded-For": "127.0.0.1"},
    {"x-forwarded-for": "192.168.1.30, 127.0.0.1"},
    {"Forwarded": "for=127.0.0.1;proto=http"},
    {"Forwarded": 'for="[::1]"'},
    {"X-Real-IP": "127.0.0.1"},
)


def upgrade(port: int) -> bytes:
    """A WebSocket handshake for the panel's ``/ws``, as a page of its own sends it."""
    return (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Origin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def flood(port: int, idle: int = 0, half_sent: int = 0, sockets: int = 0) -> list[socket.socket]:
    """Open that many connections to 127.0.0.1:``port``, interleaved, and leave them."""
    kinds = itertools.zip_longest([b""] * idle, [HALF_SENT] * half_sent, [upgrade(port)] * sockets)
    opened = []
    for sent in (sent for three in kinds for sent in three if sent is not None):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        if sent:
            connection.sendall(sent)
        opened.append(connection)
    return opened


def closed(connection: socket.socket) -> bool:
    """Whether the server has closed ``connection`` (what it sent meanwhile is read and
    dropped, without waiting)."""
    connection.setblocking(False)
    try:
        while connection.recv(65536):
            pass
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True
    return True


def state_seconds(
    url: str, tries: int = 3, patience: float = 5.0, path: str = "/api/state"
) -> list[float]:
    """How long ``path`` took to answer, each of ``tries`` times (a new connection
    each, as a phone opening the page); an answer other than 200, or none within
    ``patience`` seconds, counts as never."""
    seconds = []
    for _ in range(tries):
        started = time.perf_counter()
        try:
            answered = httpx.get(f"{url}{path}", timeout=patience).status_code == 200
        except httpx.HTTPError:
            answered = False
        seconds.append(time.perf_counter() - started if answered else float("inf"))
    return seconds
