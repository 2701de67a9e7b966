"""`python -m boardref` runs the command line, like the installed `boardref` script."""

from boardref.cli.app import app

app()
