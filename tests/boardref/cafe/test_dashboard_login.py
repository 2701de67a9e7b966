"""The café dashboard's login to the broker, the same as a table's: a user and a
password (in a file, in the environment, or percent-encoded in the URL) and a client
certificate, tried on a real mosquitto that asks for both; the password never in a
message, and a password file every user may read refused."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import httpx
import pytest

from boardref.cli.app import PASSWORD_VARIABLE
from tests.boardref.outputs.panel.test_panel_tls import self_signed
from tests.boardref.runtime.test_fleet_login import ENCODED, PASSWORD, needs_mosquitto
from tests.harness import Login, Mosquitto, dashboard_row, free_port, until


def dashboard(*args: str, env: dict | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "boardref", "fleet", *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def accepts(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def a_password_file(folder, mode: int = 0o600):
    secret = folder / "broker-password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(mode)
    return secret


@pytest.mark.process
def test_a_password_file_every_user_may_read_is_refused_in_one_sentence(tmp_path):
    secret = a_password_file(tmp_path, 0o644)
    args = ["--mqtt", "mqtt://127.0.0.1:9", "--user", "dashboard", "--password-file", secret]
    refused = dashboard(*map(str, args))
    _, said = refused.communicate(timeout=60)
    assert refused.returncode == 2
    assert said == (
        f"error: --password-file: every user of this machine can read {secret}: "
        f"`chmod o-r {secret}` (or `chmod 600`) and start again\n"
    )


@pytest.mark.process
def test_the_password_is_given_once_and_never_shown(tmp_path):
    secret = a_password_file(tmp_path)
    url = f"mqtt://dashboard:{ENCODED}@127.0.0.1:9"
    refused = dashboard("--mqtt", url, "--password-file", str(secret))
    _, said = refused.communicate(timeout=60)
    assert refused.returncode == 2
    assert said.startswith("error: --password: give it once: in --mqtt, as --password or as ")
    assert PASSWORD not in said and ENCODED not in said


@needs_mosquitto
@pytest.mark.broker
@pytest.mark.process
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is missing")
@pytest.mark.parametrize("given", ["file", "environment", "url"])
def test_the_dashboard_logs_in_with_a_password_and_a_client_certificate(tmp_path, given):
    server, server_key = self_signed(tmp_path, "broker")
    client, client_key = self_signed(tmp_path, "dashboard")
    trusted = tmp_path / "trusted.crt"
    trusted.write_text(server.read_text() + client.read_text())
    plain = free_port()  # where the table reports, without TLS
    tls = (
        f"cafile {trusted}\ncertfile {server}\nkeyfile {server_key}\n"
        f"require_certificate true\nlistener {plain} 127.0.0.1\n"
    )
    broker = Mosquitto(tmp_path, settings=tls, users={"dashboard": PASSWORD, "t1": "t1-pw"})
    broker.start()
    try:
        said = dashboard_sees_t1(broker, plain, given, trusted, client, client_key, tmp_path)
    finally:
        broker.stop()
    assert PASSWORD not in said and ENCODED not in said


def dashboard_sees_t1(broker, plain, given, trusted, client, client_key, folder) -> str:
    """A dashboard, logged in as ``given`` says, sees table t1 report on the broker's
    ``plain`` listener; what the dashboard wrote to its standard error."""
    port = free_port()
    url = f"mqtts://127.0.0.1:{broker.port}"
    login, env = ["--user", "dashboard"], {}
    if given == "file":
        login += ["--password-file", str(a_password_file(folder))]
    elif given == "environment":
        env[PASSWORD_VARIABLE] = PASSWORD
    else:
        login, url = [], f"mqtts://dashboard:{ENCODED}@127.0.0.1:{broker.port}"
    until(lambda: accepts(plain), "the broker's second listener")
    table = Login(plain, "t1", "t1-pw")
    watching = dashboard(
        "--mqtt", url, "--port", str(port), "--ca-file", str(trusted),
        "--certfile", str(client), "--keyfile", str(client_key), *login, env=env,
    )  # fmt: skip
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:

            def online():
                # sent until seen: the dashboard hears only what comes after it logged in
                # (0x10, "no matching subscribers", until it has)
                assert table.send("boardref/t1/status", "online") < 0x80
                try:
                    return (dashboard_row(http, "t1") or {}).get("status") == "online"
                except httpx.HTTPError:
                    return False

            until(online, "the dashboard to see t1")
    finally:
        table.close()
        watching.terminate()
        _, said = watching.communicate(timeout=30)
    return said
