"""``referee mappings``: the built-in mappings, and one printed as a template to start from."""

from __future__ import annotations

import click

from .app import main


@main.command()
@click.argument("name", required=False)
def mappings(name: str | None) -> None:
    """List the built-in mappings, or print mapping NAME as a commented template to copy
    and edit for another export (docs/importers.md)."""
    from ..load.exports import MappingError, builtin_names, load_mapping
    from ..load.exports.mappings import builtin_text

    if name is None:
        for known in builtin_names():
            loaded = load_mapping(known)
            click.echo(f"{known:<24} {loaded.mapping.kind:<7} {loaded.mapping.input:<6} "
                       f"{loaded.mapping.description}")
        return
    try:
        load_mapping(name)
    except MappingError as err:
        raise click.BadParameter(str(err), param_hint="NAME") from None
    if name not in builtin_names():
        raise click.BadParameter(f"{name!r} is not a built-in mapping ('referee mappings' lists them)",
                                 param_hint="NAME")
    click.echo(builtin_text(name).decode("utf-8"), nl=False)
