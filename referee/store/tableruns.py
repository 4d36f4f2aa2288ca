"""Runs of a live table's clean games (format 2): packed into one row of ``runs``, and
read back.

Why: a seat the fast lane took costs it a few microseconds, and a database row a seat
cost several times that (a digest, five indexes, the seat's record written again as
JSON: ``check --store`` of 200,000 seats took 3.3 times the check). So, as format 1's
clean rounds are, consecutive lane games of one session are kept in one row: each
game's line, number, id, dealer, time and nine cards, each seat's player and
settlement, and each player's balance before the run. The rest follows: a seat's
balance is its player's before the run plus the nets since, its hands are its game's
cards evaluated, and its record (the game's, the seat's) is its own line of the kept
bytes, read from there, never written again. The games' and players' ids are kept in
``run_keys`` besides, to find a run by them.

A game the full audit took is kept so too when it is one a run can hold (a second record
of a game in its session, which the lane leaves to the full audit, is mostly one: settled,
no finding, every seat ruled and counted): :func:`referee.store.packing.full_games`.

The layout (``runs.layout``), little-endian arrays one after the other: each game's line
(int64), seats (uint32), dealer (uint16, into ``names["dealers"]``), second record (0/1,
one byte), time (int64 microseconds, :data:`NONE` for none) and number (int64, ``round``,
:data:`NONE` for none); then each seat's player (uint32, into ``names["players"]``) and
line (uint32, from its game's line: 0 for a seat inline in its game's line, which is then
the seat's place there). ``runs.first_number`` and ``last_number`` are the least and the
greatest number of its games (-1 and NULL when none has one).
"""

from __future__ import annotations

import json
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from itertools import accumulate
from types import SimpleNamespace
from typing import Any, NamedTuple

#: A game without a time or a number, in the layout's times and numbers.
NONE = -(1 << 63)
#: At most this many seats a run (a game of more than half as many is kept as rows).
RUN_SEATS = 8192
_BIG = sys.byteorder == "big"


class LaneGames(NamedTuple):
    """Consecutive live-table games of one session the fast lane took whole, each read
    from a JSON Lines game line (its seats inline, then as the seat lines after it): what
    runs keep of them, column by column (a batch of the lane's, made in one pass of C
    over its seats: :func:`referee.store.packing.lane_games`)."""

    #: Each game's line, number (``round``; None when it records none), id, time (None
    #: without one), dealer and seats.
    lines: list[int]
    numbers: list[int | None]
    games: list[str]
    times: list[int | None]
    dealers: list[str | None]
    counts: list[int]
    #: Nine bytes a game: the card indices of the shared hand, flop, turn, river, dealer.
    cards: bytes
    #: Each seat's player, settlement (a place in ``settled``), its player's balance by
    #: the rules after the seat, and line less its game's (None: every seat inline).
    players: list[str]
    picks: list[int]
    balances: list[Decimal]
    deltas: list[int] | None
    #: The settlements the seats use (:class:`referee.store.rows.Settled`).
    settled: list[Any]
    #: A game of the full audit's: a run takes it only where its seats' balances follow
    #: from their players' earlier ones in the run by their nets (the lane's always do).
    full: bool = False


@lru_cache(maxsize=4096)
def net(lines: str) -> Decimal:
    """A settlement's net from its lines' text (``Settled.lines``), summed as a ruling sums
    it (:class:`~referee.rules.settlement.Ruling`): the very Decimal, exponent included."""
    from ..rules.settlement import ZERO
    from .codec import lines_of

    return sum((line.result for line in lines_of(lines)), ZERO)


class _Places(dict[Any, int]):
    """Values numbered in the order first asked for."""

    def __missing__(self, key: Any) -> int:
        place = self[key] = len(self)
        return place


class _Translated(dict[int, int]):
    """A batch's settlement places as a run's: made when first asked for (a run lists the
    settlements its own seats use, no other). ``ids``: the batch's settlements' ids."""

    def __init__(self, run: Builder, ids: list[int]) -> None:
        super().__init__()
        self.run, self.ids = run, ids

    def __missing__(self, key: int) -> int:
        place = self[key] = self.run.ids[self.ids[key]]
        return place


class Builder:
    """A run being packed: consecutive games of one session."""

    def __init__(self, session_id: int) -> None:
        self.session_id = session_id
        self.first_line = 0
        self.games: list[str] = []
        self.lines = array("q")
        self.seats = array("I")
        self.dealer_picks = array("H")
        self.second = bytearray()
        self.times = array("q")
        self.numbers = array("q")
        self.players: dict[str, int] = {}
        self.starts: list[str] = []
        #: Each player's balance after their last seat in the run.
        self.last: dict[str, Decimal] = {}
        self.player_picks = array("I")
        self.seat_lines = array("I")
        self.dealers = _Places()
        #: The settlements' ids the run's seats use, each with its place among them.
        self.ids = _Places()
        self.picks = array("H")
        self.cards = bytearray()
        self.rounds = 0
        self.time_min: int | None = None
        self.time_max: int | None = None
        self.number_min: int | None = None
        self.number_max: int | None = None

    def extent(self, batch: LaneGames, first: int) -> int:
        """Where the games this run takes from ``first`` on end: while they fit (a new run
        takes one at least)."""
        counts = batch.counts
        room = RUN_SEATS - self.rounds
        end = len(counts)
        if sum(counts[first:]) <= room:
            return end  # the usual case: the whole rest
        at = first
        while at < end and (counts[at] <= room or not (at > first or self.rounds)):
            room -= counts[at]
            at += 1
        return at

    def follows(self, batch: LaneGames) -> bool:
        """Whether a full audit's game (a batch of one) continues the run: each seat's
        balance is its player's last in the run plus its net, the very Decimal a reader
        sums (a player new to the run starts there)."""
        last = self.last
        for player, pick, balance in zip(batch.players, batch.picks, batch.balances, strict=True):
            before = last.get(player)
            if before is not None and str(before + net(batch.settled[pick].lines)) != str(balance):
                return False
        return True

    def add(self, batch: LaneGames, first: int, end: int, offsets: list[int], seconds: list[bool],
            translated: list[int] | _Translated) -> None:
        """The batch's games ``first`` to ``end`` (excluded): each game's facts, each
        seat's (``offsets``: each game's first seat in the batch)."""
        if not self.games:
            self.first_line = batch.lines[first]
        self.games += batch.games[first:end]
        self.lines.extend(batch.lines[first:end])
        self.seats.extend(batch.counts[first:end])
        self.dealer_picks.extend(map(self.dealers.__getitem__, batch.dealers[first:end]))
        self.second.extend(seconds)
        self.times.extend(_column(batch.times[first:end]))
        self.time_min, self.time_max = _span(batch.times[first:end], self.time_min, self.time_max)
        self.numbers.extend(_column(batch.numbers[first:end]))
        self.number_min, self.number_max = _span(batch.numbers[first:end], self.number_min, self.number_max)
        self.cards += batch.cards[9 * first:9 * end]
        a, b = offsets[first], offsets[end]
        players = batch.players[a:b]
        known = self.players
        if not known.keys() >= set(players):
            for at in range(a, b):
                if batch.players[at] not in known:
                    known[batch.players[at]] = len(known)
                    self.starts.append(str(batch.balances[at] - net(batch.settled[batch.picks[at]].lines)))
        self.player_picks.extend(map(known.__getitem__, players))
        self.last.update(zip(players, batch.balances[a:b], strict=True))
        if batch.deltas is None:
            self.seat_lines.frombytes(bytes(4 * (b - a)))
        else:
            self.seat_lines.extend(batch.deltas[a:b])
        self.picks.extend(map(translated.__getitem__, batch.picks[a:b]))
        self.rounds += b - a

    def dealt(self, run_id: int) -> list[tuple[int, int, str, int | None]]:
        """The run's ``dealer_games`` rows (:func:`dealt`): taken before :meth:`values`,
        which may turn its arrays little-endian."""
        return dealt(run_id, self.dealer_picks, self.times, list(self.dealers))

    def values(self) -> tuple[Any, ...]:
        """The run's columns from ``first_line`` to ``cards``, then from ``games`` on
        (``id``, ``source_id``, ``session_id``, ``first_seat``, ``rounds`` and ``digest``
        are the writer's)."""
        arrays = (self.lines, self.seats, self.dealer_picks, self.times, self.numbers, self.player_picks,
                  self.seat_lines, self.picks)
        if _BIG:  # kept little-endian, whatever machine wrote or reads the store
            for arr in arrays:
                arr.byteswap()
        packed = b"".join([self.lines.tobytes(), self.seats.tobytes(), self.dealer_picks.tobytes(),
                           bytes(self.second), self.times.tobytes(), self.numbers.tobytes(),
                           self.player_picks.tobytes(), self.seat_lines.tobytes()])
        names = {"games": self.games, "players": list(self.players), "dealers": list(self.dealers)}
        return ((self.first_line, -1 if self.number_min is None else self.number_min,
                 json.dumps(self.starts, separators=(",", ":")), json.dumps(list(self.ids), separators=(",", ":")),
                 self.picks.tobytes(), bytes(self.cards)),
                (len(self.games), json.dumps(names, separators=(",", ":")), packed, self.time_min, self.time_max,
                 self.number_max))


def _column(values: list[int | None]) -> list[int]:
    """Times or numbers as the layout keeps them (:data:`NONE` for none)."""
    if values.count(None) == len(values):
        return [NONE] * len(values)
    return [NONE if v is None else v for v in values]


def _span(values: list[int | None], low: int | None, high: int | None) -> tuple[int | None, int | None]:
    """The least and greatest of ``values`` (and of ``low``, ``high``), Nones left out."""
    found = [v for v in values if v is not None]
    if low is not None:
        found.append(low)
    if high is not None:
        found.append(high)
    return (min(found), max(found)) if found else (None, None)


def pack(run: Builder | None, session_id: int, batch: LaneGames, seconds: list[bool],
         settlements: Callable[[list[Any]], list[int]], done: Callable[[Builder], None]) -> Builder:
    """``batch``'s games into runs: the run being packed continued while it takes them,
    each full one handed to ``done``; the run being packed last (more may follow).
    ``settlements``: the ids in the store of settlements (:class:`referee.store.rows.Settled`)."""
    offsets = [0, *accumulate(batch.counts)]
    at, end = 0, len(batch.games)
    ids = settlements(batch.settled)
    translated: list[int] | _Translated | None = None
    while at < end:
        if (run is None or run.session_id != session_id or (stop := run.extent(batch, at)) == at
                or (batch.full and not run.follows(batch))):
            if run is not None:
                done(run)
            run = Builder(session_id)
            translated = None
            stop = run.extent(batch, at)
        if translated is None:  # the usual case, the whole batch: every settlement of it used, in C
            translated = list(map(run.ids.__getitem__, ids)) if at == 0 and stop == end else _Translated(run, ids)
        run.add(batch, at, stop, offsets, seconds[at:stop], translated)
        at = stop
    assert run is not None
    return run


#: ``run_keys`` of runs given as (run id, ``names``), in SQLite: one statement a run, its
#: keys read from the names by ``json_each`` (a row a game, in C: as many rows one by one
#: through ``executemany`` took twice the time, each a step of its own).
KEYS_SQLITE = ("INSERT INTO run_keys (value, kind, run_id) SELECT DISTINCT value, 'game', ?1 "
               "FROM json_each(?2, '$.games') UNION ALL SELECT value, 'player', ?1 FROM json_each(?2, '$.players')")


def key_rows(runs: list[tuple[int, str]]) -> list[tuple[str, str, int]]:
    """``run_keys``' rows (value, kind, run id) of runs given as (run id, ``names``)."""
    rows: list[tuple[str, str, int]] = []
    for run_id, names in runs:
        found = json.loads(names)
        rows += [(game, "game", run_id) for game in dict.fromkeys(found["games"])]  # a game once, however recorded
        rows += [(player, "player", run_id) for player in found["players"]]
    return rows


def dealt(run_id: int, picks: Sequence[int], times: Sequence[int],
          names: Sequence[str | None]) -> list[tuple[int, int, str, int | None]]:
    """``dealer_games``' rows of a run (run id, a game's place, its dealer, its time or
    None): ``picks`` each game's dealer among ``names``; a game without a dealer has none."""
    return [(run_id, game, name, None if when == NONE else int(when))
            for game, (pick, when) in enumerate(zip(picks, times, strict=True)) if (name := names[pick]) is not None]


def stored_dealt(row: Any) -> list[tuple[int, int, str, int | None]]:
    """The ``dealer_games`` rows a stored run of clean games gives (the migration fills
    them, ``store verify`` compares): its dealers and times read from its layout alone."""
    count = int(row.games)
    data = bytes(row.layout)
    picks, times = array("H"), array("q")
    at = 12 * count  # past the lines (8 bytes a game) and the seats (4)
    picks.frombytes(data[at:at + 2 * count])
    at += 3 * count  # past the dealers (2) and the second records (1)
    times.frombytes(data[at:at + 8 * count])
    if _BIG:
        picks.byteswap()
        times.byteswap()
    return dealt(int(row.id), picks, times, json.loads(row.names)["dealers"])


def keys_of(names: str) -> set[tuple[str, str]]:
    """The ``run_keys`` a run's ``names`` give (``store verify`` compares)."""
    found = json.loads(names)
    return {("game", g) for g in found["games"]} | {("player", p) for p in found["players"]}


def unfound(conn: Any, source_id: int) -> Iterator[Any]:
    """The runs of clean games of a source that ``run_keys`` does not find by each of
    their games and players (a key removed or changed after it was stored): their rows."""
    import sqlalchemy as sa

    from . import schema

    r, k = schema.runs, schema.run_keys
    query = sa.select(r).where(r.c.source_id == source_id, r.c.games.is_not(None)).order_by(r.c.id)
    for row in conn.execute(query).mappings():
        wanted = keys_of(row["names"])
        values = sorted({value for _, value in wanted})
        present: set[tuple[str, str]] = set()
        for start in range(0, len(values), 500):
            part = values[start:start + 500]
            present.update((kind, value) for value, kind in conn.execute(
                sa.select(k.c.value, k.c.kind).where(k.c.run_id == row["id"], k.c.value.in_(part))))
        if present != wanted:
            yield row


def described(row: Any) -> str:
    """A run of clean games in words a reader finds in the file (``store verify``)."""
    packed = Packed(row)
    end = packed.lines[-1] + packed.seat_lines[-1]
    return (f"run of clean games row {packed.id} (games {packed.games[0]} to {packed.games[-1]}, lines "
            f"{packed.lines[0]} to {end})")


class Seat(NamedTuple):
    """A seat of a stored run, unpacked."""

    id: int
    #: Its game's place in the run.
    game: int
    line: int
    player: str
    #: Its settlement's place in the run's settlement ids.
    pick: int
    #: Its place in its game's line (its game's seats inline), or -1 (a seat line).
    place: int


class Packed:
    """A stored run of clean games, unpacked (``row``: the run's row, every column)."""

    def __init__(self, row: Any) -> None:
        if isinstance(row, Mapping):
            row = SimpleNamespace(**row)
        self.id = int(row.id)
        self.source_id = int(row.source_id)
        self.session_id = int(row.session_id)
        self.first_seat = int(row.first_seat)
        self.rounds = int(row.rounds)
        self.count = int(row.games)
        names = json.loads(row.names)
        self.games: list[str] = names["games"]
        self.players: list[str] = names["players"]
        self.dealer_names: list[str | None] = names["dealers"]
        self.starts: list[str] = json.loads(row.start_balance)
        self.settlements: list[int] = json.loads(row.settlements)
        g, r = self.count, self.rounds
        data = bytes(row.layout)
        parts: list[tuple[str, int]] = [("q", g), ("I", g), ("H", g), ("B", g), ("q", g), ("q", g), ("I", r),
                                        ("I", r)]
        arrays: list[array[int]] = []
        at = 0
        for code, n in parts:
            arr = array(code)
            size = arr.itemsize * n
            arr.frombytes(data[at:at + size])
            if _BIG and arr.itemsize > 1:
                arr.byteswap()
            arrays.append(arr)
            at += size
        (self.lines, self.seats, self.dealers, self.second, self.times, self.numbers, self.player_picks,
         self.seat_lines) = arrays
        picks = array("H")
        picks.frombytes(bytes(row.picks))
        if _BIG:
            picks.byteswap()
        self.picks = picks
        self.cards = bytes(row.cards)
        #: Each game's first seat, as a place in the run (and the end, last).
        self.offsets = [0, *accumulate(self.seats)]

    def number(self, game: int) -> int | None:
        number = self.numbers[game]
        return None if number == NONE else int(number)

    def numbered(self, number: int) -> list[int]:
        """The run's games numbered ``number`` (a second record may repeat its game's)."""
        return [game for game, n in enumerate(self.numbers) if n == number]

    def time_us(self, game: int) -> int | None:
        when = self.times[game]
        return None if when == NONE else int(when)

    def dealer(self, game: int) -> str | None:
        return self.dealer_names[self.dealers[game]]

    def game_cards(self, game: int) -> bytes:
        return self.cards[9 * game:9 * game + 9]

    def card_names(self, game: int) -> tuple[str, ...]:
        """A game's nine cards as a record's fingerprint has them (each card's own name)."""
        from ..rules.cards import DECK

        return tuple(str(DECK[i]) for i in self.game_cards(game))

    def game_of(self, place: int) -> int:
        """The game of the run's seat at ``place`` (from 0)."""
        return bisect_right(self.offsets, place) - 1

    def seat(self, place: int, game: int | None = None) -> Seat:
        game = self.game_of(place) if game is None else game
        delta = self.seat_lines[place]
        return Seat(self.first_seat + place, game, self.lines[game] + delta, self.players[self.player_picks[place]],
                    self.picks[place], place - self.offsets[game] if delta == 0 else -1)

    def seats_of(self, game: int) -> range:
        """The places of a game's seats in the run."""
        return range(self.offsets[game], self.offsets[game + 1])

    def records_of(self, game_id: str) -> list[int]:
        """The run's records of a game (a second record of a game in its session may be in
        the run with the first)."""
        return [game for game, found in enumerate(self.games) if found == game_id]

    def balances(self, nets: list[Decimal], upto: int) -> list[Decimal]:
        """Each seat's balance by the rules, up to the seat at ``upto`` (included): its
        player's before the run plus the nets since (``nets``: by settlement place), summed
        in the order the audit summed them."""
        running = [Decimal(s) for s in self.starts]
        out: list[Decimal] = []
        for place in range(upto + 1):
            player = self.player_picks[place]
            running[player] += nets[self.picks[place]]
            out.append(running[player])
        return out
