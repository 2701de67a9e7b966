"""Alpha-beta search for two-seat games of perfect information without chance,
where a game's ``Knowledge.advantage`` judges a position better than random
playouts can (Catch the Hare, two-seat Sternhalma).

Iterative deepening: depth 1, 2, ... while the budget lasts, each depth searched
with the best move of the one before first. The budget is counted in positions
judged (one judgement stands for one playout of the tree search, so a level means
the same work in both searches) and/or seconds; a depth cut short by the budget is
dropped and the last whole depth decides. Moves are searched in an order shuffled
by the player's RNG, so equal moves are chosen at random and a seeded search is
reproducible under a judgement budget; below the root, a game with a cheap guess
of a move's worth (``Knowledge.order``, Sternhalma's progress) has its replies
tried best first, so cut-offs come sooner and the same budget reaches deeper. It
never reads the clock but through ``time.perf_counter`` and never changes the
rules' state.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from engines.core import Game
from engines.players.knowledge import Knowledge

#: a won position's value, less one for each ply it takes (the quicker win is better)
WON = 1_000_000.0


class _OutOfBudget(Exception):
    """The budget ran out in the middle of a depth."""


def fits(game: Game, knowledge: Knowledge) -> bool:
    """Whether this search serves ``game``: two seats, a judgement, asked for."""
    return knowledge.lookahead > 0 and knowledge.advantage is not None and game.players == 2


def best_move(
    game: Game,
    state: Any,
    knowledge: Knowledge,
    rng: random.Random,
    judgements: int | None,
    stop: float | None,
) -> tuple[Any, int]:
    """The move for the seat to act, and how many positions were judged."""
    seat = game.to_move(state)
    if seat is None:
        raise ValueError("nobody is to move here: there is no move to search for")
    search = _AlphaBeta(game, knowledge, seat, judgements, stop)
    moves = list(game.legal_moves(state))
    rng.shuffle(moves)
    best = moves[0]
    depth = 1
    while True:
        try:
            value, best = search.root(state, moves, depth)
        except _OutOfBudget:
            break
        if value >= WON - depth or value <= -WON + depth:
            break  # the end is in sight: deeper cannot change the verdict
        moves.remove(best)
        moves.insert(0, best)
        depth += 1
        if depth > knowledge.lookahead:
            break
    return best, search.judged


class _AlphaBeta:
    def __init__(
        self,
        game: Game,
        knowledge: Knowledge,
        seat: int,
        judgements: int | None,
        stop: float | None,
    ) -> None:
        self.game, self.knowledge, self.seat = game, knowledge, seat
        self.judgements, self.stop = judgements, stop
        self.judged = 0
        self.first_depth = True

    def root(self, state: Any, moves: list[Any], depth: int) -> tuple[float, Any]:
        """The best of ``moves`` searched ``depth`` plies deep, with its value."""
        alpha, best = -math.inf, moves[0]
        for move in moves:
            after = self.game.apply(state, move)
            value = -self.negamax(after, depth - 1, -math.inf, -alpha, 1)
            if value > alpha:
                alpha, best = value, move
        self.first_depth = False
        return alpha, best

    def negamax(self, state: Any, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of ``state`` for the seat to act there, ``ply`` moves below the
        root, so the searcher's seat on even plies, the other on odd (negamax, fail-hard)."""
        game = self.game
        acting = self.seat if ply % 2 == 0 else 1 - self.seat
        ended = game.outcome(state)
        if ended is not None:
            if len(ended.winners) != 1:
                return 0.0
            return WON - ply if ended.winners[0] == acting else ply - WON
        if depth == 0 or game.chance(state) is not None:
            return self._judge(state, acting)
        for _, after in self._ordered(state, game.successors(state)):
            value = -self.negamax(after, depth - 1, -beta, -alpha, ply + 1)
            if value >= beta:
                return beta
            alpha = max(alpha, value)
        return alpha

    def _ordered(self, state: Any, successors: list) -> list:
        """``successors`` most promising first, by the game's cheap guess if it has one
        (a good reply searched first lets alpha-beta cut off the rest)."""
        order = self.knowledge.order
        if order is None:
            return successors
        return sorted(successors, key=lambda pair: -order(self.game, state, pair[0]))

    def _judge(self, state: Any, acting: int) -> float:
        """The advantage of the seat to act over the other, counted against the
        budget (the first depth always finishes, so some move is ranked)."""
        if not self.first_depth:
            if self.judgements is not None and self.judged >= self.judgements:
                raise _OutOfBudget
            if self.stop is not None and self.judged % 16 == 0 and time.perf_counter() > self.stop:
                raise _OutOfBudget
        self.judged += 1
        knowledge = self.knowledge
        if knowledge.judgement is None:
            if knowledge.advantage is None:
                raise AssertionError("a search without a judgement needs an advantage (fits)")
            advantage = knowledge.advantage(self.game, state)
            return advantage[acting] - advantage[1 - acting]
        # a judgement for one seat: the searcher's, negated for the other seat
        value = knowledge.judgement(self.game, state, self.seat)
        return value if acting == self.seat else -value
