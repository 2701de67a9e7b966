"""Where a process's resident memory is, from ``/proc/PID/smaps``: per library (or
``[heap]``, ``[anon]`` for memory of its own), how much is file-backed and clean
(the library's code and read-only data: shared, and dropped and read again by the
kernel when memory runs short) and how much is its own (anonymous or written:
relocations, the heap, arrays). Linux only.

Resident file-backed memory depends on the kernel as much as on the program: a
kernel that caches files in large folios and maps a whole folio where one page of
it is read (Linux 6.18 on ext4 maps about 1 MB of a library per page read; from
tmpfs, 64 kB) counts the same library several times larger than a kernel that
caches 4 kB pages.

``python bench/memory_map.py PID`` prints the table for people.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

#: a mapping's first line: address range, permissions, offset, device, inode, name
MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def library(name: str) -> str:
    """The library a mapping's file belongs to: its package folder under
    site-packages (its bundled ``.libs`` apart), else the file; ``[anon]`` for
    memory with no name."""
    if not name:
        return "[anon]"
    match = re.search(r"/site-packages/([^/]+)", name)
    return match.group(1) if match else name


def by_library(pid: int) -> dict[str, dict[str, float]]:
    """Resident MB per library: ``file`` (file-backed, clean) and ``own`` (anonymous
    or dirty), largest first."""
    kb: dict[str, Counter] = defaultdict(Counter)
    where = None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if MAPPING.match(line):
            parts = line.split(None, 5)
            where = kb[library(parts[5].strip() if len(parts) > 5 else "")]
            continue
        field, _, value = line.partition(":")
        if field in ("Shared_Clean", "Private_Clean"):
            where["file"] += int(value.split()[0])
        elif field in ("Shared_Dirty", "Private_Dirty"):
            where["own"] += int(value.split()[0])
    rows = {name: {"file": c["file"] / 1024, "own": c["own"] / 1024} for name, c in kb.items()}
    return dict(sorted(rows.items(), key=lambda kv: -(kv[1]["file"] + kv[1]["own"])))


def totals(rows: dict[str, dict[str, float]]) -> dict[str, float]:
    """The whole process's file-backed and own resident MB."""
    return {
        "file": sum(r["file"] for r in rows.values()),
        "own": sum(r["own"] for r in rows.values()),
    }


def main() -> None:
    rows = by_library(int(sys.argv[1]))
    whole = totals(rows)
    print(f"{'':56} {'file MB':>8} {'own MB':>8}")
    print(f"{'whole process':56} {whole['file']:8.1f} {whole['own']:8.1f}")
    for name, row in rows.items():
        if row["file"] + row["own"] >= 0.5:
            print(f"{name[-56:]:56} {row['file']:8.1f} {row['own']:8.1f}")


if __name__ == "__main__":
    main()
