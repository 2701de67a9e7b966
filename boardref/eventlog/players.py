"""The café's players: a nickname each, kept in the table's event log, and which
player sat at which seat of a game. Anonymous play is the default: a seat no one
named has no player.

A player's name reaches a game's record (its ``PlayerN`` tags) and so every place a
record goes; deleting a player removes the name and every seat they held, so their
games read as anonymous from then on. It never decides anything about a game and
never rates anyone (``boardref.league`` does, from the records).
"""

from __future__ import annotations

import time
import unicodedata
from dataclasses import dataclass, replace

from boardref.eventlog.store import Store
from engines.records import GameRecord
from engines.words import Words, words

PLAYERS = "id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE, created REAL NOT NULL"
#: who sat where; rows outlive a pruned game, so a pruned game's seats stay named
SEAT_PLAYERS = (
    "game_id INTEGER NOT NULL, seat INTEGER NOT NULL, player_id INTEGER NOT NULL,"
    " PRIMARY KEY (game_id, seat)"
)
#: the referee's word on whether a game counts for the league: 1 rated, 0 not
RATED = "game_id INTEGER PRIMARY KEY, rated INTEGER NOT NULL"
#: a nickname fits a seat's label on a phone
LONGEST_NAME = 24


class LeagueError(Exception):
    """A request of the league (players, seasons, standings) that cannot be done, in
    words, with its HTTP status."""

    def __init__(self, said: Words, status: int = 422):
        super().__init__(str(said))
        self.words, self.status = said, status


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    #: the games they held a seat in (rated or not)
    games: int = 0


def player_tag(seat: int) -> str:
    """The record's tag naming the player of ``seat`` (from 0): ``Player1`` ..."""
    return f"Player{seat + 1}"


def names_of(record: GameRecord) -> dict[int, str]:
    """The named seats of a record: seat (from 0) to the player's name."""
    tags = record.tags
    return {s: tags[player_tag(s)] for s in range(record.players) if tags.get(player_tag(s))}


def without_names(record: GameRecord) -> GameRecord:
    """``record`` with every seat anonymous, for a broker outside the café."""
    tags = {k: v for k, v in record.tags.items() if k not in map(player_tag, range(record.players))}
    return replace(record, tags=tags)


def checked_name(name: object) -> str:
    """``name`` as a nickname is kept (spaces trimmed), or ``LeagueError`` saying why not."""
    text = unicodedata.normalize("NFC", name.strip()) if isinstance(name, str) else ""
    if not text or len(text) > LONGEST_NAME:
        raise LeagueError(
            words(
                "league.bad_name",
                "A player's name is 1 to {longest} characters",
                longest=LONGEST_NAME,
            )
        )
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise LeagueError(
            words("league.name_control", "A player's name has letters, digits and signs only")
        )
    return text


class Players:
    """The players of the café in ``store`` (a log only read gets empty tables)."""

    def __init__(self, store: Store):
        self.store = store
        store.define("players", PLAYERS)
        store.define("seat_players", SEAT_PLAYERS)
        store.define("league_rated", RATED)

    # --- reading ----------------------------------------------------------------------

    def all(self) -> list[Player]:
        """Every player, by name."""
        rows = self.store.read(
            "SELECT p.id, p.name, COUNT(s.game_id) FROM players p"
            " LEFT JOIN seat_players s ON s.player_id = p.id"
            " GROUP BY p.id ORDER BY p.name COLLATE NOCASE"
        )
        return [Player(*row) for row in rows]

    def get(self, player_id: int) -> Player:
        found = [p for p in self.all() if p.id == player_id]
        if not found:
            raise LeagueError(
                words("league.no_player", "There is no player {id}", id=player_id), 404
            )
        return found[0]

    def named(self, name: str) -> Player | None:
        rows = self.store.read("SELECT id, name FROM players WHERE name = ?", (checked_name(name),))
        return Player(*rows[0]) if rows else None

    def names(self, game_id: int) -> dict[int, str]:
        """The named seats of a game: seat (from 0) to the player's name."""
        rows = self.store.read(
            "SELECT s.seat, p.name FROM seat_players s JOIN players p ON p.id = s.player_id"
            " WHERE s.game_id = ? ORDER BY s.seat",
            (game_id,),
        )
        return dict(rows)

    def rated(self, game_id: int) -> bool | None:
        """The referee's word on whether the game is rated (None: as the rules go)."""
        rows = self.store.read("SELECT rated FROM league_rated WHERE game_id = ?", (game_id,))
        return bool(rows[0][0]) if rows else None

    # --- the referee's changes ---------------------------------------------------------

    def add(self, name: str) -> Player:
        """A new player; ``LeagueError`` (409) when the name is taken."""
        name = checked_name(name)
        self._free(name)
        [created] = self.store.write(
            [("INSERT INTO players (name, created) VALUES (?, ?)", (name, time.time()))]
        )
        return Player(created, name)

    def called(self, name: str) -> Player:
        """The player of this name, added when there is none (a phone joining)."""
        return self.named(name) or self.add(name)

    def rename(self, player_id: int, name: str) -> Player:
        self.get(player_id)
        name = checked_name(name)
        self._free(name, player_id)
        self.store.write([("UPDATE players SET name = ? WHERE id = ?", (name, player_id))])
        return self.get(player_id)

    def merge(self, player_id: int, into: int) -> Player:
        """``player_id``'s games become ``into``'s and ``player_id`` is gone. A game
        in which both held a seat keeps both seats as ``into``'s."""
        if player_id == into:
            raise LeagueError(
                words("league.merge_self", "A player cannot be merged into themselves")
            )
        self.get(player_id)
        self.get(into)
        self.store.write(
            [
                ("UPDATE seat_players SET player_id = ? WHERE player_id = ?", (into, player_id)),
                ("DELETE FROM players WHERE id = ?", (player_id,)),
            ]
        )
        return self.get(into)

    def delete(self, player_id: int) -> None:
        """Remove the player and every seat they held: their games turn anonymous."""
        self.get(player_id)
        self.store.write(
            [
                ("DELETE FROM seat_players WHERE player_id = ?", (player_id,)),
                ("DELETE FROM players WHERE id = ?", (player_id,)),
            ]
        )

    def seat(self, game_id: int, seat: int, player_id: int | None) -> None:
        """Give ``seat`` of the game to a player, or to nobody (None: anonymous)."""
        if player_id is None:
            self.store.write(
                [("DELETE FROM seat_players WHERE game_id = ? AND seat = ?", (game_id, seat))]
            )
            return
        player = self.get(player_id)
        other = self.store.read(
            "SELECT seat FROM seat_players WHERE game_id = ? AND player_id = ? AND seat != ?",
            (game_id, player_id, seat),
        )
        if other:
            raise LeagueError(
                words(
                    "league.seated_twice",
                    "{name} already plays seat {n} of this game",
                    name=player.name,
                    n=other[0][0] + 1,
                ),
                409,
            )
        self.store.write(
            [
                (
                    "INSERT OR REPLACE INTO seat_players (game_id, seat, player_id)"
                    " VALUES (?, ?, ?)",
                    (game_id, seat, player_id),
                )
            ]
        )

    def carry(self, before: int, now: int) -> None:
        """The players of game ``before`` take the same seats in game ``now`` (a rematch)."""
        self.store.write(
            [
                (
                    "INSERT OR REPLACE INTO seat_players (game_id, seat, player_id)"
                    " SELECT ?, seat, player_id FROM seat_players WHERE game_id = ?",
                    (now, before),
                )
            ]
        )

    def set_rated(self, game_id: int, rated: bool | None) -> None:
        """The referee's word on a game: rated, not rated, or (None) as the rules go."""
        statement: tuple[str, tuple]
        if rated is None:
            statement = ("DELETE FROM league_rated WHERE game_id = ?", (game_id,))
        else:
            statement = (
                "INSERT OR REPLACE INTO league_rated (game_id, rated) VALUES (?, ?)",
                (game_id, int(rated)),
            )
        self.store.write([statement])

    def _free(self, name: str, keeping: int | None = None) -> None:
        taken = self.named(name)
        if taken is not None and taken.id != keeping:
            raise LeagueError(
                words("league.name_taken", "There is already a player called {name}", name=name),
                409,
            )


def seat_statements(game_id_sql: str, names: dict[int, str]) -> list[tuple[str, tuple]]:
    """The statements that name the seats of a game being written (an import, whose
    id is the SQL ``game_id_sql``), adding each player not yet known by name."""
    statements: list[tuple[str, tuple]] = []
    for seat, name in sorted(names.items()):
        statements += [
            (
                "INSERT OR IGNORE INTO players (name, created) VALUES (?, ?)",
                (checked_name(name), time.time()),
            ),
            (
                "INSERT OR REPLACE INTO seat_players (game_id, seat, player_id)"
                f" VALUES ({game_id_sql}, ?, (SELECT id FROM players WHERE name = ?))",
                (seat, checked_name(name)),
            ),
        ]
    return statements
