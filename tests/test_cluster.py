"""``--cluster`` (issue 31) on the suite's Dask cluster (``dask_cluster``: a scheduler
and two workers in this process, reached over TCP): the report byte-identical to
``--jobs 1`` in every format, findings across files and chunks included; a file changed
under the workers; a worker that runs another referee refused before any task; the
errors a user meets said in one line (exit 2); an interrupted run's tasks cancelled.
Real worker processes, killed workers and a lost scheduler: ``test_cluster_processes``."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.load.inputs import Source
from referee.pipeline import cluster, dispatch, remote
from referee.pipeline.audit import Options
from referee.pipeline.remote import Detached, Fingerprint, Setup, TaskKey, WorkerRefused, run_remote
from referee.pipeline.tasks import chunk_sizes, plan
from referee.report.json import JsonReporter
from referee.report.progress import Progress

from .conftest import SAMPLES, run
from .test_pipeline import HOSTILE, simulate

FORMATS = ["text", "json", "jsonl", "github", "junit"]


def seats_log(path: Path, sessions: int, games: int, seed: int, faults: str, *more: str) -> Path:
    code, _ = run("simulate", "--seats", "2-6", "--sessions", str(sessions), "--rounds", str(games), "--seed",
                  str(seed), "--faults", faults, "--format", "jsonl", *more, "--output", str(path))
    assert code == 0
    return path


def second_records(log: Path, path: Path) -> Path:
    """A file with second records of ``log``'s first games at the same table: one a copy
    (``G002`` for each player seated again), one with another river (``G001`` too)."""
    lines = log.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["session"]["id"] += "-again"
    games = [json.loads(line) for line in lines[1:4] if line.startswith('{"game"')]
    changed = dict(games[1], river="2c" if games[1]["river"] != "2c" else "3c")
    path.write_text("\n".join(json.dumps(x) for x in [head, games[0], changed]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Samples, hostile inputs, simulated fault logs of both formats (30% faults, inline
    seats and seat lines), two large enough to be cut in chunks, and a file of second
    records of another file's games (G001/G002 across files)."""
    folder = tmp_path_factory.mktemp("cluster-corpus")
    files = [simulate(folder / f"sim.{fmt}", fmt, 2, 60, 3, "0.3") for fmt in ("yaml", "json", "jsonl")]
    files.append(simulate(folder / "big.jsonl", "jsonl", 40, 120, 5, "0.3"))
    table = seats_log(folder / "table.jsonl", 12, 40, 8, "0.3")
    files += [table, seats_log(folder / "lines.jsonl", 6, 30, 9, "0.3", "--seat-lines"),
              second_records(table, folder / "again.jsonl")]
    for name, data in HOSTILE.items():
        (folder / name).write_bytes(data)
        files.append(folder / name)
    files.extend(sorted(SAMPLES.iterdir()))
    return [str(f) for f in files]


def strip(fmt: str, text: str) -> str:
    return re.sub(r'(timestamp|time)="[^"]*"', "", text) if fmt == "junit" else text


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_cluster_gives_byte_identical_reports(corpus: list[str], dask_cluster: str, fmt: str) -> None:
    tasks = list(plan([Source(f, Path(f)) for f in corpus], chunk_sizes(2)))
    assert len(tasks) > len(corpus) + 4  # the large logs are cut in chunks
    one = run("check", "--format", fmt, "--jobs", "1", *corpus)
    there = run("check", "--format", fmt, "--cluster", dask_cluster, *corpus)
    assert one[0] == there[0] == 2  # hostile inputs are unreadable
    assert strip(fmt, one[1]) == strip(fmt, there[1])
    if fmt == "json":
        found = {f["code"] for s in json.loads(invoke("check", "--format", "json", *corpus)[1])["sessions"]
                 for f in s["findings"]}
        assert {"G001", "G002", "P005", "S004"} <= found


@pytest.mark.slow
def test_the_html_report_on_the_cluster(corpus: list[str], dask_cluster: str, tmp_path: Path) -> None:
    pages = []
    for how in (["--jobs", "1"], ["--cluster", dask_cluster]):
        out = tmp_path / "r.html"
        code, _ = run("report", *how, "-o", str(out), *corpus)
        assert code == 2
        page = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "", out.read_text(encoding="utf-8"))
        pages.append(re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "", page))  # pygal's random chart ids
    assert pages[0] == pages[1] and pages[0].count('class="session"') >= 40


def test_findings_across_chunks_of_one_file(tmp_path: Path, dask_cluster: str) -> None:
    """Second records at the end of a large file, in another chunk than their first."""
    log = seats_log(tmp_path / "t.jsonl", 16, 40, 4, "0.1")
    again = second_records(log, tmp_path / "again.jsonl").read_bytes()
    with log.open("ab") as fh:
        fh.write(again)
    assert len(list(plan([Source(str(log), log)], chunk_sizes(2)))) > 3
    one = run("check", "--format", "json", "--jobs", "1", str(log))
    there = run("check", "--format", "json", "--cluster", dask_cluster, str(log))
    assert one == there and {"G001", "G002"} <= {f["code"] for s in json.loads(one[1])["sessions"]
                                                   for f in s["findings"]}


def test_a_file_changed_between_the_plan_and_the_workers_is_refused(tmp_path: Path, dask_cluster: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Same size, same modification time, one byte different: only the CRC-32 the
    workers return shows it; the same finding and exit 2 as with --jobs."""
    log = simulate(tmp_path / "log.jsonl", "jsonl", 20, 100, 4, "0")
    real = plan

    def plan_then_tamper(*args: Any) -> Iterator[Any]:
        tasks = list(real(*args))  # the whole pass, then the change
        st = log.stat()
        data = bytearray(log.read_bytes())
        at = data.index(b'"ante":1', len(data) // 2)
        data[at + 7: at + 8] = b"2"
        log.write_bytes(bytes(data))
        os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
        return iter(tasks)

    monkeypatch.setattr(cluster, "plan", plan_then_tamper)
    code, out = run("check", "--quiet", "--cluster", dask_cluster, str(log))
    assert code == 2 and out.count("input changed during the audit") == 1


def test_a_file_that_grows_under_the_workers_is_refused(tmp_path: Path, dask_cluster: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    log = simulate(tmp_path / "log.jsonl", "jsonl", 20, 100, 4, "0")
    real = plan

    def plan_then_grow(*args: Any) -> Iterator[Any]:
        tasks = list(real(*args))
        with log.open("ab") as fh:
            fh.write(b'{"session": {"id": "late"}}\n')
        return iter(tasks)

    monkeypatch.setattr(cluster, "plan", plan_then_grow)
    code, out = run("check", "--quiet", "--cluster", dask_cluster, str(log))
    assert code == 2 and out.count("input changed during the audit") == 1


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_worker_running_another_referee_is_refused_before_any_task(dask_cluster: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's fingerprint made to differ from what the workers (here, in this
    process) answer: a version, then the package's files."""
    real = Fingerprint.here
    submitted: list[object] = []
    monkeypatch.setattr(cluster._Run, "_submit", lambda self, *a: submitted.append(a))
    changes: list[tuple[Callable[[Fingerprint], Fingerprint], str]] = [
        (lambda f: replace(f, version="0.0.9"), r"runs referee \S+, the client 0\.0\.9"),
        (lambda f: replace(f, package="0" * 64),
         r"runs referee \S+ with other files \(package sha256 [0-9a-f]{12}, the client's 000000000000\)")]
    for change, said in changes:

        def here(profiles: tuple[str, ...] = (), change: Callable[[Fingerprint], Fingerprint] = change) -> Fingerprint:
            return change(real(profiles))

        monkeypatch.setattr(Fingerprint, "here", staticmethod(here))
        code, out, err = invoke("check", "--format", "json", "--cluster", dask_cluster, str(SAMPLES / "clean.yaml"))
        assert code == 2 and out == "" and not submitted
        assert re.fullmatch(rf"referee: worker tcp://127\.0\.0\.1:\d+ {said}: refused before any task ran\n", err)


def test_what_a_fingerprint_says_differs() -> None:
    mine = Fingerprint("0.1.0", "a" * 64, "3.11", (("/p/house.yaml", "b" * 64),))
    assert mine.differs(mine) is None
    assert mine.differs(replace(mine, python="3.12")) == "runs Python 3.12, the client 3.11"
    other = replace(mine, profiles=(("/p/house.yaml", "c" * 64),))
    assert mine.differs(other) == ("reads the profile /p/house.yaml as sha256 cccccccccccc, the client sha256 "
                                   "bbbbbbbbbbbb")
    gone = replace(mine, profiles=(("/p/house.yaml", "cannot read it (No such file or directory)"),))
    assert mine.differs(gone) == ("reads the profile /p/house.yaml as cannot read it (No such file or directory), "
                                  "the client sha256 bbbbbbbbbbbb")


def test_the_profile_files_a_plan_names(tmp_path: Path) -> None:
    """``--profile house.yaml`` is the file in the working directory, or beside an input
    (which the audit prefers): the workers' copies of both are compared."""
    (tmp_path / "logs").mkdir()
    for where in (tmp_path, tmp_path / "logs"):
        (where / "house.yaml").write_text("x", encoding="utf-8")
    source = Source("logs/a.jsonl", tmp_path / "logs" / "a.jsonl")
    assert remote.profile_files("house.yaml", [source], str(tmp_path)) == (
        str(tmp_path / "house.yaml"), str(tmp_path / "logs" / "house.yaml"))
    assert remote.profile_files("vivo", [source], str(tmp_path)) == ()
    assert remote.profile_files(None, [source], str(tmp_path)) == ()


def test_a_task_on_a_worker_that_differs_is_refused_there(tmp_path: Path) -> None:
    """A worker that joined after the check: its first task refuses to run. A task runs
    in the client's folder, and the worker is back in its own after it."""
    home = os.getcwd()
    setup = Setup((), Options(), replace(Fingerprint.here(), version="0.0.9"), str(tmp_path))
    task = next(plan([Source(str(SAMPLES / "clean.yaml"), SAMPLES / "clean.yaml")]))
    with pytest.raises(WorkerRefused, match=r"worker pid \d+ runs referee \S+, the client 0\.0\.9: refused"):
        run_remote(task, setup)
    done = run_remote(task, replace(setup, expected=Fingerprint.here()))
    assert done.key == TaskKey(str(SAMPLES / "clean.yaml"), 0, -1, "") and done.items
    assert os.getcwd() == home


def test_a_reporter_travels_without_its_output(tmp_path: Path) -> None:
    """What cannot be pickled (its report, an open file) stays behind; a payload method
    that wrote to the report would fail loudly in the worker."""
    with (tmp_path / "spool").open("w") as spool:
        reporter = JsonReporter(io.StringIO(), quiet=True)
        setattr(reporter, "spool", spool)  # noqa: B010 - an attribute no reporter has: an open file
        detached = Detached.of(reporter)
        assert set(detached.settings) == {"color", "quiet", "strict"}
        made = detached.make()
        assert isinstance(made, JsonReporter) and made.quiet
        with pytest.raises(RuntimeError, match="payload methods must be pure"):
            made.out.write("x")


def test_without_dask_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, out, err = invoke("check", "--cluster", "local:2", str(SAMPLES / "clean.yaml"))
    assert (code, out) == (2, "")
    assert err.startswith("referee: --cluster needs Dask distributed") and err.endswith(
        ": pip install 'referee[cluster]'\n") and err.count("\n") == 1


@pytest.mark.parametrize(("address", "said"), [
    ("localhost:8786", "expected a scheduler's address (tcp://HOST:8786) or local:N, not 'localhost:8786'"),
    ("local:0", "--cluster local:N: N is the number of workers, at least 1"),
])
def test_a_bad_address_is_a_usage_error(address: str, said: str) -> None:
    code, out, err = invoke("check", "--cluster", address, str(SAMPLES / "clean.yaml"))
    assert (code, out) == (2, "") and said in err and err.count("\n") == 1


def test_a_scheduler_nobody_answers_at(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    started = time.monotonic()
    code, out, err = invoke("check", "--cluster", f"tcp://127.0.0.1:{port}", str(SAMPLES / "clean.yaml"))
    assert (code, out) == (2, "") and time.monotonic() - started < 20
    assert err.startswith(f"referee: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_standard_input_cannot_go_to_a_cluster(dask_cluster: str) -> None:
    code, out, err = invoke("check", "--cluster", dask_cluster, "-")
    assert (code, out) == (2, "")
    assert err == ("referee: --cluster: the workers cannot read '-' (standard input): save it to a file and audit "
                   "the file\n")


def scheduler_tasks(address: str) -> list[str]:
    from distributed import Client

    with Client(address, set_as_default=False, timeout=10) as client:
        keys: list[str] = client.run_on_scheduler(lambda dask_scheduler: [str(k) for k in dask_scheduler.tasks])
    return [k for k in keys if k.startswith("referee-")]


def test_an_interrupted_run_cancels_its_tasks_on_the_cluster(tmp_path: Path, dask_cluster: str) -> None:
    """Ctrl-C at the first round taken: the tasks still queued or running are cancelled
    and the run's client closed (the command's part, exit 130 and no half report, is in
    test_cluster_processes)."""
    log = simulate(tmp_path / "log.jsonl", "jsonl", 40, 150, 2, "0.1")

    class Interrupting(JsonReporter):
        def take_clean(self, payload: Any) -> None:
            raise KeyboardInterrupt

    reporters: list[Any] = [Interrupting(io.StringIO())]
    stream = cluster.cluster_stream([Source(str(log), log)], Options(batches=True), reporters, dask_cluster, 1)
    with pytest.raises(KeyboardInterrupt):
        dispatch(stream.events, reporters)
    run_ = stream.events
    assert isinstance(run_, cluster._Run) and not run_.pending and run_.session.client.status == "closed"
    deadline = time.monotonic() + 10
    while scheduler_tasks(dask_cluster) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert scheduler_tasks(dask_cluster) == []


def test_progress_counts_the_tasks(tmp_path: Path, dask_cluster: str) -> None:
    log = simulate(tmp_path / "log.jsonl", "jsonl", 40, 150, 4, "0")
    reporters: list[Any] = [JsonReporter(io.StringIO())]
    stream = cluster.cluster_stream([Source(str(log), log)], Options(batches=True), reporters, dask_cluster, 0)
    assert stream.tasks is not None
    dispatch(stream.events, reporters)
    done, planned = stream.tasks()
    assert done == planned > 3 and stream.done() == log.stat().st_size
    now = [0.0]
    line = Progress(io.StringIO(), 100, lambda: 50, clock=lambda: now[0], tasks=lambda: (3, 12))
    now[0] = 2.0
    line.rounds = 4000
    assert line.line(2.0) == "referee: 4,000 rounds, 2,000 rounds/s, 50%, ETA 0:00:02, 3 of 12 tasks"
