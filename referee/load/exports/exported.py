"""The records the audit takes of an imported game: plain (the fast lane may take it)
when msgspec proves it so, else a game record with its export pointer.

Why apart: this is the one place an importer meets the format-2 audit's own record
types (``referee.load.table``), so the lane's proof stays one rule for a JSON Lines
line and for an imported game.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from msgspec import UNSET

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

    def __init__(self, source: str, line: int, plain: Any, data: ExportDict, pointer: str, decimals: bool,
                 escaped: bool = True) -> None:
        super().__init__(source, line, plain, b"", decimals, escaped)
        self.data = data
        self.pointer = pointer


def game_record(source: str, line: int, game: ExportDict, pointer: str) -> GameRecord:
    """The imported game as the record the audit takes: plain when msgspec proves it so.

    Its amounts are whole numbers where they are whole (the money reader's, ``"5.00"`` is
    5, as ``import`` writes them): msgspec proves it on the whole-number struct, and the
    lane audits it as it audits the format-2 log written of it, without the checks a
    Decimal needs; a game with a fraction (or -0) is proven on the Decimal struct."""
    fields = {name: value.isoformat() if isinstance(value, datetime) else value for name, value in game.items()
              if name in _STRUCT_FIELDS}
    decimals = False
    struct = plain_game(fields, False)
    if struct is None:
        decimals = True
        struct = plain_game(fields, True)
        if struct is None:
            return ExportGameRecord(source, line, game, pointer)
    seats = struct.seats if struct.seats is not UNSET else ()
    escaped = _ESCAPED.search("".join([seat.player_id for seat in seats if type(seat.player_id) is str])) is not None
    return PlainExportRecord(source, line, struct, game, pointer, decimals, escaped)


_STRUCT_FIELDS = frozenset(GAME_STRUCT_FIELDS)
#: What JSON writes escaped in a string (``ensure_ascii=False``): a player id without
#: any is written by the JSON report as it is (``PlainGameRecord.escaped``).
_ESCAPED = re.compile(r'["\\\x00-\x1f]')
