"""The records of an export file, each with its line and its own path in the export.

Why records and not games here: an export's shape is the mapping's business; this
module only finds the records where the mapping says they are (``data[].games[]`` in
a JSON page, one a line in JSON Lines, one a row in CSV) and says where each is: the
line the record starts on, and its pointer (``data[0].games[3]``, ``[12]`` for the
13th JSON Lines record, ``row 5`` for CSV's fifth data row). JSON Lines and CSV are
streamed (bounded memory, whatever the size); a JSON page is one document, read whole
as a hand-history JSON document is.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...models import codes
from ...models.mapping import Mapping
from ..jsonio import JsonInputError, loads_export, loads_line
from ..readers.json import document as json_document
from ..reading import Reading, Stream
from ..records import LineDict, LoadProblem

#: A CSV cell may hold a JSON document (roundDetails): larger than this is refused.
MAX_CELL = 1 << 20


@dataclass(slots=True)
class ExportRecord:
    """One record of an export as found: where it starts, its path, its data."""

    line: int
    pointer: str
    data: Any


def export_records(reading: Reading, stream: Stream, mapping: Mapping) -> Iterator[ExportRecord | LoadProblem]:
    """Every record of the file, in order; problems as records (fatal ones stop the file)."""
    if mapping.input == "json":
        return _json(reading, stream, mapping.records)
    if mapping.input == "jsonl":
        return _jsonl(reading, stream)
    return _csv(reading, stream, mapping)


def _json(reading: Reading, stream: Stream, where: str) -> Iterator[ExportRecord | LoadProblem]:
    document = json_document(reading, stream, loads_export)
    if isinstance(document, LoadProblem):
        yield document
        return
    found = 0
    for pointer, record in walk(document, where):
        found += 1
        yield ExportRecord(record.line if isinstance(record, LineDict) else 1, pointer, record)
    if not found and not _lists_there(document, where):  # an empty page (a day without games) is no error
        yield reading.fail(1, f"the mapping finds no record here: records {where!r} {_what(document, where)}",
                           codes.H000)


def walk(document: Any, where: str) -> Iterator[tuple[str, Any]]:
    """The records at ``where`` (``data[].games[]``), each with its pointer."""
    if where == "@":
        if isinstance(document, list):
            yield from ((f"[{i}]", item) for i, item in enumerate(document))
        elif document is not None:
            yield "", document
        return
    steps = [(part[:-2], True) if part.endswith("[]") else (part, False) for part in where.split(".")]
    yield from _walk(document, steps, "")


def _walk(node: Any, steps: list[tuple[str, bool]], pointer: str) -> Iterator[tuple[str, Any]]:
    if not steps:
        yield pointer, node
        return
    (key, each), rest = steps[0], steps[1:]
    if key:
        if not isinstance(node, dict) or key not in node:
            return
        node, pointer = node[key], f"{pointer}.{key}" if pointer else key
    if each:
        if not isinstance(node, list):
            return
        for i, item in enumerate(node):
            yield from _walk(item, rest, f"{pointer}[{i}]")
    else:
        yield from _walk(node, rest, pointer)


def _lists_there(document: Any, where: str) -> bool:
    """Whether the records path leads to lists (empty ones): the shape is the mapping's."""
    if where == "@":
        return isinstance(document, list)
    node = document
    for part in where.split("."):
        key = part.removesuffix("[]")
        if key:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        if part.endswith("[]"):
            if not isinstance(node, list):
                return False
            if not node:
                return True
            node = node[0]
    return True


def _what(document: Any, where: str) -> str:
    """What the document has instead, in words."""
    if isinstance(document, dict):
        keys = ", ".join(repr(k) for k in list(document)[:6])
        return f"found nothing (the document's top-level keys are {keys or 'none'})"
    return f"found nothing (the document is {'a list' if isinstance(document, list) else type(document).__name__})"


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
            data = loads_line(text, number)
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
    json_columns = set(mapping.csv.json_columns)
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
        record = LineDict()
        record.line = line
        bad = None
        for name, cell in zip(header, row, strict=True):
            value: Any = cell if cell != "" else None
            if name in json_columns and value is not None:
                if len(value) > MAX_CELL:
                    bad = f"row {number}, {name}: a JSON cell of more than {MAX_CELL:,} characters"
                    break
                try:
                    value = loads_line(value, line)
                except JsonInputError as err:
                    bad = f"row {number}, {name}: the cell is not JSON ({err.message})"
                    break
            record[name] = value
            record.lines[name] = line
        if bad is not None:
            yield LoadProblem(reading.name, line, bad, code=codes.H008)
            continue
        yield ExportRecord(line, f"row {number}", record)
