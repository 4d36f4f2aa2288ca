"""What the fast lane (:mod:`referee.audit.lane`) makes of a clean game: the entries that
seats alike share (one settlement, its checks decided once, what a ledger books of it,
the reporters' views of it), the clean game and seat tuples the reporters write from,
and the proofs a seat's own facts pass (amounts, words, the balance's anchor).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal, NamedTuple

from msgspec import UNSET
from msgspec.structs import astuple

from ..models.codes import FindingCode
from ..models.common import MAX_AMOUNT
from ..models.decode import convert
from ..rules.cards import SPELLINGS
from ..rules.hands import HandValue
from ..rules.profile import Profile
from ..rules.settlement import Cards, Line, Ruling
from .compare import fields_agree, truth
from .fast import memo_for, plain_amount
from .games import GameFingerprint, GameResult, SeatResult, book_of, round_view
from .results import RoundResult
from .stakes import check_offered, check_placed

ZERO = Decimal(0)
#: An amount that is not plain (the models would read it otherwise, or refuse it).
NOT_PLAIN: Any = object()
_new = tuple.__new__
MAX_INT = int(MAX_AMOUNT)


class LaneEntry:
    """One settlement and what every clean seat with its key shares: the ruling's lines
    and sums, the amounts the checks need, what a ledger books of it, and per-reporter
    views (a reporter may keep there what it writes of this settlement, once)."""

    __slots__ = ("ante", "bonus", "bonus_hand", "book", "call_stake", "clean", "dealer_category", "decision", "lines",
                 "net", "outcome", "player_category", "qualified", "returned", "ruling", "staked",
                 "table_net", "views")

    def __init__(self, ruling: Ruling, clean: bool, ante: Decimal, bonus: Decimal, decision: str,
                 recorded_net: Decimal | None) -> None:
        self.ruling = ruling
        self.clean = clean
        self.lines: tuple[Line, ...] = ruling.lines
        self.outcome = ruling.outcome
        self.net = ruling.net
        self.staked = ruling.staked
        self.returned = ruling.returned
        self.call_stake = ruling.call_stake
        self.ante = ante
        self.bonus = bonus
        self.bonus_hand = ruling.bonus_hand is not None
        self.decision = decision
        self.player_category = ruling.player_hand.category if ruling.player_hand else None
        self.dealer_category = ruling.dealer_hand.category if ruling.dealer_hand else None
        self.qualified = ruling.dealer_qualified
        #: The net the table recorded (as written: 3.0 for 3), the chain's step by its nets.
        self.table_net = recorded_net if recorded_net is not None else self.net
        self.book = book_of(self.outcome, self.net, self.staked, self.returned, recorded_net)
        self.views: dict[str, Any] = {}


class CleanSeat(NamedTuple):
    """A seat the lane audited: its entry, player, line and balances, and its struct."""

    entry: LaneEntry
    player_id: str | None
    line: int
    balance: Decimal
    recorded_balance: Decimal | None
    fast: Any
    player: HandValue
    bonus_hand: HandValue | None
    #: The record the seat was read from, and its place there (-1: a seat line).
    source: Any
    place: int

    @property
    def recorded_net(self) -> Decimal | None:
        recorded = self.fast.recorded
        net = UNSET if recorded is UNSET else recorded.net
        return None if net is UNSET else Decimal(net)


class CleanGame(NamedTuple):
    """A game the lane audited, every seat of it: what a reporter needs, and the way back
    to the full :class:`~referee.audit.games.GameResult` (:meth:`result`). A tuple (one a
    game: made in a fifth of a slotted object's time), read by name. Of a game of one
    seat (a format-1 round), ``entry`` and the balances are its seat's."""

    number: int | None
    line: int
    file: str
    session: str
    game: str | None
    #: The game's struct (format 1: the round's, which is also its seat's).
    fast: Any
    seats: tuple[CleanSeat, ...]
    dealer: HandValue
    #: The shared hand (None where the seat plays its own cards).
    shared: HandValue | None
    format: int
    table: str | None
    record: Any

    @property
    def entry(self) -> LaneEntry:
        return self.seats[0].entry

    @property
    def balance(self) -> Decimal:
        return self.seats[0].balance

    @property
    def recorded_balance(self) -> Decimal | None:
        return self.seats[0].recorded_balance

    @property
    def recorded_net(self) -> Decimal | None:
        return self.seats[0].recorded_net

    @property
    def player(self) -> HandValue:
        return self.seats[0].player

    @property
    def fingerprint(self) -> GameFingerprint:
        """What two records of the game must agree on (format 2: ``GameIndex``)."""
        from .seats import canonical

        fast = self.fast
        cards = (*canonical(fast.player if self.format == 2 else None), *canonical(fast.flop), *canonical([fast.turn]),
                 *canonical([fast.river]), *canonical(fast.dealer))
        players = tuple(seat.player_id for seat in self.seats if seat.player_id is not None)
        return GameFingerprint(self.game, self.session, self.file, self.line, cards, players, self.table, "counted")

    def result(self) -> GameResult:
        """The result the full audit gives this game, field for field."""
        return _result(self)

    def round(self) -> RoundResult:
        """A format-1 game as the round it is (:func:`~referee.audit.games.round_view`)."""
        return round_view(_result(self))


def _result(clean: CleanGame) -> GameResult:
    """A clean game's full :class:`GameResult`: the record decoded into its struct only now,
    each seat's ruling from its entry's lines with the game's own cards and hands."""
    from .seats import canonical

    fast = clean.fast
    round_ = clean.format == 1
    if round_:
        from ..models.rounds import Round

        record: Any = convert(as_dict(fast), Round)
    else:
        from ..load.table import GAME_STRUCT_FIELDS
        from ..models.table import Game

        record = convert({name: value for name, value in zip(GAME_STRUCT_FIELDS, astuple(fast), strict=True)
                          if value is not UNSET and name != "seats"}, Game)
    game = GameResult(clean.game, clean.number, clean.file, clean.line, clean.session, clean.format, "settled", record,
                      table=clean.table, pointer=getattr(clean.record, "pointer", None))
    cards = cards_of(fast.player, fast.flop, fast.turn, fast.river, fast.dealer)  # the game's: every seat's
    for seat in clean.seats:
        e = seat.entry
        ruling = Ruling(e.outcome, cards, e.lines, None, seat.player, clean.dealer, seat.bonus_hand, e.qualified)
        game.seats.append(LaneSeat.of(seat, ruling, record if round_ else None))
    shared = None if round_ else fast.player
    game.cards = (*canonical(shared), *canonical(fast.flop), *canonical([fast.turn]), *canonical([fast.river]),
                  *canonical(fast.dealer))
    game.outcome, game.player_hand, game.dealer_hand, game.dealer_qualified = describe(clean)
    return game


def describe(clean: CleanGame) -> tuple[str | None, HandValue | None, HandValue | None, bool | None]:
    """The game's own line (outcome, player's and dealer's hands, qualification), as the
    full audit describes it (seats.describe): from a call's ruling when any seat called,
    else the first seat's; the player's hand and the outcome only of a shared hand."""
    seats = clean.seats
    seat = next((s for s in seats if s.entry.decision == "call"), seats[0])
    e = seat.entry
    if clean.shared is None:
        return None, None, clean.dealer, e.qualified
    return (e.outcome if e.outcome != "fold" else None), seat.player, clean.dealer, e.qualified


class LaneSeat(SeatResult):
    """A seat the lane took, in a game's full result: its model is built only when
    something asks for ``record`` (explain, HTML, stats); ``entry`` is its settlement."""

    __slots__ = ("entry", "index", "plain", "source")

    entry: LaneEntry | None

    def __init__(self, player_id: str | None, file: str, line: int, plain: Any, source: Any, index: int,
                 entry: LaneEntry | None = None, ruling: Ruling | None = None) -> None:
        self.player_id, self.file, self.line, self.plain, self.source, self.index = (
            player_id, file, line, plain, source, index)
        self.ruling, self.cancelled, self.findings, self.balance = ruling, False, [], ZERO
        self.recorded_balance, self.copy, self.table_void = None, False, False
        self.entry = entry  # None: a seat read plain for its model alone
        self.totals = None if entry is None else (entry.net, entry.staked, entry.returned)

    @classmethod
    def of(cls, seat: CleanSeat, ruling: Ruling | None = None, record: Any = None) -> LaneSeat:
        made = cls(seat.player_id, seat.source.source, seat.line, seat.fast, seat.source, seat.place, seat.entry,
                   ruling)
        made.balance, made.recorded_balance = seat.balance, seat.recorded_balance
        if record is not None:
            _RECORD_SLOT.__set__(made, record)
        return made

    @property
    def record(self) -> Any:
        try:
            return _RECORD_SLOT.__get__(self, SeatResult)
        except AttributeError:
            from msgspec import to_builtins

            from ..models.table import Seat

            model = convert(to_builtins(self.plain, builtin_types=(Decimal,)), Seat)
            _RECORD_SLOT.__set__(self, model)
            return model

    @record.setter
    def record(self, value: Any) -> None:
        _RECORD_SLOT.__set__(self, value)


_RECORD_SLOT: Any = SeatResult.__dict__["record"]


def as_dict(fast: Any) -> dict[str, object]:
    """A struct as the reader's mapping would hold it (absent keys left out)."""
    out: dict[str, object] = {}
    for name, value in zip(fast.__struct_fields__, astuple(fast), strict=True):
        if value is UNSET:
            continue
        out[name] = as_dict(value) if hasattr(value, "__struct_fields__") else value
    return out


class CleanGames(list[CleanGame]):
    """Consecutive games the fast lane audited clean, in file order, all of one session
    (one event for many); ``format`` is the session's."""

    __slots__ = ("format",)

    def __init__(self, format: int = 1) -> None:
        super().__init__()
        self.format = format


class LaneMemo:
    """Lane entries by key, for one profile (bounded like the settlement memo)."""

    __slots__ = ("entries", "floor", "profile")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.floor = profile.dealer_qualifier.floor()  # the dealer qualifies from this hand value up
        self.entries: dict[tuple[Any, ...], LaneEntry | None] = {}


def lane_memo_for(profile: Profile, origin: object, sha256: str) -> LaneMemo:
    """One lane memo per profile, shared by its sessions (:func:`~referee.audit.fast.memo_for`)."""
    return memo_for(profile, origin, sha256, LaneMemo)


def make_entry(profile: Profile, ruling: Ruling, seat: Any) -> LaneEntry | None:
    """Decide, once for every seat of its key, whether the stake checks and the
    comparison with the record are silent; ``ruling``: the seat's, by the real
    settlement. None when the seat's amounts or words are not plain (the full audit
    takes such seats)."""
    ante, bonus, call = plain_stake(seat.ante), plain_stake(seat.bonus), plain_stake(seat.call)
    if ante is None or ante is NOT_PLAIN or bonus is NOT_PLAIN or call is NOT_PLAIN or ruling.outcome == "void":
        return None
    if seat.decision != "call" and seat.decision != "fold":
        return None  # a word as people write it (' FOLD '): the models read it, not the lane
    recorded = seat.recorded
    net = UNSET if recorded is UNSET else recorded.net
    clean = _checks_silent(profile, seat, ante, bonus or ZERO, call) and _record_agrees(recorded, ruling)
    return LaneEntry(ruling, clean, ante, bonus or ZERO, seat.decision, None if net is UNSET else Decimal(net))


def plain_stake(value: Any) -> Any:
    """A stake as the models give it: absent is None (``call``) or 0 (``bonus``)."""
    if value is UNSET:
        return None
    found = plain_amount(value, ZERO)
    return found if found is not None else NOT_PLAIN


def _checks_silent(profile: Profile, seat: Any, ante: Decimal, bonus: Decimal, call: Decimal | None) -> bool:
    """The stake checks the stakes decide alone (``stakes.check_placed`` and
    ``check_offered``: S008, S001, S006) find nothing: the full audit's own checks, run
    once for every seat of the entry's key."""
    found: list[FindingCode] = []

    def emit(code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        found.append(code)

    check_placed(ante, bonus, call, seat.decision, profile, emit)
    check_offered(bonus, profile, emit)
    return not found


def _record_agrees(recorded: Any, ruling: Ruling) -> bool:
    """The record's struct agrees with the ruling by the full audit's own test
    (:func:`~referee.audit.compare.fields_agree`), once its amounts are ones the models
    read as written (the words and flags are typed by the struct: a word equal to the
    ruling's is one the models accept). A format-2 struct's ``void_reason`` (the
    table's own words) and every struct's ``balance`` are not decided by the ruling."""
    if recorded is UNSET:
        return True
    values = astuple(recorded)
    given = values[:10] if len(values) == 11 else (values[0], *values[2:11])
    for value in given[5:]:
        if value is not UNSET and plain_amount(value, -MAX_AMOUNT) is None:
            return False
    return fields_agree(given, truth(ruling), UNSET)


def recorded_balance(recorded: Any) -> Decimal | Literal[False] | None:
    """A seat's recorded balance as the models give it; None when absent; False when
    it is not plain (the full audit reads it)."""
    if recorded is UNSET:
        return None
    raw = recorded.balance
    if raw is UNSET:
        return None
    if type(raw) is int:
        return Decimal(raw) if -MAX_INT <= raw <= MAX_INT else False
    found = plain_amount(raw, -MAX_AMOUNT)
    return False if found is None else found


def recorded_amounts_ok(values: tuple[Any, ...]) -> bool:
    """A recorded Decimal is checked on every seat (``-0`` and ``0`` share a key)."""
    return all(type(value) is not Decimal or plain_amount(value, -MAX_AMOUNT) is not None for value in values)


def cards_of(player: Any, flop: Any, turn: str, river: str, dealer: Any) -> Cards:
    card = SPELLINGS.__getitem__
    return Cards(tuple(map(card, player)), tuple(map(card, flop)), card(turn), card(river), tuple(map(card, dealer)))
