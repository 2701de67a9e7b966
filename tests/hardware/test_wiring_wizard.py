"""The wiring map wizard on a board soldered in its own order, driven as a maker would."""

import queue
import time

import pytest

from boardref.devices.board import SensorBoard
from boardref.eventlog.store import Store
from boardref.referee.kinds import Phase
from boardref.referee.referee import Referee
from engines import load_game
from firmware_bridge.host import Link
from hardware.lights import CellLights, Palette
from hardware.wiring import Wiring, WiringError, wiring_path
from hardware.wiring_wizard import MapWizard
from tests.hardware.board_helpers import DEADLINE, BuiltBoard, Maker

GAME = "catch_the_hare"


@pytest.fixture
def built(tmp_path):
    game = load_game(GAME)
    board = BuiltBoard([cell.id for cell in game.board.cells], path=str(tmp_path / "pico"))
    board.start()
    link = Link(board.mcu.path)
    link.open(timeout=DEADLINE)
    yield game, board, link
    link.close()
    board.close()


def _wizard(link, maker):
    return MapWizard(
        lambda: link.last_scan.cells,
        link.set_leds,
        maker,
        lambda: link.shown,
        patience=3 * DEADLINE,  # a loaded machine stalls the link for seconds
        settle=0.1,
    )


def _referee_plays(tmp_path, game, board, link, wiring, moves=8):
    """Play ``moves`` legal moves on the board through the wiring; the referee must
    accept each, and the LEDs must light the cells it means."""
    store = Store(tmp_path / "boardref.db")
    try:
        referee = Referee(store, sensor="presence", settle=0.1)
        referee.new_game(GAME, seed=b"wiring")
        lights = CellLights(wiring.leds, Palette.load())
        table = SensorBoard(referee, wiring.sensors, lights, link.set_leds)
        scans = queue.Queue()
        link.subscribe(lambda scan: scans.put(bytes(scan.cells)))
        table.on_scan(bytes(link.last_scan.cells), time.monotonic())
        table.refresh()

        def judge_until(condition):
            deadline = time.monotonic() + DEADLINE
            while not condition():
                assert time.monotonic() < deadline, f"stuck in {referee.phase}: {board.lit_cells()}"
                while not scans.empty():
                    table.on_scan(scans.get(), time.monotonic())
                table.tick(time.monotonic())
                time.sleep(0.01)

        # Setting up: the LEDs light the empty start cells, each under its own cell.
        start = game.initial_state()
        felt = game.sense(start, "presence")
        wanted = {cell for cell, there in felt.items() if there}
        judge_until(lambda: set(board.lit_cells()) == wanted)
        board.lay(wanted)
        judge_until(lambda: referee.phase == Phase.MOVE)
        state = start
        for number in range(moves):
            move = game.legal_moves(state)[number % len(game.legal_moves(state))]
            state = game.apply(state, move)
            felt = game.sense(state, "presence")
            board.lay(cell for cell, there in felt.items() if there)
            judge_until(lambda want=state: referee.current() == want)
        return referee
    finally:
        store.close()


@pytest.mark.slow
def test_wizard_maps_a_scrambled_chain_and_a_reversed_strip_so_a_game_plays(built, tmp_path):
    game, board, link = built
    # One sensor also answers to its neighbour's piece, as a too-strong magnet does.
    cells = board.cells
    board.mcu.couple(board.sensor_of[cells[1]], board.sensor_of[cells[0]])
    maker = Maker(board)
    result = _wizard(link, maker).run(game.board.name, cells)

    assert result.wiring.sensors == [
        cell for cell, _ in sorted(board.sensor_of.items(), key=lambda item: item[1])
    ]
    assert result.wiring.leds == list(reversed(cells))
    said = [str(words) for words in result.findings]
    assert said == [
        f"At cell {cells[0]}, sensor {board.sensor_of[cells[1]]} of cell {cells[1]} answered "
        "too: it sees its neighbour's piece"
    ]
    path = wiring_path(tmp_path / "wiring", game.board.name)
    result.wiring.save(path)
    loaded = Wiring.load(path, cells)
    assert loaded == result.wiring

    board.mcu.sensors.crosstalk.clear()
    referee = _referee_plays(tmp_path, game, board, link, loaded)
    assert len(referee.positions) == 9


@pytest.mark.slow
def test_without_the_wiring_the_same_board_cannot_be_played(built, tmp_path):
    game, board, link = built
    straight = Wiring.straight(game.board.name, board.cells)
    # The LEDs light the wrong cells, and the referee cannot read the start position.
    with pytest.raises(AssertionError):
        _referee_plays(tmp_path, game, board, link, straight, moves=1)


@pytest.mark.slow
def test_wizard_says_which_cells_are_silent_and_which_sensor_answers_twice(built):
    game, board, link = built
    cells = board.cells[:4]
    board.mcu.kill(board.sensor_of[cells[1]])
    maker = Maker(board)
    wizard = MapWizard(lambda: link.last_scan.cells, link.set_leds, maker, patience=1.0, settle=0.1)
    # The maker puts the piece for the fourth cell on the third by mistake.
    board.sensor_of[cells[3]] = board.sensor_of[cells[2]]
    sensors, findings = wizard.map_sensors(cells, link.last_scan.cells)
    said = [str(words) for words in findings]
    assert f"No sensor answered at cell {cells[1]}: check its sensor, magnet and wire" in said
    assert (
        f"Sensor {board.sensor_of[cells[2]]} answered alone at cells {cells[2]}, {cells[3]}: "
        "two cells on one sensor, or a piece left on the board" in said
    )
    assert sensors[board.sensor_of[cells[0]]] == cells[0]


def test_a_wiring_file_that_names_strange_cells_is_refused_in_words(tmp_path):
    path = tmp_path / "board.json"
    path.write_text('{"board": "x", "sensors": ["a1", "zz"], "leds": ["a1", null]}')
    with pytest.raises(WiringError, match="sensors names cells not on x"):
        Wiring.load(path, ["a1", "a2"])
    path.write_text("not json")
    with pytest.raises(WiringError, match="not a wiring file"):
        Wiring.load(path, ["a1", "a2"])
