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
from dataclasses import dataclass
from pathlib import Path

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
    """Cut a JSON Lines file into chunks of about ``target`` bytes, each starting at a
    session line; memory stays bounded by ``MAX_LINE_BYTES`` however long a line is.

    Up to ``target`` bytes past a cut nothing is a candidate, so those bytes are read in
    blocks, hashed and their newlines counted; only from there on is the file read line
    by line, until a session line (a cut) turns up: the parent's pass costs about a
    tenth of a line-by-line one, before any worker can start."""
    whole = hashlib.sha256()
    part = hashlib.sha256()
    chunks: list[Chunk] = []
    start, first_line, offset, number = 0, 1, 0, 0
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        identity = Identity.of(st)
        left = st.st_size
        at_line_start = True
        while left > 0:
            bulk = min(start + target - offset, left)
            while bulk > 0:  # nothing here can be a cut: hash and count only
                block = fh.read(min(BLOCK, bulk))
                if not block:
                    left = 0
                    break
                whole.update(block)
                part.update(block)
                number += block.count(b"\n")
                offset += len(block)
                left -= len(block)
                bulk -= len(block)
                at_line_start = block.endswith(b"\n")
            if left <= 0:
                break
            raw = fh.readline(min(MAX_LINE_BYTES + 1, left))
            if not raw:
                break
            if at_line_start:
                complete = raw.endswith(b"\n") or len(raw) == left or len(raw) <= MAX_LINE_BYTES
                if complete and offset - start >= target and is_session_line(raw):
                    chunks.append(Chunk(Span(start, offset, first_line), part.hexdigest()))
                    part = hashlib.sha256()
                    start, first_line = offset, number + 1
            whole.update(raw)
            part.update(raw)
            offset += len(raw)
            left -= len(raw)
            at_line_start = raw.endswith(b"\n")
            number += at_line_start
            while not at_line_start and left > 0:  # the rest of a long line, hashed unread
                raw = fh.readline(min(1 << 20, left))
                if not raw:
                    break
                whole.update(raw)
                part.update(raw)
                offset += len(raw)
                left -= len(raw)
                at_line_start = raw.endswith(b"\n")
                number += at_line_start
    chunks.append(Chunk(Span(start, offset, first_line), part.hexdigest()))
    return Plan(chunks, offset, whole.hexdigest(), identity)
