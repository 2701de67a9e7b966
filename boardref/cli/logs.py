"""What the commands that read or write a table's event log share: the log the
options name, its history, the lock a writer holds, and refusals in one sentence
(exit status 2 for a bad value, 1 for a refusal)."""

from __future__ import annotations

from pathlib import Path

import typer

from boardref.cli import arguments

STORE_HELP = "the event log (default: the one the config names)"
CONFIG_HELP = "config file (default /etc/boardref/config.toml)"


def log_of(config: Path | None, store: Path | None) -> tuple[Path, str]:
    """The event log the options name, and this table's name from the config."""
    from boardref.runtime.config import DEFAULT_PATH, ConfigError, load_config

    if config is None and DEFAULT_PATH.exists():
        config = DEFAULT_PATH
    try:
        settings = load_config(config)
    except ConfigError as exc:
        raise usage(exc) from None
    return store or settings.store.path, settings.fleet.table_id


def history_of(path: Path, table: str, reading: bool = True):
    """The history of the event log at ``path``; only read unless ``reading`` is False
    (the caller holds the log's lock then)."""
    from boardref.eventlog.history import History
    from boardref.eventlog.store import Store, StoreError

    try:
        return History(Store(path, reading=reading), table)
    except StoreError as exc:
        raise usage(exc) from None


def log_named(store: Path | None) -> None:
    """Refuse (exit status 2) a --store that is a folder or in no folder there is."""
    if store is not None:
        try:
            arguments.new_file(store, "--store", "the event log")
        except arguments.BadValue as exc:
            raise usage(exc) from None


def usage(exc: Exception) -> typer.Exit:
    """A bad value refused in its sentence (exit status 2)."""
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(2)


def refused(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(1)


def sole_writer(
    store: Path, command: str, instead: str, panel: tuple[str, int] | None = None, faults=False
):
    """The lock on the event log ``store`` for ``command``, which writes to it; a log
    another program writes to is refused in one sentence naming it (exit status 2).
    ``faults``: a log that cannot be opened at all is raised as ``LogFault``."""
    from boardref.eventlog.log_lock import LogInUse, LogLock
    from boardref.eventlog.store import LogFault, StoreError

    try:
        return LogLock(store, command, instead, panel)
    except StoreError as exc:
        if faults and isinstance(exc, LogFault):
            raise
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2 if isinstance(exc, LogInUse) else 1) from None
