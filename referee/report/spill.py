"""Report text a worker process wrote to a file instead of sending it back (``--jobs``).

Why: under ``--jobs`` the parent is the one process whose work the cores do not share.
A batch of clean rounds is mostly report text (about 290 bytes a round in JSON): sent
back through a pipe, the parent unpickled it, encoded it and wrote it, and the worker
waited on the pipe until the parent read it. Instead the worker encodes the text and
writes it to a spill file, and sends only where it is (:class:`Spilled`); the parent
copies those bytes into the report in the kernel (``os.sendfile``) when the report is a
UTF-8 stream with a file descriptor, and reads them back otherwise.

The spill files are nameless (:func:`nameless_file`): made by the parent before the
workers are forked, inherited by them, written and read at explicit offsets (never
through the shared file position), and gone when the last descriptor closes, even when
the parent is killed: nothing is ever left in the temporary directory.

The bytes are those the text encodes to in UTF-8, as the report's own stream would have
written them: a text that does not encode (a lone surrogate read from an input) is
never spilled, so the parent meets it and fails exactly as in one process.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

#: Shorter texts travel back as they are: a file costs more than it saves on them.
SPILL_MIN_CHARS = 16 * 1024


def nameless_file() -> int:
    """A new read-write file in the temporary directory with no name (``O_TMPFILE``, or
    made and unlinked at once where that is not supported): it lives as long as a
    descriptor of it. Raises OSError when none can be made."""
    folder = tempfile.gettempdir()
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            return os.open(folder, flag | os.O_RDWR, 0o600)
        except OSError:
            pass  # a file system without O_TMPFILE
    fd, path = tempfile.mkstemp(dir=folder)
    os.unlink(path)
    return fd


@dataclass(frozen=True, slots=True)
class Spilled:
    """``size`` bytes of UTF-8 text at ``offset`` of the spill file open as ``fd`` (the
    same number in the parent and in its forked workers)."""

    fd: int
    offset: int
    size: int

    def read(self) -> str:
        data = os.pread(self.fd, self.size, self.offset)
        while len(data) < self.size:
            more = os.pread(self.fd, self.size - len(data), self.offset + len(data))
            if not more:
                raise OSError("a worker's report text ended early")
            data += more
        return data.decode("utf-8")


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
    if copy is None or not copy(text.fd, text.offset, text.size):
        out.write(text.read())


class SpillFile:
    """What a worker's task writes to its spill file (see the module's docstring): texts
    long enough to be worth it, in order from the file's start. The parent hands the same
    few files to task after task (writing over a file's pages costs less than freeing
    them and faulting new ones in), never one whose texts it has not copied yet."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._offset = 0
        self._broken = False

    def put(self, text: str) -> str | Spilled:
        """``text`` as it travels back: spilled, or itself when it is short, does not
        encode, or the file cannot be written (a full disk: the pipe still works)."""
        return self.put_joined((text,), "")

    def put_joined(self, texts: Sequence[str], sep: str) -> str | Spilled:
        """``sep.join(texts)`` as it travels back (see :meth:`put`), encoded and written
        text by text: a run of 100 format-2 games is a 4 MB text, and joining it, then
        encoding it, made two blocks that large a run, each new memory page by page
        (three times the page faults of the whole audit, 5% of a worker's time under
        ``--jobs``)."""
        size = sum(map(len, texts)) + len(sep) * max(len(texts) - 1, 0)
        if size < SPILL_MIN_CHARS or self._broken:
            return sep.join(texts)
        try:
            parts = [t.encode("utf-8") for t in texts]
        except UnicodeEncodeError:
            return sep.join(texts)
        glue = sep.encode("utf-8")
        buffers = [parts[0]]
        for part in parts[1:]:
            buffers += (glue, part)
        total = sum(map(len, buffers))
        try:
            _write_all(self.fd, buffers, self._offset)
        except OSError:
            self._broken = True  # what is already spilled stays valid; the rest travels back
            return sep.join(texts)
        spilled = Spilled(self.fd, self._offset, total)
        self._offset += total
        return spilled


#: Buffers a single ``pwritev`` takes at most (IOV_MAX: 1024 on Linux, where a call with more fails with
#: EINVAL; POSIX promises only 16, and a system with fewer would find the file broken, the text sent back).
_IOV = 1024


def _write_all(fd: int, buffers: list[bytes], at: int) -> None:
    """Write ``buffers`` one after the other at offset ``at`` of ``fd``, whatever a write
    leaves short (``pwritev`` where the system has it, else ``pwrite`` each)."""
    pending: list[bytes | memoryview] = list(buffers)
    if not hasattr(os, "pwritev"):  # pragma: no cover - Linux has it
        for buffer in pending:
            view = memoryview(buffer)
            while view:
                written = os.pwrite(fd, view, at)
                if not written:
                    raise OSError("a spill file took no bytes")
                view, at = view[written:], at + written
        return
    i = 0
    while i < len(pending):
        batch = pending[i:i + _IOV]
        written = os.pwritev(fd, batch, at)
        if not written and any(batch):
            raise OSError("a spill file took no bytes")
        at += written
        while i < len(pending) and written >= len(pending[i]):
            written -= len(pending[i])
            i += 1
        if written:
            pending[i] = memoryview(pending[i])[written:]
