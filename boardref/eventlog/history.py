"""The games a table has played, looked at afterwards: the list with its filters, a
page at a time, each game's record (``engines.records``) built from the event log,
its replay step by step, and records imported from elsewhere.

It reads through a connection of its own (a year of history must never hold up the
referee's writes) and writes only imports and each ended game's league row; it never
touches the game being played: that game is not listed and has no record yet (its
seed and any hidden hands stay secret until it ends).
"""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from typing import Any

from boardref.eventlog.league_games import (
    CHANGES,
    LEAGUE_GAMES,
    Outcome,
    Seated,
    changes_counted,
    outcome_of,
    row_statement,
)
from boardref.eventlog.players import LeagueError, Players, names_of, player_tag, seat_statements
from boardref.eventlog.store import Store, StoredGame
from boardref.referee.kinds import Phase
from boardref.referee.snapshot import Ending, Said, TableState, seats_of
from engines import Game, RulesError, load_game
from engines.chance import spec_from_json
from engines.records import Entry, GameRecord, Result, line, spec_name, to_json, write
from engines.replay import game_of, replay, verify
from engines.words import Words, words

#: where a game was played, for games imported from other tables
ORIGINS = "game_id INTEGER PRIMARY KEY, table_id TEXT NOT NULL"
#: what is kept of a pruned game (``boardref.eventlog.retention``), for a players'
#: league: seats, per seat, whether the computer played it and the device that claimed
#: it at the panel; winners and reason, none when it was abandoned
RESULTS = (
    "game_id INTEGER PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,"
    " table_id TEXT NOT NULL, started REAL NOT NULL, ended REAL NOT NULL,"
    " seats TEXT NOT NULL, winners TEXT, reason TEXT, scores TEXT, plies INTEGER NOT NULL"
)
#: the marks a logged move may carry, as the referee writes them
MARKS = ("corrected", "confirmed", "chosen")
DAY = 86400
#: the record's tag with the referee's word on whether the game counts for the league
RATED_TAG = "Rated"
#: games whose league rows are worked out per transaction, so the referee's next
#: event never waits long
LEAGUE_BATCH = 50


class HistoryError(Exception):
    """A history request that cannot be answered, in words."""

    def __init__(self, said: Words, status: int = 404):
        super().__init__(str(said))
        self.words, self.status = said, status


@dataclass(frozen=True)
class Summary:
    """One ended game as the list shows it (``boardref games list``, ``GET /api/games``)."""

    id: int
    game: str
    players: int
    #: the table it was played at
    table: str
    #: when it began and ended, seconds since 1970 (UTC)
    started: float
    ended: float
    #: a new game was started before this one ended
    abandoned: bool
    #: the winning seats, from 0 (none: a draw, or abandoned)
    winners: tuple[int, ...]
    plies: int
    #: the winning seats as the game names them ("Red", "the hare"), as words
    winners_said: tuple[dict[str, Any], ...] = ()


@cache
def seats_said(name: str, players: int, options: str) -> tuple[dict[str, Any], ...]:
    """The seats of a game as it names them, as words; a game this version cannot
    load (an engine's options changed since) has its seats numbered."""
    try:
        game = load_game(name, players, **json.loads(options))
        return tuple(game.seat_words(s).to_json() for s in range(players))
    except RulesError:
        return tuple(words("seat", "Seat {n}", n=s + 1).to_json() for s in range(players))


class History:
    """The ended games in one table's event log; ``table`` is this table's name."""

    def __init__(self, store: Store, table: str):
        self.store, self.table = store, table
        store.define("origins", ORIGINS)
        store.define("results", RESULTS)
        store.define("league_games", LEAGUE_GAMES)
        store.define("league_changes", CHANGES)
        #: the café's players, named in each record
        self.players = Players(store)
        if not store.reading:
            store.write(changes_counted())
        alone = store.reading or str(store.path) == ":memory:"
        self._reader: Store | None = store if alone else None
        self._opening = threading.Lock()
        #: one thread works the league's missing rows out at a time (the pruner as a
        #: game ends, a standings request): an old log has them all to work out once
        self._working = threading.Lock()
        #: the league rows read so far, by game, with the text each was read from
        self._outcomes: dict[int, tuple[str, Outcome]] = {}

    def reader(self) -> Store:
        """The log as the history reads it: beside a writer, a connection of its own,
        so a list or a replay read on a worker thread never waits for the referee's
        writes nor holds them up."""
        with self._opening:
            if self._reader is None:
                self._reader = Store(self.store.path, reading=True, checked=True)
            return self._reader

    def close(self) -> None:
        """Close the history's own connection (the store is its owner's to close)."""
        with self._opening:
            if self._reader is not None and self._reader is not self.store:
                self._reader.close()
            self._reader = None

    # --- reading ------------------------------------------------------------------------

    def games(
        self,
        game: str | None = None,
        day: str | None = None,
        table: str | None = None,
        limit: int = 500,
        before: int | None = None,
    ) -> list[Summary]:
        """Ended games, newest first, at most ``limit``; ``before`` (a game's id) asks
        for the ones listed after it. ``day`` (YYYY-MM-DD, this machine's time zone)
        is the day a game began. Games in which nothing was played are left out."""
        where = ["g.ended IS NOT NULL"]
        params: list[object] = [self.table]
        if game:
            where.append("g.game = ?")
            params.append(game)
        if day:
            first = day_start(day)
            where.append("g.started >= ? AND g.started < ?")
            params += [first, first + DAY]
        if table:
            where.append("COALESCE(o.table_id, ?) = ?")
            params += [self.table, table]
        if before is not None:
            where.append("(g.started, g.id) < (SELECT started, id FROM games WHERE id = ?)")
            params.append(before)
        rows = self.reader().read(
            "SELECT g.id, g.game, g.players, g.options, COALESCE(o.table_id, ?),"
            " g.started, g.ended,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id AND e.kind = 'move'),"
            " (SELECT data FROM events e WHERE e.game_id = g.id AND e.kind = 'game_over'"
            "  ORDER BY e.id DESC LIMIT 1)"
            " FROM games g LEFT JOIN origins o ON o.game_id = g.id"
            f" WHERE {' AND '.join(where)} AND EXISTS (SELECT 1 FROM events e"
            "  WHERE e.game_id = g.id AND e.kind IN ('move', 'chance'))"
            " ORDER BY g.started DESC, g.id DESC LIMIT ?",
            (*params, limit),
        )
        found = []
        for gid, name, players, options, origin, started, ended, plies, over in rows:
            winners = tuple(json.loads(over)["winners"]) if over else ()
            seats = seats_said(name, players, options)
            said = tuple(seats[s] for s in winners)
            found.append(
                Summary(
                    gid, name, players, origin, started, ended, over is None, winners, plies, said
                )
            )
        return found

    def record(self, game_id: int) -> GameRecord:
        """The record of an ended game; ``HistoryError`` for an open or unknown one."""
        stored = self._ended(game_id)
        reader = self.reader()
        origin = reader.read("SELECT table_id FROM origins WHERE game_id = ?", (game_id,))
        ended = reader.read("SELECT ended FROM games WHERE id = ?", (game_id,))[0][0]
        record = record_of(stored, origin[0][0] if origin else self.table, ended)
        tags = {player_tag(seat): name for seat, name in self.players.names(game_id).items()}
        rated = self.players.rated(game_id)
        if rated is not None:
            tags[RATED_TAG] = "yes" if rated else "no"
        return replace(record, tags=record.tags | tags)

    def _ended(self, game_id: int) -> StoredGame:
        rows = self.reader().read("SELECT ended FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise HistoryError(words("history.no_game", "There is no game {id}", id=game_id))
        if rows[0][0] is None:
            raise HistoryError(
                words(
                    "history.still_playing",
                    "Game {id} is still being played: its record is ready when it ends",
                    id=game_id,
                ),
                409,
            )
        return self.reader().game(game_id)

    # --- the league's rows -------------------------------------------------------------

    def keep_outcomes(self) -> list[tuple[Outcome, float]]:
        """Work out the rows of the ended games that have none yet (a game in which
        nothing was played has none) and keep them, unless the log is only read;
        returns them with when each ended."""
        with self._working:  # a second caller then finds nothing missing
            missing = self.reader().read(
                "SELECT g.id, g.ended FROM games g WHERE g.ended IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM league_games l WHERE l.game_id = g.id)"
                " AND EXISTS (SELECT 1 FROM events e WHERE e.game_id = g.id"
                "  AND e.kind IN ('move', 'chance'))"
            )
            worked: list[tuple[Outcome, float]] = []
            for first in range(0, len(missing), LEAGUE_BATCH):
                batch = []
                for gid, ended in missing[first : first + LEAGUE_BATCH]:
                    try:
                        batch.append((outcome_of(gid, self.record(gid)), ended))
                    except HistoryError:
                        continue  # pruned meanwhile, its row kept by the pruning
                if not self.store.reading:
                    self.store.write([row_statement(outcome, ended) for outcome, ended in batch])
                worked += batch
            return worked

    def kept_outcomes(self, game: str, first: float, after: float) -> list[Seated]:
        """Every finished game of ``game`` that ended in [first, after) with its named
        seats (as the players are called now) and the referee's word on rating it."""
        fresh = [
            outcome
            for outcome, ended in self.keep_outcomes()
            if outcome.game == game and first <= ended < after
        ]
        reader, span = self.reader(), (game, first, after)
        rows = reader.read(
            "SELECT l.game_id, l.outcome, r.rated FROM league_games l"
            " LEFT JOIN league_rated r ON r.game_id = l.game_id"
            " WHERE l.game = ? AND l.ended >= ? AND l.ended < ?",
            span,
        )
        names: dict[int, dict[int, str]] = {}
        for gid, seat, name in reader.read(
            "SELECT s.game_id, s.seat, p.name FROM league_games l"
            " JOIN seat_players s ON s.game_id = l.game_id JOIN players p ON p.id = s.player_id"
            " WHERE l.game = ? AND l.ended >= ? AND l.ended < ?",
            span,
        ):
            names.setdefault(gid, {})[seat] = name
        found = [
            Seated(self._outcome(gid, game, text), names.get(gid, {}), _rated(rated))
            for gid, text, rated in rows
        ]
        if self.store.reading:  # worked out but not kept: read beside them
            players = self.players
            found += [Seated(o, players.names(o.game_id), players.rated(o.game_id)) for o in fresh]
        return found

    def league_changes(self) -> int | None:
        """How many changes the league's tables have seen: standings worked out at the
        same count are still true (None: this log does not count them)."""
        found = self.reader().read("SELECT n FROM league_changes")
        return found[0][0] if found else None

    def _outcome(self, game_id: int, game: str, text: str) -> Outcome:
        """A kept row read: each is read once, as rows never change."""
        known = self._outcomes.get(game_id)
        if known is None or known[0] != text:
            known = self._outcomes[game_id] = (text, Outcome.from_json(game_id, game, text))
        return known[1]

    # --- writing ------------------------------------------------------------------------

    def import_record(self, record: GameRecord) -> int:
        """Add a record played elsewhere to this log; returns its new id. Only a record
        of an ended game that verifies is taken (``RulesError`` says why not)."""
        if record.result is None and not record.abandoned:
            raise HistoryError(
                words(
                    "history.import_unfinished",
                    "Only a game that has ended can be imported: this record has no result",
                ),
                422,
            )
        verify(record)
        twice = self.store.read(
            "SELECT id FROM games WHERE commitment = ? AND game = ?",
            (record.commitment, record.game),
        )
        if record.commitment and twice:
            raise HistoryError(
                words(
                    "history.import_twice",
                    "This game is already in the history as game {id}",
                    id=twice[0][0],
                ),
                409,
            )
        try:
            seated = seat_statements("(SELECT MAX(id) FROM games)", names_of(record))
        except LeagueError as exc:
            raise HistoryError(exc.words, 422) from None
        events = events_of(record)
        now = time.time()
        started, ended = epoch(record.start, now), epoch(record.end, now)
        newest = "(SELECT MAX(id) FROM games)"
        statements = [
            (
                "INSERT INTO games (game, players, options, seed, commitment, started, ended)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record.game,
                    record.players,
                    json.dumps(record.options),
                    bytes.fromhex(record.seed),
                    record.commitment,
                    started,
                    ended,
                ),
            ),
            *(
                (
                    f"INSERT INTO events (game_id, kind, data, at) VALUES ({newest}, ?, ?, ?)",
                    (kind, json.dumps(data), ended),
                )
                for kind, data in events
            ),
            (
                f"INSERT INTO origins (game_id, table_id) VALUES ({newest}, ?)",
                (record.table or "imported",),
            ),
            *seated,
            row_statement(outcome_of(0, record), ended, newest),
        ]
        rated = record.tags.get(RATED_TAG)
        if rated in ("yes", "no"):
            statements.append(
                (
                    f"INSERT INTO league_rated (game_id, rated) VALUES ({newest}, ?)",
                    (int(rated == "yes"),),
                )
            )
        return self.store.write(statements)[0]


# --- from the log to a record and back ------------------------------------------------


def archive(records: list[tuple[str, GameRecord]]) -> bytes:
    """One zip of records (name without extension, record): each as text and JSON."""
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as folder:
        for name, record in records:
            folder.writestr(f"{name}.txt", write(record))
            folder.writestr(f"{name}.json", json.dumps(to_json(record), indent=1))
    return packed.getvalue()


def file_name(record: GameRecord, number: int) -> str:
    """How a record's file is called: its table, its number there and its game."""
    return f"boardref-{record.table or 'table'}-game-{number}-{record.game}"


def record_of(stored: StoredGame, table: str, ended: float | None) -> GameRecord:
    """The record of a logged game. The seed is in it only once the game has ended."""
    game = game_of_stored(stored)
    entries: list[Entry] = []
    computer, level, result = (), "", None
    for kind, data in stored.events:
        if kind == "move":
            marks = tuple(mark for mark in MARKS if data.get(mark))
            entries.append(Entry("ply", seat=data["seat"], move=data["move"], marks=marks))
        elif kind == "chance":
            entries.append(Entry("draw", spec=_spec_text(data["spec"]), outcome=data["outcome"]))
        elif kind == "takeback":
            entries.append(Entry("takeback"))
        elif kind == "correction":
            entries.append(Entry("position", position=data["record"]["state"]))
        elif kind == "seats" and not entries:
            computer, level = tuple(data["computer"]), data["level"]
        elif kind == "seats":
            entries.append(Entry("computer", computer=tuple(data["computer"]), level=data["level"]))
        elif kind == "game_over":
            scores = data.get("scores")
            result = Result(
                tuple(data["winners"]), data["reason"], None if scores is None else tuple(scores)
            )
    over = ended is not None
    return GameRecord(
        game=stored.game,
        players=stored.players,
        options=stored.options,
        seats=tuple(game.seat_name(s) for s in range(game.players)),
        computer=computer,
        level=level,
        table=table,
        start=_iso(stored.started),
        end=_iso(ended) if ended is not None else "",
        result=result,
        abandoned=over and result is None,
        commitment=stored.commitment,
        seed=stored.seed.hex() if over else "",
        entries=tuple(entries),
    )


def events_of(record: GameRecord) -> list[tuple[str, dict[str, Any]]]:
    """The log's events for a record (the referee's own kinds, replayable by it)."""
    game = game_of(record)
    seed = bytes.fromhex(record.seed) if record.seed else None
    events: list[tuple[str, dict[str, Any]]] = []
    if record.computer:
        events.append(("seats", {"computer": list(record.computer), "level": record.level}))
    undo: list[str] = []  # what each position came from, for a takeback to name
    for step in replay(record, seed):
        entry = step.entry
        if entry is None:
            continue
        if entry.kind == "ply":
            events.append(
                (
                    "move",
                    {"move": entry.move, "seat": entry.seat} | dict.fromkeys(entry.marks, True),
                )
            )
            undo.append(entry.move)
        elif entry.kind == "draw":
            data = {"spec": step.spec.to_json(), "outcome": entry.outcome, "counter": step.counter}
            events.append(("chance", data))
            undo.append("draw")
        elif entry.kind == "takeback":
            events.append(("takeback", {"move": undo.pop()}))
        elif entry.kind == "position":
            events.append(("correction", {"record": game.to_json(step.state)}))
            undo.append("correction")
        elif entry.kind == "computer":
            events.append(("seats", {"computer": list(entry.computer), "level": entry.level}))
    if record.result is not None:
        over = {
            "winners": list(record.result.winners),
            "reason": record.result.reason,
            "seed": record.seed,
        }
        if record.result.scores is not None:
            over["scores"] = list(record.result.scores)
        events.append(("game_over", over))
    return events


def replay_frames(record: GameRecord) -> list[dict[str, Any]]:
    """The game as the replay page shows it: per step, the record's line and the
    table as it stood (the board, the last move, the draw as it was shown)."""
    game = game_of(record)
    seats = seats_of(game, frozenset(record.computer))
    frames, before = [], None
    try:
        for step in replay(record):
            entry, state = step.entry, step.state
            path: tuple[str, ...] = ()
            if entry is not None and entry.kind == "ply" and entry.move != "pass":
                path = getattr(game.parse_move(before, entry.move), "path", ())
            shown = entry is not None and entry.kind == "draw" and entry.spec != "deck"
            ended = game.outcome(state)
            table = TableState(
                game=game.name,
                players=game.players,
                options=dict(game.options),
                seats=seats,
                phase=Phase.OVER if ended else Phase.CHANCE if game.chance(state) else Phase.MOVE,
                to_move=game.to_move(state),
                position=game.observe(state),
                last_move=path,
                last_played=entry.move if entry is not None and entry.kind == "ply" else None,
                last_draw=entry.outcome if entry is not None and shown else None,
                outcome=None
                if ended is None
                else Ending(
                    winners=ended.winners, reason=Said.of(ended.words), scores=ended.scores
                ),
                commitment=record.commitment,
                plies=step.ply,
                record=game.to_json(state)["state"],
                report=game.report(state),
            )
            frames.append(
                {
                    "line": "" if entry is None else line(entry, step.ply),
                    "kind": "start" if entry is None else entry.kind,
                    "ply": step.ply,
                    "seat": None if entry is None else entry.seat,
                    "table": table.model_dump(mode="json"),
                }
            )
            before = state
    except RulesError as exc:
        raise HistoryError(
            words(
                "history.cannot_replay", "This game cannot be replayed: {reason}", reason=exc.words
            ),
            422,
        ) from None
    return frames


def game_of_stored(stored: StoredGame) -> Game:
    return load_game(stored.game, stored.players, **stored.options)


def _rated(said: int | None) -> bool | None:
    return None if said is None else bool(said)


def day_start(day: str) -> float:
    """The first second of ``day`` (YYYY-MM-DD) in this machine's time zone."""
    try:
        return datetime.strptime(day, "%Y-%m-%d").timestamp()
    except ValueError:
        raise HistoryError(
            words("history.bad_day", "{day} is not a day like 2026-11-24", day=day), 422
        ) from None


def _spec_text(data: dict[str, Any]) -> str:
    return spec_name(spec_from_json(data))


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch(text: str, default: float) -> float:
    """The seconds since 1970 of a record's time (ISO 8601, UTC), else ``default``."""
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return default
