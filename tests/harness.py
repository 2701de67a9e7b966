"""Helpers the tests and the benchmarks share: free ports, a simulated table on a
port of its own, Debian's Chromium, and a café broker (Debian's mosquitto on
loopback) with a dashboard and tables reporting to it.
"""

from __future__ import annotations

import asyncio
import functools
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import boardref.cafe

if TYPE_CHECKING:
    from boardref.runtime.service import Service

#: Debian's Chromium, which the browser tests and benches drive with Playwright
CHROMIUM = "/usr/bin/chromium"
#: Playwright 1.65's own ``--disable-features`` list: Chromium keeps only the last
#: such switch, so ``CHROMIUM_ARGS``'s must repeat it (the browser tests check it does)
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
    "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,"
    "TcpPortRandomizationWin,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,"
    "PreconnectToSearch,msForceBrowserSignIn,msEdgeUpdateLaunchServicesPreferredVersion"
)
#: what a headless Chromium run as root on a closed network needs; without the
#: address bar's WebUI popups, which Chromium loads for every browser context (two
#: pages in a renderer of their own, about 1 s of CPU) and nobody sees headless
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--disable-features={PLAYWRIGHT_DISABLED},WebUIOmniboxPopup,WebUIOmniboxAimPopup",
]
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
#: the café broker's largest message, as docs/fleet.md sets it: a hundred times the
#: largest game record seen (150 KB, 1,909 entries), so no table's outbox sticks on one
MAX_PACKET = 16_777_216
#: the café broker's ACL, as docs/fleet.md gives it
ACL = Path(boardref.cafe.__file__).parent / "mosquitto.acl"
#: how long the harness waits for a process to come up (seconds)
WAIT = 30.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _looked(check, what: str, deadline: float):
    """What ``check()`` gives now; ``TimeoutError`` naming ``what`` once it gives
    nothing true at or after ``deadline`` (``time.monotonic``)."""
    found = check()
    if not found and time.monotonic() >= deadline:
        raise TimeoutError(f"timed out waiting for {what}")
    return found


def until(check, what: str, wait: float = WAIT):
    """Wait for ``check()`` to give something true, and return it; ``TimeoutError``
    naming ``what`` after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while not (found := _looked(check, what, deadline)):
        time.sleep(0.05)
    return found


async def until_on_loop(check, what: str, wait: float = WAIT):
    """``until`` on an event loop: wait for ``check()`` to give something true while
    the loop runs on, and return it; ``TimeoutError`` naming ``what`` after ``wait``."""
    deadline = time.monotonic() + wait
    while not (found := _looked(check, what, deadline)):
        await asyncio.sleep(0.02)
    return found


def answers(url: str) -> bool:
    """Whether ``url`` answers a GET with a 2xx."""
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return 200 <= answer.status < 300
    except (urllib.error.URLError, OSError):
        return False


class Mosquitto:
    """A broker of our own on loopback, with persistence so a restart keeps sessions;
    ``settings`` are more lines of its config. With ``users`` (name: password) it is
    set up as docs/fleet.md tells a café: no anonymous login, a password file made by
    ``mosquitto_passwd`` and the ACL ``boardref/cafe/mosquitto.acl``; ``url_of`` gives a
    user's URL."""

    def __init__(self, folder: Path, settings: str = "", users: dict[str, str] | None = None):
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = folder / "mosquitto.conf"
        self.users = users or {}
        login = "allow_anonymous true\n"
        if self.users:
            login = _login_lines(folder, self.users)
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n{login}"
            f"persistence true\npersistence_location {folder}/\n{settings}"
        )
        self.process: subprocess.Popen | None = None

    def url_of(self, user: str) -> str:
        return f"mqtt://{user}:{self.users[user]}@127.0.0.1:{self.port}"

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


class Login:
    """An MQTT 5 client logged in to the broker on ``port`` as ``user`` (anonymous when
    None), as a table, a dashboard or an intruder would: the broker's answer to its
    login, the reason code of each PUBACK, and the topics delivered to it."""

    def __init__(self, port: int, user: str | None, password: str | None, client_id: str = ""):
        import paho.mqtt.client as mqtt

        self.connack: list[int] = []
        self.acks: dict[int, int] = {}
        self.heard: list[str] = []
        self.subscribed = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or f"harness-{user}-{os.getpid()}-{id(self)}",
            protocol=mqtt.MQTTv5,
        )
        if user:
            self.client.username_pw_set(user, password)
        # a refused login is closed at once, not after paho's next try a second later
        self.client.reconnect_delay_set(0.05, 0.05)
        self.client.on_connect = lambda c, u, f, reason, p: self.connack.append(reason.value)
        self.client.on_publish = lambda c, u, mid, reason, p: self.acks.__setitem__(
            mid, reason.value
        )
        self.client.on_message = lambda c, u, message: self.heard.append(message.topic)
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        until(lambda: self.connack, f"the broker's answer to {user}")

    def send(self, topic: str, payload: str) -> int:
        """Publish with QoS 1 and wait for the broker's PUBACK: its reason code (0x87
        when the ACL refused it)."""
        info = self.client.publish(topic, payload, qos=1)
        return until(lambda: self.acks.get(info.mid, -1) + 1, f"PUBACK of {topic!r}") - 1

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def dashboard_row(http, name: str) -> dict | None:
    """Table ``name`` as the dashboard behind the httpx client ``http`` has it."""
    return next((t for t in http.get("/api/tables").json() if t["table"] == name), None)


def _login_lines(folder: Path, users: dict[str, str]) -> str:
    """The config lines of a broker that lets in only ``users``, each as the ACL says."""
    passwords = folder / "passwd"
    passwords.touch()
    for user, password in users.items():
        subprocess.run([MOSQUITTO_PASSWD, "-b", str(passwords), user, password], check=True)
    # run as root, mosquitto would drop to its own user, which cannot read the test's
    # private folder; ``user root`` keeps it as it was started (no-op for anyone else)
    return (
        f"user root\nallow_anonymous false\nuse_username_as_clientid true\n"
        f"max_packet_size {MAX_PACKET}\n"
        f"password_file {passwords}\nacl_file {ACL}\n"
    )


def start_dashboard(url: str, port: int, wait: float = WAIT) -> subprocess.Popen:
    """The real `boardref fleet` watching the broker at ``url``, once it answers on
    ``port`` (within ``wait`` seconds)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "fleet", "--mqtt", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    until(lambda: answers(f"http://127.0.0.1:{port}/api/tables"), "the dashboard to answer", wait)
    return process


def reporting_table(folder: Path, url: str, name: str, **settings) -> Service:
    """A table whose moves are tapped on the panel, reporting to the broker at
    ``url`` as ``name``, started on a loop of its own; ``settings`` are more config
    keys (``"fleet.user": "t1"``)."""
    import asyncio

    from boardref.runtime.config import load_config
    from boardref.runtime.service import Service

    config = load_config(
        **{
            "store.path": folder / f"{name}.db",
            "game.name": "catch_the_hare",
            "fleet.url": url,
            "fleet.table_id": name,
            **settings,
        }
    )
    return Service(config, asyncio.new_event_loop())


def file_limit(files: int) -> None:
    """Let this process open at most ``files`` files, soft and hard limit alike."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))


def serve_sim(
    state_dir: str, wait: float = 60.0, files: int | None = None, stderr=subprocess.DEVNULL
) -> tuple[subprocess.Popen, str]:
    """`boardref serve --sim` on a free port, its event log under ``state_dir``, once
    its panel answers: the process and the panel's address. The code run is the one
    on ``sys.path`` (set PYTHONPATH to measure another tree). ``files``: how many files
    it may open (it cannot raise that), as a unit's LimitNOFILE would say."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(port)],
        env={**os.environ, "XDG_STATE_HOME": state_dir},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        preexec_fn=None if files is None else functools.partial(file_limit, files),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=1):
                return process, url
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"boardref serve --sim did not answer within {wait:.0f} s")
