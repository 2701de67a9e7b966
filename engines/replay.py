"""Replaying and verifying a game record (``engines.records``) through its engine.

``replay`` yields every position of the game; ``verify`` also checks that every
ply is legal, that every draw is what the revealed seed gives (``engines.chance``),
that the seed matches the commitment shown at the start, and that the recorded
result is the engine's. Both raise ``RecordError`` naming the ply or draw where the
record fails. Like every engine module this one does no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engines import load_game
from engines.chance import Stream, commitment
from engines.core import Game
from engines.errors import RecordError, RulesError
from engines.records import Entry, GameRecord, Result, outcome_text, plain, spec_name
from engines.words import words


@dataclass(frozen=True)
class Step:
    """One entry of a record replayed: the position after it, and where it stands.

    ``ply`` is the number of the ply line (for a draw: of the ply before it),
    ``draw`` the draw's number (0 for other entries), ``spec`` the engine's chance
    spec for a draw, ``counter`` the stream's block count after it.
    """

    entry: Entry | None
    state: Any
    ply: int = 0
    draw: int = 0
    spec: Any = None
    counter: int = 0


@dataclass(frozen=True)
class Verified:
    """What a record that verifies holds."""

    game: str
    plies: int
    draws: int
    seed_checked: bool
    result: Result | None


def game_of(record: GameRecord) -> Game:
    """The engine with the record's players and options."""
    return load_game(record.game, record.players, **record.options)


def replay(record: GameRecord, seed: bytes | None = None) -> Iterator[Step]:
    """Every position of the game: first the start, then one ``Step`` per entry.

    Each ply is checked against the rules and each draw against the engine's
    spec; with ``seed``, each draw is also recomputed from it. ``RecordError``
    names the ply or draw where the record fails.
    """
    game = game_of(record)
    positions = [game.initial_state()]
    stream = Stream(seed) if seed else None
    yield Step(None, positions[0])
    ply = draws = 0
    for entry in record.entries:
        state = positions[-1]
        spec = None
        if entry.kind == "ply":
            ply += 1
            positions.append(_played(game, state, entry, ply))
        elif entry.kind == "draw":
            draws += 1
            spec = _drawn_spec(game, state, entry, ply, draws)
            if stream is not None:
                expected = spec.draw(stream)
                if plain(expected) != plain(entry.outcome):
                    raise RecordError(
                        words(
                            "rules.record_draw_not_seed",
                            (
                                "draw {draw} (after ply {ply}, {spec}): the record says "
                                "{recorded}, the revealed seed gives {expected}"
                            ),
                            draw=draws,
                            ply=ply,
                            spec=entry.spec,
                            recorded=outcome_text(entry.outcome),
                            expected=outcome_text(expected),
                        )
                    )
            positions.append(_resolved(game, state, spec, entry, ply, draws))
        elif entry.kind == "takeback":
            if len(positions) < 2:
                raise RecordError(
                    words(
                        "rules.record_takeback_nothing",
                        "a takeback after ply {ply} has nothing to take back",
                        ply=ply,
                    )
                )
            positions.pop()
        elif entry.kind == "position":
            try:
                positions.append(
                    game.from_json(
                        {
                            "game": game.name,
                            "players": game.players,
                            "options": game.options,
                            "state": entry.position,
                        }
                    )
                )
            except RulesError as exc:
                raise _at_ply(ply, exc) from None
        yield Step(
            entry,
            positions[-1],
            ply,
            draws if entry.kind == "draw" else 0,
            spec,
            stream.counter if stream is not None else 0,
        )


def verify(record: GameRecord) -> Verified:
    """Replay ``record`` and recompute its draws from the revealed seed.

    Raises ``RecordError`` saying where the record fails: the seed against the
    commitment, an illegal ply (named by its number), a draw the seed does not give,
    or a result the position does not have. A record with draws but no seed cannot
    be verified (the seed is revealed when the game ends).
    """
    seed = _seed_bytes(record)
    game = game_of(record)
    *_, last = replay(record, seed)
    draws = sum(entry.kind == "draw" for entry in record.entries)
    if draws and seed is None:
        raise RecordError(
            words(
                "rules.record_no_seed",
                "the record has {draws} draws but no revealed seed to check them with",
                draws=draws,
            )
        )
    ended = game.outcome(last.state)
    if record.result is not None:
        if ended is None:
            raise RecordError(
                words(
                    "rules.record_not_over",
                    "the record says the game ended, but after ply {ply} it is not over",
                    ply=last.ply,
                )
            )
        if tuple(ended.winners) != tuple(record.result.winners):
            raise RecordError(
                words(
                    "rules.record_wrong_winners",
                    "the record names winners {recorded}; after ply {ply} the rules give {found}",
                    recorded=[s + 1 for s in record.result.winners] or "none",
                    ply=last.ply,
                    found=[s + 1 for s in ended.winners] or "none",
                )
            )
    result = None if ended is None else Result(ended.winners, str(ended.reason), ended.scores)
    return Verified(record.game, record.plies, draws, seed is not None, result)


def _seed_bytes(record: GameRecord) -> bytes | None:
    if not record.seed:
        return None
    try:
        seed = bytes.fromhex(record.seed)
    except ValueError:
        raise RecordError(
            words("rules.record_seed_hex", "the revealed seed is not hexadecimal")
        ) from None
    if commitment(seed) != record.commitment:
        raise RecordError(
            words(
                "rules.revealed_seed_does_not_match",
                "the revealed seed does not match the commitment shown at the start",
            )
        )
    return seed


def _played(game: Game, state: Any, entry: Entry, ply: int) -> Any:
    spec = game.chance(state)
    seat = game.drawer(state) if spec is not None and entry.move == "pass" else game.to_move(state)
    if seat != entry.seat:
        raise RecordError(
            words(
                "rules.record_wrong_seat",
                "ply {ply} ({move}): the record gives it to seat {recorded}, but {found} acts",
                ply=ply,
                move=entry.move,
                recorded=entry.seat + 1 if entry.seat is not None else "none",
                found="no seat" if seat is None else f"seat {seat + 1}",
            )
        )
    try:
        return game.apply(state, game.parse_move(state, entry.move))
    except RulesError as exc:
        raise RecordError(
            words(
                "rules.record_illegal_ply",
                "ply {ply} ({move}) is not legal: {reason}",
                ply=ply,
                move=entry.move,
                reason=exc.words,
            )
        ) from None


def _drawn_spec(game: Game, state: Any, entry: Entry, ply: int, draw: int) -> Any:
    spec = game.chance(state)
    if spec is None:
        raise RecordError(
            words(
                "rules.record_draw_not_due",
                "draw {draw} (after ply {ply}): the game asks for no draw there",
                draw=draw,
                ply=ply,
            )
        )
    if spec_name(spec) != entry.spec:
        raise RecordError(
            words(
                "rules.record_draw_other_spec",
                (
                    "draw {draw} (after ply {ply}): the record says {recorded}, "
                    "the game asks for {spec}"
                ),
                draw=draw,
                ply=ply,
                recorded=entry.spec,
                spec=spec_name(spec),
            )
        )
    return spec


def _resolved(game: Game, state: Any, spec: Any, entry: Entry, ply: int, draw: int) -> Any:
    try:
        return game.resolve(state, _tuples(entry.outcome))
    except RulesError as exc:
        raise RecordError(
            words(
                "rules.record_draw_impossible",
                "draw {draw} (after ply {ply}): {outcome} cannot be drawn: {reason}",
                draw=draw,
                ply=ply,
                outcome=outcome_text(entry.outcome),
                reason=exc.words,
            )
        ) from None


def _at_ply(ply: int, exc: RulesError) -> RecordError:
    return RecordError(
        words(
            "rules.record_bad_position",
            "the position set after ply {ply} is not a position of this game: {reason}",
            ply=ply,
            reason=exc.words,
        )
    )


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
