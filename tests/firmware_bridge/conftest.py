"""Shared fixtures: a simulated board on a pseudo-terminal and a host link to it."""

import pytest
from bridge_helpers import DEADLINE, Recorder

from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator

# Written for MicroPython, run by pico_wasm.py under the WebAssembly port.
collect_ignore = ["micropython"]


@pytest.fixture
def sim(tmp_path):
    simulator = Simulator(cells=121, path=str(tmp_path / "boardref-pico"), seed=1)
    with simulator:
        yield simulator


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def link(sim, recorder):
    board_link = Link(sim.path)
    board_link.subscribe(recorder)
    board_link.open(timeout=DEADLINE)
    yield board_link
    board_link.close()
