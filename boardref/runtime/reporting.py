"""The table's report to the café's broker, wired up: the referee's accepted events and
each ended game's record go to the outbox (with the players' names only when
``[fleet] names`` allows), every pushed display to the dashboard's
state. It passes on what the referee and the service push; it never changes the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardref.eventlog.players import without_names
from boardref.referee.kinds import EventKind
from boardref.runtime.displays import Output
from engines.records import to_json

if TYPE_CHECKING:  # MQTT loads only at a table that reports
    from boardref.eventlog.history import History
    from boardref.outputs.fleet import Reporter
    from boardref.referee.events import Heard
    from boardref.referee.referee import Referee
    from boardref.runtime.config import FleetConfig


def start_reporting(fleet: FleetConfig, referee: Referee, history: History) -> Reporter | None:
    """A reporter to the broker the ``[fleet]`` settings name, hearing ``referee``'s
    events from now on; None when they name none."""
    if fleet.url is None:
        return None
    from boardref.outputs.fleet import Broker, Reporter

    reporter = Reporter(
        history.store,
        Broker.from_url(fleet.url),
        fleet.table_id,
        fleet.ca_file,
        fleet.discovery_prefix,
    )

    def report_record(event: Heard) -> None:
        """A game that ended goes to the café's day of games with its record."""
        if event.kind == EventKind.GAME_OVER and event.accepted:
            record = history.record(referee.game_id)
            reporter.report_record(to_json(record if fleet.names else without_names(record)))

    referee.listeners.append(reporter.on_event)
    referee.listeners.append(report_record)
    reporter.start()
    return reporter


def dashboard_output(reporter: Reporter, panel_url: str | None) -> Output:
    """The output that keeps the dashboard's state of the table as displayed."""
    from boardref.outputs.fleet import dashboard_state

    return lambda shown: reporter.report_state(dashboard_state(shown, panel_url))
