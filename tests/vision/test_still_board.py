"""A still board is read once, not on every frame: the frames after it that show the
board unchanged get that reading, and whatever changes it is read again (a move, a
change too slow for the motion check, or nothing seen for ``READ_EVERY_S``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.boards import reader as reader_module
from vision.stillness import STILL_FRAMES

#: still frames fed in a spell nobody touches the board
SPELL = 8


def _move(game, text: str) -> dict:
    state = game.initial_state()
    return game.observe(game.apply(state, game.parse_move(state, text)))


def _reads(reader) -> int:
    """Frames the reader has sampled and classified so far."""
    return reader.timed["classify"]


@pytest.fixture
def no_heartbeat(monkeypatch):
    """A still board is never read again for the time's sake alone: what a test sees
    is the checks' doing, however slowly the machine runs it."""
    monkeypatch.setattr(reader_module, "READ_EVERY_S", float("inf"))


def test_a_still_board_is_read_once_and_its_reading_handed_on(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    # the first frame has none before it to compare with: it counts as moving
    seen = [reader.feed(camera.frame(start)) for _ in range(1 + STILL_FRAMES + SPELL)]
    assert all(s is None for s in seen[:STILL_FRAMES])
    assert all(s is not None and s.tokens == start for s in seen[STILL_FRAMES:])
    assert _reads(reader) == 1 and reader.quiet


def test_a_move_after_a_long_still_spell_is_read_and_the_hand_is_not(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(STILL_FRAMES + SPELL):
        reader.feed(camera.frame(start))
    hand = camera.frame(start, hands=("m1",))
    assert all(reader.feed(hand) is None for _ in range(STILL_FRAMES + 3))
    moved = _move(game, "l4-k5")
    seen = [reader.feed(camera.frame(moved)) for _ in range(STILL_FRAMES + 1)]
    assert seen[-1] is not None and seen[-1].tokens == moved and not reader.quiet


def test_a_change_too_slow_for_the_motion_check_is_read(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(STILL_FRAMES + SPELL):
        reader.feed(camera.frame(start))
    read_before = _reads(reader)
    moved = _move(game, "l4-k5")
    old, new = camera.frame(start), camera.frame(moved)
    steps = 12
    for step in range(1, steps + 1):
        reader.feed(cv2.addWeighted(old, 1 - step / steps, new, step / steps, 0))
        # each frame is a little nearer the new board: never motion, never a hand
        assert reader.status == "still"
    seen = [reader.feed(camera.frame(moved)) for _ in range(STILL_FRAMES)]
    assert _reads(reader) > read_before
    assert seen[-1] is not None and seen[-1].tokens == moved


def test_a_still_board_is_read_again_at_the_heartbeat(learned, monkeypatch):
    monkeypatch.setattr(reader_module, "READ_EVERY_S", 0.0)
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(1 + STILL_FRAMES + 4):
        reader.feed(camera.frame(start))
    # the first still frame and each of the four after it
    assert _reads(reader) == 5 and not reader.quiet


def test_a_board_learned_again_is_read_with_what_it_learned(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(STILL_FRAMES + 2):
        reader.feed(camera.frame(start))
    reads = _reads(reader)
    reader.learn(camera.frame(start), start, fresh=True)
    assert reader.feed(camera.frame(start)).tokens == start
    assert _reads(reader) == reads + 1


def test_a_board_read_as_the_position_committed_is_not_read_again(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(STILL_FRAMES + 2):
        reader.feed(camera.frame(start))
    moved = _move(game, "l4-k5")
    for _ in range(STILL_FRAMES + 2):
        reader.feed(camera.frame(moved))
    reads = _reads(reader)
    reader.confirm(moved)  # the referee committed what the board was read as
    assert reader.feed(camera.frame(moved)).tokens == moved and reader.quiet
    assert _reads(reader) == reads


def test_a_board_read_otherwise_than_the_position_committed_is_read_again(learned, no_heartbeat):
    game, camera, reader, start = learned("sternhalma", 11)
    for _ in range(STILL_FRAMES + 2):
        reader.feed(camera.frame(start))
    reads = _reads(reader)
    moved = _move(game, "l4-k5")
    reader.confirm(moved)  # the hall sensors' verdict, the frame not yet showing it
    reader.feed(camera.frame(start))
    assert _reads(reader) == reads + 1 and not reader.quiet


def _lit(frame: np.ndarray, more: float) -> np.ndarray:
    """``frame`` with the window's side of the table ``more`` lighter (0.04: 4 %)."""
    lit = frame.astype(np.float32)
    lit[:, frame.shape[1] // 2 :] *= 1 + more
    return np.clip(lit, 0, 255).astype(np.uint8)


def test_light_drifting_over_an_evening_of_moves_is_never_taken_for_a_hand(learned, no_heartbeat):
    # the window's side of the table grows lighter move by move: the view of each
    # position the referee commits is the one the next frames are compared with, so
    # the drift is never taken for something over the board
    game, camera, reader, start = learned("sternhalma", 11)
    state = game.initial_state()
    for step in range(1, 9):
        state = game.apply(state, game.legal_moves(state)[0])
        shown = game.observe(state)
        frame = _lit(camera.frame(shown), 0.04 * step)
        seen = [reader.feed(frame) for _ in range(STILL_FRAMES + 1)]
        assert reader.status == "still", step
        assert seen[-1] is not None and seen[-1].tokens == shown
        reader.confirm(shown)


def test_a_view_read_but_not_committed_is_not_what_later_frames_are_compared_with(
    learned, no_heartbeat
):
    # something the checks let pass, read but never committed (an arm creeping in
    # more slowly than the motion check sees), does not become the board's look:
    # as it grows it is seen over the board
    game, camera, reader, start = learned("sternhalma", 11)
    frame = camera.frame(start)
    statuses = []
    for step in range(1, 9):
        for _ in range(STILL_FRAMES + 1):
            reader.feed(_lit(frame, 0.04 * step))
        statuses.append(reader.status)
    assert statuses[0] == "still" and "blocked" in statuses
