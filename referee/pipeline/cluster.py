"""``--cluster ADDRESS``: the plan's tasks on a Dask cluster's workers (issue 31).

The same plan as ``--jobs`` (:func:`referee.pipeline.tasks.plan`: whole files, and
chunks of large JSON Lines files cut at session lines, one task each), run by Dask
distributed's futures instead of a process pool, and merged here in plan order
(:class:`referee.pipeline.tasks.InOrder`, :func:`referee.pipeline.merge.dispatch`): the
report is byte-identical to ``--jobs 1``. Dask does the scheduling, and runs again
elsewhere a task whose worker was lost: its result comes back once, so nothing is
counted twice.

``ADDRESS`` is a scheduler (``tcp://HOST:8786``), or ``local:N``: a cluster of N
worker processes on this machine, started for the run and closed after it.

What differs from ``--jobs``:

* The workers read the inputs by path, on a file system they share with the client
  (at the same path: relative names are taken from the client's working directory,
  :mod:`referee.pipeline.remote`). The client still makes the plan (its one pass over
  a large JSON Lines file cuts and hashes it); a chunk's worker returns the CRC-32 of
  what it parsed, compared here, so the report's digest is of the bytes audited.
* Report texts travel back inside the task's result, not through spill files: a
  worker's disk is not the client's (bench/cluster_overhead.py measures what it costs).
* Before any task runs, each worker is asked what it runs (referee's version and
  files, Python, the profile files the plan names): one that differs is refused.

Faults: the scheduler unreachable or lost, a task whose workers keep dying, a worker
refused: :class:`ClusterError` (exit 2, one line). Ctrl-C or SIGTERM: the run's tasks
are cancelled on the cluster as the command unwinds (the report, written atomically,
is not left half written)."""

from __future__ import annotations

import logging
import os
import re
import uuid
import warnings
from collections import deque
from collections.abc import Generator, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from ..load.inputs import Source
from ..report.base import Reporter
from .audit import Options
from .merge import Item, Stream
from .processes import PipelineError
from .remote import Detached, Fingerprint, Setup, TaskResult, WorkerRefused, probe, profile_files, run_remote
from .tasks import InOrder, Task, chunk_sizes, plan
from .tracking import Tracker

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster

EXTRA = "pip install 'referee[cluster]'"
#: How long the scheduler may take to answer, and a cluster to have a worker.
CONNECT_SECONDS = 30.0
#: Tasks in flight for each worker: queued while one runs, and finished ones waiting to
#: be taken in plan order; enough to hide a task's round trip (client, scheduler, worker,
#: back: tens of milliseconds on a loaded machine) behind the audit of the others.
WINDOW_PER_SLOT = 4
_ADDRESS = re.compile(r"(local:(?P<n>\d+))|(?P<url>[a-z][a-z0-9+]*://\S+)")


class ClusterError(PipelineError):
    """The audit could not run, or be completed, on the cluster: exit 2."""


def parse_address(address: str) -> int | None:
    """``local:N``'s N, or None for a scheduler's address; a usage error otherwise."""
    match = _ADDRESS.fullmatch(address.strip())
    if match is None:
        raise ClusterError(f"--cluster: expected a scheduler's address (tcp://HOST:8786) or local:N, "
                           f"not {address!r}")
    if match["n"] is not None:
        if int(match["n"]) < 1:
            raise ClusterError("--cluster local:N: N is the number of workers, at least 1")
        return int(match["n"])
    return None


def cluster_stream(sources: list[Source], options: Options, reporters: list[Reporter], address: str,
                   total: int) -> Stream:
    """The events of an audit on the cluster at ``address``: connected, its workers
    checked, before any event (and so before any report) is written."""
    local = parse_address(address)
    unread = next((s for s in sources if s.path is None), None)
    if unread is not None:
        raise ClusterError(f"--cluster: the workers cannot read {unread.name!r} (standard input): save it to a "
                           "file and audit the file")
    session = _Session.open(address, local)
    try:
        cwd = os.getcwd()
        expected = Fingerprint.here(profile_files(options.profile, sources, cwd))
        session.check(expected, cwd)
        setup = Setup(tuple(Detached.of(r) for r in reporters), options, expected, cwd)
        slots = session.slots()
    except BaseException:
        session.close()
        raise
    tracker = Tracker(plan(sources, chunk_sizes(slots)))
    run = _Run(session, tracker, setup, slots)
    return Stream(run, lambda: tracker.bytes_done, total, tracker.progress)


def _distributed() -> None:
    """Dask distributed is there, or the extra to install is named (exit 2)."""
    try:
        import distributed  # noqa: F401
    except ImportError as err:
        raise ClusterError(f"--cluster needs Dask distributed ({err}): {EXTRA}") from None


class _Session:
    """A client connected to the scheduler (and the local cluster it started, if any)."""

    def __init__(self, client: Client, cluster: LocalCluster | None, address: str) -> None:
        self.client = client
        self.cluster = cluster
        self.address = address

    @classmethod
    def open(cls, address: str, local: int | None) -> _Session:
        _distributed()
        from distributed import Client, LocalCluster

        _silence()
        cluster: LocalCluster | None = None
        try:
            if local is not None:
                cluster = LocalCluster(n_workers=local, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
                client = Client(cluster, set_as_default=False, timeout=CONNECT_SECONDS)
            else:
                client = Client(address, set_as_default=False, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError) as err:
            if cluster is not None:
                cluster.close()
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_reason(err)}") from None
        except BaseException:
            if cluster is not None:
                cluster.close()
            raise
        return cls(client, cluster, address)

    def slots(self) -> int:
        """Worker processes in the cluster now (the chunk sizes are planned for them; a
        process runs referee's tasks one at a time whatever its threads)."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, len(threads))

    def check(self, expected: Fingerprint, cwd: str) -> None:
        """Every worker runs the client's referee, with its profile files, and can work in
        its folder: else refused before any task runs."""
        try:
            self.client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except TimeoutError:
            raise ClusterError(f"the Dask scheduler at {self.address} has no worker "
                               f"(waited {CONNECT_SECONDS:.0f} s)") from None
        except OSError as err:
            raise ClusterError(f"lost the Dask scheduler at {self.address}: {_reason(err)}") from None
        answers = self.client.run(probe, expected, cwd, on_error="return")
        for worker, answer in sorted(answers.items()):
            if isinstance(answer, Fingerprint):
                differs = expected.differs(answer)
            elif isinstance(answer, str):
                differs = answer
            else:
                differs = f"cannot run referee ({type(answer).__name__}: {answer})"
            if differs is not None:
                raise ClusterError(f"worker {worker} {differs}: refused before any task ran")

    def lost(self) -> bool:
        return self.client.status not in ("running", "newly-created")

    def close(self) -> None:
        try:
            self.client.close(timeout=10)
            if self.cluster is not None:
                self.cluster.close(timeout=10)
        except (OSError, TimeoutError):
            pass  # the scheduler is gone already


def _silence() -> None:
    """Dask's log lines off for the rest of the process: what goes wrong is said once, in
    one line, by referee (a lost scheduler is otherwise a page of tracebacks, some
    written by the client's own thread after the run has ended)."""
    warnings.filterwarnings("ignore", module=r"distributed(\.|$)")
    off = logging.CRITICAL + 1
    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] in ("distributed", "tornado", "asyncio"):
            logger = logging.getLogger(name)
            logger.setLevel(off)  # Dask's configuration gives some of them levels of their own
            for handler in logger.handlers:
                handler.setLevel(off)


def _reason(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


class _Run:
    """The run's events in plan order (:meth:`_events`); :meth:`close` cancels what is
    still on the cluster and closes the client, whether the run was started or not."""

    def __init__(self, session: _Session, tracker: Tracker, setup: Setup, slots: int) -> None:
        self.session = session
        self.tracker = tracker
        self.setup = setup
        self.window = WINDOW_PER_SLOT * slots + 1
        self.name = f"referee-{uuid.uuid4().hex[:8]}"
        self.pending: deque[tuple[Task, Future[TaskResult]]] = deque()
        self._events = self._collect()

    def __iter__(self) -> Iterator[Item]:
        return self

    def __next__(self) -> Item:
        return next(self._events)

    def close(self) -> None:
        try:
            self._events.close()
            if self.pending:
                self.session.client.cancel([future for _, future in self.pending], force=True)
        except (OSError, TimeoutError):
            pass  # the scheduler is gone: so are its tasks
        finally:
            self.pending.clear()
            self.tracker.close()
            self.session.close()

    def _submit(self, number: int, task: Task) -> None:
        assert task.source.path is not None
        remote = replace(task, source=replace(task.source, path=task.source.path.absolute()), plan=None, spill=None)
        future = self.session.client.submit(run_remote, remote, self.setup, key=f"{self.name}-{number}", pure=False)
        self.pending.append((task, future))

    def _collect(self) -> Generator[Item, None, None]:
        order = InOrder()
        tasks = enumerate(self.tracker.tasks([]))
        for number, task in tasks:
            self._submit(number, task)
            if len(self.pending) >= self.window:
                break
        while self.pending:
            task, future = self.pending[0]
            following = next(tasks, None)  # the client's cutting pass goes on while the workers audit
            if following is not None:
                self._submit(*following)
            result = self._result(future)
            self.pending.popleft()
            yield from order.take(task, result.items)
            self.tracker.done(task)

    def _result(self, future: Future[TaskResult]) -> TaskResult:
        """A task's result, or what went wrong said in one line."""
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        try:
            result = future.result()
        except WorkerRefused as err:
            raise ClusterError(str(err)) from None
        except KilledWorker:
            raise ClusterError("a task's workers died one after the other (killed, or out of memory?): "
                               "the audit is incomplete") from None
        except (FutureCancelledError, OSError, TimeoutError) as err:
            if isinstance(err, FutureCancelledError) and not self.session.lost():
                raise
            raise ClusterError(f"lost the Dask scheduler at {self.session.address}: the audit is incomplete") \
                from None
        assert isinstance(result, TaskResult)
        return result
