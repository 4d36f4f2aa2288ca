"""Where an audit in tasks stands: tasks planned so far (the plan is cut as it goes),
tasks done, input bytes done; for the progress line and the choice of how many workers."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from ..load.inputs import Source
from .tasks import Task


def size_of(source: Source) -> int:
    """The input's size in bytes as it is now (0 for standard input or what cannot be seen)."""
    try:
        return source.path.stat().st_size if source.path is not None else 0
    except OSError:
        return 0


class Tracker:
    """The plan's tasks as they are cut, counted; :meth:`done` once one's events are in."""

    def __init__(self, tasks: Iterator[Task]) -> None:
        self._tasks = self._counted(tasks)
        self.planned = 0
        self.finished = 0
        self.bytes_done = 0
        self.complete = False

    def _counted(self, tasks: Iterator[Task]) -> Iterator[Task]:
        for task in tasks:
            self.planned += 1
            yield task
        self.complete = True

    def peek(self, jobs: int) -> tuple[list[Task], int]:
        """The first tasks, read until ``jobs`` tasks are known to exist, and how many are
        (at most ``jobs``). A chunk that does not end its file is known to be followed by
        another: the workers start once the first chunk is cut, not the first ``jobs``."""
        head: list[Task] = []
        known = 0
        for task in self._tasks:
            head.append(task)
            known = len(head) + (task.chunk is not None and task.plan is None)
            if known >= jobs:
                break
        return head, min(known, jobs)

    def tasks(self, head: list[Task]) -> Iterator[Task]:
        """Every task: ``head`` (from :meth:`peek`), then the rest as they are cut."""
        return chain(head, self._tasks)

    def done(self, task: Task) -> None:
        self.finished += 1
        self.bytes_done += task.size

    def close(self) -> None:
        """Stop the plan: the file its cutting pass has open is closed now."""
        close = getattr(self._tasks, "close", None)
        if close is not None:
            close()

    def progress(self) -> tuple[int, int]:
        """Tasks done, and tasks planned so far."""
        return self.finished, self.planned
