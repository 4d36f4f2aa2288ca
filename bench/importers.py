"""Importers (issue 29): ``check --mapping`` against a bare parse of the same export.

Run: python bench/importers.py [WORKDIR [GAMES]]. Simulates (once) a live table of 7
seats, GAMES games (default 20,000), in each export shape (``referee simulate --seats 7
--export ...``), and writes the evolution-history page again as users' files come:
keys sorted and compact, and spaced with an indent of 4. Then prints, each measured in
this run (CPU time of the child, best of REPEAT, default 3):

* ``check --mapping evolution-history`` of each page against a bare ``json.loads`` of
  the same file (target: within 4x);
* ``check --mapping datafeed-csv`` against a bare ``csv.reader`` pass over the same
  file, and against ``csv.reader`` plus ``json.loads`` of each row's JSON cell;
* ``check --mapping seamless-wallet`` (the log alone) against ``json.loads`` of every line;
* ``import`` alone, and ``check`` of what it wrote (the format-2 audit by itself);
* for each shape, a page, JSON Lines (the page's records one a line, read by a copy of
  evolution-history with ``input: jsonl``) and the CSV feed: ``check --mapping`` against
  ``check`` of the format-2 log ``import`` wrote of the same games (issue 45's target:
  within 1.5x; CPU of one run each, start-up included, best of REPEAT, the two run in
  turn so that a drifting load weighs on both alike; both ``--jobs 1``, as an export is
  always audited in one process and a format-2 log of a megabyte or more would otherwise
  be cut into chunks for workers whose start-up only that side would pay);
* the peak memory (max RSS) of ``check --mapping datafeed-csv`` at GAMES and 4 x GAMES
  games: a CSV feed streams, so it should not grow with the file.

The machine may be shared: CPU times are the child's own (``RUSAGE_CHILDREN``); as in
bench/table_check.py the package's bytecode is compiled by a first run before timing.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
REPEAT = int(os.environ.get("REPEAT", "3"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
SEATS = "7"


def simulate(path: Path, shape: str, games: int) -> Path:
    if not path.exists():
        sessions = max(1, games // 1000)
        subprocess.run([*REFEREE, "simulate", "--seats", SEATS, "--rounds", str(games // sessions), "--sessions",
                        str(sessions), "--seed", "29", "--export", shape, "--output", str(path)], check=True)
    return path


def relaid(source: Path, path: Path, **dump: object) -> Path:
    """The same page written another way (keys sorted, spaced): what users' files look like."""
    if not path.exists():
        data = json.loads(source.read_text(encoding="utf-8"), parse_float=Decimal)
        path.write_text(json.dumps(data, default=str, **dump), encoding="utf-8")  # type: ignore[arg-type]
    return path


def as_lines(source: Path, path: Path) -> Path:
    """The page's game records one a line: what a JSON Lines export of the same games is."""
    if not path.exists():
        data = json.loads(source.read_text(encoding="utf-8"), parse_float=Decimal)
        with path.open("w", encoding="utf-8") as out:
            for day in data["data"]:
                for game in day["games"]:
                    out.write(json.dumps(game, default=str, separators=(",", ":")) + "\n")
    return path


def lines_mapping(path: Path) -> Path:
    """evolution-history read from JSON Lines: the same keys, one record a line."""
    text = (Path(__file__).resolve().parent.parent / "referee" / "data" / "mappings" /
            "evolution-history.yaml").read_text(encoding="utf-8")
    text = text.replace("input: json\n", "input: jsonl\n").replace("records: data[].games[]\n", "")
    path.write_text(text, encoding="utf-8")
    return path


def child(*args: str) -> tuple[float, float, int]:
    """CPU seconds (user + system), wall seconds and max RSS (KiB) of one child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *REFEREE, *args], check=False, capture_output=True,
                          env=ENV, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = int(done.stderr.strip().splitlines()[-1]) if done.stderr.strip() else 0
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, rss


def best(*args: str) -> tuple[float, int]:
    runs = [child(*args) for _ in range(REPEAT)]
    return min(r[0] for r in runs), max(r[2] for r in runs)


def paired(first: list[str], second: list[str]) -> tuple[float, float]:
    """CPU seconds of two commands, best of REPEAT each, run in turn (first, second,
    first...): on a shared machine whose load drifts, a ratio of runs made side by side,
    not of one's three runs then the other's."""
    runs: tuple[list[float], list[float]] = ([], [])
    for _ in range(REPEAT):
        runs[0].append(child(*first)[0])
        runs[1].append(child(*second)[0])
    return min(runs[0]), min(runs[1])


def bare(work: object) -> float:
    """CPU seconds of ``work()``, best of REPEAT."""
    fastest = float("inf")
    for _ in range(REPEAT):
        start = time.process_time()
        work()  # type: ignore[operator]
        fastest = min(fastest, time.process_time() - start)
    return fastest


def json_page(path: Path) -> None:
    json.loads(path.read_bytes())


def json_lines(path: Path) -> None:
    with path.open("rb") as fh:
        for line in fh:
            json.loads(line)


def csv_rows(path: Path, cells: bool) -> None:
    with path.open(newline="", encoding="utf-8") as fh:
        fh.readline()
        rows = csv.reader(fh)
        header = next(rows)
        at = header.index("roundDetails")
        for row in rows:
            if cells:
                json.loads(row[at])


def main() -> None:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir())
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    work.mkdir(parents=True, exist_ok=True)
    page = simulate(work / f"evolution-{games}.json", "evolution-history", games)
    pages = {"as simulated (indent 1)": page,
             "keys sorted, compact": relaid(page, work / f"evolution-{games}-sorted.json", sort_keys=True,
                                            separators=(",", ":")),
             "spaced (indent 4)": relaid(page, work / f"evolution-{games}-spaced.json", indent=4)}
    feed = simulate(work / f"feed-{games}.csv", "datafeed-csv", games)
    big_feed = simulate(work / f"feed-{4 * games}.csv", "datafeed-csv", 4 * games)
    wallet = simulate(work / f"wallet-{games}.jsonl", "seamless-wallet", games)
    subprocess.run([*REFEREE, "check", "--profile", "vivo", "--mapping", "evolution-history", str(page), "--quiet"],
                   check=False, capture_output=True, env=ENV)  # compiles the bytecode once
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
          f"{games:,} games of {SEATS} seats a shape; best of {REPEAT}")
    out = ["--format", "json", "--output", os.devnull]
    for name, path in pages.items():
        parse = bare(lambda p=path: json_page(p))
        cpu, rss = best("check", "--profile", "vivo", "--mapping", "evolution-history", str(path), *out)
        print(f"evolution-history page, {name}: {path.stat().st_size / 2**20:.0f} MiB; bare json.loads "
              f"{parse:.2f} s; check --mapping {cpu:.2f} s = {cpu / parse:.1f}x (target 4x); {rss / 1024:.0f} MiB")
    rows, cells = bare(lambda: csv_rows(feed, False)), bare(lambda: csv_rows(feed, True))
    cpu, rss = best("check", "--profile", "vivo", "--mapping", "datafeed-csv", str(feed), *out)
    print(f"datafeed-csv: {feed.stat().st_size / 2**20:.0f} MiB; bare csv.reader {rows:.2f} s, with json.loads of "
          f"each cell {cells:.2f} s; check --mapping {cpu:.2f} s = {cpu / rows:.1f}x the reader, "
          f"{cpu / cells:.1f}x reader + cells; {rss / 1024:.0f} MiB")
    cpu4, rss4 = best("check", "--profile", "vivo", "--mapping", "datafeed-csv", str(big_feed), *out)
    print(f"datafeed-csv at {4 * games:,} games: {cpu4:.2f} s ({cpu4 / cpu:.1f}x the time for 4x the games); "
          f"{rss4 / 1024:.0f} MiB (against {rss / 1024:.0f} MiB)")
    lines = bare(lambda: json_lines(wallet))
    cpu, rss = best("check", "--mapping", "seamless-wallet", str(wallet), *out)
    print(f"seamless-wallet alone: {wallet.stat().st_size / 2**20:.0f} MiB; bare json.loads {lines:.2f} s; "
          f"check --mapping {cpu:.2f} s = {cpu / lines:.1f}x; {rss / 1024:.0f} MiB")
    imported = work / f"imported-{games}.jsonl"
    cpu_import, _ = best("import", "--mapping", "evolution-history", str(page), "--output", str(imported))
    cpu_check, _ = best("check", str(imported), *out)
    print(f"import of the page alone {cpu_import:.2f} s = {cpu_import / bare(lambda: json_page(page)):.1f}x the bare "
          f"parse; check of the format-2 log it wrote {cpu_check:.2f} s = "
          f"{cpu_check / bare(lambda: json_lines(imported)):.1f}x a bare json.loads of its lines")
    # Issue 45: each shape against the format-2 audit of the same games (what import wrote),
    # both in one process: an export is always audited in this process, where a format-2
    # log of a megabyte or more is cut into chunks audited by --jobs workers (the cores),
    # whose own start-up would be counted on the format-2 side only.
    one = [*out, "--jobs", "1"]
    shapes = [("page", "evolution-history", page),
              ("JSON Lines", str(lines_mapping(work / "evolution-lines.yaml")),
               as_lines(page, work / f"evolution-{games}.jsonl")),
              ("CSV feed", "datafeed-csv", feed)]
    for name, mapping, path in shapes:
        written = work / f"{path.name}.format2.jsonl"
        if not written.exists():
            subprocess.run([*REFEREE, "import", "--mapping", mapping, str(path), "--output", str(written)],
                           check=True, capture_output=True, env=ENV)
        cpu_map, cpu_f2 = paired(["check", "--profile", "vivo", "--mapping", mapping, str(path), *one],
                                 ["check", "--profile", "vivo", str(written), *one])
        print(f"{name}: check --mapping {cpu_map:.2f} s, check of its format-2 import {cpu_f2:.2f} s = "
              f"{cpu_map / cpu_f2:.2f}x (target 1.5x)")
    # The floor: the same games audited from format 2 (the tool's own fastest path, no
    # mapping at all), against each export's bare parse. An importer cannot be faster than
    # the audit it feeds; where this is above 4x, 4x is out of reach for that shape.
    print(f"floor: check of the same games as format 2 {cpu_check:.2f} s = "
          f"{cpu_check / bare(lambda: json_page(page)):.1f}x the page's bare json.loads, "
          f"{cpu_check / rows:.1f}x the feed's bare csv.reader, {cpu_check / cells:.1f}x reader + cells")


if __name__ == "__main__":
    main()
