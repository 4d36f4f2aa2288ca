"""``--cluster`` against a real Dask cluster (issue 31): a ``dask scheduler`` and two
``dask worker`` processes on the loopback address, started in ``/`` (not the folder the
command runs from, so relative names must be taken from the client's), each test
bounded in time and everything it started ended after it. The fault logs audited
through them byte for byte as ``--jobs 1``; a worker killed mid-task; Ctrl-C; the
scheduler gone; a worker running another referee; ``--cluster local:2``."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT, SAMPLES
from .test_cluster import seats_log, second_records, strip
from .test_pipeline import alive, simulate

pytestmark = pytest.mark.slow

#: What any one wait here may take at most (a worker's start is 2 to 3 s on an idle 2-core machine).
BOUND = 90.0


class Cluster:
    """A scheduler and its workers, each a ``python -m dask`` process of this venv."""

    def __init__(self, folder: Path, workers: int = 2) -> None:
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        file = folder / "scheduler.json"
        self.scheduler = self._start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(file), "--idle-timeout", "600"], "scheduler")
        deadline = time.monotonic() + BOUND
        while not file.exists() or not file.read_text():
            assert time.monotonic() < deadline and self.scheduler.poll() is None, "no scheduler"
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole before the scheduler listens
        self.address = str(json.loads(file.read_text())["address"])
        self.workers = [self.worker() for _ in range(workers)]
        self.wait_for(workers)

    def _start(self, args: list[str], name: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = (self.folder / f"{name}-{len(self.processes)}.log").open("wb")
        process = subprocess.Popen([sys.executable, "-m", "dask", *args], cwd="/", stdout=log, stderr=log,
                                   env=env, start_new_session=True)
        self.processes.append(process)
        return process

    def worker(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        return self._start(["worker", self.address, "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1",
                            "--no-dashboard", "--death-timeout", "60", "--local-directory", str(self.folder)],
                           "worker", env)

    def wait_for(self, workers: int) -> None:
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=BOUND) as client:
            deadline = time.monotonic() + BOUND
            while len(client.nthreads()) != workers:
                assert time.monotonic() < deadline, f"{len(client.nthreads())} workers, not {workers}"
                time.sleep(0.2)

    def pids(self) -> dict[str, int]:
        """Each worker's address and the pid of its process (under its nanny)."""
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=BOUND) as client:
            found: dict[str, int] = client.run(os.getpid)
        return found

    def busy(self) -> dict[str, list[str]]:
        """The workers running (or holding queued) tasks of a referee run."""
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=BOUND) as client:
            processing: dict[str, list[str]] = client.processing()
        return {w: [str(k) for k in keys if str(k).startswith("referee-")]
                for w, keys in processing.items() if any(str(k).startswith("referee-") for k in keys)}

    def referee_tasks(self) -> list[str]:
        from distributed import Client

        with Client(self.address, set_as_default=False, timeout=BOUND) as client:
            keys: list[str] = client.run_on_scheduler(lambda dask_scheduler: [str(k) for k in dask_scheduler.tasks])
        return [k for k in keys if k.startswith("referee-")]

    def close(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(15)


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    pytest.importorskip("distributed", reason="needs Dask distributed: pip install -e '.[test]'")
    cluster = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fault logs (30% of rounds faulty): format 1 in JSON Lines (cut in chunks) and
    YAML, format 2 with inline seats and with seat lines, a file of second records of
    another's games, and a profile file of the house's: in a folder the checks run in."""
    folder = tmp_path_factory.mktemp("logs")
    (folder / "logs").mkdir()
    simulate(folder / "logs" / "rounds.jsonl", "jsonl", 40, 200, 11, "0.3")
    simulate(folder / "logs" / "rounds.yaml", "yaml", 3, 40, 12, "0.3")
    table = seats_log(folder / "logs" / "table.jsonl", 12, 40, 13, "0.3")
    seats_log(folder / "logs" / "lines.jsonl", 8, 30, 14, "0.3", "--seat-lines")
    second_records(table, folder / "logs" / "again.jsonl")
    shutil.copy(ROOT / "referee" / "data" / "profiles" / "vivo.yaml", folder / "house.yaml")
    return folder


def command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=BOUND * 2)


@functools.cache
def one_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command(*args, "--jobs", "1")``: the one-process check a cluster's run is compared
    with, run once a test process for the same arguments in the same folder (the module's
    logs are made once: the JSON report is the reference of two tests)."""
    return command(*args, "--jobs", "1", cwd=cwd)


@pytest.mark.parametrize(("fmt", "profile"), [("json", None), ("text", None), ("junit", "house.yaml")])
def test_the_fault_logs_through_a_real_cluster(real: Cluster, logs: Path, fmt: str, profile: str | None) -> None:
    """Relative names (the workers run in /), a relative --profile: byte for byte."""
    args = ["check", "--format", fmt, *(["--profile", profile] if profile else []), "logs"]
    one = one_process(*args, cwd=logs)
    there = command(*args, "--cluster", real.address, cwd=logs)
    assert one.returncode == there.returncode == 1 and there.stderr == ""
    assert strip(fmt, one.stdout) == strip(fmt, there.stdout) and len(one.stdout) > 10_000
    if profile:
        assert "house.yaml" in there.stdout


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log whose chunks each take a while (a simulated log, repeated)."""
    folder = tmp_path_factory.mktemp("long")
    part = simulate(folder / "part.jsonl", "jsonl", 10, 600, 6, "0.05").read_bytes()
    path = folder / "long.jsonl"
    path.write_bytes(part * 16)
    return path


def when_busy(cluster: Cluster, child: subprocess.Popen[str]) -> dict[str, list[str]]:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline and child.poll() is None:
        busy = cluster.busy()
        if busy:
            return busy
        time.sleep(0.05)
    child.kill()
    raise AssertionError("no task of the run was seen running")


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "referee", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_a_worker_killed_mid_task(real: Cluster, long_log: Path) -> None:
    """Its task runs again on a worker (the other, or the one its nanny starts anew):
    the report is still byte-identical, nothing counted twice."""
    expected = command("check", "--format", "json", "--jobs", "1", long_log.name, cwd=long_log.parent)
    child = start("check", "--format", "json", "-o", "out.json", "--cluster", real.address, long_log.name,
                  cwd=long_log.parent)
    busy = when_busy(real, child)
    pids = real.pids()
    victim = pids[next(iter(busy))]
    os.kill(victim, signal.SIGKILL)
    _, err = child.communicate(timeout=BOUND * 2)
    assert (child.returncode, err) == (expected.returncode, "") and not alive(victim)
    assert (long_log.parent / "out.json").read_text() == expected.stdout
    real.wait_for(2)  # the nanny's new worker, for the next tests


def test_ctrl_c_cancels_the_run_on_the_cluster(real: Cluster, long_log: Path) -> None:
    """Exit 130, no report (not even half of one: the output is written atomically),
    and none of the run's tasks left on the scheduler."""
    report = long_log.parent / "interrupted.json"
    child = start("check", "--format", "json", "-o", report.name, "--cluster", real.address, long_log.name,
                  cwd=long_log.parent)
    when_busy(real, child)
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=BOUND)
    assert (child.returncode, err.lstrip("\n")) == (130, "referee: interrupted\n")  # (click ends the ^C line)
    assert not report.exists() and not list(long_log.parent.glob(".interrupted.json.*"))
    deadline = time.monotonic() + 20
    while real.referee_tasks() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert real.referee_tasks() == []


def other_referee(folder: Path, version: str) -> dict[str, str]:
    """An environment whose Python finds a copy of referee that says it is ``version``."""
    copy = folder / "site" / "referee"
    shutil.copytree(ROOT / "referee", copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', f'__version__ = "{version}"  # was "', 1))
    return {**os.environ, "PYTHONPATH": str(folder / "site")}


def test_a_worker_running_another_referee_is_refused(real: Cluster, tmp_path: Path) -> None:
    odd = real.worker(other_referee(tmp_path, "9.9.9"))
    try:
        real.wait_for(3)
        done = command("check", "--cluster", real.address, str(SAMPLES / "clean.yaml"), cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.startswith("referee: worker tcp://127.0.0.1:")
        assert done.stderr.endswith(" runs referee 9.9.9, the client 0.1.0: refused before any task ran\n")
        assert real.referee_tasks() == []
    finally:
        os.killpg(odd.pid, signal.SIGTERM)
        odd.wait(30)
    real.wait_for(2)


def test_the_scheduler_gone(tmp_path: Path, long_log: Path) -> None:
    """Exit 2, one line, no report."""
    own = Cluster(tmp_path, workers=1)
    try:
        child = start("check", "--format", "json", "-o", "gone.json", "--cluster", own.address, long_log.name,
                      cwd=long_log.parent)
        when_busy(own, child)
        os.killpg(own.scheduler.pid, signal.SIGKILL)
        out, err = child.communicate(timeout=BOUND)
        assert (child.returncode, out) == (2, "")
        assert err == f"referee: lost the Dask scheduler at {own.address}: the audit is incomplete\n"
        assert not (long_log.parent / "gone.json").exists()
    finally:
        own.close()


def processes_marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"REFEREE_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return [pid for pid in found if alive(pid)]


def test_a_local_cluster_started_by_the_command(logs: Path) -> None:
    """``--cluster local:2``: two worker processes for the run, none left after it."""
    mark = uuid.uuid4().hex
    one = one_process("check", "--format", "json", "logs", cwd=logs)
    there = subprocess.run([sys.executable, "-m", "referee", "check", "--format", "json", "--cluster", "local:2",
                            "logs"], cwd=logs, capture_output=True, text=True, timeout=BOUND * 2,
                           env={**os.environ, "REFEREE_TEST_MARK": mark})
    assert (there.returncode, there.stderr) == (1, "") and there.stdout == one.stdout
    deadline = time.monotonic() + 10
    while processes_marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_marked(mark) == []
