"""Reading one field of an export record, and what is said when it cannot be read.

Why apart from the game builder: every message of a record that does not fit its
mapping is made here, the same way (the mapping key, its expression, the export's own
path, what was found there, why), so a user reads one shape of error whatever the
field; whether a field was missing (rather than unreadable) decides if the mapping is
not the file's at all (``games``).
"""

from __future__ import annotations

from typing import Any

from ...models import codes
from ..records import LoadProblem
from .files import ExportRecord
from .normalize import Misfit, shown
from .search import Getter


class FieldMisfit(Misfit):
    def __init__(self, message: str, line: int, missing: bool = False, path: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        #: A required field found nothing (rather than a value it could not read).
        self.missing = missing
        #: The export's own path of the field (a finding's ``export_field``).
        self.path = path


def missing(misfit: Misfit) -> bool:
    return isinstance(misfit, FieldMisfit) and misfit.missing


def misfit_line(misfit: Misfit, default: int) -> int:
    return misfit.line if isinstance(misfit, FieldMisfit) else default


def misfit_problem(source: str, misfit: Misfit, default: int) -> LoadProblem:
    """The finding of a record that does not fit: H008 at the field's line, with its path."""
    return LoadProblem(source, misfit_line(misfit, default), str(misfit), code=codes.H008,
                       export_field=misfit.path if isinstance(misfit, FieldMisfit) else None)


def field_misfit(getter: Getter, key: str, record: ExportRecord, value: Any, why: str) -> Misfit:
    """The one clear error: the mapping key, its expression, where, what was found."""
    found = "found nothing" if value is None else f"found {shown(value)}"
    path = getter.path(record.pointer)
    data, line = record.data, record.line
    if record.lines is not None:  # a record read with plain dicts: its object's own line, found now
        data, line = record.lines.twin(data), record.lines.line(data, line)
    return FieldMisfit(f"{key}: {getter.text!r} {found} at {path} ({why})", getter.line_in(data, line),
                       value is None, path)


def required(getter: Getter, key: str, record: ExportRecord) -> Any:
    value = getter(record.data)
    if value is None:
        keys = record.data if isinstance(record.data, dict) else None
        hint = f"; the record's keys are {', '.join(repr(k) for k in list(keys)[:8])}" if keys else ""
        raise field_misfit(getter, key, record, None, "a required field" + hint)
    return value


def text_id(value: Any, getter: Getter, key: str, record: ExportRecord) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise field_misfit(getter, key, record, value, "expected an id (text or a whole number)")
    return str(value)
