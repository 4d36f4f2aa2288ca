"""False alarms and power of ``referee monitor`` (issue 30), by simulated tables.

Run: python bench/monitor_power.py [--tables 200] [--games 10000] [--seed 1] [--jobs 2] [--first 0] [--fair-only]

(``--fair-only``: the false alarms alone, each table judged once: a long run for the
false-alarm rate, at about half the time a table. ``--pvalues FILE``: every fair table's
p-values, a JSON line a table, appended; ``--calibration FILE...`` then says, per family
of test, how many fall below 1%, 0.1% and 0.02% against what exact tests give: which test,
if any, alarms more than its level.)

(``plain`` rows: the same tables judged with the normal p-values on both sides, no
Bennett's bound on the winning side, the normal tail for the deal's counts too.)

A *table* is 10,000 games of one live table (one seat a game, as the deal is what the
tests see: a shared-hand table's seats move as one), dealt exactly as ``referee simulate``
deals (``random.Random(seed).sample`` of nine cards a game), played by the simulator's
``simple`` policy (its published-style rule of thumb: the decisions the monitor must
condition on), settled by the rules engine under ``vivo``; three dealers in turn, seven
players, Antes of 1, 2 or 5. The seat facts go straight to the monitor's statistics
(``referee.monitor.run.judge``, every segment: all, table, dealer, profile, stake band,
player, both bets, six windows, the deal's tests), as ``referee monitor --store`` gives
them from a store, without the store in between (a store adds nothing to the statistics,
and storing 2,000,000 seats a run is not what is measured here).

* **false alarms**: the share of fair tables with any alert at the default band (99%
  family band, Šidák over the tests made): at most 1% is the target;
* **power**: the share of short-paying tables caught within their 10,000 games, for a
  table whose winning bets are paid 2% short (every positive net × 0.98) and for one
  that returns 2 points of RTP too little (every seat's net minus 2% of its stake).

Printed: each rate with its 95% interval (Wilson), the tests a table, the seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from decimal import Decimal
from pathlib import Path

from referee.monitor.bands import two_sided
from referee.monitor.facts import Seat
from referee.monitor.run import Verdict, judge
from referee.monitor.valuing import value
from referee.profiles import ProfileOrigin
from referee.rules.cards import DECK
from referee.rules.settlement import Deal, settle
from referee.simulate import simple_policy

VIVO = ProfileOrigin.of_builtin("vivo")
KINDS = ("fair", "payouts 2% short", "RTP 2 points short")


def table(seed: int, games: int) -> list[Seat]:
    """One fair table's seats, in play order."""
    profile = VIVO.resolve().profile
    rng = random.Random(seed)
    out = []
    for g in range(games):
        cards = rng.sample(DECK, 9)
        player, flop, turn, river, dealer = cards[:2], cards[2:5], cards[5], cards[6], cards[7:]
        ante = Decimal(rng.choice((1, 2, 5)))
        call = simple_policy(list(player), list(flop))
        ruling = settle(profile, Deal(ante=ante, player=player, flop=flop, decision="call" if call else "fold",
                                      turn=turn, river=river, dealer=dealer))
        assert ruling.player_hand is not None and ruling.dealer_hand is not None
        out.append(Seat(order=g, game=("game", g), time_us=None, table="T1", dealer=f"d-{g // 60 % 3}",
                        profile="builtin:vivo", player=f"p-{g % 7}", ante_u=int(ante * 1_000_000),
                        staked_u=int(ruling.staked * 1_000_000), net_u=int(ruling.net * 1_000_000), bonus_u=0,
                        called=call, known=tuple(int(c) for c in cards[:5]), deal=True,
                        player_value=ruling.player_hand.value, dealer_value=ruling.dealer_hand.value))
    return out


def short(seats: list[Seat], kind: str) -> list[Seat]:
    """The same table paying short (the same deals and decisions: their figures kept)."""
    from dataclasses import replace

    if kind == "payouts 2% short":
        return [replace(s, net_u=s.net_u * 98 // 100 if s.net_u > 0 else s.net_u) for s in seats]
    return [replace(s, net_u=s.net_u - s.staked_u // 50) for s in seats]


Tested = list[tuple[str, float]]  # a fair table's distinct tests: (family, p)


def one(args: tuple[int, int, tuple[str, ...]]) -> tuple[int, dict[str, bool], float, Tested]:
    """A table judged fair and short-paying (``kinds``): the tests made, which alerted
    (``plain ...``: had every p-value been the normal's), the most skewed cell, and the
    fair table's p-values by family of test (``calibration``)."""
    seed, games, kinds = args
    seats = table(seed, games)
    valuation = value(seats)
    found = {}
    tests = 0
    skew = 0.0
    tested: Tested = []
    for kind in kinds:
        verdict = judge(seats if kind == "fair" else short(seats, kind), valuation=valuation)
        found[kind] = verdict.alerting
        if kind == "fair":
            tested = families(verdict)
        plain = [two_sided(j.cell.z) for j in verdict.cells if j.same_as is None]
        found[f"plain {kind}"] = bool(verdict.deal_alerts) or any(verdict.band.outside(p) for p in plain)
        skew = max([skew, *(abs(j.cell.skewness or 0.0) for j in verdict.cells)])
        tests = verdict.band.tests
    return tests, found, skew, tested


def families(verdict: Verdict) -> Tested:
    """Each distinct test's p-value with its family: a cell's side (its z below or above
    the expectation: the normal tail, or Bennett's bound) and window kind,
    or the deal test's name."""
    out: Tested = []
    for j in verdict.cells:
        c = j.cell
        if j.same_as is None and c.tested and j.p is not None and c.z is not None:
            side = "below" if c.z <= 0 else "above"
            out.append((f"rtp {side}, {c.kind} {c.window.split()[1] if 'last' in c.window else c.window}", j.p))
    for t in verdict.deals:
        if t.same_as is None and t.test.p is not None:
            out.append((f"deal {t.test.test}", t.test.p))
    return out


LEVELS = (1e-2, 1e-3, 2e-4)
#: Family levels the same p-values are judged at too: a larger level's rate is measured
#: closely by fewer tables, and a band that holds it holds it at every level.
FAMILY_LEVELS = (0.2, 0.1, 0.05, 0.01)


def calibration(paths: list[Path]) -> None:
    """Per family of test, over every fair table of ``--pvalues`` files: how many p-values
    fall below 1%, 0.1% and 0.02% (about a test's level at the default band), against what
    an exact test gives (the level × the tests), with a 95% interval for the count."""
    counts: dict[str, list[int]] = {}
    tables = alerted = 0
    families_at = dict.fromkeys(FAMILY_LEVELS, 0)
    for path in paths:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            tables += 1
            alerted += row["alert"]
            smallest = min((p for _, p in row["tests"]), default=1.0)
            for alpha in FAMILY_LEVELS:  # Šidák over the table's distinct tests, as the band
                families_at[alpha] += smallest < -math.expm1(math.log1p(-alpha) / max(len(row["tests"]), 1))
            for family, p in row["tests"]:
                found = counts.setdefault(family.split(",")[0], [0] * (1 + len(LEVELS)))
                found[0] += 1
                for k, level in enumerate(LEVELS, 1):
                    found[k] += p < level
    low, high = wilson(alerted, tables)
    print(f"{tables} fair tables, {alerted} with an alert: {alerted / tables:.2%} (95% interval {low:.2%} to "
          f"{high:.2%})")
    print("  at other family levels (Šidák over the same tests): " + ", ".join(
        f"{alpha:.0%}: {families_at[alpha] / tables:.2%}" for alpha in FAMILY_LEVELS))
    print("family: tests; p below " + ", ".join(f"{x:g} (expected)" for x in LEVELS))
    for family, found in sorted(counts.items()):
        n = found[0]
        print(f"  {family}: {n:,}; " + ", ".join(f"{found[k]} ({n * x:.1f})" for k, x in enumerate(LEVELS, 1)))


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.96
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the first table's index (a run continued)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (1: in this one, no pool)")
    parser.add_argument("--fair-only", action="store_true", help="fair tables alone (the false alarms)")
    parser.add_argument("--pvalues", type=Path, help="write each fair table's p-values here (a JSON line a table)")
    parser.add_argument("--calibration", type=Path, nargs="+", help="summarise --pvalues files, run nothing")
    a = parser.parse_args()
    if a.calibration:
        calibration(a.calibration)
        return
    out = a.pvalues.open("a") if a.pvalues else None
    started = time.perf_counter()
    kinds = KINDS[:1] if a.fair_only else KINDS
    names = [*kinds, *(f"plain {k}" for k in kinds)]
    caught = dict.fromkeys(names, 0)
    tests: list[int] = []
    skew = 0.0
    work = [(a.seed * 1_000_003 + i, a.games, kinds) for i in range(a.first, a.first + a.tables)]
    with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else nullcontext() as pool:
        for (seed, _, _), (n, found, s, tested) in zip(
                work, pool.map(one, work) if pool is not None else map(one, work), strict=True):
            if out is not None:
                out.write(json.dumps({"seed": seed, "alert": found["fair"], "tests": tested}) + "\n")
                out.flush()
            tests.append(n)
            skew = max(skew, s)
            for kind in names:
                caught[kind] += found[kind]
            # a running line a table: a run stopped early still says what it found so far
            print(f"after {len(tests)} tables: " + ", ".join(f"{k} {caught[k]}" for k in names)
                  + f"; largest |skewness| {skew:.3f}", flush=True)
    wall = time.perf_counter() - started
    print(f"{a.tables} tables of {a.games:,} games (one seat a game, simple play, vivo), "
          f"{min(tests)}-{max(tests)} tests a table, {wall:.0f} s wall on {a.jobs} processes")
    for kind in names:
        low, high = wilson(caught[kind], a.tables)
        what = "false alarms" if kind.endswith("fair") else "caught"
        print(f"  {kind}: {what} {caught[kind]}/{a.tables} = {caught[kind] / a.tables:.1%} "
              f"(95% interval {low:.1%} to {high:.1%})")


if __name__ == "__main__":
    main()
