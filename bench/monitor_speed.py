"""How long ``referee monitor --store`` takes over a stored live table (issue 30's 10 s for
10 million seats), phase by phase.

Run: python bench/monitor_speed.py [--seats 200000 [500000 ...]] [--dir /tmp/bench-monitor]
     python bench/monitor_speed.py --cached STORE [--add N]

``--cached STORE``: the monitor as a user runs it, through its cache (``monitor/cache.py``),
each run a child process timed (CPU: user + system, and wall): the first run (the cache
made from the whole store), a run with nothing new, then (``--add N``, default 10,000)
one more source of N seats checked into the store and a run that catches up with it.
STORE is changed by ``--add``: give it a copy. The cache is made beside it, anew.

Makes (once, kept in ``--dir``) a store of simulated live tables, ``referee simulate
--seats 3-5`` under ``bonus-100`` with a Bonus stake (every bet and test at work), checked
into a SQLite store; then runs the monitor in this process, timing each phase (CPU and
wall seconds): reading the seat facts (SQL, straight into columns: ``stored_columns``),
valuing the distinct situations (the shipped outcome counts) and keys, the sums by segment
and window with the deal's tests and the bands, and the report. The
figure a seat is the total over the seats; the 10-million figure is extrapolated from it
(linear in seats; the valuing is linear in the distinct situations, at most one a seat).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from referee.monitor import output
from referee.monitor.run import judge_table
from referee.monitor.stored_columns import read_table
from referee.monitor.valued_columns import value_table
from referee.profiles import kept_profiles
from referee.store.read import Stored


def store(folder: Path, seats: int) -> Path:
    db = folder / f"monitor-{seats}.db"
    if db.is_file():
        return db
    games = seats // 4
    log = folder / f"monitor-{seats}.jsonl"
    run = [sys.executable, "-m", "referee"]
    subprocess.run([*run, "simulate", "--seats", "3-5", "--rounds", str(games // 4), "--sessions", "4", "--seed",
                    "11", "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1", "-o", str(log)], check=True)
    subprocess.run([*run, "check", "--store", str(db), str(log), "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return db


class Clock:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []
        self.cpu, self.wall = time.process_time(), time.perf_counter()

    def lap(self, name: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        self.rows.append((name, cpu - self.cpu, wall - self.wall))
        self.cpu, self.wall = cpu, wall


def timed(args: list[str]) -> tuple[float, float, int]:
    """A child process's CPU seconds (user + system), wall seconds and exit status."""
    before = os.times()
    start = time.perf_counter()
    code = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = os.times()
    return after.children_user - before.children_user + after.children_system - before.children_system, wall, code


def cached_runs(db: Path, add: int) -> None:
    cache = db.with_suffix(".monitor-cache.sqlite")
    cache.unlink(missing_ok=True)
    run = [sys.executable, "-m", "referee"]
    monitor = [*run, "monitor", "--store", str(db), "--cache", str(cache), "--format", "json", "-o", os.devnull]
    with Stored(str(db)) as stored:
        total = sum(s.seats for s in stored.sources())
    load = os.getloadavg()[0]
    print(f"monitor --store over {total:,} stored seats ({db.stat().st_size / 1e9:.1f} GB SQLite), through its cache; "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    for name in ("first run (the cache made from the whole store)", "nothing new since", "nothing new since"):
        cpu, wall, code = timed(monitor)
        print(f"  {name}: {cpu:.2f} s CPU, {wall:.2f} s wall (exit {code}); cache {cache.stat().st_size / 1e6:,.0f} MB")
    log = db.with_suffix(".more.jsonl")
    subprocess.run([*run, "simulate", "--seats", "4", "--rounds", str(add // 4), "--seed", "99", "--format", "jsonl",
                    "-o", str(log)], check=True, stderr=subprocess.DEVNULL)
    subprocess.run([*run, "check", "--store", str(db), str(log), "--quiet"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    cpu, wall, code = timed(monitor)
    print(f"  one more source of {add:,} seats: {cpu:.2f} s CPU, {wall:.2f} s wall (exit {code})")
    cpu, wall, code = timed([*run, "--version"])
    print(f"  (the interpreter's start-up, referee --version: {cpu:.2f} s CPU, {wall:.2f} s wall)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seats", type=int, nargs="+", default=[200_000],
                        help="the stores' sizes, one measurement each (500,000 and more: issue 47's first run)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-monitor"))
    parser.add_argument("--cached", type=Path, metavar="STORE")
    parser.add_argument("--add", type=int, default=10_000)
    a = parser.parse_args()
    if a.cached:
        cached_runs(a.cached, a.add)
        return
    a.dir.mkdir(parents=True, exist_ok=True)
    for seats in a.seats:
        measure(store(a.dir, seats))


def measure(db: Path) -> None:
    """The monitor over the store ``db`` in this process, phase by phase, as ``referee
    monitor --no-cache`` makes its verdict: the seats read as columns (``stored_columns``),
    valued (``valued_columns``), summed and tested (``run.judge_table``)."""
    clock = Clock()
    with Stored(str(db)) as stored, stored.reading():
        table = read_table(stored.conn)
        profiles = stored.profiles(stored.sources())
    assert table is not None, "a run whose hands cannot be valued at once"
    clock.lap("read the seat facts (SQL, into columns)")
    with kept_profiles(profiles):
        valued = value_table(table)
        clock.lap(f"value {int(valued.turns.shape[0]):,} distinct situations, {len(valued.figures):,} keys")
        verdict = judge_table(table, valued=valued)
        clock.lap(f"sum and test {len(verdict.cells):,} cells and {len(verdict.deals):,} deal tests")
        output.text(verdict, str(db))
        clock.lap("write the report (text)")
    n = len(table)
    cpu = sum(r[1] for r in clock.rows)
    wall = sum(r[2] for r in clock.rows)
    load = os.getloadavg()[0]
    print(f"monitor over {n:,} stored seats ({verdict.games:,} games), {db.stat().st_size / 1e6:.0f} MB SQLite; "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    for name, c, w in clock.rows:
        print(f"  {name}: {c:.2f} s CPU ({c / n * 1e6:.1f} µs a seat), {w:.2f} s wall")
    per = cpu / n
    print(f"  total {cpu:.2f} s CPU ({per * 1e6:.1f} µs a seat), {wall:.2f} s wall; at 10,000,000 seats about "
          f"{per * 1e7:.0f} s CPU")


if __name__ == "__main__":
    main()
