"""The test's side of the fake board for the firmware under CPython: what the
WebAssembly port's ``pico_host`` is to the firmware under MicroPython. The test
queues control lines for ``pico_board`` in ``lines`` and reads its reports (the LED
strip's words) in ``reports``."""

lines = []
reports = []


def controls():
    """The control lines the test queued since the last call."""
    text = "".join(line + "\n" for line in lines)
    lines.clear()
    return text


def report(line):
    reports.append(line)
