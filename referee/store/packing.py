"""What the store keeps in runs, packed: the fast lane's clean rounds
(:class:`~referee.store.rows.Run`) and a live table's clean games
(:class:`~referee.store.tableruns.LaneGames`), the lane's and those of the full audit a
run can hold.

Why apart from :mod:`referee.store.rows`: the lane's batches are the store's hot path,
packed column by column (one pass of the interpreter's fast built-ins, C getters over
the lane's tuples), where rows are made one event at a time; what a run cannot hold is
left to the rows (:func:`~referee.store.rows.round_row`,
:func:`~referee.store.rows.game_payload`). The audit's types are imported from
:mod:`referee.store.rows`, as the writer's are.
"""

from __future__ import annotations

import sys
from array import array
from datetime import datetime
from itertools import chain, repeat
from operator import itemgetter, sub
from typing import Any

from msgspec import UNSET

from ..load.table import PlainGameRecord
from ..report.table import seat_decision
from ..rules.cards import SPELLINGS
from ..rules.hands import evaluate
from ..rules.settlement import Cards
from .rows import (
    CleanGame,
    CleanGames,
    GamePayload,
    GameResult,
    Run,
    SeatResult,
    SeatRow,
    Settled,
    epoch_us,
    game_payload,
    make_settled,
    round_row,
    settled,
)
from .tableruns import RUN_SEATS, LaneGames

# ----------------------------------------------------------------------------- rounds

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
        found = entry.views["store"] = make_settled(entry.ruling, entry.decision)
    return found


# ----------------------------------------------------------------------------- games

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
    return LaneGames([line], [game.number], [game.game], [epoch_us(when)], [record.dealer_id], [len(seats)], c,
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
    return epoch_us(_DATETIME.validate_python(text))
