"""``--jobs N``: the plan's tasks audited by forked worker processes on this machine.

Workers are forked processes that die with their parent (``PR_SET_PDEATHSIG`` on
Linux) and ignore Ctrl-C (the parent handles it and ends them). A worker that dies
(killed, out of memory) stops the audit at once with :class:`PipelineError`; workers
that cannot start leave the audit to this process.

Only a task's payloads travel back (shipping every audited round costs more than
auditing it: a round unpickles in ~90 µs, audits in ~10 µs on the fast lane); long
report texts go through nameless spill files the parent copies in the kernel
(:mod:`referee.report.spill`)."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import replace

from ..errors import UserError
from ..load.inputs import Source
from ..load.reading import Reading
from ..report.base import Reporter
from ..report.spill import SpillFile, nameless_file
from .audit import Event, Options, audit_reading
from .merge import Item
from .tasks import ChunkDone, InOrder, Task, audit_task

_DIED = "a worker process died (killed, or out of memory?): the audit is incomplete"


class PipelineError(UserError):
    """The audit could not be completed (a worker process died): exit 2."""


def events(sources: Iterable[Source], options: Options, readings: list[Reading] | None = None) -> Iterator[Event]:
    """Every event of every input, in one process (each input read in one pass)."""
    if options.mapping is not None:  # providers' exports, read through a mapping
        from .audit import audit_records, export_events

        yield from export_events(sources, options, audit_records, readings)
        return
    for source in sources:
        reading = Reading(source)
        if readings is not None:
            readings.append(reading)
        yield from audit_reading(reading, options)


_HELD = {signal.SIGINT, signal.SIGTERM}
_REPORTERS: list[Reporter] = []
_OPTIONS = Options()


def _start_worker(reporters: list[Reporter], options: Options) -> None:
    """In each worker: die with the parent, leave Ctrl-C to it, keep the reporters
    (inherited by fork, never pickled) for their pure ``round_payload``."""
    global _OPTIONS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is inherited: ending a worker must end it
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    _die_with_parent()
    _REPORTERS[:] = reporters
    _OPTIONS = options


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):  # pragma: no cover - Linux is where it runs
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        return
    if os.getppid() == 1:  # the parent died before prctl ran
        os._exit(1)


def run_task(task: Task) -> list[Item | ChunkDone]:
    """Audit one task in a worker; rounds come back as payloads."""
    spill = SpillFile(task.spill) if task.spill is not None else None
    return audit_task(task, _REPORTERS, _OPTIONS, spill)


class Fallback:
    """The audit in this process, when worker processes cannot start."""

    def __init__(self, sources: list[Source], options: Options, note: Callable[[str], None] | None) -> None:
        self.sources = sources
        self.options = options
        self.note = note
        self.readings: list[Reading] = []

    def events(self, reason: str) -> Iterator[Event]:
        if self.note is not None:
            self.note(f"cannot start worker processes ({reason}): auditing in this process")
        return events(self.sources, self.options, self.readings)

    def consumed(self) -> int:
        return sum(r.consumed for r in self.readings)


def _pool(jobs: int, reporters: list[Reporter], options: Options) -> ProcessPoolExecutor:
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start_worker,
                               initargs=(reporters, options))
    _LIVE.add(pool)
    return pool


#: Pools not yet shut down. At exit, any left (an audit abandoned by a path that did not
#: unwind through :func:`parallel_events`) has its workers ended before multiprocessing's
#: own exit handler would wait for them forever (registered after it: runs before it).
_LIVE: set[ProcessPoolExecutor] = set()


@atexit.register
def _stop_all() -> None:
    for pool in list(_LIVE):
        _stop(pool)


def parallel_events(tasks: Iterable[Task], options: Options, reporters: list[Reporter], jobs: int,
                    on_task: Callable[[Task], None] | None = None,
                    fallback: Fallback | None = None) -> Iterator[Item]:
    """Every event of every task (see :func:`referee.pipeline.tasks.plan`), in order,
    audited by ``jobs`` processes; ``on_task`` hears of each task once its events are in.

    Each worker makes the evaluator's tables on its first deal (18 ms each from the shipped
    file, the two at once on two cores): made here before forking, to be shared, they were
    18 ms that no worker could start before. At ``--jobs 2`` the CPU measured the same
    (each worker copied the shared tables' pages on first use anyway); it grows by 18 ms a
    further worker (bench/RESULTS.md)."""
    spills = _Spills(2 * jobs + 1)  # made before the workers are forked: they inherit them
    try:
        yield from _parallel(tasks, options, reporters, jobs, on_task, fallback, spills)
    finally:
        spills.close()


def _parallel(tasks: Iterable[Task], options: Options, reporters: list[Reporter], jobs: int,
              on_task: Callable[[Task], None] | None, fallback: Fallback | None, spills: _Spills) -> Iterator[Item]:
    # Ctrl-C and SIGTERM are held back while the workers are forked (they inherit the
    # mask, ignore SIGINT, then unblock both), so that none is interrupted before it can
    # ignore Ctrl-C, and the pool is whole when the parent unwinds.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    pending: deque[tuple[Task, Future[list[Item | ChunkDone]]]] = deque()
    queue = (spills.assign(task) for task in tasks)
    pool: ProcessPoolExecutor | None = None
    try:
        try:
            pool = _pool(jobs, reporters, options)
            for task in queue:
                pending.append((task, pool.submit(run_task, task)))
                if len(pending) >= 2 * jobs:
                    break
        finally:
            # A Ctrl-C or SIGTERM that came while they were held is raised here, by the
            # unblocking itself: still inside the try, so that the workers are ended.
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    except OSError as err:
        if pool is not None:
            _stop(pool)
        if fallback is None:
            raise
        failed = err.strerror or str(err)
    except BrokenProcessPool:  # a worker died while the first chunks were being cut
        if pool is not None:
            _stop(pool)
        raise PipelineError(_DIED) from None
    except BaseException:
        if pool is not None:
            _stop(pool)
        raise
    else:
        failed = ""
    if failed or pool is None:
        assert fallback is not None
        yield from fallback.events(failed)
        return
    finished = False
    try:
        yield from _collect(pool, pending, queue, on_task, spills)
        finished = True
    except BrokenProcessPool:
        raise PipelineError(_DIED) from None
    finally:
        if finished:
            pool.shutdown(wait=True)
            _LIVE.discard(pool)
        else:
            _stop(pool)


class _Spills:
    """The workers' spill files (:mod:`referee.report.spill`): nameless files made before
    the workers are forked, as many as tasks can be in flight (the pending window and
    the one being read), a file handed to the next task once the task's events are in
    the report (never while the parent may still copy from it), all closed at the end.
    None can be made (no temporary directory): no spill, report texts travel back."""

    def __init__(self, count: int) -> None:
        self._all: list[int] = []
        try:
            for _ in range(count):
                self._all.append(nameless_file())
        except OSError:
            self.close()
        self._free = list(self._all)

    def assign(self, task: Task) -> Task:
        return replace(task, spill=self._free.pop()) if self._free else task

    def done(self, task: Task) -> None:
        if task.spill is not None:
            self._free.append(task.spill)

    def close(self) -> None:
        for fd in self._all:  # each once: a number closed twice may be another file's by then
            with suppress(OSError):
                os.close(fd)
        self._all, self._free = [], []


def _collect(pool: ProcessPoolExecutor, pending: deque[tuple[Task, Future[list[Item | ChunkDone]]]],
             queue: Iterator[Task], on_task: Callable[[Task], None] | None, spills: _Spills) -> Iterator[Item]:
    order = InOrder()
    while pending:
        task, future = pending.popleft()
        following = next(queue, None)
        if following is not None:
            pending.append((following, pool.submit(run_task, following)))
        yield from order.take(task, future.result())
        spills.done(task)
        if on_task is not None:
            on_task(task)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End the workers now: the audit is over, failed or interrupted."""
    _LIVE.discard(pool)
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)
