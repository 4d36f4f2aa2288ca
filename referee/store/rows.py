"""The audit's events as the store's rows: the module that knows their shape.

Why one module: the audit is still polished (issue 28: one audit, a round of format 1
a game of one seat); the store depends on its typed results (the games, seats and
players of a session, as the reporters read them) through the names imported here
alone (the store's other modules import them from here), so a rename there is fixed
here, once. What they make is plain data (tuples of text and numbers, small enough to
travel back from a ``--jobs`` worker), without ids: the writer numbers the rows in the
parent, in file order.

A round the fast lane audited clean is kept in a *run* (:class:`Run`): its settlement
and its nine cards, packed, everything else follows from the run's start (lines and
numbers one by one, the balance by the nets); every other round, and every seat of a
live table, is a row of its own (:class:`SeatRow`), with the record as validated. What
goes in a run, and how it is packed, is :mod:`referee.store.packing`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

from ..audit.clean import CleanGame, CleanGames
from ..audit.duplicates import GameIndex, SessionIndex
from ..audit.games import GameFingerprint, GameResult, SeatResult
from ..audit.results import Finding, InputInfo, Ledger, RoundResult, SessionInfo, SessionResult
from ..load.table import WHOLE_SEATS
from ..models.common import dump
from ..recall import _seat_status
from ..report.table import seat_decision
from ..report.text import round_status
from ..rules.settlement import Cards, Ruling
from . import codec

__all__ = [
    "CleanGame",
    "CleanGames",
    "Finding",
    "GameFingerprint",
    "GameIndex",
    "GameResult",
    "InputInfo",
    "SeatResult",
    "SessionIndex",
    "SessionInfo",
    "SessionResult",
]

ZERO = Decimal(0)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
#: Bits of ``SeatRow.flags``: a verbatim copy (S003), a deal the table recorded void, a
#: seat written again in a second record, a cancelled game's seat, a format-1 round
#: whose player is its session's (no ``meta.player``).
REPEATED, TABLE_VOID, COPY, CANCELLED, SESSION_PLAYER = 1, 2, 4, 8, 16


class Settled(NamedTuple):
    """A ruling's money and facts (a row of ``settlements``); seats that share one share the row."""

    outcome: str
    decision: str | None
    void_kind: str | None
    void_reason: str | None
    player_cat: str | None
    dealer_cat: str | None
    bonus_cat: str | None
    qualified: int | None
    bonus_hit: int | None
    ante_u: int | None
    main_staked_u: int | None
    bonus_staked_u: int | None
    main_net_u: int | None
    bonus_net_u: int | None
    lines: str


class SeatRow(NamedTuple):
    """A seat (or a format-1 round) as stored, but for its ids."""

    line: int
    number: int | None
    game: str | None
    time_us: int | None
    player: str | None
    decision: str | None
    kind: str
    settled: Settled | None
    cards: str | None
    known: int | None
    player_value: int | None
    dealer_value: int | None
    bonus_value: int | None
    balance: str
    recorded_balance: str | None
    status: str
    record: str | None
    findings: str | None
    copy_line: int | None
    flags: int


class Run(NamedTuple):
    """Consecutive clean rounds of one session, at consecutive lines and numbers."""

    first_line: int
    first_number: int
    rounds: int
    start_balance: str
    settled: list[Settled]
    picks: bytes
    cards: bytes


class GameRow(NamedTuple):
    """A format-2 game as stored (its seats apart), but for its ids."""

    line: int
    game: str | None
    number: int | None
    table: str | None
    status: str | None
    kind: str
    outcome: str | None
    void_reason: str | None
    player_hand: str | None
    dealer_hand: str | None
    qualified: int | None
    cards: str | None
    players: str
    time_us: int | None
    dealer: str | None
    record: str | None
    findings: str | None


class GamePayload(NamedTuple):
    game: GameRow
    seats: list[SeatRow]


class SessionRow(NamedTuple):
    ident: str
    line: int
    format: int
    profile: str | None
    origin: str | None
    sha256: str | None
    player: str | None
    table: str | None
    currency: str | None
    position: int


class SessionEnd(NamedTuple):
    ledger: str
    players: str | None
    counts: str | None


class FindingRow(NamedTuple):
    code: str
    severity: str
    message: str
    file: str
    line: int
    round: int | None
    field: str | None
    expected: str | None
    recorded: str | None
    session: str | None
    game: str | None
    player: str | None


# ----------------------------------------------------------------------------- settlements

_SETTLED: dict[int, tuple[Any, Settled]] = {}


def settled(ruling: Ruling, decision: str | None) -> Settled:
    """The ruling's :class:`Settled` (kept per lines object: rulings share them)."""
    key = id(ruling.lines)
    found = _SETTLED.get(key)
    if found is not None and found[0] is ruling.lines:
        facts = found[1]
        if (facts.outcome == ruling.outcome and facts.decision == decision
                and facts.qualified == _flag(ruling.dealer_qualified) and facts.player_cat == _cat(ruling.player_hand)
                and facts.dealer_cat == _cat(ruling.dealer_hand) and facts.bonus_cat == _cat(ruling.bonus_hand)
                and facts.void_reason == ruling.void_reason):
            return facts
    facts = make_settled(ruling, decision)
    if len(_SETTLED) > 50_000:
        _SETTLED.clear()
    _SETTLED[key] = (ruling.lines, facts)
    return facts


def make_settled(ruling: Ruling, decision: str | None) -> Settled:
    """The ruling's :class:`Settled`, made anew (:func:`settled` keeps them; a lane entry keeps its own)."""
    bonus_stake = ruling.bonus_stake
    return Settled(
        ruling.outcome, decision, ruling.void.kind if ruling.void else None, ruling.void_reason,
        _cat(ruling.player_hand), _cat(ruling.dealer_hand), _cat(ruling.bonus_hand), _flag(ruling.dealer_qualified),
        None if not bonus_stake else int(ruling.bonus > 0), codec.micro(ruling.ante_stake),
        codec.micro(ruling.ante_stake + ruling.call_stake), codec.micro(bonus_stake),
        codec.micro(ruling.ante + ruling.call), codec.micro(ruling.bonus), codec.lines_text(ruling.lines))


def _cat(hand: Any) -> str | None:
    return None if hand is None else str(hand.category.value)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


# ----------------------------------------------------------------------------- cards

NONE_CARD = 63


_DIGITS = int.__repr__  # a card's index as text (a Card's own str is its name)


def _ints(group: tuple[Any, ...]) -> str:
    if None in group:
        return ",".join(["null" if c is None else _DIGITS(c) for c in group])
    return ",".join(map(_DIGITS, group))


def cards_text(cards: Cards) -> str:
    """The cards as ruled, exact: player, flop, turn, river, dealer (indices; null unseen),
    as compact JSON (``[[p1,p2],[f1,f2,f3],turn,river,[d1,d2]]``). Written by hand: it
    is per seat on the store's hot path, and ``json.dumps`` of the lists cost twice as
    much (a test compares the two)."""
    turn, river = cards.turn, cards.river
    return (f"[[{_ints(cards.player)}],[{_ints(cards.flop)}],{'null' if turn is None else _DIGITS(turn)},"
            f"{'null' if river is None else _DIGITS(river)},[{_ints(cards.dealer)}]]")


def known_cards(cards: Cards) -> int | None:
    """The five cards seen at the decision (the player's two, the flop), packed 6 bits each."""
    five = (*cards.player, *cards.flop)
    packed = 0
    for shift, card in enumerate(five):
        if card is None:
            return None
        packed |= int(card) << (6 * shift)
    return packed if len(five) == 5 else None


# ----------------------------------------------------------------------------- format 1

def epoch_us(when: datetime | None) -> int | None:
    """A time as microseconds since 1970 (no zone: UTC), for ordering and windows."""
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - _EPOCH) // _MICRO


def _findings(found: Iterable[Finding]) -> str | None:
    items = [finding_list(f) for f in found]
    return codec.dumps(items) if items else None


def finding_list(f: Finding) -> list[Any]:
    return [f.code, f.message, f.file, f.line, f.round, f.field, f.expected, f.recorded, f.session, f.game, f.player]


def finding_of(item: list[Any]) -> Finding:
    code, message, file, line, number, field, expected, recorded, session, game, player = item
    return Finding(code, message, file, line, number, field, expected, recorded, session, game=game, player=player)


def findings_of(text: str | None) -> list[Finding]:
    return [] if text is None else [finding_of(item) for item in codec.loads(text)]


def _record(model: Any) -> str | None:
    return None if model is None else codec.model_text(dump(model))


def round_row(result: RoundResult) -> SeatRow:
    """A format-1 round audited by the full path."""
    record, ruling = result.record, result.ruling
    meta = record.meta if record is not None and record.meta else {}
    game, player = meta.get("game"), meta.get("player")
    kind = ("repeated" if result.repeated else "invalid" if ruling is None
            else "void" if ruling.outcome == "void" else "counted")
    flags = REPEATED * result.repeated | TABLE_VOID * result.table_void | SESSION_PLAYER * ("player" not in meta)
    copy = result.copy_of
    decision = record.decision if record is not None else None
    return SeatRow(
        result.line, result.number, None if game is None else str(game), epoch_us(record.time if record else None),
        None if player is None else str(player), decision, kind,
        None if ruling is None else settled(ruling, decision),
        None if ruling is None else cards_text(ruling.cards), None if ruling is None else known_cards(ruling.cards),
        *_values(ruling), str(result.balance), codec.text(result.recorded_balance), round_status(result),
        _record(record), _findings(result.findings), None if copy is None else copy.line, flags)


def _values(ruling: Ruling | None) -> tuple[int | None, int | None, int | None]:
    if ruling is None:
        return None, None, None

    def value(hand: Any) -> int | None:
        return None if hand is None else int(hand.value)

    return value(ruling.player_hand), value(ruling.dealer_hand), value(ruling.bonus_hand)


# ----------------------------------------------------------------------------- format 2

#: ``json.dumps(value, ensure_ascii=False)``, its encoder made once.
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode


def game_payload(game: GameResult) -> GamePayload:
    record = game.record
    fp = game.fingerprint
    when = (record.settled or record.started) if record is not None else None
    head = GameRow(
        game.line, game.game, game.number, fp.table, game.status, game.kind, game.outcome, game.void_reason,
        _cat(game.player_hand), _cat(game.dealer_hand), _flag(game.dealer_qualified),
        None if fp.cards is None else _JSON_TEXT(list(fp.cards)), _JSON_TEXT(list(fp.players)), epoch_us(when),
        record.dealer_id if record is not None else None,
        None if record is None else codec.model_text(dump(record, exclude="seats")),
        _findings(game.findings))
    seen: _Seen = {}
    seats = [seat_row(game, seat, head.number, head.game, head.time_us, seen) for seat in game.seats]
    return GamePayload(head, seats)


def seat_row(game: GameResult, seat: SeatResult, number: int | None, game_id: str | None,
             time_us: int | None, seen: _Seen | None = None) -> SeatRow:
    """A format-2 seat; ``seen``: the texts of the cards of the game's seats so far (its
    seats mostly share one :class:`Cards`: written once a game, not once a seat)."""
    findings = (*game.findings, *seat.findings)
    ruling = seat.ruling
    record = _seat_record(seat)
    decision = seat_decision(seat)
    kind = ("cancelled" if seat.cancelled else "copy" if seat.copy else "invalid" if ruling is None
            else "void" if ruling.outcome == "void" else "counted")
    flags = COPY * seat.copy | CANCELLED * seat.cancelled
    return SeatRow(
        seat.line, number, game_id, time_us, seat.player_id, decision, kind,
        None if ruling is None else settled(ruling, decision), *_cards(ruling, seen),
        *_values(ruling), str(seat.balance), codec.text(seat.recorded_balance), _seat_status(seat, findings),
        record, _findings(seat.findings), None, flags)


def _cards(ruling: Ruling | None, seen: _Seen | None) -> tuple[str | None, int | None]:
    if ruling is None:
        return None, None
    cards = ruling.cards
    found = None if seen is None else seen.get(id(cards))
    if found is None or found[0] is not cards:
        found = (cards, cards_text(cards), known_cards(cards))
        if seen is not None:
            seen[id(cards)] = found
    return found[1], found[2]


#: A game's cards written so far, by the id of their :class:`Cards` (kept with it).
_Seen = dict[int, tuple[Cards, str, int | None]]
_RECORD_SLOT: Any = SeatResult.__dict__["record"]


def _seat_record(seat: SeatResult) -> str | None:
    """The seat as validated, as the codec's text. A seat the fast decoder read makes its
    model only when asked for, from its struct: the struct is written then (the same data,
    without making the model), unless the audit has set the seat's record itself."""
    plain = getattr(seat, "plain", None)
    if plain is not None:
        try:
            model = _RECORD_SLOT.__get__(seat, SeatResult)
        except AttributeError:
            return codec.struct_text(plain, type(plain) in WHOLE_SEATS)
    else:
        model = seat.record
    return _record(model)


# ----------------------------------------------------------------------------- sessions

def session_row(info: SessionInfo) -> SessionRow:
    table, currency = (info.table, info.currency) if info.format == 2 else (None, None)
    return SessionRow(info.id, info.line, info.format, info.profile,
                      None if info.profile_origin is None else str(info.profile_origin), info.profile_sha256,
                      info.player, table, currency, info.index)


def ledger_data(ledger: Ledger) -> dict[str, object]:
    return {f.name: getattr(ledger, f.name) for f in fields(ledger)}


def session_end(result: SessionResult) -> SessionEnd:
    """A session's closing values. ``counts``: a live table's games by what became of them;
    a format-1 session's records and their digest (what a later check compares a session of
    the same id with: ``S010``/``S011``, :func:`referee.store.earlier.sessions`)."""
    players = counts = None
    if result.info.format == 2:
        players = codec.dumps([[p.player_id, ledger_data(p.ledger)] for p in result.players])
        counts = codec.dumps({f.name: getattr(result.games, f.name) for f in fields(result.games)})
    elif result.digest is not None:
        counts = codec.dumps({"records": result.records, "content": result.digest})
    return SessionEnd(codec.dumps(ledger_data(result.ledger)), players, counts)


def finding_row(f: Finding) -> FindingRow:
    return FindingRow(f.code, f.severity, f.message, f.file, f.line, f.round, f.field, codec.optional(f.expected),
                      codec.optional(f.recorded), f.session, f.game, f.player)
