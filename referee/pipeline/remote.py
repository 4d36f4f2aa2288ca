"""What a Dask worker runs for ``--cluster`` (:mod:`referee.pipeline.cluster`): the
check that it runs the client's referee, and a task of the plan.

Why a worker is checked before any task runs: a task's result is its reporters'
payloads, merged by the client into one report; a worker with another version of the
code, or reading another profile file under the same name, would audit its chunks by
other rules, and the report would mix the two without a word. So the client sends what
it runs (:class:`Fingerprint`: the version, a digest of the package's files, the Python
version, the digests of the profile files the plan names) and every worker answers with
its own; a task checks it again where it runs (a worker that joined later).

Why the working directory: the names on the command line, a ``--profile`` and the
profile a session names are relative to it (a profile relative to its log's folder,
itself a name given on the command line), and the report prints them as given; a task
runs with the client's working directory so that a relative name means on every machine
what it means on the client. Tasks of two runs with different directories never run at
once in one worker process (:class:`_Directory`).

Nothing here imports Dask: a result is plain data that Dask pickles."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Protocol

from .. import __version__
from ..load.inputs import Source
from ..profiles import BUILTIN
from ..report.base import Reporter
from .audit import Event, Options
from .merge import Item
from .tasks import ChunkDone, Task, audit_task

#: The package's folders whose every file is read at run time (``package-data`` in pyproject.toml).
_DATA = ("data", "locale", "templates")


@cache
def package_digest() -> str:
    """SHA-256 over the package's own files (its modules and the data they read), names
    and contents: two installations that differ in any byte of code or data differ here."""
    root = Path(__file__).resolve().parent.parent
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and (p.suffix == ".py" or p.relative_to(root).parts[0] in _DATA))
    digest = hashlib.sha256()
    for path in files:
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as err:
        return f"cannot read it ({err.strerror or err})"


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What decides how a worker audits: referee's version, its files' digest, the
    Python version, and each profile file the plan names with its SHA-256."""

    version: str
    package: str
    python: str
    profiles: tuple[tuple[str, str], ...] = ()

    @classmethod
    def here(cls, profiles: tuple[str, ...] = ()) -> Fingerprint:
        python = ".".join(map(str, sys.version_info[:2]))
        return cls(__version__, package_digest(), python, tuple((p, _file_digest(p)) for p in profiles))

    def differs(self, other: Fingerprint) -> str | None:
        """How ``other`` (a worker's) differs from this one (the client's), in words; None if not."""
        if other.version != self.version:
            return f"runs referee {other.version}, the client {self.version}"
        if other.package != self.package:
            return (f"runs referee {other.version} with other files (package sha256 {other.package[:12]}, "
                    f"the client's {self.package[:12]})")
        if other.python != self.python:
            return f"runs Python {other.python}, the client {self.python}"
        for (path, mine), (_, theirs) in zip(self.profiles, other.profiles, strict=True):
            if theirs != mine:
                shown = theirs if theirs.startswith("cannot") else f"sha256 {theirs[:12]}"
                return f"reads the profile {path} as {shown}, the client sha256 {mine[:12]}"
        return None


def profile_files(profile: str | None, sources: list[Source], cwd: str) -> tuple[str, ...]:
    """The profile files a ``--profile`` may name (absolute paths): the file itself, and
    for a relative name the file of that name beside each input, which the audit
    prefers. A built-in is in the package's digest; the profiles sessions name are read
    by the workers and their digests stated in the report."""
    if profile is None or profile in BUILTIN:
        return ()
    found = {os.path.join(cwd, profile)}
    if not os.path.isabs(profile):
        for source in sources:
            beside = Path(cwd, source.name).parent / profile
            if source.path is not None and beside.is_file():
                found.add(str(beside))
    return tuple(sorted(p for p in found if os.path.isfile(p)))


class WorkerRefused(Exception):
    """A worker that does not run the client's referee (or read its profiles)."""


class _NoOutput(io.StringIO):
    """A worker's reporter has no report to write to: its payload methods are pure."""

    def write(self, text: str) -> int:
        raise RuntimeError("a reporter wrote to its report in a worker: its payload methods must be pure")


@dataclass(frozen=True, slots=True)
class Detached:
    """A reporter as a worker needs it, for its pure ``*_payload`` methods: its class and
    its settings (what can be pickled of it before it starts), never its output."""

    cls: type[Reporter]
    settings: dict[str, object]

    @classmethod
    def of(cls, reporter: Reporter) -> Detached:
        settings: dict[str, object] = {}
        for name, value in vars(reporter).items():
            if name == "out":
                continue
            if isinstance(value, Reporter):  # a reporter seen through another (report/view.py's Selected)
                settings[name] = Detached.of(value)
                continue
            try:
                pickle.dumps(value)
            except Exception:  # an open file, a template environment: no payload reads them
                continue
            settings[name] = value
        return cls(type(reporter), settings)

    def make(self) -> Reporter:
        reporter = self.cls.__new__(self.cls)
        vars(reporter).update({k: v.make() if isinstance(v, Detached) else v for k, v in self.settings.items()})
        reporter.out = _NoOutput()
        return reporter


class WorkerSink(Protocol):
    """Where a worker may also send a task's events (a store, issue 30): it sees each
    event as the audit yields it, before the reporters' payloads are made, and passes it
    on. ``key`` names the task's bytes, so that a task run again (its first worker lost)
    writes over what it may have written, never beside it."""

    def __call__(self, key: TaskKey, events: Iterator[Event]) -> Iterator[Event]: ...


@dataclass(frozen=True, slots=True)
class TaskKey:
    """A task's bytes: the input's name, and the chunk's span and CRC-32 (whole file: ``0, -1, ""``)."""

    file: str
    start: int
    end: int
    check: str

    @classmethod
    def of(cls, task: Task) -> TaskKey:
        if task.chunk is None:
            return cls(task.source.name, 0, -1, "")
        return cls(task.source.name, task.chunk.span.start, task.chunk.span.end, task.chunk.check)


@dataclass(frozen=True, slots=True)
class Setup:
    """What every task of a run carries: the reporters, the options, the client's
    fingerprint and working directory, and a worker-side sink (none yet)."""

    reporters: tuple[Detached, ...]
    options: Options
    expected: Fingerprint
    cwd: str
    sink: WorkerSink | None = None


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What a task sends back: its events as the merge takes them (a chunk's last one its
    :class:`~referee.pipeline.tasks.ChunkDone`, with the CRC-32 of the bytes parsed),
    the worker that ran it, and its audit's seconds. A client-side sink takes the same
    events in plan order from the merge; ``key`` is what a worker-side one wrote under."""

    key: TaskKey
    items: list[Item | ChunkDone]
    worker: str
    seconds: float = 0.0


def probe(expected: Fingerprint, cwd: str) -> Fingerprint | str:
    """Run on every worker before any task: its own fingerprint (for the profile files
    the client names), or why it cannot take the client's working directory."""
    try:
        _DIRECTORY.check(cwd)
    except OSError as err:
        return f"cannot work in the client's folder {cwd} ({err.strerror or err})"
    return Fingerprint.here(tuple(path for path, _ in expected.profiles))


@cache
def _checked(expected: Fingerprint) -> str | None:
    return expected.differs(Fingerprint.here(tuple(path for path, _ in expected.profiles)))


def run_remote(task: Task, setup: Setup) -> TaskResult:
    """One task of the plan, on a worker: checked, audited in the client's working
    directory; a chunk's file is also compared with the one the client planned from
    (size and modification time: a device number differs from machine to machine)."""
    worker = _worker_name()
    differs = _checked(setup.expected)
    if differs is not None:
        raise WorkerRefused(f"worker {worker} {differs}: refused")
    reporters = [d.make() for d in setup.reporters]
    key = TaskKey.of(task)
    tap: Callable[[Iterator[Event]], Iterator[Event]] | None = None
    if setup.sink is not None:
        sink = setup.sink

        def tap(events: Iterator[Event]) -> Iterator[Event]:
            return sink(key, events)

    started = time.perf_counter()
    with _ONE_AT_A_TIME, _DIRECTORY.inside(setup.cwd):
        items = audit_task(replace(task, identity=None, plan=None), reporters, setup.options, tap=tap)
        if task.chunk is not None and task.identity is not None:
            items[-1] = _same_file(task, items[-1])
    return TaskResult(key, items, worker, time.perf_counter() - started)


def _same_file(task: Task, done: Item | ChunkDone) -> Item | ChunkDone:
    """The chunk's ``ChunkDone``, marked changed when the file is not the one planned."""
    assert isinstance(done, ChunkDone) and task.identity is not None and task.source.path is not None
    try:
        st = task.source.path.stat()
        same = (st.st_size, st.st_mtime_ns) == (task.identity.size, task.identity.mtime_ns)
    except OSError:
        same = False
    return done if same else ChunkDone(True, done.check, True)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # not in a Dask worker (a test calling it directly)
        return f"pid {os.getpid()}"


class _Directory:
    """The worker process's working directory, the client's while its tasks run (and its
    own again after them): tasks of runs from one directory run side by side, a task
    from another waits for them."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._users = 0
        self._home = ""

    def check(self, cwd: str) -> None:
        """Raise OSError if ``cwd`` cannot be entered here."""
        if not os.path.isdir(cwd):
            raise FileNotFoundError(2, "no such folder on this worker")
        os.listdir(cwd)

    @contextmanager
    def inside(self, cwd: str) -> Iterator[None]:
        with self._lock:
            while self._users and os.getcwd() != cwd:
                self._lock.wait()
            if not self._users:
                self._home = os.getcwd()
            if os.getcwd() != cwd:
                os.chdir(cwd)
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if not self._users and os.getcwd() != self._home:
                    os.chdir(self._home)
                self._lock.notify_all()


_DIRECTORY = _Directory()
#: One task at a time in a worker process, whatever its threads: the audit keeps memos
#: per process (settlements by profile, shared between sessions) that are not made for
#: threads (two tasks at once in one process gave another report), and a pure-Python
#: audit gains nothing from threads anyway (one core a process: ``--nthreads 1``).
_ONE_AT_A_TIME = threading.Lock()
