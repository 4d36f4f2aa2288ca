"""Auditing format 2, the live table: one deal per game, many seats on it.

Why a game is ruled once: every seat at a shared-hand table plays the same cards, so
the deal is validated, voided (§07) and evaluated once per game, with unit stakes, and
each seat's ruling is that unit ruling scaled by the seat's own Ante and Bonus (every
amount of the settlement table is a stake times odds, so scaling is exact). At a table
where each seat has its own two cards, each seat is ruled with its cards, and a card
dealt twice anywhere in the game voids the whole game.

The audit streams like format 1: a game is held only until its last seat is read,
then a :class:`GameResult` goes to the reporters. Per player it keeps a ledger and two
balance chains (by the rules, and as the table kept it); per session a ledger over
every seat and counts of games.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from msgspec import UNSET, to_builtins
from msgspec.structs import astuple
from pydantic import ValidationError

from ..load.plain import mode as fast_mode
from ..load.records import GameRecord, LineDict, LoadProblem, Record, RoundRecord, SeatRecord, SessionRecord, line_at
from ..load.table import GAME_STRUCT_FIELDS, RECORDED_STRUCT_FIELDS, PlainGameRecord, PlainSeatRecord
from ..models import codes
from ..models.codes import FindingCode
from ..models.common import MAX_AMOUNT, Recorded
from ..models.table import GAME_FIELDS, SEAT_FIELDS, TABLE_SESSION_FIELDS, Game, Seat, TableSession
from ..rules.cards import CardError, parse_card, seen_cards
from ..rules.hands import HandValue
from ..rules.money import fmt, plain
from ..rules.payout import Rule, Wager
from ..rules.profile import Profile
from ..rules.settlement import Cards, Deal, Line, Ruling, Void, settle
from .compare import _hand_at_fold, compare_record, recorded_as_paid, settled_as_valid
from .fast import MEMO_LIMIT, FastPathMismatch, SettleMemo, _plain_recorded, memo_for, plain_amount
from .ledger import (
    Anchor,
    BalanceState,
    HeldNumber,
    Numbering,
    advance,
    judge,
    number_or_hold,
    reanchor,
    replay_after_swap,
    stake_check,
    swapped,
)
from .ledger import opening as ledger_opening
from .results import Finding, Ledger, SessionInfo, SessionResult
from .session_header import Held, SessionOpening, check_stake_units, place_last, release_held

ZERO = Decimal(0)
ONE = Decimal(1)
#: Problems held while a JSON Lines session's format is not yet known (bounded).
MAX_PENDING = 1000


# ----------------------------------------------------------------------------- results

@dataclass(slots=True)
class SeatResult:
    """One seat's audit: the seat as validated, its ruling (None when not ruled), findings."""

    player_id: str | None
    file: str
    line: int
    record: Seat | None = None
    ruling: Ruling | None = None
    cancelled: bool = False
    findings: list[Finding] = field(default_factory=list)
    balance: Decimal = ZERO
    recorded_balance: Decimal | None = None
    #: The ruling's (net, staked, returned), computed once per ruling of the game.
    totals: tuple[Decimal, Decimal, Decimal] | None = None
    #: A player seated again in a second record of the game (its G002 is the parent's):
    #: ruled, so that it can be explained, but not settled again (no checks, no ledger).
    copy: bool = False

    @property
    def outcome(self) -> str | None:
        if self.cancelled:
            return "cancelled"
        return self.ruling.outcome if self.ruling else None

    @property
    def staked(self) -> Decimal:
        if self.ruling is not None:
            return self.ruling.staked
        return stakes_of(self.record, None) if self.cancelled and self.record is not None else ZERO

    def settlement(self) -> dict[str, Decimal] | None:
        """Net result of each wager, the net, what is handed back and what was staked."""
        if self.ruling is not None:
            r = self.ruling
            return {"ante": r.ante, "call": r.call, "bonus": r.bonus, "net": r.net, "returned": r.returned,
                    "staked": r.staked}
        if self.cancelled:
            staked = self.staked
            return {"ante": ZERO, "call": ZERO, "bonus": ZERO, "net": ZERO, "returned": staked, "staked": staked}
        return None


_RECORD_SLOT: Any = SeatResult.__dict__["record"]


class PlainSeat(SeatResult):
    """A seat read by the fast decoder (``load/table.py``): ``plain`` is its struct and
    its model is built only when something asks for ``record`` (explain, HTML, stats).
    ``entry`` is its settlement in the game's memo when the fast path audited it."""

    __slots__ = ("entry", "index", "plain", "source")

    def __init__(self, player_id: str, file: str, line: int, plain: Any, source: PlainGameRecord | PlainSeatRecord,
                 index: int) -> None:
        self.player_id, self.file, self.line, self.plain, self.source, self.index = (
            player_id, file, line, plain, source, index)
        self.ruling, self.cancelled, self.findings, self.balance = None, False, [], ZERO
        self.recorded_balance, self.totals, self.copy = None, None, False
        self.entry: _Entry | None = None

    @property
    def record(self) -> Seat | None:
        try:
            found: Seat | None = _RECORD_SLOT.__get__(self, SeatResult)
            return found
        except AttributeError:
            model = Seat.model_validate(to_builtins(self.plain, builtin_types=(Decimal,)))
            _RECORD_SLOT.__set__(self, model)
            return model

    @record.setter
    def record(self, value: Seat | None) -> None:
        _RECORD_SLOT.__set__(self, value)

    def data(self) -> Any:
        """The seat as the general reader gives it (the full path's input)."""
        return _seat_data(self.source, self.index)


@dataclass(slots=True)
class GameResult:
    """One game's audit: its ruling facts once, each seat's result, the game's own findings."""

    game: str | None
    number: int | None
    file: str
    line: int
    session: str
    status: str | None = None
    record: Game | None = None
    outcome: str | None = None
    void_reason: str | None = None
    player_hand: HandValue | None = None
    dealer_hand: HandValue | None = None
    dealer_qualified: bool | None = None
    seats: list[SeatResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: The cards as read (canonical spellings), for comparing two records of one game.
    cards: tuple[str, ...] | None = None
    #: The session's table, when its header names one: a game id is unique at its table.
    table: str | None = None

    @property
    def fingerprint(self) -> GameFingerprint:
        return GameFingerprint(self.game, self.session, self.file, self.line, self.cards,
                               tuple(s.player_id for s in self.seats if s.player_id is not None), self.table,
                               self.kind)

    @property
    def kind(self) -> str:
        """What became of the game, as :class:`GameCounts` counts it."""
        if self.status is None:
            return "invalid"
        if self.status == "cancelled":
            return "cancelled"
        return "void" if self.outcome == "void" else "counted"


@dataclass(frozen=True, slots=True)
class GameFingerprint:
    """What two records of one game must agree on: small enough to travel from workers."""

    game: str | None
    session: str
    file: str
    line: int
    cards: tuple[str, ...] | None
    players: tuple[str, ...]
    table: str | None = None
    #: What became of the game (``GameResult.kind``): a second record is not another game.
    kind: str = "counted"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled with the player ids as one string: a game of 200 seats pickled and
        unpickled its 200 ids one by one in 50 µs, and a run of games' fingerprints was
        the most the workers sent back under ``--jobs`` (issue 19); joined, 5 µs. Ids
        that hold the separator themselves travel as the tuple."""
        players: tuple[str, ...] | str = self.players
        joined = _SEP.join(self.players)
        if joined.count(_SEP) == len(self.players) - 1:
            players = joined
        return (_fingerprint, (self.game, self.session, self.file, self.line, self.cards, len(self.players),
                               players, self.table, self.kind))


_SEP = "\x00"


def _fingerprint(game: str | None, session: str, file: str, line: int, cards: tuple[str, ...] | None, count: int,
                 players: tuple[str, ...] | str, table: str | None, kind: str) -> GameFingerprint:
    """A :class:`GameFingerprint` as :meth:`GameFingerprint.__reduce__` pickled it."""
    if isinstance(players, str):
        players = tuple(players.split(_SEP)) if count else ()
    return GameFingerprint(game, session, file, line, cards, players, table, kind)


@dataclass(slots=True)
class GameCounts:
    """Games of a session by what became of them."""

    games: int = 0
    counted: int = 0
    void: int = 0
    cancelled: int = 0
    invalid: int = 0
    seats: int = 0

    def add(self, game: GameResult) -> None:
        self.games += 1
        self.seats += len(game.seats)
        kind = game.kind
        setattr(self, kind, getattr(self, kind) + 1)

    def uncount(self, kind: str) -> None:
        """A second record of a game already counted: its seats stay (they are bets),
        the game does not count twice."""
        self.games -= 1
        setattr(self, kind, getattr(self, kind) - 1)


@dataclass(slots=True)
class TableSessionInfo(SessionInfo):
    """A format-2 session as opened."""

    table: str | None = None
    currency: str | None = None


@dataclass(slots=True)
class PlayerLedger:
    player_id: str
    ledger: Ledger


@dataclass(slots=True)
class TableSessionResult(SessionResult):
    """A closed format-2 session: ``ledger`` is over every seat (a seat counts as a
    round), ``players`` each player's own, ``games`` the games by status."""

    players: list[PlayerLedger] = field(default_factory=list)
    games: GameCounts = field(default_factory=GameCounts)


# ----------------------------------------------------------------------------- helpers

def stakes_of(seat: Seat | None, profile: Profile | None, multiple: Decimal | None = None) -> Decimal:
    """Everything a seat put on the table: Ante, Bonus, and the Call when it called."""
    if seat is None:
        return ZERO
    if multiple is None:
        multiple = profile.call_multiple if profile is not None else Decimal(2)
    call = seat.call if seat.call is not None else seat.ante * multiple
    return seat.ante + seat.bonus + (call if seat.decision == "call" else ZERO)


def scaled(unit: Ruling, ante: Decimal, bonus: Decimal) -> Ruling:
    """The ruling of a seat staking ``ante`` and ``bonus``, from the unit ruling (Ante 1,
    Bonus 1) of the same cards and decision: every line's stake and net times the seat's."""
    if ante == unit.ante_stake and bonus == unit.bonus_stake:
        return unit
    factors = {Wager.ANTE: ante, Wager.CALL: ante, Wager.BONUS: bonus}
    lines = tuple(replace(line, stake=line.stake * factors[line.wager], result=line.result * factors[line.wager])
                  for line in unit.lines if factors[line.wager] or line.wager is Wager.ANTE)
    return replace(unit, lines=lines, bonus_hand=unit.bonus_hand if bonus else None)


def void_ruling(reason: str, ante: Decimal, call_stake: Decimal, bonus: Decimal) -> Ruling:
    """A seat of a game voided as a whole (a card dealt twice across seats, §07)."""
    stakes = ((Wager.ANTE, ante), (Wager.CALL, call_stake), (Wager.BONUS, bonus))
    lines = tuple(Line(w, stake, ZERO, Rule.VOID) for w, stake in stakes if stake or w is Wager.ANTE)
    return Ruling(outcome="void", cards=Cards(), lines=lines, void=Void("duplicate_card", reason))


def canonical(tokens: Iterable[object] | None) -> tuple[str, ...]:
    """Card tokens in one spelling (``A♥`` and ``Ah`` are the same card); unreadable
    tokens kept as written."""
    out = []
    for token in tokens or ():
        try:
            card = parse_card(token)
        except CardError:
            out.append(str(token))
            continue
        out.append("??" if card is None else str(card))
    return tuple(out)


def _validation_findings(err: ValidationError, data: Any, file: str, line: int, known: tuple[str, ...],
                         prefix: str = "") -> list[Finding]:
    from .checker import validation_findings

    return validation_findings(err, data, file, line, None, prefix, known)


class _Player:
    """One player's running state in a session: the two balance chains of
    ``docs/ledger.md`` (by the rules; as the table kept it) and the stake they play.

    Why the chain is kept in pieces: in a clean session it is one trusted anchor (the
    last recorded balance) and the nets since, so the fast path (``_plain_seat``) keeps
    those three amounts (``anchor``, ``since_table``, ``since_ruled``; ``anchor`` None:
    no anchor yet) and ``chain`` builds the :class:`BalanceState` the ledger functions
    take only when the full path asks; any other state is kept as it is (``_chain``)."""

    __slots__ = ("_antes", "_chain", "_ledger", "anchor", "anchor_game", "balance", "booked", "funded", "id",
                 "last_ante", "same", "since_ruled", "since_table", "stake")

    def __init__(self, player_id: str, opening: Decimal | None) -> None:
        self.id = player_id
        start = opening if opening is not None else ZERO
        self._ledger = Ledger(opening_balance=start, closing_balance=start)
        #: Seats the fast path booked and the ledger has not taken yet, by their sums (``_Book``).
        self.booked: dict[_Book, int] = {}
        self.balance = start
        self._chain: BalanceState | None = None
        self.anchor: Decimal | None = None
        #: The game whose recorded balance ``anchor`` is (None: the opening balance).
        self.anchor_game: str | None = None
        self.since_table: Decimal = ZERO
        self.since_ruled: Decimal = ZERO
        self.chain = ledger_opening(opening)
        self._antes: dict[Decimal, int] = {}
        #: Seats at the player's stake that ``_antes`` has not counted yet (the fast path's).
        self.same = 0
        self.stake: Decimal | None = None
        #: The Ante of the player's last seat whose stakes were checked (a change is found once).
        self.last_ante: Decimal | None = None
        self.funded = opening is not None

    @property
    def antes(self) -> dict[Decimal, int]:
        """How many seats the player played at each Ante (:func:`ledger.stake_check`)."""
        if self.same:
            assert self.stake is not None
            self._antes[self.stake] += self.same
            self.same = 0
        return self._antes

    @property
    def ledger(self) -> Ledger:
        """The player's ledger, with the seats the fast path booked."""
        if self.booked:
            ledger = self._ledger
            for book, count in self.booked.items():
                book.add(ledger, count)
            self.booked = {}
        return self._ledger

    @property
    def chain(self) -> BalanceState:
        if self._chain is not None:
            return self._chain
        if self.anchor is None:
            return BalanceState()
        return BalanceState((Anchor(self.anchor, self.since_table, self.since_ruled, game=self.anchor_game),))

    @chain.setter
    def chain(self, state: BalanceState) -> None:
        anchors = state.anchors
        if not anchors:
            self._chain, self.anchor = None, None
            return
        first = anchors[0]
        if (len(anchors) == 1 and first.trusted and first.round is None and first.table is not None
                and first.ruled is not None):
            self._chain, self.anchor, self.since_table, self.since_ruled = None, first.balance, first.table, first.ruled
            self.anchor_game = first.game
        else:
            self._chain = state


def totals_of(ruling: Ruling) -> tuple[Decimal, Decimal, Decimal]:
    """(net, staked, returned): each a sum over the ruling's lines, so worth keeping."""
    net, staked = ruling.net, ruling.staked
    return net, staked, staked + net


def book(ledger: Ledger, seat: SeatResult) -> None:
    """Add a seat to a ledger (the player's, or the session's where a seat is a round)."""
    ruling = seat.ruling
    if ruling is None and not seat.cancelled:
        ledger.invalid_rounds += 1
        return
    outcome = seat.outcome or "void"
    ledger.outcomes[outcome] = ledger.outcomes.get(outcome, 0) + 1
    if ruling is None or ruling.outcome == "void":
        ledger.void_rounds += 1
    else:
        ledger.counted_rounds += 1
        net, staked, returned = seat.totals or totals_of(ruling)
        ledger.staked += staked
        ledger.returned += returned
        ledger.net += net
    recorded = seat.record.recorded if seat.record is not None else None
    if recorded is not None:
        ledger.add_recorded(recorded.net, recorded.balance)


# ----------------------------------------------------------------------------- the audit

@dataclass(slots=True)
class _SeatBalance:
    """A seat's part in its player's balance chain, judged at once or, for a game that
    may be the early one of two swapped games, once the next game's number says; and
    where a finding of it goes among the seat's own findings and the session's."""

    player: _Player
    table_net: Decimal | None  # None: a void or cancelled game the table paid, how much not recorded
    ruled_net: Decimal | None  # None: a seat that cannot be read
    recorded: Decimal | None
    #: A void or cancelled game the table paid (V001, G003): the anchors before stay beside.
    settled_void: bool
    emit: _Emit
    at_seat: int
    at_session: int
    #: Of a further record of the held game (``held_more``): after its number finding.
    more: bool = False


class _Emit:
    """Adds findings about one seat or one game, with the line of the field."""

    __slots__ = ("audit", "data", "drop", "findings", "game", "line", "player", "prefix")

    def __init__(self, audit: TableAudit, findings: list[Finding], data: Any, line: int, game: str | None,
                 player: str | None, drop: tuple[FindingCode, ...] = ()) -> None:
        self.audit = audit
        self.findings = findings
        self.data = data
        self.line = line
        self.game = game
        self.player = player
        self.drop = drop
        self.prefix = _where(game, player)

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        if code in self.drop:
            return
        line = line_at(self.data, tuple(field.split(".")), self.line) if field else self.line
        self.add(Finding(code, self.prefix + message, self.audit.file, line, None, field or None,
                         plain(expected), plain(recorded)))

    def add(self, finding: Finding) -> None:
        finding.game = self.game
        finding.player = self.player
        self.findings.append(self.audit._add(finding))


def _where(game: str | None, player: str | None) -> str:
    parts = [f"game {game}" if game is not None else "game ?"]
    if player is not None:
        parts.append(f"player {player}")
    return ", ".join(parts) + ": "


class _OpenGame:
    """A game being read: its record, and its seats as they come: (the seat as read, its
    line, and for a plain seat its line's record and its place there, -1 for a seat line)."""

    __slots__ = ("id", "line", "record", "result", "seats")

    def __init__(self, record: GameRecord, game_id: str | None, result: GameResult) -> None:
        self.record = record
        self.line = record.line
        self.id = game_id
        self.result = result
        self.seats: list[tuple[Any, int, PlainGameRecord | PlainSeatRecord | None, int]] = []

    @property
    def data(self) -> Any:
        return self.record.data

    @property
    def plain(self) -> Any:
        """The game line's struct, when it was read plain."""
        return self.record.plain if isinstance(self.record, PlainGameRecord) else None


class TableAudit(SessionOpening[TableSession]):
    """The running state of one format-2 session."""

    def __init__(self, record: SessionRecord, options: Any) -> None:
        err = self._open(record, options.profile, self._validate_header)
        if err is not None:
            self._profile_failed(err, record)
        header = self.header
        self.info = TableSessionInfo(
            self.id, self.file, record.line, self.loaded.profile.name if self.loaded else None,
            self.loaded.origin if self.loaded else None, self.loaded.sha256 if self.loaded else None, record.index,
            table=header.table if header else None, currency=header.currency if header else None)
        self.openings: dict[str, Decimal] = dict(header.opening_balances or {}) if header else {}
        self.players: dict[str, _Player] = {}
        self.ledger = Ledger()
        self.counts = GameCounts()
        self.open: _OpenGame | None = None
        self.numbering = Numbering()
        self.held: Held[GameResult] | None = None
        self.released: list[GameResult] = []
        #: The open game's number, read before its seats: (number or None, the held game
        #: was the one it swapped with, it may itself be the early one of two swapped).
        self.numbered: tuple[int | None, bool, bool] = (None, False, False)
        #: The seats' balances of a held game that may be the early one of two swapped
        #: games, judged once the next game's number says (as format 1's ``_Deferred``);
        #: ``after``, a swap found: judged after the late game's records, every one of them.
        self.deferred: list[_SeatBalance] | None = None
        self.after: list[_SeatBalance] | None = None
        #: Further records of the held game (a game written as two): released with it.
        self.held_more: list[GameResult] = []
        #: Two swapped games, in file order (the early one's records, then the late one's),
        #: kept until a record other than the late game's comes: a second record of the
        #: late game was played before the early game too (``after`` waits for it).
        self.swapped: list[GameResult] = []
        self.late_game: str | None = None
        #: The late game was void: its number while its replay (another game) may come next,
        #: played before the early game too (``late_game`` then names the replay).
        self.late_replay: int | None = None
        #: The number of the early one of two swapped games, while the late one is numbered.
        self.swap_early: HeldNumber | None = None
        #: When the late game was void: the early one's number, whose replay may come once
        #: the late one's has (``_release_swapped``).
        self.unit_early: HeldNumber | None = None
        self.seen_games: set[str] = set()
        #: Each game's players in this session, every record of it: a player seated again
        #: in a second record is a copy of a bet, not settled again.
        self.game_players: dict[str, tuple[str, ...]] = {}
        self.transactions: set[str] = set()
        # The fast path for plain seats (``_plain_seat``): off, on, or verify (audit/fast.py),
        # and the open game's memo of settlements (``_Entry``).
        self.fast = None if fast_mode() == "off" else fast_mode()
        self.memo: dict[Any, _Entry] = {}
        self.books: dict[tuple[Any, ...], _Book] = {}
        self.antes: dict[Decimal, Decimal] = {}
        self.settled: dict[tuple[Any, ...], _Settled] = {}
        self.settle_memo = memo_for(self.loaded.profile, self.loaded.origin, self.loaded.sha256, SettleMemo) \
            if self.fast and self.loaded else None

    def _validate_header(self, record: SessionRecord) -> TableSession | None:
        try:
            return TableSession.model_validate(record.data)
        except ValidationError as err:
            for finding in _validation_findings(err, record.data, self.file, record.line,
                                                TABLE_SESSION_FIELDS, "session"):
                self._add(finding)
            return None

    # -- records in

    def take(self, record: Record) -> Iterator[GameResult]:
        """A game, a seat line, or a record that has no place in a format-2 session."""
        if isinstance(record, GameRecord):
            yield from self.flush()
            self._open_game(record)
        elif isinstance(record, SeatRecord):
            self._seat_line(record)
        elif isinstance(record, RoundRecord):
            self._add(Finding(codes.H007, "a format-1 round in a format-2 session (games and seats): not audited",
                              record.source, record.line))

    def flush(self) -> Iterator[GameResult]:
        """The open game's result, after the held one it settles (a game that gives no
        number to judge by lets the held game's default verdict stand)."""
        if self.open is not None:
            game, self.open = self.open, None
            result = self._finish(game)
            held = self.held
            waiting = any(r is result for r in self.swapped) or (
                held is not None and (held.result is result or any(r is result for r in self.held_more)))
            if not waiting:
                self._release_swapped()  # a game that gave no number (unreadable) follows the late one
                if self.held is not None:
                    self._settle(None)
            out, self.released = self.released, []
            yield from out
            if not waiting:
                yield result

    def close(self) -> Iterator[GameResult | TableSessionResult]:
        yield from self.flush()
        self._release_swapped()
        self._settle(None)
        out, self.released = self.released, []
        yield from out
        self.ledger.opening_balance = sum((p.ledger.opening_balance for p in self.players.values()), ZERO)
        self.ledger.closing_balance = sum((p.ledger.closing_balance for p in self.players.values()), ZERO)
        # The table's recorded closing balance is its players' (seats kept the last seat's:
        # unknown, not that, when a player recorded none).
        recorded = [p.ledger.recorded_closing_balance for p in self.players.values()]
        self.ledger.recorded_closing_balance = (sum((r for r in recorded if r is not None), ZERO)
                                                if recorded and all(r is not None for r in recorded) else None)
        players = [PlayerLedger(p.id, p.ledger) for p in self.players.values()]
        yield TableSessionResult(self.info, self.ledger, self.findings, players, self.counts)

    def _open_game(self, record: GameRecord) -> None:
        table = self.header.table if self.header else None
        if isinstance(record, PlainGameRecord):
            plain = record.plain
            plain_id = str(plain.game)
            game = _OpenGame(record, plain_id, GameResult(plain_id, None, record.source, record.line, self.id,
                                                          table=table))
            if plain.seats is not UNSET:
                line = record.line
                game.seats = [(item, line, record, i) for i, item in enumerate(plain.seats)]
            self.open = game
            return
        data = record.data
        raw_id = data.get("game") if isinstance(data, dict) else None
        game_id = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else None
        result = GameResult(game_id, None, record.source, record.line, self.id, table=table)
        game = _OpenGame(record, game_id, result)
        if isinstance(data, dict) and isinstance(data.get("seats"), list):
            for item in data["seats"]:
                game.seats.append((item, item.line if isinstance(item, LineDict) and item.line else record.line,
                                   None, 0))
        self.open = game

    def _seat_line(self, record: SeatRecord) -> None:
        if isinstance(record, PlainSeatRecord):
            game_id: str | None = str(record.plain.game)
            if self.open is not None and game_id == self.open.id:
                self.open.seats.append((record.plain.seat, record.line, record, -1))
                return
        data = record.data
        raw_id = data.get("game")
        game_id = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else None
        if self.open is None or game_id is None or game_id != self.open.id:
            after = f" (the game read last is {self.open.id})" if self.open is not None else ""
            self._add(Finding(codes.H007, f"a seat line of game {game_id} that does not follow its game's line{after}",
                              record.source, record.line, game=game_id))
            return
        extra = [k for k in data if k not in ("game", "seat")]
        if extra:
            self._add(Finding(codes.H002, f"unknown key {extra[0]!r} beside 'game' and 'seat' in a seat line",
                              record.source, record.line, game=game_id))
        self.open.seats.append((data.get("seat"), record.line, None, 0))

    # -- one game

    def _finish(self, game: _OpenGame) -> GameResult:
        if self.fast == "verify" and any(source is not None for _, _, source, _ in game.seats):
            return self._verified(game)
        return self._finish_game(game)

    def _verified(self, game: _OpenGame) -> GameResult:
        """``REFEREE_FAST=verify``: the game audited both ways, from copies of one state,
        which must agree on the game's report and on everything the session keeps."""
        from ..report.table import game_dict
        from ..rules.money import dumps

        shadow, shadow_game = copy.deepcopy((self, game))
        shadow.fast = None
        result = self._finish_game(game)
        full = shadow._finish_game(shadow_game)
        ours, theirs = dumps(game_dict(result)), dumps(game_dict(full))
        if ours != theirs:
            raise FastPathMismatch(f"game {result.game}: the fast path reports {ours}, the full path {theirs}")
        if self._state() != shadow._state():
            raise FastPathMismatch(f"game {result.game}: the fast path leaves {self._state()}, "
                                   f"the full path {shadow._state()}")
        return result

    def _state(self) -> tuple[Any, ...]:
        """What the session keeps between games (compared under ``verify``)."""
        players = [(p.id, p.balance, p.chain, p.antes, p.stake, p.last_ante, p.funded, p.ledger)
                   for p in self.players.values()]
        return (players, self.ledger, self.counts, self.transactions, self.seen_games, self.numbering,
                self.findings, len(self.released),
                self.held is not None, None if self.deferred is None else len(self.deferred), len(self.held_more),
                None if self.after is None else len(self.after), len(self.swapped))

    def _finish_game(self, game: _OpenGame) -> GameResult:
        result = game.result
        model = self._plain_game(game) if game.plain is not None and self.fast else None
        data = None if model is not None else game.data
        if model is None:
            model = self._game_model(game, data, result)
        profile = self.profile
        if model is not None and profile is not None:
            self._number_first(model, result)
        # The fast path (``_plain_seat``) takes the plain seats of a settled game with a shared hand
        # (not those of a game that may be the early one of two swapped: their balances wait).
        fast = (self.fast is not None and model is not None and profile is not None and model.status == "settled"
                and model.player is not None and not self.numbered[2])
        items, seated, rulings, taken = game.seats, set[str](), None, 0
        # Players seated in an earlier record of this game in this session: a second seat of
        # theirs is a copy, not settled again (its G002 is the parent's, GameIndex).
        earlier = set(self.game_players.get(game.id, ())) if game.id is not None else set()
        if fast:
            assert model is not None and profile is not None
            rulings = _Rulings(profile, model, self.settle_memo)
            taken = self._plain_run(game.seats, profile, rulings, result, seated, earlier)
            items = items[taken:]
        seats = self._validate_seats(game, result, fast, items, seated, earlier)
        if model is not None and profile is not None:
            result.record = model
            result.number = model.round
            result.status = model.status
            result.cards = (*canonical(model.player), *canonical(model.flop), *canonical([model.turn]),
                            *canonical([model.river]), *canonical(model.dealer))
            self._rule_game(model, data, profile, seats, result, rulings)
        else:
            for seat, _ in seats:
                if seat.player_id is not None:
                    self._player(seat.player_id)
        for seat in result.seats[taken:] if taken else result.seats:
            if type(seat) is PlainSeat and seat.entry is not None:
                self._book_plain(seat, seat.entry)
            else:
                self._book(seat)
        if self.memo:
            self._book_entries(self.memo.values())
            self.memo = {}
        self.counts.add(result)
        if game.id is not None:
            ids = tuple(seat.player_id for seat in result.seats if seat.player_id is not None)
            known = self.game_players.get(game.id)
            self.game_players[game.id] = ids if known is None else (*known, *ids)
        return result

    def _game_model(self, game: _OpenGame, data: Any, result: GameResult) -> Game | None:
        """The game's model, or None with its findings."""
        if not isinstance(data, dict):
            _Emit(self, result.findings, data, game.line, game.id, None)(
                codes.H001, "a game is a mapping", "", None, None)
            return None
        try:
            return Game.model_validate({k: v for k, v in data.items() if k != "seats"})
        except ValidationError as err:
            emit = _Emit(self, result.findings, data, game.line, game.id, None)
            for finding in _validation_findings(err, data, self.file, game.line, GAME_FIELDS):
                finding.message = emit.prefix + finding.message
                emit.add(finding)
            return None

    def _plain_game(self, game: _OpenGame) -> Game | None:
        """The model of a plain game line, validated from its struct (the values the
        general reader would give); None when it is not valid (the full path says why)."""
        plain = game.plain
        fields = {name: value for name, value in zip(_PLAIN_GAME_FIELDS, astuple(plain), strict=True)
                  if value is not UNSET and name != "seats"}
        try:
            model = Game.model_validate(fields)
        except ValidationError:
            return None
        if self.fast == "verify":
            data = game.data
            full = Game.model_validate({k: v for k, v in data.items() if k != "seats"})
            if full != model or full.model_fields_set != model.model_fields_set:
                raise FastPathMismatch(f"plain game {model!r} differs from validation {full!r}")
        return model

    def _plain_run(self, items: list[tuple[Any, int, PlainGameRecord | PlainSeatRecord | None, int]],
                   profile: Profile, rulings: _Rulings, result: GameResult, seated: set[str],
                   earlier: set[str]) -> int:
        """The game's seats from the first on, while each is plain and taken by the fast
        path: validated, audited and booked in one pass. The full path's three passes
        (validate every seat, audit every seat, book every seat) differ from this only in
        the order of findings, and these seats have none; the seats from the first one
        not taken go through the three passes. Returns how many seats were taken."""
        file, memo, seats, plain_seat, book = self.file, self.memo, result.seats, self._plain_seat, self._book_plain
        taken = 0
        for item, line, source, index in items:
            if source is None or (source.decimals and not _decimals_plain(item)):
                break
            raw_id = item.player_id
            player_id = raw_id if type(raw_id) is str else str(raw_id)
            if player_id in seated or player_id in earlier:
                break
            seat = PlainSeat(player_id, file, line, item, source, index)
            if not plain_seat(seat, item, profile, rulings, memo):
                break
            seats.append(seat)
            seated.add(player_id)
            book(seat, seat.entry)  # type: ignore[arg-type]
            taken += 1
        return taken

    def _validate_seats(self, game: _OpenGame, result: GameResult, fast: bool,
                        items: list[tuple[Any, int, PlainGameRecord | PlainSeatRecord | None, int]],
                        seated: set[str], earlier: set[str]) -> list[tuple[SeatResult, Any]]:
        """Each seat's model (a finding for an invalid seat or a player seated twice).
        A plain seat taken by the fast path keeps its struct: its ``data`` is None here.
        A player seated in an earlier record of the game (``earlier``) is not settled again."""
        seats: list[tuple[SeatResult, Any]] = []
        for item, line, source, index in items:
            if fast and source is not None and (not source.decimals or _decimals_plain(item)):
                raw_id = item.player_id
                player_id = raw_id if type(raw_id) is str else str(raw_id)
                self._player(player_id)  # players are made in seat order, whichever path takes the seat
                plain = PlainSeat(player_id, self.file, line, item, source, index)
                result.seats.append(plain)
                if player_id in seated:
                    _Emit(self, plain.findings, plain.data(), line, game.id, player_id)(
                        codes.G002, f"seated twice in game {game.id}: this seat is not settled again", "player_id",
                        None, player_id)
                    plain.record = None
                    continue
                seated.add(player_id)
                if player_id in earlier:  # a copy: the full path rules it, nothing settles it
                    plain.copy = True
                    seats.append((plain, plain.data()))
                    continue
                seats.append((plain, None))
                continue
            data = item if source is None else _seat_data(source, index)
            raw = data.get("player_id") if isinstance(data, dict) else None
            player = str(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
            if player is not None:
                self._player(player)
            seat = SeatResult(player, self.file, line)
            result.seats.append(seat)
            emit = _Emit(self, seat.findings, data, line, game.id, player)
            try:
                seat.record = Seat.model_validate(data)
            except ValidationError as err:
                for finding in _validation_findings(err, data, self.file, line, SEAT_FIELDS):
                    finding.message = emit.prefix + finding.message
                    emit.add(finding)
                if player is not None and player not in seated:
                    self._unreadable_seat(player, data, emit)
                continue
            if player in seated:
                emit(codes.G002, f"seated twice in game {game.id}: this seat is not settled again", "player_id",
                     None, player)
                seat.record = None
                continue
            seated.add(seat.record.player_id)
            seat.copy = seat.record.player_id in earlier
            seats.append((seat, data))
        return seats

    def _rule_game(self, model: Game, data: Any, profile: Profile, seats: list[tuple[SeatResult, Any]],
                   result: GameResult, rulings: _Rulings | None = None) -> None:
        game_emit = _Emit(self, result.findings, data, result.line, result.game, None)
        if model.status == "cancelled":
            result.outcome = "cancelled"
            for seat, data in seats:
                seat.cancelled = True
                self._audit_seat(seat, data, profile, None, result)
            self._number(model, False, game_emit, result)
            return
        per_seat = model.player is None
        if rulings is None:
            rulings = _Rulings(profile, model)
        whole_void = self._cross_seat_duplicates(model, seats) if per_seat else None
        memo = self.memo
        for seat, data in seats:
            if data is None:  # a plain seat (shared hand, settled game): the fast path, when it can
                assert isinstance(seat, PlainSeat)
                if self._plain_seat(seat, seat.plain, profile, rulings, memo):
                    continue
                data = seat.data()
            record = seat.record
            assert record is not None
            if not per_seat and record.player is not None:
                _Emit(self, seat.findings, data, seat.line, result.game, seat.player_id)(
                    codes.H001, "the seat has its own cards at a game with a shared hand; not ruled", "player",
                    None, None)
                continue
            if whole_void is not None:
                call = record.ante * profile.call_multiple if record.decision == "call" else ZERO
                seat.ruling = void_ruling(whole_void, record.ante, call, record.bonus)
                seat.totals = totals_of(seat.ruling)
            else:
                seat.ruling, seat.totals = rulings.seat(record)
            self._audit_seat(seat, data, profile, seat.ruling, result, game_void=whole_void is not None
                             or (not per_seat and rulings.shared_void))
        self._describe(result, rulings, whole_void, per_seat)
        void = result.outcome == "void"
        if void and (whole_void is not None or not per_seat):
            game_emit(codes.V003, f"void deal: {result.void_reason}; stakes returned, game not counted (§07)",
                      "", None, None)
        self._number(model, void, game_emit, result)

    def _describe(self, result: GameResult, rulings: _Rulings, whole_void: str | None, per_seat: bool) -> None:
        """The game's own line of the report: its outcome and hands, when one deal says them."""
        if whole_void is not None:
            result.outcome, result.void_reason = "void", whole_void
            return
        unit = rulings.reference()
        if unit is None:
            return
        if unit.outcome == "void":
            if not per_seat:
                result.outcome, result.void_reason = "void", unit.void_reason
            return
        result.dealer_hand, result.dealer_qualified = unit.dealer_hand, unit.dealer_qualified
        if not per_seat:
            result.player_hand = unit.player_hand
            result.outcome = unit.outcome if unit.outcome != "fold" else None

    def _cross_seat_duplicates(self, model: Game, seats: list[tuple[SeatResult, Any]]) -> str | None:
        """With a hand per seat, the same card in two places anywhere in the game voids it."""
        seen: dict[Any, str] = {}
        groups: list[tuple[str, Iterable[object]]] = [
            ("flop", model.flop or ()), ("turn", [model.turn]), ("river", [model.river]),
            ("dealer", model.dealer or ())]
        groups += [(f"player {s.player_id}", s.record.player or ()) for s, _ in seats if s.record is not None]
        for label, tokens in groups:
            for _, card in seen_cards(tokens):
                if card in seen and seen[card] != label:
                    return f"{card} is dealt twice ({seen[card]} and {label})"
                seen.setdefault(card, label)
        return None

    def _audit_seat(self, seat: SeatResult, data: Any, profile: Profile, ruling: Ruling | None,
                    game: GameResult, game_void: bool = False) -> None:
        record = seat.record
        assert record is not None and seat.player_id is not None
        player = self._player(seat.player_id)
        if seat.copy:  # the bet of an earlier record, written again: ruled, not settled again
            seat.balance = player.balance
            seat.recorded_balance = record.recorded.balance if record.recorded else None
            return
        emit = _Emit(self, seat.findings, data, seat.line, game.game, seat.player_id,
                     drop=(codes.V003,) if game_void else ())
        self._check_stakes(record, profile, player, emit)
        if ruling is None:
            self._check_cancelled(record, emit)
        else:
            compare_record(_AsRound(record.recorded), ruling, emit)  # type: ignore[arg-type]
        net, staked, returned = seat.totals or (ZERO, stakes_of(record, profile), ZERO)
        refunded = ruling is None or ruling.outcome == "void"
        if record.wallet is not None:
            self._check_wallet(record, staked, ZERO if refunded else returned, refunded, emit)
        paid = refunded and (recorded_as_paid(record.recorded) if ruling is None else settled_as_valid(record.recorded))
        self._check_balance(record, net, refunded, player, emit, paid)
        seat.balance = player.balance
        seat.recorded_balance = record.recorded.balance if record.recorded else None

    def _check_stakes(self, seat: Seat, profile: Profile, player: _Player, emit: _Emit) -> None:
        check_stake_units(seat.ante, seat.bonus, seat.call, profile.stake_increment, emit)
        if seat.call is not None and seat.call != seat.ante * profile.call_multiple:
            emit(codes.S001, f"Call stake {fmt(seat.call)} is not {fmt(profile.call_multiple)} × Ante "
                 f"{fmt(seat.ante)}", "call", seat.ante * profile.call_multiple, seat.call)
        if profile.fixed_stakes:
            player.stake, odd = stake_check(player.antes, player.stake, seat.ante, player.last_ante)
            player.last_ante = seat.ante
            if odd is not None:
                emit(codes.S002, f"Ante {fmt(seat.ante)} differs from the player's {fmt(odd)} in this session; "
                     f"profile {profile.name} fixes stakes", "ante", odd, seat.ante)
        if seat.bonus and profile.bonus is None:
            emit(codes.S006, f"bonus stake {fmt(seat.bonus)} under profile {profile.name}, which has no bonus; "
                 "it is returned", "bonus", ZERO, seat.bonus)
        if profile.call_requires_funds and seat.decision == "call" and player.funded:
            needed = seat.ante + seat.bonus + seat.ante * profile.call_multiple
            if player.balance < needed:
                emit(codes.S007, f"the call needs {fmt(needed)} in stakes but the balance is {fmt(player.balance)}",
                     "decision", needed, player.balance)

    def _check_cancelled(self, seat: Seat, emit: _Emit) -> None:
        recorded = seat.recorded
        if recorded is None:
            return
        paid = [name for name in ("ante", "call", "bonus", "net") if getattr(recorded, name)]
        if recorded_as_paid(recorded):
            said = recorded.outcome or f"{paid[0]} {fmt(getattr(recorded, paid[0]))}"
            emit(codes.G003, f"the game was cancelled but the seat is recorded as settled ({said}): every stake is "
                 "refunded", "recorded", "cancelled", "settled")

    def _check_wallet(self, seat: Seat, staked: Decimal, returned: Decimal, refunded: bool, emit: _Emit) -> None:
        moves = seat.wallet or []
        totals = {"debit": ZERO, "credit": ZERO, "cancel": ZERO, "refund": ZERO}
        for move in moves:
            totals[move.kind] += move.amount
            if move.id in self.transactions:
                emit(codes.W004, f"wallet transaction {move.id} is used twice in this session", "wallet", None, move.id)
            self.transactions.add(move.id)
        if totals["debit"] != staked:
            emit(codes.W001, f"wallet debits {fmt(totals['debit'])}, the stakes placed are {fmt(staked)}", "wallet",
                 staked, totals["debit"])
        if totals["credit"] != returned:
            why = "a void or cancelled game pays nothing" if refunded else "what the rules return"
            emit(codes.W002, f"wallet credits {fmt(totals['credit'])}, expected {fmt(returned)} ({why})", "wallet",
                 returned, totals["credit"])
        back = totals["cancel"] + totals["refund"]
        expected = staked if refunded else ZERO
        if back != expected:
            why = "a void or cancelled game refunds every stake" if refunded else "the game was settled"
            emit(codes.W003, f"wallet cancels and refunds {fmt(back)}, expected {fmt(expected)} ({why})", "wallet",
                 expected, back)

    def _check_balance(self, seat: Seat, net: Decimal, void: bool, player: _Player, emit: _Emit,
                       paid: bool = False) -> None:
        """The player's chains (``docs/ledger.md``): a recorded balance is right when it
        follows from the last recorded one by the table's nets or by the rules'. ``paid``:
        a void or cancelled game the table settled (V001, G003): without a recorded net,
        what it paid is unknown and the balance is not judged."""
        recorded = seat.recorded
        player.balance += net
        table_net: Decimal | None = net
        if recorded is not None and recorded.net is not None:
            table_net = recorded.net
        elif paid:
            table_net = None
        elif void:
            table_net = ZERO
        work = _SeatBalance(player, table_net, net, recorded.balance if recorded is not None else None,
                            void and table_net != net, emit, len(emit.findings), len(self.findings))
        self._chain_seat(work)

    def _chain_seat(self, work: _SeatBalance) -> None:
        """A seat's balance judged now, or later when its game may be the early one of two
        swapped games."""
        if self.numbered[2]:
            assert self.deferred is not None
            work.more = self.held is not None  # the held game's number finding goes before this one
            self.deferred.append(work)
        else:
            self._judge_balance(work)

    def _unreadable_seat(self, player_id: str, data: Any, emit: _Emit) -> None:
        """A seat that cannot be read (its own finding says why), as an unrulable round in
        format 1 (docs/ledger.md): the rules' chain loses the seat's net, the table's keeps
        a readable one, and a readable recorded balance anchors the chain unchecked; the
        player's next balance is then judged from it, not from before."""
        from .checker import unruled_nets

        table_net, balance = unruled_nets(data.get("recorded") if isinstance(data, dict) else None)
        work = _SeatBalance(self._player(player_id), table_net, None, balance, False, emit, len(emit.findings),
                            len(self.findings))
        self._chain_seat(work)

    def _judge_balance(self, work: _SeatBalance, shift: int = 0) -> bool:
        """A seat's nets on its player's chain, and its recorded balance judged on it (a
        P005 put where it would have gone, judged at once, ``shift`` places on for those
        put before it); whether there was one."""
        player = work.player
        player.chain = advance(player.chain, work.table_net, work.ruled_net)
        if work.recorded is None:
            return False
        # unchecked: what a void or cancelled game the table paid was paid, or an unreadable seat's net
        checkable = work.table_net is not None and work.ruled_net is not None
        broken = judge(player.chain, work.recorded) if checkable else None
        if broken is not None:
            emit = work.emit
            emit(codes.P005, broken.message(), "recorded.balance", broken.expected, work.recorded)
            place_last(emit.findings, work.at_seat, self.findings, work.at_session + shift)
        player.chain = reanchor(player.chain, work.recorded, broken is not None, None, work.emit.game,
                                keep=work.settled_void)
        return broken is not None

    def _judge_balances(self, works: list[_SeatBalance] | None) -> None:
        shift = 0
        for work in works or ():
            shift += self._judge_balance(work, shift)

    # -- the fast path for plain seats

    def _plain_seat(self, seat: PlainSeat, s: Any, profile: Profile, rulings: _Rulings,
                    memo: dict[Any, _Entry]) -> bool:
        """Audit a plain seat of a settled game with a shared hand, or say it cannot be
        (False): the full path then audits it from the same state, as nothing here is
        changed until every check has passed. A seat is taken only when the full audit
        would find nothing: its settlement, stakes and record are judged once per game
        for all seats with the same decision, stakes and record (``_entry``); what is
        the player's own (stake, funds, wallet, balance chain) is checked here."""
        if s.player is not UNSET:
            return False  # its own cards at a shared-hand game: H001
        rec = s.recorded
        key = (s.decision, s.ante, s.bonus, s.call, UNSET if rec is UNSET else astuple(rec)[:-1])
        entry = memo.get(key)
        if entry is None:
            entry = memo[key] = self._entry(s, key, profile, rulings)
        settled = entry.settled
        ok, ante, fixed, needed, staked, returned, net, table_net = settled.fast
        if not ok:
            return False
        player_id: str = seat.player_id  # type: ignore[assignment]
        player = self.players.get(player_id) or self._player(player_id)
        stake = player.stake
        if fixed and stake is not None and ante is not stake and ante != stake:
            antes = player.antes
            if antes.get(ante, 0) + 1 <= antes[stake]:
                return False  # S002
        if needed is not None and player.funded and player.balance < needed:
            return False  # S007
        ids = None
        wallet = s.wallet
        if wallet is not UNSET:
            debit = credit = back = 0
            for move in wallet:
                kind = move.kind
                if kind == "debit":
                    debit += move.amount
                elif kind == "credit":
                    credit += move.amount
                else:
                    back += move.amount
            if debit != staked or credit != returned or back:
                return False
            ids = [move.id for move in wallet]
            if not self.transactions.isdisjoint(ids):
                return False  # W004
        balance = UNSET if rec is UNSET else rec.balance
        anchor = player.anchor
        if balance is not UNSET:
            if player._chain is not None:
                return False  # a chain of several anchors: the full path judges
            if type(balance) is not Decimal:
                balance = Decimal(balance)
            if (anchor is not None and anchor + (player.since_table + table_net) != balance
                    and anchor + (player.since_ruled + net) != balance):
                return False  # P005
        # Every check passed: the seat's effects, as the full path has them.
        if ids is not None:
            transactions = self.transactions
            before = len(transactions)
            transactions.update(ids)
            if len(transactions) - before != len(ids):  # an id twice in the seat: W004
                transactions.difference_update(ids)  # none was there before (isdisjoint)
                return False
        if fixed:
            if stake is not None and (ante is stake or ante == stake):
                player.same += 1
            else:
                counts = player.antes
                counts[ante] = counts.get(ante, 0) + 1
                if stake is None or counts[ante] > counts[stake]:
                    player.stake = ante
            player.last_ante = ante
        player.balance += net
        if balance is not UNSET:
            player.anchor, player.since_table, player.since_ruled = balance, ZERO, ZERO
            player.anchor_game = rulings.model.game
            seat.recorded_balance = balance
        else:
            seat.recorded_balance = None
            if player._chain is not None:
                player.chain = advance(player._chain, table_net, net)
            elif anchor is not None:
                player.since_table += table_net
                player.since_ruled += net
        seat.ruling, seat.totals, seat.entry = entry.ruling, settled.totals, entry
        seat.balance = player.balance
        return True

    def _entry(self, s: Any, key: tuple[Any, ...], profile: Profile, rulings: _Rulings) -> _Entry:
        """The game's entry for seats like ``s``: what they share with such seats of
        earlier games dealt alike (the same unit lines, and for a fold the hand folded,
        which ``compare_record`` may read), else made from this seat."""
        unit = rulings.unit(s.decision, None)
        folded = _hand_at_fold(unit) if s.decision == "fold" else None
        shared_key = (id(unit.lines), folded, key)
        settled = self.settled.get(shared_key)
        if settled is not None and settled.unit_lines is unit.lines:
            return _Entry(settled, settled.ruling(unit))
        ruling, settled = _settled(s, profile, rulings, unit, self.books, self.antes)
        if len(self.settled) < MEMO_LIMIT:
            self.settled[shared_key] = settled
        return _Entry(settled, ruling)

    def _book_plain(self, seat: PlainSeat, entry: _Entry) -> None:
        """:func:`book` for a seat the fast path audited: the player's ledger takes it
        when next read (``_Player.booked``), the session's by memo entry (``_book_entries``)."""
        player = self.players[seat.player_id]  # type: ignore[index]
        entry.booked += 1
        booked = player.booked
        book = entry.settled.book
        booked[book] = booked.get(book, 0) + 1
        balance = seat.recorded_balance
        if balance is not None:
            player._ledger.recorded_closing_balance = self.ledger.recorded_closing_balance = balance
        player._ledger.closing_balance = player.balance

    def _book_entries(self, entries: Iterable[_Entry]) -> None:
        """The session's ledger gains the seats each memo entry booked, at once."""
        for entry in entries:
            if entry.booked:
                entry.settled.book.add(self.ledger, entry.booked)

    def _number_first(self, model: Game, result: GameResult) -> None:
        """Before the game's seats: the held game settled by this game's number (a second
        record of a game has none), and whether this game may be the early one of two
        swapped games (``k+1`` where ``k`` was expected, ``ledger.swapped``), whose seats'
        balances then wait for the next game's number."""
        assert result.game is not None
        again = result.game in self.seen_games
        self.seen_games.add(result.game)
        if self.late_game is not None:
            if again and result.game == self.late_game:
                # a second record of the late one of two swapped games: played before the early one too
                self.numbered = (None, False, False)
                self.swapped.append(result)
                return
            if not again and self.late_replay is not None and model.round == self.late_replay:
                # the late game was void and this is its replay: the early game's balances after it
                self.late_game = result.game
                self.numbered = (model.round, False, False)
                self.swapped.append(result)
                return
            self._release_swapped()
        if again and self.held is not None and self.held.result.game == result.game:
            # a second record of the held game: it waits with it, its seats' balances with the first's
            self.numbered = (None, False, self.deferred is not None)
            self.held_more.append(result)
            return
        n = None if again else model.round
        self.swap_early = early_number = self._settle(n)
        swap = early_number is not None
        if swap:
            self.late_game = result.game
            self.swapped.append(result)
        state = self.numbering
        assert state.used is not None
        early = (n is not None and not swap and n == state.accept[0] + 1 and n not in state.accept
                 and n != state.replay and n not in state.used)
        self.numbered = (n, swap, early)
        self.deferred = [] if early else None

    def _number(self, model: Game, void: bool, emit: _Emit, result: GameResult) -> None:
        """The table's sequence, when recorded (read by :meth:`_number_first`). A number
        that is off is held until the next game's number is seen, as in format 1
        (ledger.number_or_hold): one mistyped number is one finding; two swapped games
        are one ``S009``, on the late one, their balances judged in play order."""
        n, swap, early = self.numbered
        self.numbered = (None, False, False)
        if n is not None:
            found, held = number_or_hold(self.numbering, n, False, void)
            if swap and held is not None:  # the late one of two swapped games: out of order, whatever follows
                found, held = held.default, None
            if swap and self.swap_early is not None:
                if void:  # the late game's replay comes first: the early one's may come after it
                    self.unit_early = self.swap_early
                else:
                    replay_after_swap(self.numbering, self.swap_early)
            if self.late_game == result.game:  # the late one of two swapped games, or its replay
                self.late_replay = n if void else None
                if held is not None:  # never held: it is released with the swapped games
                    found, held = held.default, None
            if found is not None:
                emit(found.code, found.message, "round", found.expected, n)
            if held is not None:
                self.held = Held(held, result, emit, len(result.findings), len(self.findings))
        if early and (self.held is None or self.held.result.game != result.game):  # not held after all: judged now
            deferred, self.deferred = self.deferred, None
            self._judge_balances(deferred)

    def _settle(self, following: int | None) -> HeldNumber | None:
        """The held game's finding, put where its number finding would have gone. Its
        seats' deferred balances are judged now, or, when this game is the one it was
        swapped with, after every record of this game (the players' chains in play order):
        then the held game's number (the early one of two swapped) is returned."""
        if self.held is None:
            return None
        held, self.held = self.held, None
        swap = swapped(held.number, following)
        before = len(self.findings)
        records = [release_held(held, self.numbering, following, self.findings, swap), *self.held_more]
        self.held_more = []
        deferred, self.deferred = self.deferred, None
        if swap:
            self.swapped, self.after = records, deferred
        else:
            self.released.extend(records)
            for work in deferred or ():
                if work.more:  # a further record's seat: the number finding just put before it
                    work.at_session += len(self.findings) - before
            self._judge_balances(deferred)
        return held.number if swap else None

    def _release_swapped(self) -> None:
        """Two swapped games once every record of the late one is read: the early game's
        seats' balances judged (after the late game's, in play order), both released."""
        if self.late_game is None:
            return
        after, self.after, self.late_game, self.late_replay = self.after, None, None, None
        if self.unit_early is not None:  # the early game was played last: a void one's replay may come
            replay_after_swap(self.numbering, self.unit_early)
            self.unit_early = None
        self._judge_balances(after)
        self.released.extend(self.swapped)
        self.swapped = []

    def _player(self, player_id: str) -> _Player:
        player = self.players.get(player_id)
        if player is None:
            player = self.players[player_id] = _Player(player_id, self.openings.get(player_id))
        return player

    def _book(self, seat: SeatResult) -> None:
        if seat.copy:
            return
        book(self.ledger, seat)
        if seat.player_id is not None and seat.record is not None:
            player = self._player(seat.player_id)
            book(player.ledger, seat)
            player.ledger.closing_balance = player.balance


class _Book:
    """What :func:`book` adds to a ledger for a seat the fast path audited; one per
    distinct settlement in a session, so a ledger may take ``count`` such seats at once
    (exact amounts: the same sums as seat by seat)."""

    __slots__ = ("net", "outcome", "recorded_net", "returned", "staked")

    def __init__(self, outcome: str, net: Decimal, staked: Decimal, returned: Decimal,
                 recorded_net: Decimal | None) -> None:
        self.outcome, self.net, self.staked, self.returned, self.recorded_net = (
            outcome, net, staked, returned, recorded_net)

    def add(self, ledger: Ledger, count: int) -> None:
        ledger.outcomes[self.outcome] = ledger.outcomes.get(self.outcome, 0) + count
        ledger.counted_rounds += count
        ledger.staked += self.staked * count
        ledger.returned += self.returned * count
        ledger.net += self.net * count
        if self.recorded_net is not None:
            ledger.recorded_net += self.recorded_net * count
            ledger.recorded_nets += count


class _Settled:
    """What every plain seat with the same settlement (one decision on deals alike: the
    same memoised lines, audit/fast.py), stakes and record (the balance aside) shares,
    in any game of the session: the seat's settlement lines, whether the full audit
    would find anything in its stakes or record (``ok``, from the full path's own
    checks on the first such seat), and the amounts the fast path compares and books.
    ``json`` is the JSON report's middle of the seat's object (report/table.py)."""

    __slots__ = ("bonus", "book", "fast", "json", "lines", "ok", "same", "totals", "unit_lines")

    def __init__(self, unit: Ruling, ruling: Ruling, bonus: bool, totals: tuple[Decimal, Decimal, Decimal], ok: bool,
                 book: _Book, fast: tuple[Any, ...]) -> None:
        #: The unit ruling's lines it was made from, and its own (scaled by the stakes).
        self.unit_lines, self.lines, self.same, self.bonus = unit.lines, ruling.lines, ruling is unit, bonus
        self.ok, self.totals, self.book, self.fast = ok, totals, book, fast
        self.json: str | None = None

    def ruling(self, unit: Ruling) -> Ruling:
        """The seat's ruling in a game whose unit ruling has these lines: ``scaled``'s."""
        if self.same:
            return unit
        return replace(unit, lines=self.lines, bonus_hand=unit.bonus_hand if self.bonus else None)


def _settled(s: Any, profile: Profile, rulings: _Rulings, unit: Ruling, books: dict[tuple[Any, ...], _Book],
             antes: dict[Decimal, Decimal]) -> tuple[Ruling, _Settled]:
    """The seat's ruling in this game and what seats like it share (:class:`_Settled`)."""
    ante = antes.setdefault(_decimal(s.ante), _decimal(s.ante))  # one object per Ante: compared by identity
    bonus = ZERO if s.bonus is UNSET else _decimal(s.bonus)
    call = None if s.call is UNSET else _decimal(s.call)
    recorded = None
    readable = True
    if s.recorded is not UNSET:
        recorded = _plain_recorded({name: value for name, value in zip(_RECORDED_STRUCT_FIELDS, astuple(s.recorded),
                                                                      strict=True) if value is not UNSET})
        readable = recorded is not None
    # What the full path reads of the seat's model, as validation would give it.
    ruling, totals = rulings.seat(_SeatView(s.decision, ante, bonus))  # type: ignore[arg-type]
    net, staked, returned = totals
    found: list[FindingCode] = []

    def collect(code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        found.append(code)

    if ruling.outcome != "void" and readable:
        check_stake_units(ante, bonus, call, profile.stake_increment, collect)
        if call is not None and call != ante * profile.call_multiple:
            found.append(codes.S001)
        if bonus and profile.bonus is None:
            found.append(codes.S006)
        compare_record(_AsRound(recorded), ruling, collect)  # type: ignore[arg-type]
    ok = ruling.outcome != "void" and readable and not found
    needed = ante + bonus + ante * profile.call_multiple \
        if profile.call_requires_funds and s.decision == "call" else None
    recorded_net = recorded.net if recorded is not None else None
    table_net = recorded_net if recorded_net is not None else net
    sums = (ruling.outcome, net, staked, returned, recorded_net)
    book = books.get(sums) or books.setdefault(sums, _Book(*sums))
    fast = (ok, ante, profile.fixed_stakes, needed, staked, returned, net, table_net)
    return ruling, _Settled(unit, ruling, bool(bonus), totals, ok, book, fast)


class _Entry:
    """A settlement of one game's plain seats (:class:`_Settled`), with the game's own
    ruling (its cards and hands) and how many of its seats were booked from it (the
    session's ledger takes them at once)."""

    __slots__ = ("booked", "ruling", "settled")

    def __init__(self, settled: _Settled, ruling: Ruling) -> None:
        self.settled, self.ruling, self.booked = settled, ruling, 0


class _SeatView:
    """What :meth:`_Rulings.seat` reads of a seat (no cards of its own)."""

    __slots__ = ("ante", "bonus", "decision", "player")

    def __init__(self, decision: str, ante: Decimal, bonus: Decimal) -> None:
        self.decision, self.ante, self.bonus, self.player = decision, ante, bonus, None


def _decimal(value: int | Decimal) -> Decimal:
    """An amount as pydantic's Decimal field gives it."""
    return value if type(value) is Decimal else Decimal(value)


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


_PLAIN_GAME_FIELDS = GAME_STRUCT_FIELDS
_RECORDED_STRUCT_FIELDS = RECORDED_STRUCT_FIELDS


class _AsRound:
    """What :func:`compare_record` reads of a round: its ``recorded`` block (a seat's)."""

    __slots__ = ("recorded",)

    def __init__(self, recorded: Recorded | None) -> None:
        self.recorded = recorded


class _UnitDeal:
    """A shared deal at unit stakes, as :meth:`SettleMemo.settle` reads a round."""

    __slots__ = ("ante", "bonus", "dealer", "decision", "flop", "player", "river", "turn")

    def __init__(self, decision: str, game: Game) -> None:
        self.ante, self.bonus, self.decision = ONE, ONE, decision
        self.player, self.flop, self.turn, self.river, self.dealer = (
            game.player, game.flop, game.turn, game.river, game.dealer)


class _Rulings:
    """The rulings of one game: the deal settled once per decision (unit stakes), then
    scaled per seat; with a hand per seat, once per distinct hand and decision."""

    __slots__ = ("cache", "memo", "model", "profile", "seats")

    def __init__(self, profile: Profile, model: Game, memo: SettleMemo | None = None) -> None:
        self.profile = profile
        self.model = model
        self.cache: dict[Any, Ruling] = {}
        self.seats: dict[tuple[Any, ...], tuple[Ruling, tuple[Decimal, Decimal, Decimal]]] = {}
        #: The fast path's memo of settlements (audit/fast.py): a shared deal of nine known,
        #: distinct cards is settled as ``settle`` would, from a deal alike seen before.
        self.memo = memo

    def unit(self, decision: str, player: tuple[str, ...] | None) -> Ruling:
        key = (decision, player)
        ruling = self.cache.get(key)
        if ruling is None:
            m = self.model
            hand = player if player is not None else (m.player or ())
            found = None
            if self.memo is not None and player is None and m.player is not None and m.flop is not None:
                found = self.memo.settle(_UnitDeal(decision, m))  # type: ignore[arg-type]
            if found is None:
                deal = Deal(ONE, hand, m.flop or (), decision, m.turn, m.river, m.dealer, ONE)  # type: ignore[arg-type]
                found = settle(self.profile, deal)
            ruling = self.cache[key] = found
        return ruling

    def seat(self, seat: Seat) -> tuple[Ruling, tuple[Decimal, Decimal, Decimal]]:
        own = tuple(seat.player) if seat.player is not None else None
        key = (seat.decision, own, seat.ante, seat.bonus)
        found = self.seats.get(key)
        if found is None:
            ruling = scaled(self.unit(seat.decision, own), seat.ante, seat.bonus)
            found = self.seats[key] = (ruling, totals_of(ruling))
        return found

    @property
    def shared_void(self) -> bool:
        return any(r.outcome == "void" for r in self.cache.values())

    def reference(self) -> Ruling | None:
        """A ruling that shows the whole deal (a call's, when any seat called)."""
        for (decision, _), ruling in self.cache.items():
            if decision == "call":
                return ruling
        return next(iter(self.cache.values()), None)


# ----------------------------------------------------------------------------- records of one game

_FirstRecord = tuple[tuple[str, ...] | None, set[str] | tuple[str, ...], str, int]


class GameIndex:
    """Every game id of the audit, across sessions and files: a game recorded twice (two
    lines, two files, two exports) must carry the same cards and no player twice.

    Why in the parent: with ``--jobs`` two records of a game may be audited in two
    processes; the parent sees every game in file order, so one-process and parallel
    reports agree. A finding goes to the session being read when the second record
    comes (its game and player ids and line say where).

    The key is (table, game): a game id is unique at its table, so two tables (or two
    sessions naming different tables) may both have a game ``1``; sessions that name no
    table share one scope, as an export's game ids are unique per provider."""

    def __init__(self) -> None:
        #: By key: the cards, the players (a tuple until the game is seen again: most
        #: games never are, and a set of 200 ids a game was most of the parent's work
        #: for this index under --jobs), the file and line of the first record.
        self.games: dict[tuple[str | None, str], _FirstRecord] = {}
        self.pending: list[Finding] = []
        #: The kinds of the second records seen since the session was last settled.
        self.repeats: list[str] = []

    def see(self, fp: GameFingerprint) -> None:
        if fp.game is None:
            return
        key = (fp.table, fp.game)
        known = self.games.get(key)
        if known is None:
            self.games[key] = (fp.cards, fp.players, fp.file, fp.line)
            return
        self.repeats.append(fp.kind)
        cards, seated, file, line = known
        players = seated if isinstance(seated, set) else set(seated)
        self.games[key] = (cards, players, file, line)
        where = f"{file}:{line}"
        if fp.cards is not None and cards is not None and fp.cards != cards:
            self._add(fp, None, codes.G001, f"game {fp.game}: recorded again with other cards: {' '.join(fp.cards)} "
                      f"here, {' '.join(cards)} at {where}", " ".join(cards), " ".join(fp.cards))
        elif cards is None:
            self.games[key] = (fp.cards, players, file, line)
        for player in dict.fromkeys(fp.players):
            if player in players:
                self._add(fp, player, codes.G002, f"game {fp.game}, player {player}: seated again in a second record "
                          f"of the game (first at {where})", None, player)
        players.update(fp.players)

    def _add(self, fp: GameFingerprint, player: str | None, code: FindingCode, message: str, expected: Any,
             recorded: Any) -> None:
        self.pending.append(Finding(code, message, fp.file, fp.line, None, "game" if player is None else "player_id",
                                    expected, recorded, fp.session, game=fp.game, player=player))

    def settle(self, result: SessionResult) -> None:
        """The findings found while this session was read join its findings, and its
        games counted again (second records) are taken out of its game counts."""
        if self.pending:
            result.findings.extend(self.pending)
            self.pending = []
        if isinstance(result, TableSessionResult):
            for kind in self.repeats:
                result.games.uncount(kind)
        self.repeats = []


# ----------------------------------------------------------------------------- formats

def settle_formats(records: Iterable[Record]) -> Iterator[Record]:
    """Give every session its format: a JSON Lines session line says nothing, so the
    first record after it tells (a game or a seat: format 2; anything else: 1)."""
    pending: SessionRecord | None = None
    held: list[Record] = []
    for record in records:
        if pending is None:
            if isinstance(record, SessionRecord) and record.format == 0:
                pending = record
                continue
            yield record
            continue
        if isinstance(record, LoadProblem) and not record.fatal and len(held) < MAX_PENDING:
            held.append(record)
            continue
        pending.format = 2 if isinstance(record, (GameRecord, SeatRecord)) else 1
        yield pending
        yield from held
        pending, held = None, []
        if isinstance(record, SessionRecord) and record.format == 0:
            pending = record
        else:
            yield record
    if pending is not None:
        pending.format = 1
        yield pending
        yield from held


def misplaced(record: GameRecord | SeatRecord) -> Finding:
    """A game or seat record in a format-1 session."""
    return Finding(codes.H007, "a format-2 game or seat in a format-1 session (rounds): not audited", record.source,
                   record.line)

