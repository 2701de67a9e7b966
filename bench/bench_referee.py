"""Referee speed, per game: a settled reading to its verdict, and a settled reading to
the LED frame leaving the host (written to the serial port by the real link, on the
simulated MCU's pseudo-terminal); for Hakenschlagen's full turns (5 players), the
verdict on the turn played and on a wrong board. Prints one JSON line.

Positions come from seeded random games. Before each reading settles the referee has
had an idle tick, as it does while players think, so the verdict is the lookup, the
decision, the log write and the display; the settle time itself is excluded, as the
budget says. CPU figures are the judging thread's own (``time.thread_time``): the
log's flush to the disk runs on a thread of its own, beside the verdict.
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
from boardref.runtime.memory import freeze_start_up
from boardref.sim.rig import Rig

TABLES = [("sternhalma", 2), ("sternhalma", 3), ("catch_the_hare", 2)]
MOVES = sized(300, 5)
LED_SAMPLES = sized(150, 3)
BUDGET_VERDICT_P99_MS = 5.0
#: a reading judged before the idle indexing ran (CPU time), Sternhalma 2 players
BUDGET_COLD_VERDICT_P99_MS = 1.0
#: Hakenschlagen's full turns: players, turns played, and the budget
FULL_TURN_PLAYERS = 5
FULL_TURNS = sized(200, 3)
BUDGET_FULL_TURN_P99_MS = 50.0
BUDGET_LED_P99_MS = 10.0


def verdicts(game_name: str, players: int, scratch: Path, warm: bool = True) -> dict:
    """Milliseconds from a settled reading to the verdict, over random games, on the
    wall clock and on CPU time. ``warm``: the referee had an idle tick before the
    reading settled (it indexes the successors while players think); cold, the
    verdict includes that indexing."""
    store = Store(scratch / f"{game_name}-{players}-{warm}.db")
    referee = Referee(store, settle=0.3)
    pick, now, samples, cpu = random.Random(1), 0.0, [], []
    referee.new_game(game_name, players, seed=b"bench")
    game = referee.game
    state = game.initial_state()
    referee.sense(game.sense(state, Sensor.PRESENCE), now)
    referee.tick(now + 1)
    while len(samples) < MOVES:
        if referee.phase == Phase.OVER:
            referee.new_game(game_name, players, seed=b"bench")
            state = game.initial_state()
            now += 2
            referee.sense(game.sense(state, Sensor.PRESENCE), now)
            referee.tick(now + 1)
            continue
        if warm:
            referee.tick(now + 0.1)  # idle: the referee prepares while players think
        state = game.apply(state, pick.choice(game.legal_moves(state)))
        now += 2
        referee.sense(game.sense(state, Sensor.PRESENCE), now)
        start, start_cpu = time.perf_counter(), time.thread_time()
        judged = referee.tick(now + 0.5)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        samples.append((time.perf_counter() - start) * 1000)
        assert judged
        if referee.tentative is not None:
            referee.confirm()
    store.close()
    return {"wall": samples, "cpu": cpu}


def full_turns(scratch: Path) -> dict[str, list[float]]:
    """Hakenschlagen, 5 players (a turn is one move with up to tens of thousands of
    outcomes): milliseconds from a settled reading to the verdict for the turn
    played, and for a wrong board (a hare put where no outcome puts it)."""
    store = Store(scratch / "hakenschlagen.db")
    referee = Referee(store, settle=0.3)
    referee.new_game("hakenschlagen", FULL_TURN_PLAYERS, seed=b"bench")
    game, pick, now = referee.game, random.Random(3), 0.0
    found: dict[str, list[float]] = {"turn": [], "wrong": [], "outcomes": []}

    def settle(reading) -> float:
        nonlocal now
        now += 2
        referee.sense(reading, now)
        start = time.perf_counter()
        assert referee.tick(now + 0.5)
        return (time.perf_counter() - start) * 1000

    settle(game.sense(game.initial_state(), Sensor.PRESENCE))  # the figures set out
    referee.draw()  # the disks and trees, laid out at once (the hall sensors feel none)
    while len(found["turn"]) < FULL_TURNS and referee.phase != Phase.OVER:
        if referee.tentative is not None:
            referee.confirm()
        base = referee.positions[-1]
        if game.chance(base) is not None:
            referee.draw()
            continue
        referee.tick(now + 0.1)  # idle: the referee indexes the outcomes meanwhile
        moves = game.legal_moves(base)
        found["outcomes"].append(len(moves))
        if len(found["turn"]) % 4 == 0:
            wrong = dict(game.sense(base, Sensor.PRESENCE))
            hare = game.board.cells[base.hares[base.turn]].id
            empty = [c for c, token in wrong.items() if token is None and c != hare]
            wrong[hare], wrong[pick.choice(empty)] = None, wrong[hare]
            successors = game.successors(base)
            if all(game.sense(after, Sensor.PRESENCE) != wrong for _, after in successors):
                found["wrong"].append(settle(wrong))
                settle(game.sense(base, Sensor.PRESENCE))  # put back as it was
        after = game.apply(base, pick.choice(moves))
        if game.sense(after, Sensor.PRESENCE) == game.sense(base, Sensor.PRESENCE):
            referee.confirm()  # a turn no sensor sees (marbles back unused): named on the panel
            referee.choose(
                next(t for t in referee.published.candidates if _leads(game, base, t, after))
            )
            continue
        found["turn"].append(settle(game.sense(after, Sensor.PRESENCE)))
        if referee.phase == Phase.AMBIGUOUS:  # the panel names the turn among those that fit
            referee.choose(
                next(t for t in referee.published.candidates if _leads(game, base, t, after))
            )
    store.close()
    return found


def _leads(game, base, text: str, after) -> bool:
    return game.apply(base, game.parse_move(base, text)) == after


def led_frames(game_name: str, players: int, scratch: Path) -> list[float]:
    """Milliseconds from a settled reading to its LED frame written to the port."""
    store = Store(scratch / f"led-{game_name}-{players}.db")
    referee = Referee(store, settle=0.3)
    referee.new_game(game_name, players, seed=b"bench-led")
    game = referee.game
    rig = Rig(referee, noise=0.0, seed=1, sensor="hall")
    pick, samples = random.Random(2), []
    try:
        state = game.initial_state()
        rig.set_board(state)
        rig.pause(0.5)
        while len(samples) < LED_SAMPLES and referee.phase != Phase.OVER:
            rig.pause(0.1)  # idle tick
            state = game.apply(state, pick.choice(game.legal_moves(state)))
            rig.set_board(state)
            rig.clock.advance(0.5)
            sent = rig.link.counters()["frames_sent"]
            start = time.perf_counter()
            rig.board.tick(rig.clock.now)
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
    freeze_start_up()  # as the service does once it has started
    result = {
        "bench": "referee",
        "budget_verdict_ms_p99": BUDGET_VERDICT_P99_MS,
        "budget_led_frame_ms_p99": BUDGET_LED_P99_MS,
        "budget_cold_verdict_cpu_ms_p99_sternhalma_2p": BUDGET_COLD_VERDICT_P99_MS,
        "tables": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        for game_name, players in TABLES:
            verdict = verdicts(game_name, players, Path(scratch))
            cold = verdicts(game_name, players, Path(scratch), warm=False)["cpu"]
            led = led_frames(game_name, players, Path(scratch))
            result["tables"][f"{game_name}_{players}p"] = {
                "verdict_ms_p50": round(percentile(verdict["wall"], 0.5), 3),
                "verdict_ms_p99": round(percentile(verdict["wall"], 0.99), 3),
                "verdict_cpu_ms_p99": round(percentile(verdict["cpu"], 0.99), 3),
                "cold_verdict_cpu_ms_p50": round(percentile(cold, 0.5), 3),
                "cold_verdict_cpu_ms_p99": round(percentile(cold, 0.99), 3),
                "led_frame_ms_p50": round(percentile(led, 0.5), 3),
                "led_frame_ms_p99": round(percentile(led, 0.99), 3),
                "samples": [len(verdict["wall"]), len(led)],
            }
        turns = full_turns(Path(scratch))
    tables = result["tables"].values()
    result["hakenschlagen_5p_full_turn"] = {
        "verdict_ms_p50": round(percentile(turns["turn"], 0.5), 3),
        "verdict_ms_p99": round(percentile(turns["turn"], 0.99), 3),
        "wrong_board_verdict_ms_p50": round(percentile(turns["wrong"], 0.5), 3),
        "wrong_board_verdict_ms_p99": round(percentile(turns["wrong"], 0.99), 3),
        "outcomes_per_turn_p99": percentile(turns["outcomes"], 0.99),
        "samples": [len(turns["turn"]), len(turns["wrong"])],
        "budget_ms_p99": BUDGET_FULL_TURN_P99_MS,
    }
    result["within_budget"] = (
        not SMOKE
        and all(
            t["verdict_ms_p99"] <= BUDGET_VERDICT_P99_MS
            and t["led_frame_ms_p99"] <= BUDGET_LED_P99_MS
            for t in tables
        )
        and result["tables"]["sternhalma_2p"]["cold_verdict_cpu_ms_p99"]
        <= BUDGET_COLD_VERDICT_P99_MS
        and all(
            result["hakenschlagen_5p_full_turn"][k] <= BUDGET_FULL_TURN_P99_MS
            for k in ("verdict_ms_p99", "wrong_board_verdict_ms_p99")
        )
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
