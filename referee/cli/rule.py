"""``referee rule CODE``: one finding code explained, as a linter explains its rules."""

from __future__ import annotations

import click

from .app import main


@main.command()
@click.argument("code", required=False)
@click.option("--all", "every", is_flag=True, help="Every code, in catalogue order.")
def rule(code: str | None, every: bool) -> None:
    """Explain the finding CODE (e.g. P002, or its name, call-result): its name, severity,
    meaning, an example and what to do; the same text as docs/findings.md."""
    from ..models.catalogue import rule_text
    from ..models.codes import CODES

    if every == (code is not None):
        raise click.UsageError("give one CODE (e.g. referee rule P002) or --all")
    if every:
        click.echo("\n".join(rule_text(c) for c in CODES.values()), nl=False)
        return
    assert code is not None
    by_name = {c.name: c for c in CODES.values()}
    found = CODES.get(code.upper()) or by_name.get(code.lower())
    if found is None:
        from ..models.common import suggest

        raise click.BadParameter(f"{code!r} is no finding code{suggest(code.upper(), list(CODES))}",
                                 param_hint="CODE")
    click.echo(rule_text(found), nl=False)
