"""A JSON page streamed: the records at the mapping's plain path, each parsed alone.

Why: a provider's game-history page is one JSON document, and a month's export of a
busy table is gigabytes; held whole it costs about seven times its size in objects (a
1 GB page would need 7 GB). The records path of a mapping (``data[].games[]``) is
plain, so the document's skeleton (the objects and arrays above the records) is walked
token by token here, and each record, and each value beside the path (``date``, paging
fields), is handed to the C parser (:class:`~referee.load.jsonio.ExportParser`) at its
place in a block of text: memory is one record and a block, whatever the file's size,
and a page is as strictly JSON as :func:`~referee.load.jsonio.loads_document` wants
(exact decimals, no NaN, no duplicate key, nothing after the document).

A record's objects get the lines they open on, as a whole page's did; a record's
problem (bad JSON, a duplicate key) is read again by the exact reader for its line.
Where the mapping reads a record's seats by one key, a record is read with plain dicts
instead (:func:`~referee.load.jsonio.scan_record`, twice as fast): its seats' lines are
found as it is read, any other object's when a finding asks
(:class:`~referee.load.jsonio.RecordLines`); a record that cannot be proven plain is
read the exact way.
"""

from __future__ import annotations

import codecs
import itertools
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ...escape import quoted
from ...models import codes
from ..jsonio import ExportParser, JsonInputError, RecordLines, loads_document, scan_record, space_end

#: Bytes read at a time; a value cut by the block's end is parsed again with more.
BLOCK = 1 << 20
_BOM = b"\xef\xbb\xbf"
#: A parse error this close to the text's end may only be the block's end.
_NEAR_END = 16
#: A record starting this close to the block's end is read with the next block joined
#: (a parse error costs a count of the lines up to it, in a block of a megabyte).
_NEAR_BLOCK_END = 1 << 16


class PageError(Exception):
    """The page is not the JSON document it should be: what, and its line."""

    def __init__(self, message: str, line: int, code: codes.FindingCode = codes.H000) -> None:
        super().__init__(message)
        self.message, self.line, self.code = message, line, code


@dataclass(slots=True)
class PageRecord:
    """One record found at the path: its pointer (``data[0].games[3]``), line and value
    (and its text, while a page is spooled)."""

    pointer: str
    line: int
    value: Any
    raw: str | None = None
    #: Read with plain dicts (:func:`~referee.load.jsonio.scan_record`): its objects' lines.
    lines: RecordLines | None = None


@dataclass(slots=True)
class Shape:
    """What the walk saw of the document, for the message when it finds no record."""

    lists: bool = False  # the path led to lists (empty ones: a day without games)
    top: str = "none"  # the document's type, or its first top-level keys
    keys: list[str] = field(default_factory=list)


class _Text:
    """The page's text a block at a time: ``text[pos:]`` is what is not yet read, and
    nothing before ``pos`` is kept once a block is added."""

    def __init__(self, stream: BinaryIO, block: int) -> None:
        self._stream = stream
        self._decode = codecs.getincrementaldecoder("utf-8")().decode
        self._block = block
        self._first = True
        self.text = ""
        self.pos = 0
        self.line = 1  # the line ``text`` begins on
        self.eof = False
        self._mark, self._mark_line = 0, 1  # lines are counted on from the last asked for

    def more(self, size: int = 0) -> bool:
        """Another block (of at least ``size`` bytes); False at the end of the file."""
        if self.eof:
            return False
        raw = self._stream.read(max(size, self._block))
        if self._first:
            raw, self._first = raw.removeprefix(_BOM), False
        try:
            new = self._decode(raw, final=not raw)
        except UnicodeDecodeError as err:
            at = self.line_at(len(self.text)) + err.object.count(b"\n", 0, err.start)
            raise PageError(f"not UTF-8 text: byte {err.object[err.start]:#04x}", at) from None
        self.eof = not raw
        cut = self.pos
        self.line = self.line_at(cut)
        self.text = self.text[cut:] + new
        self.pos = 0
        self._mark, self._mark_line = 0, self.line
        return True

    def peek(self) -> str:
        """The next character after whitespace, '' at the end of the file."""
        while True:
            self.pos = space_end(self.text, self.pos)
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def line_at(self, pos: int) -> int:
        """The line of ``text[pos]``: counted on from the last place asked for, so a
        block's records cost one pass over it, not one each."""
        if pos < self._mark:
            self._mark, self._mark_line = 0, self.line
        self._mark_line += self.text.count("\n", self._mark, pos)
        self._mark = pos
        return self._mark_line

    def lines_at(self, positions: list[int]) -> list[int]:
        """:meth:`line_at` of each of ``positions`` (a record's seats), in one loop."""
        count, mark, line = self.text.count, self._mark, self._mark_line
        lines = []
        for pos in positions:
            if pos < mark:
                mark, line = 0, self.line
            line += count("\n", mark, pos)
            mark = pos
            lines.append(line)
        self._mark, self._mark_line = mark, line
        return lines

    def fail(self, expected: str) -> PageError:
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        found = self.text[self.pos: self.pos + 1] or "the end of the file"
        return PageError(f"invalid JSON: expected {expected}, found {found!r} (column {column})",
                         self.line_at(self.pos))


class Page:
    """The records of one JSON page at a records path (``data[].games[]``, or ``@``).

    :attr:`document` is the page without its records: every value beside the path, as
    the walk passes it. A mapping that reads the document (its ``document`` section)
    gives ``complete``, which says whether the document read so far holds what it
    needs: when the first record comes before that (a currency written after the
    records), the records are spooled to a temporary file, as written, until the page
    ends, and read again from it, so that every record is read with the whole document;
    memory stays one record and a block, the spool costs a second parse of the records."""

    def __init__(self, stream: BinaryIO, where: str, block: int = BLOCK,
                 complete: Callable[[dict[str, Any]], bool] | None = None, seats: str | None = None) -> None:
        self._text = _Text(stream, block)
        self._parser = ExportParser()
        self._steps = [] if where == "@" else [(p.removesuffix("[]"), p.endswith("[]")) for p in where.split(".")]
        self._top = where == "@"
        self.shape = Shape()
        self.document: dict[str, Any] = {}
        self._complete = complete
        self._raw: str | None = None  # the last record's text, when it may be spooled
        #: The key of a record's seats (a one-key path): a record is then read with plain
        #: dicts, its seats' lines found as it is read, any other line when asked.
        self._seats = seats if complete is None else None

    def records(self) -> Iterator[PageRecord]:
        """Every record in the document's order; :class:`PageError` when the page is bad."""
        walk = self._records()
        if self._complete is None:
            yield from walk
            return
        for record in walk:
            if self._complete(self.document):
                yield record
                yield from walk
                return
            yield from self._spooled(record, walk)
            return

    def _spooled(self, first: PageRecord, walk: Iterator[PageRecord]) -> Iterator[PageRecord]:
        """The records from ``first`` on, once the page is read to its end (or to its
        first fault, raised after the records before it, as when streamed)."""
        failure: PageError | None = None
        with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
            try:
                for record in itertools.chain((first,), walk):
                    spool.write(json.dumps([record.pointer, record.line, record.raw]) + "\n")
            except PageError as err:
                failure = err
            spool.seek(0)
            parser = ExportParser()
            for entry in spool:
                pointer, line, raw = json.loads(entry)
                value, _ = parser.parse_at(raw, 0)
                parser.stamp(raw, line)
                yield PageRecord(pointer, line, value)
        if failure is not None:
            raise failure

    def _records(self) -> Iterator[PageRecord]:
        text = self._text
        first = text.peek()
        if first == "":
            raise text.fail("a JSON document")
        self.shape.top = {"{": "object", "[": "list"}.get(first, "value")
        if self._top:
            yield from self._each([], "", []) if first == "[" else self._walk([], "", self.document)
        else:
            yield from self._walk(self._steps, "", self.document)
        if text.peek() != "":
            raise text.fail("nothing after the document")

    # -- the skeleton

    def _walk(self, steps: list[tuple[str, bool]], pointer: str, into: dict[str, Any]) -> Iterator[PageRecord]:
        """The records below here along ``steps``; the values beside them kept in ``into``
        (the document's object here: :attr:`document`)."""
        if not steps:
            yield self._record(pointer)
            return
        (key, each), rest = steps[0], steps[1:]
        if not key:
            yield from self._each(rest, pointer, []) if each else self._walk(rest, pointer, into)
            return
        if self._text.peek() != "{":
            self._value()
            return
        for name in self._members(top=not pointer):
            if name != key:
                into[name] = self._value()
                continue
            inner = f"{pointer}.{key}" if pointer else key
            if not each:
                yield from self._walk(rest, inner, into.setdefault(key, {}))
            elif self._text.peek() == "[":
                yield from self._each(rest, inner, into.setdefault(key, []))
            else:
                into[key] = self._value()

    def _each(self, rest: list[tuple[str, bool]], pointer: str, into: list[Any]) -> Iterator[PageRecord]:
        """The elements of the array here, each walked on along ``rest`` (each element's
        own values beside the path kept in ``into``; the records themselves are not)."""
        text = self._text
        text.pos += 1  # the '['
        if text.peek() == "]":
            text.pos += 1
            self.shape.lists = True
            return
        if not rest:
            self.shape.lists = True
        index = 0
        while True:
            element: dict[str, Any] = {}
            if rest:
                into.append(element)
            yield from self._walk(rest, f"{pointer}[{index}]", element)
            index += 1
            if not self._after("]"):
                return

    def _members(self, top: bool) -> Iterator[str]:
        """The keys of the object here, each with the reader left at its value."""
        text = self._text
        text.pos += 1  # the '{'
        if text.peek() == "}":
            text.pos += 1
            return
        seen: set[str] = set()
        while True:
            if text.peek() != '"':
                raise text.fail("a key in double quotes")
            line = text.line_at(text.pos)
            name = self._value()
            if name in seen:
                raise PageError(f"duplicate key {quoted(name)}; a key may appear once", line, codes.H003)
            seen.add(name)
            if top and len(self.shape.keys) < 6:
                self.shape.keys.append(name)
            if text.peek() != ":":
                raise text.fail("':' after the key")
            text.pos += 1
            yield name
            if not self._after("}"):
                return

    def _after(self, close: str) -> bool:
        """Past the ',' that says more follows (True) or the closing bracket (False)."""
        text = self._text
        found = text.peek()
        text.pos += 1
        if found == ",":
            return True
        if found == close:
            return False
        text.pos -= 1
        raise text.fail(f"',' or {close!r}")

    # -- values, by the C parser

    def _value(self) -> Any:
        """The value here, parsed (for its validity) and passed."""
        return self._parse()[0]

    def _record(self, pointer: str) -> PageRecord:
        if self._seats is not None:
            scanned = self._scanned(pointer, self._seats)
            if scanned is not None:
                return scanned
        value, line = self._parse(stamp=True)
        return PageRecord(pointer, line, value, self._raw)

    def _scanned(self, pointer: str, seats: str) -> PageRecord | None:
        """The record here read with plain dicts, or None (:func:`scan_record`)."""
        text = self._text
        text.peek()
        if not text.eof and len(text.text) - text.pos < _NEAR_BLOCK_END:  # a record cut short fails slowly
            text.more(_NEAR_BLOCK_END)
            text.peek()
        start = text.pos
        found = scan_record(text.text, start, seats)
        if found is None:
            return None
        value, end, offsets = found
        line = text.line_at(start)
        known = {id(seat): at for seat, at in zip(value[seats], text.lines_at(offsets), strict=True)} \
            if offsets else {}
        text.pos = end
        return PageRecord(pointer, line, value, None, RecordLines(text.text[start:end], line, value, known))

    def _parse(self, stamp: bool = False) -> tuple[Any, int]:
        text = self._text
        text.peek()
        want = 0
        while True:
            start = text.pos
            try:
                value, end = self._parser.parse_at(text.text, start)
            except json.JSONDecodeError as err:
                cut_short = err.pos >= len(text.text) - _NEAR_END or err.msg.startswith("Unterminated string")
                want = max(2 * want, 2 * (len(text.text) - start))
                if cut_short and text.more(want):
                    continue
                raise self._exact_error(start) from None
            except (ValueError, RecursionError):
                raise self._exact_error(start) from None
            if end == len(text.text) and text.more():  # a number may go on in the next block
                continue
            line = text.line_at(start)
            if stamp:
                raw = text.text[start:end]
                self._parser.stamp(raw, line)
                self._raw = raw if self._complete is not None else None
            text.pos = end
            return value, line

    def _exact_error(self, start: int) -> PageError:
        """The exact reader's words for the value at ``start`` (and what follows it in
        the block, where a value cut short ends), at the page's line."""
        text = self._text
        offset = text.line_at(start) - 1
        try:
            loads_document(text.text[start:])
        except JsonInputError as err:
            return PageError(err.message, err.line + offset, err.code)
        return PageError("invalid JSON", offset + 1)
