"""Decisions valued a second: the per-situation table against the one-by-one count.

Run: python bench/decision_values.py [DECISIONS] [CLASSES]. Needs NumPy. Builds the
table's blocks for CLASSES random flop classes in a temporary cache (timed: what a
first run pays per class), then values DECISIONS random decisions falling in those
classes (every suit arrangement, any hole pair) from the warm cache, and a few one
by one; prints both rates and their ratio (issue 18: >= 10,000 a second), and checks
that the figures are equal.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from decimal import Decimal

from referee.analysis import situations
from referee.analysis.decisions import value, value_all
from referee.analysis.observe import Observed
from referee.profiles import ProfileOrigin

VIVO = ProfileOrigin.of_builtin("vivo")


def main() -> None:
    decisions = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    os.environ["REFEREE_CACHE_DIR"] = tempfile.mkdtemp(prefix="referee-bench-")
    rng = random.Random(18)
    c = situations.classes()
    chosen = rng.sample(range(len(c.flops)), count)
    one = Decimal(1)
    rounds = []
    for i in range(decisions):
        flop = c.flops[rng.choice(chosen)]
        perm = rng.sample(range(4), 4)
        hole = rng.sample([x for x in range(52) if x not in flop], 2)
        known = tuple((x & ~3) | perm[x & 3] for x in (*hole, *flop))
        rounds.append(Observed(session="s", number=i, file="f", line=i, profile=VIVO, ante=one,
                               main_staked=one, main_net=one, net=one, bonus=one, bonus_stake=one, called=True,
                               cards=(*known, None, None, None, None), player_category=None, dealer_qualified=None))
    distinct = len({r.known for r in rounds})
    start = time.perf_counter()
    value_all(rounds, jobs=1)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    served = value_all(rounds, jobs=1)
    warm = time.perf_counter() - start
    sample = rng.sample(sorted(served), 3)
    start = time.perf_counter()
    exact = {s: value(s) for s in sample}
    one_by_one = (time.perf_counter() - start) / len(sample)
    assert all(served[s] == exact[s] for s in sample)
    rate = len(rounds) / warm
    print(f"{len(rounds):,} decisions ({distinct:,} distinct situations) in {count} flop classes, vivo")
    print(f"first run (builds {count} blocks of 1,176 situations): {cold:.1f} s, {cold / count:.2f} s a class")
    print(f"warm table: {warm:.3f} s, {rate:,.0f} decisions/s")
    print(f"one by one (exact count, mean of {len(sample)}): {one_by_one:.3f} s a decision, "
          f"{1 / one_by_one:.1f} decisions/s")
    print(f"ratio: {rate * one_by_one:,.0f}x; sampled values equal: yes")


if __name__ == "__main__":
    main()
