"""The pipeline under ``--jobs`` (issue 16, parallel work; issue 17, the pipeline):
the same report in one process or several, in every format; a dead worker stops the
audit with a clear message; no worker outlives its parent; workers that cannot start
leave the audit to one process; never more workers than chunks."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import pipeline
from referee.load.chunking import split_jsonl
from referee.load.inputs import Source
from referee.pipeline import processes, tasks

from .conftest import HAND_HISTORIES, run

HOSTILE = {
    "latin1.yaml": "session:\n  id: café\nrounds: []\n".encode("latin-1"),
    "nul.yaml": b"session: {id: x}\x00\nrounds: []\n",
    "bad.yaml": b"session: {id: bad}\nrounds: [\n",
    "dup.json": b'{"session": {"id": "a", "id": "b"}, "rounds": []}',
    "lines.jsonl": b'{"session": {"id": "s"}}\n{"round": 1, "ante": \xff}\nnot json\n{"round": 2}\n[1]\n',
    "orphan.jsonl": b'{"round": 1}\n{"session": {"id": "s"}, "x": 1}\n',
    "deep.json": b'{"session": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "shape.json": b'{"sessions": [1, {"session": {"id": "q"}}], "extra": 1}',
}


def simulate(path: Path, fmt: str, sessions: int, rounds: int, seed: int, faults: str = "0.1") -> Path:
    code, _ = run("simulate", "--sessions", str(sessions), "--rounds", str(rounds), "--seed", str(seed),
                  "--faults", faults, "--format", fmt, "--output", str(path))
    assert code == 0
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Samples, simulated fault logs in every format (one large enough to be cut in
    chunks) and hostile inputs."""
    folder = tmp_path_factory.mktemp("corpus")
    files = [simulate(folder / f"sim.{fmt}", fmt, 2, 60, 3) for fmt in ("yaml", "json", "jsonl")]
    files.append(simulate(folder / "big.jsonl", "jsonl", 40, 120, 5, "0.05"))
    for name, data in HOSTILE.items():
        (folder / name).write_bytes(data)
        files.append(folder / name)
    files.extend(HAND_HISTORIES)
    return [str(f) for f in files]


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "github", "junit"])
def test_jobs_give_byte_identical_reports(corpus: list[str], fmt: str) -> None:
    assert len(list(pipeline.plan([Source(f, Path(f)) for f in corpus], 256 * 1024))) > len(corpus)
    one = run("check", "--format", fmt, "--jobs", "1", *corpus)
    two = run("check", "--format", fmt, "--jobs", "2", *corpus)
    assert one[0] == two[0] == 2  # hostile inputs are unreadable
    strip = (lambda t: re.sub(r'(timestamp|time)="[^"]*"', "", t)) if fmt == "junit" else (lambda t: t)
    assert strip(one[1]) == strip(two[1])


def test_the_html_report_runs_under_jobs(corpus: list[str], tmp_path: Path) -> None:
    pages = []
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.html"
        code, _ = run("report", "--jobs", jobs, "-o", str(out), *corpus)
        assert code == 2
        page = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "", out.read_text())
        pages.append(re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "", page))  # pygal's random chart ids
    assert pages[0] == pages[1] and pages[0].count('class="session"') >= 40


def test_no_more_workers_than_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = simulate(tmp_path / "log.jsonl", "jsonl", 12, 100, 2, "0")
    chunks = len(split_jsonl(log, pipeline.chunk_sizes(16)).chunks)
    started: list[int] = []
    real = processes._pool

    def pool(jobs: int, *args: object) -> object:
        started.append(jobs)
        return real(jobs, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(processes, "_pool", pool)
    code, _ = run("check", "--quiet", "--jobs", "16", str(log))
    assert code == 0 and 1 < chunks < 16 and started == [chunks]


def test_workers_that_cannot_start_leave_the_audit_to_one_process(corpus: list[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from referee.cli import main

    def no_pool(*args: object) -> object:
        raise OSError(11, "Resource temporarily unavailable")

    one = CliRunner().invoke(main, ["check", "--format", "json", "--jobs", "1", *corpus])
    monkeypatch.setattr(processes, "_pool", no_pool)
    two = CliRunner().invoke(main, ["check", "--format", "json", "--jobs", "2", *corpus])
    assert one.exit_code == two.exit_code == 2 and one.stdout == two.stdout
    assert "cannot start worker processes (Resource temporarily unavailable): auditing in this process" \
        in two.stderr


def test_a_file_changed_between_the_plan_and_the_workers_is_refused(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Same size, same modification time, one byte different: only the chunk digests
    the workers compute show it."""
    log = simulate(tmp_path / "log.jsonl", "jsonl", 20, 100, 4, "0")
    real = pipeline.plan

    def plan_then_tamper(*args: object) -> list[pipeline.Task]:
        tasks = list(real(*args))  # type: ignore[arg-type]  # the whole pass, then the change
        st = log.stat()
        data = bytearray(log.read_bytes())
        at = data.index(b'"ante":1', len(data) // 2)
        data[at + 7: at + 8] = b"2"
        log.write_bytes(bytes(data))
        os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
        return tasks

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(pipeline, "plan", plan_then_tamper)
    code, out = run("check", "--quiet", "--jobs", "2", str(log))
    assert code == 2 and "input changed during the audit" in out


def test_a_file_that_grows_under_jobs_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = simulate(tmp_path / "log.jsonl", "jsonl", 20, 100, 4, "0")
    real = pipeline.plan

    def plan_then_grow(*args: object) -> list[pipeline.Task]:
        tasks = list(real(*args))  # type: ignore[arg-type]
        with log.open("ab") as fh:
            fh.write(b'{"session": {"id": "late"}}\n')
        return tasks

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(pipeline, "plan", plan_then_grow)
    code, out = run("check", "--quiet", "--jobs", "2", str(log))
    assert code == 2 and out.count("input changed during the audit") == 1


@pytest.mark.parametrize("seats", [None, "3"])
def test_session_lines_the_reader_refuses_or_faults_are_no_cuts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 seats: str | None) -> None:
    """Session lines that Python's json reads but the reader refuses (NaN, a key twice)
    or that bring a problem of their own (a key beside 'session'): a chunk that started
    there audited otherwise than the whole file (formats 1 and 2)."""
    log = tmp_path / "log.jsonl"
    code, _ = run("simulate", "--sessions", "16", "--rounds", "30", "--seed", "7", "--format", "jsonl",
                  *(["--seats", seats] if seats else []), "--output", str(log))
    assert code == 0
    lines = log.read_bytes().split(b"\n")
    at = [i for i, line in enumerate(lines) if line.startswith(b'{"session"')]
    for n, i in enumerate(at[1:]):
        line = lines[i]
        lines[i] = [line[:-1] + b', "x": NaN}', b'{"session": 1, ' + line[1:], line[:-1] + b', "round": 3}',
                    line][n % 4]
    log.write_bytes(b"\n".join(lines))
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(tasks, "MIN_CHUNK_BYTES", 1)
    assert len(list(pipeline.plan([Source(str(log), log)], pipeline.chunk_sizes(2)))) > 3
    for fmt in ("text", "json"):
        one = run("check", "--format", fmt, "--jobs", "1", str(log))
        two = run("check", "--format", fmt, "--jobs", "2", str(log))
        assert one == two and one[0] == 1


# --- processes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log that takes several seconds to audit (a simulated log, repeated)."""
    folder = tmp_path_factory.mktemp("long")
    part = simulate(folder / "part.jsonl", "jsonl", 10, 600, 6, "0.05").read_bytes()
    path = folder / "long.jsonl"
    path.write_bytes(part * 12)
    return path


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc, no psutil)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def start(log: Path, tmp: Path | None = None) -> tuple[subprocess.Popen[str], list[int]]:
    """``referee check --jobs 2`` on ``log`` (its TMPDIR ``tmp``), once its workers are running."""
    env = {**os.environ, "TMPDIR": str(tmp)} if tmp is not None else None
    child = subprocess.Popen([sys.executable, "-m", "referee", "check", "--quiet", "--jobs", "2", str(log)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = children(child.pid)
        if len(workers) == 2:
            return child, workers
        time.sleep(0.05)
    child.kill()
    raise AssertionError("no workers started")


def test_a_killed_worker_stops_the_audit(long_log: Path) -> None:
    child, workers = start(long_log)
    os.kill(workers[0], signal.SIGKILL)
    killed = time.monotonic()
    out, err = child.communicate(timeout=60)
    print(f"detected in {time.monotonic() - killed:.2f} s")
    assert child.returncode == 2 and "a worker process died" in err and "Traceback" not in err + out
    time.sleep(0.5)
    assert not any(alive(w) for w in workers)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_workers_die_with_their_parent(long_log: Path, how: signal.Signals) -> None:
    child, workers = start(long_log)
    os.killpg(child.pid, how) if how == signal.SIGINT else os.kill(child.pid, how)  # Ctrl-C: the whole group
    _, err = child.communicate(timeout=60)
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)


def test_workers_die_when_the_parent_is_killed(long_log: Path, tmp_path: Path) -> None:
    """And nothing is left behind: the workers' spill files have no name."""
    child, workers = start(long_log, tmp_path)
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers) and os.listdir(tmp_path) == []


def test_a_read_error_while_cutting_is_a_changed_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cutting pass runs beside the workers: when a read fails once chunks are out,
    the plan ends with a digest no worker can match, never with a pass."""
    from referee.load import chunking

    log = simulate(tmp_path / "log.jsonl", "jsonl", 20, 100, 4, "0")
    real = chunking._Pass.cuts

    def cuts_then_fail(*args: Any) -> Iterator[tuple[int, int]]:
        found = real(*args)
        yield next(found)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(chunking._Pass, "cuts", cuts_then_fail)
    code, out = run("check", "--quiet", "--jobs", "2", str(log))
    assert code == 2 and "input changed during the audit" in out


def test_a_ctrl_c_held_while_workers_are_forked_ends_them(long_log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C is held back while the workers are forked and raised when it is let through:
    the workers are ended there and then. (It escaped past the cleanup, and the command
    then waited at exit for workers that waited for work: a hang.)"""
    from referee.audit.stream import Options
    from referee.report.json import JsonReporter

    real = processes._pool
    made: list[Any] = []

    def pool_then_ctrl_c(*args: Any) -> Any:
        made.append(real(*args))
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # held: raised when let through
        return made[-1]

    stopped: list[int] = []
    real_stop = processes._stop

    def stop(pool: Any) -> None:
        stopped.extend(pool._processes or ())
        real_stop(pool)

    monkeypatch.setattr(processes, "_pool", pool_then_ctrl_c)
    monkeypatch.setattr(processes, "_stop", stop)
    with open(os.devnull, "w") as null, pytest.raises(KeyboardInterrupt):
        reporters: list[Any] = [JsonReporter(null)]
        stream = pipeline.audit_stream([Source(str(long_log), long_log)], Options(), reporters, 2)
        pipeline.dispatch(stream.events, reporters)
    assert made and not processes._LIVE and len(stopped) == 2 and not any(alive(pid) for pid in stopped)


def test_workers_left_running_are_ended_at_exit(long_log: Path) -> None:
    """The safety net: a pool still live at exit (no path should leave one) is ended
    before multiprocessing would wait for its workers."""
    from referee.audit.stream import Options

    pool = processes._pool(2, [], Options())
    pool.submit(os.getpid).result()
    pids = list(pool._processes)
    assert pool in processes._LIVE and all(alive(pid) for pid in pids)
    processes._stop_all()  # (Process.is_alive can lie here: the pool's own thread may reap a worker first)
    assert not processes._LIVE and not any(alive(pid) for pid in pids)
