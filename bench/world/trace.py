"""One scene path-traced in a Python process of its own, whose hash seed is fixed: a
frame then depends on its scene alone. Traced in the asking process, the noise a
frame carries changed with the process's hash seed (Python's, random per process
unless ``PYTHONHASHSEED`` sets it): two renders of one scene in two processes came
out as two different draws of the noise, as far apart (10 of 255 a pixel, mean) as
two sampler seeds, so a cached frame was one of two pictures depending on which
process traced it first, and readings of the world moved from run to run.

``light`` is what the frames ask for; ``python -m bench.world.trace`` is the child:
it reads its scene (pickled) from stdin and writes the light (``.npy``) to the path
it is given.
"""

from __future__ import annotations

import io
import os
import pickle
import resource
import subprocess
import sys
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
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.run(
        [sys.executable, "-m", "bench.world.trace"],
        input=pickle.dumps((game, scene, str(cache), spp, crop)),
        capture_output=True,
        env=env,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode != 0:
        said = child.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(f"tracing a scene failed ({child.returncode}): " + " | ".join(said))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return np.load(io.BytesIO(child.stdout)), cpu


def _child() -> None:
    from bench.world import render  # Mitsuba loads only here

    game, scene, cache, spp, crop = pickle.loads(sys.stdin.buffer.read())
    render.variant()
    import mitsuba as mi

    d = render.scene_dict(game, scene, Path(cache), spp, crop)
    traced = np.array(mi.render(mi.load_dict(d)))[..., :3]
    out = io.BytesIO()
    np.save(out, traced)
    sys.stdout.buffer.write(out.getvalue())


if __name__ == "__main__":
    _child()
