"""The deal tests' banded counts, column by column (issue 47: a fast first run).

The same counts as adding each deal's ``DealSums`` to its band (``randomness``): a deal
is its game's first seat's cards, its segments its table, its dealer and all, its band
its rank among its segment's deals, newest first, and its time against the segment's
newest deal. Each deal's figures are read once into columns (the categories' indexes
from the hand values, the exact expectations as whole numbers), then summed by segment
and band with group-bys, exactly (``wide``: the expectations' sums may pass 2^63).
``tests/test_monitor_columns.py`` compares them with the deal-by-deal sums.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..analysis.counts import DEALERS
from ..rules.category import CATEGORY_SHIFT
from ..rules.hands import evaluate
from ..rules.strategy import COMPLETIONS
from . import wide
from .columns import _BANDS, _TB, bands, named, numbered, renamed
from .facts import Seat
from .randomness import DEAL_KINDS, DealBanded, DealSums, _Facts
from .valuing import DealFigures
from .wide import Array

_CATEGORIES = 10


def banded(seats: list[Seat], kinds: Iterable[str] = DEAL_KINDS) -> DealBanded:
    """Each deal's counts added to its (count band, time band) cell, per segment: what
    what a run tests (``run.judge``)."""
    dealt = [s for s in reversed(seats) if s.deal and isinstance(s.deal_figures, DealFigures)]
    n = len(dealt)

    def some(values: Iterable[int | None]) -> Array:
        return np.fromiter((NO if v is None else v for v in values), np.int64, n)

    counts = [cast(DealFigures, s.deal_figures) for s in dealt]
    return banded_deals(Deals(
        some(s.player_value for s in dealt), some(s.dealer_value for s in dealt),
        np.array([c.turns for c in counts], np.int64).reshape(n, _CATEGORIES),
        np.fromiter((c.not_qualified for c in counts), np.int64, n), numbered([s.profile for s in dealt]),
        some(s.bonus_value for s in dealt), [cast(tuple[int, ...], s.known) for s in dealt],
        np.fromiter((0 if s.time_us is None else s.time_us for s in dealt), np.int64, n),
        np.fromiter((s.time_us is not None for s in dealt), bool, n),
        {kind: named([getattr(s, kind) for s in dealt]) for kind in ("table", "dealer")}), kinds)


#: A value not known (a hand not seen, a Bonus hand not evaluated yet).
NO = -1


@dataclass(slots=True)
class Deals:
    """The deals (a game's first seat, whose five known cards have their counts), newest
    first, as columns: the player's and the dealer's hand values (``NO``: not seen), the
    five cards' counts (``DealFigures``' turns and not_qualified), the profile and the
    table and dealer as numbers into their names (-1: none), the five cards' Bonus value
    (``NO``: evaluated from ``known`` when asked), the time."""

    player_value: Array
    dealer_value: Array
    turns: Array
    not_qualified: Array
    profile: tuple[Array, list[str]]
    five: Array
    known: Sequence[Sequence[int]]
    time: Array
    timed: Array
    segments: dict[str, tuple[Array, list[str]]]


def banded_deals(deals: Deals, kinds: Iterable[str] = DEAL_KINDS) -> DealBanded:
    """:func:`banded` of deals already made columns (:class:`Deals`)."""
    out: DealBanded = defaultdict(lambda: defaultdict(DealSums))
    n = deals.time.size
    if not n:
        return out
    facts = _Facts()
    # a deal's figures (``randomness._deal``), one deal a game, as columns: its hands' values,
    # its five cards' counts (whole numbers under 2^41: int64), its profile's facts
    seen = (deals.player_value != NO) & (deals.dealer_value != NO)
    player = np.where(seen, deals.player_value, 0) >> CATEGORY_SHIFT
    dealt_value = np.where(seen, deals.dealer_value, 0)
    dealer = dealt_value >> CATEGORY_SHIFT
    expected = deals.turns.T * DEALERS
    not_qualified = deals.not_qualified
    q_expected = COMPLETIONS - not_qualified
    q_variance = q_expected * not_qualified
    profile, profiles = renamed(*deals.profile)
    facts_of = [facts.profile(p) for p in profiles]
    qualified = (dealt_value >= np.array([q for q, _, _ in facts_of], np.int64)[profile]).astype(np.int64)
    bonus = np.zeros(n, bool)
    hits = np.zeros(n, np.int64)
    hits_expected = np.zeros(n, np.int64)
    hits_variance = np.zeros(n, np.int64)
    for number, (_, odds, pays) in enumerate(facts_of):
        if odds is None or pays is None:
            continue
        mine = seen & (profile == number)
        bonus[mine] = True
        hits_expected[mine], hits_variance[mine] = pays
        at = np.flatnonzero(mine)
        values = _bonus_values(deals.five[at], [deals.known[i] for i in at.tolist()])
        distinct, where = np.unique(values, return_inverse=True)
        name = profiles[number]  # whether the Bonus pays: once a distinct five-card value
        hits[at] = np.array([facts.pays(name, v) for v in distinct.tolist()], np.int64)[where.reshape(-1)]
    time, timed = deals.time, deals.timed
    each = np.arange(n)  # a deal is a game of its own: ranked one by one
    for kind in kinds:
        if kind == "all":
            seg, labels = np.zeros(n, np.int64), ["all"]
        else:
            seg, labels = renamed(*deals.segments[kind])
        if not (seg >= 0).any():
            continue
        o, pid, cell, used = bands(seg, each, time, timed, len(labels))
        at = cell[pid]
        k = used.size

        ones = np.ones(n, np.int64)

        def summed(x: Array, where: Array | None = None, at: Array = at, o: Array = o, k: int = k) -> list[int]:
            return wide.grouped_int64(at, x[o] if where is None else np.where(where[o], x[o], 0), k)

        columns = {
            "deals": summed(ones), "unseen": summed(ones, ~seen), "qualified": summed(qualified, seen),
            "q_expected": summed(q_expected, seen), "q_variance": summed(q_variance, seen),
            "bonus_deals": summed(ones, bonus), "hits": summed(hits, bonus),
            "hits_expected": summed(hits_expected, bonus), "hits_variance": summed(hits_variance, bonus)}
        players, dealers = _counts(at[seen[o]], player[o][seen[o]], k), _counts(at[seen[o]], dealer[o][seen[o]], k)
        expectations = [summed(expected[c], seen) for c in range(_CATEGORIES)]
        for j in range(k):
            segment, band = divmod(int(used[j]), _BANDS)
            d = DealSums()
            for name, values in columns.items():
                setattr(d, name, values[j])
            d.player, d.dealer = players[j], dealers[j]
            d.player_expected = [expectations[c][j] for c in range(_CATEGORIES)]
            out[(kind, labels[segment])][divmod(band, _TB)] = d
    return out


def _bonus_values(given: Array, known: Sequence[Sequence[int]]) -> Array:
    """Each deal's five known cards' value (the Bonus hand): its seat's own where it has
    one (``given``, ``NO`` where none), else evaluated, all at once (``rules.batch``) when
    every card is 0 to 51 and none given twice, else one by one by ``evaluate`` (which
    refuses what it refuses)."""
    values = np.array(given, np.int64)
    missing = np.flatnonzero(values == NO).tolist()
    if not missing:
        return values
    cards = np.array([known[k] for k in missing], np.int64).reshape(len(missing), -1)
    bits = np.left_shift(1, cards) if cards.size and int(cards.min()) >= 0 and int(cards.max()) <= 51 else None
    if cards.shape[1] == 5 and bits is not None and (np.bitwise_or.reduce(bits, axis=1) == bits.sum(axis=1)).all():
        from ..rules.batch import evaluate_batch

        found = evaluate_batch(cards, check=False)
    else:
        found = np.array([evaluate(list(known[k])).value for k in missing], np.int64)
    values[missing] = found
    return values


def _counts(at: Array, category: Array, cells: int) -> list[list[int]]:
    """How many deals of each category (high card first) each cell holds."""
    flat = np.bincount(at * _CATEGORIES + category, minlength=cells * _CATEGORIES)
    return [[int(x) for x in row] for row in flat.reshape(cells, _CATEGORIES)]
