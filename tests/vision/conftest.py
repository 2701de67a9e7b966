"""A camera and a reader that learned its board, shared by the tests of a module
that read the same scene: set up once, each test given a copy of its own; and the
print of every board the tests render, made once for them all."""

from __future__ import annotations

import copy

import pytest

from engines import load_game
from vision import printing
from vision.boards.reader import BoardReader
from vision.render import Renderer, random_scene

#: scenes kept at a time (a renderer holds some 25 MB of lit board)
KEPT = 4
#: boards whose print is kept while the vision tests run: all they render (a print
#: takes up to 48 MB and a fifth of a second to make; the tests switch boards)
PRINTS = 8


@pytest.fixture(scope="package", autouse=True)
def prints_kept():
    """Each board printed once for the vision tests, as the table prints its one board."""
    kept = printing.keep_prints(PRINTS)
    yield
    printing.keep_prints(kept)


def _learned(name: str, seed: int, difficulty: str, options: dict):
    """Scene ``seed`` of ``name``'s board (the game with ``options``) and a reader that
    learned the bare board and the start position in it."""
    game = load_game(name, **options)
    scene = random_scene(game.board, seed, difficulty)
    camera = Renderer(game, scene, seed)
    reader = BoardReader(game, scene.lens)
    start = game.observe(game.initial_state())
    bare = dict.fromkeys(start)
    assert reader.learn(camera.frame(bare), bare)
    assert reader.learn(camera.frame(start), start)
    return game, camera, reader, start


def _copy(game, camera, reader, start):
    """The same set-up, free to go its own way: the frames and readings to come are
    the ones the original would give (its random draws are copied, the lit board and
    the game shared, as neither changes)."""
    camera = copy.copy(camera)
    camera.rng, camera._noise_seeds = copy.deepcopy((camera.rng, camera._noise_seeds))
    detector = reader.locator.detector  # OpenCV's detector cannot be copied; it keeps no state
    reader = copy.deepcopy(reader, {id(game): game, id(detector): detector})
    return game, camera, reader, dict(start)


@pytest.fixture(scope="module")
def learned():
    """``learned(name, seed, difficulty="easy", **options)``: (game, camera, reader,
    start observation) with the bare board and the start learned, as if set up anew;
    ``options`` are the game's (``players=6``)."""
    kept: dict[tuple, tuple] = {}

    def set_up(name: str, seed: int, difficulty: str = "easy", **options):
        key = (name, seed, difficulty, tuple(sorted(options.items())))
        if key not in kept:
            if len(kept) >= KEPT:
                kept.pop(next(iter(kept)))
            kept[key] = _learned(name, seed, difficulty, options)
        return _copy(*kept[key])

    return set_up
