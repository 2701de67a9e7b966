"""The Pi's voice: how long from the referee's verdict on a move to the start of the
Pi's speech, and how late the service's event loop runs while the Pi speaks.

A real `boardref serve --sim` with ``[speech.pi] on`` (espeak-ng) plays Catch the Hare
for two people, in English and then in German: hands lift and put down pieces on the
virtual board (simulated scans, the real link, referee, announcer and speaker). The
verdict's moment is the time the referee logs the move (the event log's ``at``,
written as the move is judged); the start of speech is the moment ALSA's ``aplay``
starts with the sentence's sound (a wrapper named ``aplay`` on the service's
``PATH`` notes the time and becomes the real ``aplay``). The delay of a move is from
its verdict to the first ``aplay`` after it. The next move waits until the table
spoke, as players wait for the table. The loop's lateness is the service's own timer
(``[diagnostics] loop_lag_every_ms``) from the first move on.

Where ``aplay`` cannot open the ALSA ``default`` device (a machine with no sound card),
the service plays on ALSA's ``null`` device instead, the same program and code path
with no sound, and the output says so (``sink``). The service runs unconfined: the Pi's
CPU share is ``bench_pi.py``'s.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from bench_pi import PIN, SERVICE_LOG, Hands, ready, start
from smoke import sized

from boardref.outputs.panel.access import hash_pin
from boardref.runtime.loop_lag import percentile
from engines import load_game
from tests.harness import free_port

#: from a verdict to the start of speech on the Pi (ms, p99)
BUDGET_SPEECH_MS_P99 = 300.0
#: the event loop's lateness while the Pi speaks (ms, p99), as the Pi budget's
BUDGET_LOOP_LAG_MS_P99 = 50.0
GAME, PLAYERS = "catch_the_hare", 2
MOVES = sized(full=80, smoke=2, quick=30)
#: the languages played, one service run each (the smoke run: one is every step)
LANGUAGES = sized(full=("en", "de"), smoke=("de",))
LAG_EVERY_MS = 20
SETTLE_MS = 150
#: how long a move's sentence may take to be heard before it counts as not said
SPOKEN_WITHIN_S = 10.0
SEED = 44
#: a wrapper that notes when aplay starts (bash's clock, no program run for it) and
#: then is aplay
WRAPPER = '#!/bin/bash\necho "$EPOCHREALTIME" >> "{log}"\nexec "{aplay}" "$@"\n'


def sink(aplay: str) -> tuple[str, str | None]:
    """The ALSA device the service plays on, and why it is not ``default`` (None if it is)."""
    with tempfile.TemporaryDirectory() as folder:
        wav = Path(folder) / "quiet.wav"
        subprocess.run(["espeak-ng", "-w", str(wav), "--", "."], check=True, capture_output=True)
        tried = subprocess.run([aplay, "-q", "-D", "default", str(wav)],
                               capture_output=True, text=True, check=False)
    if tried.returncode == 0:
        return "default", None
    reason = (tried.stderr.strip().splitlines() or ["no reason given"])[-1]
    return "null", f"aplay cannot open the default device ({reason}): played on ALSA's null device"


def starts(log: Path) -> list[float]:
    return [float(line) for line in log.read_text().split()] if log.exists() else []


def verdicts(store: Path) -> list[float]:
    """When each move of the game was judged (its event logged)."""
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT at FROM events WHERE kind = 'move' ORDER BY id").fetchall()
    return [at for (at,) in rows]


def play(language: str, device: str, folder: Path) -> dict:
    """One service run in ``language``: its figures."""
    folder.mkdir()
    aplay = shutil.which("aplay")
    played = folder / "aplay_starts"
    wrappers = folder / "bin"
    wrappers.mkdir()
    (wrappers / "aplay").write_text(WRAPPER.format(log=played, aplay=aplay))
    (wrappers / "aplay").chmod(0o755)
    port, store = free_port(), folder / "table.db"
    config = folder / "config.toml"
    config.write_text(
        f'[game]\nname = "{GAME}"\nplayers = {PLAYERS}\n'
        f'[store]\npath = "{store}"\n[sensors]\nsettle_ms = {SETTLE_MS}\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(PIN)}"\n'
        f"[diagnostics]\nloop_lag_every_ms = {LAG_EVERY_MS}\n"
        f'[speech]\nlanguage = "{language}"\n'
        f'[speech.pi]\non = true\nengine = "espeak-ng"\ndevice = "{device}"\n'
    )
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{wrappers}:{path}"  # the service's aplay is the wrapper
    try:
        service, held = start(config, folder, "none")
    finally:
        os.environ["PATH"] = path
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60.0)
    found: dict = {"moves": 0, "unspoken": 0}
    try:
        ready(client, service, folder)
        client.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        with Hands(client, load_game(GAME, PLAYERS), "presence") as hands:
            found.update(moves(hands, played, client))
        # a voice the service could not use: said here, as the referee page says it
        found["problem"] = client.get("/api/state").json()["speech"]["pi"]["problem"]
    finally:
        client.close()
        service.terminate()
        service.wait(60)
        held.close()
    judged, heard = verdicts(store), starts(played)
    delays = [
        (min(after) - at) * 1000
        for at in judged
        if (after := [t for t in heard if t >= at])
    ]
    found["speech_ms_p50"] = round(percentile(delays, 0.5), 1) if delays else None
    found["speech_ms_p99"] = round(percentile(delays, 0.99), 1) if delays else None
    found["speech_ms_max"] = round(max(delays), 1) if delays else None
    found["sentences_played"] = len(heard)
    if not delays:
        found["log"] = (folder / SERVICE_LOG).read_text()[-1500:]
    return found


def moves(hands: Hands, played: Path, client: httpx.Client) -> dict:
    """Random legal steps (a capture only when nothing else is left) until the game
    ends or ``MOVES`` were taken, each waiting for the table to speak after it."""
    game, pick, done, unspoken = hands.game, random.Random(SEED), 0, 0
    deadline = time.monotonic() + 60
    while hands.shown()["phase"] == "setup" and time.monotonic() < deadline:
        time.sleep(0.05)
    lag_from = client.get("/api/diagnostics").json()["loop_lag"]["taken"]
    while done < MOVES and hands.shown()["phase"] != "over":
        state, shown = hands.state(), hands.shown()
        legal = game.legal_moves(state)
        move = pick.choice([m for m in legal if not m.leap] or legal)
        if move.leap:
            break  # a capture's hunters would have to leave the board: the game is played out
        heard = len(starts(played))
        hands.carry_out(state, move, pick)
        hands.until_taken(state, game.apply(state, move), shown)
        done += 1
        spoken_by = time.monotonic() + SPOKEN_WITHIN_S
        while len(starts(played)) == heard and time.monotonic() < spoken_by:
            time.sleep(0.05)
        unspoken += len(starts(played)) == heard
    lag = client.get("/api/diagnostics", params={"lag_after": lag_from}).json()["loop_lag"]
    return {"moves": done, "unspoken": unspoken, "loop_lag_ms_p99": lag.get("p99_ms"),
            "loop_lag_ms_max": lag.get("max_ms"), "lag_samples": lag.get("samples")}


def main() -> None:
    aplay = shutil.which("aplay")
    if aplay is None or shutil.which("espeak-ng") is None:
        print("bench_speech needs espeak-ng and aplay: apt install espeak-ng alsa-utils",
              file=sys.stderr)
        sys.exit(2)
    device, why = sink(aplay)
    line = {"bench": "speech", "game": GAME, "sink": device, "sink_why": why,
            "budget_speech_ms_p99": BUDGET_SPEECH_MS_P99,
            "budget_loop_lag_ms_p99": BUDGET_LOOP_LAG_MS_P99}
    if why:
        print(why, file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        for language in LANGUAGES:
            line[language] = play(language, device, Path(scratch) / language)
            print(f"{language}: {line[language]}", file=sys.stderr)
    print(json.dumps(line))


if __name__ == "__main__":
    main()
