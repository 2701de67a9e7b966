"""Choosing one reading of the board from the costs: each single piece on a site of
its own, the cheapest such way there is."""

from __future__ import annotations

import itertools

import numpy as np

from vision.boards.choosing import distinct_sites


def test_a_piece_far_down_its_own_list_still_gets_the_site_only_it_fits():
    # sites 0-2 each hold a figure on a disk, cheap for every figure; the fourth
    # figure stands alone on site 5, only its fourth cheapest
    extra = np.zeros((4, 6))
    extra[0, :3] = -100, -50, -50
    extra[1, :3] = -50, -100, -50
    extra[2, :3] = -50, -50, -100
    extra[3, [0, 1, 2, 5]] = -90, -90, -80, -70
    assert distinct_sites(extra) == (0, 1, 2, 5)


def test_the_sites_chosen_cost_the_least_of_every_way_of_giving_each_piece_its_own():
    rng = np.random.default_rng(46)
    for pieces in range(1, 6):
        for _ in range(40):
            extra = rng.normal(0, 30, (pieces, 9)).round()
            chosen = distinct_sites(extra)
            assert len(set(chosen)) == pieces
            least = min(
                extra[np.arange(pieces), list(way)].sum()
                for way in itertools.permutations(range(9), pieces)
            )
            assert extra[np.arange(pieces), list(chosen)].sum() == least
