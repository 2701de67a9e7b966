"""The event log: every accepted event of every game in SQLite, written before it is
shown (``store.py``); the ended games and their records (``history.py``), pruned as
``[store]`` says (``retention.py``);
the lock that keeps one writer per log (``log_lock.py``); and what a log is checked
for before anything writes to it (``log_check.py``). Nothing here interprets a rule."""
