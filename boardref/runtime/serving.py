"""`boardref serve` as a process: run the table's service until SIGTERM or SIGINT, or,
where its event log cannot be opened, the one page that says why. It opens the panel's
listening socket before either starts and closes it when the run ends.
"""

from __future__ import annotations

import asyncio
import signal

from boardref.eventlog.store import LogFault
from boardref.outputs.panel.server import panel_socket
from boardref.runtime.config import Config
from boardref.runtime.service import Service
from engines.words import Words


async def serve(config: Config, sim: bool = False, fault: Words | None = None) -> None:
    """Run the service until SIGTERM or SIGINT; a table whose event log cannot be
    opened (or ``fault``, its lock could not be taken) shows why instead."""
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
