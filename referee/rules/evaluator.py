"""Table-driven evaluation of 5, 6 and 7 cards.

Why tables: evaluation is the hot path of every command (check, simulate, stats,
par). A hand's value depends only on its multiset of ranks, unless five or more cards
share a suit. So each card gets a key whose sum identifies both the rank multiset
(rank keys chosen so that sums of up to seven never collide) and the suit counts (3
bits a suit), plus one bit per card so that a duplicated card shows as a carry. A
seven-card hand is then seven lookups, six additions and one dict lookup.

Values are ints: ``category << 20`` followed by up to five 4-bit ranks in order of
significance, so ``>`` between values is exactly the order of rule §04. The rank
tables (the costly part: a third of a second to build) and the flush table (13 ms
more, paid by every command's start) ship as package data,
``referee/data/evaluator.tables``, checked by a digest when read; they are built
instead if that file is missing or damaged. Either way it happens on first use, so
that importing stays cheap.
"""

from __future__ import annotations

import hashlib
import struct
import sys
from array import array
from importlib import resources
from itertools import combinations
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values
    from collections.abc import Iterator

from .category import CATEGORY_SHIFT as CATEGORY_SHIFT
from .category import Category

HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH = 5, 6, 7, 8, 9
CATEGORY_NAMES = Category.ranked()  # the enum, weakest first: CATEGORY_NAMES[HIGH_CARD] is Category.HIGH_CARD
ACE, FIVE = 12, 3

# Rank keys whose sums over any multiset of at most seven ranks (each at most four
# times) are distinct; verified when the tables are built.
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_KEYS = (1, 8, 64, 512)
SUIT_FIELD = 4095
RANK_SHIFT = 12
RANK_FIELD = (1 << 24) - 1
CARD_SHIFT = 36
# Bits of the 52-card mask that hold one suit's cards.
SUIT_MASKS = tuple(sum(1 << (r * 4 + s) for r in range(13)) for s in range(4))
STRAIGHTS = tuple(
    (top, frozenset(range(top - 4, top + 1)) if top != FIVE else frozenset((12, 0, 1, 2, 3)))
    for top in range(12, 2, -1)
)

KEYS: tuple[int, ...] = tuple(
    (1 << (CARD_SHIFT + c)) | (RANK_KEYS[c >> 2] << RANK_SHIFT) | SUIT_KEYS[c & 3]
    for c in range(52)
)


def pack(category: int, ranks: tuple[int, ...] | list[int]) -> int:
    """A comparable value from a category and its ranks, most significant first."""
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def category_of(value: int) -> int:
    return value >> CATEGORY_SHIFT


def ranks_of(value: int) -> tuple[int, ...]:
    """The significant ranks packed in a value (trailing unused slots dropped)."""
    # Spelt out, not a generator: every shared hand value is made with it at start-up.
    ranks = (value >> 16 & 15, value >> 12 & 15, value >> 8 & 15, value >> 4 & 15, value & 15)
    return ranks[:_SLOTS[value >> CATEGORY_SHIFT]]


_SLOTS = (5, 4, 3, 3, 1, 5, 2, 2, 1, 1)


def _straight_top(present: set[int] | frozenset[int]) -> int:
    for top, ranks in STRAIGHTS:
        if ranks <= present:
            return top
    return -1


def best_value_of_ranks(counts: list[int]) -> int:
    """Best five-card value of a rank multiset when no flush is possible."""
    by_count = sorted(((n, r) for r, n in enumerate(counts) if n), reverse=True)
    order = [r for n, r in by_count]
    top_n = by_count[0][0]
    if top_n >= 4:
        quad = order[0]
        return pack(FOUR_OF_A_KIND, (quad, max(r for r in order if r != quad)))
    if top_n == 3 and by_count[1][0] >= 2:
        trip = order[0]
        pair = max(r for n, r in by_count[1:] if n >= 2)
        return pack(FULL_HOUSE, (trip, pair))
    top = _straight_top(set(order))
    if top >= 0:
        return pack(STRAIGHT, (top,))
    singles = sorted(order, reverse=True)
    if top_n == 3:
        trip = order[0]
        return pack(THREE_OF_A_KIND, [trip, *[r for r in singles if r != trip][:2]])
    pairs = sorted((r for n, r in by_count if n == 2), reverse=True)
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        return pack(TWO_PAIR, (hi, lo, max(r for r in order if r not in (hi, lo))))
    if len(pairs) == 1:
        p = pairs[0]
        return pack(PAIR, [p, *[r for r in singles if r != p][:3]])
    return pack(HIGH_CARD, singles[:5])


def best_value_of_suited(ranks: list[int]) -> int:
    """Best value of five or more cards of one suit (flush or straight flush)."""
    top = _straight_top(set(ranks))
    if top == ACE:
        return pack(ROYAL_FLUSH, (ACE,))
    if top >= 0:
        return pack(STRAIGHT_FLUSH, (top,))
    return pack(FLUSH, sorted(ranks, reverse=True)[:5])


class Tables:
    """Lookup tables, made once on first use (``shipped`` given: the rank and flush
    tables read from the shipped file)."""

    __slots__ = ("_suited", "flush_suit", "flushes", "ranks")

    def __init__(self, shipped: Shipped | None = None) -> None:
        # One rank table per hand size: the zero key of deuces would otherwise let a
        # five-card and a seven-card multiset share a sum.
        if shipped is None:
            self.ranks: dict[int, dict[int, int]] = {5: {}, 6: {}, 7: {}}
            self._fill_ranks([0] * 13, 0, 0, 0)
        else:
            self.ranks = shipped.ranks
        # The suit of five or more among at most seven cards, by the suits' 3-bit counts.
        self.flush_suit = [-1] * (SUIT_FIELD + 1)
        for key in range(SUIT_FIELD + 1):
            if key & 0o4444 and (key & 7) + (key >> 3 & 7) + (key >> 6 & 7) + (key >> 9 & 7) <= 7:
                for s in range(4):
                    if key >> (3 * s) & 7 >= 5:
                        self.flush_suit[key] = s
        #: The value of five to seven cards of one suit, by their bits of the 52-card
        #: mask moved to the first suit's (``mask >> suit``): the same for every suit.
        self.flushes: dict[int, int] = shipped.flushes if shipped is not None else self._fill_flushes()

        self._suited: dict[int, int] | None = None

    @property
    def suited(self) -> dict[int, int]:
        """:attr:`flushes` by the cards' own bits, every suit (the bulk path's form): made
        when first asked for, as an audit needs :attr:`flushes` alone."""
        suited = self._suited
        if suited is None:
            suited = self._suited = {mask << s: value for s in range(4) for mask, value in self.flushes.items()}
        return suited

    @staticmethod
    def _fill_flushes() -> dict[int, int]:
        flushes: dict[int, int] = {}
        for n in (5, 6, 7):
            for combo in combinations(range(13), n):
                flushes[sum(1 << (r * 4) for r in combo)] = best_value_of_suited(list(combo))
        return flushes

    def _fill_ranks(self, counts: list[int], rank: int, size: int, key: int) -> None:
        if rank == 13:
            if size >= 5:
                table = self.ranks[size]
                if key in table:  # pragma: no cover - guarded by the choice of keys
                    raise AssertionError(f"rank key collision at {counts}")
                table[key] = best_value_of_ranks(counts)
            return
        for n in range(0, min(4, 7 - size) + 1):
            counts[rank] = n
            self._fill_ranks(counts, rank + 1, size + n, key + n * RANK_KEYS[rank])
        counts[rank] = 0


_tables: Tables | None = None
SHIPPED = "evaluator.tables"
_MAGIC = b"referee-evaluator-tables-5\n"


def tables() -> Tables:
    global _tables
    if _tables is None:
        _tables = Tables(read_tables(_shipped_bytes()))
    return _tables


def _shipped_bytes() -> bytes | None:
    try:
        return resources.files("referee").joinpath("data", SHIPPED).read_bytes()
    except OSError:  # pragma: no cover - a stripped install: build the tables instead
        return None


class Shipped(NamedTuple):
    """The tables read from the shipped file: the rank tables by hand size, made per
    size on first use, and the flush table (:attr:`Tables.flushes`)."""

    ranks: RankTables
    flushes: dict[int, int]


def dump_tables(t: Tables) -> bytes:
    """The tables as shipped, little endian, after a magic line and the SHA-256 of the
    payload. Per hand size, the rank table: its size and its number of distinct values
    (uint32), its sorted keys (uint32), its distinct values, sorted (uint32), and for
    each key the index of its value among them (uint16). Then the flush table: its size,
    its sorted keys (uint64) and values (uint32).

    Why values by index: a table holds far fewer values than keys (4,824 in the 49,205
    of seven cards), and a reader makes each value's shared object once, then looks it
    up; reading every value as an int first cost 4 ms of every start. Not compressed:
    inflating it cost 2.5 ms more (a wheel is compressed anyway)."""
    parts = []
    for size in (5, 6, 7):
        table = t.ranks[size]
        keys = sorted(table)
        distinct = sorted(set(table.values()))
        where = {value: i for i, value in enumerate(distinct)}
        parts.append(struct.pack(f"<II{len(keys)}I{len(distinct)}I{len(keys)}H", len(keys), len(distinct), *keys,
                                 *distinct, *(where[table[k]] for k in keys)))
    keys = sorted(t.flushes)
    parts.append(struct.pack(f"<I{len(keys)}Q{len(keys)}I", len(keys), *keys, *(t.flushes[k] for k in keys)))
    payload = b"".join(parts)
    return _MAGIC + hashlib.sha256(payload).digest() + payload


def read_tables(data: bytes | None) -> Shipped | None:
    """The tables from :func:`dump_tables`'s bytes; ``None`` when absent or damaged."""
    if data is None or not data.startswith(_MAGIC):
        return None
    digest, payload = data[len(_MAGIC):len(_MAGIC) + 32], data[len(_MAGIC) + 32:]
    if hashlib.sha256(payload).digest() != digest:
        return None
    spans: dict[int, tuple[int, int, int]] = {}
    offset = 0
    for size in (5, 6, 7):
        if len(payload) < offset + 8:
            return None
        n, m = struct.unpack_from("<II", payload, offset)
        spans[size] = (offset + 8, n, m)
        offset += 8 + 6 * n + 4 * m
    if len(payload) < offset + 4:
        return None
    (n,) = struct.unpack_from("<I", payload, offset)
    if len(payload) != offset + 4 + 12 * n:
        return None
    keys, values = array("Q"), array("I")
    keys.frombytes(payload[offset + 4:offset + 4 + 8 * n])
    values.frombytes(payload[offset + 4 + 8 * n:])
    if sys.byteorder == "big":  # pragma: no cover - shipped little endian
        keys.byteswap()
        values.byteswap()
    return Shipped(RankTables(payload, spans), dict(zip(keys, values, strict=True)))


class RankTables(dict[int, dict[int, int]]):
    """The shipped rank tables by hand size, each made into a dict when first asked for.

    Why lazily: the audit needs only the seven-card table, and as shared hand values
    (``referee.rules.hands`` reads it straight from :meth:`indexed`); making all three
    int dicts up front cost about 8 MB of an audit's 60."""

    __slots__ = ("_payload", "_spans")

    def __init__(self, payload: bytes, spans: dict[int, tuple[int, int, int]]) -> None:
        super().__init__()
        self._payload = payload
        self._spans = spans

    def indexed(self, size: int) -> tuple[array[int], array[int], array[int]]:
        """The ``size``-card table unboxed: its keys, its distinct values, and for each
        key the index of its value among them (:func:`dump_tables`)."""
        start, n, m = self._spans[size]
        keys, distinct, index = array("I"), array("I"), array("H")
        keys.frombytes(self._payload[start:start + 4 * n])
        distinct.frombytes(self._payload[start + 4 * n:start + 4 * n + 4 * m])
        index.frombytes(self._payload[start + 4 * n + 4 * m:start + 6 * n + 4 * m])
        if sys.byteorder == "big":  # pragma: no cover - shipped little endian
            for part in (keys, distinct, index):
                part.byteswap()
        return keys, distinct, index

    def __missing__(self, size: int) -> dict[int, int]:
        if size not in self._spans:
            raise KeyError(size)
        keys, distinct, index = self.indexed(size)
        table = self[size] = dict(zip(keys, map(distinct.__getitem__, index), strict=True))
        return table

    def _whole(self) -> RankTables:
        """Every size made: for the readers of the whole mapping."""
        for size in self._spans:
            self[size]
        return self

    def items(self) -> dict_items[int, dict[int, int]]:
        return dict.items(self._whole())

    def values(self) -> dict_values[int, dict[int, int]]:
        return dict.values(self._whole())

    def keys(self) -> dict_keys[int, dict[int, int]]:
        return dict.keys(self._whole())

    def __iter__(self) -> Iterator[int]:
        return dict.__iter__(self._whole())

    def __len__(self) -> int:
        return dict.__len__(self._whole())

    def __contains__(self, size: object) -> bool:
        return size in self._spans or dict.__contains__(self, size)

    def get(self, size: int, default: Any = None) -> Any:
        if size not in self:
            return default
        return self[size]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RankTables):
            other._whole()
        return dict.__eq__(self._whole(), other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None


def write_shipped(path: str) -> None:
    """Write the tables to ``path`` (how ``referee/data/evaluator.tables`` is made)."""
    with open(path, "wb") as out:
        out.write(dump_tables(Tables()))


def value_of_key(key: int, size: int, t: Tables) -> int:
    """Value of a hand from the sum of its card keys (cards known distinct)."""
    suit = t.flush_suit[key & SUIT_FIELD]
    if suit < 0:
        return t.ranks[size][(key >> RANK_SHIFT) & RANK_FIELD]
    return t.suited[(key >> CARD_SHIFT) & SUIT_MASKS[suit]]


# Small keys for the bulk path: the rank key above 16 bits and one nibble a suit,
# each started at 3 so that a count of five or more sets the nibble's top bit. Sums
# stay below 2**40, where Python's int arithmetic is cheapest.
SMALL_SHIFT = 16
SUIT_START = 0x3333
FLUSH_BITS = 0x8888
SMALL_KEYS: tuple[int, ...] = tuple(
    (RANK_KEYS[c >> 2] << SMALL_SHIFT) | (1 << (4 * (c & 3))) for c in range(52)
)


def rank7(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
    """Value of seven distinct card indices; the fastest path, no checks.

    For callers that deal from a deck (simulate, stats, par) and so cannot hold
    duplicates.
    """
    t = _tables or tables()
    k = SMALL_KEYS
    key = SUIT_START + k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
    if key & FLUSH_BITS:
        return suited_value((a, b, c, d, e, f, g), key, t)
    return t.ranks[7][key >> SMALL_SHIFT]


def suited_value(cards: tuple[int, ...], key: int, t: Tables) -> int:
    """Value of distinct cards whose small-key sum says five or more share a suit."""
    suit = next(s for s in range(4) if key >> (4 * s + 3) & 1)
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << card
    return t.suited[mask]
