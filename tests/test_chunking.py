"""The cutting pass of ``--jobs`` (``referee.load.chunking``) against a plain reference:
the chunks tile the file, each starts at a session line at the first place the rule
allows, with its first line's number and the CRC-32 of its bytes, and the whole file's
SHA-256 is of every byte; whatever the blocks the file is read in."""

from __future__ import annotations

import hashlib
import io
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.load import chunking
from referee.load.chunking import cut_jsonl, is_session_line, split_jsonl
from referee.load.reading import Crc32

SESSION = b'{"session": {"id": "s"}}'
LINES = st.sampled_from([
    SESSION, b'{"session":{"id":"t"}}', b'  {"session": {"id": "blank"}}', b'{"session": broken',
    b'{"sessions": 1}', b'{"round": 1, "ante": 1}', b'{"round":2}', b"", b"x" * 40, b'{"session"', b"\n",
])


def reference(data: bytes, target: int, max_line: int) -> list[tuple[int, int, int]]:
    """(start, end, first line) of each chunk: a chunk starts at the first line that
    begins ``target`` bytes or more past the start of the one before, opens with
    ``{"session"`` and is a whole session line no longer than ``max_line`` (its newline included)."""
    starts, line_starts = [0], []
    at = 0
    for raw in data.splitlines(keepends=True):
        line_starts.append((at, raw))
        at += len(raw)
    for offset, raw in line_starts:
        if offset >= starts[-1] + target and offset > 0 and raw.startswith(b'{"session"') \
                and len(raw) <= max_line and is_session_line(raw):
            starts.append(offset)
    ends = [*starts[1:], len(data)]
    return [(s, e, data[:s].count(b"\n") + 1) for s, e in zip(starts, ends, strict=True)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=40), final_newline=st.booleans(), target=st.integers(1, 120),
       block=st.integers(1, 64), max_line=st.integers(8, 80))
def test_the_pass_cuts_where_the_reference_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[bytes],
                                                final_newline: bool, target: int, block: int, max_line: int) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(chunking, "BLOCK", block)
    monkeypatch.setattr(chunking, "MAX_LINE_BYTES", max_line)
    plan = split_jsonl(path, target)
    assert [(c.span.start, c.span.end, c.span.first_line) for c in plan.chunks] == reference(data, target, max_line)
    assert plan.sha256 == hashlib.sha256(data).hexdigest() and plan.size == len(data)
    assert [c.check for c in plan.chunks] == [f"{zlib.crc32(data[c.span.start:c.span.end]):08x}"
                                              for c in plan.chunks]


def test_a_chunk_size_may_depend_on_where_the_chunk_starts(tmp_path: Path) -> None:
    """Guided sizes: the pass asks ``target(start, size)`` for each chunk."""
    path = tmp_path / "log.jsonl"
    path.write_bytes((SESSION + b"\n" + b'{"round": 1}\n' * 9) * 50)
    asked: list[int] = []

    def target(start: int, size: int) -> int:
        asked.append(start)
        return max(1, (size - start) // 4)

    items = list(cut_jsonl(path, target))
    plan = items[-1]
    assert isinstance(plan, chunking.Plan) and [c for c in items if isinstance(c, chunking.Chunk)] == plan.chunks[:-1]
    chunks = plan.chunks
    assert asked == [c.span.start for c in chunks[:len(asked)]] and len(asked) >= len(chunks) - 1
    sizes = [c.size for c in chunks]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 2 * sizes[-1]


def test_the_crc_reads_like_zlib() -> None:
    check = Crc32()
    for part in (b"abc", b"", b"def" * 1000):
        check.update(part)
    assert check.hexdigest() == f"{zlib.crc32(b'abc' + b'def' * 1000):08x}"


@pytest.mark.parametrize("line", [
    b'{"session": {"id": "n", "limit": NaN}}',  # Python's json takes NaN; the reader refuses it
    b'{"session": 1, "session": {"id": "twice"}}',  # a key twice: refused by the reader
    b'{"session": {"id": "e"}, "round": 3}',  # a problem (H002) comes first: in one pass, the session before's
])
def test_a_cut_is_only_where_the_reader_reads_a_session_line_alone(tmp_path: Path, line: bytes) -> None:
    """A chunk audits as in the whole file only if its first line resets the reader:
    a session line read as one, with nothing before it."""
    from referee.load.readers.jsonl import records
    from referee.load.records import SessionRecord

    assert [type(r) for r in records("log", [line + b"\n"], 2, True)] != [SessionRecord]
    path = tmp_path / "log.jsonl"
    path.write_bytes(SESSION + b"\n" + b'{"round": 1}\n' * 20 + line + b"\n" + b'{"round": 2}\n' * 20)
    assert not is_session_line(line + b"\n")
    assert [c.span.start for c in split_jsonl(path, 1).chunks] == [0]


def test_a_session_line_as_long_as_the_reader_refuses_is_no_cut(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader refuses a line of ``MAX_LINE_BYTES`` bytes and its newline."""
    from referee.load.readers import jsonl
    from referee.load.readers.jsonl import records

    line = b'{"session": {"id": "long"}}\n'
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", len(line) - 1)
    monkeypatch.setattr(chunking, "MAX_LINE_BYTES", len(line) - 1)
    assert [type(r).__name__ for r in records("log", jsonl.lines(io.BytesIO(line)), 2, True)] == ["LoadProblem"]
    path = tmp_path / "log.jsonl"
    path.write_bytes(SESSION + b"\n" + b'{"round": 1}\n' * 3 + line + b'{"round": 2}\n' * 3)
    assert [c.span.start for c in split_jsonl(path, 1).chunks] == [0]
