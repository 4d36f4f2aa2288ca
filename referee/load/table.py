"""Reading format 2 (the live table): documents with ``format: 2`` and JSON Lines.

Why records and not models here: like format 1, the loader only says which mapping
is a session, a game or a seat, with its line; validation is the audit's job, so one
bad seat is one finding and the rest of the table is still audited.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..audit import codes
from ..models import suggest
from .records import GameRecord, LineDict, LoadProblem, Record, SeatRecord, SessionRecord, key_line

TOP_KEYS = ("format", "session", "games")
FORMAT_KEY = "format"


def is_table_document(data: Any) -> bool:
    """A YAML or JSON document of format 2 says so: ``format: 2``."""
    return isinstance(data, dict) and data.get(FORMAT_KEY) == 2 and not isinstance(data.get(FORMAT_KEY), bool)


def table_document(name: str, data: dict[str, Any], index: int = 0) -> Iterator[Record]:
    """The session of a format-2 document, then each game (seats inline)."""
    for key in data:
        if key not in TOP_KEYS:
            yield LoadProblem(name, key_line(data, key, 1), f"unknown key {key!r}{suggest(str(key), TOP_KEYS)}",
                              code=codes.H002)
    line = key_line(data, "session", data.line if isinstance(data, LineDict) else 1)
    yield SessionRecord(name, line, data.get("session"), index, format=2)
    games = data.get("games")
    if games is None:
        yield LoadProblem(name, line, "the session has no 'games' list", code=codes.H001)
        return
    if not isinstance(games, list):
        yield LoadProblem(name, key_line(data, "games", line), "'games' is a list of games", code=codes.H001)
        return
    for item in games:
        item_line = item.line if isinstance(item, LineDict) else key_line(data, "games", line)
        yield GameRecord(name, item_line, item)


def table_line(name: str, number: int, data: LineDict) -> Record | None:
    """A JSON Lines line with a ``seat`` or a ``game`` key, as its record; None for
    any other line (format 1 reads it)."""
    if "seat" in data:
        return SeatRecord(name, number, data)
    if "game" in data:
        return GameRecord(name, number, data)
    return None
