"""`boardref serve` at run time: the config it is given, the service that wires the
referee, board link, camera, panel and fleet on one event loop, and what it owes the
machine it runs on (systemd's notify protocol, the kiosk's address, a small memory
footprint, the event loop's lateness). It decides no rule."""
