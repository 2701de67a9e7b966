"""What the search player knows about each game beyond its rules: how to judge a
position it stops playing out (``advantage``), how far to play out first (``depth``),
and, for a game with hidden hands, how to deal what a seat cannot see (``unseen``).

An advantage is a number per seat in the game's own units (rows still to travel,
hunters captured, captives held); ``scale`` turns a difference of one unit into
confidence. A game with no entry is played out to its end at random.

``unseen`` reads nothing but ``game.view(state, seat)``: it never sees the true
hands, pile or cards set aside, so nothing the search does can depend on them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engines.core import Game


@dataclass(frozen=True)
class Knowledge:
    """A game's judgement for the search (see the module docstring)."""

    advantage: Callable[[Game, Any], Sequence[float]] | None = None
    scale: float = 1.0
    #: random moves played after the tree before judging; None: play to the end
    depth: int | None = None
    #: plies an alpha-beta search may look ahead instead of the tree search (two
    #: seats, no hidden information; see ``engines.players.minimax``); 0: tree search
    lookahead: int = 0
    #: the alpha-beta search's value of a position for one seat, when it is not
    #: simply that seat's advantage less the other's
    judgement: Callable[[Game, Any, int], float] | None = None
    #: a cheap guess of how good a move is for the seat making it (higher first):
    #: the alpha-beta search tries moves in this order, so it cuts off sooner and
    #: a budget reaches deeper
    order: Callable[[Game, Any, Any], float] | None = None
    unseen: Callable[[Game, dict, random.Random], Any] | None = None
    #: a decision node below the root lists its moves only on this visit; before
    #: that the search judges (plays out from) its position: for a game whose move
    #: list costs far more than a playout (a Hakenschlagen turn's outcomes)
    expand_after: int = 1


# --- Sternhalma: race every piece into the target point -----------------------------

#: what a foreign piece standing in a seat's target point costs that seat, in steps
#: (the point cannot be filled while it stays)
SQUATTER = 10.0
#: what each way out of the target point that a squatter has is worth to the seat
#: waiting for it, in steps: a random or careless owner moves it out sooner the
#: more ways it has (a chain of jumps to each landing hole is a move of its own)
WAY_OUT = 1.0
#: the ways out counted per squatter
WAYS_OUT_CAP = 8
#: the alpha-beta judgement counts a seat's squatters in full once its pieces are
#: this many steps from a full target, fading to nothing at twice as far: until
#: then the other seat's pieces at home are no block yet, and a squatter cost would
#: make the searched reply of the other seat stay at home instead of racing
ENDGAME_STEPS = 20.0


@cache
def _sternhalma_tips(game: Any) -> tuple[tuple[float, float], ...]:
    """Each seat's target tip: the hole of its target point farthest from the centre."""
    cells = game.board.cells
    tips = []
    for target in game.targets:
        far = max(game.board.zone(target), key=lambda i: math.hypot(*cells[i].xy))
        tips.append(cells[far].xy)
    return tuple(tips)


@cache
def _hole_pitch(game: Any) -> float:
    """The distance between neighbouring holes, the unit of a step."""
    cells, neighbours = game.board.cells, game.board.neighbours
    a = cells[0].xy
    b = cells[neighbours[0][0]].xy
    return math.dist(a, b)


def sternhalma_advantage(game: Any, state: Any) -> list[float]:
    """Minus the steps every piece of a seat still has to its target tip (the
    race), and minus what squatters in its target point cost it (see
    ``sternhalma_judgement``)."""
    race, squat = _sternhalma_race(game, state)
    return [-(steps + cost) for steps, cost in zip(race, squat)]


def sternhalma_judgement(game: Any, state: Any, seat: int) -> float:
    """How far ``seat`` leads the race, less what squatters in its own target cost it.

    A foreign piece in a seat's target point (a squatter) keeps the seat from
    winning until it leaves: it costs the seat ``SQUATTER`` steps, less ``WAY_OUT``
    for each hole outside the point it could move to now, so the seat keeps ways
    out open (a shut-in squatter would block the win forever) and builds ladders of
    jumps for it. Only the searching seat's own target counts: in a difference of
    both seats' costs the squatter's owner would gain by squatting with no way out.
    The cost weighs in only near the end of the seat's race (``ENDGAME_STEPS``)."""
    race, squat = _sternhalma_race(game, state)
    left = race[seat] - _sternhalma_filled(game)[seat]
    weight = min(1.0, max(0.0, 2.0 - left / ENDGAME_STEPS))
    ahead = max(r for other, r in enumerate(race) if other != seat) - race[seat]
    return ahead - weight * squat[seat]


@cache
def _sternhalma_filled(game: Any) -> tuple[float, ...]:
    """Each seat's race when its target point is full of its own pieces."""
    cells, pitch, tips = game.board.cells, _hole_pitch(game), _sternhalma_tips(game)
    return tuple(
        sum(math.dist(cells[hole].xy, tip) for hole in goal) / pitch
        for goal, tip in zip(_sternhalma_goals(game), tips)
    )


def sternhalma_progress(game: Any, state: Any, move: Any) -> float:
    """How much nearer its seat's target tip ``move`` brings its piece (0 for a pass)."""
    if not move.path:
        return 0.0
    board, tip = game.board, _sternhalma_tips(game)[game.to_move(state)]
    origin, destination = (board.cells[board.index[c]].xy for c in (move.origin, move.destination))
    return math.dist(origin, tip) - math.dist(destination, tip)


def _sternhalma_race(game: Any, state: Any) -> tuple[list[float], list[float]]:
    """The steps each seat's pieces still have to its target tip, and what the
    squatters in each seat's target cost it."""
    cells, pitch = game.board.cells, _hole_pitch(game)
    tips, goals = _sternhalma_tips(game), _sternhalma_goals(game)
    holes = state.holes
    race = [0.0] * game.players
    squat = [0.0] * game.players
    for hole, seat in enumerate(holes):
        if seat < 0:
            continue
        race[seat] += math.dist(cells[hole].xy, tips[seat]) / pitch
        for owner, goal in enumerate(goals):
            if owner != seat and hole in goal:
                ways = min(WAYS_OUT_CAP, _ways_out(game, holes, hole, goal))
                squat[owner] += SQUATTER - WAY_OUT * ways
    return race, squat


def _ways_out(game: Any, holes: tuple[int, ...], origin: int, goal: frozenset[int]) -> int:
    """The holes outside ``goal`` the piece on ``origin`` can move to in one move:
    steps, and landing holes of jump chains (each a move of its own)."""
    neighbours, jumps = game.board.neighbours, game.board.jumps
    ways = sum(1 for n in neighbours[origin] if holes[n] < 0 and n not in goal)
    landed, todo = {origin}, [origin]
    while todo:
        at = todo.pop()
        for over, land in jumps[at]:
            if land in landed or over == origin or holes[over] < 0 or holes[land] >= 0:
                continue
            landed.add(land)
            todo.append(land)
            if land not in goal:
                ways += 1
    return ways


@cache
def _sternhalma_goals(game: Any) -> tuple[frozenset[int], ...]:
    return tuple(frozenset(game.board.zone(target)) for target in game.targets)


# --- Catch the Hare: the hare wants captures and room, the hunters a closed net -------


def catch_the_hare_advantage(game: Any, state: Any) -> list[float]:
    """The hare's room beyond what it has at the start: the hunters gain as they
    close their net, the hare as it captures or finds room."""
    room = _hare_room(game, state) - _hare_start(game)
    return [-room, room]


@cache
def _hare_start(game: Any) -> float:
    return _hare_room(game, game.initial_state())


def _hare_room(game: Any, state: Any) -> float:
    """Captures (worth most), hunters the hare can leap now, hunters it could leap
    after one step, and the free points it can walk to."""
    neighbours, jumps = game.board.neighbours, game.board.jumps
    hunters, hare = state.hunters, state.hare
    captured = game.options["hunters"] - len(hunters)

    def leapable(cell: int) -> set[int]:
        return {over for over, land in jumps[cell] if over in hunters and land not in hunters}

    region, todo = {hare}, [hare]
    while todo:
        for cell in neighbours[todo.pop()]:
            if cell not in hunters and cell not in region:
                region.add(cell)
                todo.append(cell)
    now = leapable(hare)
    soon = set().union(*(leapable(c) for c in neighbours[hare] if c not in hunters)) - now
    return float(3.0 * captured + 1.5 * len(now) + 0.3 * len(soon) + 0.5 * len(region))


# --- Hakenschlagen: the race to a turning point and back --------------------------------


@cache
def _hakenschlagen_goals(game: Any) -> tuple[list, list, float, float]:
    """The xy of the turning points and start spaces, the length of one leg, and the
    typical jump (twice the hollow pitch) as the unit."""
    cells = game.board.cells
    turning = [cells[i].xy for i in sorted(game.turning_points)]
    starts = [cells[i].xy for i in sorted(game.start_spaces)]
    leg = min(math.dist(a, b) for a in turning for b in starts)
    return turning, starts, leg, 2 * _hole_pitch(game)


def hakenschlagen_advantage(game: Any, state: Any) -> list[float]:
    """Minus the jumps each hare still needs: to the nearest turning point and one
    leg back, or, once turned, to the nearest start space."""
    turning, starts, leg, jump = _hakenschlagen_goals(game)
    cells = game.board.cells
    left = []
    for hare, turned in zip(state.hares, state.turned):
        at = cells[hare].xy
        if turned:
            left.append(min(math.dist(at, s) for s in starts))
        else:
            left.append(min(math.dist(at, t) for t in turning) + leg)
    return [-distance / jump for distance in left]


# --- Fang den Hut!: captives held, and own hats still free -----------------------------


def fang_den_hut_advantage(game: Any, state: Any) -> list[float]:
    """Captives (what scores) plus half a point for each own hat still in play."""
    free = list(state.home)
    seat_of = {colour: seat for seat, colour in enumerate(game.colours)}
    for hats in state.fields:
        for hat in hats:
            if hat.colour in seat_of:
                free[seat_of[hat.colour]] += 1
    return [captives + 0.5 * hats for captives, hats in zip(game.scores(state), free)]


# --- Fang den Hut! cards: deal the unseen cards consistently with the view -------------


def deal_unseen(game: Any, view: dict, rng: random.Random) -> Any:
    """A state agreeing with ``view`` (one seat's knowledge), the cards the seat
    cannot see shuffled into the other hands, the draw pile, the cards set aside and
    under the stacks' tops and in the taken piles (whose contents never matter)."""
    seat = view["seat"]
    shown = list(view["hand"]) + [stack["top"] for stack in view["table"]]
    unseen = [card for card in game.deck if card not in shown]
    rng.shuffle(unseen)

    def take(count: int) -> list[str]:
        dealt = unseen[:count]
        del unseen[:count]
        return dealt

    hands = [
        list(view["hand"]) if s == seat else take(size) for s, size in enumerate(view["hand_sizes"])
    ]
    table: list[list[str]] = [[] for _ in range(game.players)]
    for stack in view["table"]:
        table[stack["points_at"]] = take(stack["cards"] - 1) + [stack["top"]]
    taken = [take(count) for count in view["taken"]]
    record = {
        "game": view["game"],
        "players": view["players"],
        "options": dict(game.options),
        "state": {
            "hands": hands,
            "table": table,
            "taken": taken,
            "draw_pile": take(view["draw_pile"]),
            "set_aside": take(view["set_aside"]),
            "turn": view["to_move"],
            "results": [result["cards"] for result in view["results"]],
        },
    }
    return game.from_json(record)


#: the knowledge of each game that has some; others are played out at random
KNOWLEDGE = {
    "sternhalma": Knowledge(
        sternhalma_advantage,
        scale=0.15,
        depth=0,
        lookahead=4,
        judgement=sternhalma_judgement,
        order=sternhalma_progress,
    ),
    "catch_the_hare": Knowledge(catch_the_hare_advantage, scale=1.0, depth=0, lookahead=8),
    "hakenschlagen": Knowledge(hakenschlagen_advantage, scale=0.5, depth=0, expand_after=8),
    "fang_den_hut": Knowledge(fang_den_hut_advantage, scale=0.7, depth=8),
    "fang_den_hut_cards": Knowledge(unseen=deal_unseen),
}


def knowledge_of(game: Game) -> Knowledge:
    return KNOWLEDGE.get(game.name, Knowledge())
