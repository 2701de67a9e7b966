"""The camera's work off the service's event loop: frames taken and read on a thread of
its own, the committed positions learned there too, and the work counted (frames,
full reads, CPU) for the diagnostics."""

from __future__ import annotations

import threading

from boardref.devices.camera import reading_thread
from tests.boardref.devices.test_camera import _watched_camera, scene  # noqa: F401
from vision.boards import reader as reader_module


def _learned(store, scene):  # noqa: F811
    """A Sternhalma table's camera that has learned the start, and what it shows."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown)
    shown["tokens"] = t.tokens()
    assert camera.learn(t.tokens())
    return t, camera, frames, shown


def test_a_committed_position_is_learned_on_the_reading_thread_before_its_next_frame(
    store,
    scene,  # noqa: F811
):
    t, camera, frames, shown = _learned(store, scene)
    frames(8)
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    shown["tokens"] = after = t.tokens(t.game.apply(base, move))
    learned_on: list[str] = []
    confirm = camera.reader.confirm

    def confirmed(truth) -> None:
        learned_on.append(threading.current_thread().name)
        confirm(truth)

    camera.reader.confirm = confirmed
    for _ in range(20):  # the verdict, on the "loop" (this thread), once the move is read
        t.now += 0.1
        with reading_thread() as reads:
            frame, reading = reads.submit(camera.take_and_read).result()
        camera.hand_over(frame, reading, t.now)
        t.referee.tick(t.now)
        if t.moves():
            break
    assert t.moves() == [str(move)]
    assert learned_on == [] and camera.reader.truth == t.tokens(base), "not on the loop"
    with reading_thread() as reads:
        reads.submit(camera.take_and_read).result()
    assert camera.reader.truth == after
    assert len(learned_on) == 1 and learned_on[0].startswith("camera")


def test_the_camera_counts_its_frames_and_reads_a_still_board_once(
    store,
    scene,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setattr(reader_module, "READ_EVERY_S", float("inf"))  # however slow
    t, camera, frames, _ = _learned(store, scene)
    frames(12)
    work = camera.work.figures()
    assert work["frames"] == 12
    # the first frame has none before it; still from the next, read once it has settled
    assert work["full_reads"] == 1
    assert work["reader_cpu_ms"] > 0 and work["source_cpu_ms"] > 0


def test_a_committed_position_is_not_learned_from_a_newer_frame_read_as_another(
    store,
    scene,  # noqa: F811
):
    """The referee commits a move from one reading; before the camera's thread learns
    it, that thread has read a newer frame (the next player already moved a marble):
    that frame does not show the committed position and teaches nothing."""
    t, camera, frames, shown = _learned(store, scene)
    frames(8)
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    after = t.game.apply(base, move)
    shown["tokens"] = t.tokens(after)
    for _ in range(20):
        t.now += 0.1
        frame, reading = camera.take_and_read()
        camera.hand_over(frame, reading, t.now)
        t.referee.tick(t.now)
        if t.moves():
            break
    assert t.moves() == [str(move)] and camera.reader.truth == t.tokens(base)
    # the next move on the board, read by the reader before the lesson comes round
    later = t.game.apply(after, t.game.legal_moves(after)[0])
    shown["tokens"] = t.tokens(later)
    read = None
    for _ in range(20):
        read = camera.reader.feed(camera.source.read())
        if read is not None and read.tokens == t.tokens(later):
            break
    assert read is not None and read.tokens == t.tokens(later)
    learned: list = []
    camera.reader.confirm = learned.append
    camera.read(camera.source.read())
    assert learned == [], "a frame of another position was taught as the committed one"
