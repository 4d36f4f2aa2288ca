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


class Steps:
    """Progress of counted work (decisions valued, flop classes counted) on stderr.

    Why also without a terminal: a CI job or a log shows nothing for minutes otherwise,
    and a silent command looks hung. On a terminal the line is redrawn (at most five
    times a second, erased at the end); elsewhere a plain line is written every
    ``every`` seconds, never a carriage return, and nothing at all for work that ends
    sooner."""

    def __init__(self, stream: TextIO, label: str, total: int, terminal: bool | None = None,
                 every: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.label = label
        self.total = total
        self.terminal = stream.isatty() if terminal is None else terminal
        self.every = Progress.INTERVAL if self.terminal else every
        self.clock = clock
        self.start = self.last = clock()
        self.done = 0
        self.drawn = False

    def update(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            self.draw(now)

    def line(self, now: float) -> str:
        elapsed = now - self.start
        text = f"referee: {self.label}: {self.done:,} of {self.total:,}"
        if self.total and 0 < self.done <= self.total:
            left = elapsed * (self.total - self.done) / self.done
            text += f" ({self.done / self.total:.0%}), {_clock(elapsed)} elapsed, about {_clock(left)} left"
        return text

    def draw(self, now: float) -> None:
        if self.terminal:
            self.stream.write("\r" + self.line(now).ljust(72) + "\r")
            self.drawn = True
        else:
            self.stream.write(self.line(now) + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 72 + "\r")
            self.stream.flush()
            self.drawn = False
