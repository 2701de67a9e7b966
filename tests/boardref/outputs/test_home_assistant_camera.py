"""The camera as Home Assistant's Camera sensor reads it from a table's retained state:
a `boardref serve --sim` table with a camera that gives a few frames and then none
(an image folder played once), reporting to a real mosquitto; the camera is shown up
when it opens, down when it fails, and up again when a new game opens it again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import cv2
import httpx
import numpy as np
import paho.mqtt.client as mqtt
import pytest

from tests.harness import MOSQUITTO, Mosquitto, free_port, until

FRAMES = 30  # three seconds of the camera's ten frames a second: long enough to be sent
#: seconds: a busy machine starts the service and its rendered board slowly
SLOW = 120


class CameraStates:
    """The camera states table ``t1`` reported on the broker, each change once."""

    def __init__(self, port: int):
        self.seen: list[str] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, *_: c.subscribe("boardref/t1/state", qos=1)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, client, userdata, message) -> None:
        camera = json.loads(message.payload)["camera"]
        with self._lock:
            if not self.seen or self.seen[-1] != camera:
                self.seen.append(camera)

    def after(self, *states: str) -> bool:
        """Whether ``states`` came in this order (others may come between)."""
        with self._lock:
            seen = iter(self.seen)
            return all(state in seen for state in states)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.mark.process
@pytest.mark.broker
@pytest.mark.skipif(not os.path.exists(MOSQUITTO), reason="mosquitto is missing")
def test_the_camera_is_shown_up_down_and_up_again(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    picture = np.full((360, 640, 3), 90, np.uint8)  # frames, whatever they show
    for number in range(FRAMES):
        cv2.imwrite(str(folder / f"{number:03}.png"), picture)
    broker = Mosquitto(tmp_path)
    broker.start()
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[store]\npath = "{tmp_path}/log.db"\n'
        f'[camera]\nsource = "{folder}"\nsize = [640, 360]\n'
        f'[fleet]\nurl = "{broker.url}"\ntable_id = "t1"\n'
    )
    states = CameraStates(broker.port)
    service = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config),
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: states.after("up", "down"), "the camera to open, then fail", SLOW)
        with httpx.Client(base_url=url, headers={"origin": url}, timeout=10) as panel:
            # a game of another board lets the camera go; Sternhalma again opens it anew
            for game in ("catch_the_hare", "sternhalma"):
                panel.post("/api/game", json={"game": game, "players": 2}).raise_for_status()
        until(lambda: states.after("up", "down", "up"), "the camera to come back", SLOW)
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(30)
        states.close()
        broker.stop()
