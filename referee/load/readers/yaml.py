"""YAML: document by document, built from libyaml events with bounds
(:mod:`referee.load.yamlio`), the bytes checked as UTF-8 as they are read so that the
first bad byte is named by line and column."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import IO, cast

import yaml

from ..reading import Reading, Stream
from ..records import LoadProblem, Record
from ..yamlio import YamlInputError, describe_yaml_error, load_documents
from .document import sessions


def read(reading: Reading, stream: Stream) -> Iterator[Record]:
    source, after, index = _Tail(stream), 0, 0
    while True:
        try:
            for document in load_documents(cast(IO[bytes], source)):  # libyaml only calls read(size)
                index += 1
                if stream.utf8_error is not None:
                    break
                if document is not None:
                    yield from sessions(reading, document, index - 1)
        except YamlInputError as err:
            yield _not_text(reading, stream) or reading.fail(err.line, err.message, err.code)
            return
        except yaml.YAMLError as err:
            message, line = describe_yaml_error(err)
            if _unquoted_unseen_card(reading, err):
                message += ': a card not seen is written quoted; quote it: "??"'
            if "utf-8" in message.lower() or "unicode" in message.lower() or "special characters" in message:
                message = f"not UTF-8 text ({message})"
            start = min(getattr(err, "document_line", line) or line, line)
            target = max(line, start + 1, after + 1)
            resumed = None if stream.utf8_error is not None else source.resume(target)
            if resumed is None:
                yield _not_text(reading, stream) or _broken(reading, stream, err, line, message)
                return
            source, after = resumed
            skipped = f"line {start} was" if start == after - 1 else f"lines {start} to {after - 1} were"
            yield reading.fail(line, f"{message}; {skipped} not audited; the audit resumes at the document "
                                     f"marker (---) on line {after}")
            index += 1
            continue
        except RecursionError:
            yield _not_text(reading, stream) or reading.fail(0, "the YAML is nested too deeply to be a hand history")
            return
        break
    problem = _not_text(reading, stream)
    if problem is not None:
        yield problem


WINDOW = 1 << 16


class _Tail:
    """The bytes libyaml reads, the last 64 KiB or more of them kept with the number of
    their first line, so that after a syntax error the next document marker (``---`` at
    column 0) can be found and the parse resumed there: a broken document does not hide
    the sessions after it. A resumed parse is handed blank lines first, so its line
    numbers are the file's."""

    def __init__(self, stream: Stream, head: bytes = b"") -> None:
        self.stream = stream
        self.head = memoryview(head)
        self.kept = bytearray()
        self.first_line = 1
        self.aligned = True  # ``kept`` starts at the start of a line

    def read(self, size: int) -> bytes:
        if self.head:
            data, self.head = bytes(self.head[:size]), self.head[size:]
        else:
            data = self.stream.read(size)
        self.kept += data
        if len(self.kept) > 2 * WINDOW:
            cut = self.kept.find(b"\n", len(self.kept) - WINDOW)
            cut = cut + 1 if cut >= 0 else len(self.kept) - WINDOW
            self.first_line += self.kept.count(b"\n", 0, cut)
            self.aligned = self.kept[cut - 1] == 0x0A
            del self.kept[:cut]
        return data

    def resume(self, target: int) -> tuple[_Tail, int] | None:
        """A source from the first document marker on line ``target`` or after, and its
        line; None when there is none (the rest of the input is then read)."""
        if self.first_line > target:
            return None
        lines = [part + b"\n" for part in bytes(self.kept).split(b"\n")]
        lines[-1] = lines[-1][:-1] + self.stream.readline(WINDOW)
        line, start = self.first_line, self.aligned
        for i, piece in enumerate(lines):
            if start and line >= target and _is_marker(piece):
                return _Tail(self.stream, b"\n" * (line - 1) + b"".join(lines[i:])), line
            start = piece.endswith(b"\n")
            line += start
        while piece := self.stream.readline(WINDOW):
            if start and line >= target and _is_marker(piece):
                return _Tail(self.stream, b"\n" * (line - 1) + piece), line
            start = piece.endswith(b"\n")
            line += start
        return None


def _is_marker(line: bytes) -> bool:
    return line.startswith(b"---") and line[3:4] in (b"", b" ", b"\t", b"\r", b"\n")


def _broken(reading: Reading, stream: Stream, err: yaml.YAMLError, line: int, message: str) -> LoadProblem:
    """A syntax error, at a real line (an error at the end of the stream is placed on the
    last line, not one past it), saying which lines were not audited: those of the
    broken document and every document after it."""
    last = stream.last_line()
    if last is None:
        return reading.fail(line, message)
    line = min(line, last) if line else last
    start = min(getattr(err, "document_line", line) or line, line)
    if start <= 1:
        rest = "nothing in the file was audited"
    elif start == last:
        rest = f"its last line {last} was not audited"
    else:
        rest = f"lines {start} to {last} (the end of the file) were not audited"
    return reading.fail(line, f"{message}; {rest}")


def _not_text(reading: Reading, stream: Stream) -> LoadProblem | None:
    """The first byte that is not UTF-8 in the whole input, as a fatal problem, if any:
    it wins over a syntax error it caused, and a bad byte after the last document still
    makes the file unreadable."""
    error = stream.first_bad_byte()
    if error is None:
        return None
    line, column, byte = error
    return reading.fail(line, f"not UTF-8 text: byte {byte:#04x} at column {column}")


def _unquoted_unseen_card(reading: Reading, err: yaml.YAMLError) -> bool:
    """Whether libyaml stopped at an unquoted ``??`` (``?`` is YAML's key indicator in
    a flow list, so ``[??, Q♣]`` is not YAML): the line is read again, bounded, from a
    file or bytes in memory (standard input cannot be read twice)."""
    mark = getattr(err, "problem_mark", None)
    if mark is None:
        return False
    text = _line(reading, mark.line)
    if text is None:
        return False
    return "??" in text[max(mark.column - 2, 0): mark.column + 2]


def _line(reading: Reading, index: int) -> str | None:
    """Line ``index`` (from 0) of the input, its first 4 KiB, when it can be read again."""
    source = reading.source
    try:
        if source.data is not None:
            lines = iter(source.data.splitlines())
            raw = next(islice(lines, index, None), None)
        elif source.path is not None:
            with source.path.open("rb") as handle:
                raw = None
                for number in range(index + 1):
                    raw = handle.readline(4096)
                    while number < index and raw and not raw.endswith(b"\n"):
                        raw = handle.readline(4096)
        else:
            return None
    except OSError:
        return None
    return raw[:4096].decode("utf-8", "replace") if raw is not None else None
