"""One scene path-traced the same way every time: in a Python process of its own,
whose hash seed is fixed, handed the game by name, players and options (a game pickled
by the asking process carries sets in that process's hash order), and loaded without
Mitsuba's merging of identical objects (``load_dict(optimize=False)``).

Traced in the asking process with Mitsuba's defaults, a scene came out as one of two
pictures: a crop traced from 16 processes differed in 3 (by 0.53 of linear light in a
pixel; single-threaded too), and whole frames of one scene by 10 of 255 a pixel (mean),
as far as a second sampler seed; which one depended on the process, not on the scene.
A cached frame was then one of two pictures, and readings of the world moved from run
to run. Without the merging, 16 processes of 16 hash seeds traced the crop alike. A
Fang den Hut! frame traces in about 11 s instead of 9.

``light`` is what the frames ask for; ``python -m bench.world.trace PATH`` is the
child: it reads its scene (pickled) from stdin and writes the light (``.npy``) to
PATH (not to stdout, where Mitsuba's log may write).
"""

from __future__ import annotations

import os
import pickle
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

#: the checkout's root, for the child to import ``bench.world`` from
ROOT = Path(__file__).resolve().parents[2]
#: Python's hash seed in the child: any fixed value makes its renders repeatable
HASH_SEED = "0"


def light(game, scene, cache: Path, spp: int, crop=None) -> tuple[np.ndarray, float]:
    """The linear light ``render`` traces for ``scene`` (``crop``: only that rectangle
    of the pinhole picture), traced in a child process; and the CPU seconds the
    child took."""
    env = dict(os.environ, PYTHONHASHSEED=HASH_SEED)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="boardref-trace-") as folder:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = Path(folder) / "light.npy"
        child = subprocess.run(
            [sys.executable, "-m", "bench.world.trace", str(out)],
            # the game by its name, players and options, loaded again in the child: a
            # game pickled here carries sets in this process's hash order
            input=pickle.dumps(
                ((game.name, game.players, dict(game.options)), scene, str(cache), spp, crop)
            ),
            capture_output=True,
            env=env,
            check=False,
        )
        if child.returncode != 0:
            said = child.stderr.decode(errors="replace").strip().splitlines()[-5:]
            raise RuntimeError(f"tracing a scene failed ({child.returncode}): " + " | ".join(said))
        traced = np.load(out)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return traced, cpu


def _child() -> None:
    from bench.world import render  # Mitsuba loads only here
    from engines import load_game

    (name, players, options), scene, cache, spp, crop = pickle.loads(sys.stdin.buffer.read())
    game = load_game(name, players, **options)
    render.variant()
    import mitsuba as mi

    d = render.scene_dict(game, scene, Path(cache), spp, crop)
    np.save(sys.argv[1], np.array(mi.render(mi.load_dict(d, optimize=False)))[..., :3])


if __name__ == "__main__":
    _child()
