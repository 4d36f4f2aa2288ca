"""Decisions valued a second from a cold start (issue 27), against the one-by-one count.

Run: python bench/decision_values.py [--decisions 120,1000,10000,100000] [--qualifier N] [--jobs 2]

Each figure is measured in a fresh process with an empty cache (``REFEREE_CACHE_DIR``
a new temporary folder): nothing read, decoded or counted before it starts. Random
situations (two private cards and a flop, any suit arrangement) are valued:

* under ``vivo`` (a built-in profile: the shipped table), for each DECISIONS;
* under a custom profile with its own odds (royal flush 250:1, Call paid 1.5:1) and
  vivo's qualifier: the same table;
* with ``--qualifier N`` (N decisions, 0 to skip): under a custom profile whose dealer
  qualifies with a pair of 8s, whose counts no table holds: the first run counts every
  flop class the decisions fall in (``--jobs`` processes) and caches them, the second
  reads them back.

Printed: wall and CPU seconds (the workers' included), decisions a second by each
(the clock is what a user waits; on a loaded machine the CPU figure is what an idle
core would give, about), the load average beside them; then the one-by-one count's time for a decision
(``rules/strategy.py``), the ratio, and a check that sampled values are equal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from referee.analysis.decisions import value
from referee.analysis.situations import table_values
from referee.profiles import ProfileOrigin

VIVO = Path(__file__).resolve().parent.parent / "referee" / "data" / "profiles" / "vivo.yaml"


def situations(n: int, origin: ProfileOrigin, seed: int) -> list[tuple[ProfileOrigin, tuple[int, ...]]]:
    rng = random.Random(seed)
    return sorted({(origin, tuple(rng.sample(range(52), 5))) for _ in range(n)})


def custom(folder: Path, name: str, **changes: object) -> ProfileOrigin:
    data = yaml.safe_load(VIVO.read_text())
    data.update(name=name, **changes)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return ProfileOrigin("file", str(path))


def child(kind: str, name: str, n: int, seed: int, jobs: int) -> None:
    """In the fresh process: value the situations and print what it cost, as JSON."""
    origin = ProfileOrigin.of_builtin(name) if kind == "builtin" else ProfileOrigin("file", name)
    wanted = situations(n, origin, seed)
    origin.resolve()  # reading the profile is not valuing
    counted: list[int] = []
    cpu, wall = time.process_time(), time.perf_counter()
    table_values(wanted, jobs, counting=counted.append)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    import resource

    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"situations": len(wanted), "cpu": cpu + workers.ru_utime + workers.ru_stime, "wall": wall,
                      "counted": sum(counted), "load": os.getloadavg()[0]}))


def measure(kind: str, name: str, n: int, seed: int, cache: Path, jobs: int = 1) -> dict[str, float]:
    env = {**os.environ, "REFEREE_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, __file__, "--child", kind, name, str(n), str(seed), str(jobs)],
                          capture_output=True, text=True, env=env, check=True)
    found: dict[str, float] = json.loads(done.stdout)
    return found


def line(label: str, m: dict[str, float]) -> str:
    counted = f", {int(m['counted']):,} classes counted" if m["counted"] else ""
    return (f"{label}: {int(m['situations']):,} decisions in {m['wall']:.2f} s wall, {m['cpu']:.2f} s CPU{counted}: "
            f"{m['situations'] / m['wall']:,.0f}/s by the clock, {m['situations'] / m['cpu']:,.0f}/s of CPU  "
            f"[load {m['load']:.1f}]")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", default="120,1000,10000,100000")
    parser.add_argument("--qualifier", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    print(f"cold start: a fresh process and an empty cache each time ({os.cpu_count()} cores)")
    for n in (int(x) for x in args.decisions.split(",")):
        print(line("vivo (shipped table)", measure("builtin", "vivo", n, n, folder / f"cache-{n}")))
    paytable = {"royal_flush": 250, "straight_flush": 40, "four_of_a_kind": 12, "full_house": 4, "flush": 3,
                "straight": 1, "three_of_a_kind": 1, "two_pair": 1, "pair": 1, "high_card": 1}
    house = custom(folder, "house-rules", ante_paytable=paytable, call_win_odds="1.5")
    print(line("custom paytable, vivo's qualifier", measure("file", house.name, 10_000, 7, folder / "cache-house")))
    checked = [*situations(2, ProfileOrigin.of_builtin("vivo"), 1), *situations(1, house, 7)]
    if args.qualifier:
        strict = custom(folder, "pair-of-8s", dealer_qualifier={"category": "pair", "rank": "8"})
        cache = folder / "cache-strict"
        first = measure("file", strict.name, args.qualifier, 8, cache, args.jobs)
        print(line(f"custom qualifier, first run (--jobs {args.jobs})", first))
        print(line("custom qualifier, second run (cached)", measure("file", strict.name, args.qualifier, 8, cache)))
        os.environ["REFEREE_CACHE_DIR"] = str(cache)
        checked += situations(1, strict, 8)
    start = time.process_time()
    exact = {s: value(s) for s in checked}
    one = (time.process_time() - start) / len(checked)
    served = table_values(checked, 1)
    assert all(served[s] == (v.call_value, v.qualifies, v.categories) for s, v in exact.items())
    print(f"one by one (rules/strategy.py, mean of {len(checked)}): {one:.3f} s CPU a decision "
          f"({1 / one:.1f} a second); {len(checked)} sampled values equal the tables'")


if __name__ == "__main__":
    main()
