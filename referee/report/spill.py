"""Report text a worker process wrote to a file instead of sending it back (``--jobs``).

Why: under ``--jobs`` the parent is the one process whose work the cores do not share.
A batch of clean rounds is mostly report text (about 290 bytes a round in JSON): sent
back through a pipe, the parent unpickled it, encoded it and wrote it, and the worker
waited on the pipe until the parent read it. Instead the worker encodes the text and
writes it to its task's spill file, and sends only where it is (:class:`Spilled`); the
parent copies those bytes into the report in the kernel (``os.sendfile``) when the
report is a UTF-8 stream with a file descriptor, and reads and writes them otherwise.

The bytes are those the text encodes to in UTF-8, as the report's own stream would have
written them: a text that does not encode (a lone surrogate read from an input) is
never spilled, so the parent meets it and fails exactly as in one process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TextIO

#: Shorter texts travel back as they are: a file costs more than it saves on them.
SPILL_MIN_CHARS = 16 * 1024


@dataclass(frozen=True, slots=True)
class Spilled:
    """``size`` bytes of UTF-8 text at ``offset`` of the spill file ``path``."""

    path: str
    offset: int
    size: int

    def read(self) -> str:
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            return fh.read(self.size).decode("utf-8")


@dataclass(frozen=True, slots=True)
class CleanText:
    """What a streaming text format keeps of a batch of clean rounds: how many rounds,
    and their text (written in this process, or spilled by a worker)."""

    count: int
    text: str | Spilled


def write_text(out: TextIO, text: str | Spilled) -> None:
    """Write ``text`` to ``out``: a spilled one in the kernel when ``out`` can take it
    (see :meth:`referee.output.GuardedWriter.copy_from`), else read and written."""
    if isinstance(text, str):
        out.write(text)
        return
    copy = getattr(out, "copy_from", None)
    if copy is None or not copy(text.path, text.offset, text.size):
        out.write(text.read())


class SpillFile:
    """A worker's spill file for one task: opened on the first text long enough to be
    worth it, written in order from its start, closed at the end of the task. The parent
    hands the same few files to task after task (writing over a file's pages costs less
    than freeing them and faulting new ones in), and removes them at the end."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._offset = 0
        self._broken = False

    def put(self, text: str) -> str | Spilled:
        """``text`` as it travels back: spilled, or itself when it is short, does not
        encode, or the file cannot be written (a full disk: the pipe still works)."""
        if len(text) < SPILL_MIN_CHARS or self._broken:
            return text
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return text
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            view, at = memoryview(data), self._offset
            while view:
                written = os.pwrite(self._fd, view, at)
                view, at = view[written:], at + written
        except OSError:
            self._broken = True  # what is already spilled stays valid; the rest travels back
            return text
        spilled = Spilled(self.path, self._offset, len(data))
        self._offset += len(data)
        return spilled

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
