"""A source's bytes as the store keeps them: read, hashed, cut at line ends, compressed.

Why at line ends: a JSON Lines record is one line, so a stored round is read back by
decompressing the one piece that holds its line (``recall --store``); why beside the
audit: zlib releases the interpreter's lock, so the compression runs on another core.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import threading
import zlib
from collections.abc import Iterator
from typing import Any

from ..load.inputs import Source

#: A source's bytes are kept in pieces of about this size, cut at line ends.
CHUNK_BYTES = 256 * 1024
COMPRESSION = 1
#: The blocks a source is read in to be hashed whole.
DIGEST_BYTES = 4 * 1024 * 1024
#: Pieces compressed ahead of the writer, at most (each about a seventh of its 256 KiB
#: once compressed: some 20 MB). The writer takes them when it writes rows, every few tens
#: of thousands of seats; held to 64, the compression of a log of 80 MB stopped a fifth of
#: the way, then made the last of the audit wait for the rest (0.1 to 0.2 s).
QUEUED = 512


class Chunker(threading.Thread):
    """A source's bytes read, hashed, cut at line ends and compressed beside the audit
    (zlib releases the interpreter's lock: this runs on another core)."""

    def __init__(self, source: Source) -> None:
        super().__init__(daemon=True, name="referee-store-chunks")
        self.source = source
        self.out: queue.Queue[tuple[int, int, int, str, bytes] | None] = queue.Queue(maxsize=QUEUED)
        self.sha256 = ""
        self.error: BaseException | None = None
        self.stop = False
        #: Whether the last piece has been taken (:meth:`ready`).
        self.ended = False

    def ready(self, wait: bool) -> Iterator[tuple[int, int, int, str, bytes]]:
        """The pieces cut so far, each once, for the one thread that writes them (all of
        them, to the end, when ``wait``): (seq, first line, size, SHA-256, compressed)."""
        while not self.ended:
            try:
                item = self.out.get(block=wait)
            except queue.Empty:
                return
            if item is None:
                self.ended = True
                return
            yield item

    def halt(self) -> None:
        """Stopped, its queue emptied until the thread has ended (it may be blocked on a full
        queue): what it had cut is dropped with the transaction that would have kept it."""
        self.stop = True
        while self.is_alive():
            with contextlib.suppress(queue.Empty):
                self.out.get(timeout=0.1)

    def run(self) -> None:
        try:
            self._run()
        except BaseException as err:  # handed to the writer, which says what failed
            self.error = err
        finally:
            self.out.put(None)

    def _run(self) -> None:
        whole = hashlib.sha256()
        seq, line, pending = 0, 1, b""
        for block in _blocks(self.source):
            if self.stop:
                return
            whole.update(block)
            pending += block
            cut = pending.rfind(b"\n")
            if cut < 0 or len(pending) < CHUNK_BYTES:
                continue
            piece, pending = pending[:cut + 1], pending[cut + 1:]
            self.out.put((seq, line, len(piece), hashlib.sha256(piece).hexdigest(), zlib.compress(piece, COMPRESSION)))
            seq, line = seq + 1, line + piece.count(b"\n")
        if pending:
            self.out.put((seq, line, len(pending), hashlib.sha256(pending).hexdigest(),
                          zlib.compress(pending, COMPRESSION)))
        self.sha256 = whole.hexdigest()


def _blocks(source: Source) -> Iterator[bytes]:
    if source.data is not None:
        for start in range(0, len(source.data), CHUNK_BYTES):
            yield source.data[start:start + CHUNK_BYTES]
        return
    assert source.path is not None
    with source.path.open("rb") as fh:
        while block := fh.read(CHUNK_BYTES):
            yield block


def kind_of(source: Source) -> str | None:
    from ..load.inputs import HEAD_BYTES
    from ..load.readers import detect_kind

    try:
        if source.data is not None:
            head = source.data[:HEAD_BYTES]
        elif source.path is not None:
            with source.path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        else:
            return None
        return detect_kind(source.name, head)
    except (OSError, ValueError):
        return None


class Digests(threading.Thread):
    """The SHA-256 of the sources that are regular files, computed on another thread from
    the moment a check knows it will store them. Why: a source's digest says whether it is
    stored already, before anything of it is written; computed when its writer starts, it
    held the audit for as long as hashing the file takes (0.08 s for 80 MB), where here it
    runs beside the import of the store's modules (hashing releases the interpreter's lock).
    A file changed since is refused at its end, as one changed while it is audited is."""

    def __init__(self, sources: list[Source]) -> None:
        super().__init__(daemon=True, name="referee-store-digests")
        self.paths = [s.path for s in sources if s.data is None and s.path is not None and _regular(s.path)]
        self.found: dict[str, str | None] = {}
        self.start()

    def run(self) -> None:
        for path in self.paths:
            self.found[str(path)] = file_digest(Source(str(path), path))

    def of(self, source: Source) -> str | None:
        """``source``'s digest: the one computed here (waited for) when it was hashed here."""
        if source.data is None and source.path is not None and source.path in self.paths:
            self.join()
            if str(source.path) in self.found:
                return self.found[str(source.path)]
        return file_digest(source)


def _regular(path: Any) -> bool:
    import stat

    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def file_digest(source: Source) -> str | None:
    """The SHA-256 of a source's bytes as they are now (None: it cannot be read again)."""
    if source.data is not None:
        return hashlib.sha256(source.data).hexdigest()
    if source.path is None:
        return None
    try:
        with source.path.open("rb", buffering=0) as fh:
            whole = hashlib.sha256()
            # blocks of 4 MiB: each read and each update release the interpreter's lock, and
            # a thread that hashes beside the main one takes the lock back once a block
            while block := fh.read(DIGEST_BYTES):
                whole.update(block)
            return whole.hexdigest()
    except OSError:
        return None
