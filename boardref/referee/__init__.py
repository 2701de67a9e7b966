"""The referee: readings in, verdicts out. ``referee.py`` composes its parts, which
share one ``Match`` (``match.py``: the game, its log, the phase, the board's reading
and the lookups) and receive what else they use: the ledger logs before anything
changes (``ledger.py``), judging turns settled readings into verdicts
(``judging.py``), guidance and refusals say what a board that is not a move needs
(``guidance.py``, ``refusals.py``, ``unseen.py``, ``choices.py``), weighing reads
the camera (``weighing.py``, ``fusion.py``), the commands act for people and
computer seats (``commands.py``, ``computer_seats.py``), positions are edited by hand
(``placing.py``), and the outbox tells the listeners (``events.py``), a snapshot of
the table after every change (``snapshot.py``). Its words for sensors, phases and
events are in ``kinds.py``. Everything else only hears what it publishes."""
