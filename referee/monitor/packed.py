"""A game's sums as the monitor's cache keeps them: packed bytes, not text.

Why bytes: a cache holds a row for every game a window may still hold, per segment
(``cache``), millions of them over a large store, and a game's sums are whole numbers of
up to fifty digits (the third cumulant over its denominator): as bytes a fifth of their
decimal text. A whole number is its length in bytes and its two's-complement bytes; a
float is its eight IEEE bytes (exactly the float, so that sums stay exact, ``cells.dyadic``).
"""

from __future__ import annotations

import struct

from .cells import BETS, Sums, dyadic, undyadic
from .randomness import DEAL_NUMBERS, DealSums

Payload = dict[str, Sums] | DealSums

#: A bet's whole numbers (its cross terms and jump are floats, packed beside them).
_INTS = ("games", "seats", "staked", "observed", "expected", "variance", "third")
_FLOATS = struct.Struct("<3d")


def _int(out: bytearray, x: int) -> None:
    n = (x.bit_length() + 8) // 8
    out.append(n)
    out += x.to_bytes(n, "little", signed=True)


def _ints(data: bytes, pos: int, count: int) -> tuple[list[int], int]:
    out = []
    for _ in range(count):
        n = data[pos]
        out.append(int.from_bytes(data[pos + 1:pos + 1 + n], "little", signed=True))
        pos += 1 + n
    return out, pos


def pack(sums: Payload) -> bytes:
    """A game's sums in one segment as bytes (``unpack`` gives them back, equal)."""
    out = bytearray()
    if isinstance(sums, DealSums):
        out.append(0)
        for x in sums.numbers():
            _int(out, x)
        return bytes(out)
    out.append(sum(1 << i for i, bet in enumerate(BETS, 1) if bet in sums))
    for bet in BETS:
        s = sums.get(bet)
        if s is not None:
            for name in _INTS:
                _int(out, getattr(s, name))
            # a game's cross terms are one float each (``cells._close``): exactly that float
            out += _FLOATS.pack(undyadic(s.cross), undyadic(s.cross3), s.jump)
    return bytes(out)


def unpack(data: bytes) -> Payload:
    if data[0] == 0:
        return DealSums.of(_ints(data, 1, DEAL_NUMBERS)[0])
    out: dict[str, Sums] = {}
    pos = 1
    for i, bet in enumerate(BETS, 1):
        if data[0] & (1 << i):
            values, pos = _ints(data, pos, len(_INTS))
            s = Sums(**dict(zip(_INTS, values, strict=True)))
            cross, cross3, s.jump = _FLOATS.unpack_from(data, pos)
            s.cross, s.cross3 = dyadic(cross), dyadic(cross3)
            pos += _FLOATS.size
            out[bet] = s
    return out
