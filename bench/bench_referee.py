"""Referee speed, per game: a settled reading to its verdict, and a settled reading to
the LED frame leaving the host (written to the serial port by the real link, on the
simulated MCU's pseudo-terminal). Prints one JSON line.

Positions come from seeded random games. Before each reading settles the referee has
had an idle tick, as it does while players think, so the verdict is the lookup, the
decision, the log write and the display; the settle time itself is excluded, as the
budget says.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stats import percentile  # noqa: E402

from boardref.referee import OVER, Referee  # noqa: E402
from boardref.simulate import Rig  # noqa: E402
from boardref.store import Store  # noqa: E402

TABLES = [("sternhalma", 2), ("sternhalma", 3), ("catch_the_hare", 2)]
MOVES = 300
LED_SAMPLES = 150
BUDGET_VERDICT_P99_MS = 5.0
BUDGET_LED_P99_MS = 10.0


def verdicts(game_name: str, players: int, scratch: Path) -> list[float]:
    """Milliseconds from a settled reading to the verdict, over random games."""
    store = Store(scratch / f"{game_name}-{players}.db")
    referee = Referee(store, settle=0.3)
    pick, now, samples = random.Random(1), 0.0, []
    referee.new_game(game_name, players, seed=b"bench")
    game = referee.game
    state = game.initial_state()
    referee.sense(game.sense(state, "presence"), now)
    referee.tick(now + 1)
    while len(samples) < MOVES:
        if referee.phase == OVER:
            referee.new_game(game_name, players, seed=b"bench")
            state = game.initial_state()
            now += 2
            referee.sense(game.sense(state, "presence"), now)
            referee.tick(now + 1)
            continue
        referee.tick(now + 0.1)  # idle: the referee prepares while players think
        state = game.apply(state, pick.choice(game.legal_moves(state)))
        now += 2
        referee.sense(game.sense(state, "presence"), now)
        start = time.perf_counter()
        judged = referee.tick(now + 0.5)
        samples.append((time.perf_counter() - start) * 1000)
        assert judged
        if referee.tentative is not None:
            referee.confirm()
    store.close()
    return samples


def led_frames(game_name: str, players: int, scratch: Path) -> list[float]:
    """Milliseconds from a settled reading to its LED frame written to the port."""
    store = Store(scratch / f"led-{game_name}-{players}.db")
    referee = Referee(store, settle=0.3)
    referee.new_game(game_name, players, seed=b"bench-led")
    game = referee.game
    rig = Rig(referee, [cell.id for cell in game.board.cells], noise=0.0, seed=1)
    pick, samples = random.Random(2), []
    try:
        state = game.initial_state()
        rig.set_board(game.sense(state, "presence"))
        rig.pause(0.5)
        while len(samples) < LED_SAMPLES and referee.phase != OVER:
            rig.pause(0.1)  # idle tick
            state = game.apply(state, pick.choice(game.legal_moves(state)))
            rig.set_board(game.sense(state, "presence"))
            rig.clock.advance(0.5)
            sent = rig.link.counters()["frames_sent"]
            start = time.perf_counter()
            rig.table.tick(rig.clock.now)
            while rig.link.counters()["frames_sent"] == sent:
                if time.perf_counter() - start > 2:
                    break
                time.sleep(0.0002)
            samples.append((time.perf_counter() - start) * 1000)
            if referee.tentative is not None:
                referee.confirm()
    finally:
        rig.close()
        store.close()
    return samples


def main() -> None:
    result = {
        "bench": "referee",
        "budget_verdict_ms_p99": BUDGET_VERDICT_P99_MS,
        "budget_led_frame_ms_p99": BUDGET_LED_P99_MS,
        "tables": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        for game_name, players in TABLES:
            verdict = verdicts(game_name, players, Path(scratch))
            led = led_frames(game_name, players, Path(scratch))
            result["tables"][f"{game_name}_{players}p"] = {
                "verdict_ms_p50": round(percentile(verdict, 0.5), 3),
                "verdict_ms_p99": round(percentile(verdict, 0.99), 3),
                "led_frame_ms_p50": round(percentile(led, 0.5), 3),
                "led_frame_ms_p99": round(percentile(led, 0.99), 3),
                "samples": [len(verdict), len(led)],
            }
    tables = result["tables"].values()
    result["within_budget"] = all(
        t["verdict_ms_p99"] <= BUDGET_VERDICT_P99_MS and t["led_frame_ms_p99"] <= BUDGET_LED_P99_MS
        for t in tables
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
