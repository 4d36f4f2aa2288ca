"""False alarms and power of ``referee monitor`` (issue 30), by simulated tables.

Run: python bench/monitor_power.py [--tables 200] [--games 10000] [--seed 1] [--jobs 2] [--first 0] [--fair-only]

(``--fair-only``: the false alarms alone, each table judged once: a long run for the
false-alarm rate, at about half the time a table.)

(``plain`` rows: the same tables judged with the normal p-values, no skew correction.)

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
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from decimal import Decimal

from referee.monitor.bands import two_sided
from referee.monitor.cells import value
from referee.monitor.facts import Seat
from referee.monitor.run import judge
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


def one(args: tuple[int, int, tuple[str, ...]]) -> tuple[int, dict[str, bool], float]:
    """A table judged fair and short-paying (``kinds``): the tests made, which alerted
    (``plain ...``: had the p-values been the normal's, no skew correction), the most
    skewed cell."""
    seed, games, kinds = args
    seats = table(seed, games)
    valuation = value(seats)
    found = {}
    tests = 0
    skew = 0.0
    for kind in kinds:
        verdict = judge(seats if kind == "fair" else short(seats, kind), valuation=valuation)
        found[kind] = verdict.alerting
        plain = [two_sided(j.cell.z) for j in verdict.cells if j.same_as is None]
        found[f"plain {kind}"] = bool(verdict.deal_alerts) or any(verdict.band.outside(p) for p in plain)
        skew = max([skew, *(abs(j.cell.skewness or 0.0) for j in verdict.cells)])
        tests = verdict.band.tests
    return tests, found, skew


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
    a = parser.parse_args()
    started = time.perf_counter()
    kinds = KINDS[:1] if a.fair_only else KINDS
    names = [*kinds, *(f"plain {k}" for k in kinds)]
    caught = dict.fromkeys(names, 0)
    tests: list[int] = []
    skew = 0.0
    work = [(a.seed * 1_000_003 + i, a.games, kinds) for i in range(a.first, a.first + a.tables)]
    with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else nullcontext() as pool:
        for n, found, s in (pool.map(one, work) if pool is not None else map(one, work)):
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
