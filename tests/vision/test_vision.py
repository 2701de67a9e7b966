"""The camera as a sensor, on a handful of rendered frames (accuracy and timing
statistics are bench/bench_vision.py's job)."""

from __future__ import annotations

import glob
import json
import struct

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from engines import load_game
from engines.chance import Stream
from engines.errors import BoardFileError
from engines.geometry import parse_board
from vision import looks
from vision.boards.evaluate import random_position, set_up
from vision.boards.reader import BoardReader
from vision.drawings import marker_sheet, overlay_png
from vision.lens import Lens, calibrate
from vision.locate import Locator
from vision.render import Renderer, random_scene, underlays
from vision.stillness import STILL_FRAMES

PHOTOS = sorted(glob.glob("/usr/share/doc/opencv-doc/examples/data/left[0-9]*.jpg"))


def _read(reader, frame):
    seen = None
    for _ in range(STILL_FRAMES + 1):
        seen = reader.feed(frame)
    return seen


@pytest.mark.skipif(not PHOTOS, reason="Debian's opencv-doc package is not installed")
def test_calibration_on_real_chessboard_photos_reprojects_below_half_a_pixel(tmp_path):
    camera = calibrate([tmp_path.parent / p for p in PHOTOS], (9, 6))
    assert camera.rms_px < 0.5
    camera.save(tmp_path / "camera.json")
    again = Lens.load(tmp_path / "camera.json")
    assert np.allclose(again.matrix, camera.matrix) and again.size == (640, 480)


def test_calibrate_camera_command_prints_the_contract_keys(tmp_path):
    if not PHOTOS:
        pytest.skip("Debian's opencv-doc package is not installed")
    out = tmp_path / "camera.json"
    result = CliRunner().invoke(
        app, ["vision", "calibrate-camera", "--pattern", "9x6", "--out", str(out), *PHOTOS[:5]]
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert {"rms_px", "camera_matrix", "dist_coeffs"} <= set(printed) and out.exists()


@pytest.mark.slow
def test_reader_reads_random_positions_exactly_after_learning_the_start(learned):
    game, camera, reader, start = learned("sternhalma", 11)
    state = game.initial_state()
    for move_text in ("l4-k5", "j14-i13", "n2:l4:j6"):
        state = game.apply(state, game.parse_move(state, move_text))
        truth = game.observe(state)
        seen = _read(reader, camera.frame(truth))
        assert seen is not None and seen.tokens == truth
        assert min(seen.confidence.values()) > 0.5
        reader.confirm(truth)


def test_a_hand_over_the_board_never_yields_an_observation(learned):
    game, camera, reader, start = learned("sternhalma", 11)
    for cell in ("m1", "a5", "m9", "y13"):
        frame = camera.frame(start, hands=(cell,))
        assert all(reader.feed(frame) is None for _ in range(STILL_FRAMES + 3))
    assert _read(reader, camera.frame(start)).tokens == start


GAMES = ("sternhalma", "catch_the_hare", "hakenschlagen", "fang_den_hut")


#: Hakenschlagen's disk of each hare colour that has one
OWN_DISK = {"hare_yellow": "dandelion", "hare_green": "lettuce"}


def _unresolvable(game, state, truth) -> bool:
    """The known limit (docs/vision.md): a hare on a disk of its own colour looks like
    the bare disk from straight above."""
    under = underlays(game, state)
    return any(OWN_DISK.get(truth[c]) == disk for c, disk in under.items())


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_game_reads_random_positions_from_its_set_up_exactly(name):
    game = load_game(name)
    scene = random_scene(game.board, 21)
    camera = Renderer(game, scene, 21)
    reader = BoardReader(game, scene.lens)
    stream = Stream(b"vision test")
    begin = set_up(game, stream)
    start = game.observe(begin)
    bare = dict.fromkeys(start)
    assert reader.learn(camera.frame(bare), bare) and reader.learn(camera.frame(start), start)
    rng = np.random.default_rng(21)
    read, wrong = 0, []
    while read < 3:
        state = random_position(game, begin, rng, int(rng.integers(1, 30)), stream)
        truth = game.observe(state)
        if _unresolvable(game, state, truth):
            continue
        seen = _read(reader, camera.frame(truth, (), underlays(game, state)))
        assert seen is not None
        wrong += [(c, t, seen.tokens[c]) for c, t in truth.items() if seen.tokens[c] != t]
        reader.confirm(truth)
        read += 1
    # the reader's accuracy is measured in bench_vision; here a whole pipeline from the
    # set-up must read every cell of three positions but one at most (the sets where
    # issue 9's targets are not yet met err on about 1 cell in 700)
    assert len(wrong) <= 1, wrong


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_a_hand_over_any_board_never_yields_an_observation(name, learned):
    game, camera, reader, start = learned(name, 23, "hard")
    cells = [c.id for c in game.board.cells]
    for cell in (cells[0], cells[len(cells) // 2], cells[-1]):
        frame = camera.frame(start, hands=(cell,))
        assert all(reader.feed(frame) is None for _ in range(STILL_FRAMES + 3))


@pytest.mark.slow
def test_a_hare_on_a_disk_is_read_as_the_hare():
    game = load_game("hakenschlagen")
    scene = random_scene(game.board, 24)
    camera = Renderer(game, scene, 24)
    reader = BoardReader(game, scene.lens)
    begin = set_up(game, Stream(b"hare on a disk"))
    start = game.observe(begin)
    bare = dict.fromkeys(start)
    assert reader.learn(camera.frame(bare), bare) and reader.learn(camera.frame(start), start)
    disks = [c for c, t in start.items() if t in ("dandelion", "lettuce", "carrot")]
    hares = [c for c, t in start.items() if t and t.startswith("hare_")]
    truth = dict(start)
    for hare in hares:  # each onto the first free disk of another colour than its own
        disk = next(d for d in disks if truth[d] == start[d] != OWN_DISK.get(start[hare]))
        truth[disk], truth[hare] = start[hare], None
    seen = _read(reader, camera.frame(truth, (), {d: start[d] for d in disks}))
    assert seen is not None and seen.tokens == truth


def test_catch_the_hare_tells_the_hare_from_the_hunters(learned):
    game, camera, reader, start = learned("catch_the_hare", 5)
    seen = _read(reader, camera.frame(start))
    assert seen.tokens == start


def test_catch_the_hare_is_read_with_one_hare_on_the_board_at_most():
    # the rule book's one hare: a wooden hare near the paper's colour set down off its
    # point was read on several bare points that looked a little like it too
    look = looks.look_for(load_game("catch_the_hare"))
    assert look.piece("hare").single and not look.piece("hunter").single


def test_nothing_is_read_until_the_view_has_been_still(learned):
    game, camera, reader, start = learned("catch_the_hare", 5)
    frame = camera.frame(start)
    seen = [reader.feed(frame) for _ in range(STILL_FRAMES + 1)]
    assert seen[0] is None and seen[-1] is not None


@pytest.mark.parametrize("name", ["catch_the_hare", "sternhalma", "hakenschlagen"])
def test_the_four_corner_cells_clicked_by_hand_find_the_pose_the_markers_find(name):
    from vision import looks

    game = load_game(name)
    scene = random_scene(game.board, 4)
    frame = Renderer(game, scene).frame({})
    locator = Locator(game.board, scene.lens)
    by_markers = locator.locate(frame)
    corners = np.array([[*c.xy, 0.0] for c in looks.corner_cells(game.board)])
    clicks = scene.lens.project(corners, scene.rvec, scene.tvec)
    clicks += np.random.default_rng(4).uniform(-1.5, 1.5, clicks.shape)  # a hand's click
    by_hand = locator.from_corner_cells(clicks)
    cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
    assert by_markers is not None and by_hand is not None
    assert by_hand.moved_from(by_markers, scene.lens, cells) < 4.0
    assert locator.from_corner_cells(clicks[::-1]) is None, "clicked in the wrong order"


def test_an_empty_frame_finds_no_board():
    game = load_game("sternhalma")
    reader = BoardReader(game, Lens.guess((1280, 720)))
    blank = np.full((720, 1280, 3), 128, np.uint8)
    assert reader.feed(blank) is None and reader.status == "unlocated"
    assert cv2.imdecode(np.frombuffer(overlay_png(reader, blank), np.uint8), 1) is not None


def test_overlay_marks_cells_on_the_snapshot(learned):
    game, camera, reader, start = learned("catch_the_hare", 5)
    frame = camera.frame(start)
    png = overlay_png(reader, frame, _read(reader, frame))
    assert cv2.imdecode(np.frombuffer(png, np.uint8), 1).shape == frame.shape


def test_marker_sheet_prints_at_300_dpi():
    png = marker_sheet(load_game("sternhalma").board)
    at = png.index(b"pHYs")
    per_metre = struct.unpack(">I", png[at + 4 : at + 8])[0]
    assert round(per_metre * 0.0254) == 300
    assert cv2.imdecode(np.frombuffer(png, np.uint8), 0) is not None


BOARD = """
name = "tiny"
title = "Tiny"
cells = [{ id = "a1", xy = [0, 0], kind = "point" }, { id = "a2", xy = [0, 50], kind = "point" }]
"""


def test_board_files_may_place_markers():
    board = parse_board(BOARD + "markers = [{ id = 3, xy = [-40, 90], size = 25 }]\n", "tiny")
    assert board.markers[0].id == 3 and board.markers[0].size == 25.0


@pytest.mark.parametrize(
    "markers",
    [
        "markers = [{ id = -1, xy = [0, 0], size = 25 }]",
        "markers = [{ id = 1, xy = [0, 0], size = 0 }]",
        "markers = [{ id = 1, xy = [0], size = 20 }]",
        "markers = [{ id = 1, xy = [0, 0], size = 20 }, { id = 1, xy = [9, 9], size = 20 }]",
    ],
)
def test_bad_markers_are_refused_with_the_place(markers):
    with pytest.raises(BoardFileError, match="marker"):
        parse_board(BOARD + markers + "\n", "tiny")


@pytest.mark.slow
def test_a_hare_seen_from_above_is_read_after_learning_its_side_at_the_start(learned):
    # scene 5003 looks down at 77 degrees: the start's hare on c3 showed its side to
    # the side probe, a hare on the near row shows only its top there
    game, camera, reader, start = learned("catch_the_hare", 5003)
    assert start["c3"] == "hare"
    for cell in ("b5", "c5", "d5", "e5", "d4"):
        truth = dict(start, c3=None, **{cell: "hare"})
        seen = _read(reader, camera.frame(truth))
        assert seen is not None and seen.tokens == truth, cell


@pytest.mark.slow
def test_a_hare_seen_from_nearly_straight_above_is_read_on_every_near_point(learned):
    # scene 5027 looks down at 87 degrees: the side probe sees each hare's side
    # edge-on, a blend of side, top and board, and read the near rows' hares as empty
    # while it was expected to show the side
    game, camera, reader, start = learned("catch_the_hare", 5027)
    assert camera.scene.pitch > 86
    for cell in ("d3", "d4", "e4", "a5", "c5", "e5"):
        truth = dict(start, c3=None, **{cell: "hare"})
        seen = _read(reader, camera.frame(truth))
        assert seen is not None and seen.tokens == truth, cell


def test_a_misspelt_probe_arc_or_read_in_looks_toml_is_refused_in_words():
    with pytest.raises(ValueError, match="arc is one of ring, front, sides, outline"):
        looks._probe("sternhalma", {"z": 8.0, "r": 10.0, "arc": "frnt"})
    with pytest.raises(ValueError, match="read is one of median, darkest"):
        looks._probe("sternhalma", {"z": 8.0, "r": 10.0, "read": "darker"})
    assert looks._probe("sternhalma", {"z": 8, "r": 10}) == looks.Probe(8.0, 10.0)


def test_a_piece_with_odd_rules_in_looks_toml_is_refused_in_words():
    spec = {"colour": "black", "shape": "sphere", "radius": 6, "height": 12}
    for wrong in ({"odds": 0}, {"odds": "often"}, {"odds": 2.0}, {"stays": "yes"}):
        with pytest.raises(ValueError, match="odds a number above 0 and at most 1"):
            looks._piece("hakenschlagen", "molehill", dict(spec, **wrong))
    piece = looks._piece("hakenschlagen", "molehill", dict(spec, odds=0.11, stays=True))
    assert piece.odds == 0.11 and piece.stays and not piece.single
