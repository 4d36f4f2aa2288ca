"""False alarms of ``referee monitor`` over fair simulated live tables (issue 47).

Run: python bench/monitor_false_alarms.py [--tables 1000] [--games 2500] [--seats 2-4] [--seed 1]
                                          [--jobs 1] [--first 0] [--profile bonus-100]

A *table* is one live table as ``referee simulate --seats 2-4 --bonus 1 --start TIME --table T1``
deals it (``referee.simulate_table``: a shared hand, 2 to 4 seats a game from six regulars who
mix the ``always-call`` and ``simple`` play, Antes of 1, 2 or 5 and a Bonus of 1, three
dealers in turn, about 1% of games cancelled and 2% written as two records, every game
timed, about 55 an hour), fair: no fault. Its games become the monitor's seat facts as a
store gives them (``referee.monitor.simulated``: the same seats ``referee.monitor.reading``
reads from a store of the same log, both bases), and
``referee.monitor.run.judge`` tests them as ``referee monitor --store`` does: every segment
(all, table, dealer, profile, stake band, player), both bets, every window (the last 1,000
and 10,000 games, the day, the week, the month: 2,500 games are about 46 hours, so the day's
window is about half of them), the deal's tests, at the default band (99% family band,
Šidák over the tests made). Why not through a store: a store adds nothing to the statistics
(``tests/test_monitor.py`` compares them), and storing 10,000 seats a table a thousand times
is not what is measured.

The **false-alarm rate** is the share of tables with any alert; its target is at most 1%.
Printed: the rate with its 95% interval (Wilson), the tests a table, the alert groups
(``referee.monitor.groups``) of the tables that alerted, the seconds.

Both bases: the rules' (the nets the rules give against the exact expectation of the
decisions taken) and the paid one (what the wallets moved, against the same expectation),
together: a table alerts when either does. (A fair table pays what the rules give: its
paid cells hold the sums of its rules cells, and are those tests, counted once.)
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime
from decimal import Decimal

from referee.monitor.run import judge
from referee.monitor.simulated import seats_of
from referee.profiles import ProfileOrigin
from referee.simulate_table import TableSettings, parse_seats, simulate_tables

START = datetime(2026, 12, 1, 18, tzinfo=UTC)


def one(args: tuple[int, int, str, str]) -> tuple[int, bool, int, list[str]]:
    """A fair table judged: the tests made, whether it alerted, its alert groups and their leads."""
    seed, games, seats, profile_name = args
    loaded = ProfileOrigin.of_builtin(profile_name).resolve()
    settings = TableSettings(loaded.profile, parse_seats(seats), 1, games, seed, "mix",
                             Decimal(1) if loaded.profile.bonus is not None else Decimal(0), start=START, table="T1")
    seats_found = seats_of(simulate_tables(settings), loaded.profile)
    verdict = judge(seats_found)
    leads: list[str] = []
    if verdict.alerting:
        try:
            from referee.monitor.groups import group_alerts
        except ImportError:  # pragma: no cover - before groups
            leads = ["?"]
        else:
            leads = [g.lead for g in group_alerts(verdict, seats_found)]
    return verdict.band.tests, verdict.alerting, len(verdict.every_alert), leads


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.96
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2500)
    parser.add_argument("--seats", default="2-4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the first table's index (a run continued)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1: in this one, no pool)")
    parser.add_argument("--profile", default="bonus-100")
    a = parser.parse_args()
    started = time.perf_counter()
    work = [(a.seed * 1_000_003 + i, a.games, a.seats, a.profile) for i in range(a.first, a.first + a.tables)]
    alerted = alerts = 0
    tests: list[int] = []
    groups: list[int] = []
    with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else nullcontext() as pool:
        for (seed, *_), (n, alerting, count, leads) in zip(
                work, pool.map(one, work) if pool is not None else map(one, work), strict=True):
            tests.append(n)
            alerted += alerting
            alerts += count
            if alerting:
                groups.append(len(leads))
                print(f"table seed {seed}: {count} alerts in {len(leads)} groups led by {', '.join(leads)}",
                      flush=True)
            if len(tests) % 50 == 0:  # a run stopped early still says what it found so far
                print(f"after {len(tests)} tables: {alerted} alerted ({time.perf_counter() - started:.0f} s)",
                      flush=True)
    wall = time.perf_counter() - started
    low, high = wilson(alerted, a.tables)
    print(f"{a.tables} fair tables of {a.games:,} games ({a.seats} seats a game, {a.profile}, timed), "
          f"{min(tests)}-{max(tests)} tests a table, {wall:.0f} s wall on {a.jobs} process{'es' * (a.jobs > 1)}")
    print(f"  false alarms: {alerted}/{a.tables} = {alerted / a.tables:.2%} (95% interval {low:.2%} to {high:.2%}); "
          f"{alerts} alerts in {sum(groups)} groups")


if __name__ == "__main__":
    main()
