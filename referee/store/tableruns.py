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

The layout (``runs.layout``), little-endian arrays one after the other: each game's line
(int64), seats (uint32), dealer (uint16, into ``names["dealers"]``), second record (0/1,
one byte) and time (int64 microseconds, :data:`NO_TIME` for none); then each seat's
player (uint32, into ``names["players"]``) and line (uint32, from its game's line: 0 for
a seat inline in its game's line, which is then the seat's place there).
"""

from __future__ import annotations

import json
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from itertools import accumulate
from types import SimpleNamespace
from typing import Any, NamedTuple

#: A game without a time, in the layout's times.
NO_TIME = -(1 << 63)
#: At most this many seats a run (a game of more seats is kept as rows: ``rows.lane_game``).
RUN_SEATS = 8192
_BIG = sys.byteorder == "big"


class LaneGame(NamedTuple):
    """A live table's game the fast lane took whole, read from a JSON Lines game line
    (its seats inline or as seat lines after it): what a run keeps of it."""

    line: int
    #: The game's number (``round``), None when it records none.
    number: int | None
    game: str
    time_us: int | None
    dealer: str | None
    #: Nine bytes: the card indices of the shared hand, flop, turn, river and dealer.
    cards: bytes
    players: tuple[str, ...]
    #: Each seat's settlement (:class:`referee.store.rows.Settled`).
    settled: tuple[Any, ...]
    #: Each seat's player's balance by the rules before the seat.
    before: tuple[Decimal, ...]
    #: Each seat's line; None when every seat is inline, on the game's line.
    lines: tuple[int, ...] | None


class Builder:
    """A run being packed: consecutive lane games of one session, numbered one after the
    other (or none numbered). ``settlement`` gives a settlement's id in the store."""

    def __init__(self, session_id: int, first: LaneGame, settlement: Callable[[Any], int]) -> None:
        self.session_id = session_id
        self.first_line = first.line
        self.first_number = -1 if first.number is None else first.number
        self.next_number = None if first.number is None else first.number
        self.settlement = settlement
        self.games: list[str] = []
        self.lines = array("q")
        self.seats = array("I")
        self.dealer_picks = array("H")
        self.second = bytearray()
        self.times = array("q")
        self.players: dict[str, int] = {}
        self.starts: list[str] = []
        self.player_picks = array("I")
        self.seat_lines = array("I")
        self.dealers: dict[str | None, int] = {}
        #: Settlements by their object (one per lane entry: seats share it), with the
        #: objects kept so that an id is not reused; each with its place in ``ids``.
        self.seen: dict[int, int] = {}
        self.kept: list[Any] = []
        self.ids: dict[int, int] = {}
        self.picks = array("H")
        self.cards = bytearray()
        self.rounds = 0
        self.time_min: int | None = None
        self.time_max: int | None = None

    def takes(self, session_id: int, game: LaneGame) -> bool:
        """Whether ``game`` continues this run (same session, next number, room left)."""
        if session_id != self.session_id or self.rounds + len(game.players) > RUN_SEATS:
            return False
        if self.next_number is None:
            return game.number is None
        return game.number == self.next_number

    def add(self, game: LaneGame, second: bool) -> None:
        self.games.append(game.game)
        self.lines.append(game.line)
        self.seats.append(len(game.players))
        self.dealer_picks.append(self.dealers.setdefault(game.dealer, len(self.dealers)))
        self.second.append(second)
        when = game.time_us
        self.times.append(NO_TIME if when is None else when)
        if when is not None:
            self.time_min = when if self.time_min is None else min(self.time_min, when)
            self.time_max = when if self.time_max is None else max(self.time_max, when)
        if self.next_number is not None:
            self.next_number += 1
        self.cards += game.cards
        players = self.players
        for player, before in zip(game.players, game.before, strict=True):
            if player not in players:
                players[player] = len(players)
                self.starts.append(str(before))
        self.player_picks.extend(map(players.__getitem__, game.players))
        if game.lines is None:
            self.seat_lines.extend(bytes(len(game.players)))
        else:
            self.seat_lines.extend(line - game.line for line in game.lines)
        self._picks(game.settled)
        self.rounds += len(game.players)

    def _picks(self, settled: tuple[Any, ...]) -> None:
        try:
            self.picks.extend(list(map(self.seen.__getitem__, map(id, settled))))  # all, or none on a new one
        except KeyError:
            for facts in settled:
                found = self.seen.get(id(facts))
                if found is None:
                    settlement_id = self.settlement(facts)
                    found = self.seen[id(facts)] = self.ids.setdefault(settlement_id, len(self.ids))
                    self.kept.append(facts)
                self.picks.append(found)

    def values(self) -> tuple[Any, ...]:
        """The run's columns from ``first_line`` to ``cards``, then from ``games`` on
        (``id``, ``source_id``, ``session_id``, ``first_seat``, ``rounds`` and ``digest``
        are the writer's)."""
        layout = [self.lines, self.seats, self.dealer_picks, self.times]
        seats = [self.player_picks, self.seat_lines]
        picks = self.picks
        if _BIG:
            for arr in (*layout, *seats, picks):
                arr.byteswap()
        packed = b"".join([self.lines.tobytes(), self.seats.tobytes(), self.dealer_picks.tobytes(),
                           bytes(self.second), self.times.tobytes(), self.player_picks.tobytes(),
                           self.seat_lines.tobytes()])
        names = {"games": self.games, "players": list(self.players), "dealers": list(self.dealers)}
        return ((self.first_line, self.first_number, json.dumps(self.starts, separators=(",", ":")),
                 json.dumps(list(self.ids), separators=(",", ":")), picks.tobytes(), bytes(self.cards)),
                (len(self.games), json.dumps(names, separators=(",", ":")), packed, self.time_min, self.time_max))

    def found_by(self) -> Iterator[tuple[str, str]]:
        """What ``run_keys`` holds of the run: each game's id, each player's."""
        for game in self.games:
            yield "game", game
        for player in self.players:
            yield "player", player


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
        self.first_number = int(row.first_number)
        names = json.loads(row.names)
        self.games: list[str] = names["games"]
        self.players: list[str] = names["players"]
        self.dealer_names: list[str | None] = names["dealers"]
        self.starts: list[str] = json.loads(row.start_balance)
        self.settlements: list[int] = json.loads(row.settlements)
        g, r = self.count, self.rounds
        data = bytes(row.layout)
        parts: list[tuple[str, int]] = [("q", g), ("I", g), ("H", g), ("B", g), ("q", g), ("I", r), ("I", r)]
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
        self.lines, self.seats, self.dealers, self.second, self.times, self.player_picks, self.seat_lines = arrays
        picks = array("H")
        picks.frombytes(bytes(row.picks))
        if _BIG:
            picks.byteswap()
        self.picks = picks
        self.cards = bytes(row.cards)
        #: Each game's first seat, as a place in the run (and the end, last).
        self.offsets = [0, *accumulate(self.seats)]

    def number(self, game: int) -> int | None:
        return None if self.first_number < 0 else self.first_number + game

    def time_us(self, game: int) -> int | None:
        when = self.times[game]
        return None if when == NO_TIME else int(when)

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

    def game_index(self, game_id: str) -> int | None:
        try:
            return self.games.index(game_id)
        except ValueError:
            return None

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
