"""The one shape of an audited game: its deal once, each seat's result, its findings.

Why one shape for both formats: a round of format 1 is, for the rules, a game with one
seat (the session's player, the round's own cards, the round number as the game's
sequence), so the audit makes one :class:`GameResult` whatever the format; a format-1
reader (its reporters, ``explain``, ``recall``) sees it as a :class:`RoundResult`
through :func:`round_view`. The session's format travels on the game (``format``) so a
reporter's payload, made in a worker under ``--jobs``, knows which shape to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..rules.hands import HandValue
from ..rules.profile import Profile
from ..rules.settlement import Ruling
from .fast import MEMO_LIMIT, SHARED_LINES
from .owed import seat_owed
from .results import Finding, Ledger, RoundResult

ZERO = Decimal(0)


@dataclass(slots=True)
class SeatResult:
    """One seat's audit: the seat as validated, its ruling (None when not ruled), findings."""

    player_id: str | None
    file: str
    line: int
    #: The seat's record as validated (a :class:`referee.models.table.Seat`, or the round of
    #: a format-1 game): its stakes, decision, own cards, ``recorded`` and ``wallet``.
    record: Any = None
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
    #: The table recorded the seat's deal void (``void: true`` or ``outcome: void``).
    table_void: bool = False

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


@dataclass(slots=True)
class GameResult:
    """One game's audit: its ruling facts once, each seat's result, the game's own findings."""

    game: str | None
    number: int | None
    file: str
    line: int
    session: str
    #: The format of the session it was read from (1: a round, one seat; 2: a live table).
    format: int = 2
    status: str | None = None
    #: The game as validated (a :class:`referee.models.table.Game`; format 1: the round).
    record: Any = None
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
    #: Format 1: a verbatim copy of the previous record (one S003; not ruled or counted
    #: again), and the first record's result.
    repeated: bool = False
    copy_of: GameResult | None = None
    #: The record as read, when the audit keeps it (``Options.keep_raw``).
    raw: Any = None
    #: An imported game: where its record is in the export (``data[0].games[3]``).
    pointer: str | None = None

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
        if self.outcome == "void":
            return "void"
        if self.format == 2 and not any(seat.ruling is not None for seat in self.seats):
            return "invalid"  # not one seat could be ruled (none listed, or none readable): nothing was counted
        return "counted"


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
    #: Records of a game already recorded (its deal written again, not a new game): said
    #: apart from the games, never counted among them.
    second_records: int = 0

    def add(self, kind: str, seats: int) -> None:
        self.games += 1
        self.seats += seats
        if kind == "counted":  # nearly every game
            self.counted += 1
        else:
            setattr(self, kind, getattr(self, kind) + 1)

    def uncount(self, kind: str) -> None:
        """A second record of a game already counted: its seats stay (they are bets),
        the game does not count twice."""
        self.games -= 1
        self.second_records += 1
        setattr(self, kind, getattr(self, kind) - 1)


def stakes_of(seat: Any, profile: Profile | None, multiple: Decimal | None = None) -> Decimal:
    """Everything a seat put on the table: Ante, Bonus, and the Call when it called."""
    if seat is None:
        return ZERO
    if multiple is None:
        multiple = profile.call_multiple if profile is not None else Decimal(2)
    call = seat.call if seat.call is not None else seat.ante * multiple
    staked: Decimal = seat.ante + seat.bonus + (call if seat.decision == "call" else ZERO)
    return staked


def totals_of(ruling: Ruling) -> tuple[Decimal, Decimal, Decimal]:
    """(net, staked, returned): each a sum over the ruling's lines, so worth keeping."""
    net, staked = ruling.net, ruling.staked
    return net, staked, staked + net


def book(seat: SeatResult, *ledgers: Ledger) -> None:
    """Add a seat to each ledger (the session's, and its player's); its bottom line is
    worked out once for them all."""
    ruling = seat.ruling
    if ruling is None and not seat.cancelled:
        for ledger in ledgers:
            ledger.invalid_rounds += 1
        return
    outcome = seat.outcome or "void"
    void = ruling is None or ruling.outcome == "void"
    net, staked, returned = (ZERO, ZERO, ZERO) if void or ruling is None else (seat.totals or totals_of(ruling))
    owed = seat_owed(seat)
    recorded = seat.record.recorded if seat.record is not None else None
    for ledger in ledgers:
        ledger.outcomes[outcome] = ledger.outcomes.get(outcome, 0) + 1
        if void:
            ledger.void_rounds += 1
        else:
            ledger.counted_rounds += 1
            ledger.staked += staked
            ledger.returned += returned
            ledger.net += net
        if owed is not None:
            ledger.add_owed(owed)
        if recorded is not None:
            ledger.add_recorded(recorded.net, recorded.balance)


class Book:
    """What :func:`book` adds to a ledger for a seat ruled valid whose bottom line owes
    nothing (:func:`seat_book`; the fast lane's seats alike): a ledger may take ``count``
    such seats at once (exact: the same sums seat by seat), so a clean seat is counted,
    not added up, until its ledger is read (``Player.ledger``, ``SessionAudit.session_ledger``)."""

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


#: One :class:`Book` per distinct value (amounts as written): entries that differ only in
#: what a ledger does not count (the hands, the stakes' spelling) share it, so a player's
#: ledger adds each such book once, by count, when read.
_BOOKS: dict[tuple[str, ...], Book] = {}


def book_of(outcome: str, net: Decimal, staked: Decimal, returned: Decimal, recorded_net: Decimal | None) -> Book:
    """The one :class:`Book` of these figures (bounded: past ``MEMO_LIMIT`` a new one)."""
    key = (outcome, str(net), str(staked), str(returned), str(recorded_net))
    book = _BOOKS.get(key)
    if book is None:
        book = Book(outcome, net, staked, returned, recorded_net)
        if len(_BOOKS) < MEMO_LIMIT:
            _BOOKS[key] = book
    return book


def seat_book(seat: SeatResult) -> Book | None:
    """The :class:`Book` of a seat ruled valid that owes nothing (what :func:`book` adds
    of it is then its sums, its recorded net and its recorded balance, which the caller
    sets); None for any other seat (:func:`book` books it). A memoised settlement's seats
    share their books by the recorded net as written."""
    ruling = seat.ruling
    if ruling is None or seat.cancelled or ruling.outcome == "void":
        return None
    owed = seat_owed(seat)
    if owed:
        return None
    recorded = seat.record.recorded if seat.record is not None else None
    recorded_net = recorded.net if recorded is not None else None
    lines = ruling.lines
    key = (id(lines), None if recorded_net is None else str(recorded_net))
    known = _SEAT_BOOKS.get(key)
    if known is not None and SHARED_LINES.get(key[0]) is lines:
        return known
    net, staked, returned = seat.totals or totals_of(ruling)
    found = book_of(ruling.outcome, net, staked, returned, recorded_net)
    if SHARED_LINES.get(key[0]) is lines and len(_SEAT_BOOKS) < MEMO_LIMIT:
        _SEAT_BOOKS[key] = found
    return found


#: The books of memoised settlements' seats, by the settlement's lines (``SHARED_LINES``
#: keeps them alive) and the recorded net as written.
_SEAT_BOOKS: dict[tuple[int, str | None], Book] = {}


def round_view(game: GameResult) -> RoundResult:
    """A game of format 1 (one seat) as the round it is: the round's record, its seat's
    ruling and balances, the game's findings then the seat's (the order they were made)."""
    seat = game.seats[0] if game.seats else None
    if seat is None:
        return RoundResult(game.number, game.file, game.line, game.session, game.record, None, list(game.findings),
                           raw=game.raw, repeated=game.repeated,
                           copy_of=round_view(game.copy_of) if game.copy_of is not None else None)
    return RoundResult(game.number, game.file, game.line, game.session, game.record, seat.ruling,
                       [*game.findings, *seat.findings], seat.balance, seat.recorded_balance, game.raw,
                       game.repeated, seat.table_void,
                       round_view(game.copy_of) if game.copy_of is not None else None)
