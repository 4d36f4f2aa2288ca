"""Driving an audit: sources in, events to reporters, a summary out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..load.sources import Source
from ..report.base import Reporter
from ..report.progress import Progress
from .checker import Event, Options, audit_source
from .parallel import Rendered, RenderedGame
from .results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from .table import GameIndex, GameResult, TableSessionResult


def events(sources: Iterable[Source], options: Options) -> Iterator[Event]:
    for source in sources:
        yield from audit_source(source, options)


PARALLEL_MIN_BYTES = 1 << 20


def audit_stream(sources: list[Source], options: Options, reporters: list[Reporter],
                 jobs: int) -> tuple[Iterator[Event | Rendered | RenderedGame], Callable[[], int], int]:
    """The events of an audit (in processes when it pays), a callable saying how many
    input bytes are done, and the total bytes."""
    from .parallel import chunk_bytes_for, parallel_events, plan

    sizes = [_size(s) for s in sources]
    total = sum(sizes)
    worth_it = jobs > 1 and total >= PARALLEL_MIN_BYTES and all(s.path for s in sources)
    tasks = plan(sources, chunk_bytes_for(total, jobs)) if worth_it else []
    if len(tasks) > 1:
        done = [0]

        def advance(n: int) -> None:
            done[0] += n

        return parallel_events(tasks, options, reporters, jobs, advance), lambda: done[0], total
    return events(sources, options), lambda: sum(s.consumed for s in sources), total


def _size(source: Source) -> int:
    try:
        return source.path.stat().st_size if source.path is not None else 0
    except OSError:
        return 0


def dispatch(stream: Iterable[Event | Rendered | RenderedGame], reporters: list[Reporter],
             progress: Progress | None = None) -> Summary:
    """Send every event to every reporter; count what the summary needs."""
    summary = Summary()
    inputs: list[InputInfo] = []
    index = GameIndex()  # format 2: two records of one game must agree
    for r in reporters:
        r.start()
    for event in stream:
        if isinstance(event, (GameResult, RenderedGame)):
            index.see(event.fingerprint)
            for r, payload in zip(reporters, event.payloads if isinstance(event, RenderedGame)
                                  else [r.game_payload(event) for r in reporters], strict=True):
                r.take_game(payload)
            if progress is not None:
                progress.tick()
        elif isinstance(event, Rendered):
            for r, payload in zip(reporters, event.payloads, strict=True):
                r.take_round(payload)
            if progress is not None:
                progress.tick()
        elif isinstance(event, RoundResult):
            for r in reporters:
                r.round(event)
            if progress is not None:
                progress.tick()
        elif isinstance(event, SessionInfo):
            if event.profile_origin is not None and event.profile_sha256 is not None:
                summary.profiles[str(event.profile_origin)] = event.profile_sha256
            for r in reporters:
                r.session_opened(event)
        elif isinstance(event, SessionResult):
            if isinstance(event, TableSessionResult):
                index.settle(event)
                summary.add_table(event, event.games)
            else:
                summary.add_session(event)
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
    if progress is not None:
        progress.close()
    for r in reporters:
        r.finish(summary, inputs)
    return summary
