"""``boardref simulate --sensor camera`` on the physically rendered world
(``bench/world``): the simulated hands play random games while the camera's frames
come from path-traced café tables instead of the reader's own renderer. Each view
the hands leave (the pieces, and an arm reaching to the cell a hand works on) is
traced once and cached; repeated frames of one view are the same picture.

Per board game: moves played, moves committed, wrong commits (the figure that must
be 0), missed moves, the views traced and the seconds they took, and from those the
hours 100 moves would take to trace. Tracing costs tens of seconds a view at 1280x720,
so the default run plays one move a game (``--full``: 100); ``--moves=N`` plays N,
``--game=NAME`` picks the games whose name holds NAME. Prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time

import checkout  # noqa: F401  (the checkout's root on the path, for bench.world)
from bench_world import SPP, lens_of
from smoke import sized

from bench.world.frames import frame
from bench.world.scene import laid, scene, set_up
from boardref.sim.simulate import simulate

#: (game, players, seed) of the tables played
TABLES = sized(
    (
        ("sternhalma", 2, 21),
        ("sternhalma", 3, 22),
        ("catch_the_hare", 2, 23),
        ("hakenschlagen", 4, 24),
        ("fang_den_hut", 4, 25),
    ),
    (("catch_the_hare", 2, 23),),
)
MOVES = int(next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--moves=")), "0"))
MOVES = MOVES or sized(100, 1, quick=1)
ONLY = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--game=")), "")
#: the move count the Done-when item asks about
ASKED = 100


class WorldTable:
    """A table of the world as ``simulate``'s camera: the frame of what the hands
    show, traced once a view (``frame(tokens, hands, under)``, as the reader's own
    renderer is called)."""

    def __init__(self, game, seed: int):
        self.game = game
        self.set_up = set_up(game, seed, "phone" if seed % 2 else "webcam")
        self.lens = lens_of(self.set_up.camera)
        self.traced: list[float] = []
        self.views = 0
        self._kept: tuple | None = None

    def frame(self, tokens, hands=(), under=None):
        under = under or {}
        key = (tuple(tokens.items()), tuple(hands), tuple(sorted(under.items())))
        if self._kept is None or self._kept[0] != key:
            arm = tuple(self.game.board.cell(hands[0]).xy) if hands else False
            shown = laid(tokens, under)
            image, _, spent = frame(self.game, scene(self.game, self.set_up, shown, 0, arm), SPP)
            if spent is not None:
                self.traced.append(spent)
            self.views += 1
            self._kept = (key, image)
        return self._kept[1]


def play(game_name: str, players: int, seed: int) -> dict:
    tables: list[WorldTable] = []

    def table(game, scene_seed):
        tables.append(WorldTable(game, scene_seed))
        return tables[-1], tables[-1].lens

    begin = time.perf_counter()
    result = simulate(
        game_name, players, seed=seed, noise=0.0, moves=MOVES, sensor="camera", table=table
    )
    traced = [t for w in tables for t in w.traced]
    views = sum(w.views for w in tables)
    per_move = views / max(result["moves_played"], 1)
    seconds = sum(traced) / len(traced) if traced else None
    hours = None if seconds is None else round(per_move * ASKED * seconds / 3600, 1)
    scores = ("moves_played", "committed", "wrong_commits", "missed_moves", "false_rejections")
    return {
        **{k: result[k] for k in scores},
        "views": views,
        "views_traced": len(traced),
        "s_per_view_traced": None if seconds is None else round(seconds, 1),
        "hours_for_100_moves": hours,
        "wall_s": round(time.perf_counter() - begin, 1),
        "spp": SPP,
    }


def main() -> None:
    tables = {
        f"{game_name}_{players}p": play(game_name, players, seed)
        for game_name, players, seed in TABLES
        if ONLY in game_name
    }
    print(json.dumps({"bench": "world_simulate", "tables": tables}))


if __name__ == "__main__":
    main()
