"""Which probes a piece on another site hides from the camera: the geometry of
vision/boards/hiding.py on two sites in a row, seen from low along the row and from above."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from vision.boards import hiding as hiding_module
from vision.boards.hiding import HIDDEN_SHARE, Hiding
from vision.boards.probes import DARKEST_RANK, POINTS
from vision.looks import Piece

TREE = Piece("tree", (20, 80, 30), "cone", 10.0, 26.0, stays=True)
DISK = Piece("dandelion", (242, 200, 20), "cylinder", 13.0, 3.0, under=True)
HARE = Piece("hare_white", (238, 238, 232), "cylinder", 6.0, 20.0, single=True)


def _hiding(pitch: float, probes=((2.0, 3.0), (13.0, 2.0)), showing=None) -> Hiding:
    """Sites at y = 0 and y = 30 mm, the camera 600 mm away from the second one's side
    at ``pitch`` degrees; each site's probes (z, r) with 12 points on a ring, each
    showing a piece that covers more than ``showing`` of them (HIDDEN_SHARE)."""
    centres = np.array([[0.0, 0.0], [0.0, 30.0]])
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    points = np.array(
        [
            [
                np.c_[x + r * np.cos(angles), y + r * np.sin(angles), np.full(12, z)]
                for z, r in probes
            ]
            for x, y in centres
        ]
    )
    p = math.radians(pitch)
    eye = np.array([0.0, 15.0 + 600 * math.cos(p), 600 * math.sin(p)])
    if showing is None:
        showing = np.full(len(probes), HIDDEN_SHARE)
    sight = SimpleNamespace(points=points, eye=eye, px_per_mm=np.array([1.0, 1.0]), showing=showing)
    return Hiding(sight, centres, ["a1", "a2"])


def test_a_tree_in_front_hides_the_low_probe_of_the_cell_behind_it_from_a_low_camera():
    hidden, beyond = _hiding(30).hidden([[], [TREE]])
    # a 26 mm tree 30 mm in front, at 30 degrees: the ray from 2 mm up meets its foot;
    # the one from 13 mm up passes 10 mm from its axis 24 mm up, where the cone is 3 mm
    assert hidden[0].tolist() == [True, False]
    assert not hidden[1].any()  # a piece never hides its own site's probes
    assert not beyond.any()


@pytest.mark.parametrize("pitch", [75, 90])
def test_nothing_is_hidden_from_a_steep_camera(pitch):
    hidden, beyond = _hiding(pitch).hidden([[], [TREE]])
    assert not hidden.any() and not beyond.any()


def test_a_figure_on_a_disk_stands_higher_and_hides_more():
    # the hare alone (20 mm) lets the camera at 45 degrees see the low probe behind
    # it; on a disk (23 mm) its top reaches into that view
    pitch = 45
    alone = _hiding(pitch, probes=((0.0, 0.5),)).hidden([[], [HARE]])[0]
    on_disk = _hiding(pitch, probes=((0.0, 0.5),)).hidden([[], [DISK, HARE]])[0]
    assert not alone[0, 0] and on_disk[0, 0]


def test_a_probe_read_at_its_darkest_points_shows_a_figure_in_front_sooner():
    # a ring 6.8 mm round the cell behind a hare, at 42 degrees: the hare covers 3 of
    # its 12 points, which its darkest quarter shows and its median does not
    ring = ((3.0, 6.8), (3.0, 6.8))
    darkest = np.array([True, False])
    showing = np.where(darkest, DARKEST_RANK / POINTS, HIDDEN_SHARE)
    hidden = _hiding(42, probes=ring, showing=showing).hidden([[], [HARE]])[0]
    assert hidden[0].tolist() == [True, False]


def test_a_high_probe_over_an_empty_cell_sees_the_piece_behind_it():
    # the camera looks from the second site's side: the first site lies behind it,
    # and the second site's probe 13 mm up sees the board 22 mm further on at 30
    # degrees, where a tree on the first site stands
    hidden, beyond = _hiding(30).hidden([[TREE], []])
    assert beyond[1].tolist() == [False, True]
    assert not hidden.any()


def _row(sites: int, pitch: float) -> Hiding:
    """``sites`` sites 30 mm apart along y, two probes each (12 points on a ring), the
    camera 600 mm beyond the last at ``pitch`` degrees."""
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    centres = np.array([[0.0, 30.0 * n] for n in range(sites)])
    points = np.array(
        [
            [
                np.c_[x + r * np.cos(angles), y + r * np.sin(angles), np.full(12, z)]
                for z, r in ((2.0, 3.0), (13.0, 2.0))
            ]
            for x, y in centres
        ]
    )
    p = math.radians(pitch)
    eye = np.array([0.0, centres[-1, 1] + 600 * math.cos(p), 600 * math.sin(p)])
    showing = np.full(2, HIDDEN_SHARE)
    sight = SimpleNamespace(points=points, eye=eye, px_per_mm=np.ones(sites), showing=showing)
    return Hiding(sight, centres, [f"a{n}" for n in range(sites)])


def test_the_rays_followed_a_few_pairs_of_sites_at_a_time_hide_what_all_at_once_do(
    monkeypatch,
):
    # the pairs of sites are taken PAIRS_AT_ONCE at a time to keep memory low: no
    # pair's answer may depend on which others are taken with it
    stacks = [[TREE] if n % 3 == 0 else [DISK, HARE] if n % 3 == 1 else [] for n in range(20)]
    monkeypatch.setattr(hiding_module, "PAIRS_AT_ONCE", 7)  # the pairs fill several groups
    few = _row(20, 30).hidden(stacks)
    monkeypatch.setattr(hiding_module, "PAIRS_AT_ONCE", 10**6)
    whole = _row(20, 30).hidden(stacks)
    assert few[0].any() and few[1].any(), "pieces hide something, and show past something"
    assert np.array_equal(few[0], whole[0]) and np.array_equal(few[1], whole[1])


def test_a_piece_set_down_off_its_place_hides_what_it_stands_in_front_of_there():
    # a home field's hat stands where its ring was read turned, not on its spot's
    # place: there it hides what a piece on the place would hide, and moved aside it
    # hides nothing of the cell behind
    at_place = _hiding(30).hidden([[], [TREE]])
    moved = _hiding(30).hidden([[], []], moved=[(TREE, (0.0, 30.0), 1)])
    assert np.array_equal(at_place[0], moved[0]) and at_place[0][0, 0]
    aside = _hiding(30).hidden([[], []], moved=[(TREE, (40.0, 30.0), 1)])
    assert not aside[0].any() and not aside[1].any()
    # nor does a piece ever hide its own site's probes, wherever on the site it stands
    own = _hiding(30).hidden([[], []], moved=[(TREE, (0.0, 45.0), 0)])
    assert not own[0][0].any()
