"""``referee schema``: the JSON Schemas of the formats and of a profile."""

from __future__ import annotations

import click

from .app import main


@main.command()
@click.argument("name", type=click.Choice(["hand-history", "table-history", "profile", "mapping"]),
                default="hand-history")
def schema(name: str) -> None:
    """Print the JSON Schema of a hand history (format 1), a table history (format 2), a rule
    profile or an export mapping file."""
    from ..schemas import text

    click.echo(text(name), nl=False)

