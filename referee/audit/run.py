"""Driving an audit: sources in, events to reporters, a summary out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..load.sources import Source
from ..report.base import Reporter
from .checker import Event, Options, audit_source
from .results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary


def events(sources: Iterable[Source], options: Options) -> Iterator[Event]:
    for source in sources:
        yield from audit_source(source, options)


def dispatch(stream: Iterable[Event], reporters: list[Reporter]) -> Summary:
    """Send every event to every reporter; count what the summary needs."""
    summary = Summary()
    inputs: list[InputInfo] = []
    for r in reporters:
        r.start()
    for event in stream:
        if isinstance(event, RoundResult):
            for r in reporters:
                r.round(event)
        elif isinstance(event, SessionInfo):
            if event.profile_origin is not None and event.profile_sha256 is not None:
                summary.profiles[event.profile_origin] = event.profile_sha256
            for r in reporters:
                r.session_opened(event)
        elif isinstance(event, SessionResult):
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
    for r in reporters:
        r.finish(summary, inputs)
    return summary
