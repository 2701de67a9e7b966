"""`boardref serve` as a process: run the table's service until SIGTERM or SIGINT, or,
where its event log cannot be opened, the one page that says why. It opens the panel's
listening socket before either starts and closes it when the run ends.

Its threads take turns at the interpreter every ``SWITCH_INTERVAL_S`` rather than
Python's 5 ms: the verdict and the indexing of the next moves run on worker threads,
and the event loop, woken by a timer, a scan or a page, waits for a worker's turn to
end before it runs a line; on a Pi's slower core each such wait is four times as long.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from boardref.eventlog.store import LogFault
from boardref.outputs.panel.server import panel_socket
from boardref.runtime.config import Config
from boardref.runtime.service import Service
from engines.words import Words

#: how long a thread may hold the interpreter while another waits for it (seconds)
SWITCH_INTERVAL_S = 0.001


async def serve(config: Config, sim: bool = False, fault: Words | None = None) -> None:
    """Run the service until SIGTERM or SIGINT; a table whose event log cannot be
    opened (or ``fault``, its lock could not be taken) shows why instead."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    listening = panel_socket(config.panel.host, config.panel.port)
    try:
        if fault is None:
            try:
                service = Service(config, loop, sim)
            except LogFault as exc:
                fault = exc.said
            else:
                try:
                    await service.run(stop, listening)
                finally:
                    service.close()
                return
        from boardref.outputs.panel.fault_page import serve_fault

        await serve_fault(fault, config, sim, listening, stop)
    finally:
        listening.close()
