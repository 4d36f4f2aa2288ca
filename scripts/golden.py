"""Golden outputs of every report format (tests/golden/, checked by tests/test_golden.py).

Run: python scripts/golden.py          lists the outputs that differ from the stored ones
     python scripts/golden.py --write  stores the current outputs (after a meant change)

The inputs (samples, simulated logs with faults, hostile inputs) are rebuilt in a
temporary folder each time; see tests/golden_cases.py for what is run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.golden_cases import CODES, GOLDEN, cases, make_inputs, run_case, stored_codes


def main(write: bool) -> int:
    stored = stored_codes()
    differ: list[str] = []
    codes: list[str] = []
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        make_inputs(folder)
        all_cases = cases()
        for case in all_cases:
            code, output = run_case(case, folder)
            codes.append(f"{case.name} {code}")
            path = case.stored
            same = path.exists() and path.read_bytes() == output.encode() and stored.get(case.name) == code
            if not same:
                differ.append(case.name)
            if write:
                GOLDEN.mkdir(exist_ok=True)
                path.write_bytes(output.encode())
    names = {case.stored.name for case in all_cases}
    stale = sorted(p.name for p in GOLDEN.glob("*") if p.name not in names and p != CODES) if GOLDEN.exists() else []
    if write:
        for name in stale:
            (GOLDEN / name).unlink()
        CODES.write_text("\n".join(codes) + "\n", encoding="utf-8")
        print(f"{len(all_cases)} outputs stored in {GOLDEN} ({len(differ)} changed, {len(stale)} removed)")
        return 0
    for name in differ:
        print(f"differs: {name}")
    for name in stale:
        print(f"no longer produced: {name}")
    print(f"{len(all_cases)} outputs, {len(differ)} differ, {len(stale)} stale")
    return 1 if differ or stale else 0


if __name__ == "__main__":
    sys.exit(main("--write" in sys.argv[1:]))
