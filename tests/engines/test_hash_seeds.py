"""A seeded computer move is the same in every interpreter: string hashes differ
between Python processes (``PYTHONHASHSEED``), so an order taken from a set of
strings would change a turn's listing, and with it what a seeded search plays.
Runs the same seeded searches in two processes with different hash seeds."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.process

#: the games whose turns are listed from sets of ends and placements, and a search
#: of each on a few positions of a seeded random game
SCRIPT = """
import random
from engines import load_game
from engines.chance import Stream
from engines.players import random_step
from engines.players.search import SearchPlayer

for name, options in (
    ("hakenschlagen", {"board": "hex"}),
    ("hakenschlagen", {"board": "square"}),
    ("fang_den_hut", {}),
    ("haegar", {}),
):
    game = load_game(name, 3, **options)
    pick, stream, state = random.Random(4), Stream("hash seeds"), game.initial_state()
    turns = []
    while len(turns) < 36 and game.outcome(state) is None:
        if game.to_move(state) is not None:
            turns.append(state)
        state = random_step(game, state, pick, stream)
    for n, turn in enumerate(turns[::12]):
        moves = game.legal_moves(turn)
        print(name, [moves[i] for i in range(0, len(moves), max(1, len(moves) // 9))])
        print(name, SearchPlayer(seed=f"hash {n}", playouts=24).choose(game, turn))
"""


def test_a_seeded_search_plays_alike_under_any_hash_seed():
    def played(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout

    first = played("1")
    assert first.count("\n") == 24
    assert played("2") == first
