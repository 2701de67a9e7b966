"""The Pi's voice: how long from a verdict to the start of speech, and how late the
event loop runs while the Pi speaks.

A whole game of Catch the Hare (people and the computer) is played through the
referee first; its snapshots are then shown again one by one on an event loop, as the
service shows them: the announcer hears each, and the Pi's output (``PiVoice``) hands
the table's sentences to the speaker thread, which renders them with espeak-ng (the
real program) and "plays" them by noting the moment playing would start (this machine
may have no sound card). The delay is from the snapshot's arrival on the loop to that
moment; the loop's lateness is sampled every 10 ms (``LoopLag``) throughout. The next
snapshot comes once the last sentence was said, as a table waits for its players.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
from smoke import SMOKE, sized

import engines.players
from boardref.outputs.announcer import Announcer
from boardref.outputs.display import Display
from boardref.outputs.pi_voice import PiVoice
from boardref.outputs.speaker import Speaker
from boardref.outputs.speech import SpeechConfig, TableSpeech
from boardref.runtime.loop_lag import LoopLag, percentile
from engines.players import SearchPlayer

#: from a verdict to the start of speech on the Pi (ms, p99)
BUDGET_SPEECH_MS_P99 = 300.0
#: the event loop's lateness while the Pi speaks (ms, p99), as the Pi budget's
BUDGET_LOOP_LAG_MS_P99 = 50.0
LOOP_EVERY_S = 0.01


def played_snapshots(games: int) -> list:
    from tests.boardref.outputs.test_announcer import played

    seeds = random.Random(0)
    engines.players.computer_move = lambda game, state, level: SearchPlayer(
        seeds.random(), playouts=2
    ).choose(game, state)
    snapshots = []
    for number in range(games):
        with tempfile.TemporaryDirectory() as folder:
            _, heard = played("catch_the_hare", 2, {number % 2}, Path(folder))
        snapshots.extend(state for state, _ in heard)
    return snapshots


async def speak(snapshots: list, language: str) -> dict:
    loop = asyncio.get_running_loop()
    lag = LoopLag(loop, LOOP_EVERY_S)
    lag.start()
    started: list[float] = []
    speech = TableSpeech(SpeechConfig(language=language, pi={"on": True}))

    def speaker(settings, language_, moment, told) -> Speaker:
        return Speaker(settings, language_, moment, play=lambda wav, device: started.append(
            time.monotonic()), told=told)

    pi = PiVoice(speech, told=lambda problem: None, speaker=speaker)
    announcer = Announcer()
    handed = 0
    for state in snapshots:
        fresh = announcer.hear(state, 1)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
        handed += sum(a.to is None for a in fresh)
        while pi.speaker is not None and pi.speaker.spoken + pi.speaker.dropped < handed:
            await asyncio.sleep(0.02)
    lag.close()
    said = pi.speaker
    pi.close()
    delays = [d * 1000 for d in (said.delays if said else [])]
    figures = lag.figures()
    return {
        "sentences": len(delays),
        "dropped": said.dropped if said else 0,
        "speech_ms_p50": round(percentile(delays, 0.5), 1) if delays else None,
        "speech_ms_p99": round(percentile(delays, 0.99), 1) if delays else None,
        "speech_ms_max": round(max(delays), 1) if delays else None,
        "loop_lag_ms_p99": figures.get("p99_ms"),
        "loop_lag_ms_max": figures.get("max_ms"),
    }


def main() -> None:
    snapshots = played_snapshots(sized(full=6, smoke=1, quick=2))
    if SMOKE:  # a few sentences: the bench still runs every step
        snapshots = snapshots[:6]
    line = {"bench": "speech", "snapshots": len(snapshots),
            "budget_speech_ms_p99": BUDGET_SPEECH_MS_P99,
            "budget_loop_lag_ms_p99": BUDGET_LOOP_LAG_MS_P99}
    for language in ("en", "de"):
        line[language] = asyncio.run(speak(snapshots, language))
    print(json.dumps(line))


if __name__ == "__main__":
    main()
