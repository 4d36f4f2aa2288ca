"""A progress line on stderr for long audits: rounds done, rounds per second, ETA, and
for an audit in tasks (``--jobs``, ``--cluster``) the tasks done of those planned.

Only on a terminal and only with the human formats: a machine format's consumer, or
a log file, must never receive carriage returns. The line is redrawn at most five
times a second, so that it costs nothing next to the audit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """``rounds`` counted by the caller; ``done_bytes()`` says how far through the input;
    ``tasks()``, when given, the tasks done and those planned so far."""

    INTERVAL = 0.2

    def __init__(self, stream: TextIO, total_bytes: int, done_bytes: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic,
                 tasks: Callable[[], tuple[int, int]] | None = None) -> None:
        self.stream = stream
        self.tasks = tasks
        self.total = total_bytes
        self.done_bytes = done_bytes
        self.clock = clock
        self.start = clock()
        self.last = self.start
        self.rounds = 0
        self.drawn = False
        self.width = 72  # the widest line drawn: what ``close`` clears

    def tick(self, rounds: int = 1) -> None:
        self.rounds += rounds
        if self.rounds % 256 == 0 or rounds > 1:
            now = self.clock()
            if now - self.last >= self.INTERVAL:
                self.last = now
                self.draw(now)

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = self.rounds / elapsed
        text = f"referee: {self.rounds:,} rounds, {rate:,.0f} rounds/s"
        done = self.done_bytes()
        if self.total and 0 < done <= self.total:
            fraction = done / self.total
            remaining = elapsed * (1 - fraction) / fraction
            text += f", {fraction:.0%}, ETA {_clock(remaining)}"
        if self.tasks is not None:
            finished, planned = self.tasks()
            text += f", {finished:,} of {planned:,} tasks"
        return text

    def draw(self, now: float) -> None:
        line = self.line(now)
        self.width = max(self.width, len(line))
        self.stream.write("\r" + line.ljust(self.width) + "\r")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
