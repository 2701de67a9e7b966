"""The boardref service: the referee, its event log, the web panel, the café fleet and
the command line that starts them."""
