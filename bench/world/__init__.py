"""A physically rendered test world for the camera reader: café tables with printed
boards, glass and clay marbles, wooden and plastic figures and hats, lamps and a
window, an arm over the board, and real camera faults, path-traced by Mitsuba 3.

``scene`` describes a set-up and a position from a seed (the ground truth),
``render`` path-traces it, ``camera`` turns the light into a phone's or webcam's
JPEG, ``frames`` caches the results. It must never import the reader (``vision``),
nor the reader it: a world written apart from the reader is what keeps the reader
honest.
"""
