"""Seven-card evaluations per second: referee against treys, same hands, same run.

Run: python bench/eval_speed.py [N]. Needs the test extras (treys).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

from treys import Card as TCard
from treys import Evaluator

import referee
from referee.rules.cards import DECK
from referee.rules.evaluator import KEYS, RANK_FIELD, RANK_SHIFT, rank7, tables


def rate(fn, hands) -> float:  # type: ignore[no-untyped-def]
    """Best of five passes: this machine's timings wander by 30% from run to run."""
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        for h in hands:
            fn(h)
        best = max(best, len(hands) / (time.perf_counter() - start))
    return best


def _floor_function():  # type: ignore[no-untyped-def]
    """The least any table-driven evaluate can do: why 20x treys is out of reach here.

    Seven key lookups, one sum, one dict lookup and a return: no duplicate check, no
    flush branch, no result object. Whatever this reaches bounds ``evaluate``.
    """
    t = tables()
    ranks7 = t.ranks[7]
    keys = {card: KEYS[card] >> RANK_SHIFT & RANK_FIELD for card in DECK}

    def floor(cards, k=keys, r=ranks7):  # type: ignore[no-untyped-def]
        a, b, c, d, e, f, g = cards
        return r.get(k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g])

    return floor


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    rng = random.Random(1)
    hands = [tuple(rng.sample(DECK, 7)) for _ in range(n)]
    strings = [[str(c) for c in h] for h in hands]
    referee.evaluate(hands[0])  # build the tables before timing
    ev = Evaluator()
    tdeck = {c: TCard.new(str(c)) for c in DECK}
    thands = [([tdeck[c] for c in h[:2]], [tdeck[c] for c in h[2:]]) for h in hands[: n // 4]]
    r_eval = rate(referee.evaluate, hands)
    r_str = rate(referee.evaluate, strings)
    r_rank7 = rate(lambda h: rank7(*h), hands)
    r_treys = rate(lambda h: ev.evaluate(h[0], h[1]), thands)
    r_floor = rate(_floor_function(), hands)
    print(f"hands: {n:,} random seven-card hands (treys: {len(thands):,})")
    print(f"referee.evaluate (Card objects)   {r_eval:>12,.0f}/s  {r_eval / r_treys:5.1f}x treys")
    print(f"referee.evaluate (strings 'Ah')   {r_str:>12,.0f}/s  {r_str / r_treys:5.1f}x treys")
    print(f"rank7 (bulk path, value only)     {r_rank7:>12,.0f}/s  {r_rank7 / r_treys:5.1f}x treys")
    print(f"treys Evaluator.evaluate          {r_treys:>12,.0f}/s")
    print(f"floor: 7 lookups + 1 dict, no checks, no object {r_floor:>12,.0f}/s  "
          f"{r_floor / r_treys:5.1f}x treys")
    code = "import time; t=time.perf_counter(); import referee; print(time.perf_counter()-t)"
    imports = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
               for _ in range(5)]
    print(f"import referee: best of 5 {min(imports):.3f} s")
    start = time.perf_counter()
    from referee.rules.evaluator import Tables

    Tables()
    print(f"table build (first evaluation): {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
