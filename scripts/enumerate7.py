"""Enumerate all 133,784,560 seven-card hands: category counts and dealer qualification.

Run: python scripts/enumerate7.py. Prints the counts, compares them with RULES.md, and
prints the run time. Exit status 1 on any difference.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from referee.rules.evaluator import (
    CARD_SHIFT,
    CATEGORY_NAMES,
    KEYS,
    RANK_FIELD,
    RANK_SHIFT,
    SUIT_FIELD,
    SUIT_MASKS,
    pack,
    tables,
)

EXPECTED = {
    "royal_flush": 4_324, "straight_flush": 37_260, "four_of_a_kind": 224_848, "full_house": 3_473_184,
    "flush": 4_047_644, "straight": 6_180_020, "three_of_a_kind": 6_461_620, "two_pair": 31_433_400,
    "pair": 58_627_800, "high_card": 23_294_460,
}
QUALIFIES = 101_378_140


def main() -> int:
    start = time.perf_counter()
    t = tables()
    ranks7, flush_suit, suited = t.ranks[7], t.flush_suit, t.suited
    values: Counter[int] = Counter()
    k = KEYS
    for a in range(46):
        ka = k[a]
        for b in range(a + 1, 47):
            kb = ka + k[b]
            for c in range(b + 1, 48):
                kc = kb + k[c]
                for d in range(c + 1, 49):
                    kd = kc + k[d]
                    for e in range(d + 1, 50):
                        ke = kd + k[e]
                        for f in range(e + 1, 51):
                            kf = ke + k[f]
                            for g in range(f + 1, 52):
                                key = kf + k[g]
                                suit = flush_suit[key & SUIT_FIELD]
                                if suit < 0:
                                    values[ranks7[(key >> RANK_SHIFT) & RANK_FIELD]] += 1
                                else:
                                    values[suited[(key >> CARD_SHIFT) & SUIT_MASKS[suit]]] += 1
        print(f"  first card {a + 1}/46 done, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    categories: Counter[str] = Counter()
    for value, n in values.items():
        categories[CATEGORY_NAMES[value >> 20]] += n
    floor = pack(1, (2,))
    qualifies = sum(n for value, n in values.items() if value >= floor)
    elapsed = time.perf_counter() - start
    total = sum(categories.values())
    ok = dict(categories) == EXPECTED and qualifies == QUALIFIES and total == 133_784_560
    for name in reversed(CATEGORY_NAMES):
        mark = "ok" if categories[name] == EXPECTED[name] else f"EXPECTED {EXPECTED[name]:,}"
        print(f"{name:16} {categories[name]:>12,}  {mark}")
    print(f"{'total':16} {total:>12,}")
    verdict = "ok" if qualifies == QUALIFIES else "MISMATCH"
    print(f"dealer qualifies {qualifies:>12,}  ({qualifies / total:.5%}) {verdict}")
    print(f"run time {elapsed:.1f} s ({total / elapsed / 1e6:.2f} M hands/s, one core)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
