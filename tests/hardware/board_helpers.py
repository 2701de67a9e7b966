"""A simulated board built by a maker: hall sensors chained and an LED strip laid in
an order of their own, and the maker's hands, which put pieces where they are asked."""

import random
import time

from firmware_bridge.sim import Simulator

DEADLINE = 10.0


def wait_until(condition, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {condition.__doc__ or condition}")
        time.sleep(0.005)


class BuiltBoard:
    """``cells`` under a simulated MCU, with sensor *i* under ``cells[sensor_order[i]]``
    (a scrambled chain) and LED *i* under the cell the strip order says."""

    def __init__(self, cells, seed=7, reverse_strip=True, path=None):
        self.cells = list(cells)
        order = list(range(len(self.cells)))
        random.Random(seed).shuffle(order)
        #: cell id -> the sensor soldered under it
        self.sensor_of = {self.cells[physical]: sensor for sensor, physical in enumerate(order)}
        strip = list(reversed(self.cells)) if reverse_strip else list(self.cells)
        #: cell id -> the LED under it
        self.led_of = {cell: led for led, cell in enumerate(strip)}
        self.mcu = Simulator(len(self.cells), path=path, seed=seed)

    def start(self):
        self.mcu.start()
        return self

    def close(self):
        self.mcu.close()

    def put(self, cell, present=True):
        """The maker's hand puts a piece on ``cell`` (or takes it away)."""
        self.mcu.set_cell(self.sensor_of[cell], 1 if present else 0)

    def lay(self, present_cells):
        """Make the board hold pieces exactly on ``present_cells``."""
        states = bytearray(len(self.cells))
        for cell in present_cells:
            states[self.sensor_of[cell]] = 1
        self.mcu.set_board(states)

    def colour(self, cell):
        """The colour the LED under ``cell`` shows, (r, g, b)."""
        led = self.led_of[cell]
        return tuple(self.mcu.leds[3 * led : 3 * led + 3])

    def lit_cells(self):
        """The cells whose LED is on."""
        return [cell for cell in self.cells if any(self.colour(cell))]


class Maker:
    """Follows the wizard's words as a person would: puts a piece on the named or lit
    cell, takes it away when the wizard has heard it."""

    def __init__(self, board):
        self.board = board
        self.heard = []
        self._holding = None

    def __call__(self, said):
        self.heard.append(said)
        params = dict(said.params)
        if said.key == "board.map.put":
            self._hold(params["cell"])
        elif said.key == "board.map.lit":
            # The wizard asks once the board has acknowledged the light.
            assert len(self.board.lit_cells()) == 1, self.board.lit_cells()
            self._hold(self.board.lit_cells()[0])
        elif said.key in ("board.map.heard", "board.map.led_heard") and self._holding:
            self.board.put(self._holding, False)
            self._holding = None

    def _hold(self, cell):
        self._holding = cell
        self.board.put(cell)
