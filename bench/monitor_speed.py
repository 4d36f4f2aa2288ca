"""How long ``referee monitor --store`` takes over a stored live table (issue 30's 10 s for
10 million seats), phase by phase.

Run: python bench/monitor_speed.py [--seats 200000] [--dir /tmp/bench-monitor]

Makes (once, kept in ``--dir``) a store of simulated live tables, ``referee simulate
--seats 3-5`` under ``bonus-100`` with a Bonus stake (every bet and test at work), checked
into a SQLite store; then runs the monitor in this process, timing each phase (CPU and
wall seconds): reading the seat facts (SQL), valuing the distinct situations (the shipped
outcome counts), the sums by segment and window with the deal's tests and the bands, and
the report. The
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

from referee.monitor import output, reading
from referee.monitor.cells import value
from referee.monitor.run import judge
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seats", type=int, default=200_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-monitor"))
    a = parser.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    db = store(a.dir, a.seats)
    clock = Clock()
    with Stored(str(db)) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        profiles = stored.profiles(stored.sources())
    clock.lap("read the seat facts (SQL)")
    with kept_profiles(profiles):
        valuation = value(seats)
        clock.lap(f"value {len({(s.profile, s.known) for s in seats}):,} distinct situations")
        verdict = judge(seats, valuation=valuation)
        clock.lap(f"sum and test {len(verdict.cells):,} cells and {len(verdict.deals):,} deal tests")
        output.text(verdict, str(db))
        clock.lap("write the report (text)")
    n = len(seats)
    cpu = sum(r[1] for r in clock.rows)
    wall = sum(r[2] for r in clock.rows)
    load = os.getloadavg()[0]
    print(f"monitor over {n:,} stored seats ({verdict.games:,} games), {db.stat().st_size / 1e6:.0f} MB SQLite; "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    for name, c, w in clock.rows:
        print(f"  {name}: {c:.2f} s CPU, {w:.2f} s wall")
    per = cpu / n
    print(f"  total {cpu:.2f} s CPU ({per * 1e6:.1f} µs a seat), {wall:.2f} s wall; at 10,000,000 seats about "
          f"{per * 1e7:.0f} s CPU")


if __name__ == "__main__":
    main()
