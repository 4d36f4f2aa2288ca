"""The monitor's skew: exact third cumulants and the skew-corrected p-value."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import pairwise

from referee.analysis.distributions import NORMAL
from referee.monitor import exact
from referee.monitor.bands import normal_equivalent, two_sided
from referee.monitor.cells import game_third
from referee.profiles import ProfileOrigin

Groups = dict[tuple[str, object, bool], list[int]]


def test_central3_is_the_third_central_moment_by_enumeration() -> None:
    """A small distribution's raw moments give the third central moment computed directly."""
    values = [Fraction(-1), Fraction(-1), Fraction(-1), Fraction(2), Fraction(100)]
    n = len(values)
    mean = sum(values, Fraction(0)) / n
    direct = sum(((v - mean) ** 3 for v in values), Fraction(0)) / n
    raw2 = sum((v * v for v in values), Fraction(0)) / n
    raw3 = sum((v ** 3 for v in values), Fraction(0)) / n
    assert exact.central3(mean, raw2, raw3) == direct
    assert exact.central3(mean, raw2, None) == 0


def test_bonus_third_moment_agrees_with_its_counted_distribution() -> None:
    """The Bonus's raw third moment is the pays cubed, weighted by the five-card counts."""
    origin = ProfileOrigin.of_builtin("bonus-100")
    odds = exact.bonus_odds(origin)
    assert odds is not None and odds.third is not None
    total = sum(n for _, n in exact.five_card_values())
    assert total == exact.FIVE_CARD_HANDS
    third = sum(Fraction(n, total) * exact.bonus_pay(origin, v) ** 3 for v, n in exact.five_card_values())
    assert odds.third == third
    assert odds.third_central > 0  # paid up to 100:1, lost at -1: right-skewed


def test_fold_has_no_third_cumulant() -> None:
    assert exact.fold_moments(ProfileOrigin.of_builtin("bonus-100")).third_central == 0


def test_call_third_moment_matches_the_counts_cubed() -> None:
    """A situation's looked-up third moment equals the payout table cubed against its counts."""
    from referee.rules.strategy import COMPLETIONS, Payoffs, call_counts

    origin = ProfileOrigin.of_builtin("bonus-100")
    known = (48, 49, 0, 13, 26)  # two aces in hand, a flop
    m = exact.call_moments(origin, [known])[known]
    profile = origin.resolve().profile
    p = Payoffs.of(profile)
    counts = call_counts(known[:2], known[2:5], profile.dealer_qualifier.floor()).counts
    cubed = sum(n * Fraction(v, p.scale) ** 3 for row, pays in zip(counts, p.table, strict=True)
                for n, v in zip(row, pays, strict=True))
    assert m.third == cubed / COMPLETIONS


def test_game_third_of_one_group_is_exact_and_groups_apart_comonotone() -> None:
    one: Groups = {("bonus", (1,), True): [3, 5, 7]}
    assert game_third(one, "bonus") == (27 * 7, 0.0)
    two: Groups = {("bonus", (1,), True): [1, 1, 8], ("bonus", (2,), True): [1, 1, 1]}
    exact_part, bound = game_third(two, "bonus")
    assert exact_part == 9 and abs(exact_part + bound - 27) < 1e-9  # (2 + 1)³


def test_normal_equivalent_is_normal_at_no_skew_and_monotone() -> None:
    for z in (-5.0, -1.0, 0.0, 2.5, 4.55):
        assert normal_equivalent(z, 0.0) == z
        assert two_sided(z, 0.0) == two_sided(z)
    for g in (-0.6, -0.1, 0.15, 0.6):
        zs = [x / 10 for x in range(-120, 121)]
        ws = [normal_equivalent(z, g) for z in zs]
        assert all(b > a for a, b in pairwise(ws))
    assert normal_equivalent(4.55, 0.15) < 4.55 < -normal_equivalent(-4.55, 0.15)


def test_corrected_tail_is_close_to_a_monte_carlo_tail_of_a_skewed_sum() -> None:
    """A sum of 400 exponentials (skewness 2/√400 = 0.1): its upper tail at z = 3 by
    simulation, against the normal's and the corrected one."""
    rng = random.Random(3)
    n, draws = 400, 200_000
    z = 3.0
    hits = sum((rng.gammavariate(n, 1.0) - n) / n ** 0.5 > z for _ in range(draws))  # a sum of n
    simulated = hits / draws
    corrected = NORMAL.cdf(-normal_equivalent(z, 2 / n ** 0.5))
    plain = NORMAL.cdf(-z)
    assert abs(corrected - simulated) < abs(plain - simulated)
    assert abs(corrected - simulated) < 0.25 * simulated
