"""A segment's newest seats, read without reading the whole store: the desk's Watch draws a
group's control chart over them (:mod:`referee.desk.charts`).

Why a walk that widens: the store keeps a live table's clean games in runs of consecutive
games of one session, every seat of them together, and the SQL can find which runs hold a
segment's seats (a table's sessions, a player's or a dealer's keys) but not how many of
them each holds: a run of a player's table holds the other players' seats too, a dealer's
run the other dealers' games, and a stake band's seats lie in every run. So the walk
starts where the newest seats the SQL counts would start (:func:`reading.start_of`: the
rows and runs that may hold the segment's seats, counted back from the newest), reads
from there, counts the segment's own seats, and starts further back, in proportion to
what it found, until it holds more than ``limit`` of them or reaches the first seat. Of
those, the window is the newest games whose seats in the segment number ``limit`` at most
(a game that would cross the limit is left out whole, with everything before it): exactly
the segment's newest ``limit`` seats when the limit falls between two games.

A player's seats are made of the runs that hold them only (their games placed at their
first seats all the same, :func:`reading.placed`'s ``keep``), so a player's window reads
each such run's other seats as bytes, not as seats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .cells import KEYS
from .facts import Seat
from .reading import only, placed, start_of

#: How much further back each widening starts than the seats found so far say it needs
#: (a segment's share of a store's seats is not even through time).
MARGIN = 1.25
#: The most seats the SQL may count back for one window, as a multiple of its limit: a
#: rare stake band's newest seats may lie anywhere in a store of millions, and a page
#: must answer (a band none of the newest 400,000 seats holds took 9 s to find empty on
#: the bench's store of 10 million seats; 200,000, about 4.5 s); past it the window holds
#: the segment's seats among those, the newest, and the page says how many.
REACH = 20


@dataclass(frozen=True, slots=True)
class Window:
    """A segment's newest seats: whole games, in the store's order, newest last."""

    seats: list[Seat]
    #: How many games they are.
    games: int
    #: Whether the segment has older seats than these (left out).
    cut: bool
    #: The seat the read began at (0: the first seat of the store).
    start: int


def newest(conn: Any, segment: tuple[str, str], limit: int) -> Window:
    """The segment's newest ``limit`` seats, whole games (see the module's docstring)."""
    kind, value = segment
    key_of = KEYS[kind]
    rows_where, runs_where = only(segment)
    keep = (lambda who: who == value) if kind == "player" else None
    count = limit + 1
    while True:
        start = start_of(conn, count, rows_where, runs_where)
        mine = [seat for seat in placed(conn, start, segment, keep=keep) if key_of(seat) == value]
        if not start or len(mine) > limit or count >= REACH * limit:
            break
        share = len(mine) / count
        count = min(REACH * limit, max(2 * count, math.ceil((limit + 1) / share * MARGIN) if share else 0))
    return _trim(mine, limit, start)


def _trim(seats: list[Seat], limit: int, start: int) -> Window:
    """The newest games of ``seats`` (placed, in order) whose seats number ``limit`` at
    most; the oldest game read is left out when the read began after the first seat and
    may have cut it (its seats before ``start`` not read)."""
    games: list[list[Seat]] = []
    at: dict[object, int] = {}
    for seat in seats:
        place = at.get(seat.game)
        if place is None:
            at[seat.game] = len(games)
            games.append([seat])
        else:
            games[place].append(seat)
    kept: list[list[Seat]] = []
    held = 0
    for game in reversed(games):
        if held + len(game) > limit:
            break
        kept.append(game)
        held += len(game)
    cut = len(kept) < len(games)
    if start and not cut and kept and kept[-1][0].game[0] != "seat":  # its older seats may be before the start
        held -= len(kept.pop())
        cut = True
    kept.reverse()
    out = [seat for game in kept for seat in game]
    return Window(out, len(kept), cut or bool(start), start)
