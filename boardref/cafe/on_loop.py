"""The dashboard's broker client run by the asyncio loop instead of a thread of its own:
when the first message of a burst arrives the loop reads every message waiting, then
rests (the next messages wait in the kernel) and reads again, until a read finds
nothing and it watches the socket once more: a busy broker costs the loop a few
wake-ups a second rather than a thread's select per message, a quiet one none.
Login, TLS and keepalive stay paho's; a lost connection is tried again with the
tables' backoff. It never waits on the network on the loop: connecting (name lookup,
TCP, TLS handshake) runs in a thread.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from typing import cast

import paho.mqtt.client as mqtt

from boardref.outputs.fleet import RECONNECT

log = logging.getLogger(__name__)

#: packets read at most per wake-up, so that a flood still lets the pages be served
BURST = 500
KEEPALIVE = 15  # seconds: the broker drops a dashboard silent for 1.5 times this
CHECK_EVERY = 1.0  # seconds between two keepalive checks, as paho's own thread does


class OnLoop:
    """Runs ``client`` on ``loop`` against ``host``:``port`` until closed, reading at most
    once every ``rest`` seconds; ``after_reading`` is called after each read that heard
    a message."""

    def __init__(
        self,
        client: mqtt.Client,
        host: str,
        port: int,
        loop: asyncio.AbstractEventLoop,
        rest: float,
        after_reading,
    ):
        self.client = client
        self.loop = loop
        self.rest = rest
        self.after_reading = after_reading
        #: the socket the loop watches, set only on the loop
        self._watched: socket.socket | None = None
        self._heard = 0  # messages handed on: a read that hands none on found the socket dry
        on_message = client.on_message
        if on_message is None:
            raise ValueError("the client has no on_message to hand messages on to")
        self._on_message = on_message
        client.on_message = self._message
        client.on_socket_close = self._socket_closed
        client.on_socket_register_write = self._want_write
        client.on_socket_unregister_write = self._written
        client.connect_async(host, port, keepalive=KEEPALIVE)
        self._keeping = loop.create_task(self._keep_connected())

    def close(self) -> None:
        """Say goodbye to the broker and stop trying to reach it."""
        self._keeping.cancel()
        if self._watched is not None:
            self.client.disconnect()
            self.client.loop_write()  # the goodbye goes now: the loop may not turn again

    async def _keep_connected(self) -> None:
        delay = RECONNECT[0]
        while True:
            if await self._connect():
                while self._watched is not None:
                    await asyncio.sleep(CHECK_EVERY)
                    if self.client.is_connected():
                        delay = RECONNECT[0]
                    self.client.loop_misc()
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT[1])

    async def _connect(self) -> bool:
        try:
            await self.loop.run_in_executor(None, self.client.reconnect)
        except OSError as error:
            log.warning("the broker is not reached: %s", error)
            return False
        # a TCP or TLS socket: the dashboard does not speak MQTT over WebSockets
        sock = self._watched = cast("socket.socket | None", self.client.socket())
        if sock is None:
            return False
        self.loop.add_reader(sock, self._readable)
        if self.client.want_write():  # the login, queued while connecting
            self.loop.add_writer(sock, self._writable)
        return True

    def _message(self, client, userdata, message) -> None:
        self._heard += 1
        self._on_message(client, userdata, message)

    def _readable(self) -> None:
        if self._watched is not None:
            self.loop.remove_reader(self._watched)
        self._read()

    def _read(self) -> None:
        """Read every message waiting; rest, or watch the socket if none was."""
        sock, before = self._watched, self._heard
        if sock is None:
            return
        # paho reads one packet per call; a call that hands on no message found nothing
        # whole to read (a TLS socket may still hold decrypted bytes the loop cannot see)
        tls = isinstance(sock, ssl.SSLSocket)
        for _ in range(BURST):
            heard = self._heard
            if self.client.loop_read() != mqtt.MQTT_ERR_SUCCESS or self._watched is None:
                return
            if self._heard == heard and not (tls and cast(ssl.SSLSocket, sock).pending()):
                break
        if self._heard == before:
            self.loop.add_reader(sock, self._readable)
            return
        self.after_reading()
        self.loop.call_later(self.rest, self._rested, sock)

    def _rested(self, sock) -> None:
        if sock is self._watched:  # not closed meanwhile
            self._read()

    def _writable(self) -> None:
        self.client.loop_write()

    def _want_write(self, client, userdata, sock) -> None:
        watched = self._watched  # not while connecting in the thread: _connect asks then
        if watched is not None and sock is watched:
            self.loop.add_writer(watched, self._writable)

    def _written(self, client, userdata, sock) -> None:
        watched = self._watched
        if watched is not None and sock is watched:
            self.loop.remove_writer(watched)

    def _socket_closed(self, client, userdata, sock) -> None:
        watched = self._watched
        if watched is not None and sock is watched:
            self._watched = None
            self.loop.remove_reader(watched)  # paho closes the socket after saying so
            self.loop.remove_writer(watched)
