"""The parts of a game's record the builder puts in place: where an object of a record
opens, a board split into flop, turn and river, a shared hand written on every seat, a
bet's record made when asked, a feed's rows grouped into games.

Why apart from :mod:`.games`: these say where things are in an export's record, not how
a field is read, and the builder is long enough without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..records import ExportDict, LineDict, LoadProblem
from .budget import Overspent
from .fields import misfit_problem
from .files import ExportRecord
from .search import Getter


def line_of(item: Any, record: ExportRecord) -> int:
    """The line an object of ``record`` opens on (the record's, for a value that is none)."""
    if isinstance(item, LineDict):
        return item.line
    return record.line if record.lines is None else record.lines.line(item, record.line)


def board(game: ExportDict, board: Any, where: tuple[Any, str, Any, int, Any]) -> None:
    """Five community cards at once: flop, turn and river (more or fewer: the audit says)."""
    if not isinstance(board, list):
        game["flop"] = board
        game.where["flop"] = where
        return
    parts = {"flop": board[:3]}
    if len(board) > 3:
        parts["turn"] = board[3]
    if len(board) > 4:
        parts["river"] = board[4] if len(board) == 5 else board[4:]
    for name, value in parts.items():
        game[name] = value
        game.where[name] = where


def shared_hand(game: ExportDict, seats: list[ExportDict]) -> None:
    """A feed writes the shared hand on every seat's row: when every seat shows the same
    cards (and the game names none), they are the game's hand, not each seat's own (which
    the audit would see as every card dealt twice)."""
    if "player" in game or not seats or any("player" not in seat for seat in seats):
        return
    first = seats[0]["player"]
    if all(seat["player"] == first for seat in seats[1:]):
        game["player"] = first
        game.where["player"] = seats[0].where["player"]
        for seat in seats:
            del seat["player"]


class BetAt:
    """Where a bet is, made into its record only when something about it must be said."""

    __slots__ = ("base", "bet", "index", "seat")

    def __init__(self, bet: Any, seat: ExportRecord, base: str, index: int) -> None:
        self.bet, self.seat, self.base, self.index = bet, seat, base, index

    @property
    def record(self) -> ExportRecord:
        bet, seat = self.bet, self.seat
        return ExportRecord(bet.line if isinstance(bet, LineDict) else seat.line, f"{self.base}[{self.index}]", bet,
                            lines=seat.lines)


def grouped(records: Iterator[ExportRecord | LoadProblem], group: Getter,
             source: str) -> Iterator[tuple[ExportRecord | LoadProblem, list[ExportRecord] | None]]:
    """One seat a record: consecutive records with the same ``group`` value are one game
    (the first one's fields are the game's)."""
    run: list[ExportRecord] = []
    key: Any = None
    for record in records:
        if isinstance(record, LoadProblem):
            if run:
                yield run[0], run
                run = []
            yield record, None
            continue
        try:
            value = group(record.data)
        except Overspent as overspent:
            if run:
                yield run[0], run
                run = []
            yield misfit_problem(source, overspent, record.line), None
            continue
        if run and value != key:
            yield run[0], run
            run = []
        key = value
        run.append(record)
    if run:
        yield run[0], run
