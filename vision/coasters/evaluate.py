"""`boardref vision eval --game haegar`: the coaster reader against rendered layouts
of random legal games, scored layout by layout against the truth the renderer drew:
where coasters lie, which coaster at which turn, the landscape of each quarter, and
the tokens. Each scene (camera pose, lens, light) shows ``PER_SCENE`` layouts, each
a random moment of its own random game, first with a hand over one of its coasters
(a reading of that frame must not be clear) and then clear. The referee's sensor
(``vision.coasters.sensor``) watches the same layouts as a still table: the hand's
frame, then ``WATCHED`` frames of the layout (fresh sensor noise each), timed per
frame once the first has been read. Seeds from ``render.HELD_OUT`` on are the
held-out set. Measures only; changes nothing it reads.
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from engines import load_game
from engines.chance import Stream
from engines.players import random_playout
from vision.boards.evaluate import PER_SCENE, _calibrated, _ms
from vision.coasters.mat import layout_of, mat_board
from vision.coasters.reader import CoasterReader
from vision.coasters.render import CoasterRenderer
from vision.coasters.sensor import CoasterSensor
from vision.render import random_scene
from vision.stillness import STILL_FRAMES

CHECKS = ("position", "coaster", "rotation", "quarters", "tokens")
#: frames of each layout the sensor watches after the hand has gone
WATCHED = STILL_FRAMES + 4


def evaluate_coasters(
    frames: int, seed: int, difficulty: str = "easy", players: int | None = None
) -> dict:
    """Read ``frames`` layouts; the figures as a JSON-able dict."""
    game = load_game("haegar", players)
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    stream = Stream(f"coaster eval {seed}".encode())
    fields = [cell.id for cell in game.board.cells]
    right = dict.fromkeys(CHECKS, 0)
    exact = board_exact = unfound = unclear = hands_clear = wrong_fields = 0
    read_ms: list[float] = []
    still_ms: list[float] = []
    sensor_hands = sensor_wrong = 0
    renderer = reader = sensor = None
    for n in range(frames):
        if n % PER_SCENE == 0:
            scene_seed = seed * 1000 + n // PER_SCENE
            scene = random_scene(mat_board(game), scene_seed, difficulty)
            renderer = CoasterRenderer(game, scene, scene_seed)
            lens = _calibrated(scene.lens, rng, difficulty)
            reader, sensor = CoasterReader(game, lens), CoasterSensor(game, lens)
        states = random_playout(game, game.initial_state(), pick, stream)
        truth = game.observe(pick.choice(states))
        spots = sorted(layout_of(game, truth)[0]) or ["n0e0"]
        hand = renderer.frame(truth, (pick.choice(spots),))
        frame = renderer.frame(truth)
        if reader.pose is None:
            reader.locate(frame)  # once per scene, as the service does at start
        start = time.perf_counter()
        reading = reader.read(frame)
        read_ms.append((time.perf_counter() - start) * 1000)
        hands_clear += reader.read(hand).clear
        if sensor.truth is None:
            sensor.learn(frame, truth)  # the table's set-up: a view clear of hands
        sensor_hands += sensor.feed(hand) is not None
        seen_still = _watch(sensor, renderer, truth, still_ms)
        sensor_wrong += seen_still is not None and seen_still.tokens != truth
        unclear += reading.found and not reading.clear
        if not reading.found:
            unfound += 1
            wrong_fields += sum(truth[f] is not None for f in fields)
            continue
        seen = reading.observation(game)
        wrong_fields += sum(seen[f] != truth[f] for f in fields)
        board_exact += seen == truth
        checks = _compare(game, truth, seen)
        for check in CHECKS:
            right[check] += checks[check]
        exact += checks["position"] and checks["rotation"] and checks["quarters"]
    return {
        "game": "haegar",
        "difficulty": difficulty,
        "frames": frames,
        "seed": seed,
        "layouts_exact_rate": round(exact / frames, 4),
        **{f"{check}_exact_rate": round(right[check] / frames, 4) for check in CHECKS},
        "per_cell_error": round(wrong_fields / (frames * len(fields)), 6),
        "board_exact_rate": round(board_exact / frames, 4),
        "table_not_found": unfound,
        "layouts_with_unclear_spots": unclear,
        "hand_frames_read_clear": hands_clear,
        "ms_per_frame_p50": round(statistics.median(read_ms), 3),
        "ms_per_frame_p95": _ms(read_ms, 0.95),
        "sensor_hand_frames_read": sensor_hands,
        "sensor_layouts_misread": sensor_wrong,
        "ms_per_still_frame_p50": round(statistics.median(still_ms or [0.0]), 3),
        "ms_per_still_frame_mean": round(statistics.fmean(still_ms or [0.0]), 3),
    }


def _watch(sensor: CoasterSensor, renderer, truth: dict, still_ms: list[float]):
    """Show the sensor ``WATCHED`` frames of a still table holding ``truth``; time
    each frame after the first one read into ``still_ms``; its last observation."""
    observation = None
    for _ in range(WATCHED):
        frame = renderer.frame(truth)
        start = time.perf_counter()
        seen = sensor.feed(frame)
        if observation is not None:
            still_ms.append((time.perf_counter() - start) * 1000)
        observation = seen or observation
    return observation


def _compare(game, truth: dict, seen: dict) -> dict[str, bool]:
    """Which parts of one layout were read right: the set of laid spots, the coaster
    on each, its turn, each quarter's landscape, and the tokens."""
    want, want_tokens = layout_of(game, truth)
    got, got_tokens = layout_of(game, seen)

    def quarters(spots):
        return {
            (spot, corner): field.landscape
            for spot, (coaster, turn) in spots.items()
            for corner, _, field in game.coasters[coaster].on_table(turn)
        }

    return {
        "position": set(want) == set(got),
        "coaster": {s: c for s, (c, _) in want.items()} == {s: c for s, (c, _) in got.items()},
        "rotation": {s: t for s, (_, t) in want.items()} == {s: t for s, (_, t) in got.items()},
        "quarters": quarters(want) == quarters(got),
        "tokens": want_tokens == got_tokens,
    }
