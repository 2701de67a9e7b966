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
    from boardref.runtime.config import Config


def start_reporting(config: Config, referee: Referee, history: History) -> Reporter | None:
    """A reporter to the broker ``config``'s ``[fleet]`` settings name, hearing
    ``referee``'s events from now on; None when they name none."""
    fleet, panel = config.fleet, config.panel
    if fleet.url is None:
        return None
    from boardref.outputs.fleet import Reporter
    from boardref.outputs.panel.address import public_base

    reporter = Reporter(
        history.store,
        fleet.broker(),
        fleet.table_id,
        fleet.ca_file,
        fleet.discovery_prefix,
        public_base(panel.public_url, panel.host, panel.port, panel.scheme),
        config.speech.language,
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


def dashboard_output(reporter: Reporter) -> Output:
    """The output that keeps the dashboard's state of the table as displayed."""
    from boardref.outputs.fleet import dashboard_state

    return lambda shown: reporter.report_state(
        dashboard_state(shown, reporter.panel_url, reporter.language)
    )
