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
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .inputs import Identity
from .readers.jsonl import MAX_LINE_BYTES
from .reading import Crc32, Span


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
    if not raw.lstrip().startswith(b'{"session"'):
        return False
    try:
        return "session" in json.loads(raw)
    except ValueError:
        return False


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
    first, then each chunk as soon as it is cut (workers start on it while the pass goes
    on), then the whole plan. Memory stays bounded by ``MAX_LINE_BYTES`` however long a
    line is.

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
    yield last
    yield Plan(chunks, offset, sha, identity)


class _Pass:
    """The one pass over a file: what it has taken (hashed into the whole file's SHA-256
    and the current chunk's CRC-32, its newlines counted) and where chunks start."""

    def __init__(self) -> None:
        self.whole = hashlib.sha256()
        self.check = Crc32()
        self.offset = 0  # bytes taken
        self.newlines = 0  # in the bytes taken
        self.at_line_start = True  # the last byte taken ends a line (or none is taken)

    def take(self, raw: bytes) -> None:
        if raw:
            self.whole.update(raw)
            self.check.update(raw)
            self.offset += len(raw)
            self.newlines += raw.count(b"\n")
            self.at_line_start = raw[-1] == 10

    def cuts(self, fh: BinaryIO, size: int, want: Callable[[int], int]) -> Iterator[tuple[int, int]]:
        """Take the file's first ``size`` bytes; yield ``(offset, line)`` where a chunk
        starts, everything before it taken and nothing after (the caller then starts a
        fresh chunk check). A chunk starts at the first session line that begins at
        least ``want(start)`` bytes past the start of the chunk before it: the bytes short
        of that are hashed and counted in blocks, without looking at their lines."""
        self._left = size
        self._fh = fh
        buf = b""  # read, not taken: buf[0] is at self.offset
        start = 0
        while True:
            goal = start + max(1, want(start))
            while self.offset + len(buf) < goal:  # nothing before the goal can be a cut
                self.take(buf)
                buf = self._read(min(BLOCK, goal - self.offset))
                if not buf:
                    return
            short = goal - self.offset
            self.take(buf[:short])
            buf = buf[short:]
            found, buf = self._search(buf)
            if found < 0:
                self.take(buf)
                return
            self.take(buf[:found])
            buf = buf[found:]
            start = self.offset
            yield start, self.newlines + 1

    def _read(self, n: int) -> bytes:
        block = self._fh.read(min(n, self._left)) if self._left > 0 else b""
        self._left -= len(block)
        return block

    def _search(self, buf: bytes) -> tuple[int, bytes]:
        """The index of the first session line that starts in ``buf`` (read on as needed;
        what cannot hold one is taken), or -1 at the end of the file; with the buffer
        that index is in. Lines are looked at only where one opens like a session line."""
        at = 0
        while True:
            if at == 0 and self.at_line_start and buf.startswith(_OPENING[1:]):
                candidate = 0
            else:
                hit = buf.find(_OPENING, max(at - 1, 0))
                candidate = hit + 1 if hit >= 0 else -1
            if candidate < 0:
                keep = len(_OPENING) - 1  # an opening may straddle two blocks
                self.take(buf[:max(0, len(buf) - keep)])
                buf = buf[max(0, len(buf) - keep):]
                more = self._read(BLOCK)
                if not more:
                    return -1, buf
                buf, at = buf + more, 0
                continue
            end = buf.find(b"\n", candidate)
            while end < 0 and len(buf) - candidate <= MAX_LINE_BYTES:
                more = self._read(BLOCK)
                if not more:
                    break
                buf += more
                end = buf.find(b"\n", candidate)
            line = buf[candidate:] if end < 0 else buf[candidate:end + 1]
            if len(line) <= MAX_LINE_BYTES + 1 and is_session_line(line):
                return candidate, buf
            at = candidate + 1
