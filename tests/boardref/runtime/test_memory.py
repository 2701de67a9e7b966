"""The service's memory: few allocation arenas however many worker threads run,
freed memory handed back when an index is let go, and what it started with kept out
of the garbage collector's full collections."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import weakref

import pytest

from boardref.referee import match as match_module
from boardref.runtime import memory
from tests.boardref.referee.test_successors import a_move_with_room_for_one_index

pytestmark = pytest.mark.skipif(memory._libc() is None, reason="glibc only")

#: a process that allocates in several threads at once, then prints how many arenas
#: glibc's malloc_info lists (one ``<heap`` each)
ARENAS_AFTER_THREADS = textwrap.dedent(
    """
    import ctypes, sys, tempfile, threading
    from boardref.runtime.memory import settle_allocator
    if sys.argv[1] == "settled":
        settle_allocator()
    start = threading.Barrier(6)
    def work():
        start.wait()
        kept = [bytearray(64) for _ in range(20_000)]
        start.wait()
    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    with tempfile.NamedTemporaryFile("r") as info:
        out = libc.fopen(info.name.encode(), b"w")
        libc.malloc_info(0, ctypes.c_void_p(out))
        libc.fclose(ctypes.c_void_p(out))
        print(info.read().count("<heap "))
    """
)


def _arenas(how: str) -> int:
    found = subprocess.run(
        [sys.executable, "-c", ARENAS_AFTER_THREADS, how],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": ""},
    )
    return int(found.stdout)


@pytest.mark.process
def test_the_service_keeps_to_two_arenas_however_many_threads_allocate():
    assert _arenas("settled") <= memory.ARENAS < _arenas("as glibc starts")


@pytest.mark.parametrize("give_back_bytes", [1, None])
def test_letting_a_large_index_go_hands_the_freed_memory_back_and_a_small_one_not(
    table, monkeypatch, give_back_bytes
):
    handed_back = []
    if give_back_bytes is not None:
        monkeypatch.setattr(match_module, "GIVE_BACK_BYTES", give_back_bytes)

    def counting() -> None:  # from the move on: what the move lets go
        monkeypatch.setattr(match_module, "give_back", lambda: handed_back.append(True))

    t, base = a_move_with_room_for_one_index(table, monkeypatch, counting)
    assert base not in t.referee.match.successors
    # a Sternhalma index is far below the default: the allocator keeps its room
    assert bool(handed_back) == (give_back_bytes is not None)


def test_what_the_service_started_with_is_kept_out_of_collections_and_garbage_is_not():
    class Node:
        pass

    kept, garbage = Node(), Node()
    garbage.me = garbage  # a cycle: only the collector frees it
    gone = weakref.ref(garbage)
    del garbage
    frozen, thresholds = gc.get_freeze_count(), gc.get_threshold()
    try:
        memory.freeze_start_up()
        assert gone() is None, "garbage from the start-up was kept"
        assert gc.get_freeze_count() > frozen
        assert not any(o is kept for o in gc.get_objects()), "a full collection still walks it"
        later = Node()
        later.me = later
        later_ref = weakref.ref(later)
        del later
        gc.collect()
        assert later_ref() is None, "objects made after the start-up are no longer collected"
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_after_the_start_up_the_collector_still_frees_cycles_by_itself():
    class Node:
        pass

    thresholds = gc.get_threshold()
    try:
        memory.freeze_start_up()
        cycle = Node()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
        # what a table makes as it plays: enough new objects for the collector to look
        kept = [Node() for _ in range(memory.YOUNG * 3)]
        assert gone() is None, "a cycle made after the start-up waits for gc.collect()"
        assert kept
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_a_quiet_collection_takes_the_generations_that_are_owed():
    thresholds = gc.get_threshold()
    gc.disable()
    try:
        gc.collect()
        gc.set_threshold(100_000, 2, 1_000)
        kept = [[] for _ in range(500)]  # young objects the next collection looks at
        memory.collect_while_quiet()
        assert gc.get_count()[0] < 50, "the youngest were collected"
        young_only = gc.get_count()[1]
        memory.collect_while_quiet()
        memory.collect_while_quiet()  # the third: the middle generation's turn is due
        assert young_only == 1 and gc.get_count()[1] == 0
        del kept
    finally:
        gc.set_threshold(*thresholds)
        gc.enable()
