"""The dashboard's link to a café broker over TLS (a real mosquitto with a certificate
made by openssl): it waits for a broker not up yet, and comes back to one restarted,
showing what the tables said meanwhile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import httpx
import paho.mqtt.client as mqtt
import pytest

from boardref.outputs.fleet import RECONNECT
from tests.boardref.outputs.panel.test_panel_tls import self_signed
from tests.harness import MOSQUITTO, WAIT, Mosquitto, answers, dashboard_row, free_port, until

pytestmark = [
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is missing"),
    pytest.mark.skipif(not os.path.exists(MOSQUITTO), reason="mosquitto is missing"),
    pytest.mark.broker,
    pytest.mark.process,
]


def say_state(broker: Mosquitto, certificate, plies: int) -> None:
    """Table t1's retained state, said over TLS as its service would."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t1")
    client.tls_set(ca_certs=str(certificate))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        state = {"table": "t1", "game": "catch_the_hare", "plies": plies}
        said = client.publish("boardref/t1/state", json.dumps(state), qos=1, retain=True)
        said.wait_for_publish()
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_dashboard_waits_for_its_tls_broker_and_comes_back_after_a_restart(tmp_path):
    certificate, key = self_signed(tmp_path, "broker")
    # ``user root``: run as root, mosquitto would drop to a user who cannot read the key
    tls = f"user root\ncertfile {certificate}\nkeyfile {key}\n"
    broker = Mosquitto(tmp_path, settings=tls)
    port = free_port()
    dashboard = subprocess.Popen(
        [sys.executable, "-m", "boardref", "fleet", "--port", str(port),
         "--mqtt", f"mqtts://127.0.0.1:{broker.port}", "--ca-file", str(certificate)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}")
    # while the broker is down its tries back off up to RECONNECT[1] seconds apart
    back = RECONNECT[1] + WAIT
    try:
        until(lambda: answers(f"http://127.0.0.1:{port}/api/tables"), "the dashboard to answer")
        assert http.get("/api/tables").json() == []
        broker.start()
        say_state(broker, certificate, 1)
        until(lambda: (dashboard_row(http, "t1") or {}).get("state"), "t1 to be shown", back)
        broker.stop()
        broker.start()
        say_state(broker, certificate, 2)
        until(
            lambda: dashboard_row(http, "t1")["state"]["plies"] == 2,
            "t1's move while the dashboard was away to be shown",
            back,
        )
    finally:
        http.close()
        dashboard.terminate()
        dashboard.wait(WAIT)
        if broker.process is not None:
            broker.stop()
