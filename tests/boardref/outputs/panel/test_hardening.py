"""What a careless owner or an attacker on the café's LAN does to a table: huge and
malformed bodies, a foreign Host, spoofed forwarding headers, PIN guessing, a damaged
or full event log, bad configs. Each gets a clear answer in words and the game stays
exactly as it was."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.eventlog.store import Store
from boardref.outputs.panel import access
from boardref.outputs.panel.access import PIN_ATTEMPTS
from boardref.outputs.panel.api import build_app
from boardref.outputs.panel.server import panel_socket, server_config
from boardref.runtime.config import ConfigError, load_config
from boardref.runtime.service import Service
from tests.boardref.conftest import PIN, PIN_HASH, started
from tests.boardref.outputs.panel.test_panel import REMOTE, client, lay_out, play_on_board
from tests.flood import TABLE_CLAIMS

POSTS = ("/api/takeback", "/api/game", "/api/referee/login", "/api/draw", "/api/play")


def full_disk(service) -> None:
    """Let the event log grow no more, and fill every table's last page to the byte
    (as a full disk does): rows of no game, which no referee ever reads."""
    db = service.store._db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages + 2}")
    for size in (2048, 256, 32, 1):
        for insert in (
            "INSERT INTO events (game_id, kind, data, at) VALUES (0, 'filler', zeroblob(?), 0)",
            "INSERT INTO games (game, players, options, seed, commitment, started, ended)"
            " VALUES ('filler', 0, '{}', zeroblob(?), '', 0, 0)",
        ):
            with pytest.raises(sqlite3.OperationalError, match="full"):
                for _ in range(1000):
                    db.execute(insert, (size,))


def free_space(service) -> None:
    service.store._db.execute("PRAGMA max_page_count=1073741823")


# --- 2: one big body must not stall the table ----------------------------------------


def test_a_huge_body_is_refused_at_once_without_echo(service):
    local = client(service)
    huge = b'{"seat": "' + b"x" * 11_600_000 + b'"}'
    before = time.process_time()
    answer = local.post("/api/takeback", content=huge, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and answer.json()["said"]["key"] == "server.too_large"
    assert len(answer.content) < 1024, "a refusal never echoes the body"
    assert time.process_time() - before < 2.0, "the body was parsed, not refused by its size"


def test_a_body_streamed_without_length_is_cut_off_at_the_cap(service):
    def chunks():
        for _ in range(1000):
            yield b" " * 4096

    answer = client(service).post(
        "/api/takeback", content=chunks(), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413 and len(answer.content) < 1024


# --- 6: non-finite numbers and bad unicode are 422, never 500 ------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "body",
    [b'{"seat": NaN}', b'{"seat": Infinity}', b'{"seat": 1e999999}', b'{"pin": "\\ud800"}'],
)
def test_non_finite_numbers_and_lone_surrogates_are_refused_in_words(service, path, body):
    answer = client(service).post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422 and answer.json()["said"]["key"] == "server.bad_json"


def test_a_refusal_of_an_invalid_body_names_the_field_but_not_its_value(service):
    secret = "y" * 3000
    answer = client(service).post("/api/game", json={"game": "sternhalma", secret: 1})
    assert answer.status_code == 422 and secret not in answer.text
    assert len(answer.content) < 1024 and answer.json()["said"]["key"] == "server.invalid"


# --- 7: DNS rebinding: a foreign Host, a foreign Origin on /ws -----------------------


def test_a_request_naming_another_host_is_refused(service):
    local = client(service)
    lay_out(service)
    evil = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
    for path, body in (("/api/game", {"game": "sternhalma"}), ("/api/takeback", {})):
        answer = local.post(path, json=body, headers=evil)
        assert answer.status_code == 421 and answer.json()["said"]["key"] == "server.unknown_host"
    assert local.get("/api/state", headers=evil).status_code == 421
    assert len(service.referee.log) == 0, "nothing was done"
    # the machine's own names pass, and names the config adds
    assert local.get("/api/health", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert local.get("/api/health", headers={"Host": "[::1]:8000"}).status_code == 200


def test_a_configured_name_is_a_trusted_host(tmp_path):
    config = load_config(
        **{"store.path": tmp_path / "log.db", "panel.hosts": ["boardref.cafe.example"]}
    )
    service = started(config)
    try:
        named = client(service).get("/api/health", headers={"Host": "boardref.cafe.example"})
        assert named.status_code == 200
    finally:
        service.close()


def test_the_websocket_refuses_other_sites_and_other_hosts(service):
    local = client(service)
    with (
        pytest.raises(WebSocketDisconnect),
        local.websocket_connect(
            "ws://localhost/ws", headers={"Origin": "http://evil.example"}
        ) as socket_,
    ):
        socket_.receive_json()
    with (
        pytest.raises(WebSocketDisconnect),
        local.websocket_connect(
            "ws://evil.example/ws", headers={"Origin": "http://evil.example"}
        ) as socket_,
    ):
        socket_.receive_json()
    with local.websocket_connect(
        "ws://localhost/ws", headers={"Origin": "http://localhost"}
    ) as socket_:
        assert socket_.receive_json()["phase"] == "setup"


# --- 10: a binary frame is no traceback ----------------------------------------------


def test_a_binary_websocket_frame_is_ignored_quietly(service, caplog):
    with client(service).websocket_connect("ws://localhost/ws") as socket_:
        socket_.receive_json()
        socket_.send_bytes(b"\x00\xff" * 100)
        lay_out(service)
        assert socket_.receive_json()["phase"] == "move", "the page is still served"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# --- 5: the PIN: no spoofed addresses, a lockout for everyone, scrypt off the loop ---


class RealServer:
    """The panel on a real uvicorn (in a thread with its own loop), as `serve` runs it."""

    def __init__(self, service: Service):
        panel = service.config.panel
        self.listening = panel_socket("127.0.0.1", 0)
        self.port = self.listening.getsockname()[1]
        self.server = uvicorn.Server(server_config(build_app(service.panel), panel))
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.listening])), daemon=True
        )

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.listening.close()


@pytest.mark.slow
def test_forwarded_headers_cannot_rotate_the_client_address(service):
    with RealServer(service) as base:
        answers = [
            httpx.post(
                f"{base}/api/referee/login",
                json={"pin": "0000"},
                headers={"X-Forwarded-For": f"10.1.{n}.{n}"},
            ).status_code
            for n in range(PIN_ATTEMPTS + 1)
        ]
    assert answers == [403] * PIN_ATTEMPTS + [429]


def test_a_spoofed_forwarded_for_does_not_make_a_phone_the_table(service):
    with RealServer(service) as base:
        # from the Pi itself, but through a proxy there: not the table
        answer = httpx.post(
            f"{base}/api/takeback", json={}, headers={"X-Forwarded-For": "192.168.1.30"}
        )
        assert answer.status_code == 403


def behind_a_proxy(tmp_path: Path) -> Service:
    """A started service that believes a reverse proxy on this machine."""
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "panel.referee_pin_hash": PIN_HASH,
            "panel.proxies": ["127.0.0.1"],
        }
    )
    return started(config)


def test_forwarded_headers_are_believed_from_a_configured_proxy_only(tmp_path):
    service = behind_a_proxy(tmp_path)
    try:
        with RealServer(service) as base:
            behind = httpx.post(
                f"{base}/api/takeback", json={}, headers={"X-Forwarded-For": "192.168.1.30"}
            )
            assert behind.status_code == 403, "a phone behind the proxy is no table"
            for claim in TABLE_CLAIMS:  # nor is the Pi itself through the proxy
                answer = httpx.post(f"{base}/api/takeback", json={}, headers=claim)
                assert answer.status_code == 403, claim
            kiosk = httpx.post(f"{base}/api/takeback", json={})
            assert kiosk.status_code == 409, "the kiosk acted (nothing to take back)"
    finally:
        service.close()


@pytest.mark.slow
def test_many_clients_together_hold_back_those_that_guessed_but_not_the_kiosk(service, monkeypatch):
    monkeypatch.setattr(access, "PIN_EVERYONE_ATTEMPTS", 8)
    for n in range(8):
        guesser = client(service, (f"10.2.0.{n}", 1))
        assert guesser.post("/api/referee/login", json={"pin": "999999"}).status_code == 403
    again = client(service, ("10.2.0.1", 1)).post("/api/referee/login", json={"pin": PIN})
    assert again.status_code == 429 and again.json()["said"]["key"] == "server.pin_locked"
    assert int(again.headers["retry-after"]) > 60
    assert again.json()["said"]["params"]["minutes"] >= 1
    # a device that has not guessed wrong, and the table's own screen, still log in
    assert (
        client(service, ("10.3.0.1", 1)).post("/api/referee/login", json={"pin": PIN}).status_code
        == 200
    )
    assert client(service).post("/api/referee/login", json={"pin": PIN}).status_code == 200


def test_the_pin_is_checked_off_the_event_loop(service, monkeypatch):
    checked_in = []
    real_check = access.check_pin

    def check_pin(pin, stored):
        checked_in.append(threading.current_thread())
        return real_check(pin, stored)

    monkeypatch.setattr(access, "check_pin", check_pin)

    async def log_in() -> tuple:
        return await service.panel.access.login(PIN, "10.4.0.1"), threading.current_thread()

    token, loop_thread = asyncio.run(log_in())
    assert token is not None and checked_in and loop_thread not in checked_in


# --- 3: a damaged event log never stops the table -------------------------------------


def played_log(path: Path) -> None:
    store = Store(path)
    game = store.start_game("sternhalma", 2, {}, b"seed", "c")
    for n in range(200):
        store.append(game, "note", {"n": n, "pad": "p" * 200})
    store.close()


def damage_pages(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    page = 4096
    for number in range(1, 13):  # pages 2 to 13 (the first holds the header)
        raw[number * page : (number + 1) * page] = b"\x5a" * page
    path.write_bytes(bytes(raw))


def set_row(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "damage",
    [
        damage_pages,
        lambda path: set_row(path, "UPDATE events SET data = '{' WHERE id = 5"),
        lambda path: set_row(path, "UPDATE games SET options = '[1,2'"),
    ],
    ids=["garbage pages", "event data", "game options"],
)
def test_a_damaged_log_is_moved_aside_and_the_table_starts_afresh(tmp_path, damage, caplog):
    path = tmp_path / "log.db"
    played_log(path)
    damage(path)
    config = load_config(**{"store.path": path, "panel.referee_pin_hash": PIN_HASH})
    service = started(config)
    try:
        moved = service.damaged_log
        assert moved is not None and moved.exists() and moved.name.startswith("log.db.damaged-")
        assert service.referee.game.name == "sternhalma" and service.referee.log == []
        assert any(str(moved) in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
        referee = client(service, REMOTE)
        referee.post("/api/referee/login", json={"pin": PIN})
        assert referee.get("/api/diagnostics").json()["damaged_log"] == str(moved)
    finally:
        service.close()


# --- 4: a full disk is an honest error, and the pending move is retried ---------------


def test_a_full_disk_is_an_error_on_every_route_that_could_not_save(service):
    local = client(service)
    lay_out(service)
    referee = service.referee
    start = referee.positions[-1]
    play_on_board(service)
    logged = len(referee.log)
    full_disk(service)
    answer = local.post("/api/takeback", json={})
    assert answer.status_code == 507 and answer.json()["said"]["key"] == "server.not_saved"
    new_game = local.post("/api/game", json={"game": "sternhalma"})
    assert new_game.status_code == 507 and "full" in new_game.json()["detail"]
    assert len(referee.log) == logged and referee.positions[-1] != start, "nothing changed"


def test_a_move_refused_for_a_full_disk_is_logged_once_space_returns(service):
    lay_out(service)
    referee = service.referee
    state = referee.positions[-1]
    move = next(m for m in referee.game.legal_moves(state) if len(m.path) == 2)
    full_disk(service)
    play_on_board(service, move)
    assert referee.published.notice.key == "referee.not_saved", "the table says why"
    free_space(service)
    referee.tick(203.0)  # nobody touched a piece
    assert referee.log[-1][1]["move"] == str(move) and referee.published.notice is None


# --- 8: switching to a panel game ---------------------------------------------------------


def test_switching_from_a_board_game_to_a_panel_game_logs_no_error(tmp_path, caplog):
    config = load_config(**{"store.path": tmp_path / "log.db"})
    loop = asyncio.new_event_loop()
    service = Service(config, loop, sim=True)
    try:
        lay_out(service)
        service.new_game("fang_den_hut_cards", 3, {})
        assert service.referee.sensor == "panel"
        service.board.tick(time.monotonic() + 5)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        service.close()
        loop.close()


# --- 11: config mistakes refused at load, with the key and what is expected -----------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[game]\ncomputer = [5]", "game.computer = [5]: seats are numbered 0 to 1"),
        ("[panel]\nreferee_pin_hash = 'not-a-hash'", "panel.referee_pin_hash"),
        ("[gpio]\ndraw = true", "gpio.draw = True: Input should be a valid integer"),
        ("[fleet]\nca_file = '/nowhere/ca.pem'", "fleet.ca_file"),
        ("[panel]\nproxies = ['the proxy']", "not an IP address"),
    ],
)
def test_config_mistakes_are_refused_at_load(tmp_path, text, said):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(said)):
        load_config(path)


def test_a_config_that_is_not_utf8_is_refused_in_words(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes("[game]\nname = 'sternhalma' # Spielbrett für Café\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def serve_fails(tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardref", "serve", "--sim", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.process
def test_a_port_in_use_or_a_bad_host_is_said_in_words(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = serve_fails(tmp_path, "--port", port)
    assert busy.returncode == 1 and "Address already in use" in busy.stderr
    assert "Traceback" not in busy.stderr and "never retrieved" not in busy.stderr
    bad = serve_fails(tmp_path, "--host", "999.1.1.1")
    assert bad.returncode == 1 and "is not an address" in bad.stderr
    assert "Traceback" not in bad.stderr


# --- 12: the card game and the camera ---------------------------------------------------


def test_simulating_the_card_game_with_a_camera_says_it_is_played_on_the_panel():
    # in this process (typer's CliRunner): a crash would be exit code 1, not 2
    result = CliRunner().invoke(
        app, ["simulate", "--game", "fang_den_hut_cards", "--sensor", "camera", "--moves", "3"]
    )
    assert result.exit_code == 2 and "played on the panel" in result.stderr
    assert "Traceback" not in result.stderr


# --- 13: every POST route is documented ---------------------------------------------------


@pytest.mark.slow
def test_every_post_route_is_in_the_panel_docs(service):
    docs = (Path(__file__).parents[4] / "docs" / "panel.md").read_text(encoding="utf-8")
    schema = client(service).get("/openapi.json").json()
    posts = [path for path, item in schema["paths"].items() if "post" in item]
    missing = [path for path in posts if path not in docs and path.rsplit("/", 1)[-1] not in docs]
    assert not missing, f"docs/panel.md does not mention {missing}"
    assert "/api/play" in docs and "/api/settings" in docs


# --- 9: MQTT connection failures are logged ---------------------------------------------


@pytest.mark.broker
def test_a_broker_that_cannot_be_reached_is_logged_with_the_reason(tmp_path, caplog):
    from boardref.outputs.fleet import Broker, Reporter
    from tests.harness import MOSQUITTO, Mosquitto, free_port, until

    if not Path(MOSQUITTO).exists():
        pytest.skip("mosquitto is missing")
    broker = Mosquitto(tmp_path)
    broker.start()
    store = Store(tmp_path / "log.db")
    reporters = [
        Reporter(store, Broker.from_url(f"mqtts://127.0.0.1:{broker.port}"), "tls_to_plain"),
        Reporter(store, Broker.from_url(f"mqtt://127.0.0.1:{free_port()}"), "no_broker"),
    ]
    caplog.set_level(logging.WARNING, logger="boardref.outputs.fleet")
    try:
        for reporter in reporters:
            reporter.start()

        def said(words: str) -> bool:
            return any(
                "cannot reach the broker" in r.getMessage() and words in r.getMessage()
                for r in caplog.records
            )

        until(lambda: said("over TLS"), "the TLS failure in the log", 15)
        until(lambda: said("ConnectionRefusedError"), "the refused connection in the log", 15)
    finally:
        for reporter in reporters:
            reporter.close()
        store.close()
        broker.stop()
