"""Home Assistant's view of a table, without a broker: the discovery configs keep to
the keys Home Assistant's MQTT schemas document (the real Home Assistant reads them
in bench/bench_home_assistant.py), the values are said in the table's language with
none left blank, and alerts and the game's end become events once each."""

from __future__ import annotations

import pytest

from boardref.outputs.display import Display
from boardref.outputs.fleet import VERSION, dashboard_state
from boardref.outputs.home_assistant import ALERTS, Happenings, discovery
from boardref.referee.snapshot import Ending

COMMON_KEYS = {
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "default_entity_id",
    "device",
    "enabled_by_default",
    "encoding",
    "entity_category",
    "entity_picture",
    "icon",
    "json_attributes_template",
    "json_attributes_topic",
    "name",
    "object_id",
    "origin",
    "payload_available",
    "payload_not_available",
    "platform",
    "qos",
    "state_topic",
    "unique_id",
    "value_template",
}
SENSOR_KEYS = COMMON_KEYS | {
    "device_class",
    "expire_after",
    "force_update",
    "last_reset_value_template",
    "options",
    "state_class",
    "suggested_display_precision",
    "unit_of_measurement",
}
BINARY_SENSOR_KEYS = COMMON_KEYS | {
    "device_class",
    "expire_after",
    "force_update",
    "off_delay",
    "payload_off",
    "payload_on",
}
EVENT_KEYS = COMMON_KEYS | {"device_class", "event_types"}
KEYS = {"sensor": SENSOR_KEYS, "binary_sensor": BINARY_SENSOR_KEYS, "event": EVENT_KEYS}
DEVICE_KEYS = {
    "configuration_url",
    "connections",
    "hw_version",
    "identifiers",
    "manufacturer",
    "model",
    "model_id",
    "name",
    "serial_number",
    "suggested_area",
    "sw_version",
    "via_device",
}
ORIGIN_KEYS = {"name", "sw_version", "support_url"}


def test_discovery_payloads_use_only_home_assistants_documented_keys():
    entities = discovery("t1", VERSION, panel_url="http://192.168.1.20:8000")
    found = {(component, key) for component, key, _ in entities}
    assert found >= {("sensor", "game"), ("binary_sensor", "camera"), ("event", "alert")}
    assert ("event", "game_over") in found
    for component, key, config in entities:
        assert set(config) <= KEYS[component], set(config) - KEYS[component]
        assert set(config["device"]) <= DEVICE_KEYS
        assert set(config["origin"]) <= ORIGIN_KEYS and config["origin"]["name"] == "boardref"
        assert config["unique_id"] == f"boardref_t1_{key}"
        assert config["availability_topic"] == "boardref/t1/status"
        assert config["device"]["configuration_url"] == "http://192.168.1.20:8000"
        assert {"state_topic", "unique_id", "device", "origin", "name"} <= set(config)
        # a value the table lacks is None (unknown), never blank
        assert "or ''" not in config.get("value_template", "")
    diagnostic = {key for _, key, config in entities if config.get("entity_category")}
    assert diagnostic == {"board_link", "camera"}
    alert = next(config for _, key, config in entities if key == "alert")
    assert alert["event_types"] == list(ALERTS)


def test_a_table_without_a_panel_address_links_no_panel():
    _, _, config = discovery("t1", VERSION)[0]
    assert "configuration_url" not in config["device"]


@pytest.mark.parametrize(
    ("language", "title", "phase", "winner"),
    [
        ("en", "Catch the Hare", "Game over", "The hare"),
        ("de", "Hasenjagd", "Spielende", "Der Hase"),
    ],
)
def test_the_values_are_said_in_the_tables_language(table, language, title, phase, winner):
    referee = table("catch_the_hare").referee
    playing = dashboard_state(Display(referee.published), None, language)["said"]
    assert playing["game"] == title
    assert playing["winner"] is None  # no game over yet: unknown, not blank
    reason = {"key": "test", "params": {}}
    won = referee.published.model_copy(
        update={"phase": "over", "outcome": Ending(winners=(1,), reason=reason)}
    )
    said = dashboard_state(Display(won), None, language)["said"]
    assert (said["phase"], said["winner"], said["to_move"]) == (phase, winner, None)
    drawn = won.model_copy(update={"outcome": Ending(winners=(), reason=reason)})
    assert dashboard_state(Display(drawn), None, language)["said"]["winner"] != ""


@pytest.mark.parametrize(
    ("language", "none", "standing"),
    [
        ("en", "none", "Board disconnected, board differs from the game"),
        ("de", "keine", "Brett getrennt, Brett weicht vom Spiel ab"),
    ],
)
def test_the_standing_alerts_are_a_value_home_assistant_reads_again(
    table, language, none, standing
):
    referee = table("catch_the_hare").referee
    calm = dashboard_state(Display(referee.published, link="up"), None, language)
    assert calm["said"]["alerts"] == none  # a true state, not unknown
    differs = referee.published.model_copy(update={"errors": ["b2"]})
    cut = dashboard_state(Display(differs, link="down"), None, language)
    assert cut["said"]["alerts"] == standing


def test_each_alert_and_the_game_over_are_told_once():
    heard = Happenings("de")
    said = {"game": "Hasenjagd", "winner": "Der Hase"}
    playing = {"alerts": [], "phase": "move", "said": said}
    cut = {**playing, "alerts": ["board disconnected"]}
    assert heard.news(playing) == []
    assert heard.news(cut) == [
        ("alert", {"event_type": "board_disconnected", "message": "Brett getrennt"})
    ]
    assert heard.news(cut) == []  # still disconnected: nothing new
    ended = {**playing, "phase": "over"}
    assert heard.news(ended) == [
        ("game_over", {"event_type": "game_over", "game": "Hasenjagd", "winner": "Der Hase"})
    ]
    assert heard.news(ended) == []
    # a table that starts on a game already over does not end it again
    assert Happenings("en").news(ended) == []
