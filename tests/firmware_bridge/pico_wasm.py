"""The firmware on the MicroPython WebAssembly port, as a board on a pseudo-terminal.

Node runs ``micropython/pico.mjs``, which loads the firmware files into the
interpreter's virtual filesystem beside fakes of ``machine`` and ``rp2`` and starts
it on a USB line that is this pseudo-terminal's master end; the host driver opens
``path`` like a Pico's device node. The interpreter is the npm package
``@micropython/micropython-webassembly-pyscript``, installed by ``make micropython``.
"""

import os
import subprocess
import threading
import tty
from pathlib import Path

from firmware_bridge.flash import firmware_files

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent / "micropython"
NODE = os.environ.get("BOARDREF_NODE", "node")
MICROPYTHON = Path(
    os.environ.get(
        "BOARDREF_MICROPYTHON",
        ROOT / ".node/node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs",
    )
)
FAKES = ("pico_board.py", "machine.py", "rp2.py")


def missing() -> str | None:
    """Why the MicroPython board cannot run here, or None."""
    if not MICROPYTHON.exists():
        return f"{MICROPYTHON} is missing: run `make micropython` (needs node and npm)"
    return None


class WasmPico:
    """The firmware under MicroPython, reachable at ``path``."""

    def __init__(self, workdir, cells=121, sensor="74hc165", files=None, reset_cause=1):
        self.cells = cells
        self.log = []
        self.leds = None
        self._changed = threading.Condition()
        settings = Path(workdir) / "pico_settings.py"
        settings.write_text(f"CELLS = {cells}\nSENSOR = {sensor!r}\nRESET_CAUSE = {reset_cause}\n")
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        controls_in, self._controls = os.pipe()
        os.set_blocking(controls_in, False)
        self.path = os.ttyname(slave)
        self._slave = slave
        firmware = [str(path) for path in (files or firmware_files())]
        self._process = subprocess.Popen(
            [NODE, str(HERE / "pico.mjs"), MICROPYTHON.as_uri(), str(HERE / "boot.py")]
            + [str(HERE / name) for name in FAKES]
            + firmware
            + [str(settings)],
            stdin=master,
            stdout=master,
            stderr=subprocess.PIPE,
            pass_fds=(controls_in,),
            env={**os.environ, "PICO_CONTROLS_FD": str(controls_in)},
        )
        os.close(master)
        os.close(controls_in)
        self._reader = threading.Thread(target=self._read_reports, daemon=True)
        self._reader.start()

    def set_cell(self, cell, state):
        """Put a piece on ``cell`` (1; 2 for south up on a magnet board) or take it (0)."""
        os.write(self._controls, f"set {cell} {state}\n".encode())

    def break_chain(self):
        """Cut the 74HC165 chain: ones come after its end."""
        os.write(self._controls, b"break\n")

    @property
    def running(self):
        return self._process.poll() is None

    def output(self):
        """Everything the interpreter printed (tracebacks), as one text."""
        with self._changed:
            return "\n".join(self.log)

    def wait_leds(self, want, timeout):
        """Wait until the strip shows ``want`` (GRB hex per LED); True if it did."""
        with self._changed:
            return self._changed.wait_for(lambda: self.leds == want, timeout)

    def close(self):
        if self._process.poll() is None:
            self._process.terminate()
        self._process.wait(timeout=10)
        self._reader.join(timeout=5)
        os.close(self._controls)
        os.close(self._slave)

    def _read_reports(self):
        for raw in self._process.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            with self._changed:
                if line.startswith("leds "):
                    self.leds = line[5:]
                else:
                    self.log.append(line)
                self._changed.notify_all()
