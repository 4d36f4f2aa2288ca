"""A store's banded sums through its cache (``cache``): the seats stored since the cache's
last run read, valued and added; the bands read back. The whole store is read only when
the cache is new, or cannot follow what the store holds now (``cache``'s docstring)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..profiles import kept_profiles
from . import randomness, reading
from .cache import Batch, Cache, State
from .cells import KINDS, games, newest_of, value
from .facts import Seat
from .run import Summed


def summed(stored: Any, path: Path) -> Summed:
    """The sums of ``stored`` (a ``store.read.Stored``), through the cache at ``path``."""
    cache = Cache(path)
    try:
        with cache.transaction():
            state = _follow(cache, stored)
            banded, deals, scales = cache.banded(state)
    finally:
        cache.close()
    return Summed(banded, deals, scales, state.seats, state.games, state.newest)


def _chains(conn: Any) -> list[str]:
    import sqlalchemy as sa

    from ..store import schema

    s = schema.sources
    return [r.chain for r in conn.execute(sa.select(s.c.chain).order_by(s.c.id))]


def _follow(cache: Cache, stored: Any) -> State:
    """The cache brought up to the store (inside the cache's transaction)."""
    chains = _chains(stored.conn)
    state = cache.state()
    if state is None or state.sources > len(chains) or (state.sources and chains[state.sources - 1] != state.chain):
        cache.reset()
        state = State()
    if state.sources == len(chains):
        return state
    upto = reading.marks(stored.conn)
    seats = reading.seats(stored.conn, state.marks, upto)
    keys, others = keys_of(seats)
    if state.sources and (cache.returning(keys) or (seats and min(s.order for s in seats) <= state.order)):
        cache.reset()  # a game seen before has more seats now, or a seat comes before others: all again
        state = State()
        seats = reading.seats(stored.conn, state.marks, upto)
        keys, others = keys_of(seats)
    sources = stored.sources()[state.sources:]
    with kept_profiles(stored.profiles(sources)):
        batch = batch_of(seats, keys, others, len(chains), chains[-1] if chains else None, upto)
    return cache.add(state, batch)


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
    valuation = value(seats)
    deal_kinds = randomness.DEAL_KINDS
    return Batch(sources, chain, upto, newest_of(seats), max((s.order for s in seats), default=0), len(seats),
                 keys, others, (valuation.scale, valuation.scale2, valuation.scale3),
                 games(seats, valuation, KINDS), randomness.deals(seats, deal_kinds))
