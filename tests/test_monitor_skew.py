"""The monitor's skew: exact third cumulants and the skew-corrected p-value."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import pairwise

import pytest

from referee.analysis.distributions import NORMAL
from referee.monitor import exact
from referee.monitor.bands import normal_equivalent, two_sided
from referee.monitor.cells import MIN_GAMES, game_third
from referee.monitor.facts import Seat
from referee.monitor.run import judge
from referee.profiles import ProfileOrigin

VIVO = ProfileOrigin.of_builtin("vivo")
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
