"""Cutting a large JSON Lines file into chunks that audit alone, for ``--jobs``.

A chunk starts at a session line (or the file's start), so a session never spans two
chunks and each chunk audits exactly as it would in the whole file, with the same line
numbers. The cut is found in one pass over the file that also hashes it: the whole
file's SHA-256 (the one reported) and each chunk's CRC-32. A worker computes the CRC-32
of the bytes it parses and the parent compares the two, so the reported digest is of
the bytes audited; the parent also checks that the file did not change (size,
modification time, inode) before it reports it.

Why a CRC-32 for the chunks and not a second SHA-256: the chunk check guards against a
file that changes while it is audited (a log still written, a copy over it), which a
CRC-32 catches (any change of up to 32 bits, all but one in 2**32 others), not against
an adversary; the SHA-256 that a report states is still of every byte. Hashing every
byte twice with SHA-256 was a third of the parent's work under ``--jobs 2`` (the parent
is the one part that is not shared between the cores).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from .inputs import Identity
from .readers.jsonl import MAX_LINE_BYTES, records
from .reading import Crc32, ReadsInto, Span
from .records import SessionRecord


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a file and the CRC-32 of its bytes when the file was planned."""

    span: Span
    check: str

    @property
    def size(self) -> int:
        return self.span.end - self.span.start


@dataclass(frozen=True, slots=True)
class Plan:
    """A JSON Lines file cut into chunks, with the digest and identity of the whole."""

    chunks: list[Chunk]
    size: int
    sha256: str
    identity: Identity


def is_session_line(raw: bytes) -> bool:
    """Whether the line ``raw`` (with its newline) is where a chunk may start: the reader
    reads it as a session line and yields nothing before it, whatever came before. Not
    Python's ``json`` (it takes ``NaN``, a key twice), and no session line with a problem
    of its own (an unknown key beside ``session``): read in the whole file, that problem
    belongs to the session before, so the chunk would not audit as in the whole file."""
    if not raw.lstrip().startswith(b'{"session"') or len(raw) > MAX_LINE_BYTES:
        return False
    read = list(records("", (raw,), 2, have_session=True))
    return len(read) == 1 and isinstance(read[0], SessionRecord)


#: Bytes read at once.
BLOCK = 1 << 20
#: What a session line starts with, after the newline that ends the line before it (a
#: session line written with leading blanks is no cut: its chunk only runs on).
_OPENING = b'\n{"session"'


def split_jsonl(path: Path, target: int | Callable[[int, int], int]) -> Plan:
    """The whole plan of :func:`cut_jsonl`, once the pass is over."""
    for item in cut_jsonl(path, target):
        if isinstance(item, Plan):
            return item
    raise AssertionError("cut_jsonl ends with its plan")  # pragma: no cover


def cut_jsonl(path: Path, target: int | Callable[[int, int], int]) -> Iterator[Identity | Chunk | Plan]:
    """Cut a JSON Lines file into chunks of about ``target`` bytes (or of
    ``target(start, size)`` bytes for a chunk that starts at ``start`` of a file of
    ``size``), each starting at a session line, as the pass goes: the file's identity
    first, then each chunk but the last as soon as it is cut (workers start on it while
    the pass goes on), then the whole plan, whose last chunk is the file's last. Memory
    stays bounded by ``MAX_LINE_BYTES`` however long a line is.

    A read that fails once chunks are out ends the plan with a last chunk and a whole
    digest of ``""``: the workers' own checks cannot match it, so the file is reported
    as changed during the audit."""
    want = target if callable(target) else (lambda start, size: target)
    pass_ = _Pass()
    chunks: list[Chunk] = []
    start, first_line = 0, 1
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        identity = Identity.of(st)
        yield identity
        try:
            for cut_at, line in pass_.cuts(fh, st.st_size, lambda at: want(at, st.st_size)):
                chunk = Chunk(Span(start, cut_at, first_line), pass_.check.hexdigest())
                chunks.append(chunk)
                yield chunk
                pass_.check = Crc32()
                start, first_line = cut_at, line
            offset, sha = pass_.offset, pass_.whole.hexdigest()
            last = Chunk(Span(start, offset, first_line), pass_.check.hexdigest())
        except OSError:
            offset, sha = st.st_size, ""
            last = Chunk(Span(start, offset, first_line), "")
    chunks.append(last)
    yield Plan(chunks, offset, sha, identity)


class _Pass:
    """The one pass over a file: what it has taken (hashed into the whole file's SHA-256
    and the current chunk's CRC-32, its newlines counted) and where chunks start.

    The bytes read and not yet taken are a window of one reused buffer (``readinto``,
    hashed and counted in place): a fresh bytes object a block cost a page fault a page,
    and slicing and joining blocks a copy each, a third of the pass on long lines."""

    def __init__(self) -> None:
        self.whole = hashlib.sha256()
        self.check = Crc32()
        self.offset = 0  # bytes taken
        self.newlines = 0  # in the bytes taken
        self.at_line_start = True  # the last byte taken ends a line (or none is taken)
        self._buf = bytearray(2 * BLOCK)
        self._lo = self._hi = 0  # self._buf[_lo:_hi]: read, not taken; _buf[_lo] is at self.offset
        self._left = 0
        self._fh: BinaryIO | None = None

    def _take(self, n: int) -> None:
        """Take the window's next ``n`` bytes."""
        if n <= 0:
            return
        lo, hi = self._lo, self._lo + n
        with memoryview(self._buf) as whole, whole[lo:hi] as view:
            self.whole.update(view)
            self.check.update(view)
        self.newlines += self._buf.count(b"\n", lo, hi)
        self.at_line_start = self._buf[hi - 1] == 10
        self.offset += n
        self._lo = hi

    def _more(self) -> bool:
        """Read up to ``BLOCK`` more bytes into the window, moving it to the buffer's start
        (or growing the buffer, for a long line) to make room; False at the end."""
        assert self._fh is not None
        if self._left <= 0:
            return False
        kept = self._hi - self._lo
        if len(self._buf) - self._hi < BLOCK:
            if kept + BLOCK > len(self._buf):
                grown = bytearray(max(2 * len(self._buf), kept + BLOCK))
                grown[:kept] = self._buf[self._lo:self._hi]
                self._buf = grown
            else:
                self._buf[:kept] = self._buf[self._lo:self._hi]
            self._lo, self._hi = 0, kept
        with memoryview(self._buf) as whole, whole[self._hi:self._hi + min(BLOCK, self._left)] as view:
            n = cast(ReadsInto, self._fh).readinto(view)
        if not n:
            return False
        self._hi += n
        self._left -= n
        return True

    def cuts(self, fh: BinaryIO, size: int, want: Callable[[int], int]) -> Iterator[tuple[int, int]]:
        """Take the file's first ``size`` bytes; yield ``(offset, line)`` where a chunk
        starts, everything before it taken and nothing after (the caller then starts a
        fresh chunk check). A chunk starts at the first session line that begins at
        least ``want(start)`` bytes past the start of the chunk before it: the bytes short
        of that are hashed and counted in blocks, without looking at their lines."""
        self._left = size
        self._fh = fh
        start = 0
        while True:
            goal = start + max(1, want(start))
            while self.offset + self._hi - self._lo < goal:  # nothing before the goal can be a cut
                self._take(self._hi - self._lo)
                if not self._more():
                    return
            self._take(goal - self.offset)
            found = self._search()
            if found < 0:
                self._take(self._hi - self._lo)
                return
            self._take(found - self._lo)
            start = self.offset
            yield start, self.newlines + 1

    def _search(self) -> int:
        """Where in the buffer the first session line that starts in the window starts
        (read on as needed; what cannot hold one is taken), or -1 at the end of the file.
        Lines are looked at only where one opens like a session line."""
        at = self._lo
        while True:
            buf = self._buf
            if at == self._lo and self.at_line_start and buf.startswith(_OPENING[1:], self._lo, self._hi):
                candidate = self._lo
            else:
                hit = buf.find(_OPENING, max(at - 1, self._lo), self._hi)
                candidate = hit + 1 if hit >= 0 else -1
            if candidate < 0:
                self._take(self._hi - self._lo - (len(_OPENING) - 1))  # an opening may straddle two blocks
                if not self._more():
                    return -1
                at = self._lo
                continue
            end = buf.find(b"\n", candidate, self._hi)
            while end < 0 and self._hi - candidate <= MAX_LINE_BYTES:
                past = candidate - self._lo
                if not self._more():
                    break
                candidate = self._lo + past  # the window may have moved
                end = self._buf.find(b"\n", candidate, self._hi)
            line_end = self._hi if end < 0 else end + 1
            if line_end - candidate <= MAX_LINE_BYTES and is_session_line(bytes(self._buf[candidate:line_end])):
                return candidate
            at = candidate + 1
