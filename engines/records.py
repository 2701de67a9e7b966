"""Game records: a whole game as text a person can read and a program can parse,
and its JSON form.

A record is like a chess PGN: tag lines, then one line per ply in the game's own
notation, with each draw or roll on a line of its own and the referee's
interventions marked (``docs/records.md`` has the format in full)::

    [Record "boardref 1"]
    [Game "fang_den_hut"]
    [Players "2"]
    [Commitment "5d41...c2"]
    [Seed "6a0f..."]

    d6: 6
    1. 1: r1-r2-r3-r4-r5-r6
    d6: 2
    2. 1: r6-r7-r8 {confirmed}
    takeback

This module reads and writes records; ``engines.replay`` replays and verifies
them. Like every engine module it does no I/O: callers read and write the files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engines.errors import RecordError
from engines.words import words

FORMAT = "boardref 1"
#: the marks a ply may carry: how the referee came to accept it
MARKS = ("corrected", "confirmed", "chosen")
#: how each kind of chance spec is named on a draw line
SPEC_NAMES = {"bag": "bag", "tile": "tile", "shuffle": "deck"}
_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]$')
_PLY = re.compile(r"^(\d+)\.\s+(\d+):\s+(.+?)((?:\s+\{[a-z]+\})*)$")
_DRAW = re.compile(r"^(d\d+|bag|tile|deck):\s*(.*)$")
_KNOWN_TAGS = (
    "Record",
    "Game",
    "Players",
    "Options",
    "Table",
    "Start",
    "End",
    "Computer",
    "Level",
    "Result",
    "Reason",
    "Scores",
    "Commitment",
    "Seed",
)


@dataclass(frozen=True)
class Entry:
    """One line of a record after the tags.

    ``kind`` is ``ply`` (``seat`` played ``move``, with ``marks``), ``draw`` (a roll
    or draw: ``spec`` as ``d6``, ``bag``, ``tile`` or ``deck``, and its ``outcome``),
    ``takeback`` (the last ply is undone), ``position`` (the referee set the whole
    position: ``position`` is ``game.to_json(state)["state"]``) or ``computer`` (the
    computer plays ``computer`` at ``level`` from here on).
    """

    kind: str
    seat: int | None = None
    move: str = ""
    marks: tuple[str, ...] = ()
    spec: str = ""
    outcome: Any = None
    position: dict[str, Any] | None = None
    computer: tuple[int, ...] = ()
    level: str = ""

    def __post_init__(self) -> None:
        # an outcome is kept as JSON has it (lists), so records compare however read
        object.__setattr__(self, "outcome", plain(self.outcome))

    def to_json(self) -> dict[str, Any]:
        if self.kind == "ply":
            data = {"kind": "ply", "seat": self.seat, "move": self.move}
            return data | ({"marks": list(self.marks)} if self.marks else {})
        if self.kind == "draw":
            return {"kind": "draw", "spec": self.spec, "outcome": self.outcome}
        if self.kind == "position":
            return {"kind": "position", "position": self.position}
        if self.kind == "computer":
            return {"kind": "computer", "seats": list(self.computer), "level": self.level}
        return {"kind": self.kind}


@dataclass(frozen=True)
class Result:
    """How the game ended: the winning seats (none for a draw), why, and any scores."""

    winners: tuple[int, ...]
    reason: str = ""
    scores: tuple[float, ...] | None = None


@dataclass(frozen=True)
class GameRecord:
    """A game from its first draw to its end, as the referee accepted it.

    ``result`` is None for a game that is not over; ``abandoned`` marks one a new
    game ended before its time. ``seed`` (hex) is empty until the game has ended.
    Times are ISO 8601 in UTC. ``tags`` keeps tag lines this version does not know.
    """

    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    seats: tuple[str, ...] = ()
    computer: tuple[int, ...] = ()
    level: str = ""
    table: str = ""
    start: str = ""
    end: str = ""
    result: Result | None = None
    abandoned: bool = False
    commitment: str = ""
    seed: str = ""
    entries: tuple[Entry, ...] = ()
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def plies(self) -> int:
        return sum(entry.kind == "ply" for entry in self.entries)


# --- text ------------------------------------------------------------------------------


def write(record: GameRecord) -> str:
    """The record as text (see the module's docstring)."""
    lines = [_tag(name, value) for name, value in _tags(record).items()]
    lines.append("")
    ply = 0
    for entry in record.entries:
        ply += entry.kind == "ply"
        lines.append(line(entry, ply))
    return "\n".join(lines) + "\n"


def line(entry: Entry, ply: int) -> str:
    """One entry as its line of text; ``ply`` is the number of a ply line."""
    if entry.kind == "ply":
        if entry.seat is None:
            raise ValueError(f"ply {ply} names no seat: a ply line says which seat played")
        marks = "".join(f" {{{mark}}}" for mark in entry.marks)
        return f"{ply}. {entry.seat + 1}: {entry.move}{marks}"
    if entry.kind == "draw":
        return f"{entry.spec}: {outcome_text(entry.outcome)}"
    if entry.kind == "position":
        return f"position: {json.dumps(entry.position, sort_keys=True)}"
    if entry.kind == "computer":
        seats = " ".join(str(s + 1) for s in entry.computer) or "none"
        return f"computer: {seats} {entry.level}".rstrip()
    return entry.kind


def read(text: str) -> GameRecord:
    """A record from its text; ``RecordError`` names the line that is wrong."""
    if not isinstance(text, str):
        raise RecordError(words("rules.record_text", "a game record is text"))
    tags: dict[str, str] = {}
    entries: list[Entry] = []
    ply = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        try:
            if line.startswith("["):
                if entries:
                    raise ValueError("a tag line after the plies")
                found = _TAG.match(line)
                if found is None:
                    raise ValueError('a tag line is [Name "value"]')
                tags[found[1]] = re.sub(r"\\(.)", r"\1", found[2])
                continue
            entry = _entry(line, ply)
        except (ValueError, TypeError) as exc:
            raise RecordError(
                words(
                    "rules.record_bad_line",
                    "line {line} of the record ({text}): {problem}",
                    line=number,
                    text=line[:60],
                    problem=str(exc),
                )
            ) from None
        ply += entry.kind == "ply"
        entries.append(entry)
    return _from_tags(tags, tuple(entries))


def _entry(line: str, ply: int) -> Entry:
    found = _PLY.match(line)
    if found is not None:
        if int(found[1]) != ply + 1:
            raise ValueError(f"ply {found[1]} where ply {ply + 1} comes next")
        marks = tuple(re.findall(r"\{([a-z]+)\}", found[4]))
        unknown = [m for m in marks if m not in MARKS]
        if unknown:
            raise ValueError(f"unknown mark {{{unknown[0]}}}; marks are {', '.join(MARKS)}")
        return Entry("ply", seat=int(found[2]) - 1, move=found[3], marks=marks)
    if line == "takeback":
        return Entry("takeback")
    if line.startswith("position:"):
        position = json.loads(line.partition(":")[2])
        if not isinstance(position, dict):
            raise ValueError("a position is a JSON object")
        return Entry("position", position=position)
    if line.startswith("computer:"):
        *seats, level = line.partition(":")[2].split() or ["none"]
        chosen = () if seats in ([], ["none"]) else tuple(int(s) - 1 for s in seats)
        return Entry("computer", computer=chosen, level=level)
    found = _DRAW.match(line)
    if found is not None:
        return Entry("draw", spec=found[1], outcome=_outcome_of(found[1], found[2]))
    raise ValueError("not a ply, a draw, a takeback, a position or a computer line")


def _tags(record: GameRecord) -> dict[str, str]:
    tags = {"Record": FORMAT, "Game": record.game, "Players": str(record.players)}
    if record.options:
        tags["Options"] = json.dumps(record.options, sort_keys=True)
    for seat, name in enumerate(record.seats, start=1):
        tags[f"Seat{seat}"] = name
    for name, value in (("Table", record.table), ("Start", record.start), ("End", record.end)):
        if value:
            tags[name] = value
    if record.computer:
        tags["Computer"] = " ".join(str(s + 1) for s in record.computer)
        tags["Level"] = record.level
    tags["Result"] = _result_text(record)
    if record.result is not None:
        if record.result.reason:
            tags["Reason"] = record.result.reason
        if record.result.scores is not None:
            tags["Scores"] = " ".join(_number_text(s) for s in record.result.scores)
    tags["Commitment"] = record.commitment
    if record.seed:
        tags["Seed"] = record.seed
    return tags | record.tags


def _from_tags(tags: dict[str, str], entries: tuple[Entry, ...]) -> GameRecord:
    try:
        if tags.get("Record", FORMAT).split()[0] != FORMAT.split()[0]:
            raise ValueError(f"the record is {tags['Record']!r}, not {FORMAT!r}")
        seats: list[str] = []
        while f"Seat{len(seats) + 1}" in tags:
            seats.append(tags[f"Seat{len(seats) + 1}"])
        options = json.loads(tags.get("Options", "{}"))
        if not isinstance(options, dict):
            raise ValueError("Options is a JSON object")
        result, abandoned = _result_of(tags)
        known = set(_KNOWN_TAGS) | {f"Seat{n}" for n in range(1, len(seats) + 1)}
        return GameRecord(
            game=tags["Game"],
            players=int(tags["Players"]),
            options=options,
            seats=tuple(seats),
            computer=tuple(int(s) - 1 for s in tags.get("Computer", "").split()),
            level=tags.get("Level", ""),
            table=tags.get("Table", ""),
            start=tags.get("Start", ""),
            end=tags.get("End", ""),
            result=result,
            abandoned=abandoned,
            commitment=tags.get("Commitment", ""),
            seed=tags.get("Seed", ""),
            entries=entries,
            tags={k: v for k, v in tags.items() if k not in known},
        )
    except KeyError as exc:
        raise RecordError(
            words("rules.record_missing_tag", "the record has no tag {tag}", tag=exc.args[0])
        ) from None
    except ValueError as exc:
        raise RecordError(
            words("rules.record_bad_tags", "the record's tags: {problem}", problem=str(exc))
        ) from None


def _result_text(record: GameRecord) -> str:
    if record.abandoned:
        return "abandoned"
    if record.result is None:
        return "*"
    if not record.result.winners:
        return "draw"
    return " ".join(str(seat + 1) for seat in record.result.winners)


def _result_of(tags: dict[str, str]) -> tuple[Result | None, bool]:
    text = tags.get("Result", "*").strip()
    if text in ("*", "abandoned"):
        return None, text == "abandoned"
    winners = () if text == "draw" else tuple(int(s) - 1 for s in text.split())
    scores = tags.get("Scores")
    parsed = None if scores is None else tuple(_number(s) for s in scores.split())
    return Result(winners, tags.get("Reason", ""), parsed), False


def _tag(name: str, value: str) -> str:
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'[{name} "{escaped}"]'


def outcome_text(outcome: Any) -> str:
    """A drawn outcome as its draw line writes it: tokens separated by spaces."""
    items = outcome if isinstance(outcome, list | tuple) else [outcome]
    for item in items:
        if not str(item) or any(ch.isspace() for ch in str(item)):
            raise RecordError(
                words(
                    "rules.record_token_space",
                    "a drawn {item} cannot be written: tokens have no spaces",
                    item=repr(item),
                )
            )
    return " ".join(str(item) for item in items)


def _outcome_of(spec: str, text: str) -> Any:
    if re.fullmatch(r"d\d+", spec):
        return int(text)
    if spec == "tile":
        if not text or any(ch.isspace() for ch in text):
            raise ValueError("a tile is one token")
        return text
    return text.split()


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and isinstance(value, int) else str(value)


# --- JSON ------------------------------------------------------------------------------


def to_json(record: GameRecord) -> dict[str, Any]:
    """The record for programs: the same content as the text, typed."""
    result = record.result
    return {
        "format": FORMAT,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "seats": list(record.seats),
        "computer": list(record.computer),
        "level": record.level,
        "table": record.table,
        "start": record.start,
        "end": record.end,
        "result": None
        if result is None
        else {
            "winners": list(result.winners),
            "reason": result.reason,
            "scores": None if result.scores is None else list(result.scores),
        },
        "abandoned": record.abandoned,
        "commitment": record.commitment,
        "seed": record.seed,
        "entries": [entry.to_json() for entry in record.entries],
        "tags": dict(record.tags),
    }


def from_json(data: Any) -> GameRecord:
    """A record from ``to_json``'s form; ``RecordError`` for anything else."""
    try:
        if data["format"].split()[0] != FORMAT.split()[0]:
            raise ValueError(f"the record is {data['format']!r}, not {FORMAT!r}")
        result = data.get("result")
        scores = None if result is None else result.get("scores")
        return GameRecord(
            game=str(data["game"]),
            players=int(data["players"]),
            options=dict(data.get("options") or {}),
            seats=tuple(map(str, data.get("seats", ()))),
            computer=tuple(map(int, data.get("computer", ()))),
            level=str(data.get("level", "")),
            table=str(data.get("table", "")),
            start=str(data.get("start", "")),
            end=str(data.get("end", "")),
            result=None
            if result is None
            else Result(
                tuple(map(int, result["winners"])),
                str(result.get("reason", "")),
                None if scores is None else tuple(scores),
            ),
            abandoned=bool(data.get("abandoned", False)),
            commitment=str(data.get("commitment", "")),
            seed=str(data.get("seed", "")),
            entries=tuple(_entry_of(entry) for entry in data["entries"]),
            tags={str(k): str(v) for k, v in (data.get("tags") or {}).items()},
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RecordError(
            words("rules.record_bad_json", "not a game record: {problem}", problem=repr(exc))
        ) from None


def _entry_of(data: dict[str, Any]) -> Entry:
    kind = data["kind"]
    if kind == "ply":
        marks = tuple(map(str, data.get("marks", ())))
        if not set(marks) <= set(MARKS):
            raise ValueError(f"unknown marks {marks}")
        return Entry("ply", seat=int(data["seat"]), move=str(data["move"]), marks=marks)
    if kind == "draw":
        return Entry("draw", spec=str(data["spec"]), outcome=data["outcome"])
    if kind == "position":
        return Entry("position", position=dict(data["position"]))
    if kind == "computer":
        return Entry("computer", computer=tuple(map(int, data["seats"])), level=data["level"])
    if kind == "takeback":
        return Entry("takeback")
    raise ValueError(f"unknown entry kind {kind!r}")


# --- draws -----------------------------------------------------------------------------


def spec_name(spec: Any) -> str:
    """How a draw line names a chance spec: ``d6``, ``bag``, ``tile`` or ``deck``."""
    data = spec.to_json()
    return f"d{data['sides']}" if data["kind"] == "die" else SPEC_NAMES[data["kind"]]


def plain(value: Any) -> Any:
    """Tuples as lists, so an outcome read back from text or JSON compares equal."""
    return json.loads(json.dumps(value))
