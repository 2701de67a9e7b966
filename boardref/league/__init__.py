"""The café league: players rated from the records of refereed games, standings and
seasons (``ratings``, ``standings``); the players themselves are kept in the event
log (``boardref.eventlog.players``)."""
