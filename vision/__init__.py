"""Camera frames to per-cell observations (calibration, board localisation, cell
classification, a synthetic renderer). Built by the vision issue; never decides a move."""
