"""Bytes to text, with the place of the first byte that is not UTF-8."""

from __future__ import annotations

from ...models import codes
from ..records import LoadProblem


def decode(name: str, raw: bytes, line: int) -> str | LoadProblem:
    """UTF-8 text, or a fatal problem naming the line and column of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line += raw.count(b"\n", 0, err.start)
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        return LoadProblem(name, line, f"not UTF-8 text: byte {raw[err.start]:#04x} at column {column}",
                           code=codes.H000, fatal=True)
