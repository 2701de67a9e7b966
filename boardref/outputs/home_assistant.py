"""How a table appears in Home Assistant: MQTT discovery of one device per table, its
values said in the table's language, and its alerts and game over as event entities.

The sensors read the retained state topic the café dashboard reads too (its
``said`` part is in words); a value a table does not have (no winner yet, no camera)
is rendered as ``None``, which Home Assistant shows as unknown, never as blank. It
only describes the table; it never changes the game.
"""

from __future__ import annotations

from typing import Any

from boardref.outputs.display import Display
from boardref.outputs.panel.words import said
from engines.words import words

#: Home Assistant entities of a table: (component, key, name, template, extra fields)
ENTITIES = (
    ("sensor", "game", "Game", "{{ value_json.said.game }}", {"icon": "mdi:checkerboard"}),
    ("sensor", "to_move", "Player to move", "{{ value_json.said.to_move }}", {}),
    ("sensor", "phase", "Phase", "{{ value_json.said.phase }}", {}),
    ("sensor", "last_move", "Last move", "{{ value_json.last_move }}", {}),
    (
        "sensor",
        "moves",
        "Move count",
        "{{ value_json.plies }}",
        {"state_class": "total_increasing"},
    ),
    ("sensor", "winner", "Winner", "{{ value_json.said.winner }}", {"icon": "mdi:trophy"}),
    # the alerts still standing, retained with the state: what Home Assistant reads when
    # it comes back, where an Alert event raised while it was away is lost to it
    (
        "sensor",
        "alerts",
        "Standing alerts",
        "{{ value_json.said.alerts }}",
        {"icon": "mdi:alert-circle-outline"},
    ),
    (
        "binary_sensor",
        "board_link",
        "Board link",
        "{{ 'ON' if value_json.link == 'up' else 'OFF' }}",
        {"device_class": "connectivity", "entity_category": "diagnostic"},
    ),
    (
        "binary_sensor",
        "camera",
        "Camera",
        # a table without a camera has no camera state: unknown
        "{{ {'up': 'ON', 'down': 'OFF', 'opening': 'OFF'}.get(value_json.camera, 'None') }}",
        {"device_class": "connectivity", "entity_category": "diagnostic"},
    ),
)

#: the alerts of a table's state (``dashboard_state``), as event types
ALERTS = ("board_disconnected", "board_differs_from_the_game", "a_move_needs_choosing")

#: Home Assistant event entities: (key, name, event types)
EVENTS = (
    ("alert", "Alert", ALERTS),
    ("game_over", "Game over", ("game_over",)),
)


def event_topic(table: str, key: str) -> str:
    return f"boardref/{table}/home_assistant/{key}"


def discovery(
    table: str,
    version: str,
    prefix: str = "homeassistant",
    panel_url: str | None = None,
) -> list[tuple[str, str, dict]]:
    """Home Assistant MQTT discovery configs: one device per table, its entities, each
    as (component, key, config)."""
    device: dict[str, Any] = {
        "identifiers": [f"boardref_{table}"],
        "name": f"boardref table {table}",
        "manufacturer": "boardref",
        "model": "refereed game table",
        "sw_version": version,
    }
    if panel_url is not None:
        device["configuration_url"] = panel_url
    common = {
        "availability_topic": f"boardref/{table}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device,
        "origin": {"name": "boardref", "sw_version": version},
    }
    found = []
    for component, key, name, template, extra in ENTITIES:
        config = {
            "name": name,
            "unique_id": f"boardref_{table}_{key}",
            "state_topic": f"boardref/{table}/state",
            "value_template": template,
            **common,
            **extra,
        }
        found.append((component, key, config))
    for key, name, types in EVENTS:
        config = {
            "name": name,
            "unique_id": f"boardref_{table}_{key}",
            "state_topic": event_topic(table, key),
            "event_types": list(types),
            **common,
        }
        found.append(("event", key, config))
    return found


def said_state(display: Display, language: str, alerts: list[str]) -> dict[str, str | None]:
    """The values Home Assistant shows, in ``language``: the game's title, the seat to
    move, the phase, the winners (None where there is none) and the ``alerts`` standing
    (``dashboard_state``'s), or a word saying there is none."""
    shown = display.state
    seats = shown.seats
    winner = None
    if shown.outcome is not None:
        names = [_said_seat(language, seats[s]) for s in shown.outcome.winners if s < len(seats)]
        winner = ", ".join(names) or said(language, words("fleet.nobody_won", "nobody (a draw)"))
    return {
        "game": said(language, {"key": f"game.{shown.game}.title"}) if shown.game else None,
        "to_move": None if shown.acting is None else _said_seat(language, seats[shown.acting]),
        "phase": said(language, {"key": f"phase_{shown.phase}"}),
        "winner": winner,
        "alerts": _said_alerts(language, alerts),
    }


def _said_alerts(language: str, alerts: list[str]) -> str:
    if not alerts:
        return said(language, words("fleet.no_alerts", "none"))
    text = ", ".join(_said_alert(language, alert) for alert in alerts)
    return text[:1].upper() + text[1:]


def _said_alert(language: str, alert: str) -> str:
    """An alert of ``dashboard_state`` ("board disconnected") in ``language``."""
    return said(language, {"key": f"fleet.alert.{alert.replace(' ', '_')}"})


def _said_seat(language: str, seat) -> str:
    """A seat's name alone, as a value begins: "The hare", "Der Hase"."""
    name = said(language, seat.words.model_dump(include={"key", "params"}))
    return name[:1].upper() + name[1:]


class Happenings:
    """What Home Assistant hears as events, from one state of the table to the next: an
    alert raised, and the game ending. A table's first state raises its alerts but
    ends no game (one that had ended before a restart is not announced again)."""

    def __init__(self, language: str):
        self.language = language
        self._alerts: set[str] = set()
        self._phase: str | None = None

    def news(self, state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """The events ``state`` (``dashboard_state``) brings: (event key, payload)."""
        found = []
        alerts = {alert.replace(" ", "_") for alert in state["alerts"]}
        for alert in sorted(alerts - self._alerts):
            message = _said_alert(self.language, alert)
            found.append(("alert", {"event_type": alert, "message": message}))
        self._alerts = alerts
        if state["phase"] == "over" and self._phase not in (None, "over"):
            said_now = state["said"]
            payload = {"event_type": "game_over", "game": said_now["game"]}
            payload["winner"] = said_now["winner"]
            found.append(("game_over", payload))
        self._phase = state["phase"]
        return found
