"""The referee's long acceptance runs: random games played by simulated hands on the
simulated MCU, through the real link, with 1 % sensor noise, per table: 300 moves
(Hakenschlagen for four: 100, its turns are the slowest to index). Every figure that
counts a mistake must be zero (the budget); the test suite plays short runs of the
same tables. Prints one JSON line.
"""

from __future__ import annotations

import json
import time

from smoke import SMOKE, sized

from boardref.sim.simulate import simulate

#: (game, players, seed, moves)
TABLES = [
    ("sternhalma", 2, 7, sized(300, 3)),
    ("sternhalma", 3, 8, sized(300, 3)),
    ("catch_the_hare", 2, 9, sized(300, 3)),
    ("fang_den_hut", 4, 10, sized(300, 3)),
    ("hakenschlagen", 4, 11, sized(100, 2)),
]
MISTAKES = ("wrong_commits", "missed_moves", "false_rejections")


def perfect(result: dict, moves: int) -> bool:
    """Refereed without a mistake: every move committed, every injected illegal move
    caught, the final position as played."""
    return (
        result["moves_played"] == moves == result["committed"]
        and all(result[k] == 0 for k in MISTAKES)
        and result["illegal_caught"] == result["illegal_injected"]
        and result["final_state_match"]
        and result["mcu"]["crc_errors"] == 0
    )


def main() -> None:
    tables = {}
    for game, players, seed, moves in TABLES:
        start = time.process_time()
        result = simulate(game, players, seed=seed, noise=0.01, moves=moves)
        tables[f"{game}_{players}p"] = {
            **{k: result[k] for k in ("moves_played", "committed", *MISTAKES)},
            "illegal_injected": result["illegal_injected"],
            "illegal_caught": result["illegal_caught"],
            "final_state_match": result["final_state_match"],
            "verdict_ms_p99": result["verdict_ms_p99"],
            "cpu_s": round(time.process_time() - start, 1),
            "perfect": perfect(result, moves),
        }
    all_perfect = all(t["perfect"] for t in tables.values())
    print(
        json.dumps(
            {
                "bench": "simulate",
                "noise": 0.01,
                "tables": tables,
                "budget_mistakes": 0,
                "within_budget": not SMOKE and all_perfect,
            }
        )
    )


if __name__ == "__main__":
    main()
