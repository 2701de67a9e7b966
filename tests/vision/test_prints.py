"""A field's print as taught against the frame: a hat standing there, even one of
the field's own colour, looks unlike the print; the fields left empty look like it."""

from __future__ import annotations

import numpy as np
import pytest

from engines import load_game
from vision.boards.crowds import CROWD_COST
from vision.boards.reader import BoardReader
from vision.render import Renderer, random_scene


def _taught(seed: int):
    game = load_game("fang_den_hut")
    scene = random_scene(game.board, seed=seed)
    table = Renderer(game, scene)
    reader = BoardReader(game, scene.lens)
    start = game.observe(game.initial_state())
    assert reader.learn(table.frame(start), start)
    return game, table, reader, start


def _costs(reader, frame):
    prints = reader.prints
    frame = reader.sampler.readable(frame)  # as the reader reads it
    seen = prints.measure(frame, reader.sampler.paper(frame))
    bare, hat, _ = prints.costs(seen, len(reader.sites))
    fields = {s.cell: i for i, s in enumerate(reader.sites) if s.slot is None and s.spot is None}
    return {cell: float(bare[i]) for cell, i in fields.items()}, {
        cell: float(hat[i]) for cell, i in fields.items()
    }


def test_a_hat_of_the_fields_own_colour_looks_unlike_its_print():
    for seed in (3, 5):
        game, table, reader, start = _taught(seed)
        position = dict(start, r5="yellow", r20="red")  # both yellow fields
        bare, hat = _costs(reader, table.frame(position))
        assert bare["r5"] == bare["r20"] == reader.prints.most
        empty = [cost for cell, cost in bare.items() if cell not in ("r5", "r20")]
        assert np.median(empty) < 2.0
        assert max(empty) < reader.prints.most / 2
        assert set(hat.values()) == {reader.prints.stands_cost}


def test_the_start_position_looks_like_the_print_it_taught():
    game, table, reader, start = _taught(3)
    bare, _ = _costs(reader, table.frame(start))
    assert np.median(list(bare.values())) < 2.0
    assert max(bare.values()) < reader.prints.stands_cost


def test_a_yellow_hat_on_a_yellow_field_is_read():
    game, table, reader, start = _taught(5)
    position = dict(start, r5="yellow", r33="yellow")
    frame = table.frame(position)
    seen = None
    for _ in range(8):
        seen = reader.feed(frame) or seen
    assert seen is not None
    assert seen.tokens["r5"] == seen.tokens["r33"] == "yellow"
    assert all(seen.tokens[c] is None for c in ("r4", "r6", "r32", "r34"))


def test_a_field_unlike_its_print_shows_its_hats_colour():
    game, table, reader, start = _taught(3)
    frame = reader.sampler.readable(table.frame(dict(start, r5="yellow", r20="red", r33="blue")))
    prints = reader.prints
    colour = prints.costs(prints.measure(frame, reader.sampler.paper(frame)), len(reader.sites))[2]
    fields = {s.cell: i for i, s in enumerate(reader.sites) if s.slot is None and s.spot is None}
    red, green, blue = colour[fields["r20"]][::-1]  # the frame is BGR
    assert red > 2 * green and red > 2 * blue
    blue_, green_, red_ = colour[fields["r33"]]
    assert blue_ > red_ and blue_ > green_
    yellow = colour[fields["r5"]][::-1]
    assert yellow[0] > 2 * yellow[2] and yellow[1] > 2 * yellow[2]
    empty = [i for cell, i in fields.items() if cell not in ("r5", "r20", "r33")]
    assert np.isnan(colour[empty]).all(axis=1).mean() > 0.9


def test_a_red_hats_disc_outvotes_the_yellow_field_its_probes_see_round_it():
    # a red hat set off a yellow field's middle leaves the field's yellow in its probes'
    # view; its disc's changed part is red, and says so louder than a few probes
    game, table, reader, start = _taught(3)
    frame = reader.sampler.readable(table.frame(dict(start, r20="red")))
    prints, classifier = reader.prints, reader.classifier
    paper = reader.sampler.paper(frame)
    stands = prints.costs(prints.measure(frame, paper), len(reader.sites))
    hue = classifier._hues(stands, paper)[2]
    site = next(i for i, s in enumerate(reader.sites) if s.cell == "r20" and s.spot is None)
    colours = classifier.crowds.colours
    red, yellow = hue[site, colours.index("red")], hue[site, colours.index("yellow")]
    assert yellow - red > 60


def test_a_hat_on_a_spot_whose_disc_looks_like_its_print_costs_a_hats_worth():
    # the spots beside a field's middle have discs of their own: two hats read where
    # one spot's disc looks just like its print cost that spot's hat more than one hat
    # in the middle does (every probe here fits every reading)
    game, table, reader, start = _taught(3)
    frame = reader.sampler.readable(table.frame(start))
    prints, classifier = reader.prints, reader.classifier
    paper = reader.sampler.paper(frame)
    stands = classifier._hues(prints.costs(prints.measure(frame, paper), len(reader.sites)), paper)
    crowds = classifier.crowds
    rows = np.flatnonzero(~classifier.slotted)
    names = [label for label, _ in classifier.readings[False]]
    k = len(reader.look.probes)
    probes = np.zeros((len(rows), len(names), k), np.float32)
    slopes = np.zeros((len(rows), len(crowds.colours), k), np.float32)
    shaded = np.zeros((len(rows), k), np.float32)
    cost = np.zeros((len(rows), len(names)), np.float32)
    fields = crowds.read(rows, cost, names, 1.0, probes, slopes, shaded, stands)[1]
    field = list(fields[0]).index(next(i for i, s in enumerate(reader.sites) if s.cell == "r2"))
    one, two = (fields[2].index(name) for name in ("red", "red+red"))
    extra = fields[1][field, two] - fields[1][field, one]
    bare = stands[0][crowds.rows[field, 1:3]]
    assert bare.max() < prints.stands_cost / 4
    assert extra == pytest.approx(CROWD_COST + (2 * prints.stands_cost - bare.sum()), abs=1e-3)


def test_a_field_straying_from_its_print_costs_more_only_linearly_past_a_few_spreads():
    # an empty field's disc now and then strays five or six spreads (a neighbour's
    # shadow on its rim): squared, that cost 41 and outvoted probes that saw no hat
    # on it; past STRAY_SPREADS each spread costs alike, and a hat's look, fifteen
    # spreads and more, still costs the most
    from vision.boards.prints import STRAY_SPREADS

    game, table, reader, start = _taught(3)
    prints = reader.prints
    frame = reader.sampler.readable(table.frame(start))
    seen = prints.measure(frame, reader.sampler.paper(frame))
    middles = ~prints.beside & ~np.isnan(prints.reference[:, 0])
    off = seen[:, :2] - prints.reference[:, :2]
    centre = np.median(off[middles], axis=0)
    spread = np.maximum(1.4826 * np.median(np.abs(off[middles] - centre), axis=0), 0.03)
    k = int(np.flatnonzero(middles)[0])
    site = prints.rows[k]

    def cost(spreads: float) -> float:
        strayed = seen.copy()
        strayed[k, :2] = prints.reference[k, :2] + centre + spreads * np.array([-0.8, 0.6]) * spread
        return float(prints.costs(strayed, len(reader.sites))[0][site])

    near, far = cost(6.0), cost(9.0)
    assert far - near == pytest.approx(2 * STRAY_SPREADS * 3.0, rel=0.02)
    assert near < 2.5 * prints.stands_cost
    assert cost(15.0) == prints.most
