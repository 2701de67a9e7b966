"""The synthetic camera of ``serve --sim``, drawn in a process of its own.

A table's real camera hands the service finished frames; its image pipeline is not
the service's memory or CPU. The renderer that stands in for it on the simulated
table needs a board texture of tens of megabytes and OpenCV's buffers, and draws on
the CPU; run inside the service it would count in the service's memory and hold the
event loop's interpreter while it draws. So it runs in a child process: the service
sends what the camera should see (``Renderer.frame``'s arguments), the child draws
the frame into memory both share and says so (a frame is copied once, not sent
through a pipe). ``boardref simulate`` keeps the renderer in its own process, where
nothing else runs.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from multiprocessing.sharedctypes import RawArray

import numpy as np

from hardware.frame_source import CameraError, FrameSource
from vision.coasters import GAME as COASTER_GAME

#: seconds the renderer may take to start (imports, the board texture) and per frame
START_WAIT = 120.0
FRAME_WAIT = 30.0


def rendered_camera(game, seed: int, difficulty: str, size: tuple[int, int]):
    """The synthetic camera of ``serve --sim`` (in the renderer process) and
    ``simulate``: a renderer of ``game``'s table at a random scene for ``seed``, and
    the lens it sees through."""
    from vision.render import Renderer, random_scene

    if game.name == COASTER_GAME:
        from vision.coasters.mat import mat_board
        from vision.coasters.render import CoasterRenderer

        scene = random_scene(mat_board(game), seed, difficulty, size)
        return CoasterRenderer(game, scene, seed), scene.lens
    scene = random_scene(game.board, seed, difficulty, size)
    return Renderer(game, scene, seed), scene.lens


class RenderedSource(FrameSource):
    """Frames of ``game``'s table drawn by a renderer process for what ``shows()``
    returns: ``(tokens, cells with a hand over them, disks under figures)``.
    ``lens`` is the camera the renderer looks through."""

    def __init__(self, game, seed: int, difficulty: str, size, shows: Callable):
        self.shows = shows
        context = multiprocessing.get_context("spawn")  # no fork of a threaded service
        self._line, child = context.Pipe()
        spec = (game.name, game.players, dict(game.options))
        width, height = size
        #: where the renderer draws each frame
        self._shared = RawArray("B", width * height * 3)
        self._process = context.Process(
            target=_draw,
            args=(child, spec, seed, difficulty, tuple(size), self._shared),
            name="boardref-rendered-camera",
            daemon=True,
        )
        self._process.start()
        child.close()
        started = self._answer(START_WAIT)
        if started is None or isinstance(started, str):
            self.close()
            raise CameraError(f"the synthetic camera did not start: {started or 'no answer'}")
        self.lens, self._shape = started
        self.size = self.lens.size

    def read(self) -> np.ndarray | None:
        tokens, hands, under = self.shows()
        try:
            self._line.send((tokens, tuple(hands), under))
            if not self._line.poll(FRAME_WAIT):
                self._fail("the synthetic camera drew no frame")
                return None
            self._line.recv_bytes()
        except (EOFError, OSError, ValueError):
            self._fail("the synthetic camera stopped")
            return None
        # a frame of its own, writable: the renderer draws the next one over this memory
        frame = self._free_frame(self._shape)
        np.copyto(frame, np.frombuffer(self._shared, np.uint8).reshape(self._shape))
        return frame

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the renderer has gone already
            self._line.send(None)
        self._process.join(5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self._line.close()

    def _answer(self, wait: float):
        try:
            return self._line.recv() if self._line.poll(wait) else None
        except (EOFError, OSError):
            return None


def _draw(line, spec, seed: int, difficulty: str, size, shared) -> None:
    """The renderer process: the lens and frame shape first (or why it cannot start),
    then a frame drawn into ``shared`` for each view sent, until None or the line
    closes."""
    try:
        from engines import load_game

        name, players, options = spec
        game = load_game(name, players, **options)
        renderer, lens = rendered_camera(game, seed, difficulty, size)
        width, height = lens.size
        if (width, height) != tuple(size):
            raise ValueError(f"the scene is {width}x{height}, not the {size[0]}x{size[1]} asked")
        line.send((lens, (height, width, 3)))
        drawn = np.frombuffer(shared, np.uint8).reshape(height, width, 3)
    except Exception as exc:  # said to the service, which refuses the camera in words
        line.send(f"{type(exc).__name__}: {exc}")
        return
    while True:
        try:
            view = line.recv()
        except (EOFError, OSError):
            return
        if view is None:
            return
        drawn[...] = renderer.frame(*view)
        line.send_bytes(b"")
