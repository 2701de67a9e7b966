"""One table's camera at work: frames from a source (``hardware.camera_source``)
through the board reader (``vision.reader``) into the referee, and the referee's
committed positions back to the reader so it keeps learning. The service and
``boardref simulate`` both drive a ``TableCamera``.

It passes things on and remembers the last frame for the referee page's snapshot; it
never decides what a reading means, and a failing source only stops the camera.
"""

from __future__ import annotations

from boardref.referee import Event, Referee
from hardware.camera_source import FrameSource
from vision.reader import BoardReader


class TableCamera:
    """A referee's camera: a frame source and the reader of this game's board."""

    def __init__(self, referee: Referee, source: FrameSource, reader: BoardReader):
        self.referee = referee
        self.source = source
        self.reader = reader
        self.frame = None
        self.observation = None
        #: why the source gives no frames, in words; None while it works
        self.failure: str | None = None
        self._confirmed: dict | None = None
        referee.listeners.append(self._on_event)

    def learn(self, truth: dict[str, str | None]) -> bool:
        """Learn the look of the board from the next frame, known to show ``truth``
        (a ``game.observe`` dict); False if there is no frame or no board in it."""
        frame = self._keep(self.source.read())
        return frame is not None and self.reader.learn(frame, truth)

    def step(self, at: float) -> bool:
        """Read a frame taken at ``at`` and hand the referee what it shows."""
        return self.take(self.source.read(), at)

    def take(self, frame, at: float) -> bool:
        """Hand the referee what ``frame`` (taken at ``at``) shows, if the view is still
        and clear; False when the source gave no frame (``failure`` says why). The
        service reads frames off its loop and hands them over here, on the loop."""
        frame = self._keep(frame)
        if frame is None:
            return False
        if self.reader.truth is None and self.referee.game is not None:
            # nothing learned yet: the players laid out the game's position before
            # the camera started (the panel says what to lay out)
            self.reader.learn(frame, self.referee.game.observe(self.referee.current()))
            return True
        observation = self.reader.feed(frame)
        if observation is not None:
            self.observation = observation
            self.referee.observe(observation, at)
        return True

    def snapshot(self) -> bytes | None:
        """The last frame with the cell overlay as a PNG, None before the first frame."""
        if self.frame is None:
            return None
        from vision.drawings import overlay_png  # drawing is needed only when asked

        return overlay_png(self.reader, self.frame, self.observation)

    def close(self) -> None:
        if self._on_event in self.referee.listeners:
            self.referee.listeners.remove(self._on_event)
        self.source.close()

    def _keep(self, frame):
        if frame is None:
            self.failure = self.source.failure or "the camera gave no frame"
            return None
        self.failure = None
        self.frame = frame
        return frame

    def _on_event(self, event: Event) -> None:
        """After a verdict, when the board as read is the position the referee holds,
        the last frame read shows that position: the reader learns from it."""
        referee = self.referee
        if event.kind != "display" or referee.game is None or referee.read_as is None:
            return
        truth = referee.game.observe(referee.current())
        if referee.read_as == truth and truth != self._confirmed:
            self.reader.confirm(truth)
            self._confirmed = truth
