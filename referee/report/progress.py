"""A progress line on stderr for long audits: rounds done, rounds per second, ETA.

Only on a terminal and only with the human formats: a machine format's consumer, or
a log file, must never receive carriage returns. The line is redrawn at most five
times a second, so that it costs nothing next to the audit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """``rounds`` counted by the caller; ``done_bytes()`` says how far through the input."""

    INTERVAL = 0.2

    def __init__(self, stream: TextIO, total_bytes: int, done_bytes: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.total = total_bytes
        self.done_bytes = done_bytes
        self.clock = clock
        self.start = clock()
        self.last = self.start
        self.rounds = 0
        self.drawn = False

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
        return text

    def draw(self, now: float) -> None:
        self.stream.write("\r" + self.line(now).ljust(72) + "\r")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 72 + "\r")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
