"""Instructions executed by ``referee check``, counted by valgrind: a figure the load
of a shared machine does not move (issue 28).

Run: python bench/instructions.py [--rounds N] [--seats N] PYTHON [PYTHON...]. Each
PYTHON is an interpreter with a ``referee`` installed (e.g. one venv at the commit
before a change, one after). Makes (once, in the temp directory, with the first
interpreter's ``referee simulate``) a format-1 log of N rounds (default 20,000) in
three layouts (as simulate writes it; keys shuffled; keys sorted with spaces, as
``jq -S`` writes) and a format-2 table log of N seats (default 20,000; 200 a game)
inline and as seat lines; then counts, for each interpreter, the instructions of
``check --format json --jobs 1`` on each (valgrind's cachegrind, ``Ir``), less those
of the same command on a 30-round log (start-up and imports), and prints them with
each interpreter's ratio to the first.

CPU seconds on a machine that other sessions load vary by 20% and more from run to
run; instruction counts vary by well under 1%. They do not see cache misses, so a
change that only moves memory traffic is better judged by ``bench/check_speed.py``
on an idle machine.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from check_speed import relayout  # this directory's: the same layouts as the CPU bench

WORK = Path(tempfile.gettempdir()) / "referee-instructions"


def simulate(python: str, path: Path, *args: str) -> Path:
    if not path.exists():
        subprocess.run([python, "-m", "referee", "simulate", "--seed", "28", "--format", "jsonl", *args,
                        "--output", str(path)], check=True, capture_output=True)
    return path


def instructions(python: str, path: Path) -> int:
    """``Ir`` of one ``referee check`` of ``path``."""
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           python, "-m", "referee", "check", "--format", "json", "--output", "/dev/null",
                           "--jobs", "1", "--no-progress", str(path)], capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    raise SystemExit(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")


def option(name: str, default: int) -> int:
    if name in sys.argv:
        at = sys.argv.index(name)
        value = int(sys.argv[at + 1])
        del sys.argv[at:at + 2]
        return value
    return default


def main() -> None:
    rounds, seats = option("--rounds", 20_000), option("--seats", 20_000)
    pythons = sys.argv[1:]
    if not pythons or shutil.which("valgrind") is None:
        raise SystemExit("usage: python bench/instructions.py PYTHON [PYTHON...] (needs valgrind)")
    WORK.mkdir(exist_ok=True)
    first = pythons[0]
    sessions = max(1, rounds // 10_000)
    plain = simulate(first, WORK / f"rounds-{rounds}.jsonl", "--sessions", str(sessions), "--rounds",
                     str(rounds // sessions))
    games = max(1, seats // 200)
    logs = {
        "format 1, as simulate writes it": plain,
        "format 1, keys shuffled": relayout(plain, WORK / f"rounds-{rounds}-shuffled.jsonl", "shuffled"),
        "format 1, keys sorted, spaced": relayout(plain, WORK / f"rounds-{rounds}-sorted.jsonl", "sorted"),
        "format 2, seats inline": simulate(first, WORK / f"table-{seats}.jsonl", "--seats", "200", "--rounds",
                                           str(games)),
        "format 2, seat lines": simulate(first, WORK / f"table-{seats}-lines.jsonl", "--seats", "200", "--rounds",
                                         str(games), "--seat-lines"),
    }
    tiny = WORK / "tiny.jsonl"
    tiny.write_text("".join(plain.read_text(encoding="utf-8").splitlines(keepends=True)[:31]), encoding="utf-8")
    base = {python: instructions(python, tiny) for python in pythons}
    print("start-up (30 rounds): " + ", ".join(f"{base[p] / 1e6:,.0f} M" for p in pythons))
    for label, path in logs.items():
        counts = [instructions(python, path) - base[python] for python in pythons]
        cells = [f"{c / 1e6:,.0f} M" + ("" if i == 0 else f" ({c / counts[0]:.3f}x)") for i, c in enumerate(counts)]
        print(f"{label}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
