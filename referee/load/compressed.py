"""Logs read as they are archived: gzip, bzip2 and xz (the standard library) and
Zstandard (the ``zstd`` extra), decompressed as they are read.

Why streamed: a year of a table's log is gigabytes once uncompressed; the decompressor
hands the reader a block at a time, as an uncompressed file would be read, so memory
stays flat and line numbers are those of the uncompressed text. The compression is told
by the file's first bytes (its magic number), not by its name: a ``.gz`` that is not
gzip, or a gzip sent on standard input, is read as what it is.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from typing import TYPE_CHECKING, Any, BinaryIO, cast

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: The magic numbers, each with its compression's name.
MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}
#: A compressed log's suffix (``log.jsonl.gz``): the name without it tells the format.
SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
ZSTD_EXTRA = "pip install 'referee[zstd]'"
#: The first uncompressed bytes are sought in at most this much of the file (a bzip2
#: block is up to 900 kB).
HEAD_SEARCH = 2 * 1024 * 1024


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``bzip2``, ``xz`` or ``zstd`` when ``head`` starts with its magic number."""
    for magic, name in MAGIC.items():
        if head.startswith(magic):
            return name
    return None


def plain_name(name: str) -> str:
    """``log.jsonl.gz`` as ``log.jsonl``: the name that tells the format."""
    stem, suffix = os.path.splitext(name)
    return stem if suffix.lower() in SUFFIXES else name


def is_compressed_name(name: str, extensions: tuple[str, ...]) -> bool:
    """Whether a folder's file is a compressed one of ``extensions`` (``*.jsonl.gz``)."""
    plain = plain_name(name)
    return plain != name and os.path.splitext(plain)[1].lower() in extensions


class Decompressed(io.RawIOBase):
    """The uncompressed bytes of ``raw``; a damaged or cut stream is an ``OSError`` that
    names the compression, so that the input is refused with one clear line (exit 2)."""

    def __init__(self, compression: str, raw: BinaryIO, cap: int | None = None) -> None:
        super().__init__()
        self.compression = compression
        self._file = _open(compression, raw)
        #: A JSON document is parsed whole: more than ``cap`` uncompressed bytes is refused.
        self._cap = self._left = cap

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        try:
            data = self._file.read(len(memoryview(buffer)))
        except OSError as err:
            raise OSError(f"not a valid {self.compression} file ({err})") from None
        except EOFError:
            raise OSError(f"the {self.compression} data is cut short (a partial copy, or a file still being "
                          "written)") from None
        except Exception as err:  # lzma.LZMAError, zstandard.ZstdError: the data is damaged
            raise OSError(f"not a valid {self.compression} file ({err})") from None
        n = len(data)
        if self._left is not None:
            self._left -= n
            if self._left < 0:
                raise OSError(f"a JSON document of more than {(self._cap or 0) // 2**20} MiB uncompressed is not "
                              "read at once; write JSON Lines (a session line, then one round a line)")
        memoryview(buffer).cast("B")[:n] = data
        return n


def _open(compression: str, raw: BinaryIO) -> Any:
    if compression == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "bzip2":
        return bz2.BZ2File(raw)
    if compression == "xz":
        return lzma.LZMAFile(raw)
    try:
        import zstandard
    except ImportError:
        raise OSError(f"a Zstandard (.zst) log needs the zstd extra: {ZSTD_EXTRA}") from None
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)


class _At(io.RawIOBase):
    """A file read from its start without moving the file's own position (``pread``)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd, self._offset = fd, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        view = memoryview(buffer).cast("B")
        if self._offset >= HEAD_SEARCH:
            return 0
        data = os.pread(self._fd, min(len(view), HEAD_SEARCH - self._offset), self._offset)
        view[: len(data)] = data
        self._offset += len(data)
        return len(data)


def text_head(compression: str, file: BinaryIO, size: int) -> bytes | None:
    """The first uncompressed bytes (up to ``size``), read beside the pass that audits:
    what tells the format and binary data, as the first bytes of a plain file do. None
    when not one can be read: the pass that audits meets the same fault and says it, once."""
    getvalue = getattr(file, "getvalue", None)
    start: BinaryIO = io.BytesIO(getvalue()) if getvalue is not None else cast(BinaryIO, _At(file.fileno()))
    reader = Decompressed(compression, start)
    parts, got = [], 0
    try:
        while got < size:
            block = reader.read(size - got)
            if not block:
                break
            parts.append(block)
            got += len(block)
    except OSError:
        if not parts:
            return None
    return b"".join(parts)
