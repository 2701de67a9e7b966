"""`boardref vision eval`: the reader against rendered frames of random positions,
scored cell by cell against the truth the renderer drew.

Each scene (camera pose, lens, light) is one game: the bare board and then the start
position with its set-up, which the reader learns from, as it would while a game is
set up; then it reads positions reached from that start by random legal play, each
first with a hand over the board (which must never yield an observation) and then
clear. Seeds from ``render.HELD_OUT`` on are the held-out set; tuning uses seeds
below it. Times are on one OpenCV thread, as the budget is: ``ms_per_frame`` over
every clear frame fed (most only pass the stillness check), ``ms_per_read`` over the
frames that were read, ``ms_per_stage`` per frame through each stage, and
``cpu_ms_per_move`` over every frame of a move, from the hand over the board to the
reading (CPU time: a still board's frames after it cost nothing more). Measures only;
changes nothing it reads.
"""

from __future__ import annotations

import time
from collections import Counter
from functools import partial

import cv2
import numpy as np

from engines import load_game
from engines.chance import Stream
from vision.boards.reader import STAGES, BoardReader
from vision.lens import Lens
from vision.mishaps import PLAIN, Mishaps, bumped, misplaced_markers, placement
from vision.render import Renderer, random_scene, underlays
from vision.stillness import ACCEPT_AFTER, STILL_FRAMES

#: positions read per scene before the camera, lens and light change
PER_SCENE = 10
#: random plies from the start to a position (at most)
MAX_PLIES = 80
#: most frequent (truth, read) mistakes listed in the result
CONFUSIONS = 8
#: clear frames the reader may take to read again after the camera was knocked (it
#: waits for the view to settle, then finds the board anew)
BUMP_PATIENCE = ACCEPT_AFTER + 4 * STILL_FRAMES


def set_up(game, stream: Stream):
    """The position when play begins: the start with its set-up drawn (Hakenschlagen's
    disks and trees), as the referee knows it when the game starts."""
    state = game.initial_state()
    while (spec := game.chance(state)) is not None:
        state = game.resolve(state, spec.draw(stream))
    return state


def random_position(game, start, rng: np.random.Generator, plies: int, stream: Stream):
    """The state after up to ``plies`` random legal moves and chance draws from
    ``start``."""
    state = start
    for _ in range(plies):
        if game.outcome(state) is not None:
            break
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(stream))
            continue
        moves = game.legal_moves(state)
        state = game.apply(state, moves[int(rng.integers(len(moves)))])
    return state


def evaluate(
    game_name: str,
    frames: int,
    seed: int,
    difficulty: str = "easy",
    players: int | None = None,
    mishaps: Mishaps = PLAIN,
) -> dict:
    """Read ``frames`` positions under ``mishaps``; the figures as a JSON-able dict."""
    cv2.setNumThreads(1)  # the time budget is for one core
    game = load_game(game_name, players)
    rng = np.random.default_rng(seed)
    # the mishaps draw from their own generator: the plain scenes stay as they were
    luck = np.random.default_rng([seed, 2])
    stream = Stream(f"vision eval {seed}".encode())
    cells = len(game.board.cells)
    wrong = exact = unlocated = hand_seen = 0
    feed_ms: list[float] = []
    read_ms: list[float] = []
    move_ms: list[float] = []  # each move's, from the hand over the board to the reading
    spent, timed = dict.fromkeys(STAGES, 0.0), dict.fromkeys(STAGES, 0)  # per reader stage
    unread = 0
    confusion: Counter[tuple[str | None, str | None]] = Counter()
    reader = camera = begin = None
    scenes = scenes_unlocated = bumps = 0
    refusals: Counter[str] = Counter()
    for n in range(frames):
        patience = STILL_FRAMES + 1
        if n % PER_SCENE == 0:
            _add_timings(reader, spent, timed)
            begin = set_up(game, stream)
            start = game.observe(begin)
            scene_seed = seed * 1000 + n // PER_SCENE
            camera, reader, set_out, located = _scene(
                game, scene_seed, start, difficulty, mishaps, rng, luck
            )
            scenes += 1
            if not located:
                scenes_unlocated += 1
                refusals[reader.refusal or "?"] += 1
                reader = None
            truth, under, offsets = start, {}, set_out
        elif mishaps.bump_deg and n % PER_SCENE == PER_SCENE // 2 and reader is not None:
            camera.move_camera(bumped(camera.scene, mishaps.bump_deg, luck))
            bumps += 1
            patience = BUMP_PATIENCE
            if not mishaps.bump_in_move:
                # the board as it stood, seen from the knocked camera: the first
                # still read after the bump is not counted
                _read(reader, camera, truth, under, offsets, patience, [])
                patience = STILL_FRAMES + 1
        state = random_position(game, begin, rng, int(rng.integers(1, MAX_PLIES)), stream)
        truth = game.observe(state)
        under = underlays(game, state)
        offsets = placement(truth, luck, mishaps.placement_mm)
        if reader is None:
            unlocated += 1
            wrong += cells
            continue
        hand = [game.board.cells[int(rng.integers(cells))].id]
        hand_frame = camera.frame(truth, tuple(hand), under, offsets)
        seen, observation = _move(
            reader,
            hand_frame,
            feed_ms,
            move_ms,
            partial(_read, reader, camera, truth, under, offsets, patience),
        )
        hand_seen += seen
        if observation is None:
            unread += 1
            wrong += cells
            continue
        errors = sum(observation.tokens[c] != truth[c] for c in truth)
        confusion.update(
            (truth[c], observation.tokens[c]) for c in truth if observation.tokens[c] != truth[c]
        )
        read_ms.append(feed_ms[-1])
        wrong += errors
        exact += errors == 0
        reader.confirm(truth)
    _add_timings(reader, spent, timed)
    return {
        "game": game_name,
        "difficulty": difficulty,
        "frames": frames,
        "seed": seed,
        "cells_per_frame": cells,
        "per_cell_error": round(wrong / (frames * cells), 6),
        "board_exact_rate": round(exact / frames, 4),
        "unlocated_scenes": unlocated,
        "scenes": scenes,
        "scenes_unlocated": scenes_unlocated,
        "refusals": dict(refusals),
        "bumps": bumps,
        "clear_frames_unread": unread,
        "confusions": [
            {"truth": t, "read": r, "cells": n} for (t, r), n in confusion.most_common(CONFUSIONS)
        ],
        "hand_frames": len(move_ms) * (STILL_FRAMES + 1),
        "hand_frames_with_observation": hand_seen,
        "ms_per_frame_p50": _ms(feed_ms, 0.5),
        "ms_per_frame_p95": _ms(feed_ms, 0.95),
        "ms_per_read_p50": _ms(read_ms, 0.5),
        "ms_per_read_p95": _ms(read_ms, 0.95),
        "cpu_ms_per_move_p50": _ms(move_ms, 0.5),
        "cpu_ms_per_move_p95": _ms(move_ms, 0.95),
        "ms_per_stage": {k: round(spent[k] * 1000 / max(1, timed[k]), 3) for k in STAGES},
    }


def _scene(game, scene_seed: int, start: dict, difficulty: str, mishaps: Mishaps, rng, luck):
    """A new scene: the camera, a reader that learned the board (from the empty board
    first unless ``mishaps`` leave it out, then the start position) and where the
    start's pieces were set down; and whether the reader found the board."""
    scene = random_scene(game.board, scene_seed, difficulty, **mishaps.lens_range())
    glued = misplaced_markers(game.board, luck, mishaps.marker_mm, mishaps.marker_deg)
    camera = Renderer(game, scene, scene_seed, glued)
    lens = (
        _calibrated(scene.lens, rng, difficulty)
        if mishaps.calibrated
        else Lens.guess(scene.lens.size)
    )
    reader = BoardReader(game, lens)
    set_out = placement(start, luck, mishaps.placement_mm)
    bare = dict.fromkeys(start)
    located = (not mishaps.bare_board or reader.learn(camera.frame(bare), bare)) and reader.learn(
        camera.frame(start, offsets=set_out), start
    )
    return camera, reader, set_out, located


def _read(reader, camera, truth, under, offsets, patience: int, feed_ms: list[float]):
    """Feed clear frames of ``truth`` until the reader gives an observation after at
    least STILL_FRAMES + 1 of them, or ``patience`` frames went by; the observation or
    None. Each frame's time is added to ``feed_ms``."""
    observation = None
    for n in range(patience):
        frame = camera.frame(truth, (), under, offsets)
        observation = _feed(reader, frame, feed_ms)
        if observation is not None and n >= STILL_FRAMES:
            break
    return observation


def _move(reader, hand_frame, feed_ms: list[float], move_ms: list[float], read):
    """A move: the hand over the board (STILL_FRAMES + 1 frames of ``hand_frame``),
    then ``read(feed_ms)`` its clear frames. How many hand frames gave an
    observation, and the reading; the move's CPU time in ms added to ``move_ms``."""
    hand_ms: list[float] = []
    seen = sum(_feed(reader, hand_frame, hand_ms) is not None for _ in range(STILL_FRAMES + 1))
    fed = len(feed_ms)
    observation = read(feed_ms)
    move_ms.append(sum(hand_ms) + sum(feed_ms[fed:]))
    return seen, observation


def _feed(reader, frame, times: list[float]):
    """``reader.feed(frame)``, its CPU time in ms added to ``times``."""
    t = time.process_time()
    observation = reader.feed(frame)
    times.append((time.process_time() - t) * 1000)
    return observation


def _add_timings(reader, spent: dict, timed: dict) -> None:
    """Add one scene's reader's stage timings to the totals."""
    if reader is not None:
        for stage in STAGES:
            spent[stage] += reader.timings[stage]
            timed[stage] += reader.timed[stage]


def _ms(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q * 100, method="higher")), 3) if values else None


def _calibrated(lens: Lens, rng: np.random.Generator, difficulty: str):
    """The lens as a calibration would give it: the true one, off by a little."""
    off = 0.005 if difficulty == "easy" else 0.01
    matrix = lens.matrix.copy()
    matrix[0, 0] *= 1 + rng.uniform(-off, off)
    matrix[1, 1] = matrix[0, 0] * lens.matrix[1, 1] / lens.matrix[0, 0]
    return Lens(matrix, lens.dist, lens.size)
