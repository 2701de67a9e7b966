"""A table's login to the café's broker: user and password in the URL (percent-encoded)
or as settings of their own, the password in a file, a client certificate; and the
password never in an error message. The logins are tried on a real mosquitto."""

from __future__ import annotations

import logging
import os
import shutil

import pytest

from boardref.outputs.fleet import Broker
from boardref.runtime.config import ConfigError, load_config
from tests.boardref.outputs.panel.test_panel_tls import self_signed
from tests.harness import MOSQUITTO, Mosquitto, reporting_table, until

#: a password with every character a URL cannot hold as it is
PASSWORD = "p@ss:w/o?r#d%"
ENCODED = "p%40ss%3Aw%2Fo%3Fr%23d%25"


def test_a_password_in_the_url_is_percent_decoded():
    broker = Broker.from_url(f"mqtts://t1:{ENCODED}@broker.local")
    assert (broker.username, broker.password, broker.port) == ("t1", PASSWORD, 8883)
    assert PASSWORD not in repr(broker) and ENCODED not in repr(broker)


@pytest.mark.parametrize(
    "url",
    [
        "mqtt://t1:p#ss@broker.local:1883",  # the port is read from the password
        "mqtt://t1:secret@[broker",
        "http://t1:secret@broker.local",
        "mqtt://t1:secret@:1883",
    ],
)
def test_a_bad_url_is_refused_without_showing_its_password(url):
    with pytest.raises(ConfigError) as refused:
        load_config(**{"fleet.url": url, "fleet.table_id": "t1"})
    said = str(refused.value)
    assert "fleet.url: expected a broker URL" in said
    assert not [part for part in ("secret", "#ss", "ss@", "broker.local") if part in said]


def test_a_password_of_the_wrong_kind_is_not_shown():
    with pytest.raises(ConfigError) as refused:
        load_config(**{"fleet.password": 271828})
    assert "fleet.password" in str(refused.value) and "271828" not in str(refused.value)


def test_the_login_settings_are_given_once(tmp_path):
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    url = "mqtt://broker.local"
    login = {"fleet.user": "t1", "fleet.password_file": secret}
    config = load_config(**{"fleet.url": url, "fleet.table_id": "t1", **login})
    broker = config.fleet.broker()
    assert (broker.username, broker.password) == ("t1", PASSWORD)
    twice = [
        {"fleet.url": "mqtt://t1:pw@broker.local", "fleet.password": "pw"},
        {"fleet.url": url, "fleet.password": "pw", "fleet.password_file": secret},
        {"fleet.url": "mqtt://t1@broker.local", "fleet.user": "t1"},
        {"fleet.url": url, "fleet.certfile": secret},  # not mqtts
        {"fleet.url": "mqtts://broker.local", "fleet.keyfile": secret},  # no certfile
    ]
    for settings in twice:
        with pytest.raises(ConfigError) as refused:
            load_config(**{"fleet.table_id": "t1", **settings})
        assert "pw" not in str(refused.value) and PASSWORD not in str(refused.value)
    with pytest.raises(ConfigError, match="broker login is 't2' but the table is 't1'"):
        load_config(**{"fleet.url": url, "fleet.table_id": "t1", "fleet.user": "t2"})


def test_a_password_file_every_user_may_read_is_refused(tmp_path):
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o644)
    login = {"fleet.user": "t1", "fleet.password_file": secret}
    with pytest.raises(ConfigError) as refused:
        load_config(**{"fleet.url": "mqtt://broker.local", "fleet.table_id": "t1", **login})
    said = str(refused.value)
    assert f"fleet.password_file: every user of this machine can read {secret}" in said
    assert PASSWORD not in said


needs_mosquitto = pytest.mark.skipif(not os.path.exists(MOSQUITTO), reason="mosquitto is missing")


@needs_mosquitto
@pytest.mark.broker
@pytest.mark.parametrize("given", ["url", "file"])
def test_a_table_logs_in_with_a_password_that_needs_encoding(tmp_path, given, caplog):
    broker = Mosquitto(tmp_path, users={"t1": PASSWORD})
    broker.start()
    settings = {"fleet.url": f"mqtt://t1:{ENCODED}@127.0.0.1:{broker.port}"}
    if given == "file":
        secret = tmp_path / "password"
        secret.write_text(PASSWORD + "\n")
        secret.chmod(0o600)
        settings = {"fleet.url": broker.url, "fleet.user": "t1", "fleet.password_file": secret}
    with caplog.at_level(logging.DEBUG):
        logs_in(tmp_path, broker, settings)
    assert PASSWORD not in caplog.text and ENCODED not in caplog.text


@needs_mosquitto
@pytest.mark.broker
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is missing")
def test_a_table_logs_in_with_a_client_certificate(tmp_path):
    server, server_key = self_signed(tmp_path, "broker")
    client, client_key = self_signed(tmp_path, "table")
    trusted = tmp_path / "trusted.crt"
    trusted.write_text(server.read_text() + client.read_text())
    # ``user root``: run as root, mosquitto would drop to a user who cannot read the key
    tls = (
        f"user root\ncafile {trusted}\ncertfile {server}\nkeyfile {server_key}\n"
        "require_certificate true\n"
    )
    broker = Mosquitto(tmp_path, settings=tls)
    broker.start()
    settings = {
        "fleet.url": f"mqtts://127.0.0.1:{broker.port}",
        "fleet.ca_file": str(trusted),
        "fleet.certfile": client,
        "fleet.keyfile": client_key,
    }
    logs_in(tmp_path, broker, settings)


def logs_in(folder, broker: Mosquitto, settings: dict) -> None:
    """Table t1, set up with ``settings``, logs in to ``broker``; both are stopped."""
    service = reporting_table(folder, "", "t1", **settings)
    try:
        until(lambda: service.reporter.connected, "the table to log in")
    finally:
        service.close()
        broker.stop()
