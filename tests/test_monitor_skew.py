"""The monitor's tails: exact third cumulants (the skewness it reports), and each test's
p-value against the exact tail where the band reads it (p near 0.02%): never smaller."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from referee.monitor import exact
from referee.monitor.bands import cell_p
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


def _nets(known: tuple[int, ...]) -> dict[int, int]:
    """A call's net per Ante -> completions (lose 3, push 0, win 1 to 102), from the
    shipped counts of its situation (what ``exact.call_counted`` dots with the payouts)."""
    from referee.analysis.counts import _CATEGORIES, COMPLETIONS, NOT_QUALIFIED, WIN
    from referee.analysis.situations import CountTable, classes
    from referee.rules.strategy import Payoffs

    p = Payoffs.of(VIVO.resolve().profile)
    table = CountTable(*CountTable.serving(p, VIVO.resolve().profile.dealer_qualifier.floor()))
    index, pair = classes().locate(known)
    assert table.load(index)
    block = table.blocks[index]
    _, g = block._starts(pair)
    out: dict[int, int] = {}
    for i, group in enumerate(_CATEGORIES[block.layout.group_mask(block.masks[pair])], g):
        pays = p.table[block.layout.groups[group][0]]
        out[pays[NOT_QUALIFIED]] = out.get(pays[NOT_QUALIFIED], 0) + block.columns[0][i]
        out[pays[WIN]] = out.get(pays[WIN], 0) + block.columns[1][i]
    assert block.tie is not None
    out[0] = out.get(0, 0) + block.tie[pair]
    out[-3] = COMPLETIONS - sum(out.values())
    return out


def test_the_losing_sides_normal_tail_is_never_below_the_exact_tail_of_a_window() -> None:
    """1,000 calls in situations drawn at random: their sum's exact lower tail (each call's
    exact distribution convolved) against the p-value a cell reads on the losing side.
    The normal tail is conservative where the band reads it (the sum is skewed right), as
    bench/monitor_tails.py measures on whole tables; the Cornish-Fisher correction that
    stood before read it 9 to 15% too thin."""
    import numpy as np

    from referee.analysis.counts import COMPLETIONS

    rng = random.Random(11)
    dist = np.ones(1)
    mean = var = 0.0
    for _ in range(1_000):
        counts = _nets(tuple(rng.sample(range(52), 5)))
        mu = sum(v * n for v, n in counts.items()) / COMPLETIONS
        mean, var = mean + mu, var + sum((v - mu) ** 2 * n for v, n in counts.items()) / COMPLETIONS
        new = np.zeros(len(dist) + 105)
        for v, n in counts.items():
            new[v + 3:v + 3 + len(dist)] += dist * (n / COMPLETIONS)
        dist = np.trim_zeros(new, "b")
    low, sd = -3_000, math.sqrt(var)
    below = np.cumsum(dist)
    for z in (3.0, 3.5, 3.72, 4.0):
        at = math.floor(mean - z * sd) - low
        p = cell_p((at + low - mean) / sd, 2.0)
        assert p is not None and p / 2 >= below[at], z  # one side of the two-sided p


def test_a_counts_p_is_never_below_the_exact_poisson_binomial_tail() -> None:
    """Deals with unequal chances to qualify: ``count_p``'s binomial tail at the mean chance
    is at least the exact tail on either side (Hoeffding), and exact when the chances are equal."""
    from referee.analysis.distributions import binomial_cdf
    from referee.monitor.randomness import count_p

    rng = random.Random(5)
    chances = [Fraction(rng.randint(55, 95), 100) for _ in range(300)]
    dist = [Fraction(1)]
    for p in chances:
        dist = [a * (1 - p) + b * p for a, b in zip([*dist, Fraction(0)], [Fraction(0), *dist], strict=True)]
    mean = sum(chances, Fraction(0))
    for k in range(0, 301):
        if abs(k - mean) < 1:
            continue
        tail = sum(dist[:k + 1]) if k < mean else sum(dist[k:])
        assert count_p(k, 300, mean) >= min(1, 2 * float(tail)) * (1 - 1e-9), k
    equal = Fraction(3, 4)
    assert count_p(200, 300, equal * 300) == pytest.approx(2 * binomial_cdf(200, 300, 0.75), rel=1e-12)


def test_the_binomial_tails_are_the_sums_of_the_binomial_terms() -> None:
    from math import comb

    from referee.analysis.distributions import binomial_cdf, binomial_sf

    for n in (1, 7, 60, 400):
        for p in (Fraction(1, 100), Fraction(1, 2), Fraction(3, 4), Fraction(999, 1000)):
            terms = [float(comb(n, j) * p ** j * (1 - p) ** (n - j)) for j in range(n + 1)]
            for k in range(-1, n + 2, 1 if n < 100 else 13):
                below = math.fsum(terms[:max(k + 1, 0)])
                above = math.fsum(terms[max(k, 0):]) if k <= n else 0.0
                assert binomial_cdf(k, n, float(p)) == pytest.approx(below, rel=1e-9, abs=1e-300)
                assert binomial_sf(k, n, float(p)) == pytest.approx(above, rel=1e-9, abs=1e-300)


def test_the_category_statistic_is_zero_at_the_expectation_and_a_chi_square_for_fair_deals() -> None:
    """The power divergence is 0 where the counts are what was expected; fair dealers'
    categories drawn 50,000 times at 1,000 deals fall below p 1% about 1% of the time
    (the far tail, 0.02%: ``bench/monitor_tails.py``, a million draws a size)."""
    import numpy as np

    from referee.analysis.distributions import chi2_sf
    from referee.monitor.randomness import _merge, divergence

    assert divergence([(10, 10.0), (30, 30.0)]) == 0.0
    assert divergence([(20, 10.0), (20, 30.0)]) > 0
    rng = np.random.default_rng(7)
    shares = [float(x) for x in exact.seven_card_shares()]
    expected = [x * 1_000 for x in shares]
    draws = rng.multinomial(1_000, shares, size=50_000)
    low = 0
    for counts in draws:
        bins = _merge([int(c) for c in counts], expected)
        low += chi2_sf(divergence(bins), len(bins) - 1) < 1e-2
    assert 0.85e-2 < low / 50_000 < 1.15e-2, low


def test_a_cell_of_few_calls_is_not_tested_and_says_so() -> None:
    """1,200 games of a player who calls one game in four (300 calls, each its own game)
    are shown but not tested (a sum of so few is lumpy: the normal understates its losing
    tail); 2,400 such games hold 600 calls and are."""
    from referee.monitor.cells import MIN_TERMS

    rng = random.Random(2)

    def seats(n: int) -> list[Seat]:
        out = []
        for i in range(n):
            called = i % 4 == 0
            out.append(Seat(order=i, game=("game", i), time_us=None, table="T1", dealer=None, profile="builtin:vivo",
                            player=None, ante_u=1_000_000, staked_u=3_000_000 if called else 1_000_000,
                            net_u=-1_000_000, bonus_u=0, called=called, known=tuple(rng.sample(range(52), 5))))
        return out

    few = {j.cell.window: j.cell for j in judge(seats(1_200), kinds=("all",)).cells}["last 10,000 games"]
    assert few.games == 1_200 and few.terms == 300 < MIN_TERMS
    assert few.z is None and few.reason == f"fewer than {MIN_TERMS:,} calls"
    enough = {j.cell.window: j.cell for j in judge(seats(2_400), kinds=("all",)).cells}["last 10,000 games"]
    assert enough.terms == 600 and enough.z is not None and enough.reason is None


@pytest.mark.parametrize("n", [10_000, 300_000])
def test_the_binomial_tails_hold_at_hundreds_of_thousands_of_trials(n: int) -> None:
    """A month of deals at a busy table: the tails four standard deviations out against
    their terms summed in log space (each term from log-gamma; within 1e-7 at this size)."""
    from referee.analysis.distributions import binomial_cdf, binomial_sf

    p = 0.75
    sd = math.sqrt(n * p * (1 - p))

    def term(j: int) -> float:
        return math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
                        + j * math.log(p) + (n - j) * math.log1p(-p))

    low, high = int(n * p - 4 * sd), int(n * p + 4 * sd)
    assert binomial_cdf(low, n, p) == pytest.approx(math.fsum(term(j) for j in range(low + 1)), rel=1e-7)
    assert binomial_sf(high, n, p) == pytest.approx(math.fsum(term(j) for j in range(high, n + 1)), rel=1e-7)
