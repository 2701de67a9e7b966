"""The café's side of a fleet of tables: ``boardref fleet``, the dashboard that
watches every table on the café's MQTT broker, the day's archive of their games, and
what the dashboard believes of a table (its name, its link, its own topics). It only
watches; it never sends a table anything."""
