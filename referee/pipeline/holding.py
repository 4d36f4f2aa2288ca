"""A format-1 session held back in the parent until its close says whether it is a repeat.

Why: a session whose id was seen before may be the same session given again (``S010``:
not said, counted or stored again) or another record under that id (``S011``: audited
like any other), and only its close tells (its digest is whole at its end,
:class:`referee.audit.duplicates.SessionIndex`). Its items are already its reporters'
payloads (made where it was audited, or here, as a worker would have made them), so what
is held is what would have been written; past :data:`HOLD_ROUNDS` rounds they go to a
nameless temporary file, so a long session given twice costs disk, not memory.

The items held are consumed when the session closes, before the parent asks its stream
for the next item: a worker's spill file (:mod:`referee.report.spill`) the items point
into is handed to another task only after that.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator
from contextlib import suppress
from typing import Any

from ..report.spill import nameless_file
from .audit import SessionInfo

#: Rounds held in memory before they go to the file.
HOLD_ROUNDS = 4096


class Held:
    """A session's opening and its items since, in order (see the module)."""

    def __init__(self, info: SessionInfo, limit: int | None = None) -> None:
        self.info = info
        self.limit = HOLD_ROUNDS if limit is None else limit
        self.items: list[Any] = []
        self.rounds = 0
        self.fd: int | None = None
        #: Where each batch written to the file is: (offset, size).
        self.written: list[tuple[int, int]] = []
        self.end = 0
        self.broken = False

    def add(self, item: Any, rounds: int) -> None:
        self.items.append(item)
        self.rounds += rounds
        if self.rounds >= self.limit and not self.broken:
            self._write()

    def _write(self) -> None:
        """The items so far to the file (kept in memory when no file can be written)."""
        try:
            if self.fd is None:
                self.fd = nameless_file()
            data = pickle.dumps(self.items, pickle.HIGHEST_PROTOCOL)
            done = 0
            while done < len(data):
                done += os.pwrite(self.fd, data[done:], self.end + done)
        except OSError:
            self.broken = True  # a full disk: the rest stays in memory
            return
        self.written.append((self.end, len(data)))
        self.end += len(data)
        self.items, self.rounds = [], 0

    def __iter__(self) -> Iterator[Any]:
        """Every item held, in order, read back from the file first."""
        for offset, size in self.written:
            assert self.fd is not None
            data = b""
            while len(data) < size:
                more = os.pread(self.fd, size - len(data), offset + len(data))
                if not more:
                    raise OSError("a held session's file ended early")
                data += more
            yield from pickle.loads(data)
        yield from self.items

    def close(self) -> None:
        self.items, self.written = [], []
        if self.fd is not None:
            with suppress(OSError):
                os.close(self.fd)
            self.fd = None
