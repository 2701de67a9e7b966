"""Per-cell debouncing: a cell takes a new state only once that state has been read
in ``scans`` scans in a row, so a flickering sensor or a hand passing over the board
never reaches the host as a move.

Runs on the RP2040 and in the simulator alike; it must never read pins or clocks
itself, it is handed each scan's raw readings.
"""


class Debouncer:
    """The debounced ``state`` of every cell (a byte per cell, as in SCAN)."""

    def __init__(self, cells: int, scans: int) -> None:
        self.scans = scans
        self.state = bytearray(cells)
        self._candidate = bytearray(cells)
        self._seen = bytearray(cells)
        self._pending = 0

    def update(self, raw: bytes | bytearray) -> bool:
        """Take one scan's raw readings, a byte per cell; True when ``state`` changed."""
        state = self.state
        # The board is still almost all the time: skip the per-cell loop then.
        if not self._pending and raw == state:
            return False
        candidate = self._candidate
        seen = self._seen
        needed = self.scans
        changed = False
        pending = 0
        for cell in range(len(state)):
            value = raw[cell]
            if value == state[cell]:
                seen[cell] = 0
                continue
            if seen[cell] and value == candidate[cell]:
                seen[cell] += 1
            else:
                candidate[cell] = value
                seen[cell] = 1
            if seen[cell] >= needed:
                state[cell] = value
                seen[cell] = 0
                changed = True
            else:
                pending += 1
        self._pending = pending
        return changed
