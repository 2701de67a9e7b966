"""How the service keeps its memory small on a Pi: the C library's allocator is told,
before any worker thread starts, to keep few arenas and to hand big freed blocks
straight back to the system, and is asked to give back what it freed after a big
successor index is let go. A Hakenschlagen turn's index takes tens of megabytes, built
in a worker thread; without this the freed room stays with the process, scattered over
one arena per thread, and a camera game's peak grows by a hundred megabytes.

Once started, what the service loaded (modules, the engines' tables, the panel) is
taken out of the garbage collector's sight: it lives as long as the process, and
every full collection would otherwise walk all of it again (70,000 objects, 50-70 ms
of a frozen table on a 2-core x86 machine, some 200 ms on a Pi 4). The collector then
looks at new objects after ``YOUNG`` of them rather than Python's 700: a long game
keeps every position, and with Python's thresholds full collections came ever more
often in it and walked them all each time, whichever thread (the loop's, the
verdict's) happened to allocate. The service collects once a verdict has been
quiet for a moment (``collect_while_quiet``), while players think, so that the
collections come there and not in the middle of the next verdict.

Linux with glibc only: elsewhere (or where the library has no such calls) every
function here does nothing. Settings already in the environment (``MALLOC_ARENA_MAX``,
``MALLOC_MMAP_THRESHOLD_``, ``OPENBLAS_NUM_THREADS``) win over these. It never
changes what the service decides, only where its memory lives.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
from functools import cache

#: glibc's ``mallopt`` parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
#: allocation arenas for the whole process: the loop and its workers share them
ARENAS = 2
#: blocks from this size up get memory of their own, returned the moment they are
#: freed (numpy's arrays while a camera reading is weighed); a fixed threshold keeps
#: glibc from raising it after each such block and parking them in the arenas
MMAP_THRESHOLD = 1 << 20
#: new objects (less those freed) after which the collector looks at the youngest;
#: the older generations are looked at after Python's own counts of those looks
YOUNG = 10_000
#: OpenBLAS (under numpy and OpenCV) starts a thread with its own buffers per core; the
#: service's arrays are far too small to gain from them
BLAS_THREADS = "1"


@cache
def _libc():
    """The C library, when it is glibc; else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not hasattr(libc, "mallopt") or not hasattr(libc, "malloc_trim"):
        return None
    return libc


def settle_allocator() -> None:
    """Set the allocator and OpenBLAS up for a long-running service. Call it first
    thing, before numpy or OpenCV is imported and before any thread starts."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)
    libc = _libc()
    if libc is None:
        return
    if "MALLOC_ARENA_MAX" not in os.environ:
        libc.mallopt(M_ARENA_MAX, ARENAS)
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def give_back() -> None:
    """Hand the memory freed since the last call back to the system (after an index
    is let go), so that the next index is built in it and not beside it."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def freeze_start_up() -> None:
    """Keep what is alive now out of later garbage collections: call it once the
    service has loaded what it keeps for its whole run. Garbage is collected first,
    so none of it is kept. Objects made later are collected as before, looked at
    after every ``YOUNG`` new ones."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, *gc.get_threshold()[1:])


def collect_while_quiet() -> None:
    """Collect now the generations the collector would look at on its own next (the
    youngest; an older one once its count is due), while nothing is being judged:
    the next verdicts then start with no collection owed."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    generation = 0
    while generation < 2 and counts[generation + 1] + 1 > thresholds[generation + 1]:
        generation += 1
    gc.collect(generation)
