"""Glass marbles: a bright highlight or caustic over one side of each marble must not
make a coloured marble read as a white one."""

from __future__ import annotations

import cv2
import numpy as np

from vision.stillness import STILL_FRAMES

#: the share of a marble's width the highlight covers, from one side
GLINT = 0.4
#: the highlight's colour (BGR): near white, as a lamp's reflection in glass
GLINT_BGR = (235, 240, 240)


def _glinting(reader, frame, truth, rng) -> np.ndarray:
    """``frame`` with a highlight over GLINT of each marble, toward a side of its own."""
    out = frame.copy()
    rows, columns = np.mgrid[: frame.shape[0], : frame.shape[1]]
    sites = {site.cell: site.xy for site in reader.sites}
    for cell, token in truth.items():
        if token is None:
            continue
        radius = reader.look.piece(token).radius
        x, y = sites[cell]
        centre, edge = reader.lens.project(
            np.array([[x, y, radius], [x + radius, y, radius]]), reader.pose.rvec, reader.pose.tvec
        )
        r = float(np.linalg.norm(edge - centre))
        marble = np.zeros(frame.shape[:2], np.uint8)
        cv2.circle(marble, tuple(int(v) for v in np.round(centre)), round(r), 255, -1)
        side = rng.uniform(0, 2 * np.pi)
        along = (columns - centre[0]) * np.cos(side) + (rows - centre[1]) * np.sin(side)
        out[(marble > 0) & (along > r * (1 - 2 * GLINT))] = GLINT_BGR
    return out


def test_a_marble_with_a_highlight_over_one_side_keeps_its_colour(learned):
    _, camera, reader, start = learned("sternhalma", 13, players=6)
    frame = _glinting(reader, camera.frame(start), start, np.random.default_rng(13))
    seen = None
    for _ in range(STILL_FRAMES + 1):
        seen = reader.feed(frame)
    assert seen is not None
    assert {c: t for c, t in seen.tokens.items() if t != start[c]} == {}


#: distinct pixels a small probe must read at each hole: a phone's sensor noise on
#: two or three of them read an empty hole as a marble
PIXELS_LEAST = 6


def test_a_small_probe_reads_many_pixels(learned):
    # the second probe looks 1.5 mm round a hole's middle: on a ring, its points met
    # two or three pixels; spread over the disc, they meet most of the pixels there
    reader = learned("sternhalma", 21, players=3)[2]
    assert reader.look.probes[1].r <= 2.0
    flat = reader.sampler.flat[0, :, 1]  # (sites, points) of the hole's middle
    distinct = np.array([len(np.unique(points)) for points in flat])
    assert distinct.min() >= PIXELS_LEAST
