"""The camera reader on the physically rendered world (``bench/world``): path-traced
café tables of every board game, read through the reader the service uses
(``vision.boards.reader.BoardReader``), scored against each scene's own truth.

Per game and per seed range (tuning seeds from 0, held-out seeds from
``HELD_OUT``; reported apart, the held-out figures are the ones quoted): boards read
exactly (a start frame taught, then positions of random play, each first under an arm
reaching over the board, then clear), wrong observations while the arm was in the
picture, set-ups located with one marker and with none (how many of those poses were
wrong, and the CPU ms a look for the board took), and the reader's CPU ms per frame on
one OpenCV thread. The set-ups with one marker or none are the first seeds from
``HELD_OUT + SPARSE`` (held out) and, for tuning, seeds from ``SPARSE`` on chosen to
take the world's table tops in turn, lightest first (``tuning_sparse``): a board on
a table hardly darker than its paper is the hard case, and the first seeds in a row
happened to have dark tables only. Then the seconds each scene took to trace at
1280x720 (frames are cached: a second run traces nothing).
Prints the table, then one JSON line with the figures and the targets.

Hägar is not in the world: its coasters on a mat have a reader of their own.
Arguments: ``--smoke`` (one game, held-out seeds only, one sample a pixel), ``--full``
(more set-ups), ``--game=NAME`` (the games whose table name holds NAME).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's root on the path, for bench.world)
import cv2
import numpy as np
from smoke import sized

from bench.world.data import world
from bench.world.frames import frame
from bench.world.scene import laid, scene, set_up
from engines import load_game
from engines.chance import Stream
from vision.boards.evaluate import random_position
from vision.boards.evaluate import set_up as start_of_play
from vision.boards.reader import BoardReader
from vision.lens import Lens
from vision.render import underlays
from vision.stillness import ACCEPT_AFTER, STILL_FRAMES

#: the games of the world: a name for the table, the game and its options
GAMES = sized(
    (
        ("sternhalma 2p", "sternhalma", {"players": 2}),
        ("sternhalma 3p", "sternhalma", {"players": 3}),
        ("sternhalma 4p", "sternhalma", {"players": 4}),
        ("sternhalma 6p", "sternhalma", {"players": 6}),
        ("catch the hare", "catch_the_hare", {}),
        ("hakenschlagen hex", "hakenschlagen", {}),
        ("hakenschlagen square", "hakenschlagen", {"board": "square"}),
        ("fang den hut", "fang_den_hut", {}),
    ),
    (("catch the hare", "catch_the_hare", {}),),
)
#: only the games whose table name holds this (``--game=hare``)
ONLY = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--game=")), "")
#: seeds from here on are never looked at while the reader is tuned
HELD_OUT = 1_000_000
#: set-ups per game and seed range, positions read on each
SET_UPS = {"tuning": sized(3, 0, quick=1), "held_out": sized(6, 1, quick=2)}
POSITIONS = sized(4, 1, quick=3)
#: set-ups per game the reader must locate with one marker, and with none, from this
#: seed on in each range
SPARSE_SET_UPS = sized(3, 1, quick=1)
SPARSE = 500_000
#: samples per pixel traced: the noise left under the sensor's own at 1280x720
SPP = sized(16, 1, quick=12)
#: random plies from the start to a position
PLIES = 40
#: clear frames the reader may take to read a position
PATIENCE = ACCEPT_AFTER + 2 * STILL_FRAMES
TARGETS = {
    "board_exact_rate": 0.97,
    "hand_wrong_observations": 0,
    "one_marker_located_rate": 0.95,
    "no_marker_located_rate": 0.90,
    "one_marker_wrong_poses": 0,
    "no_marker_wrong_poses": 0,
    "ms_per_frame_p50": 8.0,
}
#: a pose found with one marker or none is wrong when it puts a cell further than
#: this (px) from where the camera sees it
WRONG_POSE_PX = 3.0
#: the games a board without markers should be located in by its own pattern
NO_MARKER_GAMES = ("sternhalma", "catch_the_hare", "fang_den_hut")
#: frames saved for a look, when BOARDREF_WORLD_SHOTS names a folder
SHOTS = os.environ.get("BOARDREF_WORLD_SHOTS")


def lens_of(camera) -> Lens:
    """The camera's true lens, as a calibration would give it."""
    return Lens(camera.matrix, np.array(camera.dist), camera.size)


def shoot(game, table, truth, seed: int, arm: bool, traced: list[float], under=None):
    """The frame of ``truth`` on ``table``, with the disks ``under`` names beneath the
    figures (``vision.render.underlays``), its trace time kept if traced now."""
    shown = laid(truth, under or {})
    image, _, spent = frame(game, scene(game, table, shown, seed, arm), SPP)
    if spent is not None:
        traced.append(spent)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(f"{SHOTS}/{game.name}-{table.seed}-{seed}{'-arm' if arm else ''}.jpg", image)
    return image


def feed(reader, image, times: list[float]):
    begin = time.process_time()
    observation = reader.feed(image)
    times.append((time.process_time() - begin) * 1000)
    return observation


def read_set_ups(game, seeds, traced: list[float]) -> dict:
    """Boards exact and wrong observations under an arm over the set-ups of ``seeds``."""
    exact = read = located = wrong = 0
    times: list[float] = []
    for seed in seeds:
        table = set_up(game, seed, "phone" if seed % 2 else "webcam")
        stream = Stream(f"world-{seed}")
        start_state = start_of_play(game, stream)
        start = game.observe(start_state)
        reader = BoardReader(game, lens_of(table.camera))
        if not reader.learn(shoot(game, table, start, 0, False, traced), start):
            read += POSITIONS
            continue
        located += 1
        rng = np.random.default_rng(seed)
        for n in range(1, POSITIONS + 1):
            state = random_position(game, start_state, rng, int(rng.integers(1, PLIES)), stream)
            truth, under = game.observe(state), underlays(game, state)
            under_arm = shoot(game, table, truth, n, True, traced, under)
            for _ in range(STILL_FRAMES + 1):
                seen = feed(reader, under_arm, times)
                wrong += seen is not None and seen.tokens != truth
            clear = shoot(game, table, truth, n, False, traced, under)
            observation = None
            for k in range(PATIENCE):
                observation = feed(reader, clear, times)
                if observation is not None and k >= STILL_FRAMES:
                    break
            read += 1
            if observation is not None and observation.tokens == truth:
                exact += 1
            reader.confirm(truth)
    return {
        "boards": read,
        "board_exact_rate": round(exact / read, 3) if read else None,
        "hand_wrong_observations": wrong,
        "set_ups_located": located,
        "ms_per_frame_p50": round(statistics.median(times), 3) if times else None,
    }


def located_rate(game, seeds, markers: str, traced: list[float]) -> tuple:
    """Of the set-ups of ``seeds`` whose board carries ``markers``, the share the reader
    locates from the start position, how many of those poses put a cell further
    than WRONG_POSE_PX from where the camera sees it, and the CPU ms (median) the
    look took: the reader looks once, and again only after PATTERN_EVERY_S of
    failing (None, None, None for no set-ups)."""
    if not seeds:
        return None, None, None
    found = wrong = 0
    spent: list[float] = []
    for seed in seeds:
        table = set_up(game, seed, "phone", markers)
        start = game.observe(start_of_play(game, Stream(f"world-{seed}")))
        reader = BoardReader(game, lens_of(table.camera))
        image = shoot(game, table, start, 0, False, traced)
        begin = time.process_time()
        located = reader.locate(image, start)
        spent.append((time.process_time() - begin) * 1000)
        if located and reader.learn(image, start):
            found += 1
            cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
            seen = reader.lens.project(cells, reader.pose.rvec, reader.pose.tvec)
            wrong += (
                np.linalg.norm(seen - table.camera.project(cells), axis=1).max() > WRONG_POSE_PX
            )
    return round(found / len(seeds), 3), int(wrong), round(statistics.median(spent), 1)


def tuning_sparse(game, count: int) -> list[int]:
    """``count`` tuning seeds from SPARSE on whose set-ups take the world's table tops
    in turn, lightest first: the first seed of each, then the next of each, ..."""
    woods = sorted(world()["table"]["woods"], key=lambda rgb: -sum(rgb))
    chosen: list[int] = []
    seed = SPARSE
    while len(chosen) < count and seed < HELD_OUT:
        wanted = tuple(woods[len(chosen) % len(woods)])
        if seed not in chosen and set_up(game, seed).table_wood == wanted:
            chosen.append(seed)
            seed = SPARSE
        else:
            seed += 1
    return chosen


def main() -> None:
    cv2.setNumThreads(1)
    traced: list[float] = []
    results = {}
    for label, name, options in (g for g in GAMES if ONLY in g[0]):
        game = load_game(name, **options)
        row = {}
        for seeds, first in (("tuning", 0), ("held_out", HELD_OUT)):
            span = range(first, first + SET_UPS[seeds])
            part = read_set_ups(game, span, traced)
            count = min(SET_UPS[seeds], SPARSE_SET_UPS)
            sparse = (
                tuning_sparse(game, count)
                if seeds == "tuning"
                else range(first + SPARSE, first + SPARSE + count)
            )
            located = {"one_marker": located_rate(game, sparse, "one", traced)}
            if name in NO_MARKER_GAMES:
                located["no_marker"] = located_rate(game, sparse, "none", traced)
            for markers, (rate, wrong, spent) in located.items():
                part[f"{markers}_located_rate"], part[f"{markers}_wrong_poses"] = rate, wrong
                part[f"{markers}_locate_ms_p50"] = spent
            row[seeds] = part
        results[label] = row
    tracing = {
        "scenes_traced": len(traced),
        "s_per_scene_p50": round(statistics.median(traced), 1) if traced else None,
        "spp": SPP,
        "size": [1280, 720],
    }
    print("held-out seeds (tuning seeds in brackets)")
    print(
        f"one marker or none: held-out seeds from {HELD_OUT + SPARSE:,}; tuning seeds from "
        f"{SPARSE:,} taking the table tops in turn, lightest first"
    )
    columns = list(TARGETS)
    print(f"{'game':22}" + "".join(f"{c:>30}" for c in columns))
    for label, row in results.items():
        cells = [f"{row['held_out'].get(c)!s} ({row['tuning'].get(c)!s})" for c in columns]
        print(f"{label:22}" + "".join(f"{c:>30}" for c in cells))
    print(f"{'target':22}" + "".join(f"{TARGETS[c]!s:>30}" for c in columns))
    median = tracing["s_per_scene_p50"]
    print(f"traced {tracing['scenes_traced']} scenes, {median} s each (median) at {SPP} spp")
    print(json.dumps({"bench": "world", "results": results, "tracing": tracing, "target": TARGETS}))


if __name__ == "__main__":
    main()
