"""The pipeline: inputs → readers → audit → reporters, in one process, in ``--jobs N``
processes (:mod:`.processes`) or on a Dask cluster's workers (``--cluster``, :mod:`.cluster`).

Above both :mod:`referee.audit` and :mod:`referee.report` (the audit knows nothing of
reports). Every reporter takes a round the same way: ``round_payload`` where the round
was audited, ``take_round`` in file order in this process. In one process the two run
back to back; in tasks (:mod:`.tasks`: a file, or a chunk of a large JSON Lines file cut
at session lines) the payload is computed where the task runs and only it travels back;
runs of rounds and of games travel as one object. Session openings and closings,
findings and input digests are few and travel whole. The parent feeds everything to the
reporters in plan order (:mod:`.merge`), so the report is byte-identical to the
one-process report, whatever ran the tasks.

Why so: with N workers on N cores and the parent beside them, the run is CPU-bound, so
what the parallel run spends beyond the one-process run (the parent's cutting pass,
receiving, forking) is what it loses; bench/RESULTS.md has the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..load.inputs import Source
from ..load.reading import Reading
from ..report.base import Reporter
from .audit import Options
from .merge import Item, RenderedClean, RenderedGames, RenderedRounds, Stream, dispatch
from .processes import Fallback, PipelineError, events, parallel_events, run_task
from .tasks import CHUNK_BYTES, MIN_CHUNK_BYTES, Task, chunk_sizes, plan
from .tracking import Tracker, size_of

__all__ = [
    "CHUNK_BYTES", "MIN_CHUNK_BYTES", "PARALLEL_MIN_BYTES", "Item", "PipelineError", "RenderedClean",
    "RenderedGames", "RenderedRounds", "Stream", "Task", "audit_stream", "chunk_sizes", "dispatch", "events",
    "parallel_events", "plan", "run_task",
]

#: Below this many bytes in all, processes cost more than they save.
PARALLEL_MIN_BYTES = 1 << 20


def audit_stream(sources: list[Source], options: Options, reporters: list[Reporter], jobs: int,
                 note: Callable[[str], None] | None = None, cluster: str | None = None) -> Stream:
    """The events of an audit, in processes when it pays (``note`` hears why not when
    they cannot start), or on the Dask cluster at ``cluster`` (``tcp://HOST:PORT``, or
    ``local:N``: see :mod:`referee.pipeline.cluster`), connected and checked now."""
    options = replace(options, batches=True)  # dispatch takes the lane's clean rounds in batches
    total = sum(size_of(s) for s in sources)
    if cluster is not None:
        from .cluster import cluster_stream  # Dask is imported only when asked for

        return cluster_stream(sources, options, reporters, cluster, total)
    # Exports (--mapping) are audited in this process: their games are made by the mapping
    # as they are read, and a JSON page is one document (no chunk to cut).
    worth_it = jobs > 1 and total >= PARALLEL_MIN_BYTES and all(s.path for s in sources) and options.mapping is None
    tracker = Tracker(plan(sources, chunk_sizes(jobs)) if worth_it else iter(()))
    head, known = tracker.peek(jobs)  # workers never outnumber the tasks
    if known > 1:
        fallback = Fallback(sources, options, note)
        stream = parallel_events(tracker.tasks(head), options, reporters, known, tracker.done, fallback)
        return Stream(stream, lambda: tracker.bytes_done + fallback.consumed(), total, tracker.progress)
    readings: list[Reading] = []
    return Stream(events(sources, options, readings), lambda: sum(r.consumed for r in readings), total)
