"""The monitor's third moments and its skew-corrected p-values (issue 30)."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import pairwise

import pytest

from referee.analysis.distributions import NORMAL
from referee.monitor import exact
from referee.monitor.bands import normal_equivalent, two_sided
from referee.monitor.cells import MIN_GAMES
from referee.monitor.facts import Seat
from referee.monitor.run import judge
from referee.profiles import ProfileOrigin
from referee.rules.strategy import COMPLETIONS, Payoffs, call_counts

VIVO = ProfileOrigin.of_builtin("vivo")


def _brute(known: tuple[int, ...]) -> tuple[Fraction, Fraction, Fraction]:
    """E[net], E[net²], E[net³] of calling, each outcome class's net enumerated one by one."""
    profile = VIVO.resolve().profile
    p = Payoffs.of(profile)
    counts = call_counts(known[:2], known[2:], profile.dealer_qualifier.floor()).counts
    raw = [Fraction(0)] * 3
    for row, pays in zip(counts, p.table, strict=True):
        for n, pay in zip(row, pays, strict=True):
            net = Fraction(pay, p.scale)
            for k in range(3):
                raw[k] += n * net ** (k + 1)
    return raw[0] / COMPLETIONS, raw[1] / COMPLETIONS, raw[2] / COMPLETIONS


@pytest.mark.parametrize("known", [(48, 49, 20, 29, 50), (0, 5, 20, 29, 50), (51, 47, 43, 39, 2)])
def test_third_moment_of_a_call_is_the_outcomes_enumerated(known: tuple[int, ...]) -> None:
    m = exact.call_moments(VIVO, [known])[known]
    mean, second, third = _brute(known)
    assert (m.mean, m.second, m.third) == (mean, second, third)
    assert m.third_central == third - 3 * mean * second + 2 * mean ** 3


def test_a_fold_has_no_skew_and_the_bonus_third_moment_is_its_hands() -> None:
    assert exact.fold_moments(VIVO).third_central == 0
    origin = ProfileOrigin.of_builtin("bonus-100")
    odds = exact.bonus_odds(origin)
    assert odds is not None and odds.third is not None
    third = sum(Fraction(n, exact.FIVE_CARD_HANDS) * exact.bonus_pay(origin, v) ** 3
                for v, n in exact.five_card_values())
    assert odds.third == third and odds.third_central > 0  # paid up to 100:1: skewed right


def test_normal_equivalent_is_z_without_skew_monotone_and_inverts_cornish_fisher() -> None:
    zs = [x / 10 for x in range(-150, 151)]
    assert all(normal_equivalent(z, 0.0) == z for z in zs)
    assert two_sided(3.0, 0.0) == two_sided(3.0) == pytest.approx(2 * NORMAL.cdf(-3.0))
    for g in (0.05, 0.2, 0.6, -0.3):
        ws = [normal_equivalent(z, g) for z in zs]
        assert all(b > a for a, b in pairwise(ws)), g  # strictly increasing, through the vertex
        a = g / 6
        for w in ws:
            z = w + a * (w * w - 1)
            if w > -1 / (2 * a) if a > 0 else w < -1 / (2 * a):
                assert normal_equivalent(z, g) == pytest.approx(w)
    # right-skewed: the winning side's tail is heavier (larger p), the losing side's thinner
    win, plain, lose = two_sided(4.5, 0.1), two_sided(4.5), two_sided(-4.5, 0.1)
    assert win is not None and plain is not None and lose is not None and win > plain > lose


def test_corrected_tail_matches_a_skewed_sum_by_simulation() -> None:
    """A sum of 400 gamma(shape 1/4) draws (skewness 4 each, 0.2 the sum): the chance of
    z > 3 by Monte Carlo (40,000 sums) against the corrected and the plain normal tails."""
    rng = random.Random(5)
    shape, n, runs = 0.25, 400, 40_000
    mean, sd = n * shape, math.sqrt(n * shape)
    skew = 2 / math.sqrt(shape) / math.sqrt(n)
    exact_tail = 0
    for _ in range(runs):  # a sum of gammas is a gamma: draw it at once
        exact_tail += (rng.gammavariate(n * shape, 1.0) - mean) / sd > 3.0
    observed = exact_tail / runs
    corrected = NORMAL.cdf(-normal_equivalent(3.0, skew))
    plain = NORMAL.cdf(-3.0)
    # the plain normal tail is far too thin (about half); the corrected one within 15%
    assert plain < 0.75 * observed
    assert corrected == pytest.approx(observed, rel=0.15)


def test_a_cell_sums_the_exact_third_cumulants_and_a_small_one_says_why_not_tested() -> None:
    known = (48, 49, 20, 29, 50)
    m = exact.call_moments(VIVO, [known])[known]
    seats = [Seat(order=i, game=("game", i // 2), time_us=None, table="T1", dealer=None, profile="builtin:vivo",
                  player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=0, bonus_u=0, called=True,
                  known=known) for i in range(2 * MIN_GAMES)]
    cells = {j.cell.window: j.cell for j in judge(seats, kinds=("all",)).cells}
    cell = cells["last 1,000 games"]
    # two seats a game in one situation move as one: κ3 = n (2 Antes)³ κ3(unit), Var = n (2)² v
    expected = float(m.third_central * 8 * MIN_GAMES) / float(m.variance * 4 * MIN_GAMES) ** 1.5
    assert cell.skewness == pytest.approx(expected)
    small = judge(seats[:200], kinds=("all",)).cells[0].cell
    assert small.z is None and small.reason == f"fewer than {MIN_GAMES:,} games"


def _gamma_upper(shape: float, x: float) -> float:
    """P(Gamma(shape, 1) > x), by the midpoint rule on its density (step 0.001, 300 wide)."""
    h, total = 0.001, 0.0
    for i in range(300_000):
        t = x + (i + 0.5) * h
        total += math.exp((shape - 1) * math.log(t) - t - math.lgamma(shape))
    return total * h


@pytest.mark.parametrize("z", [3.5, 4.0, 4.5, 5.0])
def test_corrected_tail_is_within_6_percent_of_an_exact_skewed_tail_where_the_normal_is_not(z: float) -> None:
    """Gamma(100): a sum of 400 gamma(1/4) nets, skewness 0.2 (about a player's 1,000 games)."""
    shape = 100.0
    true = _gamma_upper(shape, shape + z * math.sqrt(shape))
    assert NORMAL.cdf(-normal_equivalent(z, 2 / math.sqrt(shape))) == pytest.approx(true, rel=0.06)
    assert NORMAL.cdf(-z) < true / 3
