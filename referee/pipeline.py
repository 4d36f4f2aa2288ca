"""The pipeline: inputs → readers → audit → reporters, in one process or in ``--jobs N``.

Above both :mod:`referee.audit` and :mod:`referee.report` (the audit knows nothing of
reports). Every reporter takes a round the same way: ``round_payload`` where the round
was audited, ``take_round`` in file order in this process. In one process the two run
back to back; under ``--jobs`` the payload is computed in the worker and only it travels
back (shipping every audited round costs more than auditing it: a round unpickles in
~90 µs, audits in ~10 µs on the fast lane); runs of rounds and of games travel as one
object, and their long report texts through nameless spill files the parent copies in
the kernel (:mod:`referee.report.spill`). Session openings and closings, findings and
input digests are few and travel whole. The parent feeds everything to the reporters
in file order, so the report is byte-identical to the one-process report.

Why so: with N workers on N cores and the parent beside them, the run is CPU-bound, so
what the parallel run spends beyond the one-process run (the parent's cutting pass,
receiving, forking) is what it loses; bench/RESULTS.md has the figures.

Workers are forked processes that die with their parent (``PR_SET_PDEATHSIG`` on
Linux) and ignore Ctrl-C (the parent handles it and ends them). A worker that dies
(killed, out of memory) stops the audit at once with :class:`PipelineError`; workers
that cannot start leave the audit to this process.
"""

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
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

from .audit.clean import CleanGame, CleanGames
from .audit.duplicates import GameIndex
from .audit.games import GameFingerprint, GameResult, round_view
from .audit.results import Finding, InputInfo, SessionInfo, SessionResult, Summary
from .audit.stream import Event, Options, audit_reading, audit_records
from .errors import UserError
from .load.chunking import Chunk, Plan, cut_jsonl
from .load.inputs import HEAD_BYTES, Identity, Source
from .load.readers import detect_kind
from .load.readers import read as read_input
from .load.reading import Reading, changed_message
from .models import codes
from .report.base import Reporter
from .report.progress import Progress
from .report.spill import CleanText, SpillFile, nameless_file

#: Below this many bytes in all, processes cost more than they save.
PARALLEL_MIN_BYTES = 1 << 20
CHUNK_BYTES = 8 * 1024 * 1024
MIN_CHUNK_BYTES = 256 * 1024


_DIED = "a worker process died (killed, or out of memory?): the audit is incomplete"


class PipelineError(UserError):
    """The audit could not be completed (a worker process died): exit 2."""


@dataclass(frozen=True, slots=True)
class RenderedRounds:
    """Consecutive rounds of a worker's task as the reporters keep them: for each
    reporter, in their order, the list of its payloads. One object a run of rounds
    travels back, not one a round (a round's own object cost about as much to pickle
    and unpickle as its audit on the fast path)."""

    payloads: tuple[list[Any], ...]


@dataclass(slots=True)
class RenderedGames:
    """Consecutive format-2 games of a worker's task as the reporters keep them: for each
    reporter, in their order, the list of its payloads (for a format that takes spilled
    texts, :attr:`Reporter.spills`, their texts joined into one
    :class:`~referee.report.spill.CleanText`, taken like a batch of clean rounds); and
    what two records of each game must share. One object a run of games, not one a game:
    the parent's share of the work is what ``--jobs`` cannot spread."""

    payloads: list[Any]
    fingerprints: list[GameFingerprint]


@dataclass(frozen=True, slots=True)
class RenderedClean:
    """A batch of the fast lane's clean rounds as the reporters keep it: each
    reporter's payload for the whole batch, in their order, and how many rounds."""

    payloads: tuple[Any, ...]
    count: int


Item = Event | RenderedRounds | RenderedGames | RenderedClean


@dataclass(slots=True)
class Stream:
    """The events of an audit, how many input bytes are done, and how many in all."""

    events: Iterator[Item]
    done: Callable[[], int]
    total: int


def events(sources: Iterable[Source], options: Options, readings: list[Reading] | None = None) -> Iterator[Event]:
    """Every event of every input, in one process (each input read in one pass)."""
    for source in sources:
        reading = Reading(source)
        if readings is not None:
            readings.append(reading)
        yield from audit_reading(reading, options)


def audit_stream(sources: list[Source], options: Options, reporters: list[Reporter], jobs: int,
                 note: Callable[[str], None] | None = None) -> Stream:
    """The events of an audit, in processes when it pays (``note`` hears why not when
    they cannot start)."""
    options = replace(options, batches=True)  # dispatch takes the lane's clean rounds in batches
    sizes = [_size(s) for s in sources]
    total = sum(sizes)
    worth_it = jobs > 1 and total >= PARALLEL_MIN_BYTES and all(s.path for s in sources)
    tasks = iter(plan(sources, chunk_sizes(jobs)) if worth_it else ())
    head, known = _peek(tasks, jobs)  # workers never outnumber the tasks
    if known > 1:
        done = [0]

        def advance(n: int) -> None:
            done[0] += n

        fallback = _Fallback(sources, options, note)
        stream = parallel_events(chain(head, tasks), options, reporters, known, advance, fallback)
        return Stream(stream, lambda: done[0] + fallback.consumed(), total)
    readings: list[Reading] = []
    return Stream(events(sources, options, readings), lambda: sum(r.consumed for r in readings), total)


def _peek(tasks: Iterator[Task], jobs: int) -> tuple[list[Task], int]:
    """The first tasks, read until ``jobs`` tasks are known to exist, and how many are
    (at most ``jobs``). A chunk that does not end its file is known to be followed by
    another: the workers start once the first chunk is cut, not the first ``jobs``."""
    head: list[Task] = []
    known = 0
    for task in tasks:
        head.append(task)
        known = len(head) + (task.chunk is not None and task.plan is None)
        if known >= jobs:
            break
    return head, min(known, jobs)


def _size(source: Source) -> int:
    try:
        return source.path.stat().st_size if source.path is not None else 0
    except OSError:
        return 0


def dispatch(stream: Iterable[Item], reporters: list[Reporter], progress: Progress | None = None) -> Summary:
    """Send every event to every reporter; count what the summary needs."""
    summary = Summary()
    inputs: list[InputInfo] = []
    index = GameIndex()  # format 2: two records of one game must agree
    for r in reporters:
        r.start()
    try:
        _feed(stream, reporters, progress, summary, inputs, index)
    finally:  # an interrupt or an error: the stream's workers are ended now, not when collected
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if progress is not None:
        progress.close()
    for r in reporters:
        r.finish(summary, inputs)
    return summary


def _feed(stream: Iterable[Item], reporters: list[Reporter], progress: Progress | None, summary: Summary,
          inputs: list[InputInfo], index: GameIndex) -> None:
    """Each event to each reporter, counting what the summary needs."""
    for event in stream:
        if isinstance(event, GameResult):
            if event.format == 1:  # a round: its format's reporters write it as one
                view = round_view(event)
                for r in reporters:
                    r.take_round(r.round_payload(view))
            else:
                index.see(event.fingerprint)
                for r in reporters:
                    r.take_game(r.game_payload(event))
            if progress is not None:
                progress.tick()
        elif isinstance(event, CleanGames) and event.format == 2:
            for game in event:
                index.see(game.fingerprint)
                for r in reporters:
                    r.take_game(r.clean_game_payload(game))
            if progress is not None:
                progress.tick(len(event))
        elif isinstance(event, RenderedGames):
            for fingerprint in event.fingerprints:
                index.see(fingerprint)
            for r, payload in zip(reporters, event.payloads, strict=True):
                if isinstance(payload, CleanText):
                    r.take_clean(payload)
                else:
                    for one in payload:
                        r.take_game(one)
            if progress is not None:
                progress.tick(len(event.fingerprints))
        elif isinstance(event, (CleanGames, RenderedClean)):
            for r, payload in zip(reporters, event.payloads if isinstance(event, RenderedClean)
                                  else [r.clean_payload(event) for r in reporters], strict=True):
                r.take_clean(payload)
            if progress is not None:
                progress.tick(event.count if isinstance(event, RenderedClean) else len(event))
        elif isinstance(event, RenderedRounds):
            for r, payloads in zip(reporters, event.payloads, strict=True):
                take = r.take_round
                for payload in payloads:
                    take(payload)
            if progress is not None and event.payloads:
                progress.tick(len(event.payloads[0]))
        elif isinstance(event, SessionInfo):
            if event.profile_origin is not None and event.profile_sha256 is not None:
                summary.profiles[str(event.profile_origin)] = event.profile_sha256
            for r in reporters:
                r.session_opened(event)
        elif isinstance(event, SessionResult):
            if event.info.format == 2:
                index.settle(event)
            summary.add(event)
            for f in event.findings:
                summary.count(f)
            for r in reporters:
                r.session_closed(event)
        elif isinstance(event, Finding):
            summary.count(event)
            for r in reporters:
                r.problem(event)
        else:
            inputs.append(event)
            summary.files += 1
            summary.unreadable += not event.readable


# --- in processes -----------------------------------------------------------------


#: A chunk's size by where it starts in its file (``start``) and the file's ``size``.
ChunkSizes = Callable[[int, int], int]


def chunk_sizes(jobs: int) -> ChunkSizes:
    """Chunk sizes for ``jobs`` processes, between ``MIN_CHUNK_BYTES`` and ``CHUNK_BYTES``:
    ramped (a chunk at most half of what precedes it, so that every worker starts within
    a few milliseconds of the pass's start) and guided (at most a ``2 × jobs``-th of
    what is left, so that the last chunks are small and no worker waits long on another's
    last one). The parent's cutting pass is the same whatever the sizes; only the tasks'
    own cost (a few hundred microseconds each) grows with their number."""

    def size_at(start: int, size: int) -> int:
        return max(MIN_CHUNK_BYTES, min(CHUNK_BYTES, (size - start) // (2 * jobs), start // 2))

    return size_at


@dataclass(frozen=True, slots=True)
class Task:
    """A whole input, or one chunk of a JSON Lines file (with the plan of the whole file
    when the chunk ends the file); ``spill``, the descriptor of the nameless file where
    the worker may write its long report texts (see :mod:`referee.report.spill`)."""

    source: Source
    chunk: Chunk | None = None
    identity: Identity | None = None
    plan: Plan | None = None
    size: int = 0
    spill: int | None = None


def plan(sources: list[Source], chunk_bytes: int | ChunkSizes = CHUNK_BYTES) -> Iterator[Task]:
    """One task per input; large JSON Lines files in chunks at session lines, each
    task given as soon as its chunk is cut (the pass that cuts also hashes, and workers
    audit the first chunks while it goes on)."""
    for source in sources:
        assert source.path is not None
        try:
            size = source.path.stat().st_size
            if not source.path.is_file():  # a pipe or a device: never read here (a worker copies it)
                yield Task(source)
                continue
            with source.path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        except OSError:
            yield Task(source)
            continue
        first = chunk_bytes(0, size) if callable(chunk_bytes) else chunk_bytes
        if size > first and b"\x00" not in head and detect_kind(source.name, head) == "jsonl":
            yield from _chunk_tasks(source, size, chunk_bytes)
        else:
            yield Task(source, size=size)


def _chunk_tasks(source: Source, size: int, chunk_bytes: int | ChunkSizes) -> Iterator[Task]:
    """The tasks of one JSON Lines file, each as soon as its chunk is cut (the last one
    carries the whole file's plan, known only at the end of the pass)."""
    assert source.path is not None
    try:
        cuts = cut_jsonl(source.path, chunk_bytes)
        identity = next(cuts)
    except OSError:  # not even opened: a worker reads it whole and says why
        yield Task(source, size=size)
        return
    assert isinstance(identity, Identity)
    for item in cuts:
        if isinstance(item, Plan):
            last = item.chunks[-1]
            yield Task(source, last, identity, item, last.size)
            return
        assert isinstance(item, Chunk)
        yield Task(source, item, identity, None, item.size)


@dataclass(frozen=True, slots=True)
class _ChunkDone:
    """What the parent needs of a chunk once audited: was it read in full, the CRC-32
    of the bytes the worker parsed, and did the worker see the file change."""

    fatal: bool
    check: str
    changed: bool


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


def run_task(task: Task) -> list[Item | _ChunkDone]:
    """Audit one task in a worker; rounds come back as payloads."""
    reporters = _REPORTERS
    if task.chunk is None:
        events: Iterator[Event] = audit_reading(Reading(task.source), _OPTIONS)
        reading = None
    else:
        reading = Reading(task.source, task.chunk.span, task.identity)
        events = audit_records(read_input(reading), _OPTIONS)
    out: list[Item | _ChunkDone] = []
    _render(events, reporters, out, SpillFile(task.spill) if task.spill is not None else None)
    if reading is not None:
        out.append(_ChunkDone(reading.fatal, reading.sha256, reading.changed))
    return out


def _render(events: Iterator[Event], reporters: list[Reporter], out: list[Item | _ChunkDone],
            spill: SpillFile | None) -> None:
    """A task's events as they travel back: runs of rounds and of games as their
    reporters' payloads, long report texts in the spill file."""
    run: tuple[list[Any], ...] | None = None  # the payloads of the current run of rounds
    games: RenderedGames | None = None  # the current run of games
    for event in events:
        if isinstance(event, (GameResult, CleanGames)) and event.format == 2:
            if games is None:
                games = RenderedGames([[] for _ in reporters], [])
                out.append(games)
            for game in event if isinstance(event, CleanGames) else (event,):
                for r, payloads in zip(reporters, games.payloads, strict=True):
                    payloads.append(r.clean_game_payload(game) if isinstance(game, CleanGame)
                                    else r.game_payload(game))
                games.fingerprints.append(game.fingerprint)
            continue
        if games is not None:
            _join(games, reporters, spill)
            games = None
        if isinstance(event, GameResult):  # a round
            if run is None:
                run = tuple([] for _ in reporters)
                out.append(RenderedRounds(run))
            view = round_view(event)
            for r, payloads in zip(reporters, run, strict=True):
                payloads.append(r.round_payload(view))
            continue
        run = None
        if isinstance(event, CleanGames):
            payloads = [r.clean_payload(event) for r in reporters]
            batch = tuple(_spilled(p, spill) if r.spills and isinstance(p, CleanText) else p
                          for r, p in zip(reporters, payloads, strict=True))
            out.append(RenderedClean(batch, len(event)))
        else:
            out.append(event)
    if games is not None:
        _join(games, reporters, spill)


def _join(games: RenderedGames, reporters: list[Reporter], spill: SpillFile | None) -> None:
    """A run of games' texts as one, for the formats that take them so (spilled when long).

    Only an ASCII text (``isascii`` costs nothing): one that the report's stream cannot
    encode (a character outside a standard output's non-UTF-8 encoding) fails where it
    fails in one process only if its games are written one by one; joined, it failed
    before the first of them, and the report written up to there differed."""
    for i, r in enumerate(reporters):
        texts = games.payloads[i]
        if r.spills and all(type(t) is str and t.isascii() for t in texts):
            joined = spill.put_joined(texts, ",\n") if spill is not None else ",\n".join(texts)
            games.payloads[i] = CleanText(len(texts), joined)


def _spilled(payload: CleanText, spill: SpillFile | None) -> CleanText:
    """A batch's text as it travels back: in the spill file when long enough (and when it
    encodes: :meth:`SpillFile.put`), else itself."""
    if spill is None or not isinstance(payload.text, str):
        return payload
    return CleanText(payload.count, spill.put(payload.text))


class _Fallback:
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
                    on_bytes: Callable[[int], None] | None = None,
                    fallback: _Fallback | None = None) -> Iterator[Item]:
    """Every event of every task (see :func:`plan`), in order, audited by ``jobs`` processes.

    Each worker makes the evaluator's tables on its first deal (18 ms each from the shipped
    file, the two at once on two cores): made here before forking, to be shared, they were
    18 ms that no worker could start before. At ``--jobs 2`` the CPU measured the same
    (each worker copied the shared tables' pages on first use anyway); it grows by 18 ms a
    further worker (bench/RESULTS.md)."""
    spills = _Spills(2 * jobs + 1)  # made before the workers are forked: they inherit them
    try:
        yield from _parallel(tasks, options, reporters, jobs, on_bytes, fallback, spills)
    finally:
        spills.close()


def _parallel(tasks: Iterable[Task], options: Options, reporters: list[Reporter], jobs: int,
              on_bytes: Callable[[int], None] | None, fallback: _Fallback | None, spills: _Spills) -> Iterator[Item]:
    # Ctrl-C and SIGTERM are held back while the workers are forked (they inherit the
    # mask, ignore SIGINT, then unblock both), so that none is interrupted before it can
    # ignore Ctrl-C, and the pool is whole when the parent unwinds.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    pending: deque[tuple[Task, Future[list[Item | _ChunkDone]]]] = deque()
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
        yield from _collect(pool, pending, queue, on_bytes, spills)
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


def _collect(pool: ProcessPoolExecutor, pending: deque[tuple[Task, Future[list[Item | _ChunkDone]]]],
             queue: Iterator[Task], on_bytes: Callable[[int], None] | None, spills: _Spills) -> Iterator[Item]:
    unreadable = False
    changed = False
    while pending:
        task, future = pending.popleft()
        following = next(queue, None)
        if following is not None:
            pending.append((following, pool.submit(run_task, following)))
        for event in future.result():
            if isinstance(event, _ChunkDone):
                assert task.chunk is not None
                unreadable |= event.fatal
                if (event.changed or event.check != task.chunk.check) and not changed:
                    changed = unreadable = True
                    yield _changed(task)
            else:
                yield event
        spills.done(task)
        if on_bytes is not None:
            on_bytes(task.size)
        if task.plan is not None:
            yield from _close_file(task, task.plan, unreadable, changed)
            unreadable = changed = False


def _close_file(task: Task, whole: Plan, unreadable: bool, changed: bool) -> Iterator[Event]:
    """The last chunk of a file is in: make sure the file is still the one planned."""
    assert task.source.path is not None
    try:
        now = Identity.of(task.source.path.stat())
    except OSError:
        now = None
    if now != whole.identity and not changed:
        unreadable = True
        yield _changed(task)
    yield InputInfo(task.source.name, "jsonl", whole.size, whole.sha256, not unreadable)


def _changed(task: Task) -> Finding:
    assert task.identity is not None
    return Finding(codes.H000, changed_message(task.identity.size), task.source.name, 0)


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
