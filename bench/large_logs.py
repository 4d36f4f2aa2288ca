"""Large logs (issue 6): the check against the bare parse, memory, and --jobs.

Run: python bench/large_logs.py [WORKDIR]. Generates (once, with ``referee simulate``)
a 1,000,000-round and a 100,000-round JSON Lines log and a 100,000-round YAML log in
WORKDIR (default: the temp directory), then prints, each measured in this run:

* JSON Lines, 1M rounds: rounds/s of ``referee check --format json --jobs 1`` and of a
  bare loop that only ``json.loads`` each line; their ratio (target <= 3).
* YAML, 100k rounds: ``referee check --jobs 1`` against ``yaml.load_all`` with
  ``CSafeLoader`` of the same file alone (target <= 1.5).
* Peak resident memory of the check for 1M and 100k rounds (target <= 150 MB, and
  the same within 10%).
* ``--jobs 2`` against ``--jobs 1`` on the 1M-round log (target >= 1.7x).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REFEREE = [sys.executable, "-m", "referee"]
# Runs the command in a child and prints its peak RSS (KiB) on the last stderr line.
RSS = ("import resource, runpy, sys; sys.argv = ['referee'] + sys.argv[1:]\n"
       "try:\n    from referee.start import command_line; command_line().main()\nexcept SystemExit:\n    pass\n"
       "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
       "print(peak[0] if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")


def make(path: Path, fmt: str, rounds: int) -> Path:
    if not path.exists():
        sessions = rounds // 1000
        subprocess.run([*REFEREE, "simulate", "--sessions", str(sessions), "--rounds", "1000", "--seed", "6",
                        "--format", fmt, "--output", str(path)], check=True)
    return path


def check(path: Path, jobs: int, *extra: str) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one ``referee check`` run."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RSS, "check", str(path), "--format", "json", "--output",
                           os.devnull, "--jobs", str(jobs), *extra], capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr)
    return elapsed, int(done.stderr.strip().splitlines()[-1])


def bare_json(path: Path) -> float:
    start = time.perf_counter()
    loads = json.loads
    with path.open("rb") as fh:
        for line in fh:
            loads(line)
    return time.perf_counter() - start


def bare_yaml(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as fh:
        for _ in yaml.load_all(fh, Loader=yaml.CSafeLoader):
            pass
    return time.perf_counter() - start


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.gettempdir())
    big = make(work / "referee-bench-1m.jsonl", "jsonl", 1_000_000)
    mid = make(work / "referee-bench-100k.jsonl", "jsonl", 100_000)
    ymid = make(work / "referee-bench-100k.yaml", "yaml", 100_000)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, PyYAML {yaml.__version__} (libyaml {yaml.__with_libyaml__})")

    t_bare = bare_json(big)
    t_check, rss_big = check(big, 1)
    print(f"JSONL 1M: bare json.loads {1e6 / t_bare:,.0f} rounds/s ({t_bare:.1f} s); referee check --jobs 1 "
          f"{1e6 / t_check:,.0f} rounds/s ({t_check:.1f} s); ratio {t_check / t_bare:.2f}x (target <= 3)")
    _, rss_mid = check(mid, 1)
    print(f"peak RSS: 1M rounds {rss_big / 1024:.0f} MB, 100k rounds {rss_mid / 1024:.0f} MB "
          f"(difference {abs(rss_big - rss_mid) / rss_mid:.0%}; target <= 150 MB, within 10%)")

    t_yaml = bare_yaml(ymid)
    t_ycheck, rss_y = check(ymid, 1)
    print(f"YAML 100k: bare CSafeLoader {t_yaml:.1f} s; referee check --jobs 1 {t_ycheck:.1f} s; "
          f"ratio {t_ycheck / t_yaml:.2f}x (target <= 1.5); peak RSS {rss_y / 1024:.0f} MB")

    t_two, rss_two = check(big, 2)
    print(f"JSONL 1M --jobs 2: {t_two:.1f} s against --jobs 1 {t_check:.1f} s: {t_check / t_two:.2f}x "
          f"(target >= 1.7); peak RSS of the parent {rss_two / 1024:.0f} MB")


if __name__ == "__main__":
    main()
