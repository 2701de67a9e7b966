"""A café broker of our own for the fleet's tests and its bench: Debian's mosquitto on a
free loopback port with a temporary config, and a table that reports to it."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from boardref.config import load_config
from boardref.harness import free_port
from boardref.service import Service

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
WAIT = 30.0


def until(check, what: str, wait: float = WAIT):
    """Wait for ``check()`` to give something true, and return it."""
    deadline = time.monotonic() + wait
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Mosquitto:
    """A broker of our own on loopback, with persistence so a restart keeps sessions;
    ``settings`` are more lines of its config."""

    def __init__(self, folder: Path, settings: str = ""):
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence true\npersistence_location {folder}/\n{settings}"
        )
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def accepting():
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", self.port)) == 0

        until(accepting, "mosquitto to listen")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(WAIT)


def start_dashboard(url: str, port: int) -> subprocess.Popen:
    """The real `boardref fleet` watching the broker at ``url``, once it answers on
    ``port``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "fleet", "--mqtt", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def answering():
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=2).is_success
        except httpx.HTTPError:
            return None

    until(answering, "the dashboard to answer")
    return process


def reporting_table(folder: Path, url: str, name: str) -> Service:
    """A table whose moves are tapped on the panel, reporting to the broker."""
    config = load_config(
        **{
            "store.path": folder / f"{name}.db",
            "game.name": "catch_the_hare",
            "fleet.url": url,
            "fleet.table_id": name,
        }
    )
    service = Service(config)
    service.start(asyncio.new_event_loop())
    return service
