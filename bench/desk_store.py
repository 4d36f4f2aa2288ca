"""A big store for the desk's bench (issue 48): live tables simulated and stored by ``check --store``.

Run: python bench/desk_store.py STORE [--seats 10000000] [--games-a-log 20000] [--faults 0.02] [--folder DIR].
Each log is ``referee simulate --seats 7 --rounds G --faults F --seed n --table T{n % 20 + 1}
--start ...`` (a game about a minute, 20 tables, each log a fortnight after the last at its
table) stored by ``referee check LOG --store STORE`` (the real rows, runs and indexes); the
next log is simulated while the last is checked, and each log is deleted once stored. A
log already stored (its name in the store's sources) is not made again, so a run cut
short is taken up where it stopped. Prints the seats stored and the time taken.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]
SEATS = 7


def plan(seats: int, games: int) -> list[tuple[str, str, str]]:
    """(log name, table, first game's start) of each log."""
    logs = max(1, seats // (SEATS * games))
    first = datetime(2026, 1, 1, 18, tzinfo=UTC)
    days = games // 1440 + 1
    return [(f"table-{n:04d}.jsonl", f"T{n % 20 + 1}",
             (first + timedelta(days=days * (n // 20))).strftime("%Y-%m-%dT%H:%M:%S"))
            for n in range(logs)]


def stored_names(store: str) -> set[str]:
    sys.path.insert(0, str(ROOT))
    from referee.store import StoreError
    from referee.store.read import Stored

    try:
        with Stored(store) as s:
            return {Path(x.name).name for x in s.sources()}
    except StoreError:
        return set()


def simulate(folder: Path, n: int, name: str, table: str, start: str, games: int,
             faults: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*REFEREE, "simulate", "--seats", str(SEATS), "--rounds", str(games), "--seed", str(n),
                             "--faults", str(faults), "--table", table, "--start", start, "--format", "jsonl",
                             "--output", str(folder / name)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--seats", type=int, default=10_000_000)
    parser.add_argument("--games-a-log", type=int, default=20_000)
    parser.add_argument("--faults", type=float, default=0.02)
    parser.add_argument("--folder", default=None)
    args = parser.parse_args()
    folder = Path(args.folder or Path(args.store).parent if not args.store.startswith("postgres") else ".")
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = stored_names(args.store)
    todo = [(n, *p) for n, p in enumerate(plan(args.seats, args.games_a_log)) if p[0] not in done]
    began = time.monotonic()
    making = simulate(folder, *todo[0], args.games_a_log, args.faults) if todo else None
    for k, (n, name, table, start) in enumerate(todo):
        assert making is not None
        if making.wait() != 0:
            raise SystemExit(f"simulate {name} failed")
        making = simulate(folder, *todo[k + 1], args.games_a_log, args.faults) if k + 1 < len(todo) else None
        checked = subprocess.run([*REFEREE, "check", str(folder / name), "--store", args.store, "--quiet"],
                                 capture_output=True, text=True, check=False)
        if checked.returncode not in (0, 1):
            raise SystemExit(checked.stderr)
        (folder / name).unlink()
        print(f"{n + 1}/{len(todo) + len(done)} {name} {table} {start}: {time.monotonic() - began:.0f} s", flush=True)
    print(f"{len(done) + len(todo)} logs of {args.games_a_log:,} games, {SEATS} seats a game "
          f"({(len(done) + len(todo)) * args.games_a_log * SEATS:,} seats); {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
