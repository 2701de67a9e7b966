"""`boardref simulate`: random legal games played by simulated hands on the simulated
MCU, through the real host driver and the referee, scored on what the referee got
right.

The hands lift, carry, put down, hesitate, set a jumping piece down mid-chain, bump
a neighbour and put it back, leave a captured piece standing a moment, and now and
then make a deliberate illegal move that they then undo; the sensors flicker at the
``noise`` rate. With ``sensor="camera"`` or ``"both"`` a rendered camera watches too
(``FRAME_SIZE``, ``FPS``): the hand shows over the cell it works on and leaves the
board when a move is set down. Waiting happens on a simulated clock (the referee's
settle time), so games run far faster than real play: only the MCU's own scanning
runs in real time. This module plays the players; it never decides a rule itself.
"""

from __future__ import annotations

import queue
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardref.harness import percentile
from boardref.referee import (
    AMBIGUOUS,
    BOTH,
    CAMERA,
    MOVE,
    OVER,
    Referee,
    RefereeError,
    projection,
)
from boardref.store import Store
from boardref.table import Table
from engines import Move
from engines.coasters import SIDES
from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator
from hardware.lights import CellLights, Palette
from vision.stillness import STILL_FRAMES

SETTLE = 0.3
#: fast scanning and a long debounce: noise never passes, changes arrive in ~15 ms
MCU_SETTINGS = {"scan_period_ms": 2, "debounce_scans": 6}
#: how often the hands do each thing, per move
HABITS = {
    "hesitate": 0.25,  # hold a lifted piece past the settle time
    "set_down_mid_chain": 0.5,  # of chains that could stop early
    "bump": 0.1,  # knock a neighbour and put it back at once
    "slow_capture": 0.3,  # take a captured piece off only after a pause
    "illegal": 0.08,  # try a move the rules forbid, then undo it
    "disobey": 0.2,  # play another legal move than the computer's, then undo it
}
COMPUTER_LEVEL = "easy"
COMPUTER_SECONDS = 0.2
WAIT = 10.0  # seconds of real time a scan may take to arrive before we give up
#: the sensors ``simulate`` can play with, and the referee's sensor for each
SENSORS = {"hall": "presence", "camera": CAMERA, "both": BOTH}
#: the simulated camera: a quarter of 1280x720 keeps 200 moves within minutes
FRAME_SIZE = (640, 360)
FPS = 10
#: the camera scene's difficulty (vision.render.DIFFICULTY)
SCENE = "easy"
SCENE_TRIES = 5
#: a camera knocked by a mishap is knocked after this many frames (a minute of play)
BUMP_AFTER = 600


@dataclass
class Score:
    moves_played: int = 0
    committed: int = 0
    false_rejections: int = 0
    missed_moves: int = 0
    wrong_commits: int = 0
    illegal_injected: int = 0
    illegal_caught: int = 0
    games: int = 0
    corrections: int = 0
    panel_choices: int = 0
    computer_refusals: int = 0
    final_state_match: bool = False
    verdict_ms: list[float] = field(default_factory=list)


class SimClock:
    """The simulated time the referee judges by."""

    def __init__(self):
        self.now = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Rig:
    """The simulated board: the hall sensors on the simulated MCU and the real link,
    a rendered camera, or both, and a table, kept in step on a simulated clock."""

    def __init__(self, referee: Referee, noise: float, seed: int, sensor: str, mishap=None):
        self.clock = SimClock()
        #: what goes wrong at the camera's table (``vision.mishaps.Mishaps``), or None
        self.mishap = mishap
        self.game = referee.game
        self.cells = [cell.id for cell in self.game.board.cells]
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.mcu = self.link = self.camera = None
        self.scans: queue.Queue[bytes] = queue.Queue()
        if sensor in ("hall", "both"):
            settings = MCU_SETTINGS
            try:
                self.mcu = Simulator(len(self.cells), noise=noise, seed=seed, settings=settings)
            except ValueError as exc:  # Hägar's table: more places than a board scans
                raise ValueError(f"{self.game.name}: {exc}; use --sensor camera") from None
            self.mcu.start()
            self.link = Link(self.mcu.path)
            self.link.subscribe(lambda scan: self.scans.put(bytes(scan.cells)))
            self.link.open(timeout=WAIT)
        lights = CellLights(self.cells, Palette.load())
        send = self.link.set_leds if self.link is not None else None
        self.table = Table(referee, self.cells, lights, send_leds=send)
        self.verdict_ms: list[float] = []
        self.delivered = bytes(len(self.cells))
        #: what the camera sees: tokens, disks under figures, the cells under a hand
        self.tokens: dict[str, str | None] = {}
        self.under: dict[str, str] = {}
        self.hands: tuple[str, ...] = ()
        #: frames taken with a hand over the board, and those the reader read anyway
        self.hand_frames = self.hand_frames_read = 0
        if sensor in ("camera", "both"):
            self.camera = self._camera(referee, seed)

    def _camera(self, referee: Referee, seed: int):
        """The rendered camera, set up as at a real table: it learns the bare board,
        then the start position. At ``FRAME_SIZE`` a scene now and then shows the
        markers too small to find; then the next scene is used (``scene_seed``)."""
        from boardref.camera import TableCamera, reader_for, rendered_camera
        from hardware.frame_source import SyntheticSource

        start = self.game.initial_state()
        for scene_seed in range(seed, seed + SCENE_TRIES):
            try:
                if self.mishap is None:
                    renderer, lens = rendered_camera(self.game, scene_seed, SCENE, FRAME_SIZE)
                else:
                    from vision.mishaps import staged_camera

                    renderer, lens = staged_camera(
                        self.game, scene_seed, SCENE, FRAME_SIZE, self.mishap, BUMP_AFTER
                    )
            except KeyError:  # vision has no look for its pieces (the card game)
                raise ValueError(
                    f"the camera cannot read {self.game.name} yet: it is played on the panel; "
                    "simulate it with --sensor hall"
                ) from None
            source = SyntheticSource(renderer, self._shown)
            camera = TableCamera(referee, source, reader_for(self.game, lens))
            self.under = self._underlays(start)
            learned = True
            bare = self.mishap is None or self.mishap.bare_board
            shown = ([dict.fromkeys(self.cells)] if bare else []) + [self.game.observe(start)]
            for truth in shown:
                self.tokens = truth
                learned = learned and camera.learn(truth)
            if learned:
                self.scene_seed = scene_seed
                return camera
            camera.close()
        raise RuntimeError(f"the simulated camera found the board in none of {SCENE_TRIES} scenes")

    def _shown(self):
        under = {c: k for c, k in self.under.items() if self.tokens.get(c) not in (None, k)}
        return self.tokens, self.hands, under

    def _underlays(self, state) -> dict[str, str]:
        from vision.render import underlays

        return underlays(self.game, state)

    def close(self) -> None:
        for part in (self.camera, self.link, self.mcu):
            if part is not None:
                part.close()

    def set_board(self, state) -> None:
        """Put the true board in ``state`` (no hand over it) and wait until the host has
        seen it."""
        self.tokens, self.hands = self.game.observe(state), ()
        self.under = self._underlays(state)
        if self.mcu is not None:
            felt = self.game.sense(state, "presence")
            states = bytes(1 if felt[cell] else 0 for cell in self.cells)
            self.mcu.set_board(states)
            self._until_seen(states)

    def expect_disks(self, *states) -> None:
        """The disks under figures of the positions a move passes through."""
        self.under = {k: v for state in states for k, v in self._underlays(state).items()}

    def set_cell(self, cell: str, token: str | None, felt: bool) -> None:
        """A hand over ``cell`` leaves ``token`` there, which the hall sensor feels or not."""
        self.tokens = {**self.tokens, cell: token}
        self.hands = (cell,)
        if self.mcu is not None:
            self.mcu.set_cell(self.index[cell], 1 if felt else 0)
            self._until_seen(self.mcu.board)

    def show(self, tokens: dict[str, str | None], hand: str) -> None:
        """A hand over ``hand`` leaves the table showing ``tokens`` (a coaster laid
        whole: only the camera sees Hägar's table)."""
        self.tokens = dict(tokens)
        self.hands = (hand,)

    def withdraw(self) -> None:
        """The hand leaves the board."""
        self.hands = ()

    def pause(self, seconds: float) -> None:
        """Let simulated time pass, judging whatever has settled meanwhile; the camera
        takes its frames meanwhile."""
        self._drain()
        frames = 0 if self.camera is None else max(1, round(seconds * FPS))
        for _ in range(frames):
            self.clock.advance(seconds / frames)
            last = self.camera.observation
            if not self.camera.step(self.clock.now):
                raise RuntimeError(f"the simulated camera failed: {self.camera.failure}")
            if self.hands:
                self.hand_frames += 1
                self.hand_frames_read += self.camera.observation is not last
            self._drain()
            self._tick()
        if not frames:
            self.clock.advance(seconds)
            self._tick()

    def _tick(self) -> None:
        start = time.perf_counter()
        if self.table.tick(self.clock.now):
            self.verdict_ms.append((time.perf_counter() - start) * 1000)

    def _drain(self) -> None:
        while True:
            try:
                states = self.scans.get_nowait()
            except queue.Empty:
                return
            self.delivered = states
            self.table.on_scan(states, self.clock.now)

    def _until_seen(self, states: bytes) -> None:
        deadline = time.monotonic() + WAIT
        self._drain()
        while self.delivered != states:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the simulated board did not report the change in time")
            try:
                self.delivered = self.scans.get(timeout=remaining)
            except queue.Empty:
                continue
            self.table.on_scan(self.delivered, self.clock.now)


class Hands:
    """Players' hands: they make the chosen moves on the board, with human habits."""

    def __init__(self, rig: Rig, game, pick: random.Random, sensor: str):
        self.rig, self.game, self.pick = rig, game, pick
        self.view = projection(SENSORS[sensor])
        # the camera needs a few still frames after the hand has gone
        latency = 0.0 if rig.camera is None else (STILL_FRAMES + 2) / FPS
        self.settle_time = SETTLE + 0.05 + latency

    def settle(self) -> None:
        """Take the hand off the board and wait until the referee has judged."""
        self.rig.withdraw()
        self.rig.pause(self.settle_time)

    def hold(self) -> None:
        """Hold a lifted piece over the board past the settle time."""
        self.rig.pause(self.settle_time)

    def quick(self) -> None:
        self.rig.pause(self.pick.uniform(0.02, SETTLE * 0.6))

    def reading(self, state) -> dict[str, str | None]:
        """What the referee's sensor reads of ``state``."""
        return self.game.sense(state, self.view)

    def play(self, before, move, after) -> None:
        """Move the pieces from ``before`` to ``after``, the way hands do."""
        pick = self.pick
        if pick.random() < HABITS["bump"]:
            self.bump(before)
        path = getattr(move, "path", ())
        stops = [(path[0] if path else None, after)]
        chain = getattr(move, "leap", False) and len(path) > 2
        if chain and pick.random() < HABITS["set_down_mid_chain"]:
            cut = pick.randrange(2, len(path))
            halfway = self.game.apply(before, Move(path[:cut], leap=True))
            # a chain whose first part already wins ends there: nobody plays on
            if self.game.outcome(halfway) is None:
                stops = [(path[0], halfway), (path[cut - 1], after)]
        at = before
        for mover, stop in stops:
            self.carry(at, stop, mover)
            self.settle()
            at = stop

    def carry(self, before, after, mover: str | None) -> None:
        """Lift the moving piece, put it down, then take captured pieces off; what
        only the camera sees change (a disk left bare) changes as the figure goes."""
        was, now = self.game.sense(before, "presence"), self.game.sense(after, "presence")
        shown = self.game.observe(after)
        gone = [c for c in was if was[c] and not now[c]]
        arrive = [c for c in now if now[c] and not was[c]]
        if mover in gone:  # the piece that moves goes first, whatever the board order
            gone.remove(mover)
            gone.insert(0, mover)
        moving, captured = gone[: len(arrive)], gone[len(arrive) :]
        seen_before = self.game.observe(before)
        others = [c for c in shown if shown[c] != seen_before[c] and c not in gone + arrive]
        self.rig.expect_disks(before, after)
        for cell in moving:
            self.rig.set_cell(cell, shown[cell], False)
            if self.pick.random() < HABITS["hesitate"]:
                self.hold()
            else:
                self.quick()
        for cell in arrive + others:
            self.rig.set_cell(cell, shown[cell], bool(now[cell]))
            self.quick()
        for cell in captured:
            if self.pick.random() < HABITS["slow_capture"]:
                self.settle()
            self.rig.set_cell(cell, shown[cell], False)
            self.quick()

    def answer_panel(self, before, after) -> int:
        """What a player does when the sensors cannot tell: press confirm for a move
        they cannot see, and tap the move played when several fit. Returns the taps."""
        referee = self.rig.table.referee
        taps = 0
        unseen = self.reading(before) == self.reading(after)
        if unseen and referee.positions[-1] == before and referee.phase == MOVE:
            try:
                referee.confirm()
                taps += 1
            except RefereeError:
                pass  # the referee reads another board than the one played: scored below
        if referee.phase == AMBIGUOUS:
            base = referee.positions[-1]
            for text in referee.published.candidates:
                if self.game.apply(base, self.game.parse_move(base, text)) == after:
                    referee.choose(text)
                    taps += 1
                    break
        return taps

    def outcomes(self, state) -> set[tuple]:
        """What the referee's sensor reads after each legal move, cells in board order."""
        return {
            tuple(self.reading(self.game.apply(state, move)).values())
            for move in self.game.legal_moves(state)
        }

    def disobey(self, state, announced) -> int:
        """Play another legal move than the computer announced, then put it back;
        1 if the referee refused it."""
        target = self.reading(self.game.apply(state, announced))
        others = [
            m
            for m in self.game.legal_moves(state)
            if self.reading(self.game.apply(state, m)) != target
        ]
        if not others:
            return 0
        referee = self.rig.table.referee
        before = len(referee.log)
        self.rig.set_board(self.game.apply(state, self.pick.choice(others)))
        self.settle()
        refused = len(referee.log) == before and referee.expected is not None
        self.rig.set_board(state)
        self.settle()
        return int(refused)

    def bump(self, state) -> None:
        felt = self.game.sense(state, "presence")
        shown = self.game.observe(state)
        standing = [c for c, token in felt.items() if token]
        if not standing:  # Hägar's table before the first coaster
            return
        cell = self.pick.choice(standing)
        self.rig.expect_disks(state)
        self.rig.set_cell(cell, self.rig.under.get(cell), False)
        self.rig.pause(0.02)
        self.rig.set_cell(cell, shown[cell], True)
        self.quick()

    def try_illegal(self, state) -> bool | None:
        """Carry a piece to an empty cell where the board then shows no legal outcome,
        then put it back; True if the referee refused it, None if no such mistake
        exists. At Hägar's table the mistake is a coaster laid where the rules forbid
        (``try_illegal_lay``)."""
        if hasattr(self.game, "coasters"):
            return self.try_illegal_lay(state)
        self.rig.expect_disks(state)
        bare = self.rig.under  # what a figure leaves behind: the disk it stood on
        mistakes = self.mistakes(state, bare)
        if not mistakes:
            return None
        origin, target = self.pick.choice(mistakes)
        piece = self.game.observe(state)[origin]
        referee = self.rig.table.referee
        before = len(referee.log)
        events: list[str] = []
        referee.listeners.append(_recorder(events))
        try:
            self.rig.set_cell(origin, bare.get(origin), False)
            self.quick()
            self.rig.set_cell(target, piece, True)
            self.settle()
            caught = ("illegal" in events or "unreadable" in events) and len(referee.log) == before
            self.rig.set_cell(target, None, False)
            self.quick()
            self.rig.set_cell(origin, piece, True)
            self.settle()
        finally:
            referee.listeners.pop()
        return caught

    def mistakes(self, state, bare: dict[str, str]) -> list[tuple[str, str]]:
        """Up to 36 (origin, target) carries of a piece to an empty cell after which
        the referee's sensor reads no legal move, whole or with its captured pieces
        still standing (the referee rightly waits for those to go); ``bare`` is the
        disk a figure leaves behind where it stood."""
        seen, felt = self.reading(state), self.game.sense(state, "presence")
        # what the sensor reads where the piece stood: hall sensors never feel a disk
        left = bare if self.view == CAMERA else {}
        before = tuple(seen.values())
        moves = _moves_by_fill(before, self.outcomes(state))
        where = {cell: i for i, cell in enumerate(seen)}
        occupied = [c for c, token in felt.items() if token]
        empty = [c for c, token in seen.items() if not token]
        return [
            (origin, target)
            for origin in self.pick.sample(occupied, min(6, len(occupied)))
            for target in self.pick.sample(empty, min(6, len(empty)))
            if not _reads_as_move(
                moves, {where[origin]: left.get(origin), where[target]: seen[origin]}
            )
        ]

    def try_illegal_lay(self, state) -> bool | None:
        """Lay Hägar's coaster in hand on a free spot of the mat at a facing the rules
        forbid there (not beside a laid one, or not meeting a like landscape, or a
        beer glass turned away from its seat), then take it back; True if the referee
        refused it, None when no coaster is in hand or no such lay exists."""
        from vision.coasters.mat import layout_of, mat_board

        legal = {str(move) for move in self.game.placements(state)}
        if not legal:
            return None  # no coaster in hand
        coaster = self.game.coasters[state.hand]
        seen = self.game.observe(state)
        laid, _ = layout_of(self.game, seen)
        outcomes = self.outcomes(state)
        lays = []
        for spot in (cell.id for cell in mat_board(self.game).cells):
            for turn, side in enumerate(SIDES):
                if spot in laid or f"{coaster.id} {spot} {side}" in legal:
                    continue
                shown = dict(seen)
                for corner, printed, _ in coaster.on_table(turn):
                    shown[f"{spot}_{corner}"] = f"{coaster.id}_{printed}"
                if tuple(shown.values()) not in outcomes:
                    lays.append((spot, shown))
        if not lays:
            return None
        spot, shown = self.pick.choice(lays)
        referee = self.rig.table.referee
        before = len(referee.log)
        events: list[str] = []
        referee.listeners.append(_recorder(events))
        try:
            self.rig.show(shown, spot)
            self.quick()
            self.settle()
            caught = ("illegal" in events or "unreadable" in events) and len(referee.log) == before
            self.rig.show(seen, spot)
            self.quick()
            self.settle()
        finally:
            referee.listeners.pop()
        return caught


def simulate(
    game_name: str,
    players: int | None,
    seed: int,
    noise: float,
    moves: int,
    store_path: Path | None = None,
    on_commit=None,
    computer: tuple[int, ...] = (),
    sensor: str = "hall",
    mishap: str | None = None,
) -> dict[str, Any]:
    """Play ``moves`` moves of random legal games; return the scores as a dict.

    With ``store_path`` the game is resumed from that log and kept there;
    ``on_commit(move_text)`` hears each move the moment it is in the log; the
    ``computer`` seats are played by the computer, carried out by the hands;
    ``sensor`` is "hall", "camera" or "both"; ``mishap`` names what goes wrong at the
    camera's table (one of ``vision.mishaps.CONDITIONS``).
    """
    if sensor not in SENSORS:
        raise ValueError(f"sensor {sensor!r}: choose one of {', '.join(SENSORS)}")
    mishaps = None
    if mishap is not None:
        from vision.mishaps import CONDITIONS

        if mishap not in CONDITIONS or sensor == "hall":
            raise ValueError(f"mishap {mishap!r}: with the camera, one of: {', '.join(CONDITIONS)}")
        mishaps = CONDITIONS[mishap][1]
    pick = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="boardref-simulate-") as scratch:
        store = Store(store_path or Path(scratch) / "simulate.db")
        referee = Referee(store, sensor=SENSORS[sensor], settle=SETTLE)
        resumed = store_path is not None and referee.resume()
        if on_commit is not None:
            referee.listeners.append(
                lambda e: on_commit(e.data["move"]) if e.kind == "move" and e.accepted else None
            )
        if not resumed:
            referee.new_game(game_name, players, seed=f"simulate {seed}".encode())
            if computer:
                referee.seat_computer(computer, COMPUTER_LEVEL)
        game = referee.game
        started = time.perf_counter()
        rig = Rig(referee, noise, seed, sensor, mishaps)
        try:
            score = _play(rig, referee, Hands(rig, game, pick, sensor), pick, moves)
        finally:
            rig.close()
            store.close()
        seconds = time.perf_counter() - started
    timings = score.verdict_ms or [0.0]
    result = {
        "game": game_name,
        "players": game.players,
        "seed": seed,
        "noise": noise,
        "sensor": sensor,
        "mishap": mishap,
        "moves_played": score.moves_played,
        "committed": score.committed,
        "false_rejections": score.false_rejections,
        "missed_moves": score.missed_moves,
        "wrong_commits": score.wrong_commits,
        "illegal_injected": score.illegal_injected,
        "illegal_caught": score.illegal_caught,
        "final_state_match": score.final_state_match,
        "games": score.games,
        "corrections": score.corrections,
        "panel_choices": score.panel_choices,
        "computer_seats": sorted(referee.computer),
        "computer_refusals": score.computer_refusals,
        "verdict_ms_p50": round(statistics.median(timings), 3),
        "verdict_ms_p99": round(percentile(timings, 0.99), 3),
        "seconds": round(seconds, 1),
    }
    if rig.link is not None:
        result["mcu"] = rig.link.counters()
    if rig.camera is not None:
        result["camera"] = {
            "frame_size": list(FRAME_SIZE),
            "fps": FPS,
            "scene": SCENE,
            "scene_seed": rig.scene_seed,
            "hand_frames": rig.hand_frames,
            "hand_frames_read": rig.hand_frames_read,
        }
    return result


def _play(rig: Rig, referee: Referee, hands: Hands, pick, moves: int) -> Score:
    score = Score()
    game = referee.game
    truth = _lay_out(rig, referee, hands)
    while score.moves_played < moves:
        if referee.phase == OVER:
            score.games += 1
            computer = referee.computer
            referee.new_game(
                game.name, game.players, dict(game.options), seed=f"game {score.games}".encode()
            )
            if computer:
                referee.seat_computer(computer, COMPUTER_LEVEL)
            truth = _lay_out(rig, referee, hands)
            continue
        if game.chance(truth) is not None:
            truth = _draw(rig, referee, truth)
            continue
        if pick.random() < HABITS["illegal"]:
            caught = hands.try_illegal(truth)
            if caught is not None:
                score.illegal_injected += 1
                score.illegal_caught += caught
        move = _choose(referee, hands, truth, pick, score)
        after = game.apply(truth, move)
        rejections: list[str] = []
        referee.listeners.append(_recorder(rejections))
        hands.play(truth, move, after)
        score.panel_choices += hands.answer_panel(truth, after)
        referee.listeners.pop()
        _judge(referee, truth, after, rejections, score)
        truth = after
    if referee.tentative is not None:
        referee.confirm()
    score.final_state_match = referee.positions[-1] == truth
    score.verdict_ms = rig.verdict_ms
    return score


def _lay_out(rig: Rig, referee: Referee, hands: Hands):
    """The hands set the board up as the game starts; the position they laid out."""
    truth = referee.positions[-1]
    rig.set_board(truth)
    hands.settle()
    return truth


def _draw(rig: Rig, referee: Referee, truth):
    """The player draws on the panel; the position after the draw."""
    game = referee.game
    referee.draw()
    after = referee.positions[-1]
    if rig.camera is not None and game.observe(truth) != game.observe(after):
        # a draw that lays things out (Hakenschlagen's setup) starts the game:
        # the hands lay it out and the reader learns it, as at any game's start
        rig.set_board(after)
        rig.camera.learn(game.observe(after))
    rig.pause(1.0)  # the player looks at the draw; the referee prepares meanwhile
    return after


def _choose(referee: Referee, hands: Hands, truth, pick, score: Score):
    """The move the hands will make: the computer's, sometimes disobeyed, or a random one."""
    game = referee.game
    waiting = referee.tentative
    if waiting is not None and game.to_move(waiting[1]) in referee.computer:
        referee.confirm()  # the guest confirms: the computer does not act on a guess
    if not referee.computer_to_move():
        return pick.choice(game.legal_moves(truth))
    from engines.players import computer_move  # the search, only for computer seats

    move = computer_move(game, truth, COMPUTER_SECONDS, COMPUTER_LEVEL, pick.random())
    referee.expect(str(move))
    if pick.random() < HABITS["disobey"]:
        score.computer_refusals += hands.disobey(truth, move)
    return move


def _judge(referee: Referee, truth, after, rejections: list[str], score: Score) -> None:
    """Score what the referee made of a move played on the board; correct it if wrong."""
    score.moves_played += 1
    seen = referee.current() if referee.tentative else referee.positions[-1]
    if seen == after or (referee.phase == OVER and referee.positions[-1] == after):
        score.committed += 1
        return
    if seen == truth or seen in referee.positions[:-1]:
        score.missed_moves += 1
        if "illegal" in rejections or "unreadable" in rejections:
            score.false_rejections += 1
    else:
        score.wrong_commits += 1
    referee.tentative = None
    referee.set_position(referee.game.to_json(after))
    score.corrections += 1


def _moves_by_fill(before: tuple, outcomes: set[tuple]) -> dict[frozenset, list[tuple]]:
    """Legal outcomes (readings) keyed by the cells they fill or change, leaving out
    those they only take a piece off."""
    found: dict[frozenset, list[tuple]] = {}
    for after in outcomes:
        key = frozenset(
            i for i, (was, now) in enumerate(zip(before, after)) if was != now and now is not None
        )
        found.setdefault(key, []).append(after)
    return found


def _reads_as_move(moves: dict[frozenset, list[tuple]], changes: dict[int, Any]) -> bool:
    """Whether a board that differs from the position by ``changes`` (cell index to
    reading) reads as a legal move, whole or with its captured pieces still standing:
    the move fills or changes the same cells to the same, and takes off the cells
    ``changes`` empties and maybe others."""
    key = frozenset(i for i, token in changes.items() if token is not None)
    return any(
        all(after[i] == token for i, token in changes.items()) for after in moves.get(key, ())
    )


def _recorder(kinds: list[str]):
    """A referee listener that notes the kind of every event in ``kinds``."""
    return lambda event: kinds.append(event.kind)
