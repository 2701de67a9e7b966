"""`python -m boardref` runs the command line, like the installed `boardref` script."""

from boardref.cli import app

app()
