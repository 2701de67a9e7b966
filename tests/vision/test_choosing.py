"""Choosing one reading of the board from the costs: each single piece on a site of
its own, the cheapest such way there is."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vision.boards.choosing import distinct_sites, one_each, ranked_labels


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


def test_a_single_piece_that_fits_two_sites_is_read_on_the_likelier_and_the_other_named_next():
    # site 0 holds the white hare; site 1 is a bare hollow that looks unlike its empty
    # self and more like a white hare on white; site 2 is plainly bare. Moving the
    # hare from site 1 to site 0 costs 7 more: odds of exp(-3.5), not none
    from engines import load_game
    from vision import looks

    pieces = looks.look_for(load_game("hakenschlagen")).pieces
    labels = [None, "hare_white", "molehill"]
    cost = np.array([[40.0, 10.0, 50.0], [45.0, 8.0, 50.0], [2.0, 60.0, 30.0]])
    chosen, _ = one_each(cost, labels, pieces, {"hare_white"})
    read = ranked_labels(chosen, labels)
    assert [site[0][0] for site in read] == [None, "hare_white", None]
    odds = math.exp(-3.5)
    assert dict(read[0])["hare_white"] == pytest.approx(odds / (1 + odds), rel=0.01)
    assert dict(read[1])[None] == pytest.approx(odds / (1 + odds), rel=0.01)
    assert dict(read[2]).get("hare_white", 0.0) < 1e-12
