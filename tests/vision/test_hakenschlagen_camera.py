"""Hakenschlagen through the camera: the renderer's figures on disks, and frames of
the configurations the reader used to get wrong, each read right (rates over many
frames are bench/bench_vision.py's job)."""

from __future__ import annotations

import numpy as np
import pytest

from engines import load_game
from engines.chance import Stream
from tests.vision.test_vision import _read
from vision import looks
from vision.boards.classifier import Classifier
from vision.boards.evaluate import set_up
from vision.boards.probes import Sampler
from vision.boards.reader import BoardReader
from vision.boards.sight import (
    ANY,
    OUTLINE_MM,
    SEES_SHADED_BOARD,
    SEES_TOKEN,
    carried_probes,
    hypotheses,
    stacks_of,
)
from vision.boards.sites import sites_of
from vision.locate import Pose
from vision.render import Renderer, random_scene
from vision.stillness import STILL_FRAMES

#: a cell misread with the truth at least this likely is in real doubt, which the
#: referee's weighing against the legal moves settles (boardref.referee.fusion)
IN_DOUBT = 0.25


def _patch(frame: np.ndarray, px) -> np.ndarray:
    """Mean BGR of the 3x3 pixels around ``px``."""
    x, y = (int(round(v)) for v in px)
    return frame[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0)


def test_a_figures_shadow_falls_on_the_disk_it_stands_on():
    game = load_game("hakenschlagen")
    # scene 9 looks down at 87 degrees, its light throws shadows 8 mm towards +x+y
    scene = random_scene(game.board, 9)
    camera = Renderer(game, scene, 9)
    start = game.observe(set_up(game, Stream(b"shadow on a disk")))
    disk = next(c for c, t in start.items() if t == "dandelion")
    hare = next(c for c, t in start.items() if t == "hare_yellow")
    on_disk = dict(start, **{disk: "hare_yellow", hare: None})
    bare, carried = camera.frame(start), camera.frame(on_disk, (), {disk: "dandelion"})
    toward = np.array(scene.light["shadow"]) / np.linalg.norm(scene.light["shadow"])
    x, y = game.board.cell(disk).xy
    # 10 mm from the centre: past the hare's foot and its blurred edge, on the disk
    # (13 mm); the dandelion's green and red (its blue is too dark to tell)
    points = np.array([[x, y, 3.0]] * 2) + np.c_[[toward * 10, -toward * 10], [0, 0]]
    shadowed, sunlit = scene.lens.project(points, scene.rvec, scene.tvec)
    assert (_patch(carried, shadowed)[1:] / _patch(bare, shadowed)[1:] < 0.95).all()
    assert np.allclose(_patch(carried, sunlit)[1:], _patch(bare, sunlit)[1:], rtol=0.05)


def _reader(seed: int, difficulty: str, stream: bytes):
    """A reader that learned the bare board and the set-up of scene ``seed``."""
    game = load_game("hakenschlagen")
    scene = random_scene(game.board, seed, difficulty)
    camera = Renderer(game, scene, seed)
    reader = BoardReader(game, scene.lens)
    start = game.observe(set_up(game, Stream(stream)))
    bare = dict.fromkeys(start)
    assert reader.learn(camera.frame(bare), bare) and reader.learn(camera.frame(start), start)
    return game, camera, reader, start


@pytest.mark.slow
def test_empty_hollows_are_told_from_a_white_hare_on_a_board_burnt_white():
    # hard scene 5005: flash and spotlights burn the board and a white hare's top and
    # side to one white (empty hollows were read as white hares); a hare hides the
    # printed outline of its hollow behind it
    game, camera, reader, start = _reader(5005, "hard", b"white hare")
    hare = next(c for c, t in start.items() if t == "hare_white")
    for cell in ("c5", "e5", "h6", "m5", "s7"):
        assert start[cell] is None
        truth = dict(start, **{hare: None, cell: "hare_white"})
        seen = _read(reader, camera.frame(truth))
        assert seen is not None and seen.tokens == truth, cell


@pytest.mark.slow
def test_a_hare_on_a_disk_of_its_own_colour_is_told_from_the_bare_disk():
    # easy scene 5005 looks down at 74 degrees: a hare's top is its disk's colour, a
    # few pixels of its side show below it; these five were read as the bare disk
    # before the low side probe (z 6, r 5.5) looked at that side
    game, camera, reader, start = _reader(5005, "easy", b"own colour")
    for hare, disk, cell in (
        ("hare_green", "lettuce", "q7"),
        ("hare_yellow", "dandelion", "p4"),
        ("hare_yellow", "dandelion", "q3"),
        ("hare_yellow", "dandelion", "q5"),
        ("hare_yellow", "dandelion", "t8"),
    ):
        assert start[cell] == disk
        home = next(c for c, t in start.items() if t == hare)
        truth = dict(start, **{home: None, cell: hare})
        seen = _read(reader, camera.frame(truth, (), {cell: disk}))
        assert seen is not None and seen.tokens == truth, (hare, cell)


@pytest.mark.slow
def test_disks_are_read_past_the_figures_in_front_of_them_from_a_low_camera():
    # hard scene 6006 looks at 39 degrees: figures in front hide the low probes of the
    # cells behind them; the dandelion on d6 and the empty b4 were misread until the
    # sides probe looked beside where a figure stands. A hollow hidden that way may be
    # in real doubt (the empty d4 behind a hare on e5: molehill or nothing, 0.49-0.51
    # either way depending on the CPU's vector instructions), never surely misread:
    # the referee's weighing against the legal moves settles such a cell
    game, camera, reader, start = _reader(6006, "hard", b"disk behind a figure")
    home = next(c for c, t in start.items() if t == "hare_pink")
    assert start["d6"] == "dandelion"
    for cell in ("e5", "g3", "i1", "o5", "s3"):
        truth = dict(start, **{home: None, cell: "hare_pink"})
        seen = _read(reader, camera.frame(truth))
        assert seen is not None, cell
        assert seen.tokens["d6"] == "dandelion" and seen.tokens["b4"] is None, cell
        for hollow, token in truth.items():
            if seen.tokens[hollow] != token:
                doubt = dict(seen.ranked[hollow]).get(token, 0.0)
                assert doubt >= IN_DOUBT, (cell, hollow, seen.ranked[hollow])


@pytest.mark.slow
def test_an_arm_the_colour_of_the_table_over_the_board_is_never_read():
    # hard scene 6008, 39 degrees: the darkest skin tone on the brown table differed
    # from it by less than the background check's level, so a still hand over t8 was
    # read (found on tuning seed 6 of bench_vision). t8 and a cell in every ten, all
    # over the board; bench_vision holds a still hand over a cell of every frame it
    # reads, in every game and scene, and allows no reading of one
    game, camera, reader, start = _reader(6008, "hard", b"arm like the table")
    cells = ["t8", *(cell.id for cell in game.board.cells[::10])]
    assert len(cells) == 11
    for cell in cells:
        frame = camera.frame(start, hands=(cell,))
        assert all(reader.feed(frame) is None for _ in range(STILL_FRAMES + 3)), cell
    assert _read(reader, camera.frame(start)).tokens == start


@pytest.mark.slow
def test_a_hare_on_its_own_colour_is_told_by_its_shadow_from_straight_above():
    # easy scene 21015 looks down at 83 degrees: hardly any side of a figure shows, its
    # top is its disk's colour, and the shadow it throws on the disk around it tells it
    # from the bare disk; 6 of these 27 were read as bare disks before the darkest
    # probe looked for that shadow (14 of 27 in scene 21004, at 86 degrees)
    game, camera, reader, start = _reader(21015, "easy", b"own colour from above")
    assert camera.scene.pitch > 82
    read = 0
    for hare, disk in (("hare_yellow", "dandelion"), ("hare_green", "lettuce")):
        home = next(c for c, t in start.items() if t == hare)
        for cell in [c for c, t in start.items() if t == disk]:
            truth = dict(start, **{home: None, cell: hare})
            seen = _read(reader, camera.frame(truth, (), {cell: disk}))
            assert seen is not None and seen.tokens == truth, (hare, cell)
            read += 1
    assert read == 27


@pytest.mark.slow
def test_a_yellow_hare_on_a_carrot_is_read_where_jpeg_bleeds_the_board_into_its_blue():
    # hard scene 22001 (75 degrees, JPEG quality 60-90): the board's blue bleeds into a
    # yellow hare's edge; with a floor of 0.01 under the linear colours the hare's
    # blue channel alone outweighed its yellow and three of these read as bare carrots
    # (eight of the nine before its side probes skipped the rim)
    game, camera, reader, start = _reader(22001, "hard", b"yellow hare on a carrot")
    home = next(c for c, t in start.items() if t == "hare_yellow")
    carrots = [c for c, t in start.items() if t == "carrot"]
    assert len(carrots) >= 8
    for cell in carrots:
        truth = dict(start, **{home: None, cell: "hare_yellow"})
        seen = _read(reader, camera.frame(truth, (), {cell: "carrot"}))
        assert seen is not None and seen.tokens == truth, cell


@pytest.mark.slow
def test_cells_behind_trees_and_figures_are_read_from_a_camera_at_31_degrees():
    # hard tuning scene 7006 looks at 31 degrees with the board burnt white: trees and
    # figures hide the low probes of the cells behind them, and an outline probe over
    # a disk sees the board 25 mm behind it; the start was read with 6 cells wrong and
    # each of these positions with 6 or more until hidden probes counted as unseen
    game, camera, reader, start = _reader(7006, "hard", b"hidden cells")
    assert camera.scene.pitch < 31
    assert _read(reader, camera.frame(start)).tokens == start
    home = next(c for c, t in start.items() if t == "hare_white")
    for cell in ("a9", "g7", "i1", "l2", "n8"):
        truth = dict(start, **{home: None, cell: "hare_white"})
        seen = _read(reader, camera.frame(truth))
        assert seen is not None and seen.tokens == truth, cell


@pytest.mark.slow
def test_a_tree_the_first_reading_misses_still_hides_the_cells_behind_it(monkeypatch):
    # the reader reads a frame twice, the second time without the probes the pieces
    # of the first reading hide; a tree stays where the set-up put it, so even a
    # first reading that takes every tree for a bare hollow leaves the cells behind
    # the trees read as they are (in scene 7006 the dandelion behind h8's tree read
    # as lettuce)
    game, camera, reader, start = _reader(7006, "hard", b"hidden cells")
    classifier = type(reader.classifier)
    first = classifier._read

    def missing_trees(self, groups, hiding=None):
        parts, stacks, unexplained = first(self, groups, hiding)
        if hiding is None:
            stacks = [[p for p in stack if p.under or not p.stays] for stack in stacks]
        return parts, stacks, unexplained

    monkeypatch.setattr(classifier, "_read", missing_trees)
    assert "tree" in start.values()
    seen = _read(reader, camera.frame(start))
    assert seen is not None and seen.tokens == start


def test_a_figure_set_off_its_hollow_carries_its_outline_probe():
    # a figure set down toward the camera left the outline probe on the hollow looking
    # past it at the printed line it should hide (path-traced tables read such hares
    # as molehills or bare disks); the probes on the board beside it stay
    look = looks.look_for(load_game("hakenschlagen"))
    carried = carried_probes(look)
    assert [p.arc for p, c in zip(look.probes, carried) if c].count("outline") == 1
    assert not carried[[p.read == "darkest" or p.arc == "sides" for p in look.probes]].any()


@pytest.mark.slow
def test_a_frame_showing_a_second_white_hare_reads_one():
    # the rule book has one white hare: moved with a figure, the outline probe of an
    # empty hollow finds the paper beside its line, as bright as a white hare, and a
    # knocked camera read a second one; here a frame shows two
    game, camera, reader, start = _reader(5005, "easy", b"two white hares")
    home = next(c for c, t in start.items() if t == "hare_white")
    for cell in ("c3", "h6", "m5", "q7"):
        assert start[cell] is None
        seen = _read(reader, camera.frame(dict(start, **{cell: "hare_white"})))
        assert seen is not None
        assert list(seen.tokens.values()).count("hare_white") == 1, cell
        assert seen.tokens[home] == "hare_white" or seen.tokens[cell] == "hare_white"


def test_molehills_and_trees_are_read_on_bare_hollows_only():
    # the rule book puts molehills on field spaces and trees on hollows without disks:
    # a dark figure on a disk (a green hare on a dandelion seen from far) was read as
    # a molehill on it
    look = looks.look_for(load_game("hakenschlagen"))
    on_disks = {stack[-1].token for _, stack in stacks_of(look, False) if len(stack) == 2}
    assert not {"molehill", "tree"} & on_disks and {"fox", "hare_white"} <= on_disks


@pytest.mark.slow
def test_a_figure_in_less_light_than_it_was_learned_in_is_still_read_as_itself():
    # a figure's rounded top and sides catch the lamp differently on each hollow: on
    # path-traced tables a white hare read three times darker two hollows on than
    # where it was learned. Here every figure's probes show half the light; judged as
    # strictly as its colour (figure_light 1 in looks.toml), the yellow hare is read
    # as a molehill
    game, camera, reader, start = _reader(6006, "easy", b"dark hare")
    sampler, classifier = reader.sampler, reader.classifier
    frame = camera.frame(start)
    placed, paper = sampler.features(frame, placed=True), sampler.paper(frame)
    carried = carried_probes(classifier.look)
    for token in ("hare_white", "hare_yellow", "hare_pink", "hare_green", "fox"):
        cell = next(c for c, t in start.items() if t == token)
        site = next(i for i, s in enumerate(reader.sites) if s.cell == cell)
        dim = placed.copy()
        dim[:, site, carried] *= 0.5
        seen = classifier.classify(dim, paper, sampler.visible, sampler.turned_features(frame))
        assert seen.tokens[cell] == token, (token, seen.tokens[cell])


def test_a_figures_shadow_is_looked_for_from_a_low_camera_where_no_piece_hides_it():
    # easy scene 21012 looks at 55 degrees: the ring round a hollow where a figure's
    # shadow falls lies behind the pieces the neighbouring hollows could hold, and it
    # was looked at on no hollow at all (a white hare on a white hollow was read on the
    # bare one behind it); it counts unless the pieces read beside it hide it
    game = load_game("hakenschlagen")
    scene = random_scene(game.board, 21012)
    assert 50 < scene.pitch < 60
    reader = BoardReader(game, scene.lens)
    start = game.observe(set_up(game, Stream(b"shadow from low")))
    assert reader.learn(Renderer(game, scene, 21012).frame(start), start)
    classifier = reader.classifier
    shade = [p.read == "darkest" for p in classifier.look.probes].index(True)
    hare = [label for label, _ in classifier.readings[False]].index("hare_white")
    rows = np.arange(len(reader.sites))
    kinds = classifier._tables(False, rows)[2][:, hare, shade]
    assert (kinds == SEES_SHADED_BOARD).all()


def test_the_board_in_front_of_a_figure_set_off_its_hollow_may_show_its_foot():
    # a molehill set down 1.5 mm toward the camera brought its dark foot's blurred
    # edge onto the board probe 8.5 mm in front of the hollow, which stays on the
    # hollow: read as board there, path-traced tables read such molehills as trees
    look = looks.look_for(load_game("hakenschlagen"))
    front = [p.z == 0.0 and p.arc == "front" for p in look.probes].index(True)
    assert look.probes[front].r < 6.0 + OUTLINE_MM + look.placement_mm
    alone = [len(stack) == 1 and not stack[0].under for _, stack in stacks_of(look, False)]
    read = [(label, seen) for (label, seen), bare in zip(hypotheses(look), alone) if bare]
    assert {"molehill", "hare_white", "fox"} <= {label for label, _ in read}
    for label, seen in read:
        assert seen[front] == ("tree" if label == "tree" else ANY), label  # a tree covers it


def _tint(colour: np.ndarray) -> np.ndarray:
    """A log colour less its light (the channels' mean)."""
    return colour - colour.mean(axis=-1, keepdims=True)


@pytest.mark.slow
def test_a_figure_on_a_disk_may_show_the_disks_colour_but_not_its_light():
    # a 12 mm figure is 11-19 px wide: blur and JPEG's colour at half resolution mix
    # what it stands on into its probes, and it is learned on a white hollow. On
    # path-traced tables a yellow hare on a dandelion and a green one on a lettuce
    # showed the disk's colour in their side probes (the hollow's blue gone) and were
    # read as the bare disk. A white hare's probes halfway to a dandelion's colour, in
    # their own light, cost what its learned colour costs; halfway to its light too,
    # they do not
    game, camera, reader, start = _reader(5005, "easy", b"own colour")
    classifier = reader.classifier
    stacks = [[p.token for p in stack] for stack in classifier.stacks[False]]
    on_disk = stacks.index(["dandelion", "hare_white"])
    bare = stacks.index(["dandelion"])
    seen = np.array([w == "hare_white" for w in classifier.readings[False][on_disk][1]])
    assert seen.sum() >= 4 and not seen[[p.arc == "sides" for p in classifier.look.probes]].any()
    rows = np.flatnonzero(~classifier.slotted)
    site = next(i for i, r in enumerate(rows) if start[reader.sites[r].cell] == "dandelion")
    means, _, kinds, _ = classifier._tables(False, rows)
    hare, disk = means[:, on_disk], means[:, bare]
    sees = seen & (kinds[site, on_disk] == SEES_TOKEN)  # not its rim
    board = np.zeros_like(hare)
    tinted = np.where(seen[:, None], hare + 0.5 * (_tint(disk) - _tint(hare)), hare)
    assert (np.abs(tinted - hare)[site, sees] > 0.5).any()
    cost = classifier._costs(rows, board, tinted, False)[site, on_disk]
    assert cost[sees].sum() < 0.5
    lit = np.where(seen[:, None], hare + 0.5 * (disk - hare), hare)
    cost = classifier._costs(rows, board, lit, False)[site, on_disk]
    assert cost[sees].sum() > 4.0


#: distinct pixels a figure's foot probe must read at each hollow of a far board: on
#: two or three, the paper's grain or a pixel's noise read a bare hollow as a white hare
PIXELS_LEAST = 6


def test_the_probe_at_a_hollows_middle_reads_many_pixels_of_a_far_board():
    # the square board is long: a camera that sees all of it sees 0.6-1 px per mm.
    # The first probe looks 3 mm round a hollow's middle: on a ring, its points sat on
    # the side clearest of the hollow's outline and met two or three pixels
    game = load_game("hakenschlagen", board="square")
    look = looks.look_for(game)
    scene = random_scene(game.board, 4, "easy", pitch=(55, 60), fill=(0.4, 0.4))
    pose = Pose(scene.rvec, scene.tvec, 0.0, 4)
    sampler = Sampler(sites_of(game.board, look), look, scene.lens, pose, game.board)
    assert sampler.px_per_mm.max() < 1.1 and look.probes[0].r <= 3.0
    distinct = np.array([len(np.unique(points)) for points in sampler.flat[0, :, 0]])
    assert distinct.min() >= PIXELS_LEAST


def test_setting_pieces_that_stay_teaches_the_empty_look_round_them_afresh():
    # a tree set out on the board shades the hollows beside it for good: learned from
    # the bare board, then refreshed by a share of the start position's look, their
    # references stayed lighter than they would ever look again, and an empty hollow
    # half behind a tree was read as a molehill. A later lesson only refreshes them
    game = load_game("hakenschlagen", board="square")
    look = looks.look_for(game)
    sites = sites_of(game.board, look)
    classifier = Classifier(sites, look, np.array([site.xy for site in sites]))
    paper = np.ones((8, 3), np.float32)
    bare = np.ones((len(sites), len(look.probes), 3), np.float32)
    labels: list[str | None] = [None] * len(sites)
    classifier.learn(bare, paper, labels, fresh=True)
    shaded = bare.copy()
    shaded[1] = 0.6
    labels[0] = "tree"
    classifier.learn(shaded, paper, labels, fresh=False)
    assert np.allclose(classifier.empty[1], 0.6)
    classifier.learn(bare, paper, labels, fresh=False)
    assert 0.6 < classifier.empty[1].max() < 0.9
