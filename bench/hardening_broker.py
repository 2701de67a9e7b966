"""Attacks on the café broker and its dashboard: another table's login writing a
table's topics, reading them or taking over its connection, on a real mosquitto set
up with ``boardref/cafe/mosquitto.acl``; and, on a broker without that ACL (as a bridge
passes messages on), messages the real dashboard must not believe: bad names,
states, events and records that speak for another table, records that do not
verify, and links that are not http(s) addresses with a host.

An attack holds when the broker refused it (PUBACK 0x87, CONNACK refused, nothing
delivered) or the dashboard ignored it (its rows, day, zip and downloads unchanged).
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import re
import string
import subprocess
import threading
import time
import zipfile
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from smoke import sized
from tally import Tally

from boardref.cafe.daybook import day_of
from boardref.runtime.service import Service
from engines.records import GameRecord, read, to_json
from tests import harness

USERS = {"t1": "pw-t1", "t2": "pw-t2", "dashboard": "pw-dashboard"}
NOT_AUTHORIZED = 0x87
#: made-up names and links tried on top of the fixed ones
RANDOM_TRIES = sized(60, 6)
BAD_NAMES = ["..", ".", "tïsch", "☃", "x" * 200, "t 1", "a.b", "t1;rm", "%2e%2e"]
BAD_LINKS = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "http:///x",
    "http:evil.example",
    "//evil.example",
    "https://",
    "ftp://evil.example",
    " http://evil.example",
    "http://evil.example/\r\nX: y",
    "http://[::1",
    42,
    ["http://evil.example"],
]


def play_to_the_end(service: Service, pick: random.Random) -> None:
    referee = service.referee
    while referee.phase != "over":
        referee.play(str(pick.choice(referee.game.legal_moves(referee.positions[-1]))))


def attack(scratch: Path) -> Tally:
    tally = Tally("broker")
    for folder in ("cafe", "open"):
        (scratch / folder).mkdir()
    cafe = harness.Mosquitto(scratch / "cafe", users=USERS)
    open_broker = harness.Mosquitto(scratch / "open")
    cafe.start()
    open_broker.start()
    dashboards: list[subprocess.Popen] = []
    open_port = harness.free_port()
    # the second dashboard comes up while the café's attacks run
    opening = threading.Thread(
        target=lambda: dashboards.append(harness.start_dashboard(open_broker.url, open_port))
    )
    opening.start()
    try:
        record = at_the_cafe(scratch, cafe, tally, dashboards)
        opening.join()
        with httpx.Client(base_url=f"http://127.0.0.1:{open_port}", timeout=10) as http:
            believed_only_about_itself(open_broker, http, record, tally)
    finally:
        opening.join()
        for dashboard in dashboards:
            dashboard.terminate()
            dashboard.wait(30)
        cafe.stop()
        open_broker.stop()
    return tally


def at_the_cafe(
    scratch: Path, cafe: harness.Mosquitto, tally: Tally, dashboards: list
) -> GameRecord:
    """The ACL's attacks; gives the record of a real game t1 played to its end."""
    port = harness.free_port()
    dashboards.append(harness.start_dashboard(cafe.url_of("dashboard"), port))
    t1 = harness.reporting_table(scratch, cafe.url_of("t1"), "t1")
    dropped = []
    kept_on = t1.reporter.client.on_disconnect
    t1.reporter.client.on_disconnect = lambda *a: (dropped.append(a), kept_on(*a))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            return _at_the_cafe(cafe, http, t1, tally, dropped)
    finally:
        t1.close()


def _at_the_cafe(
    cafe: harness.Mosquitto, http, t1: Service, tally: Tally, dropped: list
) -> GameRecord:
    play_to_the_end(t1, random.Random(7))
    harness.until(
        lambda: http.get("/api/day").json()["tables"].get("t1"), "t1's game at the dashboard"
    )
    before = harness.until(
        lambda: (r := harness.dashboard_row(http, "t1")) and r["state"] and r, "t1's state"
    )
    record = read(http.get(f"/api/day/{http.get('/api/day').json()['day']}/t1/1").text)

    # the client ids t1's reporter asks for and the one the broker gives it
    for client_id in ("boardref-t1", "t1"):
        harness.Login(cafe.port, "t2", USERS["t2"], client_id=client_id).close()
    t2 = harness.Login(cafe.port, "t2", USERS["t2"])
    t2.client.subscribe("boardref/#", qos=1)
    t2.subscribed.wait(10)
    forged = {
        "boardref/t1/state": json.dumps({**before["state"], "plies": 999}),
        "boardref/t1/event": json.dumps({"table": "t1", "kind": "move", "seq": 999}),
        "boardref/t1/record": json.dumps({"table": "t1", "record": to_json(record)}),
        "boardref/t1/status": "offline",
        "homeassistant/sensor/boardref_t1/game/config": "{}",
        "homeassistant/status": "online",
    }
    for where, payload in forged.items():
        tally.check(t2.send(where, payload) == NOT_AUTHORIZED, f"t2 wrote {where}")
    for user, password in ((None, None), ("t1", "wrong"), ("nobody", "x")):
        refused = harness.Login(cafe.port, user, password)
        tally.check(refused.connack[0] != 0, f"{user} logged in with {password}")
        refused.close()
    t1.referee.new_game("catch_the_hare")
    t2.send("boardref/t2/state", json.dumps({"table": "t2", "plies": 1}))
    harness.until(
        lambda: (
            harness.dashboard_row(http, "t2")
            and harness.dashboard_row(http, "t1")["state"]["plies"] == 0
        ),
        "t1's new game and t2's own state",
    )
    after = harness.dashboard_row(http, "t1")
    tally.check(t2.heard == [], f"t2 read {t2.heard[:3]} with a subscription to boardref/#")
    tally.check(not dropped, "t2 took over t1's connection by its client id")
    tally.check(after["status"] == "online", "t1's status was changed by t2")
    tally.check(after["last_event"]["seq"] != 999, "t1's events were added to by t2")
    games = http.get(f"/api/day?day={day_of(record)}").json()["tables"]
    tally.check(len(games["t1"]) == 1, "t1's day got a record from t2")
    t2.close()
    huge = harness.Login(cafe.port, "t2", USERS["t2"])
    huge.client.reconnect_delay_set(30, 30)  # dropped, it stays away
    huge.client.publish("boardref/t2/record", b"x" * (harness.MAX_PACKET + 1), qos=1)
    try:
        harness.until(lambda: not huge.client.is_connected(), "the broker to drop it", 10)
        tally.check(True, "a message over the broker's largest")
    except TimeoutError:
        tally.check(False, "a message over the broker's largest was taken")
    huge.close()
    # last: the dashboard's login is the dashboard's client id, so this takes it over
    watcher = harness.Login(cafe.port, "dashboard", USERS["dashboard"])
    for kind in ("state", "status"):
        code = watcher.send(f"boardref/t1/{kind}", "offline")
        tally.check(code == NOT_AUTHORIZED, f"the dashboard's login wrote t1's {kind}")
    watcher.close()
    return record


def believed_only_about_itself(
    broker: harness.Mosquitto, http, record: GameRecord, tally: Tally
) -> None:
    """What reaches the dashboard past a broker without the ACL."""
    pick = random.Random(11)
    anyone = harness.Login(broker.port, None, None)
    state = {"table": "t1", "game": "catch_the_hare", "plies": 3}
    anyone.send("boardref/t1/state", json.dumps(state))
    anyone.send("boardref/t1/status", "online")
    names = BAD_NAMES + [
        "".join(pick.choice(string.printable[62:94] + "äÖ€") for _ in range(pick.randint(1, 40)))
        for _ in range(RANDOM_TRIES)
    ]
    # a topic level holds no /, + or # (paho refuses them before they are sent)
    names = [name for name in names if not set(name) & set("/+#")]
    for name in names:
        anyone.send(f"boardref/{name}/state", json.dumps({**state, "table": name}))
        anyone.send(f"boardref/{name}/record", message(dataclasses.replace(record, table=name)))
    for kind, text in (
        ("state", json.dumps({**state, "table": "t2", "plies": 50})),
        ("event", json.dumps({"table": "t2", "kind": "move", "seq": 9})),
        ("state", "[1, 2]"),
        ("state", "null"),
        ("event", "not json"),
        ("status", "pwned"),
        ("status", "online\r\n"),
    ):
        anyone.send(f"boardref/t1/{kind}", text)
    anyone.send("boardref/t1/status", "offline")  # believed, after every forged one
    harness.until(lambda: harness.dashboard_row(http, "t1")["status"] == "offline", "t1 offline")
    t1 = harness.dashboard_row(http, "t1")
    tally.check(t1["state"]["plies"] == 3, f"t1's state became {t1['state']}")
    tally.check(t1["events"] == 0, "t1's events got another table's")
    anyone.send("boardref/t1/status", "online")
    made_up = (
        f"{pick.choice(['javascript', 'data', 'file', 'http', 'https', 'HTTP'])}:"
        f"{pick.choice(['', '/', '//', '///'])}{pick.choice(['', 'alert(1)', '@', ':80', '?x'])}"
        for _ in range(RANDOM_TRIES)
    )
    links = BAD_LINKS + [link for link in made_up if not re.match(r"(?i)https?://[^/?#@:]", link)]
    for n, link in enumerate(links):
        anyone.send("boardref/t1/state", json.dumps({**state, "plies": 100 + n, "panel_url": link}))
        harness.until(
            lambda n=n: harness.dashboard_row(http, "t1")["state"]["plies"] == 100 + n, "a link"
        )
        shown = harness.dashboard_row(http, "t1")["state"]
        tally.check(shown["panel_url"] is None, f"the link {link!r} was kept")

    own = dataclasses.replace(record, table="t4")
    loser = 1 - record.result.winners[0]  # catch the hare: two seats, won by the other
    unbelieved = {
        "the message names another table": lambda t: message(
            dataclasses.replace(record, table=t), table="t4"
        ),
        "the record names another table": lambda t: message(own, table=t),
        "a zip slip in the record's table": lambda t: message(
            dataclasses.replace(record, table=f"../../../../tmp/zipslip-{t}"), t
        ),
        "a header break in the record's table": lambda t: message(
            dataclasses.replace(record, table=f"{t}\r\nX-Evil: 1"), t
        ),
        "a record whose winner is another": lambda t: message(
            dataclasses.replace(
                record, table=t, result=dataclasses.replace(record.result, winners=(loser,))
            )
        ),
        "a record with its moves cut": lambda t: message(
            dataclasses.replace(record, table=t, entries=record.entries[:3])
        ),
        "a message without a record": lambda t: json.dumps({"table": t}),
        "a message that is no JSON": lambda t: "garbage",
    }
    for n, forge in enumerate(unbelieved.values()):
        anyone.send(f"boardref/r{n}/record", forge(f"r{n}"))
    anyone.send("boardref/t4/record", message(own))
    anyone.send("boardref/t1/state", json.dumps({**state, "plies": 4}))
    day = day_of(record)
    harness.until(
        lambda: http.get(f"/api/day?day={day}").json()["tables"].get("t4"), "t4's own game"
    )
    harness.until(
        lambda: harness.dashboard_row(http, "t1")["state"]["plies"] == 4, "t1's 4th state"
    )

    rows = {row["table"]: row for row in http.get("/api/tables").json()}
    for name in names:
        tally.check(name not in rows, f"a row for the name {name!r}")
    tally.check(set(rows) == {"t1"}, f"rows for {sorted(set(rows) - {'t1'})}")
    tally.check(rows["t1"]["status"] == "online", f"t1's status became {rows['t1']['status']!r}")
    tables = http.get(f"/api/day?day={day}").json()["tables"]
    for n, what in enumerate(unbelieved):
        tally.check(f"r{n}" not in tables, f"the dashboard kept {what}")
    packed = http.get(f"/api/day/{day}.zip")
    with zipfile.ZipFile(io.BytesIO(packed.content)) as archive:
        entries = archive.namelist()
    tally.check(all(e.startswith("t4/boardref-t4-game-1-") for e in entries), f"zip: {entries}")
    download = http.get(f"/api/day/{day}/t4/1").headers.get("content-disposition", "")
    tally.check(download.startswith('attachment; filename="boardref-t4-'), download)
    for name in ("..", "a%0D%0Ab", "t1%2F..", "%E2%98%83"):
        tally.check(http.get(f"/api/day/{day}/{name}/1").status_code == 404, f"download {name!r}")

    breaking = harness.Login(broker.port, None, None)  # a line break in a topic: mosquitto drops it
    breaking.client.publish("boardref/a\r\nb/state", json.dumps({**state, "table": "a\r\nb"}))
    time.sleep(0.2)
    anyone.send("boardref/t1/state", json.dumps({**state, "plies": 5}))
    harness.until(
        lambda: harness.dashboard_row(http, "t1")["state"]["plies"] == 5, "t1's 5th state"
    )
    tally.check(set(row["table"] for row in http.get("/api/tables").json()) == {"t1"}, "CR/LF row")
    breaking.close()
    anyone.close()


def message(record: GameRecord, table: str | None = None) -> str:
    return json.dumps({"table": table or record.table, "record": to_json(record)})
