"""The type check in `make test`: mypy once over the project, its errors counted per room.

Each package, and each room of boardref/, may have at most the number of errors
types_allowed.toml beside this file grants it (none when it is not listed). A count
above its allowance fails the run and names the errors; a count below it passes and
says which number in the file can come down. It must never raise an allowance itself.

    python tests/types_ratchet.py
"""

import json
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = Path(__file__).with_name("types_allowed.toml")


def room(path: str) -> str:
    """The package, or the room of boardref/, a checked file belongs to.

    >>> room("boardref/referee/fusion.py"), room("boardref/__main__.py"), room("vision/lens.py")
    ('boardref.referee', 'boardref', 'vision')
    """
    parts = Path(path).parts
    if parts[0] == "boardref" and len(parts) > 2:
        return f"boardref.{parts[1]}"
    return parts[0]


def mypy_errors() -> list[dict[str, object]]:
    """Every error mypy reports with the settings in pyproject.toml, as its JSON records."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--output", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    # 0: clean, 1: errors found, which it lists; anything else, or 1 with no error
    # listed (no mypy installed: "No module named mypy"), is mypy failing to run at all.
    if done.returncode not in (0, 1) or (done.returncode == 1 and not records):
        raise SystemExit(f"types: mypy could not run: {(done.stderr or done.stdout).strip()}")
    return [record for record in records if record["severity"] == "error"]


def verdicts(counts: Counter[str], allowed: dict[str, int]) -> tuple[list[str], list[str]]:
    """The rooms over their allowance, and the rooms whose allowance can come down.

    >>> verdicts(Counter(vision=3, sim=1), {"vision": 5, "cafe": 2})
    (['sim: 1 errors, 0 allowed'], ['vision: 3 errors, 5 allowed', 'cafe: 0 errors, 2 allowed'])
    """
    over = [
        f"{name}: {count} errors, {allowed.get(name, 0)} allowed"
        for name, count in counts.items()
        if count > allowed.get(name, 0)
    ]
    fell = [
        f"{name}: {counts[name]} errors, {limit} allowed"
        for name, limit in allowed.items()
        if counts[name] < limit
    ]
    return over, fell


def main() -> int:
    allowed = tomllib.loads(ALLOWED.read_text(encoding="utf-8"))["errors"]
    errors = mypy_errors()
    by_room: defaultdict[str, list[dict[str, object]]] = defaultdict(list)
    for error in errors:
        by_room[room(str(error["file"]))].append(error)
    counts = Counter({name: len(found) for name, found in by_room.items()})
    over, fell = verdicts(counts, allowed)
    for line in over:
        name = line.split(":")[0]
        print(f"types: {line}")
        for error in by_room[name]:
            print(f"  {error['file']}:{error['line']}: {error['message']}  [{error['code']}]")
    for line in fell:
        print(f"types: {line}: lower it in {ALLOWED.relative_to(ROOT)}")
    if over:
        return 1
    print(f"types: {sum(counts.values())} errors, each room within its allowance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
