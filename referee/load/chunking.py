"""Cutting a large JSON Lines file into chunks that audit alone, for ``--jobs``.

A chunk starts at a session line (or the file's start), so a session never spans two
chunks and each chunk audits exactly as it would in the whole file, with the same line
numbers. The cut is found in one pass over the file that also hashes it: the whole
file's SHA-256 (the one reported) and each chunk's. A worker hashes the bytes it parses
and the parent compares the two digests, so the reported digest is provably of the
bytes audited; the parent also checks that the file did not change (size, modification
time, inode) before it reports it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .inputs import Identity
from .readers.jsonl import MAX_LINE_BYTES
from .reading import Span


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a file and the SHA-256 of its bytes when the file was planned."""

    span: Span
    sha256: str

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


#: Bytes read at once between cuts, hashed and counted without looking at their lines.
BLOCK = 1 << 20


def split_jsonl(path: Path, target: int) -> Plan:
    """The whole plan of :func:`cut_jsonl`, once the pass is over."""
    for item in cut_jsonl(path, target):
        if isinstance(item, Plan):
            return item
    raise AssertionError("cut_jsonl ends with its plan")  # pragma: no cover


def cut_jsonl(path: Path, target: int) -> Iterator[Identity | Chunk | Plan]:
    """Cut a JSON Lines file into chunks of about ``target`` bytes, each starting at a
    session line, as the pass goes: the file's identity first, then each chunk as soon
    as it is cut (workers start on it while the pass goes on), then the whole plan.
    Memory stays bounded by ``MAX_LINE_BYTES`` however long a line is.

    Up to ``target`` bytes past a cut nothing is a candidate, so those bytes are read in
    blocks, hashed and their newlines counted; only from there on is the file read line
    by line, until a session line (a cut) turns up. A read that fails once chunks are
    out ends the plan with a last chunk and a whole digest of ``""``: the workers' own
    digests cannot match it, so the file is reported as changed during the audit."""
    digests = [hashlib.sha256(), hashlib.sha256()]  # the whole file's, the current chunk's
    chunks: list[Chunk] = []
    start, first_line = 0, 1
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        identity = Identity.of(st)
        yield identity
        try:
            for cut_at, line in _cuts(fh, st.st_size, target, digests):
                chunk = Chunk(Span(start, cut_at, first_line), digests[1].hexdigest())
                chunks.append(chunk)
                yield chunk
                digests[1] = hashlib.sha256()
                start, first_line = cut_at, line
            offset, sha = fh.tell(), digests[0].hexdigest()
            last = Chunk(Span(start, offset, first_line), digests[1].hexdigest())
        except OSError:
            offset, sha = st.st_size, ""
            last = Chunk(Span(start, offset, first_line), "")
    chunks.append(last)
    yield last
    yield Plan(chunks, offset, sha, identity)


def _cuts(fh: BinaryIO, size: int, target: int, digests: list[Any]) -> Iterator[tuple[int, int]]:
    """Hash the file into ``digests`` (the whole file's, the current chunk's); yield
    ``(offset, line)`` where a chunk starts, before its first byte is hashed (the caller
    then puts a fresh digest in ``digests[1]``)."""
    offset, number, start = 0, 0, 0
    at_line_start = True

    def take(raw: bytes) -> None:
        nonlocal offset, number, at_line_start
        digests[0].update(raw)
        digests[1].update(raw)
        offset += len(raw)
        at_line_start = raw.endswith(b"\n")
        number += raw.count(b"\n")

    while offset < size:
        bulk = min(start + target, size) - offset
        while bulk > 0:  # nothing here can be a cut: hash and count only
            block = fh.read(min(BLOCK, bulk))
            if not block:
                return
            take(block)
            bulk -= len(block)
        if offset >= size:
            return
        left = size - offset
        raw = fh.readline(min(MAX_LINE_BYTES + 1, left))
        if not raw:
            return
        if at_line_start:
            complete = raw.endswith(b"\n") or len(raw) == left or len(raw) <= MAX_LINE_BYTES
            if complete and offset - start >= target and is_session_line(raw):
                yield offset, number + 1
                start = offset
        take(raw)
        while not at_line_start and offset < size:  # the rest of a long line, hashed unread
            raw = fh.readline(min(1 << 20, size - offset))
            if not raw:
                return
            take(raw)
