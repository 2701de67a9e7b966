"""The table's own devices as the service drives them: the hall-sensor board with its
cell LEDs and status lights (``board.py``) and the camera (``camera.py``). They turn
scans and frames into readings for the referee and show what the referee published;
they never decide anything."""
