"""How far from the expectation is an alert, when many tests are made at once.

A monitor makes many tests (segments × bets × windows, and the deal's tests): at a
99% band each, a fair casino would alert somewhere nearly every time. The default band
is therefore a *family* band: the chance that any test of a fair store alerts is at
most 1% (``--band 99``) or 0.1% (``--band 99.9``), by Šidák's correction over the
tests actually made (cells with the very same seats as another count once): each test
is held to ``1 - (1 - alpha) ** (1 / m)``. Why Šidák: for two-sided tests of jointly
normal statistics (the z-scores here, whatever their correlation: nested windows and
overlapping segments are strongly correlated) Šidák's inequality guarantees the family
level, and it is a little less strict than Bonferroni's ``alpha / m``, offered too
(``--correction bonferroni``; ``none`` tests each at the band alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..analysis.distributions import NORMAL

CORRECTIONS = ("sidak", "bonferroni", "none")
BANDS = {"99": 0.01, "99.9": 0.001}


@dataclass(frozen=True, slots=True)
class Band:
    """A band as applied: its family level, the correction, the tests, and each test's level."""

    name: str
    correction: str
    tests: int
    alpha: float  # the family's
    per_test: float

    @property
    def z(self) -> float:
        """The two-sided normal threshold each test is held to."""
        return NORMAL.inv_cdf(1 - self.per_test / 2)

    def outside(self, p_value: float | None) -> bool:
        return p_value is not None and p_value < self.per_test


def band(name: str, correction: str, tests: int) -> Band:
    alpha = BANDS[name]
    m = max(tests, 1)
    if correction == "sidak":
        per_test = -math.expm1(math.log1p(-alpha) / m)
    elif correction == "bonferroni":
        per_test = alpha / m
    else:
        per_test = alpha
    return Band(name, correction, tests, alpha, per_test)


def two_sided(z: float | None) -> float | None:
    """The two-sided p-value of a z-score (exact in the tails: no 1 - cdf cancellation)."""
    if z is None:
        return None
    return 2 * NORMAL.cdf(-abs(z))
