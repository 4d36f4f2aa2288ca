"""The outcome counts of every decision, shipped: what an exact decision value is made of.

At the decision the player knows five cards. Calling ends, over the 1,070,190
completions, in a final category of the player's (10) and an outcome (the dealer does
not qualify, the player wins, ties, loses): 40 counts. A profile's value of calling is
their dot product with its payouts (``strategy.Payoffs``: by category and outcome), the
chance the dealer qualifies is one minus the first column's sum, and the chance of each
final category its row's. The counts depend on no payout, only on the qualifier.

A table stores them in a *layout*: which categories share a column of counts, and
whether ties are counted by category or in all. :data:`FULL` keeps all 40 (the cache
of ``situations.py``, for any profile). :data:`PAYOUTS` is what every profile pays by:
the Ante pays by the player's category, but every paytable so far pays high card to
straight alike (1:1), a tie is a push and a loss loses both stakes whatever the
category; so it keeps the counts not qualified and won for high card to straight
together and for each better category, the ties of the pair, and each category's
turn-and-river pairs (for the chance of each final category). A profile it does not
fit (:func:`fits`, checked before any look-up) is served from a :data:`FULL` table,
counted and cached. Half the size, the same exact values.

``referee/data/situations.counts`` is the :data:`PAYOUTS` table for the built-ins'
qualifier (a pair of 4s). A situation is a flop class (1,755) and a hole pair of its
49 other cards (1,176): 2,063,880 in all, every suit arrangement of five cards mapped
to one of them (:class:`Classes`).

A class's block, before compression: how many (pair, category) and (pair, group)
entries follow (uint32 each); each pair's mask of the categories it can end in
(uint16); for each category in the mask, pair after pair, its turn-and-river pairs
(uint16, at most 1,081); then for each column group the pair can end in, pair after
pair, the completions the dealer does not qualify in and the player wins (uint32
each), and the ties (by group, or one count a pair). Losses are the rest. Each block
is compressed by itself (deflate) so a decision reads one class, and the file's
index carries the SHA-256 of each: a damaged block is an error, never a wrong value.
Reading needs no NumPy.

Why deflate, not LZMA: LZMA makes the file a fifth smaller, but inflating a class takes
three to four times as long, and a log of 10,000 decisions touches nearly every one of
the 1,755 classes (bench/RESULTS.md, issue 27).
"""

from __future__ import annotations

import hashlib
import struct
import sys
import zlib
from array import array
from collections.abc import Callable, Sequence
from itertools import accumulate, combinations, permutations
from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..rules.strategy import Payoffs

PAIRS = 1176  # C(49, 2) hole pairs a flop
TURN_RIVER = 1081  # C(47, 2)
DEALERS = 990  # C(45, 2)
COMPLETIONS = TURN_RIVER * DEALERS
FLOPS = 22_100  # C(52, 3)
MAGIC = b"referee-situation-counts-2\n"
NOT_QUALIFIED, WIN, TIE, LOSE = 0, 1, 2, 3

Row = tuple[tuple[int, int, int, int], ...]  # [category][not qualified, win, tie, lose]


class DamagedTable(Exception):
    """A shipped or cached block whose digest does not match (reinstall, or clear the cache)."""


class Layout:
    """Which categories share a column of counts, and whether ties are kept by group."""

    __slots__ = ("code", "group_count", "group_mask", "groups", "ties_by_group")

    def __init__(self, code: int, groups: tuple[tuple[int, ...], ...], ties_by_group: bool) -> None:
        self.code = code  # how a file names it
        self.groups = groups
        self.ties_by_group = ties_by_group
        group_of = {c: g for g, members in enumerate(groups) for c in members}
        masks = tuple(sum(1 << g for g in {group_of[c] for c in range(10) if mask >> c & 1})
                      for mask in range(1 << 10))
        #: The groups a pair can end in, from the mask of the categories it can end in,
        #: and how many they are.
        self.group_mask: Callable[[int], int] = masks.__getitem__
        self.group_count: Callable[[int], int] = tuple(m.bit_count() for m in masks).__getitem__


FULL = Layout(1, tuple((c,) for c in range(10)), True)
PAYOUTS = Layout(2, ((0, 1, 2, 3, 4), (5,), (6,), (7,), (8,), (9,)), False)
LAYOUTS = {layout.code: layout for layout in (FULL, PAYOUTS)}


def fits(layout: Layout, payoffs: Payoffs) -> bool:
    """Whether a profile's payouts are a dot product with ``layout``'s counts: its rows
    alike within each group (not qualified and win; tie and lose too when ties are by
    group), and otherwise the tie and the loss paying alike in every category."""
    table = payoffs.table
    columns = (NOT_QUALIFIED, WIN, TIE, LOSE) if layout.ties_by_group else (NOT_QUALIFIED, WIN)
    for members in layout.groups:
        if any(table[c][k] != table[members[0]][k] for c in members for k in columns):
            return False
    return layout.ties_by_group or all(row[TIE] == table[0][TIE] and row[LOSE] == table[0][LOSE] for row in table)


def compress(body: bytes) -> bytes:
    return zlib.compress(body, 9)


def decompress(data: bytes) -> bytes:
    """A block body; :class:`DamagedTable` if ``data`` is not one compressed."""
    try:
        return zlib.decompress(data)
    except zlib.error as err:
        raise DamagedTable(f"a block that does not inflate: {err}") from None


def encode(counts: Any, layout: Layout = FULL) -> bytes:
    """One class's counts (a NumPy array ``[pair, category, outcome]`` of shape
    (pairs, 10, 4)) as a block body (uncompressed), in ``layout``."""
    import numpy as np

    counts = np.asarray(counts, dtype=np.int64)
    totals = counts.sum(axis=2)
    if (totals % DEALERS).any():
        raise ValueError("a category's completions are not whole turn-and-river pairs")
    present = totals > 0
    grouped = np.stack([counts[:, list(members)].sum(axis=1) for members in layout.groups], axis=1)
    in_group = grouped.sum(axis=2) > 0
    columns = (NOT_QUALIFIED, WIN, TIE) if layout.ties_by_group else (NOT_QUALIFIED, WIN)
    sizes = np.array([present.sum(), in_group.sum()], dtype="<u4")
    parts = [sizes, (present * (1 << np.arange(10))).sum(axis=1).astype("<u2"),
             (totals[present] // DEALERS).astype("<u2"), *(grouped[:, :, k][in_group].astype("<u4") for k in columns)]
    if not layout.ties_by_group:
        parts.append(counts[:, :, TIE].sum(axis=1).astype("<u4"))
    return b"".join(part.tobytes() for part in parts)


class Block:
    """One class's counts in a layout, read from a block body without copying it
    (memory views). :meth:`figures` is what a look-up needs; :meth:`row`, the 40
    counts (:data:`FULL` only)."""

    __slots__ = ("columns", "layout", "looked", "masks", "offsets", "tie", "turns")

    def __init__(self, body: bytes, layout: Layout = FULL, pairs: int = PAIRS) -> None:
        if len(body) < 8 + 2 * pairs:
            raise DamagedTable("a block of the wrong size")
        entries, groups = struct.unpack_from("<II", body)
        view = memoryview(body)[8:]
        self.layout = layout
        self.masks = _ints(view[:2 * pairs], "H")
        width = 3 if layout.ties_by_group else 2
        at = 2 * pairs + 2 * entries
        end = at + 4 * width * groups
        if len(view) != end + (0 if layout.ties_by_group else 4 * pairs):
            raise DamagedTable("a block of the wrong size")
        self.turns = _ints(view[2 * pairs:at], "H")
        self.columns = [_ints(view[at + 4 * groups * k:at + 4 * groups * (k + 1)], "I") for k in range(width)]
        self.tie = None if layout.ties_by_group else _ints(view[end:], "I")
        self.offsets: tuple[Sequence[int], Sequence[int]] | None = None  # made on the second look-up
        self.looked = False

    def _starts(self, pair: int) -> tuple[int, int]:
        """Where pair ``pair``'s categories and groups start in their arrays: summed for
        a block's first look-up (most blocks of a log have one), from offsets after."""
        offsets = self.offsets
        if offsets is not None:
            return offsets[0][pair], offsets[1][pair]
        count = self.layout.group_count
        if not self.looked:
            self.looked = True
            before = self.masks[:pair]
            return sum(map(int.bit_count, before)), sum(map(count, before))
        offsets = self.offsets = (array("I", accumulate(map(int.bit_count, self.masks), initial=0)),
                                  array("I", accumulate(map(count, self.masks), initial=0)))
        return offsets[0][pair], offsets[1][pair]

    def figures(self, pair: int, payoffs: Payoffs) -> tuple[int, int, list[int]]:
        """Pair ``pair``'s scaled net of calling under ``payoffs`` (which the layout must
        :func:`fit`), the completions the dealer does not qualify in, and the
        turn-and-river pairs ending in each category."""
        values, not_qualified, turns = self.figures_under(pair, (payoffs,))
        return values[0], not_qualified, turns

    def figures_under(self, pair: int, tables: Sequence[Payoffs]) -> tuple[list[int], int, list[int]]:
        """:meth:`figures` under several payout tables of one layout in one pass (the
        monitor's: the net's first three moments are the counts dotted with the table, its
        squares and its cubes)."""
        layout = self.layout
        mask = self.masks[pair]
        k, g = self._starts(pair)
        turns = [0] * 10
        for i, category in enumerate(_CATEGORIES[mask], k):
            turns[category] = self.turns[i]
        values = [0] * len(tables)
        not_qualified = won = tied = 0
        for i, group in enumerate(_CATEGORIES[layout.group_mask(mask)], g):
            line = layout.groups[group][0]
            nq, win = self.columns[0][i], self.columns[1][i]
            if layout.ties_by_group:
                tie = self.columns[2][i]
                lose = sum(turns[c] for c in layout.groups[group]) * DEALERS - nq - win - tie
            for t, payoffs in enumerate(tables):
                pays = payoffs.table[line]
                values[t] += nq * pays[NOT_QUALIFIED] + win * pays[WIN]
                if layout.ties_by_group:
                    values[t] += tie * pays[TIE] + lose * pays[LOSE]
            not_qualified += nq
            won += win
        if self.tie is not None:
            tied = self.tie[pair]
            for t, payoffs in enumerate(tables):
                table = payoffs.table
                values[t] += tied * table[0][TIE] + (COMPLETIONS - not_qualified - won - tied) * table[0][LOSE]
        return values, not_qualified, turns

    def row(self, pair: int) -> Row:
        """``[category][not qualified, win, tie, lose]`` of hole pair ``pair`` (:data:`FULL`)."""
        assert self.layout.ties_by_group and len(self.layout.groups) == 10
        mask = self.masks[pair]
        k, g = self._starts(pair)
        out = [(0, 0, 0, 0)] * 10
        for i, category in enumerate(_CATEGORIES[mask]):
            a, b, c = (column[g + i] for column in self.columns)
            out[category] = (a, b, c, self.turns[k + i] * DEALERS - a - b - c)
        return tuple(out)


_CATEGORIES = tuple(tuple(c for c in range(10) if mask >> c & 1) for mask in range(1 << 10))


def _ints(view: memoryview, code: Literal["H", "I"]) -> Sequence[int]:
    """Little-endian integers of ``view``: the view itself, cast, on a little-endian machine."""
    if sys.byteorder == "little":
        return view.cast(code)
    found = array(code, bytes(view))  # pragma: no cover - stored little endian
    found.byteswap()  # pragma: no cover
    return found  # pragma: no cover


PERMS = list(permutations(range(4)))


class Classes:
    """The 1,755 flop classes (their canonical flops, in order), and where a situation
    falls: its class and hole pair, through the suit permutation that makes its flop
    canonical (any such permutation gives the same counts, by symmetry). ``places``,
    when given (the shipped table's), holds each of the 22,100 flops' class and
    permutation (an index into :data:`PERMS`) by the flop's colex rank."""

    def __init__(self, flops: Sequence[tuple[int, ...]], places: tuple[Sequence[int], Sequence[int]] | None = None
                 ) -> None:
        self.flops = list(flops)
        self.index = {flop: i for i, flop in enumerate(self.flops)}
        self.places = places
        self.canonical: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}

    def _place(self, flop: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        a, b, c = flop
        if self.places is not None:
            rank = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6
            return self.places[0][rank], PERMS[self.places[1][rank]]
        found = self.canonical.get(flop)
        if found is None:
            canon, perm = canonical(flop)
            found = self.canonical[flop] = (self.index[canon], perm)
        return found

    def locate(self, known: Sequence[int]) -> tuple[int, int]:
        """(class index, hole-pair index) of two private cards and a flop."""
        index, perm = self._place(tuple(sorted(known[2:5])))
        canon = self.flops[index]
        a, b = sorted((c & ~3) | perm[c & 3] for c in known[:2])
        # Their places among the 49 other cards, then the pair's in combinations order.
        i = a - sum(c < a for c in canon)
        j = b - sum(c < b for c in canon)
        return index, i * (97 - i) // 2 + j - i - 1


def places(flops: Sequence[tuple[int, ...]]) -> tuple[list[int], list[int]]:
    """Every flop's class and permutation (see :class:`Classes`), by colex rank."""
    index = {flop: i for i, flop in enumerate(flops)}
    classes, perms = [0] * 22_100, [0] * 22_100
    for flop in combinations(range(52), 3):
        a, b, c = flop
        rank = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6
        canon, perm = canonical(flop)
        classes[rank], perms[rank] = index[canon], PERMS.index(perm)
    return classes, perms


def canonical(flop: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The smallest sorted image of three cards under a suit permutation, and one
    permutation that gives it (as ``perm[suit]``).

    Only the orders of the suits the flop holds are tried, given the first labels: any
    other labelling has a larger image."""
    present = sorted({c & 3 for c in flop})
    absent = [s for s in range(4) if s not in present]
    best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    for order in permutations(range(len(present))):
        perm = [0] * 4
        for suit, label in zip(present, order, strict=True):
            perm[suit] = label
        for k, suit in enumerate(absent):
            perm[suit] = len(present) + k
        image = tuple(sorted((c & ~3) | perm[c & 3] for c in flop))
        if best is None or image < best[0]:
            best = (image, tuple(perm))
    assert best is not None
    return best


class Shipped:
    """``situations.counts``: a header (the qualifier it was counted for, the canonical
    flops, each block's place and SHA-256, each flop's class and permutation), then the
    compressed blocks."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        if stream.read(len(MAGIC)) != MAGIC:
            raise DamagedTable("not a table of situation counts")
        (size,) = struct.unpack("<I", stream.read(4))
        header = stream.read(size)
        if len(header) != size or hashlib.sha256(header).digest() != stream.read(32):
            raise DamagedTable("the table's header is damaged")
        self.qualifier, count, code = struct.unpack_from("<III", header)
        if code not in LAYOUTS:
            raise DamagedTable(f"a table of an unknown layout ({code})")
        self.layout = LAYOUTS[code]
        at = 12
        self.flops = [tuple(header[at + 3 * i:at + 3 * i + 3]) for i in range(count)]
        at += 3 * count
        self.offsets = struct.unpack_from(f"<{count + 1}Q", header, at)
        at += 8 * (count + 1)
        self.digests = [header[at + 32 * i:at + 32 * (i + 1)] for i in range(count)]
        at += 32 * count
        view = memoryview(header)
        self.places = (_ints(view[at:at + 2 * FLOPS], "H"), view[at + 2 * FLOPS:at + 3 * FLOPS])
        self.data_start = len(MAGIC) + 4 + size + 32

    def block_bytes(self, index: int) -> bytes:
        """Block ``index`` as stored (compressed), its digest checked."""
        start, end = self.offsets[index], self.offsets[index + 1]
        self.stream.seek(self.data_start + start)
        data = self.stream.read(end - start)
        if hashlib.sha256(data).digest() != self.digests[index]:
            raise DamagedTable(f"block {index} of the table is damaged")
        return data

    def block(self, index: int) -> Block:
        return Block(decompress(self.block_bytes(index)), self.layout)


def write_shipped(out: IO[bytes], qualifier: int, layout: Layout, flops: Sequence[tuple[int, ...]],
                  blocks: Sequence[bytes]) -> None:
    """Write a table: ``blocks`` are the compressed blocks of ``flops``, in order, in ``layout``."""
    offsets = list(accumulate((len(b) for b in blocks), initial=0))
    classes, perms = places(flops)
    header = b"".join([struct.pack("<III", qualifier, len(flops), layout.code), b"".join(bytes(f) for f in flops),
                       struct.pack(f"<{len(offsets)}Q", *offsets),
                       b"".join(hashlib.sha256(b).digest() for b in blocks),
                       struct.pack(f"<{FLOPS}H", *classes), bytes(perms)])
    out.write(MAGIC + struct.pack("<I", len(header)) + header + hashlib.sha256(header).digest())
    for b in blocks:
        out.write(b)
