"""Recall at the desk (issue 20): how long ``referee recall`` takes on a month of logs.

Run: python bench/recall_speed.py [WORKDIR]. Makes (once, with ``referee simulate``) 30
JSON Lines files of 10,000 rounds each (one a day from 18:00, a round every 4 s, each a
session of player ``p1``, named in the session's ``meta.player``), then times, each in a
child process:

* ``--player p1`` (the last round and the nine before it): files are read from the
  last, and earlier ones only while fewer rounds than asked were found: one file.
* ``--player p1 --at 2026-11-15T20:00Z``: a time can be in any file, so all 300,000
  rounds are audited: the worst case.
* ``--session ID --round 5000``: the files that never mention the session are skipped
  unread, so one file is audited.
* ``check --jobs 1`` of the same files, for scale: recall should cost what the audit costs.

Prints CPU seconds (user + system, so that a busy machine does not change the figure)
and rounds per CPU second, with the peak resident memory of the
300,000-round recall (the window is ten rounds: memory must not grow with the log).
"""

from __future__ import annotations

import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
DAYS, ROUNDS = 30, 10_000
ROUND = re.compile(r'^\{"round":(\d+),', re.M)
RSS = ("import resource, runpy, sys; sys.argv = ['referee'] + sys.argv[1:]\n"
       "try:\n    from referee.start import command_line; command_line().main()\nexcept SystemExit:\n    pass\n"
       "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
       "print(peak[0] if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")


def month(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for day in range(1, DAYS + 1):
        path = folder / f"day-{day:02d}.jsonl"
        if not path.exists():
            out = subprocess.run([*REFEREE, "simulate", "--rounds", str(ROUNDS), "--seed", str(day), "--format",
                                  "jsonl"], check=True, capture_output=True, text=True).stdout
            head, _, rest = out.partition("\n")
            session = json.loads(head)
            session["session"]["meta"] = {"player": "p1"}
            start = datetime(2026, 11, day, 18, 0, tzinfo=UTC)

            def stamp(match: re.Match[str], start: datetime = start) -> str:
                when = start + timedelta(seconds=4 * int(match[1]))
                return f'{{"round":{match[1]},"time":"{when.isoformat()}",'

            path.write_text(json.dumps(session) + "\n" + ROUND.sub(stamp, rest), encoding="utf-8")
        files.append(path)
    return files


def timed(*args: str) -> tuple[float, int, str]:
    """CPU seconds (user + system) of one run in a child, its peak RSS (KiB) and output.
    CPU time, not wall time: the figure should not depend on what else the machine runs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RSS, *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stdout + done.stderr)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(f"  ({' '.join(args[:4])} ...: {cpu:.1f} s CPU, {wall:.1f} s wall)", file=sys.stderr)
    return cpu, int(done.stderr.strip().splitlines()[-1]), done.stdout


def main() -> None:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir()) / "referee-recall-bench"
    files = month(work)
    total = DAYS * ROUNDS
    size = sum(f.stat().st_size for f in files)
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
          f"{len(files)} files, {total:,} rounds, {size / 1e6:.0f} MB")
    seconds, _, out = timed("recall", str(work), "--player", "p1")
    assert "Recall of the last round of player p1" in out, out
    print(f"recall --player p1 (the last file read): {seconds:.1f} s")
    seconds, rss, out = timed("recall", str(work), "--player", "p1", "--at", "2026-11-15T20:00Z")
    assert "of player p1: 10 rounds, 1791 to 1800" in out, out
    print(f"recall --player p1 --at 2026-11-15T20:00Z (every file audited): {seconds:.1f} s, "
          f"{total / seconds:,.0f} rounds/s, peak RSS {rss / 1024:.0f} MB")
    session = json.loads(files[14].read_text(encoding="utf-8").partition("\n")[0])["session"]["id"]
    seconds, _, out = timed("recall", str(work), "--session", session, "--round", "5000")
    assert "Recall of round 5000" in out, out
    print(f"recall --session {session} --round 5000 (29 files skipped unread): {seconds:.1f} s")
    seconds, _, _ = timed("check", str(work), "--quiet", "--jobs", "1")
    print(f"check --jobs 1 of the same files: {seconds:.1f} s, {total / seconds:,.0f} rounds/s")


if __name__ == "__main__":
    main()
