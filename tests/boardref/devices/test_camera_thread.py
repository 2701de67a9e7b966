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
