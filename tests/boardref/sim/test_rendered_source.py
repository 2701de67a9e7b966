"""The synthetic camera of ``serve --sim`` draws in a process of its own: the frames
are the renderer's, byte for byte; a renderer that dies is a camera that failed (in
words, no exception); closing it ends the process."""

from __future__ import annotations

import numpy as np
import pytest

from boardref.sim.rendered_source import RenderedSource, rendered_camera
from engines import load_game

pytestmark = pytest.mark.process

SIZE = (640, 360)


def test_the_frames_are_the_renderers_and_the_process_ends_on_close():
    game = load_game("sternhalma", 2)
    shown = {"tokens": game.observe(game.initial_state()), "hands": ()}
    source = RenderedSource(game, 3, "easy", SIZE, lambda: (shown["tokens"], shown["hands"], {}))
    try:
        renderer, lens = rendered_camera(game, 3, "easy", SIZE)
        assert source.size == lens.size == SIZE
        first = source.read()
        assert np.array_equal(first, renderer.frame(shown["tokens"], (), {}))
        shown["hands"] = ("k5",)
        held = source.read()
        assert np.array_equal(held, renderer.frame(shown["tokens"], ("k5",), {}))
        assert not np.array_equal(first, held), "the hand shows"
        held[0, 0] = 0  # a frame of its own: the reader may draw on it
    finally:
        source.close()
    assert not source._process.is_alive()


def test_a_renderer_that_dies_is_a_failed_camera_not_an_exception():
    game = load_game("catch_the_hare")
    tokens = game.observe(game.initial_state())
    source = RenderedSource(game, 1, "easy", SIZE, lambda: (tokens, (), {}))
    try:
        assert source.read() is not None
        source._process.kill()
        source._process.join(10)
        assert source.read() is None
        assert source.failure == "the synthetic camera stopped"
    finally:
        source.close()
