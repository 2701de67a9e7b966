"""A long game through the referee: a Sternhalma game without a move limit, played by
seeded random moves read from the simulated board, and at 500, 2,000 and 4,000 moves
the process's resident memory, the verdict's CPU time (p99 of the moves since the
checkpoint before) and the bytes of the table's state as every page receives it.
Prints one JSON line.

Nothing a table keeps may grow with the length of a game beyond the moves themselves:
memory about linear in moves, verdict and state bytes flat. The verdict is the
judging thread's CPU time (``time.thread_time``), as in the referee bench. Between
moves, while the players think, the garbage collector takes its turn as the service
gives it one (``collect_while_quiet``); its CPU time is reported beside the verdict's
(``quiet_collect_cpu_ms_p99``).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from smoke import SMOKE, sized

from boardref.eventlog.store import Store
from boardref.referee.kinds import Phase, Sensor
from boardref.referee.referee import Referee
from boardref.runtime.loop_lag import percentile
from boardref.runtime.memory import collect_while_quiet, freeze_start_up

PLAYERS = 2
CHECKPOINTS = sized((500, 2000, 4000), (5, 10, 20))
BUDGET_RSS_MB = 80.0
BUDGET_VERDICT_CPU_MS_P99 = 2.0
BUDGET_STATE_BYTES = 16_000


def rss_mb() -> float:
    """This process's resident memory now (what ``ps`` shows), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def long_game(scratch: Path) -> list[dict]:
    """The figures at each checkpoint of one game played to the last checkpoint (a
    game over before then is reported as far as it went)."""
    store = Store(scratch / "long.db")
    referee = Referee(store, settle=0.3)
    referee.new_game("sternhalma", PLAYERS, seed=b"bench")
    game, pick, now = referee.game, random.Random(43), 0.0
    state = game.initial_state()
    referee.sense(game.sense(state, Sensor.PRESENCE), now)
    referee.tick(now + 1)
    figures, cpu, quiet, moves = [], [], [], 0
    for checkpoint in CHECKPOINTS:
        while moves < checkpoint and referee.phase != Phase.OVER:
            referee.tick(now + 0.1)  # idle: the referee prepares while players think
            start = time.thread_time()
            collect_while_quiet()  # and the collector takes its turn, as in the service
            quiet.append((time.thread_time() - start) * 1000)
            state = game.apply(state, pick.choice(game.legal_moves(state)))
            now += 2
            referee.sense(game.sense(state, Sensor.PRESENCE), now)
            start = time.thread_time()
            assert referee.tick(now + 0.5)
            cpu.append((time.thread_time() - start) * 1000)
            if referee.tentative is not None:
                referee.confirm()
            moves += 1
        figures.append(
            {
                "moves": moves,
                "rss_mb": round(rss_mb(), 1),
                "verdict_cpu_ms_p99": round(percentile(cpu, 0.99), 3),
                "quiet_collect_cpu_ms_p99": round(percentile(quiet, 0.99), 3),
                "state_bytes": len(referee.published.model_dump_json()),
            }
        )
        cpu, quiet = [], []
    store.close()
    return figures


def main() -> None:
    freeze_start_up()  # as the service does once it has started
    with tempfile.TemporaryDirectory() as scratch:
        figures = long_game(Path(scratch))
    last = figures[-1]
    result = {
        "bench": "long_game",
        "sternhalma_2p": {f"at_{f['moves']}": f for f in figures},
        "last": last,
        "budget_rss_mb": BUDGET_RSS_MB,
        "budget_verdict_cpu_ms_p99": BUDGET_VERDICT_CPU_MS_P99,
        "budget_state_bytes": BUDGET_STATE_BYTES,
        "within_budget": not SMOKE
        and last["moves"] == CHECKPOINTS[-1]
        and last["rss_mb"] <= BUDGET_RSS_MB
        and last["verdict_cpu_ms_p99"] <= BUDGET_VERDICT_CPU_MS_P99
        and last["state_bytes"] <= BUDGET_STATE_BYTES,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
