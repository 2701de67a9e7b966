"""The renderer draws and lights a still board once: each further frame of it only
gets sensor noise of its own, and is the very frame a fresh draw would give; a hand
is drawn onto it and lit anew where it changed the frame; another position or a
knocked camera is drawn anew."""

from __future__ import annotations

import numpy as np
import pytest

from engines import load_game
from vision.mishaps import bumped
from vision.render import HELD_OUT, Renderer, random_scene


def _frames(renderer: Renderer, shots) -> list[np.ndarray]:
    found = []
    for shot in shots:
        if shot == "bump":
            renderer.move_camera(bumped(renderer.scene, 2.0, np.random.default_rng(3)))
            continue
        tokens, hands = shot
        found.append(renderer.frame(tokens, hands))
    return found


@pytest.mark.slow
def test_a_still_board_is_drawn_once_and_framed_as_if_drawn_anew():
    game = load_game("sternhalma")
    start = game.observe(game.initial_state())
    moved = game.observe(
        game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    )
    cell = game.board.cells[0].id
    shots = [(start, ()), (start, ()), (start, (cell,)), (start, ()), (moved, ()), (moved, ())]
    shots += ["bump", (moved, ()), (moved, ())]
    scene = random_scene(game.board, HELD_OUT, "hard")

    kept = Renderer(game, scene, 5)
    drawn = []
    develop = kept._develop
    kept._develop = lambda *args: drawn.append(1) or develop(*args)
    with_memory = _frames(kept, shots)

    fresh = Renderer(game, scene, 5)
    fresh_frames = []
    for shot in shots:
        fresh._kept = None  # nothing remembered: every frame drawn anew
        fresh_frames += _frames(fresh, [shot])

    assert len(drawn) == 4  # start, round the hand, moved, moved after the bump
    for a, b in zip(with_memory, fresh_frames, strict=True):
        assert np.array_equal(a, b)
    assert not np.array_equal(with_memory[0], with_memory[1])  # noise of its own


@pytest.mark.parametrize(
    ("name", "difficulty"), [("hakenschlagen", "hard"), ("sternhalma", "easy")]
)
def test_a_hand_lit_only_where_it_changed_the_frame_is_the_hand_lit_whole(name, difficulty):
    game = load_game(name)
    start = game.observe(game.initial_state())
    scene = random_scene(game.board, HELD_OUT + 4, difficulty)
    hands = (game.board.cells[len(game.board.cells) // 2].id, game.board.cells[0].id)
    lit = Renderer(game, scene, 6)
    lit._finish = lambda frame, blue: (frame, blue)  # the frame as lit, before the sensor
    frame, blue = lit.frame(start, hands)
    whole = Renderer(game, scene, 6)
    image, shade = whole._draw(start, {}, {})
    for cell in hands:
        whole._hand(image, shade, cell)
    developed = whole._develop(image, shade)
    assert np.array_equal(frame, np.clip(developed, 0, 255).astype(np.uint8))
    assert np.array_equal(blue, developed[..., 0])


@pytest.mark.slow
def test_the_scenes_of_one_board_share_its_print_and_glued_markers_get_their_own():
    from vision import looks
    from vision.mishaps import misplaced_markers
    from vision.printing import print_board

    game = load_game("catch_the_hare")
    first = Renderer(game, random_scene(game.board, HELD_OUT, "easy"), 1)
    second = Renderer(game, random_scene(game.board, HELD_OUT + 1, "easy"), 2)
    assert second._texture is first._texture
    assert np.array_equal(first._texture, print_board(game.board, looks.look_for(game), None)[0])
    glued = misplaced_markers(game.board, np.random.default_rng(4), 2.0, 2.0)
    apart = Renderer(game, random_scene(game.board, HELD_OUT + 2, "easy"), 3, glued)
    assert apart._texture is not first._texture
    assert not np.array_equal(apart._texture, first._texture)
    assert np.array_equal(apart._texture, print_board(game.board, looks.look_for(game), glued)[0])
    assert np.array_equal(first._texture, print_board(game.board, looks.look_for(game), None)[0])
