"""From command-line arguments to a stream of raw records.

Why streaming: a month of server logs does not fit in memory, so JSON Lines are read
line by line and YAML document by document; nothing holds more than one session's
document at a time. Each input is hashed as it is read so that a report can prove
which bytes it audited.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from ..audit import codes
from ..audit.codes import FindingCode
from ..models import suggest
from .jsonio import JsonInputError, loads_document, loads_line
from .records import LineDict, LoadProblem, Record, RoundRecord, SessionRecord, key_line
from .table import is_table_document, table_document, table_line
from .yamlio import YamlInputError, describe_yaml_error, load_documents

EXTENSIONS = (".yaml", ".yml", ".json", ".jsonl")
STDIN = "-"
TOP_KEYS = ("version", "session", "rounds", "sessions")
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


class SourceError(Exception):
    """An argument that names nothing readable (exit 2)."""


@dataclass(slots=True)
class Source:
    """One input: its name as given, its bytes' digest and size once read."""

    name: str
    path: Path | None
    kind: str = ""
    sha256: str = ""
    size: int = 0
    problems: list[LoadProblem] = field(default_factory=list)
    data: bytes | None = None
    #: Bytes read so far (JSON Lines as it goes, other kinds when done): for progress.
    consumed: int = 0
    #: The first byte that is not UTF-8: (line, column, byte); checked for YAML.
    utf8_error: tuple[int, int, int] | None = None

    @property
    def unreadable(self) -> bool:
        return any(p.fatal for p in self.problems)


def expand(arguments: list[str]) -> list[Source]:
    """Files, ``-``, directories (searched for hand-history files) and globs."""
    sources: list[Source] = []
    for arg in arguments:
        if arg == STDIN:
            sources.append(Source(STDIN, None))
            continue
        path = Path(arg)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in EXTENSIONS and p.is_file())
            if not found:
                raise SourceError(f"{arg}: no *.yaml, *.yml, *.json or *.jsonl file in this directory")
            sources.extend(Source(str(p), p) for p in found)
        elif path.exists():
            sources.append(Source(arg, path))
        elif glob.has_magic(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                raise SourceError(f"{arg}: no file matches this pattern")
            sources.extend(Source(m, Path(m)) for m in matches if Path(m).is_file())
        else:
            raise SourceError(f"{arg}: no such file or directory")
    return sources


def detect_kind(name: str, head: bytes) -> str:
    """``yaml``, ``json`` or ``jsonl``, by extension, else by the first bytes."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".json":
        return "json"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0].strip()
        return "jsonl" if first.endswith(b"}") and b"\n{" in text else "json"
    return "yaml"


def digest(source: Source, check_text: bool = False) -> None:
    """Hash and size the input; stdin is read into memory once, files in chunks.

    With ``check_text`` the bytes are also checked to be UTF-8 on the way, and the
    first bad byte's line and column kept (libyaml would report neither).
    """
    sha = hashlib.sha256()
    text = _Utf8Check() if check_text else None
    if source.path is None:
        data = sys.stdin.buffer.read() if source.data is None else source.data
        sha.update(data)
        source.data = data
        source.size = len(data)
        if text is not None:
            text.feed(data)
    else:
        size = 0
        with source.path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                sha.update(chunk)
                size += len(chunk)
                if text is not None:
                    text.feed(chunk)
        source.size = size
    source.sha256 = sha.hexdigest()
    if text is not None:
        source.utf8_error = text.finish()


class _Utf8Check:
    """Incremental UTF-8 check that knows where the first bad byte is."""

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


def _open(source: Source) -> IO[bytes]:
    if source.data is not None:
        import io

        return io.BytesIO(source.data)
    assert source.path is not None
    return source.path.open("rb")


def read(source: Source) -> Iterator[Record]:
    """All records of one input. Problems are yielded, never raised."""
    try:
        if source.path is None:
            digest(source, check_text=True)
        with _open(source) as fh:
            head = fh.read(4096)
            fh.seek(0)
            source.kind = detect_kind(source.name, head)
            if source.path is not None:
                digest(source, check_text=source.kind == "yaml")
            if b"\x00" in head:
                yield _fatal(source, 1, "binary data (NUL bytes): not a YAML, JSON or JSON Lines file")
                return
            if source.size == 0:
                yield _fatal(source, 1, "the file is empty: expected a session and its rounds")
                return
            if source.kind == "yaml" and source.utf8_error is not None:
                line, column, byte = source.utf8_error
                yield _fatal(source, line, f"not UTF-8 text: byte {byte:#04x} at column {column}")
                return
            if source.kind == "json" and source.size > MAX_DOCUMENT_BYTES:
                yield _fatal(source, 1, f"a JSON document of {source.size / 2**20:,.0f} MiB: more than "
                             f"{MAX_DOCUMENT_BYTES // 2**20} MiB is not read at once; write JSON Lines "
                             "(a session line, then one round a line)")
                return
            if source.kind == "jsonl":
                yield from _read_jsonl(source, _lines(fh))
            elif source.kind == "json":
                yield from _read_json(source, fh)
            else:
                yield from _read_yaml(source, fh)
            source.consumed = source.size
    except OSError as err:
        yield _fatal(source, 0, f"cannot read: {err.strerror or err}")
    except MemoryError:
        yield _fatal(source, 0, "the input is too large to hold in memory")


def _fatal(source: Source, line: int, message: str, code: FindingCode = codes.H000) -> LoadProblem:
    problem = LoadProblem(source.name, line, message, code=code, fatal=True)
    source.problems.append(problem)
    return problem


def _decode(source: Source, raw: bytes, line: int) -> str | LoadProblem:
    """UTF-8 text, or a problem naming the line and column of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line += raw.count(b"\n", 0, err.start)
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        return LoadProblem(source.name, line, f"not UTF-8 text: byte {raw[err.start]:#04x} at column {column}",
                           code=codes.H000, fatal=True)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A byte range of a JSON Lines file that starts with a session line (or the file)."""

    start: int
    end: int
    first_line: int


def _is_session_line(raw: bytes) -> bool:
    if not raw.lstrip().startswith(b'{"session"'):
        return False
    try:
        return "session" in json.loads(raw)
    except ValueError:
        return False


def split_jsonl(source: Source, target: int) -> list[Chunk]:
    """Cut a JSON Lines file into chunks of about ``target`` bytes, each starting at a
    session line, so that each chunk audits alone exactly as in the whole file."""
    assert source.path is not None
    chunks: list[Chunk] = []
    start, first_line, offset = 0, 1, 0
    with source.path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if offset - start >= target and _is_session_line(raw):
                chunks.append(Chunk(start, offset, first_line))
                start, first_line = offset, number
            offset += len(raw)
    chunks.append(Chunk(start, offset, first_line))
    return chunks


def read_chunk(source: Source, chunk: Chunk) -> Iterator[Record]:
    """The records of one chunk of a JSON Lines file, numbered as in the whole file."""
    assert source.path is not None
    source.kind = "jsonl"
    try:
        with source.path.open("rb") as fh:
            fh.seek(chunk.start)
            lines = _bounded_lines(fh, chunk.end - chunk.start)
            yield from _read_jsonl(source, lines, chunk.first_line, have_session=chunk.start > 0)
    except OSError as err:
        yield _fatal(source, 0, f"cannot read: {err.strerror or err}")


def _bounded_lines(fh: IO[bytes], length: int) -> Iterator[bytes]:
    for raw in _lines(fh):
        if length <= 0:
            return
        length -= len(raw)
        yield raw


class _LongLine(bytes):
    """A line longer than ``MAX_LINE_BYTES``, skipped unread: only its length is kept."""

    length = 0

    def __len__(self) -> int:
        return self.length


def _lines(fh: IO[bytes]) -> Iterator[bytes]:
    """The lines of a file, none held longer than ``MAX_LINE_BYTES`` (memory stays
    bounded however long a line is)."""
    readline = fh.readline
    limit = MAX_LINE_BYTES + 1
    while True:
        raw = readline(limit)
        if not raw:
            return
        if len(raw) < limit or raw.endswith(b"\n"):
            yield raw
            continue
        length = len(raw)
        while not raw.endswith(b"\n"):
            raw = readline(1 << 20)
            if not raw:
                break
            length += len(raw)
        long_line = _LongLine()
        long_line.length = length
        yield long_line


_SESSION_START = re.compile(rb'^\s*\{\s*"session"\s*:')
_ROUND_START = re.compile(rb'^\s*\{\s*"round"\s*:\s*(\d{1,12})\s*[,}]')


@dataclass(slots=True)
class _Skipped:
    """Rounds that belong to no session: after an unreadable session line, or before
    any session line. One finding says how many and where, once the run ends."""

    problem: LoadProblem
    count: int = 0
    first: int = 0
    last: int = 0

    def add(self, line: int) -> None:
        self.count += 1
        self.first = self.first or line
        self.last = line

    def finish(self) -> LoadProblem:
        p = self.problem
        if self.count:
            lines = f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"
            rounds = f"{self.count} round{'s' * (self.count != 1)}"
            p.message += f"; {rounds} ({lines}) belong to no session and were skipped, not audited"
        return p


def _read_jsonl(source: Source, fh: Iterable[bytes], first_line: int = 1,
                have_session: bool = False) -> Iterator[Record]:
    skipped: _Skipped | None = None
    for number, raw in enumerate(fh, start=first_line):
        source.consumed += len(raw)
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if len(raw) > MAX_LINE_BYTES:
            limit = MAX_LINE_BYTES // (1024 * 1024)
            yield LoadProblem(source.name, number, f"line longer than {limit} MiB: not a record")
            continue
        text = _decode(source, raw, number)
        if isinstance(text, LoadProblem):
            text.fatal = False
            text.code = codes.H004
            yield text
            continue
        if not text.strip():
            continue
        try:
            data = loads_line(text, number)
        except JsonInputError as err:
            code = codes.H003 if err.code == codes.H003 else codes.H004
            problem = LoadProblem(source.name, number, err.message, code=code)
            if _SESSION_START.match(raw):
                if skipped is not None:
                    yield skipped.finish()
                problem.message = f"unreadable session line ({err.message})"
                problem.ends_session = True
                skipped = _Skipped(problem)
                continue
            found = _ROUND_START.match(raw)
            if skipped is not None and found:
                skipped.add(number)
                continue
            if found:
                problem.round_number = int(found.group(1))
            yield problem
            continue
        if isinstance(data, LineDict) and "session" in data:
            if skipped is not None:
                yield skipped.finish()
                skipped = None
            have_session = True
            header = data.get("session")
            extra = [k for k in data if k not in ("session", "version", "format")]
            if extra:
                yield LoadProblem(source.name, number, f"unknown key {extra[0]!r} beside 'session' in a session line",
                                  code=codes.H002)
            # Format 2 says so, or its header's fields do; otherwise its first record will tell.
            table = data.get("format") == 2 or (isinstance(header, dict) and "opening_balances" in header)
            yield SessionRecord(source.name, number, header, format=2 if table else 0)
        elif isinstance(data, LineDict) and ("game" in data or "seat" in data):
            record = table_line(source.name, number, data)
            if not have_session:
                yield LoadProblem(source.name, number, "a game or seat before any session line: no session to "
                                  "audit it in", code=codes.H006)
                continue
            assert record is not None
            yield record
        elif isinstance(data, LineDict) and "round" in data:
            if skipped is None and not have_session:
                skipped = _Skipped(LoadProblem(source.name, number, "rounds before any session line",
                                               code=codes.H006))
            if skipped is not None:
                skipped.add(number)
                continue
            yield RoundRecord(source.name, number, data)
        else:
            yield LoadProblem(source.name, number, "a JSON Lines record is an object with a 'session' or a 'round' key")
    if skipped is not None:
        yield skipped.finish()


def _read_json(source: Source, fh: IO[bytes]) -> Iterator[Record]:
    raw = fh.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = _decode(source, raw, 1)
    if isinstance(text, LoadProblem):
        source.problems.append(text)
        yield text
        return
    try:
        data = loads_document(text)
    except JsonInputError as err:
        yield _fatal(source, err.line, err.message, err.code)
        return
    yield from _document(source, data)


def _read_yaml(source: Source, fh: IO[bytes]) -> Iterator[Record]:
    try:
        for index, document in enumerate(load_documents(fh)):
            if document is None:
                continue
            yield from _document(source, document, index)
    except YamlInputError as err:
        yield _fatal(source, err.line, err.message, err.code)
    except yaml.YAMLError as err:
        message, line = describe_yaml_error(err)
        if "utf-8" in message.lower() or "unicode" in message.lower() or "special characters" in message:
            message = f"not UTF-8 text ({message})"
        yield _fatal(source, line, message)
    except RecursionError:
        yield _fatal(source, 0, "the YAML is nested too deeply to be a hand history")


def _document(source: Source, data: Any, index: int = 0) -> Iterator[Record]:
    """The sessions of one YAML or JSON document (one session, or ``sessions:``)."""
    line = data.line if isinstance(data, LineDict) else 1
    if is_table_document(data):
        yield from table_document(source.name, data, index)
        return
    if not isinstance(data, dict):
        yield _fatal(source, line, f"a hand history is a mapping with 'session' and 'rounds', got {_kind(data)}")
        return
    for key in data:
        if key not in TOP_KEYS:
            yield LoadProblem(source.name, _line(data, key), _unknown(key, TOP_KEYS), code=codes.H002)
    if "sessions" in data:
        sessions = data["sessions"]
        if not isinstance(sessions, list):
            yield _fatal(source, _line(data, "sessions"), f"'sessions' is a list, got {_kind(sessions)}")
            return
        for i, item in enumerate(sessions):
            if not isinstance(item, dict):
                message = f"sessions[{i}] is a mapping with 'session' and 'rounds', got {_kind(item)}"
                yield LoadProblem(source.name, line, message, code=codes.H001)
                continue
            yield from _one_session(source, item, index)
    else:
        yield from _one_session(source, data, index)


def _one_session(source: Source, data: dict[str, Any], index: int) -> Iterator[Record]:
    header = data.get("session")
    line = _line(data, "session") if "session" in data else (data.line if isinstance(data, LineDict) else 1)
    yield SessionRecord(source.name, line, header, index)
    rounds = data.get("rounds")
    if rounds is None:
        yield LoadProblem(source.name, line, "the session has no 'rounds' list", code=codes.H001)
        return
    if not isinstance(rounds, list):
        message = f"'rounds' is a list, got {_kind(rounds)}"
        yield LoadProblem(source.name, _line(data, "rounds"), message, code=codes.H001)
        return
    for item in rounds:
        item_line = item.line if isinstance(item, LineDict) else _line(data, "rounds")
        yield RoundRecord(source.name, item_line, item)


def _line(data: Any, key: str) -> int:
    return key_line(data, key, 1)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "text" if isinstance(value, str) else type(value).__name__


def _unknown(key: str, known: tuple[str, ...]) -> str:
    return f"unknown key {key!r}{suggest(str(key), known)}"
