"""How fast ``referee simulate`` writes a JSON Lines log (issue 7: 1,000,000 rounds < 1 min).

Run: python bench/simulate_speed.py [ROUNDS] [OUT]. Also times the ``optimal`` policy's
decision (the exact value of calling over all 1,070,190 completions).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from random import Random

from referee import DECK, load_profile
from referee.rules.evaluator import tables
from referee.simulate import optimal_policy


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tempfile.gettempdir(), "referee-1m.jsonl")
    sessions = max(1, rounds // 1000)
    command = [sys.executable, "-m", "referee", "simulate", "--sessions", str(sessions),
               "--rounds", str(rounds // sessions), "--seed", "1", "--format", "jsonl", "--output", out]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    elapsed = time.perf_counter() - start
    size = os.path.getsize(out)
    print("referee " + " ".join(command[3:]))
    print(f"{rounds:,} rounds in {elapsed:.1f} s ({rounds / elapsed:,.0f} rounds/s), {size / 1e6:.0f} MB")

    tables()
    profile, rng, n = load_profile("vivo"), Random(1), 20
    start = time.perf_counter()
    for _ in range(n):
        dealt = [DECK[i] for i in rng.sample(range(52), 5)]
        optimal_policy(profile, dealt[:2], dealt[2:], profile.stake_increment, profile.stake_increment * 0)
    print(f"optimal policy: {(time.perf_counter() - start) / n:.3f} s a decision (mean of {n})")


if __name__ == "__main__":
    main()
