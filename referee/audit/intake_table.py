"""Format 2 (the live table) into the audit: each game with its seats.

A game is held only until its last seat is read (its seats inline, or as seat lines
after it), then validated as format 2 defines it (findings worded ``game g7, player
p1: ...``), a player seated twice in one record is one ``G002``, a player seated again
in a second record of the game is a copy of the bet (ruled, not settled again), and the
game goes to the one audit (:class:`~referee.audit.session.SessionAudit`). A game read
plain by the fast decoder (``load/table.py``) first tries the fast lane, seat by seat.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from msgspec import UNSET
from msgspec.structs import astuple
from pydantic import ValidationError

from ..escape import digits, name, quoted
from ..load.records import ExportDict, GameRecord, LineDict, Record, RoundRecord, SeatRecord, SessionRecord
from ..load.table import GAME_STRUCT_FIELDS, PlainGameRecord, PlainSeatRecord
from ..models import codes
from ..models.common import MAX_AMOUNT
from ..models.decode import convert
from ..models.table import GAME_FIELDS, SEAT_FIELDS, TABLE_SESSION_FIELDS, Game, Seat, TableSession
from ..rules.hands import HandValue
from ..rules.settlement import Ruling
from .clean import CleanGame, CleanSeat, LaneSeat, cards_of
from .duplicates import seat_once
from .fast import plain_amount
from .games import GameResult, SeatResult
from .lane import Deal, commit_game, deal_hands, game_plain, shared_facts, take_seat
from .places import Emitter, game_place
from .results import Finding
from .session import GameIn, Header, Options, SeatIn, SessionAudit
from .validation import named_profile, session_header, validation_findings

ZERO = Decimal(0)
_new = tuple.__new__
#: A seat as read: its mapping or struct, its line, and for a plain one its line's record
#: and its place there (-1: a seat line).
Item = tuple[Any, int, PlainGameRecord | PlainSeatRecord | None, int]


class _OpenGame:
    """A game being read: its record, and its seats as they come."""

    __slots__ = ("dealer_hand", "id", "line", "record", "result", "seats")

    def __init__(self, record: GameRecord, game_id: str | None, result: GameResult) -> None:
        self.record = record
        self.line = record.line
        self.id = game_id
        self.result = result
        self.seats: list[Item] = []
        #: The dealer's hand, once the lane evaluated the deal.
        self.dealer_hand: HandValue | None = None

    @property
    def plain(self) -> Any:
        """The game line's struct, when it was read plain."""
        return self.record.plain if isinstance(self.record, PlainGameRecord) else None


class TableIntake:
    """One format-2 session: its games into the audit."""

    def __init__(self, record: SessionRecord, options: Options) -> None:
        findings: list[Finding] = []
        header = _header(record, findings)
        self.session = SessionAudit(record, options, header, findings, 2)
        self.open: _OpenGame | None = None

    @property
    def info(self) -> Any:
        return self.session.info

    def take(self, record: Record) -> Iterator[GameResult | CleanGame]:
        """A game, a seat line, or a record that has no place in a format-2 session."""
        if isinstance(record, GameRecord):
            yield from self.flush()
            self._open_game(record)
        elif isinstance(record, SeatRecord):
            self._seat_line(record)
        elif isinstance(record, RoundRecord):
            self.session.add(Finding(codes.H007, "a format-1 round in a format-2 session (games and seats): not "
                                     "audited", record.source, record.line))

    def flush(self) -> Iterator[GameResult | CleanGame]:
        """The open game's result (and any it releases), once its last seat is read."""
        if self.open is not None:
            game, self.open = self.open, None
            yield from self._finish(game)

    def _open_game(self, record: GameRecord) -> None:
        s = self.session
        table = s.info.table
        if isinstance(record, PlainGameRecord):
            plain = record.plain
            plain_id = str(plain.game)
            game = _OpenGame(record, plain_id, GameResult(plain_id, None, record.source, record.line, s.id,
                                                          table=table, pointer=getattr(record, "pointer", None)))
            if plain.seats is not UNSET:
                # an imported game's seats each at their own line (its record made only when asked)
                lines = record.seat_lines if record.imported else None
                game.seats = [(item, lines[i] if lines else record.line, record, i)
                              for i, item in enumerate(plain.seats)]
            self.open = game
            return
        data = record.data
        game_id = _id(data.get("game") if isinstance(data, dict) else None)
        game = _OpenGame(record, game_id, GameResult(game_id, None, record.source, record.line, s.id, table=table,
                                                     pointer=getattr(record, "pointer", None)))
        if isinstance(data, dict) and isinstance(data.get("seats"), list):
            for item in data["seats"]:
                game.seats.append((item, item.line if isinstance(item, LineDict) and item.line else record.line,
                                   None, 0))
        self.open = game

    def _seat_line(self, record: SeatRecord) -> None:
        if isinstance(record, PlainSeatRecord):
            plain_id: str | None = str(record.plain.game)
            if self.open is not None and plain_id == self.open.id:
                self.open.seats.append((record.plain.seat, record.line, record, -1))
                return
        data = record.data
        game_id = _id(data.get("game"))
        if self.open is None or game_id is None or game_id != self.open.id:
            self.session.add(Finding(codes.H007, _stray_seat(game_id, data.get("game"), self.open), record.source,
                                     record.line, game=game_id))
            return
        extra = [k for k in data if k not in ("game", "seat")]
        if extra:
            self.session.add(Finding(codes.H002, f"unknown key {quoted(extra[0])} beside 'game' and 'seat' in a "
                                     "seat line", record.source, record.line, game=game_id))
        self.open.seats.append((data.get("seat"), record.line, None, 0))

    # -- one game

    def _finish(self, game: _OpenGame) -> list[GameResult | CleanGame]:
        s = self.session
        taken: list[CleanSeat] = []
        if s.lane is not None and game.plain is not None:
            if s.fast == "verify":
                from .verify import verified_game

                return verified_game(self, game)
            clean = self.lane_game(game, taken)
            if clean is not None:
                return [clean]
        return list(self.full_game(game, taken))

    def lane_game(self, game: _OpenGame, taken: list[CleanSeat]) -> CleanGame | None:
        """The game on the lane: its seats from the first on, while each is plain and
        proven clean (``taken``); the whole game when every seat is."""
        s = self.session
        plain = game.plain
        n = plain.round
        counted = n is not UNSET
        if (not game.seats or plain.status not in (UNSET, "settled")
                or not (game.record.imported or _times_plain(plain))
                or plain.player is UNSET or not _short(plain.dealer_id)
                or not game_plain(s, n, counted, game.id)):
            return None
        hands = deal_hands(plain.player, plain.flop, plain.turn, plain.river, plain.dealer)
        if hands is None:
            return None
        game.dealer_hand = hands[1]
        deal = Deal(plain.player, plain.flop, plain.turn, plain.river, plain.dealer)
        earlier = s.game_players.get(game.id, ()) if game.id is not None else ()
        seated: set[str] = set(earlier)
        where = (None, game.id)
        memo = s.lane
        shared = shared_facts(memo, hands, plain.player, plain.flop)
        for item, line, source, index in game.seats:
            if source is None or item.player is not UNSET or (source.decimals and not _decimals_plain(item)):
                return None
            raw_id = item.player_id
            player_id = raw_id if type(raw_id) is str else str(raw_id)
            seat = take_seat(s, memo, item, plain.player, hands, deal, line, player_id, player_id, source, index,
                             seated, where, shared, source.decimals)
            if seat is None:
                return None
            taken.append(seat)
        commit_game(s, n if counted else None, counted, game.id, len(taken))
        if game.id is not None:
            s.game_players[game.id] = (*earlier, *(seat.player_id for seat in taken if seat.player_id is not None))
        return tuple.__new__(CleanGame, (None if not counted else n, game.line, game.record.source, s.id, game.id,
                                         plain, tuple(taken), hands[1], hands[0], 2, s.info.table, game.record))

    def full_game(self, game: _OpenGame, taken: list[CleanSeat]) -> list[GameResult]:
        """The game through the full audit; ``taken``, the seats the lane already took."""
        s = self.session
        result = game.result
        result.format = 2
        if taken:
            plain = game.plain
            cards = cards_of(plain.player, plain.flop, plain.turn, plain.river, plain.dealer)
            for seat in taken:
                e = seat.entry
                ruling = Ruling(e.outcome, cards, e.lines, None, seat.player, game.dealer_hand, seat.bonus_hand,
                                e.qualified)
                result.seats.append(LaneSeat.of(seat, ruling))
        model = self._game_model(game, result)
        # a plain line: one line for all; an imported game's fields each at their own
        data = None if model is not None and game.plain is not None and not game.record.imported \
            else game.record.data
        game_emit = Emitter(s, result.findings, data, game.line, game_place(game.id))
        earlier = set(s.game_players.get(game.id, ())) if game.id is not None else set()
        seated = {seat.player_id for seat in taken if seat.player_id is not None}
        seats = [self._seat(item, line, source, index, game, seated, earlier)
                 for item, line, source, index in game.seats[len(taken):]]
        number = model.round if model is not None else None
        record = game.record.data
        notation = record.notation if isinstance(record, ExportDict) else None  # an export's cards, as it spells
        return s.audit_game(GameIn(result, game.id, number, number is not None, model, game_emit, seats, model,
                                   notation=notation))

    def _game_model(self, game: _OpenGame, result: GameResult) -> Game | None:
        """The game's model, or None with its findings."""
        s = self.session
        if game.plain is not None and s.fast:  # the plain decode's fields: no need to read the mapping
            fields = {name: value for name, value in zip(GAME_STRUCT_FIELDS, astuple(game.plain), strict=True)
                      if value is not UNSET and name != "seats"}
            try:
                return convert(fields, Game)
            except ValidationError:
                pass
        data = game.record.data
        emit = Emitter(s, result.findings, data, game.line, game_place(game.id))
        if not isinstance(data, dict):
            emit(codes.H001, "a game is a mapping", "", None, None)
            return None
        try:
            return convert({k: v for k, v in data.items() if k != "seats"}, Game)
        except ValidationError as err:
            for finding in validation_findings(err, data, s.file, game.line, None, "", GAME_FIELDS):
                finding.message = emit.place.prefix + finding.message
                emit.add(finding)
            return None

    def _seat(self, item: Any, line: int, source: PlainGameRecord | PlainSeatRecord | None, index: int,
              game: _OpenGame, seated: set[str], earlier: set[str]) -> SeatIn:
        """A seat validated: its model (None with a finding when invalid), and whether it
        is a second seat of its player in this record (G002) or a copy of a bet of an
        earlier record of the game."""
        s = self.session
        data = item if source is None else _seat_data(source, index)
        player = _id(data.get("player_id") if isinstance(data, dict) else None)
        seat = SeatResult(player, s.file, line)
        game.result.seats.append(seat)
        emit = Emitter(s, seat.findings, data, line, game_place(game.id, player))
        seat_in = SeatIn(seat, None, data, emit, player)
        try:
            model = convert(data, Seat)
        except ValidationError as err:
            for finding in validation_findings(err, data, s.file, line, None, "", SEAT_FIELDS):
                finding.message = emit.place.prefix + finding.message
                emit.add(finding)
            if player is not None and player in seated:
                seat_in.twice = True
            return seat_in
        if not seat_once(seated, model.player_id):
            emit(codes.G002, f"seated twice in game {game.id}: this seat is not settled again", "player_id", None,
                 model.player_id)
            seat_in.twice = True
            return seat_in
        seat.record = seat_in.model = model
        seat.copy = model.player_id in earlier
        return seat_in

    def close(self) -> Iterator[GameResult | CleanGame]:
        yield from self.flush()


_TIME: Any = None


def _times_plain(plain: Any) -> bool:
    """A game's ``started`` and ``settled``, when there, are times the model reads: checked
    by the model's own validator of a datetime (about 1 us each), so the lane takes a timed
    game exactly when the full path would read its times without a finding."""
    global _TIME
    for value in (plain.started, plain.settled):
        if value is UNSET:
            continue
        if _TIME is None:
            from datetime import datetime

            from pydantic import TypeAdapter

            _TIME = TypeAdapter(datetime)
        try:
            _TIME.validate_python(value)
        except ValidationError:
            return False
    return True


def _id(raw: Any) -> str | None:
    """A game or player id as read, for the findings that name its record: text (a whole
    number as its digits), bounded (:func:`referee.escape.name`: a 60 MB id, which the
    model refuses, is not copied into every finding and row); None when it is not an id."""
    if isinstance(raw, str):
        return name(raw)
    return name(digits(raw)) if isinstance(raw, int) and not isinstance(raw, bool) else None


def _stray_seat(game_id: str | None, raw: Any, last: _OpenGame | None) -> str:
    """The words of a stray seat line (H007): a seat line whose game is not the one open, or that names none."""
    which = f"of game {game_id}" if game_id is not None else (
        "with no game id" if raw is None else f"whose 'game' is not an id (got {quoted(raw)})")
    after = "" if last is None else (f" (the game read last is {last.id})" if last.id is not None
                                     else " (the game read last has no id)")
    return f"a seat line {which} that does not follow its game's line{after}"


def _short(text: Any) -> bool:
    """A free text field the models bound (``dealer_id``): absent or within 500 characters."""
    return text is UNSET or len(text) <= 500


def _seat_data(source: PlainGameRecord | PlainSeatRecord, index: int) -> Any:
    """A plain seat as the general reader gives it (its line decoded by ``loads_line``)."""
    line = source.data
    return line.get("seat") if index < 0 else line["seats"][index]


def _decimals_plain(seat: Any) -> bool:
    """A seat's Decimal amounts are ones pydantic takes as they are (at most six places,
    in range, not -0); its whole numbers were checked by msgspec."""
    for value in (seat.ante, seat.bonus, seat.call):
        if type(value) is Decimal and plain_amount(value, ZERO) is None:
            return False
    if seat.recorded is not UNSET:
        for value in astuple(seat.recorded)[6:]:
            if type(value) is Decimal and plain_amount(value, -MAX_AMOUNT) is None:
                return False
    if seat.wallet is not UNSET:
        for move in seat.wallet:
            if type(move.amount) is Decimal and plain_amount(move.amount, ZERO) is None:
                return False
    return True


def _header(record: SessionRecord, findings: list[Finding]) -> Header | None:
    """The session header as format 2 has it (H001 for what is wrong with it)."""
    header = session_header(record, TableSession, TABLE_SESSION_FIELDS, findings)
    if header is None:
        return None
    return Header(header.id, named_profile(header), None, dict(header.opening_balances or {}), None, header.table,
                  header.currency)
