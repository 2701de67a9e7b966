"""A home field's ring of spots: read at the turn of the ring that explains its hats
best, taught at the turn and order round it that explain the hats it holds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engines import load_game
from vision.boards.rings import Rings
from vision.boards.sites import sites_of
from vision.looks import look_for


def _two_homes():
    game = load_game("fang_den_hut")
    sites = sites_of(game.board, look_for(game))
    return sites, Rings(sites)


def test_the_turns_tried_cover_one_spots_step_of_the_ring():
    slots = look_for(load_game("fang_den_hut")).slots["home"]
    turns = slots.turns()
    assert turns[0] == 0 and len(turns) > 1
    assert turns[-1] < 2 * math.pi / slots.count <= turns[-1] + math.radians(slots.turn_deg) + 1e-9


def test_each_home_field_is_read_at_the_turn_that_explains_it_best():
    sites, rings = _two_homes()
    fields = rings.member.shape[1]
    # six spots round each home field and its middle
    assert fields == 4 and len(rings.rows) == 7 * fields
    assert rings.middle.sum() == fields
    cost = np.full((12, len(rings.rows), 3), 50.0)
    # field 0 is clearly seen at turn 4, field 2 at turn 9; one spot of field 0 is
    # seen well at turn 7 on its own, which must not pull the whole field there
    for f, turn in ((0, 4), (2, 9)):
        cost[turn, rings.field == f, 1] = 1.0
    cost[7, np.flatnonzero(rings.field == 0)[0], 0] = 0.0
    turns = rings.read_turns(cost)
    assert set(turns[rings.field == 0]) == {4} and set(turns[rings.field == 2]) == {9}
    assert len({sites[i].cell for i in rings.rows[rings.field == 0]}) == 1


def test_a_spot_nothing_explains_does_not_pull_its_field_off_the_turn_its_hats_fit():
    _, rings = _two_homes()
    spots = np.flatnonzero(rings.field == 3)
    cost = np.full((6, len(rings.rows), 3), 50.0)
    # at turn 1 five hats fit well and the sixth spot fits nothing (a neighbour's
    # shadow on it); at turn 4 every spot fits fairly, as between the hats
    cost[1, spots, 1] = 2.0
    cost[1, spots[0], :] = 120.0
    cost[4, spots, 0] = 8.0
    assert set(rings.read_turns(cost)[spots]) == {1}


def test_a_lesson_finds_where_round_the_ring_the_first_hat_stands():
    _, rings = _two_homes()
    spots = np.flatnonzero(rings.field == 1)
    # the field holds a gold hat and two red ones (readings 2 and 1), in that order from
    # its first spot as the observation sorts them; the frame shows them from spot 3 on
    known = np.zeros(len(rings.rows), int)
    known[spots[:3]] = [2, 1, 1]
    ring = ~rings.middle[spots]
    seen = known[spots].copy()
    seen[ring] = np.roll(known[spots][ring], 3)
    cost = np.full((12, len(rings.rows), 3), 30.0)
    cost[5, spots, seen] = 0.0
    turns, readings = rings.lesson(cost, known)
    assert set(turns[spots]) == {5}
    assert list(readings[spots]) == list(seen)
    # the other fields, empty, are taught empty
    assert not readings[rings.field != 1].any()


def test_a_hat_is_looked_for_off_its_spot_but_an_empty_spot_only_on_it():
    # (turns, offsets, ring sites, readings): reading 0 is no hat, 1 a hat
    total = np.array([[[[9.0, 9.0]], [[1.0, 2.0]], [[5.0, 8.0]]]])
    off = np.array([0.0, 1.0, 1.0])
    best, offsets = Rings.settle(total, off, np.array([True, False]))
    assert best.tolist() == [[[9.0, 3.0]]] and offsets.tolist() == [[[0, 1]]]


def test_a_hat_alone_is_taught_in_the_middle_when_it_stands_there():
    sites, rings = _two_homes()
    spots = np.flatnonzero(rings.field == 2)
    middle = spots[rings.middle[spots]]
    board = load_game("fang_den_hut").board
    site = sites[rings.rows[middle[0]]]
    assert len(middle) == 1 and site.xy == board.cell(site.cell).xy
    known = np.zeros(len(rings.rows), int)
    known[spots[0]] = 1
    cost = np.full((12, len(rings.rows), 3), 30.0)
    # every spot looks empty at every turn but the middle, which shows the hat
    cost[:, spots, 0] = 1.0
    cost[:, middle, 0], cost[:, middle, 1] = 40.0, 0.0
    readings = rings.lesson(cost, known)[1]
    assert readings[middle].tolist() == [1] and not readings[spots[~rings.middle[spots]]].any()
    # two hats never stand in the middle: they are taught round the ring
    known[spots[1]] = 1
    readings = rings.lesson(cost, known)[1]
    assert readings[middle].tolist() == [0] and readings[spots].sum() == 2


def test_a_turn_that_puts_the_spots_between_the_hats_does_not_explain_them_away():
    sites, rings = _two_homes()
    spots = np.flatnonzero((rings.field == 0) & ~rings.middle)
    cost = np.full((6, len(rings.rows), 3), 50.0)
    cost[:, rings.middle, 0] = 0.0
    # three hats stand on spots 0-2 at turn 5, the rest empty; half a spot's step
    # round (turn 2) every spot lies between them and shows the board cheaply
    cost[5, spots[:3], 1] = 5.0
    cost[5, spots[3:], 0] = 3.0
    cost[2, spots, 0] = 1.0
    assert rings.read_turns(cost)[spots[0]] == 5


def test_a_home_field_admits_only_its_own_colour():
    game = load_game("fang_den_hut")
    look = look_for(game)
    sites = sites_of(game.board, look)
    names = [None, "red", "blue", "green", "yellow", "gold"]
    rings = Rings(sites, names)
    # every probe of every spot looks most like a blue hat
    cost = np.full((2, 1, len(rings.rows), len(names), 3), 20.0, np.float32)
    cost[..., names.index("blue"), :] = 1.0
    best = rings.admitted(cost).sum(axis=4).argmin(axis=3)[0, 0]
    zones = [sites[i].zone for i in rings.rows]
    for zone, reading in zip(zones, best):
        assert names[reading] == ("blue" if zone == "blue" else None)
    # the golden hat may wait on any home field
    cost[..., names.index("gold"), :] = 0.5
    best = rings.admitted(cost).sum(axis=4).argmin(axis=3)[0, 0]
    assert {names[r] for r in best} == {"gold"}


@pytest.mark.parametrize("seed", [3, 11])
def test_a_home_field_seen_empty_looks_empty_at_every_turn_of_its_ring(learned, seed):
    # a spot turned onto the line printed into the field, or its rim, looks unlike the
    # place it was first seen empty at: learned only there, an empty home field read
    # at such a turn cost up to 255 a spot, and (the turn half a step round counting
    # too) one turn of an empty field was a tie with the turn that shows a hat
    _, camera, reader, start = learned("fang_den_hut", seed)
    bare = dict.fromkeys(start)
    sampler, classifier = reader.sampler, reader.classifier
    frame = sampler.readable(camera.frame(bare))  # as the reader reads it
    turned, paper = sampler.turned_features(frame), sampler.paper(frame)
    empty = classifier._turned_costs(turned, paper).sum(axis=4)[:, 0, :, 0]
    assert empty.max() < 5.0, empty.max(axis=1)
