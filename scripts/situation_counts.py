"""Make (or check) ``referee/data/situations.counts``: the outcome counts of every
decision situation for the built-ins' qualifier (see ``referee/analysis/counts.py``).

    python scripts/situation_counts.py --write [--jobs N]   # count all 1,755 flop classes
    python scripts/situation_counts.py --check [CLASSES]     # recount CLASSES random ones, compare

Counting is the PAR engine's (``referee/analysis/flops.py``): about a fifth of a second
a class on an idle core, some three minutes for the whole table on two. Needs NumPy.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from referee.analysis import counts, situations
from referee.analysis.flops import FULL_DECK, flop_classes
from referee.profiles import BUILTIN, load_profile

TARGET = Path(__file__).resolve().parent.parent / "referee" / "data" / situations.SHIPPED


def qualifier() -> int:
    """The built-ins' one qualifier (the table is for it alone)."""
    found = {load_profile(name).dealer_qualifier.floor() for name in BUILTIN}
    if len(found) != 1:
        sys.exit(f"the built-in profiles have {len(found)} qualifiers; the table holds one")
    return found.pop()


def write(jobs: int) -> None:
    q = qualifier()
    flops = [flop for flop, _ in flop_classes(FULL_DECK)]
    bodies: dict[int, bytes] = {}
    start = time.monotonic()
    work = [(q, i, f, counts.PAYOUTS.code) for i, f in enumerate(flops)]
    for (_, index), body in situations._count(work, jobs):
        bodies[index] = body
        if len(bodies) % 100 == 0:
            print(f"{len(bodies)} of {len(flops)} classes, {time.monotonic() - start:.0f} s", file=sys.stderr)
    blocks = [counts.compress(bodies[i]) for i in range(len(flops))]
    fd, tmp = tempfile.mkstemp(dir=TARGET.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as out:
        counts.write_shipped(out, q, counts.PAYOUTS, flops, blocks)
    os.replace(tmp, TARGET)
    print(f"{TARGET}: {TARGET.stat().st_size:,} bytes, {time.monotonic() - start:.0f} s")


def check(n: int) -> None:
    table = situations.shipped()
    q = qualifier()
    assert table.qualifier == q, "the table was counted for another qualifier"
    assert table.flops == [flop for flop, _ in flop_classes(FULL_DECK)], "the classes differ"
    for index in random.Random().sample(range(len(table.flops)), n):
        (_, _), body = situations.count_class((q, index, table.flops[index], table.layout.code))
        assert body == counts.decompress(table.block_bytes(index)), f"class {index} differs"
        print(f"class {index} {table.flops[index]}: equal")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", type=int, nargs="?", const=3, default=None, metavar="CLASSES")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.write:
        write(args.jobs)
    if args.check is not None:
        check(args.check)


if __name__ == "__main__":
    main()
