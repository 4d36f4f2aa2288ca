"""The plan of an audit in tasks, a task's audit where it runs, and its results taken
back in plan order: what ``--jobs`` (processes) and ``--cluster`` (machines) share.

A task is a whole input, or a chunk of a large JSON Lines file cut at session lines
(:mod:`referee.load.chunking`), so that it audits alone exactly as inside the whole
file. The parent's one pass over such a file cuts it and hashes it (the whole file's
SHA-256, the one reported, and each chunk's CRC-32); a task's worker reports the CRC-32
of the bytes it parsed, and :class:`InOrder` compares the two, so that the digest a
report states is of the bytes audited, and a file that changed is refused (``H000``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..load.chunking import Chunk, Plan, cut_jsonl
from ..load.compressed import compression_of
from ..load.inputs import HEAD_BYTES, Identity, Source
from ..load.readers import detect_kind
from ..load.readers import read as read_input
from ..load.reading import Reading, changed_message
from ..models import codes
from ..report.base import Reporter
from ..report.spill import CleanText, SpillFile
from .audit import (
    CleanGames,
    Event,
    Finding,
    GameResult,
    InputInfo,
    Options,
    audit_reading,
    audit_records,
    round_view,
)
from .merge import Item, RenderedClean, RenderedGames, RenderedRounds

CHUNK_BYTES = 8 * 1024 * 1024
MIN_CHUNK_BYTES = 256 * 1024

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
        if size > first and b"\x00" not in head and compression_of(head) is None \
                and detect_kind(source.name, head) == "jsonl":  # a compressed log is read whole, in one pass
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
class ChunkDone:
    """What the parent needs of a chunk once audited: was it read in full, the CRC-32
    of the bytes the worker parsed, and did the worker see the file change."""

    fatal: bool
    check: str
    changed: bool


def audit_task(task: Task, reporters: list[Reporter], options: Options, spill: SpillFile | None = None,
               tap: Callable[[Iterator[Event]], Iterator[Event]] | None = None) -> list[Item | ChunkDone]:
    """Audit one task where it runs; rounds and games come back as their reporters'
    payloads (``reporters``' pure ``*_payload`` methods), a chunk's last item its
    :class:`ChunkDone`. A chunk's file must still be ``task.identity`` while it is read
    (none: the file as the worker opened it). ``tap`` sees the events first (a sink)."""
    if task.chunk is None:
        events: Iterator[Event] = audit_reading(Reading(task.source), options)
        reading = None
    else:
        reading = Reading(task.source, task.chunk.span, task.identity)
        events = audit_records(read_input(reading), options)
    out: list[Item | ChunkDone] = []
    _render(events if tap is None else tap(events), reporters, out, spill)
    if reading is not None:
        out.append(ChunkDone(reading.fatal, reading.sha256, reading.changed))
    return out


def _render(events: Iterator[Event], reporters: list[Reporter], out: list[Item | ChunkDone],
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
            for r, payloads in zip(reporters, games.payloads, strict=True):
                if isinstance(event, CleanGames):
                    payloads += r.clean_games_payload(event)
                else:
                    payloads.append(r.game_payload(event))
            games.fingerprints += [game.fingerprint for game in event] if isinstance(event, CleanGames) \
                else [event.fingerprint]
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


class InOrder:
    """The tasks' results taken back in plan order, whatever ran them: each chunk's
    CRC-32 against the plan's (a file that changed is one ``H000``, and unreadable),
    and a file's input line once its last chunk is in."""

    def __init__(self) -> None:
        self.unreadable = False
        self.changed = False

    def take(self, task: Task, items: Iterable[Item | ChunkDone]) -> Iterator[Item]:
        """``task``'s events, in order, once its worker is done."""
        for event in items:
            if isinstance(event, ChunkDone):
                assert task.chunk is not None
                self.unreadable |= event.fatal
                if (event.changed or event.check != task.chunk.check) and not self.changed:
                    self.changed = self.unreadable = True
                    yield changed(task)
            else:
                yield event
        if task.plan is not None:
            yield from close_file(task, task.plan, self.unreadable, self.changed)
            self.unreadable = self.changed = False


def close_file(task: Task, whole: Plan, unreadable: bool, changed_: bool) -> Iterator[Event]:
    """The last chunk of a file is in: make sure the file is still the one planned."""
    assert task.source.path is not None
    try:
        now = Identity.of(task.source.path.stat())
    except OSError:
        now = None
    if now != whole.identity and not changed_:
        unreadable = True
        yield changed(task)
    yield InputInfo(task.source.name, "jsonl", whole.size, whole.sha256, not unreadable)


def changed(task: Task) -> Finding:
    """The finding of a file that changed while it was audited."""
    assert task.identity is not None
    return Finding(codes.H000, changed_message(task.identity.size), task.source.name, 0)
