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


def bennett(z: float, jump: float) -> float:
    """A two-sided p-value for a sum ``z`` standard deviations *above* its expectation,
    when one game can move it up by at most ``jump`` standard deviations: twice Bennett's
    bound, exp(-h(jump z) / jump^2) with h(u) = (1 + u) log(1 + u) - u.

    Why not the normal tail on that side: a player's win is paid up to 100:1, so a sum of
    nets has rare large jumps upward, and its upper tail is far heavier than the normal's
    (measured: 2% of fair tables alerted on it, bench/RESULTS.md); Bennett's inequality
    holds for any independent games whose upward moves are bounded so, whatever their
    distribution: never an alarm the payouts explain. It tends to exp(-z^2 / 2) as the
    jump vanishes (above the normal tail: conservative). The losing side keeps the normal
    tail: a seat loses at most its stakes, a few standard deviations of one game."""
    if jump <= 0:
        return min(1.0, 2 * math.exp(-z * z / 2))
    u = jump * z
    return min(1.0, 2 * math.exp(-((1 + u) * math.log1p(u) - u) / (jump * jump)))


def cell_p(z: float | None, jump: float | None) -> float | None:
    """A cell's two-sided p-value: Bennett's bound (:func:`bennett`) above its expectation;
    below it the normal tail (:func:`two_sided`).

    Why the plain normal below: a sum of nets is skewed right (its rare large payouts),
    and its lower tail is thinner than the normal's. Worked out exactly, by convolving
    each game's exact distribution of nets (``bench/monitor_tails.py``), the normal tail
    at the band's |z| 3.72 is 1.11 to 1.20 times the exact one over a fair table's
    windows of 1,000 to 10,000 games (1.47 at 100 games): conservative, once a window has
    500 calls or more (``cells.MIN_TERMS``: fewer, as a player who calls only with two
    pair or better makes, are lumpy enough to reverse it). The first-order skewness
    correction (Cornish-Fisher) that stood here went the other way, 0.74 to 0.91 of the
    exact tail: the skewness comes from the royal flush's 100:1, which barely touches
    the losing side, and the correction read it as a thinner lower tail than there is."""
    if z is None:
        return None
    if z > 0 and jump is not None:
        return bennett(z, jump)
    return two_sided(z)


def two_sided(z: float | None) -> float | None:
    """The two-sided p-value of a z-score (exact in the tails: no 1 - cdf cancellation)."""
    if z is None:
        return None
    return 2 * NORMAL.cdf(-abs(z))
