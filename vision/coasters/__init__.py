"""Hägar's camera pipeline: the table mat and the coasters' printed faces (``mat``),
reading coasters on the mat (``reader``), the sensor the referee is fed from
(``sensor``), and their synthetic frames and evaluation (``render``, ``evaluate``)."""

#: the game whose coasters lie on a table mat rather than on a board
GAME = "haegar"
