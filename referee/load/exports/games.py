"""Export records into format-2 records: a session per table, its games, their seats.

Why records and not models: an imported game goes into the same audit as a format-2
log (``referee.audit.intake_table``), which validates, rules and reports it; the
importer only fills format 2's fields from the mapping's expressions, read through its
normalizers. Each field keeps the line it came from and the export's own path
(:class:`~referee.load.records.ExportDict`), so a finding names both.

One finding per root cause: a game whose own fields do not fit the mapping is one
``H008`` at its record and is not audited; a seat that does not fit is one ``H008`` at
the seat, and the rest of its game is audited. A mapping that fits nothing, already
at the first record, is one error for the file (exit 2), not a finding per record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from ...models import codes
from ..reading import Reading
from ..records import ExportDict, GameRecord, LineDict, LoadProblem, Record, SessionRecord, line_at
from ..table import GAME_STRUCT_FIELDS, PlainGameRecord, plain_game
from .files import ExportRecord
from .mappings import LoadedMapping
from .normalize import CardReader, Misfit, MoneyReader, TimeReader, WordReader, shown
from .search import Getter, PlainPath

ZERO = Decimal(0)
GAME_CARDS = ("player", "flop", "dealer")
BET_KINDS = ("ante", "call", "bonus", "ignore")
#: A wallet move as a seat's ``wallet`` holds it, by (game id, player id).
WalletIndex = dict[tuple[str, str], list[dict[str, Any]]]


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
    fields: dict[str, Any] = {}
    for name in GAME_STRUCT_FIELDS:
        if name in game:
            value = game[name]
            fields[name] = value.isoformat() if isinstance(value, datetime) else value
    struct = plain_game(fields)
    if struct is None:
        return ExportGameRecord(source, line, game, pointer)
    return PlainExportRecord(source, line, struct, game, pointer)


@dataclass(slots=True)
class _Readers:
    cards: CardReader
    money: MoneyReader
    times: TimeReader
    bet: WordReader
    status: WordReader
    decision: WordReader


@dataclass(slots=True)
class _Field:
    """Reading one value of a record: its getter, its line and export path."""

    key: str
    getter: Getter
    record: ExportRecord | None = None
    base: str = ""
    data: Any = None

    def value(self) -> Any:
        return self.getter(self.data)

    def path(self) -> str:
        return self.getter.path(self.base)

    def line(self, default: int) -> int:
        if isinstance(self.getter, PlainPath):
            return line_at(self.data, self.getter.parts, default)
        return default


@dataclass
class GameBuilder:
    """Builds one export file's format-2 records (``build``), with the wallet moves of
    ``wallet`` (joined by game and player), when a wallet log is given."""

    loaded: LoadedMapping
    reading: Reading
    wallet: WalletIndex | None = None
    _session: tuple[Any, ...] | None = None
    _sessions: int = 0
    _fits: bool = False
    #: The game's ``dealer_qualified`` as the export says (each seat's recorded word).
    _qualified: Any = None
    readers: _Readers = field(init=False)

    def __post_init__(self) -> None:
        m = self.loaded.mapping
        self.readers = _Readers(
            CardReader(m.cards), MoneyReader(m.money), TimeReader(m.times),
            WordReader(m.words.bet, BET_KINDS[:3], "bet code", strict=True),
            WordReader(m.words.status, ("settled", "cancelled"), "status", strict=True),
            WordReader(m.words.decision, ("call", "fold"), "decision"))

    def build(self, records: Iterator[ExportRecord | LoadProblem]) -> Iterator[Record]:
        """The session and game records of one export file, in its order."""
        mapping = self.loaded.mapping
        if mapping.group is not None:
            records_in = _grouped(records, self.loaded.getters["group"])
        else:
            records_in = ((r, None) for r in records)
        for record, seats in records_in:
            if isinstance(record, LoadProblem):
                yield record
                if record.fatal:
                    return
                continue
            try:
                yield from self._game(record, seats)
            except _Unfit as unfit:
                yield self.reading.fail(record.line, f"the mapping {self.loaded.name} does not fit this file: "
                                                     f"{unfit}")
                return

    # ------------------------------------------------------------------ sessions
    def _session_records(self, record: ExportRecord) -> Iterator[Record]:
        getters, header = self.loaded.getters, self.loaded.mapping.session
        values = {}
        for name in ("id", "table", "currency"):
            getter = getters.get(f"session.{name}")
            value = getter(record.data) if getter is not None else None
            values[name] = None if value is None else str(value)
        key = (values["id"], values["table"], values["currency"])
        if key == self._session:
            return
        self._session = key
        self._sessions += 1
        name = self.reading.name
        data = LineDict()
        data.line = record.line
        data["id"] = values["id"] or (name if self._sessions == 1 else f"{name}#{self._sessions}")
        for k in ("table", "currency"):
            if values[k] is not None:
                data[k] = values[k]
        if header.profile is not None:
            data["profile"] = header.profile
        data["meta"] = {"export": {"mapping": self.loaded.name, "mapping_sha256": self.loaded.sha256}}
        yield SessionRecord(name, record.line, data, self._sessions - 1, format=2)

    # ------------------------------------------------------------------ games
    def _game(self, record: ExportRecord, grouped: list[ExportRecord] | None) -> Iterator[Record]:
        try:
            game = self._game_fields(record)
        except Misfit as misfit:
            if not self._fits:
                raise _Unfit(str(misfit)) from None
            yield LoadProblem(self.reading.name, misfit_line(misfit, record.line), str(misfit), code=codes.H008)
            return
        self._fits = True
        yield from self._session_records(record)
        seats: list[ExportDict] = []
        problems: list[LoadProblem] = []
        for seat_record, base in self._seat_records(record, grouped):
            try:
                seats.append(self._seat(seat_record, base, game))
            except Misfit as misfit:
                problems.append(LoadProblem(self.reading.name, misfit_line(misfit, seat_record.line), str(misfit),
                                            code=codes.H008))
        _shared_hand(game, seats)
        game["seats"] = seats
        game.paths["seats"] = self.loaded.getters["seats"].path(record.pointer) if "seats" in self.loaded.getters \
            else record.pointer
        yield game_record(self.reading.name, record.line, game, record.pointer)
        yield from problems

    def _get(self, key: str, record: ExportRecord, data: Any = None, base: str | None = None) -> _Field | None:
        getter = self.loaded.getters.get(key)
        if getter is None:
            return None
        return _Field(key, getter, record, record.pointer if base is None else base,
                      record.data if data is None else data)

    def _game_fields(self, record: ExportRecord) -> ExportDict:
        r = self.readers
        game = ExportDict()
        game.line = record.line
        self._qualified = None
        got = self._get("game.id", record)
        assert got is not None, "a games mapping has game.id"
        game_id = _required(got)
        _put(game, "game", _text(game_id, got), got, record.line)
        for name in ("round", "started", "settled", "status", "dealer_id", "player", "flop", "turn", "river",
                     "dealer", "board", "dealer_qualified"):
            got = self._get(f"game.{name}", record)
            if got is None:
                continue
            value = got.value()
            if value is None:
                continue
            try:
                if name in ("started", "settled"):
                    value = r.times.time(value)
                elif name == "status":
                    value = r.status.word(value)
                elif name in GAME_CARDS:
                    value = r.cards.cards_of(value)
                elif name in ("turn", "river"):
                    value = r.cards.card(value)
                elif name == "dealer_id":
                    value = str(value)
                elif name == "round" and isinstance(value, str) and value.strip().isdigit():
                    value = int(value)
            except Misfit as misfit:
                raise _misfit(got, value, str(misfit), record.line) from None
            if name == "board":
                self._board(game, r.cards.cards_of(value), got, record.line)
            elif name == "dealer_qualified":
                self._qualified = value
            else:
                _put(game, name, value, got, record.line)
        return game

    def _board(self, game: ExportDict, board: Any, got: _Field, default: int) -> None:
        """Five community cards at once: flop, turn and river."""
        if not isinstance(board, list):
            _put(game, "flop", board, got, default)
            return
        _put(game, "flop", board[:3], got, default)
        if len(board) > 3:
            _put(game, "turn", board[3], got, default)
        if len(board) > 4:
            _put(game, "river", board[4], got, default)
        if len(board) > 5:
            _put(game, "river", board[4:], got, default)  # more than five: the audit says so

    # ------------------------------------------------------------------ seats
    def _seat_records(self, record: ExportRecord,
                      grouped: list[ExportRecord] | None) -> Iterator[tuple[ExportRecord, str]]:
        if grouped is not None:
            for row in grouped:
                yield row, row.pointer
            return
        got = self._get("seats", record)
        assert got is not None, "a games mapping without group has seats"
        seats = got.value()
        if seats is None:
            return
        if not isinstance(seats, list):
            raise _misfit(got, seats, "expected the list of the game's seats", record.line)
        base = got.path()
        for i, seat in enumerate(seats):
            line = seat.line if isinstance(seat, LineDict) else record.line
            yield ExportRecord(line, f"{base}[{i}]", seat), f"{base}[{i}]"

    def _seat(self, record: ExportRecord, base: str, game: ExportDict) -> ExportDict:
        r = self.readers
        seat = ExportDict()
        seat.line = record.line
        got = self._get("seat.player_id", record, base=base)
        assert got is not None
        player = _text(_required(got), got)
        _put(seat, "player_id", player, got, record.line)
        got = self._get("seat.decision", record, base=base)
        assert got is not None
        _put(seat, "decision", r.decision.word(_required(got)), got, record.line)
        got = self._get("seat.player", record, base=base)
        if got is not None and got.value() is not None:
            _put(seat, "player", r.cards.cards_of(got.value()), got, record.line)
        where: dict[str, tuple[str, int]] = {}
        stakes, payouts = self._stakes(record, base, seat, where)
        recorded = self._recorded(record, base, game, stakes, payouts, where)
        if recorded:
            seat["recorded"] = recorded
        if self.wallet is not None:
            seat["wallet"] = self.wallet.get((str(game["game"]), player), [])
        return seat

    def _stakes(self, record: ExportRecord, base: str, seat: ExportDict,
                where: dict[str, tuple[str, int]]) -> tuple[dict[str, Decimal], dict[str, Decimal] | None]:
        """The seat's stakes by kind (ante, call, bonus) and, when each bet says what it
        paid back, the payouts by kind (``where``: each payout's path and line)."""
        stakes: dict[str, Decimal] = {}
        payouts: dict[str, Decimal] | None = None
        got = self._get("seat.bets", record, base=base)
        if got is None:
            for kind in ("ante", "call", "bonus"):
                one = self._get(f"seat.{kind}", record, base=base)
                if one is not None and one.value() is not None:
                    stakes[kind] = self._amount(one, one.value(), record.line)
                    _put(seat, kind, stakes[kind], one, record.line)
            if "ante" not in stakes:
                raise _misfit(self._get("seat.ante", record, base=base), None, "the seat has no Ante", record.line)
            return stakes, None
        bets = got.value()
        if not isinstance(bets, list):
            raise _misfit(got, bets, "expected the list of the seat's bets", record.line)
        bets_base = got.path()
        for i, bet in enumerate(bets):
            bet_record = ExportRecord(bet.line if isinstance(bet, LineDict) else record.line, f"{bets_base}[{i}]", bet)
            code = self._get("bet.code", bet_record)
            assert code is not None
            try:
                kind = self.readers.bet.word(_required(code))
            except Misfit as misfit:
                raise _misfit(code, code.value(), str(misfit), bet_record.line) from None
            if kind == "ignore":
                continue
            stake = self._get("bet.stake", bet_record)
            assert stake is not None
            amount = self._amount(stake, _required(stake), bet_record.line)
            stakes[kind] = stakes.get(kind, ZERO) + amount
            _put(seat, kind, stakes[kind], stake, bet_record.line)
            payout = self._get("bet.payout", bet_record)
            if payout is not None:
                payouts = payouts if payouts is not None else {}
                paid = payout.value()
                payouts[kind] = payouts.get(kind, ZERO) + (ZERO if paid is None else self._amount(payout, paid,
                                                                                                    bet_record.line))
                where.setdefault(kind, (payout.path(), payout.line(bet_record.line)))
        if "ante" not in stakes:
            raise _misfit(got, bets, "the seat has no Ante bet (words.bet maps the codes)", record.line)
        return stakes, payouts

    def _recorded(self, record: ExportRecord, base: str, game: ExportDict, stakes: dict[str, Decimal],
                  payouts: dict[str, Decimal] | None, where: dict[str, tuple[str, int]]) -> ExportDict | None:
        """What the table paid, as format 2's ``recorded``: per-bet nets when each bet
        says what it paid back, else the total returned (and the net it makes). A
        cancelled game that paid nothing back is refunded by the wallet: nothing recorded."""
        recorded = ExportDict()
        recorded.line = record.line
        returned = None
        if payouts is not None:
            returned = sum(payouts.values(), ZERO)
        got = self._get("seat.returned", record, base=base)
        if got is not None and got.value() is not None:
            returned = self._amount(got, got.value(), record.line)
            _put(recorded, "returned", returned, got, record.line)
        cancelled = game.get("status") == "cancelled"
        if cancelled and not returned:
            return None
        staked = sum(stakes.values(), ZERO)
        if payouts is not None:
            for kind, stake in stakes.items():
                recorded[kind] = payouts.get(kind, ZERO) - stake
                if kind in where:
                    recorded.paths[kind], recorded.lines[kind] = where[kind]
            # the total is the payouts' sum, not a second record of them: a wrong payout is one
            # finding on its bet, not also one on the total
        elif returned is not None and cancelled:
            # a cancelled game that paid: what it made the seat win or lose is what says so (G003)
            del recorded["returned"]
            recorded["net"] = returned - staked
            recorded.paths["net"] = got.path() if got is not None else record.pointer
            recorded.lines["net"] = got.line(record.line) if got is not None else record.line
        qualified = self._qualified
        if qualified is not None and not cancelled:
            recorded["dealer_qualified"] = qualified
        got = self._get("seat.balance", record, base=base)
        if got is not None and got.value() is not None:
            _put(recorded, "balance", self._amount(got, got.value(), record.line), got, record.line)
        return recorded

    def _amount(self, got: _Field, value: Any, default: int) -> Decimal:
        try:
            return self.readers.money.amount(value)
        except Misfit as misfit:
            raise _misfit(got, value, str(misfit), default) from None


def _shared_hand(game: ExportDict, seats: list[ExportDict]) -> None:
    """A feed writes the shared hand on every seat's row: when every seat shows the same
    cards (and the game names none), they are the game's hand, not each seat's own (which
    the audit would see as every card dealt twice)."""
    if "player" in game or not seats or any("player" not in seat for seat in seats):
        return
    first = seats[0]["player"]
    if all(seat["player"] == first for seat in seats[1:]):
        game["player"] = first
        game.paths["player"], game.lines["player"] = seats[0].paths["player"], seats[0].lines["player"]
        for seat in seats:
            del seat["player"]


class _Unfit(Exception):
    """The first record of a file does not fit the mapping: the mapping is not this file's."""


def _grouped(records: Iterator[ExportRecord | LoadProblem],
             group: Getter) -> Iterator[tuple[ExportRecord | LoadProblem, list[ExportRecord] | None]]:
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
        value = group(record.data)
        if run and value != key:
            yield run[0], run
            run = []
        key = value
        run.append(record)
    if run:
        yield run[0], run


class _LineMisfit(Misfit):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def misfit_line(misfit: Misfit, default: int) -> int:
    return misfit.line if isinstance(misfit, _LineMisfit) else default


def _misfit(got: _Field | None, value: Any, why: str, default: int) -> Misfit:
    """The one clear error: the mapping key, its expression, where, what was found."""
    if got is None:
        return _LineMisfit(why, default)
    found = "found nothing" if value is None else f"found {shown(value)}"
    where = got.path()
    return _LineMisfit(f"{got.key}: {got.getter.text!r} {found} at {where} ({why})" if why else
                       f"{got.key}: {got.getter.text!r} {found} at {where}", got.line(default))


def _required(got: _Field) -> Any:
    value = got.value()
    if value is None:
        keys = got.data if isinstance(got.data, dict) else None
        hint = f"; the record's keys are {', '.join(repr(k) for k in list(keys)[:8])}" if keys else ""
        raise _misfit(got, None, "a required field" + hint, got.record.line if got.record else 0)
    return value


def _text(value: Any, got: _Field) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _misfit(got, value, "expected an id (text or a whole number)", got.record.line if got.record else 0)
    return str(value)


def _put(target: ExportDict, key: str, value: Any, got: _Field | None, default: int) -> None:
    target[key] = value
    if got is not None:
        target.paths[key] = got.path()
        target.lines[key] = got.line(default)
