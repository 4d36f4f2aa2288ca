"""``check --cluster --store postgresql://...``: seats a second into a real PostgreSQL with
1, 2 and 4 Dask workers (issue 31), and where the time goes.

Run: python bench/cluster_store.py [WORKDIR] [--seats N] [--workers 1,2,4] [--url URL].

Makes (once, in WORKDIR) a live table's log of ``--seats`` seats (default 200,000:
``referee simulate --seats 200 --rounds 1000 --seed 19``, the log of bench/store_speed.py),
starts a PostgreSQL server of its own in a temporary folder on a free port (as the user
``nobody`` when run as root: initdb refuses root; or takes ``--url``), and for each
number of workers starts a ``dask scheduler`` and that many ``dask worker --nthreads 1``
processes on 127.0.0.1, then runs ``referee check --cluster tcp://... --format json -o
/dev/null`` on the log, without and with ``--store`` (an empty database each time).
Prints, for each: the wall time, the rows stored (every table's, the chunks of bytes
included), the seats stored (as rows or, since schema 0005, packed in runs) and seats a
second, and the CPU seconds of the client (the ``referee`` command
alone), of the workers (and their nannies) and of the PostgreSQL server (all its
processes), so that what sets the pace is visible: on a machine with fewer cores than
workers + client + server, their CPU seconds together against the wall time say it.

The machine is shared: the load average is printed beside each figure.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
DASK = [sys.executable, "-m", "dask"]
PG_BIN = Path("/usr/local/bin") if Path("/usr/local/bin/initdb").exists() else \
    max(Path("/usr/lib/postgresql").glob("*/bin"), default=Path("/usr/bin"))
TABLES = ("sources", "chunks", "profiles", "sessions", "settlements", "games", "seats", "runs", "run_keys", "findings")


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Postgres:
    """A PostgreSQL server of its own, in a temporary folder, on a free port."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.port = free_port()
        self.as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.dir, "nobody")
        subprocess.run([*self.as_user, str(PG_BIN / "initdb"), "-D", f"{self.dir}/data", "-U", "referee",
                        "--auth=trust", "-E", "UTF8"], check=True, capture_output=True, cwd="/tmp")
        subprocess.run([*self.as_user, str(PG_BIN / "pg_ctl"), "-D", f"{self.dir}/data", "-l", f"{self.dir}/log",
                        "-w", "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", "start"],
                       check=True, capture_output=True, cwd="/tmp")
        self.url = f"postgresql://referee@127.0.0.1:{self.port}/postgres"

    def pids(self) -> list[int]:
        return [int((self.dir / "data" / "postmaster.pid").read_text().split()[0])]

    def close(self) -> None:
        subprocess.run([*self.as_user, str(PG_BIN / "pg_ctl"), "-D", f"{self.dir}/data", "-m", "fast", "stop"],
                       capture_output=True, check=False, cwd="/tmp")
        shutil.rmtree(self.dir, ignore_errors=True)


def server_pids(url: str) -> list[int]:
    """The server's processes, as far as this machine sees them (its backends' parent)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert backend is not None
    try:
        fields = Path(f"/proc/{backend[0]}/stat").read_text().rsplit(")", 1)[1].split()
        return [int(fields[1])]
    except OSError:  # a server on another machine: its CPU is not counted
        return []


def empty(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def rows(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        found = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
        seats = conn.execute("SELECT coalesce(sum(seats), 0) FROM sources").fetchone()
    counts = {t: int(v[0]) if v else 0 for t, v in found.items()}
    counts["stored seats"] = int(seats[0]) if seats else 0  # in rows, or packed in runs (schema 0005)
    return counts


def cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) so far of ``pids`` and of their children, living or
    ended (from /proc)."""
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
            # its own and its waited children's (a PostgreSQL backend ends with its connection)
            times[int(entry.name)] = sum(int(f) for f in fields[11:15]) / tick
    tree = set(pids)
    grown = True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        grown = bool(more)
        tree |= more
    return sum(times.get(pid, 0.0) for pid in tree)


class Cluster:
    """A scheduler and ``workers`` single-thread workers, processes of their own."""

    def __init__(self, work: Path, workers: int) -> None:
        file = work / "scheduler.json"
        file.unlink(missing_ok=True)
        quiet = subprocess.DEVNULL
        self.scheduler = subprocess.Popen([*DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                           "--no-dashboard", "--scheduler-file", str(file)], stdout=quiet,
                                          stderr=quiet)
        while not file.exists() or not file.read_text():
            time.sleep(0.1)
        time.sleep(0.2)
        self.address = str(json.loads(file.read_text())["address"])
        self.workers = [subprocess.Popen([*DASK, "worker", self.address, "--nthreads", "1", "--nworkers", "1",
                                          "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60"],
                                         stdout=quiet, stderr=quiet) for _ in range(workers)]
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)

    def close(self) -> None:
        for process in [*self.workers, self.scheduler]:
            process.terminate()
        for process in [*self.workers, self.scheduler]:
            process.wait(30)


def run(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``referee`` command, alone."""
    start = time.perf_counter()
    child = subprocess.Popen([*REFEREE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    error = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"referee {' '.join(args)}: {error}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(log: Path, url: str, pg: list[int], work: Path, workers: int) -> None:
    dask = Cluster(work, workers)
    try:
        for store in (False, True):
            if store:
                empty(url)
            others = [p.pid for p in dask.workers]
            before_w, before_s = cpu_of(others), cpu_of(pg)
            args = ["check", "--cluster", dask.address, "--format", "json", "-o", os.devnull, str(log)]
            wall, client = run([*args, "--store", url] if store else args)
            worked, served = cpu_of(others) - before_w, cpu_of(pg) - before_s
            if not store:
                print(f"   {workers} worker{'s' * (workers > 1)}, no store: {wall:.1f} s wall; CPU: client "
                      f"{client:.1f} s, workers {worked:.1f} s; {load()}")
                continue
            kept = rows(url)
            seats = kept.pop("stored seats")
            total = sum(kept.values())
            print(f"   {workers} worker{'s' * (workers > 1)}, --store: {wall:.1f} s wall, {total:,} rows "
                  f"({seats:,} seats): {seats / wall:,.0f} seats/s; CPU: client {client:.1f} s, "
                  f"workers {worked:.1f} s, PostgreSQL {served:.1f} s; {load()}")
    finally:
        dask.close()


def main(argv: list[str]) -> None:
    work = Path(argv[0]) if argv and not argv[0].startswith("--") else Path(tempfile.gettempdir()) / "cluster-store"
    work.mkdir(parents=True, exist_ok=True)
    seats = int(argv[argv.index("--seats") + 1]) if "--seats" in argv else 200_000
    counts = [int(n) for n in (argv[argv.index("--workers") + 1] if "--workers" in argv else "1,2,4").split(",")]
    log = work / f"table-{seats}.jsonl"
    if not log.exists():
        subprocess.run([*REFEREE, "simulate", "--seats", "200", "--rounds", str(seats // 200), "--seed", "19",
                        "--format", "jsonl", "--output", str(log)], check=True, capture_output=True)
    server = None if "--url" in argv else Postgres()
    url = argv[argv.index("--url") + 1] if server is None else server.url
    try:
        pg = server.pids() if server is not None else server_pids(url)
        print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
              f"{log.name} ({log.stat().st_size / 1e6:.0f} MB); PostgreSQL at 127.0.0.1; {load()}")
        for workers in counts:
            measure(log, url, pg, work, workers)
    finally:
        if server is not None:
            server.close()


if __name__ == "__main__":
    main(sys.argv[1:])
