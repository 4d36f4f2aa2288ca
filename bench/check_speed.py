"""Issue 18's audit figures, each a ratio measured in this run.

Run: python bench/check_speed.py [WORKDIR] [--memory-max ROUNDS]. Generates (once,
with ``referee simulate``) in WORKDIR (default: the temp directory) a clean and a
10%-faulty 200,000-round JSON Lines log and a 20,000-round YAML log, then prints:

* ``referee check --jobs 1`` as a command (a child process: start-up included) on
  the clean log, ``--format json`` and ``--format text``, against a bare loop that
  only ``json.loads`` each line of the same file (targets <= 3x, stretch 2x);
* the same on the faulty log (target <= 6x);
* YAML against a bare ``yaml.load_all`` with ``CSafeLoader`` (target <= 0.6x);
* ``--jobs 2`` against ``--jobs 1`` on the clean log and on the million-round one
  (target >= 1.7x on an idle machine: the start-up and the parent's cutting pass are
  not shared, so the shorter log gains less);
* the same clean log in the layouts users' files have (issue 28): each line's keys
  shuffled, and sorted with spaces after ``:`` and ``,`` (``jq -S``, most exporters),
  each against its own bare parse; the three stay within 10% of each other;
* peak resident memory of the check from 20,000 rounds up to ``--memory-max``
  (default 1,000,000; target <= 60 MB and flat).

This machine is shared: every figure is the best of ``REPEAT`` runs (default 3),
each command's runs interleaved with the bare parse's, so that a ratio compares runs
that met the same load; CPU seconds (user + system, workers included) are printed
beside wall seconds, and their ratio is the one a loaded machine disturbs least.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml

REFEREE = [sys.executable, "-m", "referee"]
REPEAT = int(os.environ.get("REPEAT", "3"))
#: ``--jobs 2`` against ``--jobs 1`` is the figure a shared host's drift disturbs most
#: (two busy cores): its pairs are run at least this many times, interleaved.
JOBS_REPEAT = 5
# Runs the command in a child and prints its peak RSS (KiB) and CPU seconds (its own and
# its workers', user + system) on the last stderr line, then leaves as the command does
# (without the interpreter's teardown: see referee.cli.entry).
RSS = ("import resource, runpy, sys; sys.argv = ['referee'] + sys.argv[1:]\n"
       "try:\n    from referee.start import command_line; command_line().main()\nexcept SystemExit:\n    pass\n"
       "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
       "me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
       "cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime\n"
       "print(peak[0] if peak else me.ru_maxrss, cpu, file=sys.stderr)\n"
       "sys.stdout.flush(); sys.stderr.flush(); import os; os._exit(0)  # as referee.cli.entry leaves")


def make(path: Path, fmt: str, rounds: int, faults: float = 0.0) -> Path:
    if not path.exists():
        sessions = max(1, rounds // 1000)
        subprocess.run([*REFEREE, "simulate", "--sessions", str(sessions), "--rounds", str(min(rounds, 1000)),
                        "--seed", "18", "--faults", str(faults), "--format", fmt, "--output", str(path)],
                       check=True, capture_output=True)
    return path


#: The command runs as an installed package does: with its modules' bytecode compiled
#: (pip compiles it on install; PYTHONDONTWRITEBYTECODE, set on some machines, would
#: make every run compile them again, about 0.1 s of start-up no user pays).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def check(path: Path, fmt: str = "json", jobs: int = 1) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB) and CPU seconds of one ``referee check`` command."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RSS, "check", str(path), "--format", fmt, "--output",
                           os.devnull, "--jobs", str(jobs), "--no-progress"], capture_output=True, text=True,
                          check=False, env=ENV)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr)
    rss, cpu = done.stderr.strip().splitlines()[-1].split()
    return elapsed, int(rss), float(cpu)


def relayout(source: Path, path: Path, how: str) -> Path:
    """The same log with each line's keys (at every depth) shuffled or sorted, as another
    writer would have written it; the numbers and words unchanged."""
    if path.exists():
        return path
    rng = random.Random(28)

    def order(value: object) -> object:
        if isinstance(value, dict):
            keys = sorted(value) if how == "sorted" else rng.sample(list(value), len(value))
            return {k: order(value[k]) for k in keys}
        if isinstance(value, list):
            return [order(v) for v in value]
        return value

    spaced = how == "sorted"
    with source.open(encoding="utf-8") as src, path.open("w", encoding="utf-8") as out:
        for line in src:
            text = json.dumps(order(json.loads(line)), separators=(", ", ": ") if spaced else (",", ":"))
            out.write(text + "\n")
    return path


def bare_json(path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the bare parse."""
    start, cpu = time.perf_counter(), time.process_time()
    loads = json.loads
    with path.open("rb") as fh:
        for line in fh:
            with contextlib.suppress(ValueError):  # a faulty log's broken lines: the bare parse skips them
                loads(line)
    return time.perf_counter() - start, time.process_time() - cpu


def bare_yaml(path: Path) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    with path.open("rb") as fh:
        for _ in yaml.load_all(fh, Loader=yaml.CSafeLoader):
            pass
    return time.perf_counter() - start, time.process_time() - cpu


def best_pair(run: Callable[[], tuple[float, int, float]],
              bare: Callable[[], tuple[float, float]]) -> tuple[float, int, float, float, float]:
    """Best of REPEAT of a command and of its bare baseline, interleaved: the fastest
    wall time of each, and the least CPU time of each."""
    runs, bares = [], []
    for _ in range(REPEAT):
        bares.append(bare())
        runs.append(run())
    return (min(r[0] for r in runs), max(r[1] for r in runs), min(r[2] for r in runs),
            min(b[0] for b in bares), min(b[1] for b in bares))


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    memory_max = 1_000_000
    if "--memory-max" in sys.argv:
        memory_max = int(sys.argv[sys.argv.index("--memory-max") + 1])
        args = [a for a in args if a != str(memory_max)]
    work = Path(args[0] if args else tempfile.gettempdir())
    clean = make(work / "referee-18-clean-200k.jsonl", "jsonl", 200_000)
    faulty = make(work / "referee-18-faulty-200k.jsonl", "jsonl", 200_000, 0.1)
    ylog = make(work / "referee-18-20k.yaml", "yaml", 20_000)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}; best of {REPEAT}")

    for label, path, target in (("clean", clean, 3), ("10% faulty", faulty, 6)):
        for fmt in ("json", "text"):
            wall, rss, cpu, b_wall, b_cpu = best_pair(partial(check, path, fmt), partial(bare_json, path))
            print(f"JSONL 200k {label}, --format {fmt}: check {wall:.1f} s ({cpu:.1f} s CPU), bare json.loads "
                  f"{b_wall:.2f} s ({b_cpu:.2f} s CPU): {wall / b_wall:.2f}x wall, {cpu / b_cpu:.2f}x CPU "
                  f"(target <= {target}x); peak RSS {rss / 1024:.0f} MB")

    layouts = [("as simulate writes it", clean),
               ("keys shuffled", relayout(clean, work / "referee-18-shuffled-200k.jsonl", "shuffled")),
               ("keys sorted, spaced", relayout(clean, work / "referee-18-sorted-200k.jsonl", "sorted"))]
    cpus = []
    for label, path in layouts:
        wall, _, cpu, b_wall, b_cpu = best_pair(partial(check, path), partial(bare_json, path))
        cpus.append(cpu)
        print(f"JSONL 200k clean, {label}: check {wall:.1f} s ({cpu:.1f} s CPU), bare json.loads {b_cpu:.2f} s CPU: "
              f"{cpu / b_cpu:.2f}x CPU")
    print(f"layouts: slowest {max(cpus) / min(cpus):.2f}x the fastest in CPU (target <= 1.10x)")

    wall, _, cpu, b_wall, b_cpu = best_pair(lambda: check(ylog), lambda: bare_yaml(ylog))
    print(f"YAML 20k: check {wall:.1f} s ({cpu:.1f} s CPU), bare CSafeLoader {b_wall:.1f} s ({b_cpu:.1f} s CPU): "
          f"{wall / b_wall:.2f}x wall, {cpu / b_cpu:.2f}x CPU (target <= 0.6x)")

    sizes = [n for n in (20_000, 200_000, 1_000_000) if n <= memory_max]
    peaks = []
    big: list[tuple[int, Path]] = []
    for n in sizes:
        path = clean if n == 200_000 else make(work / f"referee-18-clean-{n // 1000}k.jsonl", "jsonl", n)
        big.append((n, path))
        peaks.append(check(path)[1] / 1024)
    print("peak RSS, --format json --jobs 1: " + ", ".join(f"{n:,} rounds {p:.0f} MB" for n, p in zip(sizes, peaks,
                                                                                                        strict=True))
          + " (target <= 60 MB, flat)")

    for n, path in [(200_000, clean), *[(n, p) for n, p in big if n > 200_000]]:
        ones, twos = [], []
        for _ in range(max(REPEAT, JOBS_REPEAT)):
            ones.append(check(path, jobs=1)[0])
            twos.append(check(path, jobs=2)[0])
        print(f"JSONL {n:,} rounds --jobs 2: {min(twos):.1f} s against --jobs 1 {min(ones):.1f} s: "
              f"{min(ones) / min(twos):.2f}x (target >= 1.7x on an idle machine)")


if __name__ == "__main__":
    main()
