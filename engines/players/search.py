"""Monte Carlo tree search for any registered game, and the random player.

``SearchPlayer`` runs UCT (upper confidence bounds on trees) over moves and chance:

- a decision node keeps one child per move tried, picked by UCB1 for the seat to
  move, so every seat plays for itself (games of 2 to 6 seats alike);
- chance (a die, marbles, a coaster, a shuffle) is a node whose children are
  outcomes *sampled* from the spec's probabilities with the player's own RNG, never
  drawn from the game's stream, so the search cannot foresee a real draw; a spec
  with too many outcomes to branch on ends the tree and the playout samples it;
- hidden information is determinised: each iteration deals what the seat cannot
  see afresh from ``game.view(state, seat)`` alone (``Knowledge.unseen``), and
  the tree is keyed by moves, not states (single-observer information-set MCTS,
  with availability counts in UCB1). A game whose view hides something and that
  has no ``unseen`` is refused rather than searched on the true state;
- a playout makes random moves to the end, or ``Knowledge.depth`` moves and then
  judges the position with ``Knowledge.advantage``.

A game whose knowledge asks for ``lookahead`` (two seats, perfect information) is
searched with alpha-beta instead (``engines.players.minimax``), on the same budget.

The time budget reads ``time.perf_counter``; it never touches the rules, which stay
as pure as the rest of ``engines``. A playout budget alone is reproducible: the same
seed, state and budget give the same move.
"""

from __future__ import annotations

import bisect
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from engines.core import Game, Outcome
from engines.errors import RulesError
from engines.players import minimax
from engines.players.knowledge import Knowledge, knowledge_of
from engines.playouts import played_out
from engines.words import words

#: UCB1's exploration weight for rewards in [0, 1]
EXPLORATION = 0.7
#: a chance spec with more outcomes than this is sampled in playouts, not branched on
MAX_CHANCE_CHILDREN = 64
#: a playout of a game with no ``depth`` is cut (and judged, or drawn) after this
PLAYOUT_CAP = 1000
#: above this many moves, untried moves are drawn at random by index rather than
#: queued: a Hakenschlagen turn (hundreds to tens of thousands of outcomes) is then
#: written out only for the moves tried, and a draw rarely repeats one
DRAWN_ABOVE = 256
#: seconds kept back from a move's clock: to pick the move and return it, and for a
#: step that takes longer than any before it (a busy machine, a new turn listed)
FINISH_S = 0.1
#: a solo game's reward for ``points``: points / (points + SOLO_POINTS)
SOLO_POINTS = 10.0


def random_step(game: Game, state: Any, pick: random.Random, stream: Any) -> Any:
    """The next state of random play: chance drawn from ``stream`` (an
    ``engines.chance.Stream``) when it is due, else ``game.random_play`` with ``pick``."""
    spec = game.chance(state)
    if spec is not None:
        return game.resolve(state, spec.draw(stream))
    return game.random_play(state, pick)[1]


def _random_move(game: Game) -> Callable[[Any, random.Random], Any]:
    """The state after ``game.random_play``."""
    return lambda state, pick: game.random_play(state, pick)[1]


def random_playout(game: Game, state: Any, pick: random.Random, stream: Any) -> list:
    """Every state of random play from ``state`` to the end of the game."""
    states = [state]
    while game.outcome(state) is None:
        state = random_step(game, state, pick, stream)
        states.append(state)
    return states


def random_decisions(game: Game, state: Any, pick: random.Random, stream: Any, limit: int) -> list:
    """The positions where a seat is to move, in random play (``random_step``) from
    ``state``: the first ``limit`` of them, fewer if the game ends first."""
    found: list[Any] = []
    while len(found) < limit and game.outcome(state) is None:
        if game.chance(state) is None:
            found.append(state)
            if len(found) == limit:
                break
        state = random_step(game, state, pick, stream)
    return found


class RandomPlayer:
    """Plays a legal move chosen uniformly at random (seeded)."""

    def __init__(self, seed: Any = None) -> None:
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return "RandomPlayer()"

    def choose(self, game: Game, state: Any, seat: int | None = None) -> Any:
        _mover(game, state, seat)
        return self.rng.choice(game.legal_moves(state))


class _OutOfTime(Exception):
    """The clock ran out in the middle of an iteration, which is dropped."""


class SearchPlayer:
    """Monte Carlo tree search within ``playouts`` iterations and/or ``deadline_s``
    seconds a move (at least one must be given); ``seed`` makes it reproducible
    under a playout budget. A game searched with alpha-beta judges ``judgements``
    positions instead (``playouts`` unless given)."""

    def __init__(
        self,
        seed: Any = None,
        playouts: int | None = None,
        deadline_s: float | None = None,
        exploration: float = EXPLORATION,
        judgements: int | None = None,
    ) -> None:
        if playouts is None and deadline_s is None:
            raise ValueError("a search needs a budget: playouts, deadline_s or both")
        if playouts is not None and playouts < 1:
            raise ValueError(f"playouts must be at least 1, not {playouts!r}")
        if deadline_s is not None and deadline_s <= 0:
            raise ValueError(f"deadline_s must be positive, not {deadline_s!r}")
        self.rng = random.Random(seed)
        self.playouts = playouts
        #: the alpha-beta search's budget, positions judged (default: ``playouts``)
        self.judgements = playouts if judgements is None else judgements
        self.deadline_s = deadline_s
        self.exploration = exploration
        #: iterations run for the last move chosen (for benchmarks and logs)
        self.last_playouts = 0

    def __repr__(self) -> str:
        return f"SearchPlayer(playouts={self.playouts}, deadline_s={self.deadline_s})"

    def choose(self, game: Game, state: Any, seat: int | None = None) -> Any:
        started = time.perf_counter()
        seat = _mover(game, state, seat)
        moves = game.legal_moves(state)
        if len(moves) == 1:
            self.last_playouts = 0
            return moves[0]
        knowledge = knowledge_of(game)
        stop = None if self.deadline_s is None else started + self.deadline_s - FINISH_S
        if minimax.fits(game, knowledge):
            move, self.last_playouts = minimax.best_move(
                game, state, knowledge, self.rng, self.judgements, stop
            )
            return move
        search = _Search(game, knowledge, self.rng, self.exploration, stop)
        deal = search.dealer(state, seat)
        root = _Node(game.players)
        done, longest, now = 0, 0.0, time.perf_counter()
        # one iteration starts only if the longest so far would still end in time, and
        # the clock is also read at every step inside one (a busy machine can stretch
        # an iteration), which is then dropped
        while (self.playouts is None or done < self.playouts) and (
            stop is None or done == 0 or now + longest < stop
        ):
            try:
                search.iterate(root, deal())
            except _OutOfTime:
                break
            done += 1
            before, now = now, time.perf_counter()
            longest = max(longest, now - before)
        self.last_playouts = done
        tried = [item for item in root.children.items() if item[1].visits]
        if not tried:  # not one iteration in the time: any legal move
            return self.rng.choice(moves)
        move, _ = max(
            tried, key=lambda item: (item[1].visits, item[1].value[seat] / item[1].visits)
        )
        return move


def _mover(game: Game, state: Any, seat: int | None) -> int:
    """The seat to act; ``RulesError`` if nobody (or not ``seat``) may move."""
    moving = game.to_move(state)
    if moving is None:
        over = game.outcome(state) is not None
        why = words("rules.search.over", "the game is over") if over else _CHANCE_FIRST
        raise RulesError(words("rules.search.no_move", "no move to choose: {why}", why=why))
    if seat is not None and seat != moving:
        raise RulesError(
            words(
                "rules.search.not_to_move",
                "to move: {moving}, not {seat}",
                seat=game.seat_words(seat),
                moving=game.seat_words(moving),
            )
        )
    return moving


#: why a search has no move while a die, bag or deck is still to be drawn from
_CHANCE_FIRST = words("rules.search.chance", "a roll or draw comes first")


class _Node:
    """Statistics of one move or chance outcome sequence from the root."""

    __slots__ = ("visits", "value", "seen", "children", "waiting", "queue", "merged")

    def __init__(self, players: int) -> None:
        self.visits = 0
        #: summed reward of each seat over the visits
        self.value = [0.0] * players
        #: how often this move was legal when its parent was visited (hidden games)
        self.seen = 0
        self.children: dict[Any, _Node] = {}
        #: legal moves not tried yet, in random order, and the same as a set
        self.queue: list = []
        self.waiting: set = set()
        #: the move list last merged into ``queue`` (the same list for the same state)
        self.merged: Sequence[Any] | None = None


class _Search:
    """One move's search: the game, what is known about it, and per-search caches."""

    def __init__(
        self,
        game: Game,
        knowledge: Knowledge,
        rng: random.Random,
        exploration: float,
        stop: float | None = None,
    ) -> None:
        """``stop``: the ``time.perf_counter`` reading at which an iteration is dropped."""
        self.game = game
        self.stop = stop
        self._checked: float | None = None
        self._longest_step = 0.0
        self.knowledge = knowledge
        self.rng = rng
        self.exploration = exploration
        self.hidden = False
        self._moves: dict[Any, Sequence[Any]] = {}
        self._chance: dict[Any, tuple[list, list[float]] | None] = {}
        self._stream = _RandomStream(rng)

    def dealer(self, state: Any, seat: int) -> Callable[[], Any]:
        """A function giving a state to search from: ``state`` itself in a game of
        perfect information, else a fresh deal of what ``seat`` cannot see."""
        game = self.game
        view = game.view(state, seat)
        unseen = self.knowledge.unseen
        if unseen is not None:
            self.hidden = True
            return lambda: unseen(game, view, self.rng)
        if view != game.to_json(state):
            raise RulesError(
                words(
                    "rules.search.hidden",
                    "this game hides information from {seat}, and the search has no way "
                    "to deal what it cannot see",
                    seat=game.seat_words(seat),
                )
            )
        return lambda: state

    def iterate(self, root: _Node, state: Any) -> None:
        game, node, path = self.game, root, [root]
        rewards: Sequence[float] | None = None
        while True:
            self._check_clock()
            ended = game.outcome(state)
            if ended is not None:
                rewards = self.rewards(ended)
                break
            spec = game.chance(state)
            if spec is not None:
                table = self._outcomes(spec)
                if table is None:
                    break
                outcome = self._drawn(table)
                state = game.resolve(state, outcome)
                node = node.children.setdefault(outcome, _Node(game.players))
                path.append(node)
                continue
            if node is not root and node.visits + 1 < self.knowledge.expand_after:
                break
            moves = self.legal_moves(state)
            legal = set(moves) if self.hidden else None
            if self.hidden:
                for move in moves:
                    if move in node.children:
                        node.children[move].seen += 1
            move = self._untried(node, moves, legal)
            if move is not None:
                state = game.apply(state, move)
                node.children[move] = child = _Node(game.players)
                child.seen = 1
                path.append(child)
                break
            seat = game.to_move(state)
            if seat is None:
                raise AssertionError("a position with no draw due and no outcome has a seat to act")
            move, node = self._select(node, moves, seat)
            state = game.apply(state, move)
            path.append(node)
        if rewards is None:
            rewards = self.playout(state)
        for visited in path:
            visited.visits += 1
            for seat, reward in enumerate(rewards):
                visited.value[seat] += reward

    def _check_clock(self) -> None:
        """Drop the iteration when the longest step so far would end after ``stop``
        (a step, such as listing a Hakenschlagen turn, cannot be cut)."""
        if self.stop is None:
            return
        now = time.perf_counter()
        if self._checked is not None:
            self._longest_step = max(self._longest_step, now - self._checked)
        self._checked = now
        if now + self._longest_step > self.stop:
            raise _OutOfTime

    def legal_moves(self, state: Any) -> Sequence[Any]:
        """The moves at ``state``, one list object per state (nodes merge by identity)."""
        moves = self._moves.get(state)
        if moves is None:
            moves = self._moves[state] = self.game.legal_moves(state)
        return moves

    def _untried(self, node: _Node, moves: Sequence[Any], legal: set | None) -> Any:
        """A legal move not yet tried at ``node`` (random order), or None."""
        if legal is None and len(moves) > DRAWN_ABOVE:
            # thousands of outcomes (a Hakenschlagen turn): draw untried ones by
            # index, never writing every move out
            if len(node.children) >= len(moves):
                return None
            while True:
                move = moves[self.rng.randrange(len(moves))]
                if move not in node.children:
                    return move
        if node.merged is not moves:
            node.merged = moves
            queue = node.queue
            for move in moves:
                if move not in node.children and move not in node.waiting:
                    node.waiting.add(move)
                    queue.append(move)
                    swap = self.rng.randrange(len(queue))
                    queue[swap], queue[-1] = queue[-1], queue[swap]
        for at in range(len(node.queue) - 1, -1, -1):
            move = node.queue[at]
            if legal is None or move in legal:
                node.queue.pop(at)
                node.waiting.discard(move)
                return move
        return None

    def _select(self, node: _Node, moves: Sequence[Any], seat: int) -> tuple[Any, _Node]:
        """UCB1 for ``seat`` over the children legal now (all are tried)."""
        weight = self.exploration
        parent_log = math.log(node.visits) if node.visits else 0.0
        best, best_score = None, -math.inf
        for move in moves:
            child = node.children[move]
            log_n = math.log(child.seen) if self.hidden else parent_log
            score = child.value[seat] / child.visits + weight * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = move, score
        return best, node.children[best]

    def playout(self, state: Any) -> Sequence[float]:
        """Random moves to the end, or ``depth`` moves and the advantage's verdict."""
        game, limit = (
            self.game,
            PLAYOUT_CAP if self.knowledge.depth is None else self.knowledge.depth,
        )
        own = getattr(game, "playout", None)
        if own is not None:  # the game's own, faster, with the same draws
            end = own(state, self.rng, self._sample, limit, self._check_clock)
        else:
            steps = (game.outcome, game.chance, game.resolve, _random_move(game))
            end = played_out(state, self.rng, self._sample, limit, self._check_clock, steps)
        return self.rewards(end) if isinstance(end, Outcome) else self.judge(end)

    def judge(self, state: Any) -> list[float]:
        """Each seat's share of a win, from the advantage (a softmax of it); a draw
        when the game has no advantage to judge by."""
        players = self.game.players
        if self.knowledge.advantage is None:
            return [1 / players] * players
        scale = self.knowledge.scale
        advantage = self.knowledge.advantage(self.game, state)
        top = max(advantage)
        weights = [math.exp(scale * (a - top)) for a in advantage]
        total = sum(weights)
        return [w / total for w in weights]

    def rewards(self, outcome: Outcome) -> list[float]:
        """A win's share for each seat: split among the winners, equal in a draw;
        alone at the table, more points are better."""
        players = self.game.players
        if players == 1:
            points = max(0.0, float(outcome.scores[0])) if outcome.scores else SOLO_POINTS
            return [points / (points + SOLO_POINTS)]
        if not outcome.winners:
            return [1 / players] * players
        share = 1 / len(outcome.winners)
        return [share if seat in outcome.winners else 0.0 for seat in range(players)]

    def _outcomes(self, spec: Any) -> tuple[list, list[float]] | None:
        """The outcomes of ``spec`` with cumulative probabilities, if few enough."""
        try:
            return self._chance[spec]
        except KeyError:
            pass
        listed = spec.outcomes()
        table = None
        if listed is not None and len(listed) <= MAX_CHANCE_CHILDREN:
            total, cumulative = 0.0, []
            for _, probability in listed:
                total += probability
                cumulative.append(total)
            table = ([outcome for outcome, _ in listed], cumulative)
        self._chance[spec] = table
        return table

    def _sample(self, spec: Any) -> Any:
        table = self._outcomes(spec)
        if table is None:
            return spec.draw(self._stream)
        return self._drawn(table)

    def _drawn(self, table: tuple[list, list[float]]) -> Any:
        """One outcome of ``table`` (``_outcomes``): what ``self.rng.choices`` draws,
        without its checks (a playout samples thousands of times a second)."""
        outcomes, cumulative = table
        at = bisect.bisect(cumulative, self.rng.random() * cumulative[-1], 0, len(outcomes) - 1)
        return outcomes[at]


class _RandomStream:
    """Stands in for ``engines.chance.Stream`` in the search: the specs draw through
    ``below`` alone, and imagined draws come from the player's own RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def below(self, n: int) -> int:
        return self.rng.randrange(n)
