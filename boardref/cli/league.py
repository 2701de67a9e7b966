"""`boardref players ...`, `boardref seasons ...` and `boardref standings`: the café
league from the command line, on a table's event log. Changes need the log to
themselves (the service stopped; while it runs, the referee page does the same).
Each command hands over to ``boardref.eventlog.players`` and ``boardref.league``;
bad values are refused in one sentence with exit status 2."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import typer

from boardref.cli.logs import (
    CONFIG_HELP,
    STORE_HELP,
    history_of,
    log_named,
    log_of,
    sole_writer,
    usage,
)
from engines import GAMES

players_app = typer.Typer(
    help="The café's players, kept in the table's event log.", no_args_is_help=True
)
seasons_app = typer.Typer(
    help="The league's seasons: a name, a first and a last day.", no_args_is_help=True
)
CONFIG = typer.Option(None, help=CONFIG_HELP)
STORE = typer.Option(None, help=STORE_HELP)
AS_JSON = typer.Option(False, "--json", help="JSON instead of lines")


@contextlib.contextmanager
def _league(config: Path | None, store: Path | None, changing: bool) -> Iterator:
    """The history of the log the options name, held alone when ``changing``; a
    refused request ends the command in its sentence (exit status 2)."""
    from boardref.eventlog.history import HistoryError
    from boardref.eventlog.players import LeagueError

    if changing:
        log_named(store)
    path, table = log_of(config, store)
    held = (
        sole_writer(path, "players", ", or make the change on the referee page")
        if changing
        else contextlib.nullcontext()
    )
    with held:
        history = history_of(path, table, reading=not changing)
        try:
            yield history
        except (LeagueError, HistoryError) as exc:
            raise usage(exc) from None
        finally:
            history.store.close()


@players_app.command("list")
def players_list(
    as_json: bool = AS_JSON, config: Path | None = CONFIG, store: Path | None = STORE
) -> None:
    """Every player, by name, with their number and how many games they played."""
    with _league(config, store, changing=False) as history:
        found = history.players.all()
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(p) for p in found]))
        return
    for player in found:
        typer.echo(f"{player.id:>5}  {player.name:<24} {player.games:>5} games")


@players_app.command("add")
def players_add(
    name: str = typer.Argument(..., help="the player's nickname"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """Add a player."""
    with _league(config, store, changing=True) as history:
        player = history.players.add(name)
    typer.echo(f"player {player.id}: {player.name}")


@players_app.command("rename")
def players_rename(
    player_id: int = typer.Argument(..., help="the player's number"),
    name: str = typer.Argument(..., help="the new nickname"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """Give a player a new name; their records carry it from now on."""
    with _league(config, store, changing=True) as history:
        player = history.players.rename(player_id, name)
    typer.echo(f"player {player.id}: {player.name}")


@players_app.command("merge")
def players_merge(
    player_id: int = typer.Argument(..., help="the player to merge away"),
    into: int = typer.Argument(..., help="the player whose games they become"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """Two entries that are one person: the first one's games become the second's."""
    with _league(config, store, changing=True) as history:
        player = history.players.merge(player_id, into)
    typer.echo(f"player {player.id}: {player.name}, {player.games} games")


@players_app.command("delete")
def players_delete(
    player_id: int = typer.Argument(..., help="the player's number"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """Remove a player and all their data: their games turn anonymous."""
    with _league(config, store, changing=True) as history:
        history.players.delete(player_id)
    typer.echo(f"player {player_id} deleted")


@seasons_app.command("list")
def seasons_list(config: Path | None = CONFIG, store: Path | None = STORE) -> None:
    from boardref.league.standings import Seasons

    with _league(config, store, changing=False) as history:
        for season in Seasons(history).all():
            typer.echo(f"{season.name}: {season.first} to {season.last}")


@seasons_app.command("add")
def seasons_add(
    name: str = typer.Argument(..., help="the season's name"),
    first: str = typer.Argument(..., help="its first day, YYYY-MM-DD"),
    last: str = typer.Argument(..., help="its last day, YYYY-MM-DD"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """Add a season (or give the one of this name new dates)."""
    from boardref.league.standings import Seasons

    with _league(config, store, changing=True) as history:
        season = Seasons(history).add(name, first, last)
    typer.echo(f"{season.name}: {season.first} to {season.last}")


@seasons_app.command("delete")
def seasons_delete(
    name: str = typer.Argument(..., help="the season's name"),
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    from boardref.league.standings import Seasons

    with _league(config, store, changing=True) as history:
        Seasons(history).delete(name)
    typer.echo(f"season {name} deleted")


def standings(
    game: str = typer.Option(..., help=f"the game: {', '.join(GAMES)}"),
    season: str | None = typer.Option(None, help="only the games of this season"),
    as_csv: bool = typer.Option(False, "--csv", help="CSV, for a spreadsheet"),
    as_json: bool = AS_JSON,
    config: Path | None = CONFIG,
    store: Path | None = STORE,
) -> None:
    """The league table of one game: best rating first, each row with its games."""
    from boardref.league.standings import Seasons, csv_text, played_games
    from boardref.league.standings import standings as rows_of

    with _league(config, store, changing=False) as history:
        chosen = None if season is None else Seasons(history).get(season)
        rows = rows_of(played_games(history, game, chosen))
    if as_csv:
        typer.echo(csv_text(rows), nl=False)
    elif as_json:
        typer.echo(json.dumps([dataclasses.asdict(row) for row in rows]))
    else:
        for r in rows:
            mark = " (provisional)" if r.provisional else ""
            typer.echo(
                f"{r.place:>3}. {r.player:<24} {r.rating:7.2f}  {r.games:>4} games"
                f"  {r.wins:>4} wins  last {r.last_played[:10]}{mark}"
            )
