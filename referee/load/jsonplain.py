"""An export's record read with plain dicts (a JSON Lines line, a CSV cell): msgspec's
parser where a key given twice is proven absent, else the exact reader of
:mod:`referee.load.jsonio`, whose values and errors it keeps. A module of its own
because it is the mapped path's hot reader (issue 45), not the line reader's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .jsonio import _BLANKS, _SCAN, MAX_DIGITS, _same_quotes, loads_line


def loads_plain(text: str, line: int) -> Any:
    """:func:`loads_line`'s value with plain dicts, where the line is proven to hold no
    key twice; else :func:`loads_line` itself (its LineDicts, its errors).

    Why: an export's record (a JSON Lines line, a CSV cell) is all on one line, so no
    object needs a line of its own (a finding names the record's), and a C parser
    builds plain dicts at twice the speed of one hook call an object. What the hook
    also did, refuse a key given twice, is proven as the format-2 fast lane proves it
    (``load/table.py``): with no string holding a quote (no ``\\"``, no ``\\u0022``),
    each quote opens or closes a key or a string, so the line holds a key twice exactly
    when it holds more quotes than its value written again.

    The parser is msgspec's (a third faster than the standard library's C scanner),
    whose values are the scanner's (fractions as Decimals from their text, whole
    numbers as ints) but for a number of more than :data:`MAX_DIGITS` digits, which
    the scanner keeps as a Decimal: a text long enough to hold one that has one, and
    any text msgspec refuses, is the scanner's (:func:`_scanned_plain`), whose errors
    are the exact reader's."""
    global _DECODE
    if '\\"' in text or "\\u0022" in text:
        return loads_line(text, line)
    if _DECODE is None:
        import msgspec

        _DECODE = msgspec.json.Decoder(float_hook=Decimal).decode
    if len(text) > MAX_DIGITS and max(map(len, _DIGITS.findall(text)), default=0) > MAX_DIGITS:
        return _scanned_plain(text, line)
    try:
        value = _DECODE(text)
        if _same_quotes(text, value):
            return value
    except (ValueError, RecursionError, TypeError, OverflowError):  # msgspec's errors are ValueErrors
        return _scanned_plain(text, line)
    return loads_line(text, line)


def _scanned_plain(text: str, line: int) -> Any:
    """:func:`loads_plain` by the standard library's C scanner."""
    try:
        start = len(text) - len(text.lstrip(_BLANKS))
        value, end = _SCAN(text, start)  # what json.loads does, without its Python frames
        if end != len(text) and text[end:].strip(_BLANKS):
            return loads_line(text, line)  # more after the value: its error said as the exact reader says it
        if _same_quotes(text, value):
            return value
    except (StopIteration, ValueError, RecursionError, TypeError, OverflowError):
        pass
    return loads_line(text, line)


_DECODE: Callable[[str], Any] | None = None
#: A run of digits: a number of more than MAX_DIGITS of them is the scanner's (a Decimal).
_DIGITS = re.compile(r"[0-9]+")
