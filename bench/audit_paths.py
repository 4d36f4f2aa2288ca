"""Issue 44's figures, each a ratio measured in this run.

Run: python bench/audit_paths.py [WORKDIR] [--repeat N]. Generates (once, with ``referee
simulate``) in WORKDIR (default: the temp directory) four JSON Lines logs: format 1,
200,000 rounds (200 sessions of 1,000), clean and with 5% faulty rounds; format 2,
20,000 games of 2 to 8 seats (20 sessions of 1,000), clean and with 5% faults. Then
prints, in CPU seconds of the child (user + system, start-up included):

* ``referee check --format json --jobs 1`` on each log against a bare loop that only
  ``json.loads`` each line of the same file in text mode (targets: at most 2x, aim
  1.5x);
* each faulty log's check against its clean one's (target: at most 1.3x);
* ``check --store sqlite:///...`` against ``check`` on each clean log (target: at most
  1.30x).

The machine may be shared: every figure is the best of N runs (default 3), each check
interleaved with its baseline, so that a ratio compares runs that met the same load.
bench/check_speed.py has the layouts (keys shuffled or sorted), YAML, ``--jobs 2`` and
memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
#: As an installed package runs: its modules' bytecode compiled (bench/check_speed.py).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CHECK = ("check", "--format", "json", "--output", os.devnull, "--jobs", "1", "--no-progress")


def make(path: Path, *args: str) -> Path:
    if not path.exists():
        subprocess.run([*REFEREE, "simulate", *args, "--seed", "18", "--format", "jsonl", "--output", str(path)],
                       check=True, capture_output=True, env=ENV)
    return path


def child(*args: str) -> float:
    """CPU seconds (user + system) of one ``referee`` command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([*REFEREE, *args], capture_output=True, env=ENV, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode(errors="replace"))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bare(path: Path) -> float:
    """CPU seconds of a bare text-mode ``json.loads`` of every line."""
    from time import process_time

    start = process_time()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            with contextlib.suppress(ValueError):  # a faulty log's broken lines: skipped
                json.loads(line)
    return process_time() - start


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    args = [a for a in args if a != str(repeat)]
    work = Path(args[0] if args else tempfile.gettempdir())
    f1 = ("--sessions", "200", "--rounds", "1000")
    f2 = ("--sessions", "20", "--rounds", "1000", "--seats", "2-8")
    logs = {
        "format 1 clean": make(work / "referee-44-f1-clean.jsonl", *f1),
        "format 1, 5% faults": make(work / "referee-44-f1-faults.jsonl", *f1, "--faults", "0.05"),
        "format 2 clean": make(work / "referee-44-f2-clean.jsonl", *f2),
        "format 2, 5% faults": make(work / "referee-44-f2-faults.jsonl", *f2, "--faults", "0.05"),
    }
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}; best of {repeat}")
    child(*CHECK, str(logs["format 1 clean"]))  # the bytecode written before anything is timed
    checks: dict[str, float] = {}
    for label, path in logs.items():
        runs, bares = [], []
        for _ in range(repeat):
            bares.append(bare(path))
            runs.append(child(*CHECK, str(path)))
        checks[label] = min(runs)
        print(f"{label}: check {min(runs):.2f} s CPU, bare json.loads {min(bares):.2f} s: "
              f"{min(runs) / min(bares):.2f}x (target <= 2x, aim 1.5x)")
    for fmt in ("format 1", "format 2"):
        print(f"{fmt}: 5% faults {checks[f'{fmt}, 5% faults'] / checks[f'{fmt} clean']:.2f}x the clean log "
              "(target <= 1.3x)")
    for fmt in ("format 1", "format 2"):
        path = logs[f"{fmt} clean"]
        plain, stored = [], []
        for i in range(repeat):
            plain.append(child(*CHECK, str(path)))
            store = work / f"referee-44-store-{i}.db"
            with contextlib.suppress(FileNotFoundError):
                store.unlink()
            stored.append(child(*CHECK, str(path), "--store", f"sqlite:///{store}"))
        print(f"{fmt} clean: check --store {min(stored):.2f} s CPU, check {min(plain):.2f} s: "
              f"{min(stored) / min(plain):.2f}x (target <= 1.30x)")


if __name__ == "__main__":
    main()
