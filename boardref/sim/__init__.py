"""The simulated table: ``boardref simulate`` (random games played on a simulated
board by simulated hands), the virtual board of ``serve --sim``, its rendered camera
and terminal play. It plays the part of the people and the board; it never decides
what the rules allow."""
