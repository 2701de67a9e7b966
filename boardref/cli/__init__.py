"""The command line (`boardref ...`, typer): every command, the checks of the values
it is given, and the board bring-up commands for makers. No game logic."""
