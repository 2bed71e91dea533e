"""`python -m trustaudit` runs the CLI."""

from trustaudit.cli.main import run

run()
