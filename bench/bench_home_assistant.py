"""A table as a real Home Assistant sees it: Home Assistant 2025.4 (in a Python 3.13
virtual environment of its own, under ~/.cache/boardref-ha, made on the first run:
about 500 MB and five minutes) with its MQTT integration on a mosquitto of the
bench's own, and a `boardref serve --sim` table reporting to it.

Read through Home Assistant's REST API (a user made by its onboarding): the table's
device and every entity with a value or unknown, never blank or unavailable; a board
that differs from the game arrives as an Alert event, a game played to its end (Catch
the Hare ended by its move limit) as a Game over event; a second table's board, a
simulated microcontroller on a real serial link, unplugged, as a "board disconnected"
Alert, still standing in the Standing alerts sensor after Home Assistant restarts;
killed, the table's entities go unavailable (its last will). Prints one JSON line with
the seconds each step took. It never touches a Home Assistant of the machine's own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from smoke import SMOKE

from engines import load_game
from tests.boardref.conftest import start_service
from tests.harness import Mosquitto, free_port

PYTHON = Path(os.environ.get("BOARDREF_HA_PYTHON", "/root/.pyenv/versions/3.13.0/bin/python3.13"))
HOME = Path.home() / ".cache" / "boardref-ha"
HASS = HOME / "venv" / "bin" / "hass"
VERSION = "2025.4.*"
#: the packages as they were when that release was current, so the resolver settles
RESOLVED_AT = "2025-05-01T00:00:00Z"
TABLE = "t1"
UNPLUGGED = "t2"  # the table whose board is unplugged
WAIT = 120.0


def install() -> None:
    """Home Assistant and its MQTT library, once, in a virtual environment of its own
    (uv, which Home Assistant uses itself, settles its dependencies in minutes where
    pip backtracks for hours)."""
    if HASS.exists():
        return
    venv = HOME / "venv"
    subprocess.run([str(PYTHON), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "uv==0.6.*"], check=True)
    # --native-tls: the machine's own certificate store, as pip uses it
    python = str(venv / "bin" / "python")
    uv = [str(venv / "bin" / "uv"), "pip", "install", "--native-tls", "--python", python]
    # its frontend loads whether or not a page is opened; without it Home Assistant
    # starts in recovery mode
    packages = [f"homeassistant=={VERSION}", "paho-mqtt==2.1.0", "home-assistant-frontend"]
    subprocess.run([*uv, *packages, "--exclude-newer", RESOLVED_AT], check=True)


def until(check, what: str, wait: float = WAIT):
    deadline = time.monotonic() + wait
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_home_assistant: {what} did not happen in {wait:.0f} s")
        time.sleep(0.5)


def configure(folder: Path, port: int, broker: Mosquitto) -> None:
    """A Home Assistant with its API, onboarding and the MQTT integration on ``broker``
    (a config entry, as its set-up dialog would leave it)."""
    (folder / ".storage").mkdir(parents=True)
    (folder / "configuration.yaml").write_text(
        "homeassistant:\n  name: boardref bench\n  time_zone: UTC\n  country: DE\n"
        "  unit_system: metric\n  latitude: 0\n  longitude: 0\n  elevation: 0\n"
        f"http:\n  server_host: 127.0.0.1\n  server_port: {port}\n"
        "api:\nonboarding:\nlogger:\n  default: warning\n"
    )
    entry = {
        "entry_id": "boardrefbenchmqtt",
        "version": 1,
        "minor_version": 1,
        "domain": "mqtt",
        "title": "bench broker",
        "data": {"broker": "127.0.0.1", "port": broker.port, "discovery": True},
        "options": {},
        "pref_disable_new_entities": False,
        "pref_disable_polling": False,
        "source": "user",
        "unique_id": None,
        "disabled_by": None,
    }
    entries = {"version": 1, "minor_version": 1, "key": "core.config_entries"}
    entries["data"] = {"entries": [entry]}
    (folder / ".storage" / "core.config_entries").write_text(json.dumps(entries))


def token(url: str) -> str:
    """A user made by the onboarding, and its access token."""
    client = f"{url}/"
    owner = {"client_id": client, "name": "bench", "username": "bench", "password": "bench-pw"}
    # a busy machine's Home Assistant takes seconds to make a user
    made = httpx.post(f"{url}/api/onboarding/users", json={**owner, "language": "en"}, timeout=60)
    made.raise_for_status()
    answer = httpx.post(
        f"{url}/auth/token",
        data={"grant_type": "authorization_code", "code": made.json()["auth_code"],
              "client_id": client},
        timeout=60,
    )  # fmt: skip
    answer.raise_for_status()
    return answer.json()["access_token"]


def table_states(api: httpx.Client, table: str = TABLE) -> dict[str, dict]:
    """The states of ``table``'s entities, by entity id."""
    states = api.get("/api/states").json()
    return {s["entity_id"]: s for s in states if f"boardref_table_{table}_" in s["entity_id"]}


def serve_table(folder: Path, broker: Mosquitto) -> tuple[subprocess.Popen, str]:
    port = free_port()
    config = folder / "table.toml"
    config.write_text(
        '[game]\nname = "sternhalma"\nplayers = 2\n'
        f'[store]\npath = "{folder / "table.db"}"\n'
        f'[panel]\nport = {port}\npublic_url = "http://127.0.0.1:{port}"\n'
        f'[fleet]\nurl = "{broker.url}"\ntable_id = "{TABLE}"\n'
    )
    table = start_service(folder, port, "--config", str(config), wait=WAIT)
    return table, f"http://127.0.0.1:{port}"


def serve_unpluggable_table(folder: Path, broker: Mosquitto):
    """Table ``UNPLUGGED`` on a simulated board microcontroller of its own process
    (``python -m firmware_bridge.sim``, a real serial link over a pseudo-terminal), so
    that its cable can be pulled: the simulator, the table and its panel's address."""
    board = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--cells", "121"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    device = board.stdout.readline().strip()
    port = free_port()
    config = folder / "unplugged.toml"
    config.write_text(
        '[game]\nname = "sternhalma"\nplayers = 2\n'
        f'[sensors.hall]\ndevice = "{device}"\n'
        f'[store]\npath = "{folder / "unplugged.db"}"\n[panel]\nport = {port}\n'
        f'[fleet]\nurl = "{broker.url}"\ntable_id = "{UNPLUGGED}"\n'
    )
    table = start_service(folder, port, "--config", str(config), sim=False, wait=WAIT)
    return board, table


def start_home_assistant(folder: Path, url: str) -> subprocess.Popen:
    """Home Assistant on the config in ``folder / "ha"``, once its API answers."""
    with open(folder / "hass.log", "a") as hass_log:
        hass = subprocess.Popen(
            [str(HASS), "-c", str(folder / "ha"), "--skip-pip"],
            stdout=subprocess.DEVNULL, stderr=hass_log,
        )  # fmt: skip
    until(lambda: _answers(url), "Home Assistant to answer", 300)
    if "recovery mode" in (folder / "hass.log").read_text():
        raise SystemExit(f"bench_home_assistant: Home Assistant is in recovery mode: {folder}")
    return hass


def standing(api: httpx.Client, table: str) -> str | None:
    state = table_states(api, table).get(f"sensor.boardref_table_{table}_standing_alerts")
    return None if state is None else state["state"]


def misplace_a_piece(table: httpx.Client) -> None:
    """Put a red piece of the start where no move of it goes: the board differs."""
    game = load_game("sternhalma", 2)
    state = game.initial_state()
    reachable = {m.destination for m in game.legal_moves(state)}
    position = table.get("/api/state").json()["position"]
    origin = next(cell for cell, token in position.items() if token == "red")
    empty = next(c for c, t in position.items() if t is None and c not in reachable)
    table.post("/api/sim/lift", json={"cell": origin}).raise_for_status()
    table.post("/api/sim/place", json={"cell": empty}).raise_for_status()


def play_to_the_end(table: httpx.Client) -> None:
    """A new game of Catch the Hare that ends after one move (a draw by its move
    limit), that move carried on the virtual board."""
    body = {"game": "catch_the_hare", "players": 2, "options": {"max_plies": 1}}
    table.post("/api/game", json=body).raise_for_status()
    until(lambda: table.get("/api/health").json()["phase"] == "move", "Catch the Hare laid out")
    game = load_game("catch_the_hare", 2, max_plies=1)
    move = game.legal_moves(game.initial_state())[0]
    table.post("/api/sim/lift", json={"cell": move.origin}).raise_for_status()
    table.post("/api/sim/place", json={"cell": move.destination}).raise_for_status()


def available(states: dict[str, dict]) -> dict[str, dict] | None:
    """``states`` when there are some and none is unavailable."""
    if states and all(state["state"] != "unavailable" for state in states.values()):
        return states
    return None


def event_of(api: httpx.Client, key: str, event_type: str, table: str = TABLE):
    state = table_states(api, table).get(f"event.boardref_table_{table}_{key}")
    return state if state and state["attributes"].get("event_type") == event_type else None


def pull_the_cable(api, folder, broker, url, hass, line: dict, started: list) -> subprocess.Popen:
    """Unplug table ``UNPLUGGED``'s board: its alert arrives; then restart Home
    Assistant while the alert stands, and find it standing when it is back. Its new
    process (``started`` holds it, the simulator's and the table's)."""
    board, unplugged = serve_unpluggable_table(folder, broker)
    started += [board, unplugged]
    until(lambda: available(table_states(api, UNPLUGGED)), f"{UNPLUGGED}'s entities")
    board.stdin.write("unplug\n")
    board.stdin.flush()
    began = time.monotonic()
    cut = until(
        lambda: event_of(api, "alert", "board_disconnected", UNPLUGGED), "board disconnected"
    )
    line["disconnected_s"] = round(time.monotonic() - began, 1)
    line["disconnected"] = cut["attributes"]
    line["standing_before_restart"] = standing(api, UNPLUGGED)
    hass.terminate()
    hass.wait(60)
    hass = start_home_assistant(folder, url)
    started.append(hass)  # main stops the Home Assistant it started, not this one
    began = time.monotonic()
    try:
        line["standing_after_restart"] = until(
            lambda: "disconnected" in (standing(api, UNPLUGGED) or "") and standing(api, UNPLUGGED),
            "the standing alert after Home Assistant's restart",
        )
    except SystemExit as exc:
        shown = {k: v["state"] for k, v in table_states(api, UNPLUGGED).items()}
        raise SystemExit(f"{exc}: {line} {shown}") from None
    line["standing_after_restart_s"] = round(time.monotonic() - began, 1)
    return hass


def main() -> None:
    if SMOKE and not HASS.exists():
        # installing Home Assistant takes minutes and half a gigabyte: a smoke run
        # checks only that the bench starts; `make bench` installs it and runs it
        print(json.dumps({"bench": "home_assistant", "not_run": "Home Assistant is not installed"}))
        return
    install()
    folder = Path(tempfile.mkdtemp(prefix="bench-ha-"))
    broker = Mosquitto(folder)
    broker.start()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    configure(folder / "ha", port, broker)
    began = time.monotonic()
    hass = start_home_assistant(folder, url)
    table = None
    started: list[subprocess.Popen] = []  # the tables and simulators, killed at the end
    line: dict = {"bench": "home_assistant"}
    try:
        line["ha_start_s"] = round(time.monotonic() - began, 1)
        bearer = {"Authorization": f"Bearer {token(url)}"}
        api = httpx.Client(base_url=url, headers=bearer, timeout=30)
        table, table_url = serve_table(folder, broker)
        began = time.monotonic()
        until(lambda: len(table_states(api)) >= 11, "the table's eleven entities")
        line["entities_s"] = round(time.monotonic() - began, 1)
        states = until(lambda: available(table_states(api)), "every entity to be available")
        line["states"] = {k.split(f"{TABLE}_", 1)[1]: v["state"] for k, v in states.items()}
        line["blank"] = sorted(k for k, v in line["states"].items() if v in ("", None))
        device = states[f"sensor.boardref_table_{TABLE}_game"]
        line["game"] = device["state"]
        with httpx.Client(base_url=table_url, timeout=10) as panel:
            misplace_a_piece(panel)
            differs = "board_differs_from_the_game"
            alert = until(lambda: event_of(api, "alert", differs), "the alert")
            line["alert"] = alert["attributes"]
            play_to_the_end(panel)
            over = until(lambda: event_of(api, "game_over", "game_over"), "the game over")
            line["game_over"] = over["attributes"]
            line["winner"] = table_states(api)[f"sensor.boardref_table_{TABLE}_winner"]["state"]
            line["standing_alerts"] = standing(api, TABLE)
        hass = pull_the_cable(api, folder, broker, url, hass, line, started)
        table.send_signal(signal.SIGKILL)
        table.wait()
        began = time.monotonic()
        until(
            lambda: all(s["state"] == "unavailable" for s in table_states(api).values()),
            "the entities to go unavailable",
        )
        line["unavailable_s"] = round(time.monotonic() - began, 1)
    finally:
        for process in (table, *started):
            if process is not None and process.poll() is None:
                process.kill()
        hass.terminate()
        hass.wait(60)
        broker.stop()
    line["every_entity_has_a_value"] = not line["blank"]
    print(json.dumps(line, ensure_ascii=False))
    shutil.rmtree(folder, ignore_errors=True)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/onboarding", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    sys.exit(main())
