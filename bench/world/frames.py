"""The world's frames, each path-traced once and kept: a scene's JPEG and its truth
are cached under a key of everything that decides the picture, in
``$BOARDREF_WORLD_CACHE`` or ``~/.cache/boardref-world/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import cv2
import numpy as np

from bench.world.camera import develop

#: bump when the renderer changes what a scene looks like, so old frames are not reused
RENDERER = 2


def cache_dir() -> Path:
    path = Path(os.environ.get("BOARDREF_WORLD_CACHE", Path.home() / ".cache" / "boardref-world"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def frame(game, scene, spp: int) -> tuple[np.ndarray, dict, float | None]:
    """``scene`` as the camera saw it (BGR uint8), its truth (cell -> token), and the
    seconds it took to trace (None when it came from the cache)."""
    described = json.dumps([RENDERER, spp, scene.describe()], sort_keys=True, default=str)
    key = hashlib.sha256(described.encode()).hexdigest()[:24]
    cache = cache_dir()
    jpeg_path = cache / f"{scene.set_up.game}-{key}.jpg"
    spent = None
    if not jpeg_path.exists():
        from bench.world import render  # Mitsuba loads only when a frame is traced

        render.variant()
        import mitsuba as mi

        begin = time.perf_counter()
        light = np.array(mi.render(mi.load_dict(render.scene_dict(game, scene, cache, spp))))
        spent = time.perf_counter() - begin
        rng = np.random.default_rng([scene.set_up.seed, scene.seed, 49])
        partial = jpeg_path.with_suffix(".part")
        partial.write_bytes(develop(light[..., :3], scene.set_up.camera, rng))
        partial.replace(jpeg_path)
        (cache / f"{scene.set_up.game}-{key}.json").write_text(described)
    image = cv2.imdecode(np.frombuffer(jpeg_path.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    return image, dict(scene.truth), spent
