"""Format 2 at a live table (issue 19): ``check`` on 1,000 games x 200 seats.

Run: python bench/table_check.py [WORKDIR [REPEAT]]. Generates (once, with ``referee simulate
--seats 200``) the same table log twice in WORKDIR (default: the temp directory):
seats inline in each game line, and as separate seat lines after their game (10
sessions of 100 games, 200,000 seats). Then prints, each measured in this run:

* seats per second of ``referee check --format json --output /dev/null --jobs 1``
  (wall clock and CPU time of the child);
* the ratio to a bare loop that only ``json.loads`` every line of the same file, in
  CPU time (target: within 4x on one core);
* ``--jobs 2`` against ``--jobs 1`` in wall clock (target >= 1.7x; chunks are cut at
  session lines, so games stay whole).

The machine may be shared: CPU times are the child's own (``RUSAGE_CHILDREN``), and
each figure is the best of REPEAT runs (default 3). The command runs as an installed
package does, with its modules' bytecode compiled (as bench/check_speed.py: pip
compiles it on install, while PYTHONDONTWRITEBYTECODE, set on some machines, would
make every run compile it again, about 0.1 s no user pays); a first check of the
samples writes that bytecode before anything is timed.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
GAMES_PER_SESSION = 100
SESSIONS = 10
SEATS = 200
REPEAT = 3
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def make(path: Path, *extra: str) -> Path:
    if not path.exists():
        subprocess.run([*REFEREE, "simulate", "--seats", str(SEATS), "--rounds", str(GAMES_PER_SESSION),
                        "--sessions", str(SESSIONS), "--seed", "19", "--format", "jsonl", *extra,
                        "--output", str(path)], check=True)
    return path


def child(*args: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*REFEREE, *args], check=False, capture_output=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def check(path: Path, jobs: int) -> tuple[float, float]:
    runs = [child("check", str(path), "--format", "json", "--output", os.devnull, "--jobs", str(jobs))
            for _ in range(REPEAT)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def bare(path: Path) -> float:
    """CPU seconds of json.loads over every line (best of REPEAT)."""
    best = float("inf")
    for _ in range(REPEAT):
        start = time.process_time()
        with path.open("rb") as fh:
            for line in fh:
                json.loads(line)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    global REPEAT
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir())
    REPEAT = int(sys.argv[2]) if len(sys.argv) > 2 else REPEAT
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([*REFEREE, "check", str(SAMPLES / "table.jsonl"), "--format", "json", "--output", os.devnull],
                   check=False, capture_output=True, env=ENV)  # compiles the modules' bytecode once
    logs = {"seats inline": make(work / "table-inline.jsonl"),
            "seat lines": make(work / "table-lines.jsonl", "--seat-lines")}
    seats = SESSIONS * GAMES_PER_SESSION * SEATS
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
          f"{SESSIONS * GAMES_PER_SESSION:,} games x {SEATS} seats = {seats:,} seats (plus a few split records)")
    for name, path in logs.items():
        size = path.stat().st_size / 2**20
        parse = bare(path)
        wall1, cpu1 = check(path, 1)
        wall2, _ = check(path, 2)
        print(f"{name}: {size:.0f} MiB; bare json.loads {parse:.2f} s CPU; check --jobs 1 {wall1:.2f} s wall, "
              f"{cpu1:.2f} s CPU = {seats / cpu1:,.0f} seats/s of CPU ({seats / wall1:,.0f}/s wall), "
              f"{cpu1 / parse:.1f}x the bare parse (target 4x); --jobs 2 {wall2:.2f} s wall = "
              f"{wall1 / wall2:.2f}x (target 1.7x)")


if __name__ == "__main__":
    main()
