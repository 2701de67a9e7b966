"""Game records: CPU time to write, read and verify a whole random game of each
engine (the work of `boardref games verify`, and of the replay page's frames), per
game and per ply, on one core. Prints one JSON line.

The games are played by random legal moves with a fixed seed, so each run verifies
the same games; a Raspberry Pi 4 takes about four times as long.
"""

import json
import os
import random
import time

from smoke import sized

from engines import GAMES, load_game
from engines.chance import Stream, commitment
from engines.records import Entry, GameRecord, Result, read, spec_name, write
from engines.replay import verify

MAX_PLIES = 300
#: the games whose records are timed; the smoke run's first three (Hägar's with draws)
#: run every step
TIMED = sized(list(GAMES), list(GAMES)[:3])


def random_record(name: str, seed: int) -> GameRecord:
    game = load_game(name)
    options = {"max_plies": MAX_PLIES} if "max_plies" in game.options else {}
    game = load_game(name, **options)
    pick, secret = random.Random(seed), f"bench {seed}".encode()
    stream, state, entries = Stream(secret), game.initial_state(), []
    while game.outcome(state) is None:
        spec = game.chance(state)
        if spec is not None:
            outcome = spec.draw(stream)
            entries.append(Entry("draw", spec=spec_name(spec), outcome=outcome))
            state = game.resolve(state, outcome)
            continue
        move = pick.choice(game.legal_moves(state))
        entries.append(Entry("ply", seat=game.to_move(state), move=str(move)))
        state = game.apply(state, move)
    ended = game.outcome(state)
    return GameRecord(
        game=name,
        players=game.players,
        options=options,
        result=Result(ended.winners, ended.reason, ended.scores),
        commitment=commitment(secret),
        seed=secret.hex(),
        entries=tuple(entries),
    )


def main() -> None:
    figures = {"load_1min": round(os.getloadavg()[0], 2)}
    for name in TIMED:
        record = random_record(name, 1)
        started = time.process_time()
        verify(read(write(record)))
        spent = time.process_time() - started
        figures[name] = {
            "plies": record.plies,
            "draws": sum(e.kind == "draw" for e in record.entries),
            "cpu_ms_per_game": round(spent * 1000, 1),
            "cpu_ms_per_ply": round(spent * 1000 / max(1, record.plies), 3),
        }
    print(json.dumps({"bench": "records", **figures}))


if __name__ == "__main__":
    main()
