"""What a format-1 round costs to read into its record, against a bare ``json.loads``.

Run: python bench/record_decode.py LOG.jsonl [--repeat N]  (a log ``referee simulate``
wrote). For every round line, in µs a round (CPU time, best of N passes):

* ``json.loads``: the bare text-mode parse (the issue's yardstick);
* ``loads_line``: the reader's own parse (Decimals, its key-order and duplicate checks);
* the record as pydantic built it before issue 44 (``explainers.Round.model_validate``
  of the reader's mapping: the did-you-mean validation, now run only on a refusal);
* the record as the struct, from the reader's mapping (``msgspec.convert``, strict: what
  the full audit does now);
* the record as the struct, straight from the line's bytes (``msgspec.json`` with the
  struct as its type), the one decode a JSON Lines round could have.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def best(lines: list[Any], work: Callable[[Any], object], repeat: int) -> float:
    """µs a line, the best of ``repeat`` passes."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        for line in lines:
            work(line)
        times.append(time.process_time() - start)
    return min(times) / len(lines) * 1e6


def main() -> None:
    import msgspec

    from referee.load.jsonio import loads_line
    from referee.models import explainers
    from referee.models.rounds import Round

    path = Path(sys.argv[1])
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    raw = [line for line in path.read_bytes().splitlines() if line.startswith(b'{"round"')]
    text = [line.decode() for line in raw]
    data = [loads_line(line, 1) for line in text]
    decoder = msgspec.json.Decoder(Round).decode
    convert = msgspec.convert
    figures = {
        "json.loads (text)": best(text, json.loads, repeat),
        "loads_line (the reader)": best(text, lambda t: loads_line(t, 1), repeat),
        "pydantic model_validate (before)": best(data, explainers.Round.model_validate, repeat),
        "struct, msgspec.convert strict (now)": best(data, lambda d: convert(d, Round, strict=True), repeat),
        "struct, msgspec.json from bytes": best(raw, decoder, repeat),
    }
    base = figures["json.loads (text)"]
    print(f"{len(raw):,} round lines of {path.name}, best of {repeat}")
    for name, us in figures.items():
        print(f"  {name:40} {us:6.2f} µs a round  {us / base:5.2f}x json.loads")


if __name__ == "__main__":
    main()
