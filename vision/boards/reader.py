"""The camera as a sensor for one game: frames in, an ``Observation`` out whenever the
view has been still and clear for a few frames.

It locates the board by its markers once (and again when the board or camera moved),
learns the look of empty cells and pieces from a known position, and reads cells
through ``vision.boards.classifier``. It never decides whether a reading is a legal move: the
referee does that with what it emits.

>>> from engines import load_game
>>> from vision.render import Renderer, random_scene
>>> game = load_game("catch_the_hare")
>>> scene = random_scene(game.board, seed=3)
>>> table = Renderer(game, scene)
>>> reader = BoardReader(game, scene.lens)
>>> start = game.observe(game.initial_state())
>>> reader.learn(table.frame(start), start)
True
>>> readings = [reader.feed(table.frame(start)) for _ in range(4)]
>>> readings[-1].tokens == start
True
"""

from __future__ import annotations

import math
import time

import numpy as np

from engines.words import Words, words
from vision import looks
from vision.boards import pattern
from vision.boards.classifier import UNEXPLAINED_SITES, Classifier
from vision.boards.marks import trued_up
from vision.boards.prints import Prints
from vision.boards.probes import Sampler
from vision.boards.sites import site_labels, sites_of, turned_places
from vision.lens import Lens
from vision.locate import Locator, Pose
from vision.observation import Observation
from vision.stillness import ACCEPT_AFTER, STILL_FRAMES, Stillness

#: a new pose this far (px) from the old one means the board or the camera moved
MOVED_PX = 2.0
#: ... and this far, found as soon as the view is still but unlike the board, that the
#: camera was knocked (a hand over the board shifts a pose from few markers less)
KNOCKED_PX = 5.0
#: the band of table around the board that no piece covers and every arm crosses, mm
SURROUND_MM = 60.0
#: after a knock, the view must be still this many frames in a row before the board
#: is read again: a knocked camera on its arm may swing a little longer
KNOCKED_STILL_FRAMES = 2 * STILL_FRAMES
#: a still board unchanged since it was read is read again after this many seconds all
#: the same: a change the stillness checks missed is caught within them
READ_EVERY_S = 5.0
#: with fewer than two markers in view, the board is looked for by its own pattern
#: (its marks, its outline) at most once in this many seconds of failing (a look costs
#: 0.1-0.8 s of CPU here, 4x that on a Pi: tried on every frame of a camera that
#: cannot find the board, it would take a core); the markers are looked for on every
#: frame ...
PATTERN_EVERY_S = 3.0
#: ... and after a failed look that took longer, at most this share of the time since
#: is spent looking: a slow machine looks less often rather than lose a core to it
PATTERN_SHARE = 0.1
#: timing stages a reader reports, in order
STAGES = ("stillness", "sample", "classify")


class BoardReader:
    """Reads one game's board from the frames of one camera."""

    def __init__(self, game, lens: Lens):
        self.game = game
        self.look = looks.look_for(game)
        self.locator = Locator(game.board, lens)
        self.sites = sites_of(game.board, self.look)
        self.pose: Pose | None = None
        #: the markers' (or clicked cells') pose ``pose`` was trued up from
        self._found: Pose | None = None
        self.sampler: Sampler | None = None
        self.classifier: Classifier | None = None
        self.prints: Prints | None = None
        self.stillness: Stillness | None = None
        self.truth: dict[str, str | None] | None = None
        self._features: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: what the frame of ``_features`` was read as (or taught to show)
        self._features_show: dict[str, str | None] | None = None
        #: the fields' discs in the frame last read or learned from (``Prints``)
        self._discs: np.ndarray | None = None
        #: seconds spent per stage, and how many frames went through it
        self.timings: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.timed: dict[str, int] = dict.fromkeys(STAGES, 0)
        self.status = "unlocated"
        #: the camera or the board was knocked since the board was last read: nothing is
        #: read until the view has been still for KNOCKED_STILL_FRAMES (status "knocked")
        self.knocked = False
        #: the observation of the last frame read, handed on for the still frames after
        #: it that show the board unchanged (``quiet``), and when it was read
        self._last: Observation | None = None
        self._read_at = 0.0
        #: when the board's outline may be looked for again (``PATTERN_EVERY_S``)
        self._pattern_after = 0.0
        #: the last frame fed showed the board as it was read: it was not read again
        self.quiet = False
        #: what the last lesson (``learn``) taught, in words for the referee page and log
        self.lesson: Words | None = None
        #: the clock the heartbeat and the outline's waits are kept by (seconds): a
        #: simulated table gives its own, so that a run repeats itself on any machine
        self.clock = time.monotonic

    @property
    def lens(self) -> Lens:
        """The lens frames are seen through: as given, or as fitted to the markers
        when none was calibrated (``Locator``)."""
        return self.locator.lens

    @property
    def refusal(self) -> str | None:
        """Why the board could not be found in the last frame looked at, in words a
        referee page can show (markers seen, how well they fit, what to do)."""
        return self.locator.refusal

    # --- set-up ------------------------------------------------------------------------

    def locate(self, frame: np.ndarray, truth: dict[str, str | None] | None = None) -> bool:
        """Find the board in ``frame`` by its markers and true the pose up by the
        printed marks of the cells ``truth`` (or the last position confirmed) leaves
        empty, every cell's when nothing is known; True if found."""
        found = self.locator.locate(frame)
        if found is None:
            if self.clock() < self._pattern_after:
                return self._use(None)
            begin = time.thread_time()
            found = self._by_pattern(frame, truth)
            if found is None:
                spent = time.thread_time() - begin
                wait = max(PATTERN_EVERY_S, spent / PATTERN_SHARE)
                self._pattern_after = self.clock() + wait
            return self._use(found)
        return self._use(self._trued(frame, found, truth), found)

    def _by_pattern(self, frame: np.ndarray, truth=None) -> Pose | None:
        """Fewer than two markers seen: the board from its outline, turned the way
        the one marker or (with none) the start position shows, held to the marks of
        the cells ``truth`` (or the last position confirmed) leaves empty
        (``vision.boards.pattern``); the locator's refusal stays if it is not trusted."""
        truth = self.truth if truth is None else truth
        marks = self._empty_marks(truth)
        refusal = self.locator.refusal
        seen = self.locator.seen
        marker = (seen[0][0], seen[1][0]) if len(seen[0]) == 1 else None
        found = pattern.located(frame, self.lens, self.game, self.look, truth, marks, marker)
        if found is None:
            self.locator.refusal = refusal
        return found

    def _trued(self, frame: np.ndarray, pose: Pose | None, truth=None) -> Pose | None:
        """``pose`` refitted to the marks of the cells believed empty in ``frame``
        (``vision.boards.marks``): markers glued a little off their places then still
        put every cell where it is printed. A wrong belief costs only the cells it
        names: their marks disagree with the rest and are left out."""
        if pose is None:
            return None
        truth = self.truth if truth is None else truth
        return trued_up(frame, pose, self.lens, self._empty_marks(truth), self.look.cell_radius)

    def _empty_marks(self, truth) -> np.ndarray:
        """Where the marks of the cells ``truth`` leaves empty are (mm), every cell's
        when nothing is known; a field of several spots has no one mark."""
        marks = [
            cell.xy
            for cell in self.game.board.cells
            if cell.kind not in self.look.slots and (truth is None or truth.get(cell.id) is None)
        ]
        return np.reshape(marks, (-1, 2)).astype(float)

    def set_corners(self, points) -> bool:
        """The manual fallback: the centres of the board's four corner cells clicked on
        the referee page (``looks.corner_cells`` order), in frame pixels. False if they
        give no plausible pose (clicked out of order, or not on those cells)."""
        return self._use(self.locator.from_corner_cells(points))

    def _use(self, pose: Pose | None, found: Pose | None = None) -> bool:
        """Read from ``pose`` from now on, unless it is less than MOVED_PX from the
        pose in use: the markers' pose ``found`` (``pose`` itself if not trued up) is
        compared with the markers' pose the one in use came from."""
        if pose is None:
            return False
        found = pose if found is None else found
        moved = self.pose is None or self.sampler is None
        if not moved and found.moved_from(self._found, self.lens, self._anchor()) < MOVED_PX:
            return True
        learned = self.classifier
        self.pose, self._found = pose, found
        self.sampler = Sampler(self.sites, self.look, self.lens, pose, self.game.board)
        self.classifier = Classifier(self.sites, self.look, self.sampler.centres, self.sampler)
        taught = self.prints
        self.prints = Prints(self.sites, self.look, self.lens, pose, self.game.board)
        if taught is not None and len(taught.rows) == len(self.prints.rows):
            self.prints.reference = taught.reference.copy()
        if learned is not None:
            # the board's look does not change when the camera is knocked: every
            # reference learned so far serves the new pose
            self.classifier.carry(learned)
        self.stillness = Stillness(
            self.lens.size, self._outline(), self._piece_zones(), self._outline(SURROUND_MM)
        )
        self.status = "located"
        return True

    def learn(self, frame: np.ndarray, truth: dict[str, str | None], fresh: bool = False) -> bool:
        """Learn the look of cells and pieces from ``frame``, known to show ``truth``
        (a ``game.observe`` dict): the empty board while it is set up, the start
        position when a game starts. What was learned in this pose is kept and
        refreshed, or forgotten first when ``fresh``. Locates the board first if
        needed; False if it cannot be found."""
        if self.pose is None and not self.locate(frame, truth):
            return False
        sampler, classifier, prints = self.sampler, self.classifier, self.prints
        if sampler is None or classifier is None or prints is None:
            return False  # located sets all three: never here
        seen = sampler.readable(frame)
        features, paper = sampler.stood(seen, self._single(truth)), sampler.paper(seen)
        turned = sampler.turned_features(seen)
        fresh = fresh or not classifier.ready
        self._teach(classifier, (features, paper, turned), truth, fresh)
        self._discs = prints.measure(seen, paper)
        prints.learn(self._discs, self._bare(truth), fresh)
        self.stillness.accept(frame)
        self.truth = dict(truth)
        self._features, self._features_show = (features, paper, turned), dict(truth)
        self._last = None  # read again with what was learned
        self.lesson = lesson(truth)
        return True

    def confirm(self, truth: dict[str, str | None]) -> None:
        """The referee committed ``truth``: refresh the references from the last frame
        that was read (it showed this position). A board read as ``truth`` is not read
        again for it: unchanged, it reads the same (afresh once it changes, or at the
        heartbeat); one read otherwise is read again with what was learned."""
        self.truth = dict(truth)
        if self._features is not None and self.classifier is not None:
            self._teach(self.classifier, self._features, truth, fresh=False)
            if self._last is not None and self._last.tokens != truth:
                self._last = None
        if self._discs is not None and self.prints is not None:
            self.prints.learn(self._discs, self._bare(truth), fresh=False)
        if self.stillness is not None:
            self.stillness.accept_read()

    def showed(self, truth: dict[str, str | None]) -> bool:
        """Whether the frame ``confirm`` would learn from was read as ``truth``: a
        position committed from one reading may reach the camera after a newer frame
        was read (the next piece already lifted), which must not be taught as it."""
        return self._features_show == truth

    def _teach(
        self, classifier: Classifier, seen: tuple, truth: dict[str, str | None], fresh: bool
    ) -> None:
        """Teach ``classifier`` that ``seen`` (features, paper, turned) shows ``truth``:
        each home field's ring taken at the turn where its known hats stand
        (``Classifier.lesson``), and a home field left empty at every turn
        (``Classifier.learn_rings``)."""
        features, paper, turned = seen
        labels = site_labels(self.sites, truth)
        taught, lesson = classifier.lesson(features, turned, paper, labels)
        classifier.learn(taught, paper, lesson, fresh=fresh)
        classifier.learn_rings(turned, paper, labels, fresh)

    def _single(self, truth: dict[str, str | None]) -> np.ndarray:
        """Per site: whether ``truth`` stands a ``single`` piece there, one the board
        holds one of, whose look is learned from one frame, in a look that learns it
        where it stands (``learn_where_placed``)."""
        pieces, labels = self.look.pieces, site_labels(self.sites, truth)
        if not self.look.learn_where_placed:
            return np.zeros(len(labels), bool)
        return np.array([bool(label in pieces and pieces[label].single) for label in labels])

    def _bare(self, truth: dict[str, str | None]) -> np.ndarray:
        """Per site: whether ``truth`` leaves it empty."""
        return np.array([label is None for label in site_labels(self.sites, truth)])

    # --- reading -----------------------------------------------------------------------

    def feed(self, frame: np.ndarray) -> Observation | None:
        """An observation if this frame is still and clear and the board is known. A
        still frame showing the board as the last frame read is not read again (only
        every READ_EVERY_S): it gets that frame's observation."""
        self.quiet = False
        if self.pose is None and not self.locate(frame):
            self.status = "unlocated"
            return None
        stillness, sampler, classifier = self.stillness, self.sampler, self.classifier
        prints = self.prints
        if stillness is None or sampler is None or classifier is None or prints is None:
            return None  # located sets all four: never here
        t0 = time.perf_counter()
        state = stillness.look(frame)
        t1 = time.perf_counter()
        self.timings["stillness"] += t1 - t0
        self.timed["stillness"] += 1
        # still but unlike the board: a hand resting on it, or the camera knocked. Look
        # for the markers as soon as it has been still a moment, and once more later
        if state == "blocked" and stillness.blocked == STILL_FRAMES:
            self._relocate(frame, KNOCKED_PX)
        elif state == "blocked" and stillness.blocked == ACCEPT_AFTER // 2:
            self._relocate(frame, MOVED_PX)
        self.status = state
        if self.knocked and (state != "still" or stillness.still < KNOCKED_STILL_FRAMES):
            self.status = "knocked"
            return None
        if state != "still" or not classifier.ready:
            return None
        now = self.clock()
        if (
            self._last is not None
            and now - self._read_at < READ_EVERY_S
            and stillness.unchanged_since_read()
        ):
            self.quiet = True
            return self._last
        seen = sampler.readable(frame)
        placed, paper = sampler.features(seen, placed=True), sampler.paper(seen)
        features, turned = placed[0], sampler.turned_features(seen)
        discs = prints.measure(seen, paper)
        stands = prints.costs(discs, len(self.sites))
        t2 = time.perf_counter()
        observation = classifier.classify(placed, paper, sampler.visible, turned, stands)
        t3 = time.perf_counter()
        self.timings["sample"] += t2 - t1
        self.timings["classify"] += t3 - t2
        self.timed["sample"] += 1
        self.timed["classify"] += 1
        self._last = None
        if classifier.unexplained >= UNEXPLAINED_SITES:
            self.status = "blocked"
            return None
        self._features, self._discs = (features, paper, turned), discs
        self._features_show = observation.tokens
        self.knocked = False
        stillness.read()
        self._last, self._read_at = observation, now
        return observation

    def _relocate(self, frame: np.ndarray, least_px: float) -> None:
        """Blocked but still: perhaps the board or the camera moved. A new pose keeps
        every reference learned (``_use``) and is never taught from this frame: the
        knock may have come during a move, so the frame may not show the last
        position the referee confirmed. The board is read once it has been still for
        KNOCKED_STILL_FRAMES in the new view (``knocked``). A pose found with fewer
        markers than before is no move (an arm resting over a marker), nor one less
        than ``least_px`` away (with a hand over the board, a marker's corners shift
        a little)."""
        old = self.pose
        found = self.locator.locate(frame)
        if found is None or found.markers < self._found.markers:
            return
        # moved or not is the markers' say: marks under a hand resting on the board
        # would pull a pose trued up from them
        if found.moved_from(self._found, self.lens, self._anchor()) < least_px:
            return
        if self._use(self._trued(frame, found), found) and self.pose is not old:
            self.stillness.accept(frame)
            self.knocked = True

    # --- geometry for stillness --------------------------------------------------------

    def _anchor(self) -> np.ndarray:
        """The sites on the board (mm, z = 0), whose movement in the frame says how far
        the board moved."""
        return np.array([[*s.xy, 0.0] for s in self.sites])

    def _outline(self, margin: float = 0.0) -> np.ndarray:
        """The printed board's corners in the frame, ``margin`` mm beyond its edge."""
        left, bottom, right, top = looks.extent(self.game.board)
        left, bottom, right, top = left - margin, bottom - margin, right + margin, top + margin
        corners = np.array([[left, bottom, 0], [right, bottom, 0], [right, top, 0], [left, top, 0]])
        return self.lens.project(corners, self.pose.rvec, self.pose.tvec)

    def _piece_zones(self) -> list[np.ndarray]:
        """Per site, the frame area a piece there can cover (its solid with room):
        wherever round its place the reader looks for it (``placement_mm``; on a home
        field's ring, round it and off its spot), so a piece set down off its place,
        and its shadow, never look like something over the board's rim."""
        height = self.look.tallest() * 1.2
        reach = shadow_reach(self.look)
        off = max((slots.placement_mm for slots in self.look.slots.values()), default=0.0)
        a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        zones = []
        for site in self.sites:
            room = reach + (off if site.slot is not None else self.look.placement_mm)
            around = np.stack([room * np.cos(a), room * np.sin(a)], 1)
            places = turned_places(self.game.board, self.look, site)
            ring = (places[:, None] + around[None]).reshape(-1, 2)
            level = np.zeros(len(ring))
            solid = np.concatenate([np.c_[ring, level], np.c_[ring, level + height]])
            px = self.lens.project(solid, self.pose.rvec, self.pose.tvec)
            zones.append(px[_hull(px)])
        return zones


#: the lowest light over a table, in degrees above it (a window, a lamp at the next
#: table): a piece's shadow reaches 1/tan of it times the piece's height from the piece
LOWEST_LIGHT_DEG = 40.0


def shadow_reach(look) -> float:
    """How far (mm) from where a piece stands it, or the shadow it casts, which the
    light may throw aside, can cover the board."""
    shadow = look.tallest() / math.tan(math.radians(LOWEST_LIGHT_DEG))
    return max(p.radius for p in look.pieces.values()) * 1.3 + shadow


def lesson(truth: dict[str, str | None]) -> Words:
    """What learning from ``truth`` taught the reader, said for a referee: how many
    empty cells it saw and which pieces' colours it took from the board."""
    pieces = sorted({part for token in truth.values() for part in looks.split(token)})
    return words(
        "camera.learned",
        "The camera learned the board as it lies, in this light: "
        "{empty, plural, one {# empty cell} other {# empty cells}} and the pieces ({pieces})",
        empty=sum(token is None for token in truth.values()),
        pieces=[Words(f"token.{piece}", piece) for piece in pieces],
    )


def _hull(px: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.convexHull(px.astype(np.float32), returnPoints=False).ravel()
