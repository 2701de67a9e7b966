"""The boardref service: command line, and later the referee, store, panel and fleet."""
