"""The world's frames, each path-traced once and kept: a scene's JPEG and its truth
are cached under a key of everything that decides the picture, in
``$BOARDREF_WORLD_CACHE`` or ``~/.cache/boardref-world/``.

A table played on move by move (``view`` with the light of a scene before) traces
only the rectangle its change reaches (``change.region``) and lays it over that
light; such a frame is kept under a key of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bench.world import trace
from bench.world.camera import develop, pinhole_size

#: bump when the renderer changes what a scene looks like, so old frames are not reused
#: (3: each scene traced in a process of its own, ``trace``; 4: without Mitsuba's
#: merging of identical objects)
RENDERER = 4


@dataclass(frozen=True)
class Traced:
    """The light (linear RGB of the pinhole picture) traced for ``scene``, what it
    cost (wall and CPU seconds) and the share of the picture that was traced."""

    scene: object
    light: np.ndarray
    seconds: float
    cpu: float
    share: float


def cache_dir() -> Path:
    path = Path(os.environ.get("BOARDREF_WORLD_CACHE", Path.home() / ".cache" / "boardref-world"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def frame(game, scene, spp: int) -> tuple[np.ndarray, dict, float | None]:
    """``scene`` as the camera saw it (BGR uint8), its truth (cell -> token), and the
    seconds it took to trace (None when it came from the cache)."""
    image, truth, traced = view(game, scene, spp)
    return image, truth, None if traced is None else traced.seconds


def view(game, scene, spp: int, before: Traced | None = None, over: bool = False):
    """``scene`` as the camera saw it, its truth, and its ``Traced`` light (None when
    the frame came from the cache). With ``over``, the frame is one of a table played
    move by move, kept apart from whole traces: with ``before`` (a scene of the same
    set-up) only the rectangle where the scenes differ is traced."""
    described = [RENDERER, spp, scene.describe()] + (["laid over"] if over else [])
    text = json.dumps(described, sort_keys=True, default=str)
    key = hashlib.sha256(text.encode()).hexdigest()[:24]
    cache = cache_dir()
    jpeg_path = cache / f"{scene.set_up.game}-{key}.jpg"
    traced = None
    if not jpeg_path.exists():
        traced = _trace(game, scene, spp, before if over else None, cache)
        rng = np.random.default_rng([scene.set_up.seed, scene.seed, 49])
        partial = jpeg_path.with_suffix(".part")
        partial.write_bytes(develop(traced.light, scene.set_up.camera, rng))
        partial.replace(jpeg_path)
        (cache / f"{scene.set_up.game}-{key}.json").write_text(text)
    image = cv2.imdecode(np.frombuffer(jpeg_path.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    return image, dict(scene.truth), traced


def _trace(game, scene, spp: int, before: Traced | None, cache: Path) -> Traced:
    from bench.world.change import region

    width, height = pinhole_size(scene.set_up.camera)
    crop = None if before is None else region(game, before.scene, scene)
    begin, cpu = time.perf_counter(), 0.0
    if crop is not None and crop[2] * crop[3] == 0:
        light = before.light
    else:
        traced, cpu = trace.light(game, scene, cache, spp, crop)
        if crop is None:
            light = traced
        else:
            x, y, w, h = crop
            light = before.light.copy()
            light[y : y + h, x : x + w] = traced
    share = 1.0 if crop is None else crop[2] * crop[3] / (width * height)
    return Traced(scene, light, time.perf_counter() - begin, cpu, round(share, 3))
