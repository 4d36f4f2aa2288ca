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


def cell_p(z: float | None, jump: float | None, skewness: float | None = None) -> float | None:
    """A cell's two-sided p-value: Bennett's bound (:func:`bennett`) above its expectation;
    below it the normal tail corrected for the sum's skewness (:func:`normal_equivalent`:
    a right-skewed sum's lower tail is thinner than the normal's, so a shortfall reads as
    a little more extreme)."""
    if z is None:
        return None
    if z > 0 and jump is not None:
        return bennett(z, jump)
    return two_sided(z, skewness)


def two_sided(z: float | None, skewness: float | None = None) -> float | None:
    """The two-sided p-value of a z-score (exact in the tails: no 1 - cdf cancellation),
    corrected for the sum's skewness (:func:`normal_equivalent`)."""
    if z is None:
        return None
    return 2 * NORMAL.cdf(-abs(normal_equivalent(z, skewness or 0.0)))


#: Below this |skewness| the correction is below 1e-9 of z at |z| 5: plain normal.
_FLAT = 1e-12


def normal_equivalent(z: float, skewness: float) -> float:
    """The normal deviate whose tail is the tail of a standardised sum at ``z`` with that
    skewness γ: the Cornish-Fisher expansion to its first (skewness) term says the sum's
    quantile is ``x = w + a (w² - 1)`` at the normal quantile ``w``, ``a = γ / 6``; here it is
    inverted exactly, the root of that quadratic on its increasing branch (``w > -1/(2a)``).

    Why this form: it is the Edgeworth term that matters at |z| 3.5 to 5 (a right-skewed sum
    has a heavier right tail: at z +4.55 and γ 0.15, w 4.15; its thin left tail the reverse,
    z -4.55 reads as w -5.20), it is zero at γ 0 (w = z), and it is monotone in z
    (dw/dz = 1 / sqrt(disc) > 0), so a larger |z| on one side never reads as less extreme.
    Past the vertex (the thin side, far out: z beyond -a - 1/(4a), |z| > 10 for |γ| < 0.15)
    the expansion has no root: w goes on from the vertex, -1/(2a), at slope 1, so that it
    stays continuous and increasing. The next term (kurtosis) is left out: it is of order
    1/n, skewness 1/√n."""
    a = skewness / 6
    if abs(a) < _FLAT:
        return z
    disc = 1 + 4 * a * (a + z)
    if disc <= 0:
        return -1 / (2 * a) + (z + a + 1 / (4 * a))
    return (math.sqrt(disc) - 1) / (2 * a)
