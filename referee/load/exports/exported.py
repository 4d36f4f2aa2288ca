"""The records the audit takes of an imported game: plain (the fast lane may take it)
when msgspec proves it so, else a game record with its export pointer.

Why apart: this is the one place an importer meets the format-2 audit's own record
types (``referee.load.table``), so the lane's proof stays one rule for a JSON Lines
line and for an imported game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..records import ExportDict, GameRecord
from ..table import GAME_STRUCT_FIELDS, PlainGameRecord, plain_game


class ExportGameRecord(GameRecord):
    """A game made from an export record: ``pointer`` is where (``data[0].games[3]``)."""

    __slots__ = ("pointer",)

    def __init__(self, source: str, line: int, data: Any, pointer: str) -> None:
        super().__init__(source, line, data)
        self.pointer = pointer


class PlainExportRecord(PlainGameRecord):
    """An imported game msgspec proved plain (see ``load/table.py``): the fast lane may
    audit it as it audits a plain JSON Lines game; ``data`` is the game as imported
    (each field's line and export path), for the full path and every finding."""

    __slots__ = ("pointer",)
    imported = True

    def __init__(self, source: str, line: int, plain: Any, data: ExportDict, pointer: str) -> None:
        super().__init__(source, line, plain, b"", True, True)
        self.data = data
        self.pointer = pointer


def game_record(source: str, line: int, game: ExportDict, pointer: str) -> GameRecord:
    """The imported game as the record the audit takes: plain when msgspec proves it so."""
    fields: dict[str, object] = {}
    for name in GAME_STRUCT_FIELDS:
        if name in game:
            value = game[name]
            fields[name] = value.isoformat() if isinstance(value, datetime) else value
    struct = plain_game(fields)
    if struct is None:
        return ExportGameRecord(source, line, game, pointer)
    return PlainExportRecord(source, line, struct, game, pointer)
