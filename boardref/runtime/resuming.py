"""Which game a table starts with: the open game in its event log, or the one its
config sets when there is none (or the log holds another game, or cannot be read).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from boardref.eventlog.store import StoreError

if TYPE_CHECKING:
    from boardref.referee.referee import Referee
    from boardref.runtime.config import GameConfig

log = logging.getLogger("boardref")


def resume_or_start(referee: Referee, game: GameConfig) -> None:
    """Resume the open game if it is ``game``'s, else start ``game``."""
    try:
        resumed = referee.resume()
    except StoreError as exc:
        log.error("%s; starting a new game, the old one stays in the log", exc)
        resumed = False
    if resumed and referee.game.name != game.name:
        log.info(
            "the open game is %s, the table is set for %s: starting that",
            referee.game.name,
            game.name,
        )
        resumed = False
    if not resumed:
        referee.new_game(game.name, game.players, game.options)
        if game.computer:
            referee.seat_computer(game.computer, game.level)
    else:
        log.info("resumed %s after %d events", referee.game.name, len(referee.log))
