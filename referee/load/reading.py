"""One pass over one input: read, hashed and parsed together.

Why one pass: a report states the SHA-256 of what it audited. Hashed in a pass of its
own, the digest is of the bytes as they were then, not necessarily of those the parser
read a moment later (a log still being written). Here the parser reads through
:class:`HashingReader`, which feeds every byte it hands out to SHA-256, so the digest
is of exactly the bytes parsed; a file is read up to the size it had when opened, and
at the end its size, modification time and inode are compared with those at the start:
a file that changed is refused ("input changed during the audit", exit 2).

:class:`Reading` is the one object that changes while an input is read (kind, size,
digest, whether it could be read in full); readers only add problems to it.
"""

from __future__ import annotations

import hashlib
import io
import os
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol, cast

from ..models import codes
from ..models.codes import FindingCode
from .compressed import Decompressed, compression_of, plain_name, text_head
from .inputs import HEAD_BYTES, Identity, Opened, Source, open_input
from .records import LoadProblem, Record

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: A JSON document is parsed whole: more than this is refused (JSON Lines streams).
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
CHANGED = "input changed during the audit"


@dataclass(frozen=True, slots=True)
class Span:
    """A byte range of a file read alone (a chunk of a JSON Lines file under ``--jobs``):
    it starts at a session line (or the file's start), numbered from ``first_line``."""

    start: int
    end: int
    first_line: int


class Crc32:
    """``zlib.crc32`` behind hashlib's ``update``/``hexdigest``: the check value of a chunk,
    computed alike by the cutting pass and by the worker that reads the chunk."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def update(self, data: Any) -> None:
        self.value = zlib.crc32(data, self.value)

    def hexdigest(self) -> str:
        return f"{self.value:08x}"


class ReadsInto(Protocol):
    """Every binary file an input is opened as reads into a buffer (``BinaryIO``'s stub
    does not say so)."""

    def readinto(self, buffer: memoryview, /) -> int | None: ...


class HashingReader(io.RawIOBase):
    """A raw reader that hashes (and optionally checks as UTF-8) every byte it returns,
    and returns at most ``limit`` bytes (the size the file had when opened). The hash is
    SHA-256, or for a chunk read by a worker the CRC-32 the cutting pass computed of it."""

    def __init__(self, raw: BinaryIO, limit: int, head: bytes, check_text: bool, crc: bool = False) -> None:
        super().__init__()
        self._raw = raw
        self._left = limit
        self._head = head
        self.digest: Any = Crc32() if crc else hashlib.sha256()
        self.count = 0
        self.text = Utf8Check() if check_text else None
        #: The first bytes differ from those sniffed when the input was opened.
        self.head_changed = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer).cast("B")[: self._left]
        n = cast(ReadsInto, self._raw).readinto(view)
        if not n:
            return 0
        data = view[:n]
        self.digest.update(data)
        if self.count < len(self._head):
            start = self.count
            self.head_changed |= bytes(data[: len(self._head) - start]) != self._head[start: start + n]
        self.count += n
        self._left -= n
        if self.text is not None:
            self.text.feed(bytes(data))
        return int(n)


class Utf8Check:
    """Incremental UTF-8 check that knows where the first bad byte is (libyaml would
    report neither line nor column)."""

    def __init__(self) -> None:
        self.pending = b""
        self.line = 1
        self.column_base = 0  # bytes since the last newline, before ``pending``
        self.error: tuple[int, int, int] | None = None

    def feed(self, chunk: bytes) -> None:
        if self.error is not None:
            return
        data = self.pending + chunk
        try:
            data.decode("utf-8")
            good, self.pending = data, b""
        except UnicodeDecodeError as err:
            if err.reason == "unexpected end of data" and len(data) - err.start < 4:
                good, self.pending = data[: err.start], data[err.start:]
                try:
                    good.decode("utf-8")
                except UnicodeDecodeError as inner:
                    err = inner
                else:
                    self._advance(good)
                    return
            before = data[: err.start]
            self._advance(before)
            self.error = (self.line, self.column_base + 1, data[err.start])
            return
        self._advance(good)

    def _advance(self, good: bytes) -> None:
        newlines = good.count(b"\n")
        if newlines:
            self.line += newlines
            self.column_base = len(good) - good.rfind(b"\n") - 1
        else:
            self.column_base += len(good)

    def finish(self) -> tuple[int, int, int] | None:
        if self.error is None and self.pending:
            self.error = (self.line, self.column_base + 1, self.pending[0])
        return self.error


class Stream(io.BufferedReader):
    """What a reader parses: buffered bytes, hashed as they are read."""

    raw: HashingReader

    @property
    def utf8_error(self) -> tuple[int, int, int] | None:
        """The first byte that is not UTF-8 so far (line, column, byte), when checked."""
        return self.raw.text.error if self.raw.text is not None else None

    def first_bad_byte(self) -> tuple[int, int, int] | None:
        """The first byte of the whole input that is not UTF-8, when checked: the rest is
        read (and hashed) first."""
        while self.read(1 << 20):
            pass
        return self.raw.text.finish() if self.raw.text is not None else None

    def last_line(self) -> int | None:
        """The number of the input's last line (a final newline ends it, it opens no new
        one), when the text is checked: the rest is read first. A parser's error at the
        end of the stream points one line past it."""
        self.first_bad_byte()
        check = self.raw.text
        if check is None or check.error is not None:
            return None
        return check.line - 1 if check.column_base == 0 and not check.pending and check.line > 1 else check.line


class Reading:
    """One pass over one input (or one span of it): its records, then its kind, size,
    digest and whether it was read in full.

    ``identity``, when given, is what the file must still be (a span read by a worker
    is checked against the file the parent planned from).
    """

    def __init__(self, source: Source, span: Span | None = None, identity: Identity | None = None) -> None:
        self.source = source
        self.span = span
        self.kind = ""
        self.size = 0
        self.sha256 = ""  # of the whole input; for a span, its CRC-32 (see ``chunking``)
        self.fatal = False
        self.changed = False
        self._expected = identity
        self._stream: Stream | None = None
        #: A compressed input (``gzip``, ``bzip2``, ``xz``, ``zstd``): the reader of the
        #: bytes on disk (``size`` and ``sha256`` are theirs), and the uncompressed text's
        #: size and SHA-256 (what the parser read).
        self.compression: str | None = None
        self._disk: HashingReader | None = None
        self.text_size = 0
        self.text_sha256 = ""
        #: Why an input found in a folder was skipped: it is not a hand history.
        self.skipped: str | None = None
        #: Its JSON is read a record at a time (an export's page), not held whole: no cap.
        self.streams_json = False

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def consumed(self) -> int:
        """Bytes read so far: for progress."""
        if self._disk is not None:
            return self._disk.count
        return self._stream.raw.count if self._stream is not None else self.size

    def fail(self, line: int, message: str, code: FindingCode = codes.H000) -> LoadProblem:
        """A problem that stops the reading of this input (exit 2)."""
        self.fatal = True
        return LoadProblem(self.source.name, line, message, code=code, fatal=True)

    def not_history(self, line: int, message: str) -> LoadProblem | None:
        """An input that is not a hand history at all: named on the command line, it is
        refused (H000, exit 2); found in a folder (a settings YAML, a profile beside the
        logs), it is skipped, said once by the command, and changes no exit status."""
        if self.source.found and self.span is None:
            self.skipped = message
            return None
        return self.fail(line, message)

    def records(self, readers: Mapping[str, Callable[[Reading, Stream], Iterator[Record]]],
                detect: Callable[[str, bytes], str]) -> Iterator[Record]:
        """All records of the input, read by the reader of its kind (``detect`` tells it
        from the name and first bytes; :func:`referee.load.readers.read` passes the
        registry). Problems are yielded, never raised."""
        try:
            opened = open_input(self.source, self.span.start if self.span else 0)
        except OSError as err:
            yield self.fail(0, f"cannot read: {err.strerror or err}")
            return
        try:
            self.compression = None if self.span is not None else compression_of(opened.head)
            head: bytes | None = opened.head
            if self.compression is not None:
                head = text_head(self.compression, opened.file, HEAD_BYTES)
            self.kind = "jsonl" if self.span is not None else detect(plain_name(self.source.name), head or b"")
            stream = self._open_stream(opened)
            problem = None if head is None else self._refusal(opened, head)
            if problem is not None:
                yield problem
            else:
                yield from readers[self.kind](self, stream)
            yield from self._finish(opened, stream)
        except OSError as err:
            self._hash_the_rest()
            yield self.fail(0, f"cannot read: {err.strerror or err}")
        except MemoryError:
            yield self.fail(0, "the input is too large to hold in memory")
        finally:
            opened.close()

    def _hash_the_rest(self) -> None:
        """A compressed input whose text could not be read to its end (cut short, damaged):
        its bytes on disk are hashed all the same, so that the report gives their size and
        SHA-256 (the file was opened and read: no 'could not be opened')."""
        raw, self._disk = self._disk, None
        if raw is None:
            return
        try:
            while raw.read(1 << 20):
                pass
        except OSError:
            return
        self.size, self.sha256 = raw.count, raw.digest.hexdigest()

    def _open_stream(self, opened: Opened) -> Stream:
        if self.span is not None:
            limit, head = self.span.end - self.span.start, b""
        else:
            limit, head = opened.size, opened.head
        raw = HashingReader(opened.file, limit, head, check_text=self.kind == "yaml" and not self.compression,
                            crc=self.span is not None)
        if self.compression is not None:  # what is parsed is the text, hashed as it is read
            self._disk = raw
            whole = self.kind == "json" and not self.streams_json  # parsed at once: bounded, as a plain file is
            text = Decompressed(self.compression, cast(BinaryIO, raw), MAX_DOCUMENT_BYTES if whole else None)
            raw = HashingReader(cast(BinaryIO, text), 1 << 62, b"", check_text=self.kind == "yaml")
        self._stream = Stream(raw, 1 << 20)
        return self._stream

    def _refusal(self, opened: Opened, head: bytes) -> LoadProblem | None:
        """Why the input is not parsed at all, if it is not (``head``: its first bytes,
        uncompressed)."""
        if self.span is not None:
            return None
        if b"\x00" in head:
            return self.fail(1, "binary data (NUL bytes): not a YAML, JSON or JSON Lines file")
        if opened.overflow:
            return self.fail(0, f"more than {opened.overflow:,} bytes from a stream: save it to a file "
                                "and audit the file")
        if opened.size == 0 or not head:
            return self.fail(1, "the file is empty: expected a session and its rounds")
        if self.kind == "json" and opened.size > MAX_DOCUMENT_BYTES and not self.streams_json:
            return self.fail(1, f"a JSON document of {opened.size / 2**20:,.0f} MiB: more than "
                                f"{MAX_DOCUMENT_BYTES // 2**20} MiB is not read at once; write JSON Lines "
                                "(a session line, then one round a line)")
        return None

    def _finish(self, opened: Opened, stream: Stream) -> Iterator[LoadProblem]:
        """Hash what the parser left unread, then make sure the input did not change."""
        while stream.read(1 << 20):
            pass
        raw = stream.raw
        if self._disk is not None:
            self.text_size, self.text_sha256 = raw.count, raw.digest.hexdigest()
            raw, self._disk = self._disk, None
            while raw.read(1 << 20):  # what follows the compressed data is hashed too
                pass
        self.size, self.sha256 = raw.count, raw.digest.hexdigest()
        self._stream = None
        expected = self._expected or opened.identity
        if expected is None or self.source.path is None:
            return
        wanted = self.span.end - self.span.start if self.span else expected.size
        try:
            now = {Identity.of(os.fstat(opened.file.fileno())), Identity.of(self.source.path.stat())}
        except OSError:
            now = set()
        if raw.count != wanted or raw.head_changed or now != {expected}:
            self.changed = self.fatal = True
            if self.span is None:  # a span's change is reported once, by whoever cut the file
                yield self.fail(0, changed_message(expected.size))


def changed_message(size: int) -> str:
    return f"{CHANGED} (it was {size:,} bytes when the audit began): audit a copy that is no longer written to"
