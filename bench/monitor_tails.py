"""Are the monitor's p-values right where its band reads them? (issue 30)

Run: python bench/monitor_tails.py [--seed 1000369] [--samples 1000000]   (needs NumPy)

The default band holds each of some 50 tests to p < 0.0002 (|z| 3.72): a test whose
p-value is too small out there alarms fair tables more often than the band says. Each
test's tail is compared here with the exact one, on a fair table as
``bench/monitor_power.py`` deals it:

1. **RTP, both sides**: the exact distribution of a window's sum of nets, by convolving
   every game's exact distribution of its net (its situation's outcome counts under
   ``vivo``: lose 3 Antes, push, win 1 to 102; a fold loses its Ante), against the
   normal tail (what the losing side uses), the first-order Cornish-Fisher correction
   for the sum's skewness (what it used before), and Bennett's bound (the winning side);
   then a player who calls only with two pair or better, at 80 to 1,000 calls (why a
   cell needs 500: ``cells.MIN_TERMS``).
2. **Dealer qualification**: the exact Poisson-binomial distribution of qualified deals
   (each deal its own chance given its five known cards), against the normal tail and
   the binomial tail at the mean chance (``randomness.count_p``: Hoeffding's bound).
3. **Categories**: fair deals' dealer categories drawn ``--samples`` times (multinomial,
   the seven-card odds), the share whose p falls below 1%, 0.1% and 0.02%, divided by
   that level (1.00: exact; above: too many alarms), for Pearson's chi-square over bins
   expecting 5 (before) and the Cressie-Read divergence over bins expecting 10 (now).

Printed: each comparison as the approximation's tail over the exact one (below 1: the
approximation alarms too often).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from monitor_power import table

from referee.analysis.counts import _CATEGORIES, COMPLETIONS, NOT_QUALIFIED, WIN
from referee.analysis.distributions import NORMAL, chi2_sf
from referee.analysis.situations import CountTable, classes
from referee.monitor import exact, randomness
from referee.monitor.bands import bennett
from referee.monitor.facts import Seat
from referee.monitor.valuing import value
from referee.profiles import ProfileOrigin
from referee.rules.strategy import Payoffs

ZS = (3.0, 3.5, 3.72, 4.0)
VIVO = ProfileOrigin.of_builtin("vivo").resolve().profile
PAYOFFS = Payoffs.of(VIVO)
COUNTS = CountTable(*CountTable.serving(PAYOFFS, VIVO.dealer_qualifier.floor()))


def nets(known: tuple[int, ...]) -> dict[int, int]:
    """A call's net per Ante -> completions, from the shipped counts (``vivo``'s layout)."""
    index, pair = classes().locate(known)
    COUNTS.load(index)
    block = COUNTS.blocks[index]
    layout = block.layout
    _, g = block._starts(pair)
    out: dict[int, int] = {}
    nq_all = win_all = 0
    for i, group in enumerate(_CATEGORIES[layout.group_mask(block.masks[pair])], g):
        pays = PAYOFFS.table[layout.groups[group][0]]
        nq, won = block.columns[0][i], block.columns[1][i]
        out[pays[NOT_QUALIFIED]] = out.get(pays[NOT_QUALIFIED], 0) + nq
        out[pays[WIN]] = out.get(pays[WIN], 0) + won
        nq_all, win_all = nq_all + nq, win_all + won
    assert block.tie is not None
    tied = block.tie[pair]
    out[0] = out.get(0, 0) + tied
    out[-3] = out.get(-3, 0) + COMPLETIONS - nq_all - win_all - tied
    return out


def convolved(seats: list[Seat]) -> tuple[np.ndarray, int, float, float, float, float]:
    """The exact distribution of the window's sum of nets (whole currency units): its
    probabilities from its lowest value up, that value, the mean, sd, skewness and the
    most one game can win (in sd)."""
    dist = np.ones(1)
    low = 0
    mean = var = third = 0.0
    top = 0
    for s in seats:
        ante = s.ante_u // 1_000_000
        if not s.called:
            low -= ante
            mean -= ante
            continue
        counts = nets(s.known or ())
        mu = sum(v * n for v, n in counts.items()) / COMPLETIONS
        mean += ante * mu
        var += ante * ante * sum((v - mu) ** 2 * n for v, n in counts.items()) / COMPLETIONS
        third += ante ** 3 * sum((v - mu) ** 3 * n for v, n in counts.items()) / COMPLETIONS
        top = max(top, ante * max(counts))
        new = np.zeros(len(dist) + 105 * ante)
        for v, n in counts.items():
            shift = (v + 3) * ante
            new[shift:shift + len(dist)] += dist * (n / COMPLETIONS)
        dist = np.trim_zeros(new, "b")
        low -= 3 * ante
    sd = math.sqrt(var)
    return dist, low, mean, sd, third / sd ** 3, top / sd


def cornish_fisher(z: float, skewness: float) -> float:
    """The lower tail the monitor used before: the normal deviate of the Cornish-Fisher
    quantile inverted (first order in the skewness)."""
    a = skewness / 6
    return NORMAL.cdf((math.sqrt(1 + 4 * a * (a + z)) - 1) / (2 * a))


def rtp(seats: list[Seat], name: str) -> None:
    dist, low, mean, sd, skew, jump = convolved(seats)
    below, above = np.cumsum(dist), np.cumsum(dist[::-1])[::-1]
    print(f"  {name}: {len(seats):,} games, {sum(s.called for s in seats):,} calls, sd {sd:,.1f}, "
          f"skewness {skew:.4f}, jump {jump:.2f} sd")
    for z in ZS:
        at = math.floor(mean - z * sd) - low
        exact_low = below[at]
        zl = (at + low - mean) / sd
        up = math.ceil(mean + z * sd) - low
        exact_high = above[up]
        zh = (up + low - mean) / sd
        print(f"    z {z}: below, exact {exact_low:.3e}, normal {NORMAL.cdf(zl) / exact_low:.2f}x, Cornish-Fisher "
              f"{cornish_fisher(zl, skew) / exact_low:.2f}x; above, exact {exact_high:.3e}, Bennett "
              f"{bennett(zh, jump) / 2 / exact_high:.1f}x, normal {NORMAL.cdf(-zh) / exact_high:.2f}x")


def selective(calls: int, seed: int) -> None:
    """Calls only with two pair or better in the five known cards (a player who folds
    everything else): the window's lower tail at ``calls`` calls, exact against normal."""
    from referee.rules.category import Category
    from referee.rules.hands import evaluate

    rng = random.Random(seed)
    seats: list[Seat] = []
    while len(seats) < calls:
        known = tuple(rng.sample(range(52), 5))
        if Category.of(evaluate(list(known)).value).order >= 2:
            seats.append(Seat(order=0, game=0, time_us=None, table=None, dealer=None, profile="builtin:vivo",
                              player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=0, bonus_u=0, called=True,
                              known=known))
    dist, low, mean, sd, skew, _ = convolved(seats)
    below = np.cumsum(dist)
    line = f"  {calls:,} calls (seed {seed}, skewness {skew:+.3f}): normal over exact"
    for z in ZS:
        at = math.floor(mean - z * sd) - low
        line += f", z {z}: {NORMAL.cdf((at + low - mean) / sd) / below[at]:.2f}"
    print(line)


def qualification(seats: list[Seat], n: int) -> None:
    qualifies = [s.deal_figures.qualifies for s in seats[-n:]]  # type: ignore[attr-defined]
    chances = np.array(qualifies) / COMPLETIONS
    exact_mean = Fraction(sum(qualifies), COMPLETIONS)
    dist = np.zeros(len(chances) + 1)
    dist[0] = 1.0
    for p in chances:
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    mean, sd = chances.sum(), math.sqrt((chances * (1 - chances)).sum())
    below, above = np.cumsum(dist), np.cumsum(dist[::-1])[::-1]
    print(f"  {n:,} deals, mean chance {mean / n:.4f}")
    for z in ZS:
        lo, hi = math.floor(mean - z * sd), math.ceil(mean + z * sd)
        low_p, high_p = randomness.count_p(lo, n, exact_mean) / 2, randomness.count_p(hi, n, exact_mean) / 2
        print(f"    z {z}: fewer, exact {below[lo]:.3e}, normal {NORMAL.cdf((lo - mean) / sd) / below[lo]:.2f}x, "
              f"binomial bound {low_p / below[lo]:.2f}x; more, exact {above[hi]:.3e}, normal "
              f"{NORMAL.cdf((mean - hi) / sd) / above[hi]:.2f}x, binomial bound {high_p / above[hi]:.2f}x")


def categories(samples: int) -> None:
    rng = np.random.default_rng(1)
    shares = np.array([float(x) for x in exact.seven_card_shares()])
    levels = (1e-2, 1e-3, 2e-4)
    for n in (100, 300, 1_000, 3_300, 10_000):
        counts = rng.multinomial(n, shares, size=samples)
        line = f"  {n:,} deals:"
        for name, merge, stat in (("Pearson, bins of 5", 5.0, _pearson), ("Cressie-Read, bins of 10", 10.0, _cr)):
            bins = _bins(shares * n, merge)
            o = np.stack([counts[:, b].sum(axis=1) for b in bins], axis=1).astype(float)
            e = np.array([(shares * n)[b].sum() for b in bins])
            values = stat(o, e)
            dof = len(bins) - 1
            line += f"  {name} ({dof} dof): " + " ".join(
                f"{np.mean(values > _critical(dof, a)) / a:.2f}" for a in levels)
        print(line)


def _bins(expected: np.ndarray, merge: float) -> list[list[int]]:
    bins: list[list[int]] = []
    current: list[int] = []
    total = 0.0
    for k in range(9, -1, -1):
        current.append(k)
        total += expected[k]
        if total >= merge:
            bins.append(current)
            current, total = [], 0.0
    if current:
        bins[-1] += current
    return bins


def _pearson(o: np.ndarray, e: np.ndarray) -> np.ndarray:
    return ((o - e) ** 2 / e).sum(axis=1)  # type: ignore[no-any-return]


def _cr(o: np.ndarray, e: np.ndarray) -> np.ndarray:
    lam = randomness.LAMBDA
    return 2 / (lam * (lam + 1)) * (o * ((o / e) ** lam - 1)).sum(axis=1)  # type: ignore[no-any-return]


def _critical(dof: int, alpha: float) -> float:
    low, high = 0.0, 500.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if chi2_sf(mid, dof) > alpha else (low, mid)
    return low


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1_000_369, help="the fair table (bench/monitor_power.py's seeds)")
    parser.add_argument("--samples", type=int, default=1_000_000, help="fair deals drawn for the category tests")
    a = parser.parse_args()
    seats = table(a.seed, 10_000)
    value(seats)
    print(f"1. RTP: a window's sum of nets, exact (convolved) against the tails the band reads (table {a.seed})")
    for n in (100, 300, 1_000):
        rtp(seats[-n:], f"all, last {n:,} games")
    rtp([s for s in seats if s.player == "p-5"][-1_000:], "player p-5, last 1,000 games")
    rtp(seats, "all, last 10,000 games")
    print("1b. RTP's losing side for a player who calls only with two pair or better (the cells' 500 calls)")
    for calls in (80, 150, 300, 500, 1_000):
        for seed in (5, 6, 7):
            selective(calls, seed)
    print("2. dealer qualification: qualified deals, exact (Poisson-binomial) against the tails")
    for n in (100, 1_000, 3_300):
        qualification(seats, n)
    print(f"3. dealer categories, {a.samples:,} fair samples a size: share with p below 1%, 0.1%, 0.02%, "
          "over that level")
    categories(a.samples)


if __name__ == "__main__":
    main()
