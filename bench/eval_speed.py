"""Hand evaluations per second: referee against treys, same hands, same run.

Run: python bench/eval_speed.py [N]. Needs the test extras (treys, NumPy). Prints
each form's rate and its ratio to treys measured in this run (issue 18's targets:
``evaluate`` >= 13x, ``evaluate_deal`` >= 20x a hand, ``evaluate_batch`` >= 40x).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

import numpy as np
from treys import Card as TCard
from treys import Evaluator

import referee
from referee.rules.cards import DECK
from referee.rules.evaluator import KEYS, RANK_FIELD, RANK_SHIFT, rank7, tables


def rates(forms, passes: int = 7) -> list[float]:  # type: ignore[no-untyped-def]
    """Hands a second of each ``(loop, items, hands_per_item)``, best of ``passes``.

    The forms take turns within each pass, so that all of them meet the same load
    (this machine is shared, and its timings wander by 30% and more); each form runs
    in its own plain loop, no lambda per call, treys included.
    """
    best = [0.0] * len(forms)
    for _ in range(passes):
        for i, (loop, items, per_item) in enumerate(forms):
            start = time.perf_counter()
            loop(items)
            best[i] = max(best[i], per_item * len(items) / (time.perf_counter() - start))
    return best


def _floor_function():  # type: ignore[no-untyped-def]
    """Seven key lookups, one sum, one dict lookup: no duplicate check, no flush
    branch. Whatever this reaches bounds any per-call ``evaluate``."""
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
    deals = [(d[:2], d[2:4], d[4:]) for d in (rng.sample(DECK, 9) for _ in range(n // 2))]
    deal_strings = [tuple([str(c) for c in part] for part in d) for d in deals]
    referee.evaluate(hands[0])  # build the tables before timing
    referee.evaluate_batch(np.array(hands[:1]))
    ev = Evaluator()
    tdeck = {c: TCard.new(str(c)) for c in DECK}
    thands = [([tdeck[c] for c in h[:2]], [tdeck[c] for c in h[2:]]) for h in hands[: n // 4]]
    def treys_loop(items):  # type: ignore[no-untyped-def]
        evaluate = ev.evaluate
        for mine, board in items:
            evaluate(mine, board)

    def one_loop(items):  # type: ignore[no-untyped-def]
        evaluate = referee.evaluate
        for h in items:
            evaluate(h)

    def deal_loop(items):  # type: ignore[no-untyped-def]
        evaluate_deal = referee.evaluate_deal
        for player, dealer, board in items:
            evaluate_deal(player, dealer, board)

    def rank7_loop(items):  # type: ignore[no-untyped-def]
        for a, b, c, d, e, f, g in items:
            rank7(a, b, c, d, e, f, g)

    floor = _floor_function()

    def floor_loop(items):  # type: ignore[no-untyped-def]
        for h in items:
            floor(h)

    def batch_loop(items):  # type: ignore[no-untyped-def]
        referee.evaluate_batch(items)

    labels = [
        "referee.evaluate (Card objects)", "referee.evaluate (strings 'Ah')", "evaluate_deal, a hand (Cards)",
        "evaluate_deal, a hand (strings)", "evaluate_batch (NumPy, checked)", "rank7 (bulk path, value only)",
        "floor: 7 lookups + 1 dict, no checks",
    ]
    r_treys, *measured = rates([
        (treys_loop, thands, 1), (one_loop, hands, 1), (one_loop, strings, 1), (deal_loop, deals, 2),
        (deal_loop, deal_strings, 2), (batch_loop, np.array(hands, dtype=np.int8), 1), (rank7_loop, hands, 1),
        (floor_loop, hands, 1),
    ])
    rows = list(zip(labels, measured, strict=True))
    print(f"hands: {n:,} random seven-card hands, {n // 2:,} deals (treys: {len(thands):,})")
    print(f"{'treys Evaluator.evaluate':38}{r_treys:>12,.0f}/s")
    for label, r in rows:
        print(f"{label:38}{r:>12,.0f}/s  {r / r_treys:6.1f}x treys")
    code = "import time; t=time.perf_counter(); import referee; print(time.perf_counter()-t)"
    imports = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
               for _ in range(5)]
    print(f"import referee: best of 5 {min(imports):.3f} s")
    code = ("import time, referee; t=time.perf_counter(); referee.evaluate('Ah Kd As 7d 4c 9h 2s'.split()); "
            "print(time.perf_counter()-t)")
    first = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
             for _ in range(5)]
    print(f"first evaluation (shipped tables read): best of 5 {min(first):.3f} s")
    from referee.rules.evaluator import Tables

    start = time.perf_counter()
    Tables()
    print(f"building the tables instead: {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
