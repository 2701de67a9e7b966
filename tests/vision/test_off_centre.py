"""Fang den Hut! hats set off a field's centre: a hat is looked for round the centre
and round a field's spots (alike round each, at most 1 mm nearer its middle), a home
field's ring where it
stands; reading a hat at all costs its odds. A single piece set down off its point is
learned where it stands."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.boards.crowds import HAT_COST
from vision.stillness import SCALE, STILL_FRAMES


def test_a_fields_centre_and_spots_are_read_off_their_place_a_rings_are_not(learned):
    _, camera, reader, start = learned("fang_den_hut", 3)
    sampler = reader.sampler
    frame = camera.frame(start)
    placed = sampler.features(frame, placed=True)
    assert len(placed) > 1 and np.array_equal(placed[0], sampler.features(frame))
    still = ~sampler.moving
    assert still.any() and sampler.moving.any()
    # a home field's ring shows its own place at every offset (it is turned instead)
    assert (placed[1:, still] == placed[:1, still]).all()
    # a field's centre or spot moved round its place shows the board somewhere else
    assert (placed[1:, sampler.moving] != placed[:1, sampler.moving]).any()
    for site, moving in zip(reader.sites, sampler.moving):
        assert moving == (site.slot is None)


def test_a_hat_beside_others_is_looked_for_alike_round_every_spot_at_most_1mm_in(learned):
    # two hats touching (18 mm wide on spots 20 mm apart) stand 1 mm nearer the
    # middle each, beside it as often; a spot's probes moved further in would find a
    # hat alone in the middle, and read one hat set off its centre as two. Every spot
    # is looked for the same way round it, whichever way its field's track runs (on
    # the board's axes, a field across the board's diagonal looked 1.7 mm in)
    _, _, reader, _ = learned("fang_den_hut", 3)
    moves = reader.sampler.moves
    cost = reader.classifier.off_centre
    middles = {s.cell: s.xy for s in reader.sites if s.spot is None and s.slot is None}
    ways = set()
    for i, site in enumerate(reader.sites):
        looked = np.isfinite(cost[:, i])
        if site.spot is None:
            assert looked.all()
            continue
        out = np.subtract(site.xy, middles[site.cell])
        out /= np.linalg.norm(out)
        towards, beside = moves[:, i] @ out, moves[:, i] @ np.array([-out[1], out[0]])
        assert (towards[looked] >= -1.0 - 1e-6).all() and (~looked).sum() == 1
        assert np.isclose(towards[looked], -1.0).sum() == 2
        ways.add(tuple(np.round(np.c_[towards, beside][looked], 3).ravel()))
    assert len(ways) == 1


def test_a_field_holding_a_hat_at_all_costs_its_odds(learned):
    _, _, reader, _ = learned("fang_den_hut", 3)
    crowds = reader.classifier.crowds
    empty = crowds.names.index(None)
    one = [i for i, name in enumerate(crowds.names) if name and "+" not in name]
    assert crowds.prior[empty] == 0 and HAT_COST > 0
    assert np.allclose(crowds.prior[one], HAT_COST)


def test_a_piece_set_down_off_its_point_is_learned_where_it_stands(learned):
    # the one hare is learned from one frame: read on its point with the hare set down
    # 6 mm beside it, its probes showed a blend of its edge and the board (on a
    # path-traced table it was then read nowhere)
    _, camera, reader, start = learned("catch_the_hare", 4004)
    sampler = reader.sampler
    hare = next(cell for cell, token in start.items() if token == "hare")
    site = next(i for i, s in enumerate(reader.sites) if s.cell == hare)
    standing = np.array([start[s.cell] is not None for s in reader.sites])
    single = np.arange(len(standing)) == site
    assert np.array_equal(reader._single(start), single)  # the hare, no hunter
    off = camera.frame(start, offsets={hare: (6.0, 0.0)})
    centred = sampler.features(camera.frame(start))
    stood, on_point = sampler.stood(off, single), sampler.features(off)
    assert np.abs(np.log(stood / centred))[site].max() < 0.1
    assert np.abs(np.log(on_point / centred))[site].max() > 0.1
    # the others are learned on their points
    assert np.array_equal(stood[~single], on_point[~single])


def test_the_still_check_leaves_room_for_pieces_set_down_off_their_points(learned):
    # the still check compares the board's paper and a band of table round it, less
    # where pieces may stand: a pawn set down as far off its point as the reader looks
    # for it, and its shadow, must not look like something over the board (on a
    # path-traced table 31 of 100 moves were judged only after the 4 s it takes to
    # accept a new look: a pawn's shadow past the room left round its point)
    _, _, reader, _ = learned("catch_the_hare", 4004)
    stillness, lens, pose = reader.stillness, reader.lens, reader.pose
    # a pawn's shadow under a light as low as 40 degrees above the table (a window):
    # on a path-traced table a piece's shadow past the room left round it held the
    # board "blocked" after the hand had gone
    look = reader.look
    shadow = look.tallest() / math.tan(math.radians(40))
    room = look.placement_mm + max(p.radius for p in look.pieces.values()) + shadow - 0.5
    turns = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    around = np.c_[room * np.cos(turns), room * np.sin(turns), np.zeros(len(turns))]
    top, left = stillness._crop[0].start // SCALE, stillness._crop[1].start // SCALE
    for cell in reader.game.board.cells:
        points = np.array([*cell.xy, 0.0]) + around
        px = lens.project(points, pose.rvec, pose.tvec) / SCALE
        rows, cols = np.round(px[:, 1]).astype(int) - top, np.round(px[:, 0]).astype(int) - left
        mask = stillness.background_mask
        inside = (rows >= 0) & (rows < mask.shape[0]) & (cols >= 0) & (cols < mask.shape[1])
        assert not mask[rows[inside], cols[inside]].any(), cell.id


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 4])
def test_a_hat_set_6mm_off_a_yellow_fields_middle_is_read_in_its_own_colour(seed, learned):
    # people set hats up to 5 mm off and more; a spot's probes that looked for the
    # slope of a hat in the middle landed on the yellow print beside it, and read a
    # blue hat as two or a red one as none (5 of 48 boards) until such a probe may show
    # the board at a bounded cost (crowds.OFF_MIDDLE_COST)
    game, camera, reader, start = learned("fang_den_hut", seed)
    yellow = [c.id for c in game.board.cells if c.kind == "yellow" and start[c.id] is None]
    rng = np.random.default_rng(seed)
    for _ in range(6):
        truth, offsets = dict(start), {}
        for cell, colour in zip(rng.choice(yellow, 3, replace=False), ("red", "blue", "green")):
            turn = rng.uniform(0, 2 * math.pi)
            truth[cell], offsets[cell] = colour, (6.0 * math.cos(turn), 6.0 * math.sin(turn))
        frame = camera.frame(truth, offsets=offsets)
        for _ in range(STILL_FRAMES + 1):
            seen = reader.feed(frame)
        assert seen is not None and seen.tokens == truth, offsets
