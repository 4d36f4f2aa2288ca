"""Records as rows, in text, CSV or JSON: the accounts, the read log and the dispute cases
as ``referee users``, ``referee cases`` and the desk's exports write them.

Why one module: a regulator given the cases from the command line and from the desk gets
one layout, byte for byte (the same columns, times and cells); a CSV cell a spreadsheet
would run as a formula is quoted with a leading apostrophe (OWASP's advice on CSV
injection: a note is anyone's text).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ..rules.money import dumps

#: A case's columns, as listed and exported (one row a case: its state now).
CASE_COLUMNS = ["case", "game", "player", "status", "decision", "amount", "opened", "opened_by", "note", "decided",
                "decided_by", "closed", "closed_by"]
#: An event's columns (one row a change of a case).
EVENT_COLUMNS = ["case", "event", "at", "by", "kind", "decision", "amount", "note"]


def when(us: int) -> str:
    """A store time (microseconds since 1970) as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(us / 1_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def case_row(case: Any) -> dict[str, Any]:
    """A case (:class:`referee.store.cases.Case`) as it stands: its last decision and closing."""
    decided = next((e for e in reversed(case.events) if e.kind == "decided"), None)
    closed = next((e for e in reversed(case.events) if e.kind == "closed"), None)
    return {"case": case.id, "game": case.game, "player": case.player, "status": case.status,
            "decision": case.decision, "amount": None if case.amount is None else str(case.amount),
            "opened": when(case.opened_us), "opened_by": case.opened_by, "note": case.note,
            "decided": None if decided is None else when(decided.at_us),
            "decided_by": None if decided is None else decided.by,
            "closed": None if closed is None else when(closed.at_us),
            "closed_by": None if closed is None else closed.by}


def event_rows(cases: Iterable[Any]) -> list[dict[str, Any]]:
    """Every change of ``cases``, case by case in id order, each in order."""
    return [{"case": e.case_id, "event": e.id, "at": when(e.at_us), "by": e.by, "kind": e.kind,
             "decision": e.decision, "amount": None if e.amount is None else str(e.amount), "note": e.note}
            for case in sorted(cases, key=lambda c: c.id) for e in case.events]


def cases_export(cases: Iterable[Any], fmt: str, events: bool = False) -> str:
    """The cases for the regulator, oldest first: one row a case as it stands, or with
    ``events`` one row a change; CSV or JSON (``{"cases": ...}`` or ``{"events": ...}``)."""
    found = sorted(cases, key=lambda c: c.id)
    if events:
        return rows_text(event_rows(found), EVENT_COLUMNS, fmt, "events")
    return rows_text([case_row(c) for c in found], CASE_COLUMNS, fmt, "cases")


def rows_text(rows: list[dict[str, Any]], columns: list[str], fmt: str, key: str) -> str:
    """``rows`` as ``text`` (a table for a person), ``csv`` or ``json`` (``{key: rows}``)."""
    if fmt == "json":
        return dumps({key: rows}, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        out = csv.writer(buffer, lineterminator="\n")
        out.writerow(columns)
        out.writerows([[cell(row[c]) for c in columns] for row in rows])
        return buffer.getvalue()
    from tabulate import tabulate

    from ..escape import printable

    cells = [[printable(str("" if row[c] is None else row[c])) for c in columns] for row in rows]
    return (tabulate(cells, headers=columns) if cells else f"no {key}") + "\n"


def cell(value: Any) -> str:
    """A CSV cell a spreadsheet will not run as a formula (a number stays a number)."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _number(text) else text


def _number(text: str) -> bool:
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return True
