"""A scene of the physically rendered world traces to the same light whichever
process asks for it: its noise depends on the scene alone, not on the asking
process's hash seed (each scene is traced in a child whose hash seed is fixed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: a small rectangle of a Fang den Hut! start position at one sample a pixel
TRACE = """
import sys
import numpy as np
from pathlib import Path
from bench.world import trace
from bench.world.scene import scene, set_up
from engines import load_game
game = load_game("fang_den_hut")
table = set_up(game, 3)
shown = scene(game, table, game.observe(game.initial_state()), 0)
light, _ = trace.light(game, shown, Path(sys.argv[1]), 1, (600, 300, 48, 48))
np.save(sys.argv[2], light)
"""


@pytest.mark.process
def test_a_scene_traces_alike_whatever_the_asking_process_s_hash_seed(tmp_path):
    lights = []
    for seed in ("1", "2"):
        out = tmp_path / f"light-{seed}.npy"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        subprocess.run(
            [sys.executable, "-c", TRACE, str(tmp_path), str(out)],
            env=env,
            check=True,
            timeout=300,
        )
        lights.append(np.load(out))
    assert lights[0].shape == (48, 48, 3)
    # alike but for the order the threads added samples up in (about 1e-7)
    assert np.abs(lights[0] - lights[1]).max() < 1e-3
