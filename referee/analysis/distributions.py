"""The distributions the statistical tests need, exactly and without SciPy.

Why not SciPy: a 40 MB dependency for two functions. The normal distribution is the
standard library's ``statistics.NormalDist``; the chi-square survival function is
the regularized upper incomplete gamma function Q(k/2, x/2), computed by its power
series below a + 1 and by Lentz's continued fraction above (Numerical Recipes §6.2),
to about 1e-14. The tests check it against the closed form for even degrees of
freedom and against published critical values. The binomial's tails are the regularized
incomplete beta function, by its continued fraction (§6.4).
"""

from __future__ import annotations

import math
from statistics import NormalDist

NORMAL = NormalDist()
_EPS = 1e-15
_TINY = 1e-300


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square distributed with ``dof`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return gamma_q(dof / 2, x / 2)


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x)."""
    if x < a + 1:
        return 1.0 - _gamma_p_series(a, x)
    return _gamma_q_fraction(a, x)


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def z_for(confidence: float) -> float:
    """The two-sided normal quantile: 2.576 for 0.99, 1.960 for 0.95."""
    return NORMAL.inv_cdf(0.5 + confidence / 2)


def two_sided_p(z: float) -> float:
    return 2 * (1 - NORMAL.cdf(abs(z)))


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(B <= k) for B binomial with ``n`` trials of success chance ``p``: exact, as the
    regularized incomplete beta function I_(1-p)(n - k, k + 1), in either tail to about
    1e-11 relative at ten thousand trials and 1e-9 at several hundred thousand (the
    log-gamma terms of its front factor cancel) (why not the normal: the monitor's deal
    tests read p-values of 1e-4 and less, where a count's normal tail is off by a third,
    ``docs/monitor.md``)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return beta_inc(n - k, k + 1, 1 - p)


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(B >= k) for B binomial with ``n`` trials of success chance ``p``: I_p(k, n - k + 1)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return beta_inc(k, n - k + 1, p)


def beta_inc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by Lentz's continued fraction
    on the side where it converges fast (Numerical Recipes §6.4): a small tail is worked
    out directly, never as one minus a number near one."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for an in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + an * d
            d = 1 / (_TINY if abs(d) < _TINY else d)
            c = 1 + an / c
            c = _TINY if abs(c) < _TINY else c
            h *= d * c
        if abs(d * c - 1) < _EPS:
            break
    return h
