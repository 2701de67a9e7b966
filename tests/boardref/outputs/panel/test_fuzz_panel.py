"""Every POST route of the panel, as /openapi.json lists them, driven on a real uvicorn
with malformed, oversized, non-finite and non-UTF-8 bodies (fixed ones and
hypothesis's): no answer is a server error, no refusal is longer than 1 KB, and the
panel stops reading a body at the piece that crosses its limit (the 11.6 MB object
that once held the table for 4 s is refused unread). As a guard against
that kind of hang, a probe on the serving loop keeps the loop thread's CPU time while
it slept 5 ms, which must stay under 1 s; how long such refusals take is a figure of
bench/bench_hardening.py, not a test. Hypothesis's bodies are 60 here, their old volume
in bench/bench_volume.py."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardref.outputs.panel.api import build_app
from boardref.outputs.panel.gate import MAX_BODY
from boardref.outputs.panel.server import panel_socket, server_config
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.boardref.conftest import PIN, PIN_HASH
from tests.volume import volume

LONGEST_REFUSAL = 1024
LONGEST_STALL = 1.0  # CPU seconds: the bug it guards against held the loop 4.2 s

NASTY = [
    b"{",
    b"[",
    b'{"seat": }',
    b"null",
    b'"text"',
    b"[1, 2, 3]",
    b'{"seat": NaN}',
    b'{"seat": Infinity, "token": -Infinity}',
    b'{"settle_ms": 1e999999}',
    b'{"points": [[NaN, 1], [2, 3], [4, 5], [6, 7]]}',
    b'{"pin": "\\ud800"}',
    b'{"\\udfff": 1}',
    b'{"pin": "\xff\xfe"}',
    b"\xff\xfe{\x00}\x00",
    b'{"move": "' + "\u00e9".encode("latin-1") + b'"}',
    b"[" * 5000 + b"]" * 5000,
    b'{"seat": ' + b"9" * 5000 + b"}",
    b'{"record": ' + b'{"a": ' * 2000 + b"1" + b"}" * 2001,
    b'{"move": "' + b"x" * 9000 + b'"}',
    b'{"game": "sternhalma", "' + b"k" * 3000 + b'": 1}',
]
FIELDS = [
    "seat",
    "token",
    "move",
    "pin",
    "game",
    "players",
    "options",
    "computer",
    "level",
    "record",
    "settle_ms",
    "points",
    "cell",
    "off",
    "version",
    "piece",
]
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
BODIES = st.one_of(
    st.binary(max_size=200),
    st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=6).map(
        lambda body: json.dumps(body).encode()  # NaN and Infinity as Python writes them
    ),
    VALUES.map(lambda value: json.dumps(value).encode()),
    st.text(max_size=60).map(lambda text: json.dumps({"pin": text, "move": text}).encode()),
    st.sampled_from(NASTY),
)


class Counted:
    """ASGI wrapper that counts the pieces of a body the panel asked for after it had
    more than its limit in hand (uvicorn hands a body over in the pieces it read)."""

    def __init__(self, app):
        self.app = app
        self.past_limit = 0

    async def __call__(self, scope, receive, send) -> None:
        read = 0

        async def counted():
            nonlocal read
            self.past_limit += read > MAX_BODY
            message = await receive()
            read += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


class Probed:
    """The panel of a simulated table on uvicorn in a thread, with a probe on the same
    loop that keeps the most CPU time the loop spent while the probe slept 5 ms."""

    def __init__(self, service: Service):
        self.listening = panel_socket("127.0.0.1", 0)
        self.base = f"http://127.0.0.1:{self.listening.getsockname()[1]}"
        self.counted = Counted(build_app(service.panel))
        self.server = uvicorn.Server(server_config(self.counted, service.config.panel))
        self.stall = 0.0
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        probe = asyncio.create_task(self._probe())
        await self.server.serve(sockets=[self.listening])
        probe.cancel()

    async def _probe(self) -> None:
        # the loop thread's CPU time while the probe slept: the work that held the
        # loop, not the time other programs on a busy machine held the CPU
        while True:
            before = time.thread_time()
            await asyncio.sleep(0.005)
            self.stall = max(self.stall, time.thread_time() - before)

    def __enter__(self) -> Probed:
        # what earlier tests left in this process is no part of the panel: keep the
        # garbage collector from walking it on the panel's loop
        gc.collect()
        gc.freeze()
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        self.stall = 0.0  # starting up is not serving
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.listening.close()
        gc.unfreeze()


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    config = load_config(**{"store.path": folder / "log.db", "panel.referee_pin_hash": PIN_HASH})
    service = Service(config, asyncio.new_event_loop(), sim=True)
    with Probed(service) as probed:
        http = httpx.Client(base_url=probed.base, timeout=30)
        assert http.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        posts = [
            p for p, item in http.get("/openapi.json").json()["paths"].items() if "post" in item
        ]
        yield probed, http, posts
        http.close()
    service.close()


def check(http: httpx.Client, path: str, body, headers=None) -> None:
    headers = {"content-type": "application/json", **(headers or {})}
    answer = http.post(path, content=body, headers=headers)
    assert answer.status_code < 500, (
        path,
        body[:80] if isinstance(body, bytes) else "",
        answer.text[:300],
    )
    if answer.status_code >= 400:
        assert len(answer.content) <= LONGEST_REFUSAL, (path, answer.status_code, answer.text[:300])
        assert "said" in answer.json(), "a refusal is said in words"


def test_the_schema_lists_every_command(panel):
    _, _, posts = panel
    assert {"/api/game", "/api/play", "/api/settings", "/api/sim/lift"} <= set(posts)


@pytest.mark.slow
def test_fixed_nasty_bodies_on_every_post_route(panel):
    probed, http, posts = panel
    for path in posts:
        for body in NASTY:
            check(http, path, body)
        # a huge body, announced and streamed without a length
        check(http, path, b'{"seat": "' + b"x" * 2_000_000 + b'"}')
        check(http, path, (b" " * 4096 for _ in range(500)))
    # the kind of body that took the table 4 s to refuse: an 11.6 MB object of many keys
    many = b"{" + b", ".join(b'"k%d": 0' % n for n in range(1_000_000)) + b"}"
    check(http, "/api/takeback", many[:11_600_000].rsplit(b",", 1)[0] + b"}")
    assert probed.counted.past_limit == 0, "the panel read on past its limit"
    assert probed.stall < LONGEST_STALL, f"the loop stalled {probed.stall * 1000:.0f} ms"


@given(index=st.integers(min_value=0), body=BODIES)
@settings(
    max_examples=volume(60, 300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_generated_bodies_on_every_post_route(panel, index, body):
    probed, http, posts = panel
    check(http, posts[index % len(posts)], body)
    assert probed.counted.past_limit == 0, "the panel read on past its limit"
    assert probed.stall < LONGEST_STALL, f"the loop stalled {probed.stall * 1000:.0f} ms"
