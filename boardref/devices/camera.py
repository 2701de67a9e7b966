"""One table's camera at work: frames from a source (``hardware.frame_source``)
through the game's reader into the referee, and the positions the referee publishes
back to the reader so it keeps learning. A board game's reader is
``vision.boards.reader.BoardReader``; Hägar's coasters on their mat are read by
``vision.coasters.sensor.CoasterSensor`` (``reader_for`` picks). The service and
``boardref simulate`` both drive a ``TableCamera``.

It passes things on and remembers the last frame for the referee page's snapshot; it
never decides what a reading means, and a failing source only stops the camera. What
it knows of the game is the referee's published snapshot; all it may ask of the
referee is ``Judge``: take an observation, hold verdicts while the view is unsure. The
service reads each frame on the camera's own thread (``reading_thread``; ``read``:
sampling and classifying take tens of milliseconds) and hands the result over on its
loop (``hand_over``); a position the referee commits is learned on that thread too,
before the next frame is read. A lock keeps the reader's learning from crossing a
read.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections import deque
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from boardref.referee.events import Event, Heard, Listener
from boardref.referee.fusion import surely_otherwise
from boardref.referee.kinds import EventKind, Sensor
from boardref.referee.snapshot import TableState
from boardref.referee.verdicts import Reading as BoardReading
from boardref.referee.verdicts import RefereeError
from engines.words import Words, words
from hardware.frame_source import FrameSource
from vision.boards.reader import BoardReader
from vision.coasters import GAME as COASTER_GAME
from vision.observation import Observation

log = logging.getLogger("boardref")

#: frames a second while the board stays as it was last read: a hand reaching in is
#: seen within a second, and the frames of the move after it come at the full rate
QUIET_FPS = 1.0

#: what the panel says while a knocked camera waits for a still board
KEEP_STILL = words(
    "camera.keep_still",
    "The camera was knocked: keep your hands off the board until it has read the board again",
)


class Judge(Protocol):
    """What the camera may ask of the referee it watches the board for."""

    #: who hears the referee's events; the camera listens while it is open
    listeners: list[Listener]
    #: the last snapshot published (the camera learns the position it shows)
    published: TableState
    #: the board as the last verdict read it
    read_as: BoardReading | None

    def see(self, observation: Observation, at: float) -> None: ...

    def wait_for_still(self, why: Words | None) -> None: ...


@dataclass(frozen=True)
class Reading:
    """What the reader made of one frame (``TableCamera.read``)."""

    #: still and clear: what it shows; None while it moves, is blocked or is unlearned
    observation: Observation | None = None
    #: the camera or board was knocked: nothing is read until it has been still a while
    knocked: bool = False
    #: nothing learned yet: the frame was only looked at for a first still view
    learning: bool = False
    #: still, and showing the board as the last frame read did: it was not read again,
    #: and frames may come more slowly (``QUIET_FPS``) until something moves
    quiet: bool = False


@dataclass
class CameraWork:
    """What the camera has done since it opened: frames taken, frames read in full
    (sampled and classified: the board changed, or the slow heartbeat), and the CPU
    of the thread that took them (seconds) in the source and in the reader."""

    frames: int = 0
    full_reads: int = 0
    source_cpu_s: float = 0.0
    reader_cpu_s: float = 0.0

    def figures(self) -> dict[str, float]:
        return {
            "frames": self.frames,
            "full_reads": self.full_reads,
            "source_cpu_ms": round(self.source_cpu_s * 1000, 1),
            "reader_cpu_ms": round(self.reader_cpu_s * 1000, 1),
        }


def reading_thread() -> futures.ThreadPoolExecutor:
    """The camera's own thread, where the service takes and reads frames one at a
    time and the reader learns the positions committed: never the event loop, and
    never waiting behind the worker threads' other work (a big turn's indexing)."""
    return futures.ThreadPoolExecutor(1, "camera")


def reader_for(game, lens):
    """The reader of ``game``'s table through a camera with ``lens``: the coaster
    sensor for Hägar, the board reader for the board games."""
    if game.name == COASTER_GAME:
        from vision.coasters.sensor import CoasterSensor

        return CoasterSensor(game, lens)
    return BoardReader(game, lens)


def camera_source(settings, game, sim_view=None):
    """The frame source the ``[camera]`` settings name and its lens: a calibration
    file, else a guess. The rendered camera (``synthetic``) knows its own lens and
    draws what ``sim_view()`` returns (``--sim`` only). Raises ``CameraError``."""
    from hardware.frame_source import CameraError, open_source

    if settings.source == "synthetic":
        if sim_view is None:
            raise CameraError("the synthetic camera is for --sim only")
        from boardref.sim.rendered_source import RenderedSource

        source = RenderedSource(game, 1, "easy", settings.size, sim_view)
        return source, source.lens
    from vision.lens import CalibrationError, Lens, default_path

    source = open_source(settings.source, settings.size)
    path = settings.calibration or default_path()
    try:
        lens = Lens.load(path) if path.exists() else Lens.guess(source.size)
    except CalibrationError as exc:
        source.close()
        raise CameraError(f"lens calibration {path}: {exc}") from None
    return source, lens


def open_camera(settings, game, sim_view=None):
    """The frame source and the reader of ``game``'s board for the ``[camera]``
    settings (slow: a device to open, a renderer to start; the service calls it in a
    worker thread); None, said in the log, if either cannot be had."""
    import cv2

    from hardware.frame_source import CameraError

    # a frame is read on one core, as its budget is measured: more threads would take
    # the kiosk browser's cores and, under a CPU quota, stall the service all at once
    cv2.setNumThreads(1)
    try:
        source, lens = camera_source(settings, game, sim_view)
    except CameraError as exc:
        log.error("camera: %s; refereeing without it", exc)
        return None
    try:
        return source, reader_for(game, lens.scaled_to(source.size))
    except (KeyError, ValueError) as exc:  # a board the camera cannot read yet
        source.close()
        log.error("camera: cannot read %s: %s; refereeing without it", game.name, exc)
        return None


#: the most cells a position the referee sets may differ in from what the camera read
#: for the camera to take it as its own misread and learn it (``_learn_named``): more
#: is a board still to be put right
MISREAD_CELLS = 2

class TableCamera:
    """A referee's camera: a frame source and the reader of this game's board."""

    def __init__(
        self,
        referee: Judge,
        source: FrameSource,
        reader: BoardReader,
        corners_file: Path | None = None,
    ):
        """``corners_file`` keeps the corner cells clicked by hand per board and frame
        size, so a board without markers is located again after a restart."""
        self.referee = referee
        self.source = source
        self.reader = reader
        self.corners_file = corners_file
        #: held while the reader reads a frame or learns: one at a time
        self.lock = threading.RLock()
        #: a position the referee committed as the camera read it, learned on the
        #: reading thread before its next frame (the loop never waits for a lesson)
        self._unconfirmed: deque[dict] = deque(maxlen=1)
        saved = self._saved_corners().get(self._corners_key())
        if saved is not None:
            try:
                located = reader.set_corners(saved)
            except (ValueError, TypeError):  # not four points
                located = False
            if not located:
                log.warning("camera: the corners saved in %s give no board", corners_file)
        self.frame = None
        self.observation = None
        #: why the source gives no frames, in words; None while it works
        self.failure: str | None = None
        self._confirmed: dict | None = None
        #: the frame the last observation was read from (still and clear)
        self._still = None
        #: the players chose a move it saw otherwise: it learns again from the next
        #: snapshot (``_relearn``)
        self._relearn_due = False
        #: the referee corrected the board ("move": named the move made; "position":
        #: set the position): what it now holds, and what the camera read then, learned
        #: from the next still view if that still reads so (``_learn_named``)
        self._corrected: str | None = None
        self._named: deque[tuple[dict, dict]] = deque(maxlen=1)
        #: frames taken and read, and their CPU (``take_and_read``)
        self.work = CameraWork()
        referee.listeners.append(self._on_event)

    def corner_cells(self) -> list[str]:
        """The cells the referee clicks, in order, when the markers cannot be seen."""
        from vision.looks import corner_cells

        return [cell.id for cell in corner_cells(self._board())]

    def set_corners(self, points) -> None:
        """The referee clicked the corner cells (``corner_cells``) on the last frame:
        take the board's pose from them and learn the look of the position the
        referee holds from that frame."""
        frame = self._last_frame()
        with self.lock:
            located = self.reader.set_corners(points)
        if not located:
            raise RefereeError(
                words(
                    "camera.corners_unusable",
                    "Those four points give no view of the board from above: click the "
                    "centres of {cells}, in that order",
                    cells=self.corner_cells(),
                )
            )
        self._learn_shown(frame)
        if self.corners_file is not None:
            saved = self._saved_corners()
            saved[self._corners_key()] = [[float(x), float(y)] for x, y in points]
            self.corners_file.parent.mkdir(parents=True, exist_ok=True)
            partial = self.corners_file.with_suffix(".partial")
            partial.write_text(json.dumps(saved, indent=1))
            partial.replace(self.corners_file)

    def learn_now(self) -> Words | None:
        """The referee says the last frame shows the position the referee holds (the
        start laid out, Hakenschlagen's disks put down): learn the board's look from it."""
        return self._learn_shown(self._last_frame())

    def learn(self, truth: dict[str, str | None]) -> bool:
        """Learn the look of the board from the next frame, known to show ``truth``
        (a ``game.observe`` dict); False if there is no frame or no board in it."""
        frame = self._keep(self.source.read())
        if frame is None:
            return False
        with self.lock:
            return self.reader.learn(frame, truth)

    def step(self, at: float) -> bool:
        """Read a frame taken at ``at`` and hand the referee what it shows, if the view
        is still and clear; False when the source gave no frame (``failure`` says why)."""
        frame, reading = self.take_and_read(self.first_truth())
        return self.hand_over(frame, reading, at)

    def take_and_read(self, truth: dict[str, str | None] | None = None):
        """A frame from the source and its ``Reading`` (``read``); the service calls it
        on the camera's thread and hands the reading over on its loop. Counted in
        ``work``."""
        work, started = self.work, time.thread_time()
        frame = self.source.read()
        taken = time.thread_time()
        before = self._classified()
        reading = self.read(frame, truth)
        if frame is not None:
            work.frames += 1
            # a reader that counts no full reads (Hägar's mat) reads every frame in full
            after = self._classified()
            work.full_reads += 1 if before is None or after is None else after - before
        work.source_cpu_s += taken - started
        work.reader_cpu_s += time.thread_time() - taken
        return frame, reading

    def _classified(self) -> int | None:
        """Frames the board reader has read in full; None for a reader that reads
        every frame (Hägar's mat)."""
        return getattr(self.reader, "timed", {}).get("classify")

    def first_truth(self) -> dict[str, str | None] | None:
        """While the reader has learned nothing: the position the panel asks to lay
        out, which the first still, clear view is taken to show ("learn now" on the
        referee page learns again if it was taken too early). None once learned."""
        shown = self.referee.published
        if self.reader.truth is not None or not shown.game:
            return None
        return dict(shown.position)

    def read(self, frame, truth: dict[str, str | None] | None = None) -> Reading:
        """Read ``frame``, or learn ``truth`` (``first_truth``) from it once the view is
        still and clear. Safe in a worker thread; it never touches the referee."""
        if frame is None:
            return Reading()
        with self.lock:
            self._confirm_pending()
            try:
                if self.reader.truth is None:
                    if (
                        truth is not None
                        and self._settled(frame)
                        and self.reader.learn(frame, truth)
                    ):
                        self._tell_lesson()
                    return Reading(learning=True)
                observation = self.reader.feed(frame)
                self._learn_named(frame, observation)
                # Hägar's mat reader is never knocked, and reads every frame
                knocked, quiet = (getattr(self.reader, n, False) for n in ("knocked", "quiet"))
                return Reading(observation, knocked, quiet=quiet)
            finally:
                self._confirm_pending()

    def _confirm_pending(self) -> None:
        """Learn the position the referee committed last, if not yet (lock held), from
        the frame it was read from: if a newer frame has been read since (the next
        piece already lifted), nothing is learned this time."""
        with contextlib.suppress(IndexError):  # none committed since
            truth = self._unconfirmed.popleft()
            if self.reader.showed(truth):
                self.reader.confirm(truth)

    def _learn_named(self, frame, observation: Observation | None) -> None:
        """Learn the position a referee's correction named (lock held) from this still
        view, if it reads as the view the correction answered and the referee still
        holds that position: nobody has touched the board since, so it shows the
        position named. A board the players put right after the correction reads
        otherwise and teaches nothing here: read as the position, it is learned as
        every committed one is. A refresh, not a fresh lesson: a piece misread where
        it stands is read right after a correction or two, and a board corrected
        before it was put right teaches only a part of its look."""
        if observation is None:
            return
        with contextlib.suppress(IndexError):  # no correction waiting
            truth, seen = self._named.popleft()
            held = dict(self.referee.published.position) == truth
            if held and observation.tokens == seen and self.reader.learn(frame, truth):
                log.warning("camera: the referee corrected a board it misread; learned it")

    def hand_over(self, frame, reading: Reading, at: float) -> bool:
        """Give the referee ``reading`` of ``frame`` (taken at ``at``), on the loop;
        False when the source gave no frame."""
        frame = self._keep(frame)
        if frame is None:
            # a camera that gives no frames holds nothing up (the hall sensors go on)
            self.referee.wait_for_still(None)
            return False
        if reading.learning:
            return True
        # a knocked camera asks for a still board: the referee judges nothing until
        # the reader has read the board in its new view
        self.referee.wait_for_still(KEEP_STILL if reading.knocked else None)
        if reading.observation is not None:
            self.observation, self._still = reading.observation, frame
            self.referee.see(reading.observation, at)
        return True

    @staticmethod
    def frame_period(fps: float, reading: Reading) -> float:
        """Seconds until the frame after ``reading``'s, at ``fps`` frames a second, or
        more slowly while the board stays as it was read."""
        return 1 / (min(fps, QUIET_FPS) if reading.quiet else fps)

    def snapshot(self) -> bytes | None:
        """The last frame with the cell overlay as a PNG, None before the first frame."""
        if self.frame is None:
            return None
        # drawing is needed only when asked
        from vision.drawings import mat_overlay_png, overlay_png

        draw = overlay_png if isinstance(self.reader, BoardReader) else mat_overlay_png
        with self.lock:
            return draw(self.reader, self.frame, self.observation)

    def close(self) -> None:
        self.referee.wait_for_still(None)
        if self._on_event in self.referee.listeners:
            self.referee.listeners.remove(self._on_event)
        self.source.close()

    def _board(self):
        """What the camera locates: the game's board, or Hägar's mat."""
        return getattr(self.reader, "mat", self.reader.game.board)

    def _corners_key(self) -> str:
        width, height = self.reader.lens.size
        return f"{self.reader.game.board.name} {width}x{height}"

    def _saved_corners(self) -> dict:
        if self.corners_file is None or not self.corners_file.exists():
            return {}
        try:
            saved = json.loads(self.corners_file.read_text())
        except (OSError, ValueError) as exc:
            log.warning(
                "camera: cannot read %s (%s); click the corners again", self.corners_file, exc
            )
            return {}
        return saved if isinstance(saved, dict) else {}

    def _settled(self, frame) -> bool:
        """Whether the board is in view and has been still and clear for a while."""
        reader = self.reader
        if reader.pose is None and not reader.locate(frame):
            return False
        return reader.stillness.look(frame) == "still"

    def _last_frame(self):
        if self.frame is None:
            raise RefereeError(
                self.failure
                or words(
                    "camera.no_frame",
                    "The camera has given no picture yet: wait a moment and try again",
                )
            )
        return self.frame

    def _learn_shown(self, frame) -> Words | None:
        shown = self.referee.published
        if not shown.game:
            raise RefereeError(words("referee.no_game", "No game: start one"))
        # what was learned before may have been learned from a board not yet laid out
        with self.lock:
            self._unconfirmed.clear()
            self._named.clear()
            learned = self.reader.learn(frame, dict(shown.position), fresh=True)
        if not learned:
            raise RefereeError(
                words(
                    "camera.markers_unseen",
                    "The board's markers are not in view: set its corners by hand first",
                )
            )
        self._confirmed = None
        return self._tell_lesson()

    def _tell_lesson(self) -> Words | None:
        """Log what the reader just learned (a board game's reader says it), and return it."""
        lesson = getattr(self.reader, "lesson", None)
        if lesson is not None:
            log.info("camera: %s", lesson)
        return lesson

    def _keep(self, frame):
        if frame is None:
            self.failure = self.source.failure or "the camera gave no frame"
            return None
        self.failure = None
        self.frame = frame
        return frame

    def _on_event(self, event: Heard) -> None:
        """After a verdict, when the board as read is the position the referee holds,
        the last frame read shows that position: the reader learns from it, unless
        that frame surely showed something else on some cell (``shows``). A position
        a referee's correction names against what the camera surely read is learned
        from the next still view, if the board still reads so (``_learn_named``)."""
        if isinstance(event, Event):
            if event.kind == EventKind.MOVE and event.accepted and event.data.get("chosen"):
                self._relearn_due = True
            if event.accepted and event.kind == EventKind.CORRECTION:
                self._corrected = "position"
            elif event.accepted and event.data.get("corrected"):
                self._corrected = "move"
            return
        shown = event.table
        truth = dict(shown.position)
        if self._relearn_due:
            self._relearn_due = False
            self._relearn(shown.sensor, truth)
        corrected, self._corrected = self._corrected, None
        # the camera surely read the board otherwise: a misread, or a board still to put
        # right; which of the two, the next still view tells. A move named stands on the
        # board as the players made it; a position set may not stand there yet, and is
        # taken for a misread only where it differs from the reading in a cell or two
        seen = self.observation
        if corrected and seen is not None and shown.game and not self.shows(truth):
            differing = sum(seen.tokens.get(cell) != token for cell, token in truth.items())
            if corrected == "move" or differing <= MISREAD_CELLS:
                self._named.append((truth, dict(seen.tokens)))
        read_as = self.referee.read_as
        if not shown.game or read_as is None:
            return
        if read_as == truth and truth != self._confirmed and self.shows(truth):
            # learned on the reading thread before its next frame (``_confirm_pending``):
            # a lesson takes milliseconds the loop, its lights and its pages cannot spare
            self._unconfirmed.append(truth)
            self._confirmed = truth

    def _relearn(self, sensor: str, truth: dict[str, str | None]) -> None:
        """The players chose a move the camera surely saw otherwise, as the hall
        sensors felt it: the camera's references went wrong. It learns the board
        afresh from its last still, clear frame, which showed the board chosen."""
        if sensor != Sensor.BOTH or self._still is None or self.shows(truth):
            return
        with self.lock:
            self._unconfirmed.clear()
            learned = self.reader.learn(self._still, truth, fresh=True)
        if learned:
            self._confirmed = truth
            log.warning("camera: the players chose a move it did not see; learned the board again")

    def shows(self, truth: dict[str, str | None]) -> bool:
        """Whether the last observation may show ``truth``: no cell read surely as
        something else. The hall sensors may decide a move from a frame taken a moment
        before it (the piece still on its old cell, or in the hand): learning from that
        frame would teach the empty hole's look as the piece's and make every piece of
        that colour unreadable."""
        seen = self.observation
        return seen is not None and not surely_otherwise(seen, truth)
