"""A store's banded sums through its cache (``cache``): the seats stored since the cache's
last run read, valued and added; the bands read back. The whole store is read only when
the cache is new, or cannot follow what the store holds now (``cache``'s docstring)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..profiles import kept_profiles
from . import randomness, reading
from .cache import Batch, Cache, State
from .cells import KINDS, newest_of
from .facts import Seat
from .run import Summed
from .valuing import value

__all__ = ["STEP_SEATS", "Batch", "State", "batch_of", "keys_of", "summed"]

#: How many stored seats a step of the cache reads at most (whole sources, one at least):
#: what bounds the memory of a first run over a large store, and how often it commits.
STEP_SEATS = 200_000


def summed(stored: Any, path: Path, told: Callable[[int, int], None] | None = None) -> Summed:
    """The sums of ``stored`` (a ``store.read.Stored``), through the cache at ``path``;
    ``told(seats read, seats to read)`` after each step of a long catch-up."""
    cache = Cache(path)
    whole = False
    try:
        with cache.transaction(write=False):  # up to date: read beside any writer, no lock
            state = cache.state() or State()
            if _followed(state, _sources(stored.conn)):
                banded, deals, scales = cache.banded(state)
                return Summed(banded, deals, scales, state.seats, state.games, state.newest, state.paid_unknown)
        while True:
            with cache.transaction():  # one step: a few sources, committed (a run cut short keeps them)
                state, done, whole = _step(cache, stored, whole)
                if done:  # the bands of this very state, before another run can change them
                    banded, deals, scales = cache.banded(state)
                    break
            if told is not None:
                told(*_progress(stored, state))
    finally:
        cache.close()
    return Summed(banded, deals, scales, state.seats, state.games, state.newest, state.paid_unknown)


def _sources(conn: Any) -> list[tuple[int, str, int]]:
    """The stored sources in the order they were stored: id, chain hash, seats."""
    import sqlalchemy as sa

    from ..store import schema

    s = schema.sources
    return [(r.id, r.chain, r.seats) for r in conn.execute(sa.select(s.c.id, s.c.chain, s.c.seats).order_by(s.c.id))]


def _progress(stored: Any, state: State) -> tuple[int, int]:
    sources = _sources(stored.conn)
    return sum(n for _, _, n in sources[:state.sources]), sum(n for _, _, n in sources)


def _followed(state: State, sources: list[tuple[int, str, int]]) -> bool:
    """Whether ``state`` holds every source of the store (and is of this store)."""
    return state.sources == len(sources) and (not sources or sources[-1][1] == state.chain)


def _step(cache: Cache, stored: Any, whole: bool = False) -> tuple[State, bool, bool]:
    """The cache brought a step nearer the store (inside the cache's transaction, so that
    two runs on one cache take turns): its state, whether it holds the whole store, and
    whether the next step must read the whole store at once (``whole``: a game that a
    later source holds again joins its earlier seats only when both are read together)."""
    sources = _sources(stored.conn)
    state = cache.state()
    if state is not None and state.sources > len(sources):
        stored.conn.rollback()  # another run saw sources stored since this one looked: look again
        sources = _sources(stored.conn)
    if state is None or state.sources > len(sources) or (
            state.sources and sources[state.sources - 1][1] != state.chain):
        cache.reset()  # another store, or this one changed in what the cache had seen
        state = State()
    if state.sources == len(sources):
        return state, True, False
    if whole and state.sources:
        cache.reset()
        state = State()
    end, wanted = state.sources, 0
    while end < len(sources) and (whole or end == state.sources or wanted + sources[end][2] <= STEP_SEATS):
        wanted += sources[end][2]
        end += 1
    upto = _marks(stored.conn, sources[state.sources][0], sources[end - 1][0], state.marks)
    seats = reading.seats(stored.conn, state.marks, upto)
    keys, others = keys_of(seats)
    if state.sources and (cache.returning(keys) or (seats and min(s.order for s in seats) <= state.order)):
        # a game seen before has more seats now, or a seat comes before others: the whole
        # store again, in one step (its memory: what a run without the cache holds)
        cache.reset()
        return State(), False, True
    with kept_profiles(stored.profiles(stored.sources()[state.sources:end])):
        batch = batch_of(seats, keys, others, end, sources[end - 1][1], upto)
    return cache.add(state, batch), end == len(sources), False


def _marks(conn: Any, first: int, last: int, before: reading.Marks) -> reading.Marks:
    """The last seat row and run of the sources ``first`` to ``last`` (ids; a source's rows
    come after every earlier source's: sources are stored one at a time, under the store's lock)."""
    import sqlalchemy as sa

    from ..store import schema

    se = schema.sessions
    sessions = sa.select(se.c.id).where(se.c.source_id >= first, se.c.source_id <= last)
    found = [conn.execute(sa.select(sa.func.max(t.c.id)).where(t.c.session_id.in_(sessions))).scalar()
             for t in (schema.seats, schema.runs)]
    return max(before[0], found[0] or 0), max(before[1], found[1] or 0)


def keys_of(seats: list[Seat]) -> tuple[set[str], int]:
    """The games on a table by their id (which a later source may hold again), and how
    many others (told apart by their stored row: new with it)."""
    keys: set[str] = set()
    others: set[object] = set()
    for s in seats:
        if isinstance(s.game, tuple) and s.game[0] == "game":
            keys.add(json.dumps(s.game))
        else:
            others.add(s.game)
    return keys, len(others)


def batch_of(seats: list[Seat], keys: set[str], others: int, sources: int, chain: str | None,
           upto: tuple[int, int]) -> Batch:
    from .columns import games  # NumPy, imported only when there is something to sum

    valuation = value(seats)
    return Batch(sources, chain, upto, newest_of(seats), max((s.order for s in seats), default=0), len(seats),
                 keys, others, (valuation.scale, valuation.scale2, valuation.scale3),
                 games(seats, valuation, KINDS), randomness.deals(seats),
                 sum(1 for s in seats if s.paid_u is None))
