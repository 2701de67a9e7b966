"""The command line's checks of the values it is given, made before anything runs:
each bad value is refused with one sentence naming the option, which the command
line prints before it exits with status 2. A check never creates, opens or changes a
file: a typo names nothing that then appears on disk."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path


class BadValue(ValueError):
    """A value of an option that cannot be used; ``str()`` says why, in one sentence."""


def seats(text: str, players: int, option: str = "--computer") -> tuple[int, ...]:
    """The seats ``text`` names, "1" or "0,2", counted from 0 as the help says."""
    named = [part.strip() for part in text.split(",") if part.strip()]
    if not all(part.isdigit() for part in named):
        raise BadValue(f"{option} {text!r}: name seats by number, e.g. 1 or 0,2")
    found = tuple(int(part) for part in named)
    if any(seat >= players for seat in found):
        raise BadValue(
            f"{option} {text!r}: this game has {players} seats, numbered 0 to {players - 1}"
        )
    return found


def new_file(path: Path, option: str, what: str = "a file to write") -> Path:
    """A file to write (or an event log to open): not a folder, in a folder that
    exists."""
    if path.is_dir():
        raise BadValue(f"{option} {path} is a folder: name {what} in it")
    if not path.parent.is_dir():
        raise BadValue(f"{option} {path}: there is no folder {path.parent}")
    return path


def folder(path: Path, option: str) -> Path:
    """A folder, or a path where one may be made: never a file."""
    if path.exists() and not path.is_dir():
        raise BadValue(f"{option} {path} is a file, not a folder")
    return path


def certificate(path: Path, option: str = "--ca-file") -> Path:
    """A file of PEM certificates TLS can load."""
    if not path.is_file():
        raise BadValue(f"{option} {path}: there is no such file")
    try:
        ssl.create_default_context(cafile=str(path))
    except (ssl.SSLError, ValueError):
        raise BadValue(f"{option} {path} holds no certificate TLS can read") from None
    return path


def listen_address(host: str, option: str = "--host") -> str:
    """An address to listen on, as a name or a number the resolver knows."""
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise BadValue(f"{option} {host!r} is not an address of this machine") from None
    return host
