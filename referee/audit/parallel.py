"""``--jobs N``: audit files, and chunks of large JSON Lines files, in N processes.

Why payloads: shipping every audited round back to the parent costs more than
auditing it (a round unpickles in ~90 µs, audits in ~55 µs). So each worker also
runs the reporters' pure ``round_payload`` (a ready JSON line, a ledger row) and
sends only that; session openings and closings, findings and input digests are few
and travel whole. The parent feeds everything to the reporters in file order, so the
report is byte-identical to the one-process report.

A JSON Lines file larger than ``CHUNK_BYTES`` is cut at session lines
(:func:`referee.load.sources.split_jsonl`): a session never spans two chunks, so each
chunk audits exactly as it would in the whole file, with the same line numbers.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..load.sources import Chunk, Source, detect_kind, read_chunk, split_jsonl
from ..report.base import Reporter
from .checker import Event, Options, audit_records, audit_source
from .results import InputInfo, RoundResult
from .table import GameFingerprint, GameResult

CHUNK_BYTES = 8 * 1024 * 1024
MIN_CHUNK_BYTES = 256 * 1024


def chunk_bytes_for(total: int, jobs: int) -> int:
    """About eight chunks a process, so that none waits long on the last ones."""
    return max(MIN_CHUNK_BYTES, min(CHUNK_BYTES, total // (8 * jobs) or 1))


@dataclass(frozen=True, slots=True)
class Rendered:
    """One round as the reporters keep it: a payload per reporter, in their order."""

    payloads: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class RenderedGame:
    """One format-2 game as the reporters keep it, and what two records of it must share."""

    payloads: tuple[Any, ...]
    fingerprint: GameFingerprint


@dataclass(slots=True)
class Task:
    """A whole input, or one chunk of a JSON Lines file (``last`` says it ends the file)."""

    source: Source
    chunk: Chunk | None = None
    last: bool = True

    @property
    def size(self) -> int:
        if self.chunk is None:
            return self.source.size
        return self.chunk.end - self.chunk.start


ReporterSpec = tuple[type[Reporter], bool, bool]


def plan(sources: list[Source], chunk_bytes: int = CHUNK_BYTES) -> list[Task]:
    """One task per input; large JSON Lines files in chunks at session lines."""
    tasks: list[Task] = []
    for source in sources:
        if source.path is None:
            tasks.append(Task(source))
            continue
        try:
            source.size = source.path.stat().st_size
            with source.path.open("rb") as fh:
                head = fh.read(4096)
        except OSError:
            tasks.append(Task(source))
            continue
        if source.size > chunk_bytes and b"\x00" not in head and detect_kind(source.name, head) == "jsonl":
            chunks = split_jsonl(source, chunk_bytes)
            tasks.extend(Task(source, c, i == len(chunks) - 1) for i, c in enumerate(chunks))
        else:
            tasks.append(Task(source))
    return tasks


def run_task(task: Task, options: Options, specs: list[ReporterSpec]) -> list[Event | Rendered | RenderedGame]:
    """Audit one task in a worker; rounds come back as payloads."""
    reporters = [cls(None, quiet=quiet, strict=strict) for cls, quiet, strict in specs]  # type: ignore[arg-type]
    if task.chunk is None:
        events: Iterator[Event] = audit_source(task.source, options)
    else:
        events = audit_records(read_chunk(task.source, task.chunk), options)
    out: list[Event | Rendered | RenderedGame] = []
    for event in events:
        if isinstance(event, RoundResult):
            out.append(Rendered(tuple(r.round_payload(event) for r in reporters)))
        elif isinstance(event, GameResult):
            out.append(RenderedGame(tuple(r.game_payload(event) for r in reporters), event.fingerprint))
        else:
            out.append(event)
    if task.chunk is not None:
        out.append(_ChunkDone(task.source.name, any(p.fatal for p in task.source.problems)))  # type: ignore[arg-type]
    return out


@dataclass(frozen=True, slots=True)
class _ChunkDone:
    name: str
    fatal: bool


def parallel_events(
    tasks: list[Task], options: Options, reporters: list[Reporter], jobs: int,
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[Event | Rendered | RenderedGame]:
    """Every event of every task (see :func:`plan`), in order, audited by ``jobs`` processes."""
    from ..load.sources import digest
    from ..rules.evaluator import tables

    tables()  # built once here, shared with the forked workers
    specs: list[ReporterSpec] = [(type(r), r.quiet, r.strict) for r in reporters]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: deque[tuple[Task, Future[list[Event | Rendered | RenderedGame]]]] = deque()
        queue = iter(tasks)
        for task in queue:
            pending.append((task, pool.submit(run_task, task, options, specs)))
            if len(pending) >= 2 * jobs:
                break
        unreadable: dict[str, bool] = {}
        while pending:
            task, future = pending.popleft()
            following = next(queue, None)
            if following is not None:
                pending.append((following, pool.submit(run_task, following, options, specs)))
            for event in future.result():
                if isinstance(event, _ChunkDone):
                    unreadable[event.name] = unreadable.get(event.name, False) or event.fatal
                else:
                    yield event
            if on_bytes is not None:
                on_bytes(task.size)
            if task.chunk is not None and task.last:
                digest(task.source)
                yield InputInfo(task.source.name, "jsonl", task.source.size, task.source.sha256,
                                not unreadable.get(task.source.name, False))
