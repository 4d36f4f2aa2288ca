"""``--cluster`` on this machine (issue 31): what a task costs beyond its audit, against
``--jobs 2``; what a chunk costs; what the client does alone (the figures
docs/scale.md works from).

Run: python bench/cluster_overhead.py [WORKDIR [REPEAT]]. Makes (once) in WORKDIR a
format-1 log of 200,000 rounds and a format-2 one of 200,000 seats (1,000 games x 200
seats, seats inline) and 400 one-round files, starts a ``dask scheduler`` and two
``dask worker`` processes (one thread each) on 127.0.0.1, and prints, each measured in
this run (best of REPEAT, default 3; pairs interleaved):

* per-task overhead: 400 one-round files, one task each, through the ``--jobs 2`` pool
  and through the cluster, in this process (start-up excluded): wall clock a task,
  less what auditing one such file costs in one process;
* the command, wall clock: ``check --format json -o /dev/null`` with ``--jobs 1``,
  ``--jobs 2``, ``--cluster tcp://...`` (the cluster already running) and
  ``--cluster local:2`` (starting its own);
* per chunk, from the workers' own clocks: seconds, MiB, rounds (seats) a second of one
  worker, and the size of a task's result as it travels back (pickled), what the spill
  files save ``--jobs``;
* the client's serial work: the cutting pass (MiB/s), and the merge (the report made
  from the results, rounds/s) with results already in memory.

The machine may be shared with other sessions: ratios are of one run, and the load
average is printed with them.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.load.chunking import split_jsonl
from referee.load.inputs import Source
from referee.pipeline import cluster, dispatch, events, parallel_events
from referee.pipeline.audit import Options
from referee.pipeline.merge import rounds_in
from referee.pipeline.remote import Detached, Fingerprint, Setup, TaskResult, run_remote
from referee.pipeline.tasks import ChunkDone, InOrder, chunk_sizes, plan
from referee.report.json import JsonReporter

REFEREE = [sys.executable, "-m", "referee"]
DASK = [sys.executable, "-m", "dask"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TINY = 400
REPEAT = 3


#: What each log holds, by its name: rounds (format 1), seats (format 2).
UNITS = {"format 1, 200,000 rounds": (200_000, "rounds"), "format 2, 200,000 seats": (200_000, "seats")}


def make(work: Path) -> dict[str, Path]:
    logs = {"format 1, 200,000 rounds": work / "rounds.jsonl", "format 2, 200,000 seats": work / "seats.jsonl"}
    if not logs["format 1, 200,000 rounds"].exists():
        subprocess.run([*REFEREE, "simulate", "--sessions", "200", "--rounds", "1000", "--seed", "18", "--format",
                        "jsonl", "--output", str(logs["format 1, 200,000 rounds"])], check=True)
    if not logs["format 2, 200,000 seats"].exists():
        subprocess.run([*REFEREE, "simulate", "--seats", "200", "--rounds", "100", "--sessions", "10", "--seed", "19",
                        "--format", "jsonl", "--output", str(logs["format 2, 200,000 seats"])], check=True)
    tiny = work / "tiny"
    if not tiny.exists():
        tiny.mkdir()
        one = work / "one.jsonl"
        subprocess.run([*REFEREE, "simulate", "--rounds", "1", "--seed", "3", "--format", "jsonl", "--output",
                        str(one)], check=True)
        for i in range(TINY):
            (tiny / f"t{i:03d}.jsonl").write_bytes(one.read_bytes())
    return logs


class Cluster:
    """A scheduler and two single-thread workers, processes of their own."""

    def __init__(self, work: Path) -> None:
        file = work / "scheduler.json"
        file.unlink(missing_ok=True)
        quiet = subprocess.DEVNULL
        self.processes = [subprocess.Popen([*DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                            "--no-dashboard", "--scheduler-file", str(file)], stdout=quiet,
                                           stderr=quiet)]
        while not file.exists() or not file.read_text():
            time.sleep(0.1)
        time.sleep(0.2)
        self.address = str(json.loads(file.read_text())["address"])
        for _ in range(2):
            self.processes.append(subprocess.Popen([*DASK, "worker", self.address, "--nthreads", "1", "--nworkers",
                                                    "1", "--host", "127.0.0.1", "--no-dashboard", "--death-timeout",
                                                    "60"], stdout=quiet, stderr=quiet))
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)

    def close(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            process.wait(30)


def best(runs: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(runs))


def cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) so far of ``pids`` and of their children (from /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree = set(pids)
    grown = True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        grown = bool(more)
        tree |= more
    return sum(times.get(pid, 0.0) for pid in tree)


def per_task(tiny: list[Source], dask: Cluster) -> dict[str, tuple[float, float]]:
    """For a task of a one-round file: wall clock and CPU (every process: the client,
    the workers, the scheduler) a task, alone in this process, through ``--jobs 2``,
    through the cluster (its start-up, connection and check excluded)."""
    options = Options(batches=True)

    def alone() -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        for _ in events(tiny, options):
            pass
        return time.perf_counter() - start, time.process_time() - cpu

    def jobs() -> tuple[float, float]:
        reporters: list[Any] = [JsonReporter(io.StringIO())]
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in parallel_events(plan(tiny), options, reporters, 2):
            pass
        wall, mine = time.perf_counter() - start, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, joined by now
        return wall, mine + after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime

    def there() -> tuple[float, float]:
        reporters: list[Any] = [JsonReporter(io.StringIO())]
        stream = cluster.cluster_stream(tiny, options, reporters, dask.address, 0)
        pids = [p.pid for p in dask.processes]
        start, cpu, theirs = time.perf_counter(), time.process_time(), cpu_of(pids)
        try:
            for _ in stream.events:
                pass
            wall, mine = time.perf_counter() - start, time.process_time() - cpu
            return wall, mine + cpu_of(pids) - theirs
        finally:
            getattr(stream.events, "close")()  # noqa: B009 - a _Run, which Stream types as an iterator

    measured: dict[str, list[tuple[float, float]]] = {"alone": [], "--jobs 2": [], "cluster": []}
    for _ in range(REPEAT):
        for name, measure in (("alone", alone), ("--jobs 2", jobs), ("cluster", there)):
            measured[name].append(measure())
    return {name: (min(w for w, _ in runs) / len(tiny), min(c for _, c in runs) / len(tiny))
            for name, runs in measured.items()}


def command(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([*REFEREE, "check", "--format", "json", "--output", os.devnull, *args], env=ENV,
                   capture_output=True, check=False)
    return time.perf_counter() - start


def chunks(path: Path, workers: int) -> list[tuple[TaskResult, int, int]]:
    """Each chunk's result (run here, as a worker runs it), its pickled size and its bytes."""
    options = Options(batches=True)
    setup = Setup((Detached.of(JsonReporter(io.StringIO())),), options, Fingerprint.here(), os.getcwd())
    out = []
    for task in plan([Source(str(path), path)], chunk_sizes(workers)):
        result = run_remote(task, setup)
        out.append((result, len(pickle.dumps(result, protocol=5)), task.size))
    return out


def merge_rate(path: Path) -> tuple[float, int]:
    """Rounds a second the client makes into the JSON report from results in memory."""
    results = [r for r, _, _ in chunks(path, 2)]
    tasks = list(plan([Source(str(path), path)], chunk_sizes(2)))
    rounds = sum(rounds_in(i) for r in results for i in r.items if not isinstance(i, ChunkDone))

    def once() -> float:
        order = InOrder()
        items = [e for task, r in zip(tasks, results, strict=True) for e in order.take(task, r.items)]
        with open(os.devnull, "w") as null:
            start = time.perf_counter()
            dispatch(items, [JsonReporter(null)])
            return time.perf_counter() - start

    return rounds / best(REPEAT, once), rounds


def main() -> None:
    global REPEAT
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir()) / "referee-cluster-bench"
    REPEAT = int(sys.argv[2]) if len(sys.argv) > 2 else REPEAT
    work.mkdir(parents=True, exist_ok=True)
    logs = make(work)
    tiny = [Source(str(p), p) for p in sorted((work / "tiny").iterdir())]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the start; best of {REPEAT}")
    dask = Cluster(work)
    try:
        tasks = per_task(tiny, dask)
        (wall0, cpu0), (wall2, cpu2), (wallc, cpuc) = tasks["alone"], tasks["--jobs 2"], tasks["cluster"]
        print(f"per task ({TINY} one-round files), wall clock a task: alone {wall0 * 1e3:.2f} ms, --jobs 2 "
              f"{wall2 * 1e3:.2f} ms, cluster {wallc * 1e3:.2f} ms; CPU a task, every process: alone "
              f"{cpu0 * 1e3:.2f} ms, --jobs 2 {cpu2 * 1e3:.2f} ms (overhead {(cpu2 - cpu0) * 1e3:.2f} ms), cluster "
              f"{cpuc * 1e3:.2f} ms (overhead {(cpuc - cpu0) * 1e3:.2f} ms): {(cpuc - cpu0) / (cpu2 - cpu0):.1f}x "
              f"the --jobs overhead")
        for name, path in logs.items():
            size = path.stat().st_size / 2**20
            times: dict[str, list[float]] = {"--jobs 1": [], "--jobs 2": [], "--cluster tcp": []}
            for _ in range(REPEAT):
                times["--jobs 1"].append(command("--jobs", "1", str(path)))
                times["--jobs 2"].append(command("--jobs", "2", str(path)))
                times["--cluster tcp"].append(command("--cluster", dask.address, str(path)))
            b = {k: min(v) for k, v in times.items()}
            print(f"{name} ({size:.0f} MiB): --jobs 1 {b['--jobs 1']:.2f} s, --jobs 2 {b['--jobs 2']:.2f} s "
                  f"({b['--jobs 1'] / b['--jobs 2']:.2f}x), --cluster tcp:// (2 workers) {b['--cluster tcp']:.2f} s "
                  f"({b['--jobs 1'] / b['--cluster tcp']:.2f}x; {b['--cluster tcp'] / b['--jobs 2']:.2f} of --jobs 2)")
    finally:
        dask.close()
    first = next(iter(logs.values()))
    local = command("--cluster", "local:2", str(first))
    print(f"--cluster local:2 (starting its own cluster), {first.name}: {local:.2f} s")
    for name, path in logs.items():
        found = chunks(path, 2)
        seconds = sum(r.seconds for r, _, _ in found)
        sizes = sum(s for _, _, s in found)
        pickled = sum(p for _, p, _ in found)
        units, unit = UNITS[name]
        start = time.perf_counter()
        for r, _, _ in found:
            pickle.loads(pickle.dumps(r, protocol=5))
        trip = time.perf_counter() - start
        biggest = max(found, key=lambda f: f[2])
        print(f"{name} per chunk: {len(found)} chunks (the largest {biggest[2] / 2**20:.1f} MiB in "
              f"{biggest[0].seconds:.2f} s); {seconds / (sizes / 2**20) * 1e3:.1f} ms a MiB, {units / seconds:,.0f} "
              f"{unit} a second of one worker; results {pickled / sizes:.2f} bytes a byte of input "
              f"({pickled / 2**20:.0f} MiB), pickled and unpickled in {trip:.2f} s")
        start = time.perf_counter()
        split_jsonl(path, chunk_sizes(256))
        cut = time.perf_counter() - start
        rate, merged = merge_rate(path)
        print(f"{name} in the client: cutting pass {path.stat().st_size / 2**20 / cut:,.0f} MiB/s; merge into "
              f"the JSON report {rate * units / merged:,.0f} {unit} a second")


if __name__ == "__main__":
    main()
