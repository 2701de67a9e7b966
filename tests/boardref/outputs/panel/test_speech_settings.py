"""The speech settings on the panel: every page's state carries them, the referee
alone changes them (``POST /api/speech``), a bad value is refused in words, and the
change is pushed to the pages at once."""

from __future__ import annotations

import shutil

import pytest

from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN, started
from tests.boardref.outputs.panel.test_panel import REMOTE, client


def test_every_page_is_shown_the_defaults_from_the_config(service):
    speech = client(service).get("/api/state").json()["speech"]
    assert speech["kiosk"]["on"] and speech["phones"]["on"] and not speech["pi"]["on"]
    assert speech["kiosk"]["sounds"] and speech["pi"]["engine"] == "espeak-ng"
    assert speech["pi"]["problem"] is None and isinstance(speech["pi"]["voices"], list)
    assert set(speech["kiosk"]) == {"on", "volume", "speed", "voice", "sounds"}


def test_a_config_sets_each_outlet(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "speech.language": "de",
            "speech.kiosk": {"on": False, "speed": 1.5},
            "speech.pi": {"on": False, "volume": 0.3},
        }
    )
    service = started(config)
    try:
        speech = client(service).get("/api/state").json()["speech"]
    finally:
        service.close()
    assert speech["kiosk"]["on"] is False and speech["kiosk"]["speed"] == 1.5
    assert speech["pi"]["on"] is False and speech["pi"]["volume"] == 0.3


def test_only_the_referee_changes_speech_and_every_page_hears_it_at_once(service):
    phone = client(service, REMOTE)
    change = {"outlet": "kiosk", "on": False}
    refused = phone.post("/api/speech", json=change)
    assert refused.status_code == 403 and refused.json()["said"]["key"] == "server.only_referee"
    phone.post("/api/referee/login", json={"pin": PIN})
    with client(service).websocket_connect("ws://localhost/ws") as socket:
        assert socket.receive_json()["speech"]["kiosk"]["on"] is True
        answer = phone.post("/api/speech", json={**change, "volume": 0.25})
        assert answer.status_code == 200
        assert answer.json()["kiosk"] == {
            "on": False, "volume": 0.25, "speed": 1.0, "voice": None, "sounds": True
        }
        pushed = socket.receive_json()["speech"]
    assert pushed["kiosk"]["on"] is False and pushed["kiosk"]["volume"] == 0.25
    assert pushed["phones"]["on"] is True  # the other outlets are kept as they were
    again = phone.post("/api/speech", json={"outlet": "kiosk", "voice": "Anna"}).json()
    assert again["kiosk"]["voice"] == "Anna" and again["kiosk"]["on"] is False
    cleared = phone.post("/api/speech", json={"outlet": "kiosk", "voice": None}).json()
    assert cleared["kiosk"]["voice"] is None


def test_a_bad_value_is_refused_in_words_and_changes_nothing(service):
    referee = client(service, REMOTE)
    referee.post("/api/referee/login", json={"pin": PIN})
    for bad in (
        {"outlet": "kiosk", "volume": 1.5},
        {"outlet": "phones", "speed": 0.1},
        {"outlet": "pi", "speed": "fast"},
        {"outlet": "speaker", "on": True},
        {"outlet": "kiosk", "on": None},
        {"outlet": "pi", "engine": "piper"},  # the engine is the config's
        {"on": True},
    ):
        refused = referee.post("/api/speech", json=bad)
        assert refused.status_code == 422, bad
        said = refused.json()["said"]
        assert said["key"] == "server.invalid" and said["params"]["errors"], bad
    speech = referee.get("/api/state").json()["speech"]
    assert speech["kiosk"]["volume"] == 0.8 and speech["phones"]["speed"] == 1.0
    assert speech["pi"]["speed"] == 1.0 and speech["pi"]["on"] is False


@pytest.mark.process  # espeak-ng is asked for its voices once the Pi is on
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="apt-get install espeak-ng")
def test_a_voice_the_pi_lacks_is_said_on_the_referee_page_not_refused(service):
    referee = client(service, REMOTE)
    referee.post("/api/referee/login", json={"pin": PIN})
    answer = referee.post("/api/speech", json={"outlet": "pi", "on": True, "voice": "klingon"})
    assert answer.status_code == 200
    pi = answer.json()["pi"]
    assert pi["on"] is True and "en-gb" in pi["voices"]
    assert pi["problem"]["key"] == "speech.voice_missing"
    assert pi["problem"]["params"]["voice"] == "klingon"
    fixed = referee.post("/api/speech", json={"outlet": "pi", "voice": "en-us"}).json()["pi"]
    assert fixed["problem"] is None and fixed["voice"] == "en-us"
