"""The records the audit takes of an imported game: plain (the fast lane may take it)
when msgspec proves it so, else a game record with its export pointer.

Why apart: this is the one place an importer meets the format-2 audit's own record
types (``referee.load.table``), so the lane's proof stays one rule for a JSON Lines
line and for an imported game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from msgspec import UNSET

from ..records import ExportDict, GameRecord
from ..table import GAME_STRUCT_FIELDS, PlainGameRecord, plain_game
from .parts import shared_hand
from .plan import SeatPlan


class ExportGameRecord(GameRecord):
    """A game made from an export record: ``pointer`` is where (``data[0].games[3]``)."""

    __slots__ = ("pointer",)

    def __init__(self, source: str, line: int, data: Any, pointer: str) -> None:
        super().__init__(source, line, data)
        self.pointer = pointer


class PlainExportRecord(PlainGameRecord):
    """An imported game msgspec proved plain (see ``load/table.py``): the fast lane may
    audit it as it audits a plain JSON Lines game; ``data`` is the game as imported
    (each field's line and export path), for the full path and every finding, made
    when first asked when ``make`` is given (:func:`lazy_game_record`);
    ``seat_lines``, each seat's line."""

    __slots__ = ("make", "pointer", "seat_lines")
    imported = True

    def __init__(self, source: str, line: int, plain: Any, data: ExportDict | None, pointer: str, decimals: bool,
                 escaped: bool = True, make: Callable[[], ExportDict] | None = None,
                 seat_lines: list[int] | None = None) -> None:
        super().__init__(source, line, plain, b"", decimals, escaped)
        self.pointer = pointer
        self.make = make
        if data is not None:
            self.data = data
            seats: Any = data.get("seats", ())
            seat_lines = [seat.line for seat in seats]
        self.seat_lines: list[int] = seat_lines or []

    @property
    def data(self) -> Any:
        try:
            return _DATA.__get__(self, GameRecord)
        except AttributeError:
            make, self.make = self.make, None
            assert make is not None, "an imported game has its record or the way to make it"
            value = make()
            _DATA.__set__(self, value)
            return value

    @data.setter
    def data(self, value: Any) -> None:
        _DATA.__set__(self, value)


_DATA: Any = GameRecord.__dict__["data"]


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
#: The game's keys read as times (``TimeReader``): the struct holds them as ISO text.
_TIMES = ("started", "settled")
#: What JSON writes escaped in a string (``ensure_ascii=False``): a player id without
#: any is written by the JSON report as it is (``PlainGameRecord.escaped``).
_ESCAPED = re.compile(r'["\\\x00-\x1f]')


#: Where a seat the plan read plain is: its record, line, where (base and index:
#: :func:`pointer_of`) and the record's lines.
Place = tuple[Any, int, str, int, Any]


def pointer_of(base: str, index: int) -> str:
    """A seat's pointer: the ``index``-th of the list at ``base`` (``data[0].games[3].participants[1]``),
    or ``base`` itself when ``index`` is negative (a feed's row: ``row 5``); made only
    when something names the seat, not for every seat read."""
    return base if index < 0 else f"{base}[{index}]"


def imported_record(source: str, line: int, pointer: str, game: ExportDict, seats: list[Any],
                    places: list[Place | None], plan: SeatPlan | None, qualified: Any) -> GameRecord:
    """The game with its seats as the record the audit takes. A seat is the exact
    builder's record, or (with its place) what the plan read plain (:meth:`.plan.SeatPlan.plain`);
    where the plan read every seat plain, the game's format-2 record is made only when
    asked (:func:`lazy_game_record`), else now."""
    game_id = str(game["game"])

    def made() -> ExportDict:
        built: list[Any] = []
        for seat, place in zip(seats, places, strict=True):
            if place is not None:
                assert plan is not None
                # what plain read, the plan reads again (its memos only grow): the seat's record
                seat = plan.seat(place[0], place[1], pointer_of(place[2], place[3]), place[4], qualified, None,
                                 game_id)
                assert seat is not None, "a seat read plain is read by the plan"
            built.append(seat)
        shared_hand(game, built)
        game["seats"] = built
        return game

    if seats and None not in places:
        lazy = lazy_game_record(source, line, game, pointer, seats, [place[1] for place in places if place],
                                qualified, made)
        if lazy is not None:
            return lazy
    return game_record(source, line, made(), pointer)


def lazy_game_record(source: str, line: int, game: ExportDict, pointer: str, seats: list[dict[str, Any]],
                     lines: list[int], qualified: Any, make: Callable[[], ExportDict]) -> PlainExportRecord | None:
    """The imported game as :func:`game_record` gives it, from its seats as the plan
    read them plain (``seats``, changed here: the game's qualification and hand put in
    place), its format-2 record made only when asked (``make``: the audit's full path, a
    finding, ``import``); None when msgspec does not prove it on the whole-number struct.

    Why: a game the fast lane takes needs its struct alone; each seat's record, with
    where each of its fields came from (what a finding names), is work it never uses.
    The struct is msgspec's proof of the same values, so the lane takes the very games
    it took."""
    fields = dict(game)  # the builder's keys are the struct's (game_record: filtered)
    if not _STRUCT_FIELDS.issuperset(fields):
        return None
    for name in _TIMES:
        value = fields.get(name)
        if isinstance(value, datetime):
            fields[name] = value.isoformat()
    if "player" not in fields and all("player" in seat for seat in seats):
        first = seats[0]["player"]
        if all(seat["player"] == first for seat in seats):  # the game's hand on every seat (parts.shared_hand)
            fields["player"] = first
            for seat in seats:
                del seat["player"]
    if qualified is not None:
        for seat in seats:
            seat["recorded"]["dealer_qualified"] = qualified
    fields["seats"] = seats
    struct = plain_game(fields, False)
    if struct is None:
        return None
    escaped = _ESCAPED.search("".join([seat["player_id"] for seat in seats])) is not None
    return PlainExportRecord(source, line, struct, None, pointer, False, escaped, make, lines)
