"""Camera sources: a folder of rendered PNGs and a video written with OpenCV play back
the frames they hold, the synthetic source draws the position it is given, and a
missing device, picamera2 or file is refused with a message that says what to do. A
source reads into frames of its own that nobody holds any more."""

import weakref

import cv2
import numpy as np
import pytest

from engines import load_game
from hardware.frame_source import (
    CameraError,
    DeviceSource,
    FolderSource,
    PiCameraSource,
    SyntheticSource,
    VideoSource,
    open_source,
)
from vision.render import Renderer, random_scene

SIZE = (320, 180)


@pytest.fixture(scope="module")
def rendered():
    """A game, its renderer and three frames: the start, a move later, a hand over a cell."""
    game = load_game("catch_the_hare")
    renderer = Renderer(game, random_scene(game.board, seed=5, size=SIZE), seed=5)
    start = game.initial_state()
    after = game.apply(start, game.legal_moves(start)[0])
    frames = [
        renderer.frame(game.observe(start)),
        renderer.frame(game.observe(after)),
        renderer.frame(game.observe(after), ("c3",)),
    ]
    return game, renderer, start, frames


def test_folder_source_replays_rendered_pngs_in_name_order_then_says_it_ended(tmp_path, rendered):
    *_, frames = rendered
    for n, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"frame{n:03d}.png"), frame)
    (tmp_path / "notes.txt").write_text("not an image")
    source = FolderSource(tmp_path)
    assert source.size == SIZE
    for frame in frames:
        assert np.array_equal(source.read(), frame)  # PNG is lossless
    assert source.read() is None
    assert "no more images" in source.failure


def _video(folder, frames):
    """``frames`` written to an MJPG file in ``folder``, its path."""
    path = folder / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


def test_video_source_plays_a_file_written_by_videowriter(tmp_path, rendered):
    *_, frames = rendered
    path = _video(tmp_path, frames)
    source = VideoSource(path)
    assert source.size == SIZE
    for frame in frames:
        got = source.read()
        # MJPG is lossy: close to what was written, and unlike the other frames
        assert np.abs(got.astype(int) - frame).mean() < 4
    assert source.read() is None
    assert "no more frames" in source.failure
    source.close()
    looped = VideoSource(path, loop=True)
    assert all(looped.read() is not None for _ in range(2 * len(frames)))
    looped.close()


def test_a_source_reads_into_its_own_frames_but_never_over_one_still_held(tmp_path, rendered):
    *_, frames = rendered
    source = VideoSource(_video(tmp_path, frames), loop=True)
    first = source.read()
    as_read = first.copy()
    second = source.read()
    part = second[10:20]  # a view holds its frame as much as the frame itself
    third = source.read()
    assert not np.shares_memory(third, first) and not np.shares_memory(third, part)
    assert np.array_equal(first, as_read)
    used = [weakref.ref(frame) for frame in (first, second, third)]
    del first, second, part, third
    again = source.read()
    assert any(frame() is again for frame in used)  # no new memory once they are let go
    source.close()


def test_synthetic_source_draws_the_position_and_the_hands_it_is_given(rendered):
    game, renderer, start, frames = rendered
    hands: list[str] = []
    source = SyntheticSource(renderer, lambda: (game.observe(start), hands, {}))
    clear = source.read()
    assert clear.shape == (SIZE[1], SIZE[0], 3)
    assert np.abs(clear.astype(int) - frames[0]).mean() < 4  # same board, new sensor noise
    changed = lambda a, b: int((np.abs(a.astype(int) - b).max(axis=2) > 40).sum())  # noqa: E731
    noise = changed(source.read(), clear)
    hands.append("c3")
    assert changed(source.read(), clear) > 20 * max(noise, 50)  # an arm's worth of pixels


def test_an_unplugged_camera_is_refused_in_words():
    with pytest.raises(CameraError, match="cannot be opened: is it plugged in"):
        DeviceSource(63)
    with pytest.raises(CameraError, match="plugged in"):
        open_source("/dev/video63")


def test_picamera_without_picamera2_says_how_to_install_it():
    with pytest.raises(CameraError, match="picamera2.*apt install python3-picamera2"):
        PiCameraSource()
    with pytest.raises(CameraError, match="picamera2"):
        open_source("picamera")


def test_missing_files_and_unknown_names_are_refused_in_words(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        VideoSource(tmp_path / "missing.avi")
    with pytest.raises(CameraError, match="holds no"):
        FolderSource(tmp_path)
    (tmp_path / "broken.avi").write_bytes(b"not a video")
    with pytest.raises(CameraError, match="cannot be decoded"):
        VideoSource(tmp_path / "broken.avi")
    with pytest.raises(CameraError, match="neither 'picamera'"):
        open_source("no-such-camera")
