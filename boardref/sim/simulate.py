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

import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardref.eventlog.store import Store
from boardref.referee.kinds import Phase
from boardref.referee.referee import Referee
from boardref.runtime.loop_lag import percentile
from boardref.sim.hands import HABITS, SENSORS, SETTLE, Hands, recorder
from boardref.sim.rig import FPS, SCENE, Rig

#: the computer's level; its search is held to the level's playouts, not to a clock,
#: so a run repeats itself move for move on a busy machine too
COMPUTER_LEVEL = "easy"


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
    table=None,
) -> dict[str, Any]:
    """Play ``moves`` moves of random legal games; return the scores as a dict.

    With ``store_path`` the game is resumed from that log and kept there;
    ``on_commit(move_text)`` hears each move the moment it is in the log; the
    ``computer`` seats are played by the computer, carried out by the hands;
    ``sensor`` is "hall", "camera" or "both"; ``mishap`` names what goes wrong at the
    camera's table (one of ``vision.mishaps.CONDITIONS``); ``table(game, seed)``, when
    given, is the camera's table instead of ``vision.render``'s: a renderer with
    ``frame(tokens, hands, under)`` and the lens it sees through (a bench's world).
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
        rig = Rig(referee, noise, seed, sensor, mishaps, table)
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
            "frame_size": list(rig.camera.source.size),
            "fps": FPS,
            "scene": SCENE if table is None else "given",
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
        if referee.phase == Phase.OVER:
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
        referee.listeners.append(recorder(rejections))
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
    game = referee.match.rules
    waiting = referee.tentative
    if waiting is not None and game.to_move(waiting[1]) in referee.computer:
        referee.confirm()  # the guest confirms: the computer does not act on a guess
    if not referee.computer_to_move():
        return pick.choice(game.legal_moves(truth))
    from engines.players import LEVELS, SearchPlayer  # the search, only for computer seats

    search = SearchPlayer(pick.random(), playouts=LEVELS[COMPUTER_LEVEL].playouts)
    move = search.choose(game, truth)
    referee.expect(str(move))
    if pick.random() < HABITS["disobey"]:
        score.computer_refusals += hands.disobey(truth, move)
    return move


def _judge(referee: Referee, truth, after, rejections: list[str], score: Score) -> None:
    """Score what the referee made of a move played on the board; correct it if wrong."""
    score.moves_played += 1
    seen = referee.current() if referee.tentative else referee.positions[-1]
    if seen == after or (referee.phase == Phase.OVER and referee.positions[-1] == after):
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
