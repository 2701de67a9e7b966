"""The referee: readings in, verdicts out. ``referee.py`` holds its state and settles
readings against the legal successors; its parts draw, confirm, choose and take back
(``commands.py``), say what a board that is not a move needs (``guidance.py``,
``refusals.py``, ``unseen.py``, ``choices.py``), weigh the camera (``weighing.py``,
``fusion.py``), edit a position (``placing.py``), act for the computer's seats
(``computer_seats.py``) and publish the table's state (``snapshot.py``,
``verdicts.py``). Everything else only hears what it publishes."""
