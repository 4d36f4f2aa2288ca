"""Reading JSON and JSON Lines exactly, with lines.

Numbers with a fraction become :class:`~decimal.Decimal` (never binary floats);
``NaN`` and ``Infinity`` are refused; duplicate keys are refused instead of silently
keeping the last. For a whole JSON document the standard library's pure-Python
scanner is used with a hook that records where each value starts, so findings can
name the line of a field; JSON Lines use the C parser, one line a record.
"""

from __future__ import annotations

import gc
import json
import json.decoder
import json.scanner
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, cast

from ..escape import quoted
from ..models import codes
from .records import LineDict

#: The standard library's pure-Python scanner and object parser, which this decoder
#: hooks to stamp lines (undocumented names of ``json``, absent from its type stubs).
_PY_MAKE_SCANNER: Callable[[json.JSONDecoder], Callable[[str, int], tuple[Any, int]]] = vars(json.scanner)[
    "py_make_scanner"]
_JSON_OBJECT: Callable[..., tuple[Any, int]] = vars(json.decoder)["JSONObject"]

class JsonInputError(Exception):
    """Refused JSON input, with the 1-based line it concerns."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = codes.H003 if "duplicate key" in message else codes.H000


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a ledger can hold")


MAX_DIGITS = 4000


def _parse_int(text: str) -> int | Decimal:
    """Beyond int()'s digit limit a number is kept exact as a Decimal: out of any range."""
    return Decimal(text) if len(text) > MAX_DIGITS else int(text)


def _plain_pairs(pairs: list[tuple[str, Any]]) -> LineDict:
    result = LineDict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {quoted(key)}; a key may appear once")
            seen.add(key)
    return result


class _AtLine:
    """The pairs hook of JSON Lines: every mapping of the record gets its line.

    One decoder serves every line (building one costs more than decoding a record);
    the hook reads the line being decoded from here.
    """

    line = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> LineDict:
        result = _plain_pairs(pairs)
        result.line = self.line
        return result


_AT_LINE = _AtLine()
_LINE_DECODER = json.JSONDecoder(parse_float=Decimal, parse_int=_parse_int, parse_constant=_refuse_constant,
                                 object_pairs_hook=_AT_LINE)


def loads_line(text: str, line: int) -> Any:
    """One JSON Lines record; every mapping gets ``line`` as its line."""
    _AT_LINE.line = line
    try:
        return _LINE_DECODER.decode(text)
    except RecursionError:
        raise JsonInputError("invalid JSON: nested too deeply", line) from None
    except ValueError as err:
        raise JsonInputError(_reason(err, text), line) from None


#: The C scanner of a decoder with plain dicts (exact numbers, no hook), one value from a
#: position: JSON Lines and CSV cells (every object of a line is on that line) and a page's records.
_SCAN: Callable[[str, int], tuple[Any, int]] = vars(json.scanner)["make_scanner"](
    json.JSONDecoder(parse_float=Decimal, parse_int=_parse_int, parse_constant=_refuse_constant))
#: msgspec's encoder, made when first asked (:func:`_same_quotes`).
_ENCODE: Callable[[Any], bytes] | None = None


#: What JSON counts as blank between values (``json.decoder.WHITESPACE``).
_BLANKS = " \t\n\r"


def _reason(err: ValueError, text: str) -> str:
    """What is wrong with the line; a line that stops before its JSON ends (an error at
    its last character, or a string left open) is said to be cut short."""
    if not isinstance(err, json.JSONDecodeError):
        return f"invalid JSON: {err}"
    if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
        return f"the line is cut short (truncated JSON, column {err.colno})"
    return f"invalid JSON: {err.msg} (column {err.colno})"


class _LineDecoder(json.JSONDecoder):
    """A decoder whose objects know the line of each of their values."""

    def __init__(self, text: str) -> None:
        super().__init__(parse_float=Decimal, parse_int=_parse_int, parse_constant=_refuse_constant)
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._starts = starts
        self.parse_object = self._parse_object
        self.scan_once = _PY_MAKE_SCANNER(self)

    def line_of(self, index: int) -> int:
        return bisect_right(self._starts, index)

    def _parse_object(self, s_and_end: tuple[str, int], strict: bool,
                      scan_once: Callable[[str, int], tuple[Any, int]],
                      object_hook: Any, object_pairs_hook: Any,
                      memo: dict[str, str] | None = None) -> tuple[Any, int]:
        value_starts: list[int] = []

        def tracking_scan(string: str, index: int) -> tuple[Any, int]:
            value_starts.append(index)
            return scan_once(string, index)

        def pairs_hook(pairs: list[tuple[str, Any]]) -> LineDict:
            result = _plain_pairs(pairs)
            result.line = self.line_of(s_and_end[1] - 1)
            for (key, _), start in zip(pairs, value_starts, strict=False):
                result.lines.setdefault(key, self.line_of(start))
            return result

        found: tuple[Any, int] = _JSON_OBJECT(s_and_end, strict, tracking_scan, object_hook, pairs_hook, memo)
        return found


def loads_document(text: str) -> Any:
    """A whole JSON document, every mapping a :class:`LineDict`."""
    decoder = _LineDecoder(text)
    try:
        return decoder.decode(text)
    except RecursionError:
        raise JsonInputError("invalid JSON: nested too deeply", 1) from None
    except json.JSONDecodeError as err:
        raise JsonInputError(f"invalid JSON: {err.msg} (column {err.colno})", err.lineno) from None
    except ValueError as err:
        raise JsonInputError(f"invalid JSON: {err}", 1) from None


# ----------------------------------------------------------------------------- exports (the C parser, with lines)
#
# Why: the pure-Python scanner of :func:`loads_document` (a hook at every value, for its
# line) reads a provider's export page at a fifth of ``json.loads``'s speed, and an
# export page is mostly objects. :func:`loads_export` lets the C parser build the
# objects (``object_pairs_hook``, called as each object closes) and finds their lines in
# one pass over the text: strings blanked out (no brace inside one is seen; a JSON
# string holds no raw newline, so lines are unchanged), then each ``{`` and ``}`` in
# order, counting the newlines between. Objects close in the text's order of ``}``,
# which is the order the hook is called in, so the k-th object built is the k-th closed
# in the text. Keys get no line of their own (finding them costs as much again as the
# parse): a field's line is the line its object opens on. Any problem (bad JSON, a
# duplicate key) is read again by :func:`loads_document` for its exact line.

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_BRACE = re.compile(r"[{}]")


class ExportParser:
    """The C parser of exports' values, each object a :class:`LineDict` that
    :meth:`stamp` gives the line it opens on (the pass described above). One parser
    reads a page's records one by one (:mod:`referee.load.exports.pages`)."""

    def __init__(self) -> None:
        self.made: list[LineDict] = []
        self._decoder = json.JSONDecoder(parse_float=Decimal, parse_int=_parse_int,
                                         parse_constant=_refuse_constant, object_pairs_hook=self._hook)

    def _hook(self, pairs: list[tuple[str, Any]]) -> LineDict:
        result = _plain_pairs(pairs)
        self.made.append(result)
        return result

    def parse_at(self, text: str, pos: int) -> tuple[Any, int]:
        """The value starting at ``pos`` and where it ends; ``json``'s own errors raised."""
        self.made.clear()
        enabled = gc.isenabled()
        gc.disable()  # hundreds of thousands of new objects, none in a cycle: 0.8 s a 24 MB page, not 1.25
        try:
            return self._decoder.raw_decode(text, pos)
        finally:
            if enabled:
                gc.enable()

    def stamp(self, text: str, first_line: int = 1) -> None:
        """Give the objects of the last value parsed (``text``, its text) their lines."""
        _stamp(text, self.made, first_line)


_SPACE = re.compile(r"[ \t\n\r]*")
#: ``_SPACE.match``, typed as it behaves: the pattern matches the empty string, so a
#: match is never None (a cast once here, not a check on every call of the hot loop).
_SKIP = cast("Callable[[str, int], re.Match[str]]", _SPACE.match)


def space_end(text: str, pos: int) -> int:
    """Where the JSON whitespace from ``pos`` ends."""
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def loads_export(text: str) -> Any:
    """A whole JSON document, every mapping a :class:`LineDict` with the line it opens on
    (:func:`loads_document`'s value and object lines, at C speed; no key lines)."""
    parser = ExportParser()
    start = space_end(text, 0)
    try:
        value, end = parser.parse_at(text, start)
        if space_end(text, end) != len(text):
            raise ValueError("extra data")
    except (ValueError, RecursionError):
        return loads_document(text)  # raises the precise error (or reads what the C parser would not)
    parser.stamp(text[start:end], text.count("\n", 0, start) + 1)
    return value


def _stamp(text: str, made: list[LineDict], first_line: int) -> None:
    """Give each object (in closing order) the line it opens on (``text`` begins on
    ``first_line``). When the text holds
    exactly one ``{`` and one ``}`` an object, no string holds a brace: the strings need
    not be blanked (the usual case, and most of this pass's time)."""
    objects = len(made)
    blank = text if text.count("{") == objects and text.count("}") == objects else _STRING.sub('""', text)
    count = blank.count
    line, last = first_line, 0
    opened: list[int] = []
    push, pop = opened.append, opened.pop
    closing = iter(made)
    for match in _BRACE.finditer(blank):
        at = match.start()
        line += count("\n", last, at)
        last = at
        if match.group() == "{":
            push(line)
        else:
            next(closing).line = pop()


# ----------------------------------------------------------------------------- a page's record, lines when asked
#
# Why: giving every object of a page its line (the hook, then :func:`_stamp`) costs twice
# the parse itself, and a line is asked for of few of them: a seat's (every report says
# where a seat is) and, for a finding, its field's. :func:`scan_record` reads a record
# with plain dicts (the C scanner a value at a time; the record's own keys and its seats'
# list walked here, so each seat's offset is known), and :class:`RecordLines` gives any
# other object its line when first asked, by reading the record's text again as
# :class:`ExportParser` reads it. A record it cannot prove plain (a key given twice, a
# string that may hold a quote, anything unusual) is read by :class:`ExportParser`.

_SCANSTRING: Callable[[str, int], tuple[str, int]] = vars(json.decoder)["scanstring"]


def scan_record(text: str, pos: int, seats: str) -> tuple[dict[str, Any], int, list[int]] | None:
    """The object at ``pos`` with plain dicts, where it ends and where each element of
    its ``seats`` list starts; None when it is not proven plain (see above).

    The usual record is read by one call of the C scanner, and each seat's start found
    by a search for its first key after the seats' key: with no backslash in the record
    (no quote inside a string, no key spelt otherwise) the seats' key written once is
    the record's own, and when each seat opens with the same key (``"playerId"``),
    written there as many times as there are seats, each is a seat's, the brace before
    it the seat's start (else the search is for that key after an opening brace,
    ``{"playerId":``, matched as many times as there are seats). Otherwise the record's
    keys are walked here (:func:`_walked`)."""
    try:
        value, end = _SCAN(text, pos)
    except (StopIteration, ValueError, RecursionError):
        return None
    if type(value) is not dict:
        return None
    raw = text[pos:end]
    if "\\" in raw:
        return _walked(text, pos, seats)
    if not _same_quotes(raw, value):
        return None
    items = value.get(seats)
    if type(items) is not list or not items:
        return value, end, []
    first = next(iter(items[0]), None) if type(items[0]) is dict else None
    key = f'"{seats}"'
    after = raw.find(key)
    if first is None or after < 0 or raw.find(key, after + len(key)) >= 0 or \
            any(type(item) is not dict or next(iter(item), None) != first for item in items):
        return _walked(text, pos, seats)  # the seats' key not written once, or seats that open otherwise
    written = _WRITTEN.get(first)
    if written is None:
        written = json.dumps(first, ensure_ascii=False)
        if len(_WRITTEN) < 100:
            _WRITTEN[first] = written
    offsets = []
    at, size = after, len(written)
    for _ in items:
        at = raw.find(written, at)
        if at < 0:
            break
        offsets.append(pos + raw.rfind("{", 0, at))
        at += size
    else:  # written exactly as many times as there are seats: the first key is no other key nor value there
        if raw.find(written, at) < 0:
            return value, end, offsets
    pattern = _OPENS.get(first)
    if pattern is None:
        pattern = _OPENS[first] = re.compile(r"\{[ \t\n\r]*" + re.escape(written) + r"[ \t\n\r]*:")
    offsets = [pos + found.start() for found in pattern.finditer(raw, after)]
    if len(offsets) != len(items):
        return _walked(text, pos, seats)
    return value, end, offsets


#: By a seat's first key: the search for an object opening with it; the key as JSON writes it.
_OPENS: dict[str, re.Pattern[str]] = {}
_WRITTEN: dict[str, str] = {}


def _walked(text: str, pos: int, seats: str) -> tuple[dict[str, Any], int, list[int]] | None:
    """:func:`scan_record` by walking the record's own keys here."""
    ws = _SKIP
    record: dict[str, Any] = {}
    offsets: list[int] = []
    try:
        if text[pos] != "{":
            return None
        i = ws(text, pos + 1).end()
        if text[i] == "}":
            return record, i + 1, offsets
        while True:
            if text[i] != '"':
                return None
            key, i = _SCANSTRING(text, i + 1)
            i = ws(text, i).end()
            if text[i] != ":" or key in record:
                return None
            i = ws(text, i + 1).end()
            value: Any
            if key == seats and text[i] == "[":
                value, i = _elements(text, i, offsets)
            else:
                value, i = _SCAN(text, i)
            record[key] = value
            i = ws(text, i).end()
            if text[i] == "}":
                break
            if text[i] != ",":
                return None
            i = ws(text, i + 1).end()
    except (StopIteration, IndexError, ValueError, RecursionError):
        return None
    end = i + 1
    raw = text[pos:end]
    if '\\"' in raw or "\\u0022" in raw or not _same_quotes(raw, record):
        return None
    return record, end, offsets


def _elements(text: str, pos: int, offsets: list[int]) -> tuple[list[Any], int]:
    """The list at ``pos`` (its elements' starts in ``offsets``) and where it ends."""
    ws = _SKIP
    items: list[Any] = []
    i = ws(text, pos + 1).end()
    if text[i] == "]":
        return items, i + 1
    while True:
        offsets.append(i)
        value, i = _SCAN(text, i)
        items.append(value)
        i = ws(text, i).end()
        if text[i] == "]":
            return items, i + 1
        if text[i] != ",":
            raise ValueError("expected ',' or ']'")
        i = ws(text, i + 1).end()


def _same_quotes(raw: str, value: Any) -> bool:
    """Whether ``raw`` (no string of it holding a quote) has no key twice: as many quotes
    as its value written again (:func:`~referee.load.jsonplain.loads_plain`)."""
    global _ENCODE
    if _ENCODE is None:
        import msgspec

        _ENCODE = msgspec.json.Encoder(decimal_format="number").encode
    try:
        return raw.count('"') == _ENCODE(value).count(b'"')
    except (TypeError, ValueError, OverflowError):
        return False


class RecordLines:
    """The lines of a record read by :func:`scan_record`: its seats' at once (``known``,
    by the object's id), any other object's when first asked (:meth:`twin`)."""

    __slots__ = ("first", "known", "root", "text", "twins")

    def __init__(self, text: str, first: int, root: Any, known: dict[int, int]) -> None:
        self.text, self.first, self.root, self.known = text, first, root, known
        self.twins: dict[int, Any] | None = None

    def line(self, obj: Any, default: int) -> int:
        """The line ``obj`` (an object of the record) opens on."""
        found = self.known.get(id(obj))
        if found is not None:
            return found
        twin = self.twin(obj)
        return twin.line if isinstance(twin, LineDict) else default

    def twin(self, obj: Any) -> Any:
        """``obj`` as :class:`ExportParser` reads it: its LineDicts know their lines."""
        if self.twins is None:
            parser = ExportParser()
            value, _ = parser.parse_at(self.text, 0)
            parser.stamp(self.text, self.first)
            self.twins = dict(_pairs(self.root, value))
        return self.twins.get(id(obj), obj)


def _pairs(plain: Any, lined: Any) -> Iterator[tuple[int, Any]]:
    """(id of each container of ``plain``, its twin in ``lined``), the same tree read twice."""
    stack = [(plain, lined)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, dict):
            yield id(a), b
            stack.extend((value, b[key]) for key, value in a.items())
        elif isinstance(a, list):
            yield id(a), b
            stack.extend(zip(a, b, strict=True))
