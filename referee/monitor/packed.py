"""A game's sums as the monitor's cache keeps them: packed bytes, not text.

Why bytes: a cache holds a row for every game a window may still hold, per segment
(``cache``), millions of them over a large store, and a game's sums are whole numbers of
up to fifty digits (the third cumulant over its denominator). Why ``marshal``: it writes
a tuple of whole numbers and floats exactly (a float as its eight IEEE bytes, so that
sums stay exact, ``cells.dyadic``) in C, ten times as fast as packing them one by one in
Python both ways, which a first run over a large store does for every game and
segment. Version 2 of its format: it writes equal values as equal bytes (the cache tells
payloads apart by their bytes; later versions refer back to an object met before, so the
bytes depend on which objects are shared), and the cache's ``FORMAT`` names it.
"""

from __future__ import annotations

import marshal

from .cells import BETS, Sums, dyadic, undyadic
from .randomness import DealSums

Payload = dict[str, Sums] | DealSums
#: The marshal format written (``marshal.dumps(..., MARSHAL)``).
MARSHAL = 2

#: What a packed deal starts with (a game's sums start with their bets' mask, never 0).
_DEAL = 0


def pack(sums: Payload) -> bytes:
    """A game's sums in one segment as bytes (``unpack`` gives them back, equal)."""
    if isinstance(sums, DealSums):
        return marshal.dumps((_DEAL, *sums.numbers()), MARSHAL)
    values: list[int | float] = [sum(1 << i for i, bet in enumerate(BETS, 1) if bet in sums)]
    for bet in BETS:
        s = sums.get(bet)
        if s is not None:
            values += [s.games, s.seats, s.staked, s.observed, s.expected, s.variance, s.third, s.terms,
                       s.owed_player, s.owed_house, s.paid_unknown]
            # a game's cross terms are one float each (``cells._close``): exactly that float
            values += [undyadic(s.cross), undyadic(s.cross3), s.jump]
    return marshal.dumps(tuple(values), MARSHAL)


def unpack(data: bytes) -> Payload:
    values = marshal.loads(data)
    if values[0] == _DEAL:
        return DealSums.of(list(values[1:]))
    out: dict[str, Sums] = {}
    pos = 1
    for i, bet in enumerate(BETS, 1):
        if values[0] & (1 << i):
            (games, seats, staked, observed, expected, variance, third, terms, owed_player, owed_house, unknown,
             cross, cross3, jump) = values[pos:pos + 14]
            out[bet] = Sums(games, seats, staked, observed, expected, variance, dyadic(cross), jump, third,
                            dyadic(cross3), terms, owed_player, owed_house, unknown)
            pos += 14
    return out
