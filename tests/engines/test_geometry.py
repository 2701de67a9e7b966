"""Board files: the shipped ones load and have the right shape; broken ones are
refused with the file and the problem named."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from engines import BoardFileError
from engines.geometry import load_board, load_board_file, parse_board

BOARD_FILES = sorted(p.stem for p in (Path(__file__).parents[2] / "engines/boards").glob("*.toml"))


@pytest.mark.parametrize("name", BOARD_FILES)
def test_every_shipped_board_file_loads(name):
    board = load_board(name)
    assert board.name == name
    assert all(board.neighbours[i] for i in range(len(board.cells))), "an unreachable cell"


def test_the_star_has_121_holes_in_six_points_of_ten_around_a_hexagon_of_61():
    star = load_board("sternhalma")
    assert len(star.cells) == 121
    assert Counter(c.kind for c in star.cells) == {"centre": 61, "point": 60}
    assert Counter(c.zone for c in star.cells if c.zone) == {
        zone: 10 for zone in ("north", "south", "northeast", "northwest", "southeast", "southwest")
    }
    centre = star.index["m9"]
    assert star.cells[centre].xy == (0.0, 0.0) and len(star.neighbours[centre]) == 6
    tip = star.index["m1"]
    assert len(star.neighbours[tip]) == 2


def test_neighbours_on_the_star_are_one_pitch_apart():
    star = load_board("sternhalma")
    for i, near in enumerate(star.neighbours):
        for j in near:
            assert math.dist(star.cells[i].xy, star.cells[j].xy) == pytest.approx(25, abs=0.02)


def test_a_text_picture_shows_every_cell():
    picture = load_board("sternhalma").render({})
    assert picture.count(".") == 121 and len(picture.splitlines()) == 17


GOOD = """
name = "tiny"
title = "Tiny"
cells = [
  { id = "a1", xy = [0, 0], kind = "point" },
  { id = "b1", xy = [10, 0], kind = "point" },
  { id = "c1", xy = [20, 0], kind = "point" },
]
lines = ["a1 b1 c1"]
"""


def test_a_good_file_gives_neighbours_and_jumps_along_its_lines():
    board = parse_board(GOOD, "tiny.toml")
    a1, b1, c1 = (board.index[c] for c in ("a1", "b1", "c1"))
    assert set(board.neighbours[b1]) == {a1, c1}
    assert board.jumps[a1] == ((b1, c1),) and board.jump_over[(c1, a1)] == b1


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda t: t.replace('name = "tiny"', ""), "'name' must be a non-empty string"),
        (lambda t: t + "colour = 1\n", "unknown key(s) ['colour']"),
        (lambda t: t.replace('"b1", xy', '"a1", xy'), "cell 'a1': id used twice"),
        (lambda t: t.replace("[10, 0]", "[10]"), "xy [10] must be two finite numbers"),
        (lambda t: t.replace('id = "c1"', 'id = "C 1"'), "must be lower-case"),
        (lambda t: t.replace('"a1 b1 c1"', '"a1 b1 z9"'), "unknown cell 'z9'"),
        (lambda t: t.replace('"a1 b1 c1"', '"a1 b1 a1"'), "a cell appears twice"),
        (lambda t: t.replace("[20, 0]", "[20, 5]"), "c1 is 5.0 mm off the straight"),
        (lambda t: t.replace('"a1 b1 c1"', '"a1"'), "needs at least two cells"),
        (lambda t: t.replace("lines = [", "lines = [[") + "]", "must be a string"),
        (lambda t: t.replace("cells = [", "cells = [ 3,"), "cell 1: must be a table"),
        (lambda t: t + "[[", "not valid TOML"),
    ],
)
def test_a_broken_file_names_itself_and_the_problem(change, problem):
    with pytest.raises(BoardFileError) as refused:
        parse_board(change(GOOD), "boards/tiny.toml")
    assert str(refused.value).startswith("boards/tiny.toml: ")
    assert problem in str(refused.value)


def test_missing_and_unreadable_board_files_are_reported(tmp_path):
    with pytest.raises(BoardFileError, match="no board file chess.toml"):
        load_board("chess")
    with pytest.raises(BoardFileError, match="not a board name"):
        load_board("../etc/passwd")
    with pytest.raises(BoardFileError, match="cannot read"):
        load_board_file(tmp_path / "missing.toml")
    own = tmp_path / "own.toml"
    own.write_text(GOOD)
    assert len(load_board_file(own).cells) == 3
