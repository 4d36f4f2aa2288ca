"""``referee cases list|export --store URL``: the desk's dispute cases, for the regulator
(docs/desk.md)."""

from __future__ import annotations

from typing import Any

import click

from .app import main
from .users import STORE, when, write

#: A case's columns, as listed and exported (one row a case: its state now).
COLUMNS = ["case", "game", "player", "status", "decision", "amount", "opened", "opened_by", "note", "decided",
           "decided_by", "closed", "closed_by"]
#: An event's columns (``cases export --events``: one row a change).
EVENT_COLUMNS = ["case", "event", "at", "by", "kind", "decision", "amount", "note"]


@main.group()
def cases() -> None:
    """The dispute cases the desk opened and decided (referee serve)."""


def _row(case: Any) -> dict[str, Any]:
    decided = next((e for e in reversed(case.events) if e.kind == "decided"), None)
    closed = next((e for e in reversed(case.events) if e.kind == "closed"), None)
    return {"case": case.id, "game": case.game, "player": case.player, "status": case.status,
            "decision": case.decision, "amount": None if case.amount is None else str(case.amount),
            "opened": when(case.opened_us), "opened_by": case.opened_by, "note": case.note,
            "decided": None if decided is None else when(decided.at_us), "decided_by": None if decided is None
            else decided.by, "closed": None if closed is None else when(closed.at_us),
            "closed_by": None if closed is None else closed.by}


def _events(found: list[Any]) -> list[dict[str, Any]]:
    return [{"case": e.case_id, "event": e.id, "at": when(e.at_us), "by": e.by, "kind": e.kind,
             "decision": e.decision, "amount": None if e.amount is None else str(e.amount), "note": e.note}
            for case in sorted(found, key=lambda c: c.id) for e in case.events]


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
    columns = COLUMNS if fmt != "text" else ["case", "game", "player", "status", "decision", "amount", "opened",
                                             "opened_by"]
    write([_row(c) for c in found], columns, fmt, None, "cases")


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

    found = sorted(list_cases(store, status), key=lambda c: c.id)
    if events:
        write(_events(found), EVENT_COLUMNS, fmt, output, "events", store)
    else:
        write([_row(c) for c in found], COLUMNS, fmt, output, "cases", store)
