"""The decision audit: the exact value of calling at every decision, against folding.

Each decision is valued from all 1,070,190 completions. Its 40 outcome counts are read
from the tables of ``analysis/situations.py`` (shipped for the built-ins' qualifier,
so any profile with it is a look-up; counted once a flop class and cached for another
qualifier), and any profile's figures follow from them exactly. Where the tables
cannot serve (another qualifier without NumPy), decisions are counted one by one
(``rules/strategy.py``, about a third of a second each), in parallel over ``--jobs``
processes. Identical situations (the same five cards under the same profile) are
valued once. Both ways give the same exact figures (tests compare them).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

from ..profiles import ProfileOrigin
from ..rules.strategy import COMPLETIONS, NOT_QUALIFIED, CallCounts, call_counts
from .observe import Observed
from .situations import table_values

Situation = tuple[ProfileOrigin, tuple[int, ...]]  # (profile origin, the five known cards)


@dataclass(frozen=True, slots=True)
class Valued:
    """One situation's exact figures, per Ante."""

    call_value: Fraction
    qualifies: Fraction  # P(dealer qualifies | calling, these cards)
    categories: tuple[Fraction, ...]  # P(player's final category), by category index

    @property
    def best(self) -> str:
        return "call" if self.call_value > -1 else "fold"


def value(situation: Situation) -> Valued:
    """One situation counted by itself (``strategy.call_counts``): the reference."""
    origin, known = situation
    profile = origin.resolve().profile
    counts: CallCounts = call_counts(known[:2], known[2:5], profile.dealer_qualifier.floor())
    return Valued(
        call_value=counts.call_value(profile),
        qualifies=Fraction(COMPLETIONS - counts.outcome(NOT_QUALIFIED), COMPLETIONS),
        categories=tuple(Fraction(sum(row), COMPLETIONS) for row in counts.counts),
    )


def situations_of(rounds: list[Observed]) -> list[Situation]:
    """The distinct situations of ``rounds`` (those whose five cards are known), sorted."""
    return sorted({(r.profile, r.known) for r in rounds if r.known is not None})


def value_all(rounds: list[Observed], jobs: int, progress: Callable[[int], None] | None = None,
              tables: bool = True, counting: Callable[[int], None] | None = None) -> dict[Situation, Valued]:
    """Every distinct situation among ``rounds``, valued; ``tables=False`` counts every
    one of them one by one (in ``jobs`` processes). ``progress`` and ``counting``: see
    :func:`~referee.analysis.situations.table_values`."""
    everything = situations_of(rounds)
    values: dict[Situation, Valued] = {}
    if tables:
        for s, (call, qualifies, categories) in table_values(everything, jobs, progress, counting).items():
            values[s] = Valued(call, qualifies, categories)
    situations = [s for s in everything if s not in values]
    if jobs <= 1 or len(situations) < 4:
        for s in situations:
            values[s] = value(s)
            if progress:
                progress(1)
        return values
    from ..rules.evaluator import tables as evaluator_tables

    evaluator_tables()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        for s, v in zip(situations, pool.map(value, situations, chunksize=4), strict=True):
            values[s] = v
            if progress:
                progress(1)
        return values
