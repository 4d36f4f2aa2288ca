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
from ..table import (
    GAME_STRUCT_FIELDS,
    MONEY_MAX,
    STAKE_MAX,
    WHOLE_RECORDED,
    WHOLE_SEAT,
    PlainGameRecord,
    plain_game,
)
from .parts import shared_hand
from .plan import SeatPlan, SeatRead


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
#: What JSON writes escaped in a string (``ensure_ascii=False``): a player id without
#: any is written by the JSON report as it is (``PlainGameRecord.escaped``).
_ESCAPED = re.compile(r'["\\\x00-\x1f]')


def imported_record(source: str, line: int, pointer: str, game: ExportDict, seats: list[ExportDict | SeatRead],
                    plan: SeatPlan | None, qualified: Any) -> GameRecord:
    """The game with its seats (each the exact builder's record, or what ``plan`` read of
    it) as the record the audit takes: its format-2 record made only when asked where
    the plan read every seat (:func:`lazy_game_record`), else now."""
    game_id = str(game["game"])

    def made() -> ExportDict:
        built = [seat if type(seat) is not SeatRead or plan is None else plan.export(seat, qualified, None, game_id)
                 for seat in seats]
        shared_hand(game, built)  # type: ignore[arg-type]
        game["seats"] = built
        return game

    reads = [seat for seat in seats if type(seat) is SeatRead]
    if reads and len(reads) == len(seats):
        lazy = lazy_game_record(source, line, game, pointer, reads, qualified, made)
        if lazy is not None:
            return lazy
    return game_record(source, line, made(), pointer)


def lazy_game_record(source: str, line: int, game: ExportDict, pointer: str, reads: list[SeatRead],
                     qualified: Any, make: Callable[[], ExportDict]) -> PlainExportRecord | None:
    """The imported game as :func:`game_record` would give it, its seats' structs made
    from what the plan read (:class:`~.plan.SeatRead`) and its format-2 record only when
    asked (``make``: the audit's full path, a finding, ``import``); None when a seat is
    not one this proves plain on the whole-number struct (a fraction, an amount out of
    range, a word or a qualification msgspec would refuse): then :func:`game_record`.

    Why: a game the fast lane takes needs its structs alone; making each seat's record
    and where each of its fields came from (what a finding names) cost more than the
    lane's audit of it. What is proven here is what msgspec proves of the same record
    (``load/table.py``'s whole-number structs), so the lane takes the same games."""
    shared = None
    if "player" not in game and all(read.cards is not None for read in reads):
        first = reads[0].cards
        if all(read.cards == first for read in reads):
            shared = first  # the game's hand, written on every seat (parts.shared_hand)
    if qualified is not None and type(qualified) is not bool:
        return None
    seats = []
    for read in reads:
        seat = _seat_struct(read, qualified, shared is None)
        if seat is None:
            return None
        seats.append(seat)
    fields = {name: value.isoformat() if isinstance(value, datetime) else value for name, value in game.items()
              if name in _STRUCT_FIELDS}
    if shared is not None:
        fields["player"] = shared
    fields["seats"] = seats  # structs: msgspec takes them as they are
    struct = plain_game(fields, False)
    if struct is None:
        return None
    escaped = _ESCAPED.search("".join([read.player for read in reads])) is not None
    return PlainExportRecord(source, line, struct, None, pointer, False, escaped, make, [read.line for read in reads])


def _seat_struct(read: SeatRead, qualified: bool | None, own: bool) -> Any | None:
    """The seat's whole-number struct, where msgspec would make the same of its record
    (ids, words, cards and amounts within the struct's bounds); else None."""
    player, decision, cards, kinds = read.player, read.decision, read.cards, read.kinds
    if not 0 < len(player) <= 500 or (decision != "call" and decision != "fold"):
        return None
    fields: dict[str, Any] = {}
    recorded: dict[str, Any] = {}
    for kind, entry in kinds.items():
        stake, paid = entry[0], entry[2]
        if type(stake) is not int or not 0 <= stake <= STAKE_MAX:
            return None
        fields[kind] = stake
        if paid is not None:
            net = paid - stake
            if type(net) is not int or not -MONEY_MAX <= net <= MONEY_MAX:
                return None
            recorded[kind] = net
    for name, value in (("returned", read.returned), ("balance", read.balance)):
        if value is not None:
            if type(value) is not int or not -MONEY_MAX <= value <= MONEY_MAX:
                return None
            recorded[name] = value
    if qualified is not None:
        recorded["dealer_qualified"] = qualified
    if own and cards is not None:
        if type(cards) is not list or len(cards) > 52 or \
                not all(type(card) is str and len(card) <= 16 for card in cards):
            return None
        fields["player"] = cards
    return WHOLE_SEAT(player_id=player, decision=decision, recorded=WHOLE_RECORDED(**recorded), **fields)
