"""Camera frames to per-cell observations. Shared parts: the lens (``lens``), the
board's pose from its markers (``locate``), stillness, the pieces' looks and the
synthetic renderer; the board games' pipeline in ``vision.boards``, Hägar's coasters
in ``vision.coasters``. Never decides a move: the referee does."""
