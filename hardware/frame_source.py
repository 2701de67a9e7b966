"""Where camera frames come from: a USB camera (OpenCV ``VideoCapture``), the Pi's
camera module (picamera2, imported only when that source is opened), a video file or
a folder of images replayed, and the synthetic renderer.

Every source is read the same way: ``read()`` gives a BGR frame or None, and when it
gives None ``failure`` says why in words (unplugged, end of the video...). A source
never raises while reading and never decides what a frame shows.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import cv2
import numpy as np

#: image files a folder source replays, in name order
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
#: frames in a row a device may fail to give before it counts as unplugged
DEVICE_MISSES = 5
#: frame buffers a source keeps to read into: the camera holds the last frame and the
#: last one read, one is being read, one to spare
KEPT_FRAMES = 4


class CameraError(RuntimeError):
    """A camera source cannot be opened; the message says which and why."""


class FrameSource:
    """One camera. ``read`` returns a BGR frame (height, width, 3) or None; after a
    None, ``failure`` says what went wrong. ``close`` lets the device go."""

    size: tuple[int, int]
    failure: str | None = None

    def read(self) -> np.ndarray | None:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to let go by default (a folder, the renderer)."""

    def _fail(self, why: str) -> None:
        self.failure = why

    def _free_frame(self, shape: tuple[int, ...]) -> np.ndarray:
        """An array of ``shape`` to read the next frame into: one of the source's own
        that nobody holds any more (nor a view of it), else a new one. A frame-sized
        array is new memory from the system each time, and faulting its pages in costs
        far more than filling them (at 1280x720 here 2.9 ms against 0.2 ms)."""
        kept: list[np.ndarray] = self.__dict__.setdefault("_kept_frames", [])
        for frame in kept:
            # referred to by the list, this loop and getrefcount's argument: by nobody else
            if frame.shape == shape and sys.getrefcount(frame) <= 3:
                return frame
        frame = np.empty(shape, np.uint8)
        if len(kept) < KEPT_FRAMES:
            kept.append(frame)
        return frame


class DeviceSource(FrameSource):
    """A USB camera by index (``0`` is /dev/video0) or a device path, via OpenCV."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = None):
        self.device = device
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            self.capture.release()
            raise CameraError(f"camera {device!r} cannot be opened: is it plugged in?")
        if size is not None:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.size = (
            int(self.capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self.capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        self._shape = (self.size[1], self.size[0], 3)
        self._misses = 0

    def read(self) -> np.ndarray | None:
        ok, frame = self.capture.read(self._free_frame(self._shape))
        if ok and frame is not None:
            self._misses = 0
            self.failure = None
            return frame
        self._misses += 1
        if self._misses >= DEVICE_MISSES:
            self._fail(f"camera {self.device!r} gives no frames: unplugged?")
        return None

    def close(self) -> None:
        self.capture.release()


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera module through picamera2 (on the Pi: ``apt install
    python3-picamera2`` and a venv made with ``--system-site-packages``)."""

    def __init__(self, size: tuple[int, int] = (1280, 720)):
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError(
                "the Pi camera needs picamera2, which is not installed here "
                f"({exc}); on the Pi: apt install python3-picamera2"
            ) from None
        try:
            self.camera = Picamera2()
            config = self.camera.create_video_configuration(
                main={"size": tuple(size), "format": "BGR888"}
            )
            self.camera.configure(config)
            self.camera.start()
        except Exception as exc:  # libcamera reports a missing module in many ways
            raise CameraError(f"the Pi camera cannot be started: {exc}") from None
        self.size = tuple(size)

    def read(self) -> np.ndarray | None:
        try:
            frame = self.camera.capture_array()
        except Exception as exc:  # a cable pulled mid-stream, a libcamera timeout
            self._fail(f"the Pi camera stopped: {exc}")
            return None
        self.failure = None
        # picamera2's "BGR888" is laid out R, G, B in memory: OpenCV wants B, G, R
        return np.ascontiguousarray(frame[..., 2::-1])

    def close(self) -> None:
        self.camera.close()


class VideoSource(FrameSource):
    """A recorded video file, played once (or looped)."""

    def __init__(self, path: Path | str, loop: bool = False):
        self.path = Path(path)
        if not self.path.is_file():
            raise CameraError(f"video {self.path} does not exist")
        self.capture = cv2.VideoCapture(str(self.path))
        if not self.capture.isOpened():
            self.capture.release()
            raise CameraError(f"video {self.path} cannot be decoded")
        self.loop = loop
        self.size = (
            int(self.capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self.capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        self._shape = (self.size[1], self.size[0], 3)

    def read(self) -> np.ndarray | None:
        ok, frame = self.capture.read(self._free_frame(self._shape))
        if not ok and self.loop:
            self.capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self.capture.read(self._free_frame(self._shape))
        if not ok:
            self._fail(f"video {self.path.name} has no more frames")
            return None
        return frame

    def close(self) -> None:
        self.capture.release()


class FolderSource(FrameSource):
    """The images of a folder, in name order, played once (or looped)."""

    def __init__(self, folder: Path | str, loop: bool = False):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"image folder {self.folder} does not exist")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"image folder {self.folder} holds no {'/'.join(IMAGE_SUFFIXES)}")
        self._next = itertools.cycle(self.files) if loop else iter(self.files)
        first = cv2.imread(str(self.files[0]))
        if first is None:
            raise CameraError(f"{self.files[0]} is not an image OpenCV can read")
        self.size = (first.shape[1], first.shape[0])

    def read(self) -> np.ndarray | None:
        path = next(self._next, None)
        if path is None:
            self._fail(f"image folder {self.folder.name} has no more images")
            return None
        frame = cv2.imread(str(path))
        if frame is None:
            self._fail(f"{path.name} is not an image OpenCV can read")
        return frame


class SyntheticSource(FrameSource):
    """Frames the renderer (``vision.render.Renderer``) draws of what ``shows()``
    returns: the tokens on the board, the cells with a hand over them and the disks
    under figures (``Renderer.frame``'s arguments). The camera of ``serve --sim``
    and ``simulate``. ``size``: the frames' size, when the renderer has no
    ``scene.lens`` to tell it."""

    def __init__(self, renderer, shows, size: tuple[int, int] | None = None):
        self.renderer = renderer
        self.shows = shows
        self.size = size or renderer.scene.lens.size

    def read(self) -> np.ndarray | None:
        tokens, hands, under = self.shows()
        return self.renderer.frame(tokens, tuple(hands), under)


def open_source(spec: str, size: tuple[int, int] | None = None) -> FrameSource:
    """A source from its name in the config or on the command line: ``picamera``,
    a device index (``0``) or path (``/dev/video0``), a video file or an image
    folder."""
    if spec == "picamera":
        return PiCameraSource(size or (1280, 720))
    if spec.isdigit():
        return DeviceSource(int(spec), size)
    path = Path(spec)
    if spec.startswith("/dev/"):
        return DeviceSource(spec, size)
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        return VideoSource(path)
    raise CameraError(
        f"camera {spec!r} is neither 'picamera', a device (0, /dev/video0), "
        "a video file nor an image folder"
    )
