"""``referee cases list|export --store URL``: the desk's dispute cases, for the regulator
(docs/desk.md)."""

from __future__ import annotations

import click

from ..report.rows import CASE_COLUMNS, case_row, cases_export
from .app import main
from .users import STORE, emit, write


@main.group()
def cases() -> None:
    """The dispute cases the desk opened and decided (referee serve)."""


STATUS = click.option("--status", type=click.Choice(["open", "decided", "closed"]), default=None,
                      help="Only the cases with this status.")


@cases.command("list")
@STATUS
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "json"]), default="text", show_default=True)
@STORE
def list_(status: str | None, fmt: str, store: str) -> None:
    """List the cases, the newest first: game, player, status, decision, amount, who, when."""
    from ..store.cases import list_cases

    found = list_cases(store, status)
    columns = CASE_COLUMNS if fmt != "text" else ["case", "game", "player", "status", "decision", "amount", "opened",
                                             "opened_by"]
    write([case_row(c) for c in found], columns, fmt, None, "cases")


@cases.command()
@STATUS
@click.option("--events", is_flag=True, help="One row a change of a case (who, when, what, the note) instead of "
                                             "one a case.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write to FILE (atomically) instead of standard output.")
@STORE
def export(status: str | None, events: bool, fmt: str, output: str | None, store: str) -> None:
    """Export the cases for the regulator, oldest first (CSV or JSON): each case as it
    stands, or with --events every change of each."""
    from ..store.cases import list_cases

    emit(cases_export(list_cases(store, status), fmt, events), output, store)
