"""The records of an export file, each with its line and its own path in the export.

Why records and not games here: an export's shape is the mapping's business; this
module only finds the records where the mapping says they are (``data[].games[]`` in
a JSON page, one a line in JSON Lines, one a row in CSV) and says where each is: the
line the record starts on, and its pointer (``data[0].games[3]``, ``[12]`` for the
13th JSON Lines record, ``row 5`` for CSV's fifth data row). Every shape is streamed
(bounded memory, whatever the size): JSON Lines and CSV a line or a row at a time, a
JSON page a record at a time (:mod:`.pages`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ...models import codes
from ...models.mapping import Mapping
from ..jsonio import JsonInputError, RecordLines
from ..jsonplain import loads_plain
from ..reading import Reading, Stream
from ..records import LineDict, LoadProblem
from .pages import Page, PageError, Shape

#: A CSV cell may hold a JSON document (roundDetails): larger than this is refused.
MAX_CELL = 1 << 20
_new_line_dict, _update = dict.__new__, dict.update


@dataclass(slots=True)
class ExportRecord:
    """One record of an export as found: where it starts, its path, its data (and, in a
    JSON page, the page without its records: what ``document`` expressions read)."""

    line: int
    pointer: str
    data: Any
    document: Any = None
    #: A page's record read with plain dicts: where its objects open (its seats', others'
    #: when a finding asks); None when its objects are LineDicts or on its one line.
    lines: RecordLines | None = None


def export_records(reading: Reading, stream: Stream, mapping: Mapping,
                   complete: Callable[[dict[str, Any]], bool] | None = None,
                   seats: str | None = None) -> Iterator[ExportRecord | LoadProblem]:
    """Every record of the file, in order; problems as records (fatal ones stop the file).
    ``complete``: whether a page's document holds what the mapping reads of it (a page
    whose records come first is then spooled, :class:`.pages.Page`); ``seats``: the key
    of a record's seats, when the mapping reads them by one key (a page's records are
    then read with plain dicts, :func:`~referee.load.jsonio.scan_record`)."""
    if mapping.input == "json":
        return _json(reading, stream, mapping.records, complete if mapping.document is not None else None, seats)
    if mapping.input == "jsonl":
        return _jsonl(reading, stream)
    return _csv(reading, stream, mapping)


def _json(reading: Reading, stream: Stream, where: str, complete: Callable[[dict[str, Any]], bool] | None,
          seats: str | None = None) -> Iterator[ExportRecord | LoadProblem]:
    """A page's records, streamed (:mod:`.pages`): bounded memory whatever its size."""
    page = Page(stream, where, complete=complete, seats=seats)
    document = page.document if complete is not None else None
    found = 0
    try:
        for record in page.records():
            found += 1
            value = record.value
            yield ExportRecord(value.line if isinstance(value, LineDict) else record.line, record.pointer, value,
                               document, record.lines)
    except PageError as err:
        yield reading.fail(err.line, err.message, err.code)
        return
    if not found and not page.shape.lists:  # an empty page (a day without games) is no error
        yield reading.fail(1, f"the mapping finds no record here: records {where!r} {_what(page.shape)}", codes.H000)


def _what(shape: Shape) -> str:
    """What the document has instead, in words."""
    if shape.top == "object":
        keys = ", ".join(repr(k) for k in shape.keys)
        return f"found nothing (the document's top-level keys are {keys or 'none'})"
    return f"found nothing (the document is {'a list' if shape.top == 'list' else shape.top})"


def _jsonl(reading: Reading, stream: Stream) -> Iterator[ExportRecord | LoadProblem]:
    index = 0
    for number, raw in enumerate(stream, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            yield LoadProblem(reading.name, number, f"not UTF-8 text (byte {err.start + 1} of the line)")
            continue
        try:
            data = loads_plain(text, number)
        except JsonInputError as err:
            if index == 0:  # already the first record: the file is not JSON Lines
                yield reading.fail(number, f"not JSON Lines, as the mapping reads: {err.message}", err.code)
                return
            yield LoadProblem(reading.name, number, err.message, code=err.code)
            index += 1
            continue
        yield ExportRecord(number, f"[{index}]", data)
        index += 1


def _csv(reading: Reading, stream: Stream, mapping: Mapping) -> Iterator[ExportRecord | LoadProblem]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    options = mapping.csv
    try:
        for _ in range(options.preamble):
            text.readline()
        rows = csv.reader(text, delimiter=options.delimiter, strict=True)
        header = next(rows, None)
        if header is None:
            yield reading.fail(options.preamble + 1, "no header row: expected the column names"
                               + (f" after {options.preamble} preamble line(s)" if options.preamble else ""))
            return
        problem = _header_problem(header, mapping)
        if problem is not None:
            shown = options.delimiter.join(header)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            yield reading.fail(options.preamble + 1, f"line {options.preamble + 1} is not the header this mapping "
                                                     f"reads ({problem}): it reads {shown!r}")
            return
        yield from _rows(reading, rows, header, mapping, options.preamble + 1)
    except csv.Error as err:
        yield reading.fail(0, f"not CSV: {err}")
    except UnicodeDecodeError as err:
        yield reading.fail(0, f"not UTF-8 text: {err.reason}")
    finally:
        text.detach()


def _header_problem(header: list[str], mapping: Mapping) -> str | None:
    if len(set(header)) != len(header):
        twice = sorted({name for name in header if header.count(name) > 1})
        return f"the header names a column twice: {', '.join(twice)}"
    missing = [name for name in mapping.csv.json_columns if name not in header]
    if missing:
        return f"no column {', '.join(missing)}, which csv.json_columns names"
    return None


def _rows(reading: Reading, rows: Any, header: list[str], mapping: Mapping,
          header_line: int) -> Iterator[ExportRecord | LoadProblem]:
    json_columns = list(mapping.csv.json_columns)
    last = rows.line_num + header_line - 1
    for number, row in enumerate(rows, start=1):
        line = last + 1
        last = rows.line_num + header_line - 1
        if not row or row == [""]:
            continue
        if len(row) != len(header):
            yield LoadProblem(reading.name, line, f"row {number} has {len(row)} cells, the header {len(header)}: "
                                                  "the export changes shape here", code=codes.H008)
            continue
        record = _new_line_dict(LineDict)  # LineDict(...) without its Python frames: a row's every cell on its line
        _update(record, zip(header, row, strict=False))  # lengths equal
        record.line, record.lines = line, {}
        if "" in row:
            for name, cell in zip(header, row, strict=True):
                if cell == "":
                    record[name] = None
        bad = None
        for name in json_columns:
            value = record[name]
            if not isinstance(value, str):  # an empty cell: None
                continue
            if len(value) > MAX_CELL:
                bad = f"row {number}, {name}: a JSON cell of more than {MAX_CELL:,} characters"
                break
            try:
                record[name] = loads_plain(value, line)
            except JsonInputError as err:
                bad = f"row {number}, {name}: the cell is not JSON ({err.message})"
                break
        if bad is not None:
            yield LoadProblem(reading.name, line, bad, code=codes.H008)
            continue
        yield ExportRecord(line, f"row {number}", record)
