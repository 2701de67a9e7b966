"""A board seen at about a pixel a millimetre (Fang den Hut!'s, looks.toml
``smooth_px``): a probe's points fall on a pixel or two, so the probes read the frame
smoothed over about a pixel, the colour there and not one pixel's sensor noise. On
path-traced café tables, 32 of them read at four positions each, reading the frame
as it came missed 23 of 128 boards, smoothed 14."""

from __future__ import annotations

import numpy as np

from engines import load_game
from vision.boards.reader import BoardReader
from vision.render import Renderer, random_scene


def _noise_in_probes(sampler, clean, noisy, smoothed: bool) -> float:
    if smoothed:
        clean, noisy = sampler.readable(clean), sampler.readable(noisy)
    return float(np.median(np.abs(np.log(sampler.features(noisy) / sampler.features(clean)))))


def test_a_fang_den_hut_probe_reads_the_colour_there_not_a_pixel_s_noise():
    game = load_game("fang_den_hut")
    scene = random_scene(game.board, seed=3, fill=(0.9, 0.92))
    table = Renderer(game, scene)
    reader = BoardReader(game, scene.lens)
    start = game.observe(game.initial_state())
    assert reader.learn(table.frame(start), start)
    sampler = reader.sampler
    assert sampler.px_per_mm.max() < 1.5  # a probe's ring of 3 mm spans a few pixels
    clean = table.frame(start)
    grain = np.random.default_rng(1).normal(0, 12, clean.shape)
    noisy = np.clip(clean + grain, 0, 255).astype(np.uint8)
    assert _noise_in_probes(sampler, clean, noisy, True) < 0.6 * _noise_in_probes(
        sampler, clean, noisy, False
    )
