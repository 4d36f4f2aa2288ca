"""``stats --since/--until/--table/--dealer``: the audit's events of the window, table
and dealer asked for, from files or from a store.

Why apart from :mod:`referee.store.rows`: it makes no row; it filters the events as they
stream (a store's replayed ones or a file's), by the times the rows are ordered by
(:func:`~referee.store.rows.epoch_us`). The audit's types are imported from
:mod:`referee.store.rows`, as the writer's are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .rows import GameResult, SessionInfo, epoch_us


@dataclass(slots=True)
class Span:
    """What a selection met: how many rounds and games (``met``) and how many it kept,
    how many had no time, the earliest and latest time (microseconds since 1970 UTC):
    a window that keeps nothing is then said with the times there were."""

    met: int = 0
    kept: int = 0
    untimed: int = 0
    first: int | None = None
    last: int | None = None


def selected(events: Iterable[Any], since: datetime | None = None, until: datetime | None = None,
             table: str | None = None, dealer: str | None = None,
             seen: dict[str, set[str]] | None = None, span: Span | None = None) -> Iterable[Any]:
    """The events, but the rounds and games outside the window (``since`` and
    ``until`` included; a round without a time is outside any window), the table or the
    dealer asked for: what ``stats --since/--until/--table/--dealer`` describes.
    ``seen``: filled with the tables and dealers the games had (a name asked for that
    none had is then said, with the nearest one); ``span``: with what was met and kept."""
    if since is None and until is None and table is None and dealer is None:
        yield from events
        return
    low, high = epoch_us(since), epoch_us(until)
    tables: dict[str, str | None] = {}
    seen = seen if seen is not None else {}
    span = span if span is not None else Span()
    for event in events:
        if isinstance(event, SessionInfo):
            tables[event.id] = event.table if event.format == 2 else None
        elif isinstance(event, GameResult):
            if event.format == 1:
                record = event.record
                when, by = (record.time if record is not None else None), None
            else:
                game = event.record
                when = (game.settled or game.started) if game is not None else None
                by = game.dealer_id if game is not None else None
            at = tables.get(event.session)
            if at is not None:
                seen.setdefault("table", set()).add(at)
            if by is not None:
                seen.setdefault("dealer", set()).add(by)
            stamp = epoch_us(when)
            span.met += 1
            if stamp is None:
                span.untimed += 1
            else:
                span.first = stamp if span.first is None else min(span.first, stamp)
                span.last = stamp if span.last is None else max(span.last, stamp)
            early = low is not None and (stamp is None or stamp < low)
            if early or (high is not None and (stamp is None or stamp > high)):
                continue
            if table is not None and at != table:
                continue
            if dealer is not None and by != dealer:
                continue
            span.kept += 1
        yield event
