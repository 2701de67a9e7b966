"""`boardref play`: a refereed game in the terminal, played by random players, for a
quick look at an engine without a board or a browser.

Each turn a player sometimes tries a move the rules forbid; the engine refuses it
with its reason, and the player then makes a legal move. Nothing here decides a rule.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from engines import IllegalMove, Move, load_game
from engines.chance import Shuffle, Stream


def play(
    game_name: str,
    players: int | None,
    seed: int,
    max_plies: int,
    delay: float,
    wrong_tries: float,
    say: Callable[[str], None] = print,
) -> dict:
    """Play one random game to its end; return a summary."""
    game = load_game(game_name, players)
    if "max_plies" in game.options:  # games that may never end get a draw limit
        game = load_game(game_name, players, max_plies=max_plies)
    stream = Stream(f"terminal {seed}")
    pick = random.Random(seed)
    state = game.initial_state()
    refused = 0
    plies = 0
    say(f"{game}, seed {seed}\n{_picture(game, state)}")
    while (outcome := game.outcome(state)) is None:
        spec = game.chance(state)
        if spec is not None:
            drawn = spec.draw(stream)
            state = game.resolve(state, drawn)
            say(f"  drawn: {drawn}" if not isinstance(spec, Shuffle) else "  shuffled and dealt")
            continue
        seat = game.to_move(state)
        who = game.seat_name(seat)
        moves = game.legal_moves(state)
        if pick.random() < wrong_tries:
            attempt = _wrong_try(game, moves, pick)
            if attempt is not None:
                try:
                    game.apply(state, attempt)
                except IllegalMove as refusal:
                    refused += 1
                    say(f"  a wrong try by {who}, {attempt}: refused, {refusal.reason}")
        move = pick.choice(moves)
        state = game.apply(state, move)
        plies += 1
        say(f"\nmove {plies}, by {who}: {move}\n{_picture(game, state)}")
        if plies >= max_plies and "max_plies" not in game.options:
            say(f"\nStopped after {plies} moves.")
            return {"winners": [], "reason": "stopped", "refused": refused}
        time.sleep(delay)
    winners = ", ".join(game.seat_name(s) for s in outcome.winners) or "nobody (a draw)"
    say(f"\nGame over: {outcome.reason}. Winner: {winners}.")
    return {"winners": list(outcome.winners), "reason": outcome.reason, "refused": refused}


def _picture(game, state) -> str:
    """The game's own text picture, or its cells and tokens for games without one."""
    if hasattr(game, "render"):
        return game.render(state)
    seen = {cell: token for cell, token in game.observe(state).items() if token}
    return ", ".join(f"{cell}: {token}" for cell, token in seen.items()) or "(nothing on the table)"


def _wrong_try(game, moves: Sequence[Move], pick: random.Random) -> Move | None:
    """A plausible mistake: a legal move's piece put down on some other cell."""
    legal = [m for m in moves if getattr(m, "path", ())]
    if not legal:
        return None
    origin = pick.choice(legal).origin
    cells = [cell.id for cell in game.board.cells if cell.id != origin]
    return Move((origin, pick.choice(cells)))
