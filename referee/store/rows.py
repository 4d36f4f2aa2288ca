"""The audit's events as the store's rows: the one module that knows their shape.

Why one module: the audit is still polished (issue 28: one audit, a round of format 1
a game of one seat); the store depends on its typed results (the games, seats and
players of a session, as the reporters read them) through the names imported here
alone, so a rename there is fixed here, once. What they make is plain data (tuples of text
and numbers, small enough to travel back from a ``--jobs`` worker), without ids: the
writer numbers the rows in the parent, in file order.

A round the fast lane audited clean is kept in a *run* (:class:`Run`): its settlement
and its nine cards, packed, everything else follows from the run's start (lines and
numbers one by one, the balance by the nets); every other round, and every seat of a
live table, is a row of its own (:class:`SeatRow`), with the record as validated.
"""

from __future__ import annotations

import json
import sys
from array import array
from collections.abc import Iterable
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import chain, repeat
from operator import itemgetter, sub
from typing import Any, NamedTuple

from msgspec import UNSET

from ..audit.clean import CleanGame, CleanGames
from ..audit.duplicates import GameIndex
from ..audit.games import GameFingerprint, GameResult, SeatResult
from ..audit.results import Finding, InputInfo, Ledger, RoundResult, SessionInfo, SessionResult
from ..load.table import WHOLE_SEATS, PlainGameRecord
from ..recall import _seat_status
from ..report.table import seat_decision
from ..report.text import round_status
from ..rules.cards import SPELLINGS
from ..rules.hands import evaluate
from ..rules.settlement import Cards, Ruling
from . import codec
from .tableruns import RUN_SEATS, LaneGames

__all__ = ["Finding", "GameFingerprint", "GameIndex", "GameResult", "InputInfo", "LaneGames", "SeatResult",
           "SessionInfo", "SessionResult"]

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
    facts = _settled(ruling, decision)
    if len(_SETTLED) > 50_000:
        _SETTLED.clear()
    _SETTLED[key] = (ruling.lines, facts)
    return facts


def _settled(ruling: Ruling, decision: str | None) -> Settled:
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

def _time(when: datetime | None) -> int | None:
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
    return None if model is None else codec.model_text(model.model_dump(exclude_none=True))


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
        result.line, result.number, None if game is None else str(game), _time(record.time if record else None),
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


def clean_runs(rounds: CleanGames) -> list[Run | SeatRow]:
    """A batch of the fast lane's clean rounds, as runs (a new run wherever the next
    round is not at the next line with the next number; a round without a number, if
    the lane ever takes one, a row of its own).

    Why column by column: this is per round on the hot path, where a loop over the
    rounds doing everything cost a third of the audit; each step here is one pass of
    the interpreter's fast built-ins over the batch."""
    count = len(rounds)
    if not count:
        return []
    lines = [r.line for r in rounds]
    numbers = [-2 if r.number is None else r.number for r in rounds]
    cuts = [i for i in range(1, count) if lines[i] != lines[i - 1] + 1 or numbers[i] != numbers[i - 1] + 1]
    runs: list[Run | SeatRow] = []
    for start, stop in zip([0, *cuts], [*cuts, count], strict=True):
        first = rounds[start]
        if first.number is None:
            runs.extend(round_row(r.round()) for r in rounds[start:stop])
        else:
            runs.append(_run(rounds[start:stop], first.number))
    return runs


def _run(rounds: list[CleanGame], number: int) -> Run:
    first = rounds[0]
    entries = [r.seats[0].entry for r in rounds]
    places: dict[int, int] = {}
    picks = array("H", [places.setdefault(id(e), len(places)) for e in entries])
    assert len(places) <= 65536, "a batch of clean rounds is at most a few thousand"
    if sys.byteorder == "big":  # kept little-endian, whatever machine wrote or reads the store
        picks.byteswap()
    kept: dict[int, Settled] = {}
    for e in entries:
        if id(e) not in kept:
            kept[id(e)] = _entry_settled(e)
    tokens = [t for r in rounds for f in (r.fast,) for t in (*f.player, *f.flop, f.turn, f.river, *f.dealer)]
    cards = bytes(map(SPELLINGS.__getitem__, tokens))
    before = first.balance - first.entry.net
    return Run(first.line, number, len(rounds), str(before), list(kept.values()), picks.tobytes(), cards)


def _entry_settled(entry: Any) -> Settled:
    """A lane entry's :class:`Settled`, made once per entry."""
    found: Settled | None = entry.views.get("store")
    if found is None:
        found = entry.views["store"] = _settled(entry.ruling, entry.decision)
    return found


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
        None if fp.cards is None else _JSON_TEXT(list(fp.cards)), _JSON_TEXT(list(fp.players)), _time(when),
        record.dealer_id if record is not None else None,
        None if record is None else codec.model_text(record.model_dump(exclude_none=True, exclude={"seats"})),
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


def lane_games(games: list[CleanGame]) -> list[LaneGames | GamePayload]:
    """A batch of the fast lane's live-table games as the store keeps them: consecutive
    ones read from JSON Lines game lines (their seats inline, in order, then as the seat
    lines after them) as one :class:`LaneGames` (runs keep them: their records are their
    lines of the kept bytes, :mod:`referee.store.tableruns`); any other (an export's, a
    document's, one of more seats than a run holds) as its rows."""
    whole = _lane_games(games)
    if whole is not None:
        return [whole]  # the usual case: every game of the batch
    out: list[LaneGames | GamePayload] = []
    start = 0
    for at, game in enumerate(games):
        if _lane_games([game]) is None:
            if start < at:
                out.append(_must(_lane_games(games[start:at])))
            out.append(game_payload(game.result()))
            start = at + 1
    if start < len(games):
        out.append(_must(_lane_games(games[start:])))
    return out


def full_games(game: GameResult) -> LaneGames | None:
    """A live table's game the full audit took, as a run keeps the lane's, when a run can
    hold it: read from JSON Lines lines, settled and counted, without a finding, each seat
    ruled and counted (not cancelled, void nor a copy) without a finding, on the game's
    shared hand of nine known cards, its hands and recorded balance those a reader makes
    of its settlement, its cards and its record. Mostly a second record of a game in its
    session (a table that writes a game's seats on two lines), which the lane leaves to the
    full audit; any other game is kept as its rows."""
    record, seats = game.record, game.seats
    if (game.format != 2 or game.status != "settled" or game.findings or game.pointer is not None
            or record is None or record.player is None or game.game is None or not seats
            or len(seats) > RUN_SEATS // 2 or game.kind != "counted" or seats[0].ruling is None):
        return None
    cards = seats[0].ruling.cards
    nine = [card for card in (*cards.player, *cards.flop, cards.turn, cards.river, *cards.dealer) if card is not None]
    if len(nine) != 9 or len(cards.player) != 2 or len(cards.flop) != 3:
        return None
    c = bytes(map(int, nine))
    board = [c[2], c[3], c[4], c[5], c[6]]
    values = (evaluate([c[0], c[1], *board]).value, evaluate([c[7], c[8], *board]).value, evaluate(list(c[:5])).value)
    line = game.line
    inline = 0  # the seats on the game's line, each at its place there: before any seat line
    distinct: dict[Settled, int] = {}
    picks: list[int] = []
    for place, seat in enumerate(seats):
        facts = _full_seat(seat, cards, values)
        if facts is None or seat.line < line or (inline < place and seat.line == line) or seat.line - line >= 1 << 32:
            return None
        inline += seat.line == line
        picks.append(distinct.setdefault(facts, len(distinct)))
    when = record.settled or record.started
    return LaneGames([line], [game.number], [game.game], [_time(when)], [record.dealer_id], [len(seats)], c,
                     [seat.player_id for seat in seats], picks, [seat.balance for seat in seats],  # type: ignore[misc]
                     None if inline == len(seats) else [seat.line - line for seat in seats], list(distinct), full=True)


def _full_seat(seat: SeatResult, cards: Cards, values: tuple[int, int, int]) -> Settled | None:
    """A full audit's seat's settlement, when a run can hold the seat (see :func:`full_games`)."""
    ruling = seat.ruling
    if (ruling is None or seat.cancelled or seat.copy or seat.findings or ruling.outcome == "void"
            or seat.record is None or seat.player_id is None or ruling.cards != cards
            or ruling.player_hand is None or ruling.player_hand.value != values[0]
            or ruling.dealer_hand is None or ruling.dealer_hand.value != values[1]):
        return None
    facts = settled(ruling, seat_decision(seat))
    bonus = ruling.bonus_hand
    if (bonus is None) != (facts.bonus_cat is None) or (bonus is not None and bonus.value != values[2]):
        return None
    recorded = seat.record.recorded
    if str(seat.recorded_balance) != str(None if recorded is None else recorded.balance):
        return None
    return facts


def _must(found: LaneGames | None) -> LaneGames:
    assert found is not None, "games a run takes one by one, it takes together"
    return found


def _lane_games(games: list[CleanGame]) -> LaneGames | None:
    """Games a run keeps, column by column; None unless each is read from a JSON Lines
    game line, its seats inline at their places, in order, then seat lines after it (as
    the intake takes them), each with a player, and holds at most half a run's seats.

    Why column by column in C (``map`` of getters over the games' and seats' tuples, and
    the checks over whole columns): this is per seat on the hot path, where a loop doing
    the same in Python cost a sixth of the lane's audit."""
    counts = list(map(len, map(_SEATS, games)))
    if (max(counts) > RUN_SEATS // 2 or set(map(type, map(_RECORD, games))) != {PlainGameRecord}
            or None in map(_GAME_ID, games) or set(map(_FORMAT, games)) != {2}):
        return None
    seats = list(chain.from_iterable(map(_SEATS, games)))
    players = list(map(_PLAYER, seats))
    lines = list(map(_GAME_LINE, games))
    places = list(map(_PLACE, seats))
    inline = list(chain.from_iterable(map(_RANGE.__getitem__, map(slice, counts))))  # each place, were all inline
    deltas: list[int] | None = None
    if places != inline:  # seat lines: each after its game's line (and its place there none)
        deltas = list(map(sub, map(_LINE, seats), chain.from_iterable(map(repeat, lines, counts))))
        if max(deltas) >= 1 << 32 or places != [p if d == 0 else -1 for p, d in zip(inline, deltas, strict=True)]:
            return None
    if None in players:
        return None
    entries = list(map(_ENTRY, seats))
    distinct = list(dict.fromkeys(entries))  # a lane entry is itself (no __eq__): hashed by its id
    place = dict(zip(distinct, range(len(distinct)), strict=True))
    fasts = list(map(_FAST, games))
    cards = b"".join([bytes(map(SPELLINGS.__getitem__, (*f.player, *f.flop, f.turn, f.river, *f.dealer)))
                      for f in fasts])
    return LaneGames(lines, list(map(_NUMBER, games)), list(map(_GAME_ID, games)), list(map(_lane_time, fasts)),
                     [None if f.dealer_id is UNSET else f.dealer_id for f in fasts], counts, cards, players,
                     list(map(place.__getitem__, entries)),
                     list(map(_BALANCE, seats)), deltas,
                     list(map(_entry_settled, distinct)))


#: A clean game's fields (:class:`~referee.audit.clean.CleanGame`, a tuple), a clean
#: seat's (:class:`~referee.audit.clean.CleanSeat`) and its entry's.
_NUMBER, _GAME_LINE, _GAME_ID, _FAST, _SEATS = itemgetter(0), itemgetter(1), itemgetter(4), itemgetter(5), itemgetter(6)
_FORMAT, _RECORD = itemgetter(9), itemgetter(11)
_ENTRY, _PLAYER, _LINE, _BALANCE, _PLACE = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3), itemgetter(9)
_RANGE = tuple(range(RUN_SEATS))


_DATETIME: Any = None


def _lane_time(fast: Any) -> int | None:
    """A plain game line's time as the model reads it (``settled``, else ``started``), in
    microseconds: what ``games.time_us`` holds of a game kept as a row."""
    global _DATETIME
    text = fast.settled if fast.settled is not UNSET else fast.started
    if text is UNSET:
        return None
    if _DATETIME is None:
        from pydantic import TypeAdapter

        _DATETIME = TypeAdapter(datetime)
    return _time(_DATETIME.validate_python(text))


# ----------------------------------------------------------------------------- sessions

def session_row(info: SessionInfo) -> SessionRow:
    table, currency = (info.table, info.currency) if info.format == 2 else (None, None)
    return SessionRow(info.id, info.line, info.format, info.profile,
                      None if info.profile_origin is None else str(info.profile_origin), info.profile_sha256,
                      info.player, table, currency, info.index)


def ledger_data(ledger: Ledger) -> dict[str, object]:
    return {f.name: getattr(ledger, f.name) for f in fields(ledger)}


def session_end(result: SessionResult) -> SessionEnd:
    players = counts = None
    if result.info.format == 2:
        players = codec.dumps([[p.player_id, ledger_data(p.ledger)] for p in result.players])
        counts = codec.dumps({f.name: getattr(result.games, f.name) for f in fields(result.games)})
    return SessionEnd(codec.dumps(ledger_data(result.ledger)), players, counts)


def finding_row(f: Finding) -> FindingRow:
    return FindingRow(f.code, f.severity, f.message, f.file, f.line, f.round, f.field, codec.optional(f.expected),
                      codec.optional(f.recorded), f.session, f.game, f.player)



# ----------------------------------------------------------------------------- selecting

def selected(events: Iterable[Any], since: datetime | None = None, until: datetime | None = None,
             table: str | None = None, dealer: str | None = None,
             seen: dict[str, set[str]] | None = None) -> Iterable[Any]:
    """The events, but the rounds and games outside the window (``since`` and
    ``until`` included; a round without a time is outside any window), the table or the
    dealer asked for: what ``stats --since/--until/--table/--dealer`` describes.
    ``seen``: filled with the tables and dealers the games had (a name asked for that
    none had is then said, with the nearest one)."""
    if since is None and until is None and table is None and dealer is None:
        yield from events
        return
    low, high = _time(since), _time(until)
    tables: dict[str, str | None] = {}
    seen = seen if seen is not None else {}
    for event in events:
        if isinstance(event, SessionInfo):
            tables[event.id] = event.table if event.format == 2 else None
        elif isinstance(event, GameResult):
            if event.format == 1:
                record = event.record
                when, by = (record.time if record is not None else None), None
            else:
                game = event.record
                when = (game.settled or game.started) if game is not None else None
                by = game.dealer_id if game is not None else None
            at = tables.get(event.session)
            if at is not None:
                seen.setdefault("table", set()).add(at)
            if by is not None:
                seen.setdefault("dealer", set()).add(by)
            stamp = _time(when)
            early = low is not None and (stamp is None or stamp < low)
            if early or (high is not None and (stamp is None or stamp > high)):
                continue
            if table is not None and at != table:
                continue
            if dealer is not None and by != dealer:
                continue
        yield event
