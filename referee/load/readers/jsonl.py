"""JSON Lines: a session line, then one round a line, read line by line.

Why bounded lines: a month of server logs does not fit in memory, and one line of
100 MB must not either; a line longer than ``MAX_LINE_BYTES`` is skipped unread (only
its length is kept) and reported, and the next line is audited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from ...escape import quoted
from ...models import codes
from ...spelling import one_edit
from ..jsonio import JsonInputError, loads_line
from ..plain import fast_round
from ..reading import Reading, Stream
from ..records import LineDict, LoadProblem, PlainRound, Record, RoundRecord, SessionRecord, rereads_rounds_with
from ..table import plain_table_line, table_line
from .document import not_a_history
from .text import decode

MAX_LINE_BYTES = 16 * 1024 * 1024


def read(reading: Reading, stream: Stream) -> Iterator[Record]:
    span = reading.span
    if span is None:
        return records(reading.name, lines(stream), refuse=reading.not_history)
    return records(reading.name, lines(stream), span.first_line, have_session=span.start > 0)


class LongLine(bytes):
    """A line longer than ``MAX_LINE_BYTES``, skipped unread: only its length is kept."""

    length = 0

    def __len__(self) -> int:
        return self.length


def lines(fh: IO[bytes]) -> Iterator[bytes]:
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
        long_line = LongLine()
        long_line.length = length
        yield long_line


_SESSION_START = re.compile(rb'^\s*\{\s*"session"\s*:')
_ROUND_START = re.compile(rb'^\s*\{\s*"round"\s*:\s*(\d{1,12})\s*[,}]')
#: Where the fast decode is tried (``referee.load.plain``): a line that opens with its round number.


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


def _fast_tables() -> bool:
    """Game and seat lines proven plain are decoded by msgspec unless REFEREE_FAST=0 (the
    lane's reading of them); a round line proven plain always is (the audit's one reading
    of it: ``audit.intake_rounds``)."""
    from ..plain import mode

    return mode() != "off"


def records(name: str, fh: Iterable[bytes], first_line: int = 1, have_session: bool = False,
            refuse: Callable[[int, str], LoadProblem | None] | None = None) -> Iterator[Record]:
    """The records of JSON Lines, numbered from ``first_line``; ``have_session`` when
    they continue a session opened before (a chunk under ``--jobs``). ``refuse`` makes
    the fatal problem of a file that is not a hand history, or nothing when it is skipped
    (``Reading.not_history``)."""
    skipped: _Skipped | None = None
    tables = _fast_tables()
    first = first_line == 1 and not have_session  # the file's first record says whether it is a hand history
    rounds = True  # the last line read plain was a round (format 1): try its decoder first
    for number, raw in enumerate(fh, start=first_line):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if len(raw) > MAX_LINE_BYTES:
            limit = MAX_LINE_BYTES // (1024 * 1024)
            yield LoadProblem(name, number, f"line longer than {limit} MiB: not a record")
            first = False
            continue
        if have_session and skipped is None and raw[:1] == b"{":
            # Whatever the order and spacing of its keys: the decoders prove a line plain or refuse it.
            found = _plain_line(name, number, raw, rounds, tables)
            if found is not None:
                rounds = type(found) is PlainRound
                yield found
                continue
        text = _text(name, raw, number)
        if isinstance(text, LoadProblem):
            yield text
            first = False
            continue
        if not text.strip():
            continue
        try:
            data = loads_line(text, number)
        except JsonInputError as err:
            first = False
            problem = _refused(name, number, err)
            if _SESSION_START.match(raw):
                if skipped is not None:
                    yield skipped.finish()
                problem.message = f"unreadable session line ({err.message})"
                problem.ends_session = True
                skipped = _Skipped(problem)
                continue
            if skipped is not None and _ROUND_START.match(raw):
                skipped.add(number)
                continue
            yield _numbered(problem, raw)
            continue
        if first:
            first = False
            refused = _not_a_history(data)
            if refused is not None:
                refusal = refuse(number, refused) if refuse is not None else LoadProblem(
                    name, number, refused, code=codes.H000, fatal=True)
                if refusal is not None:
                    yield refusal
                return
        if isinstance(data, LineDict) and "session" in data:
            if skipped is not None:
                yield skipped.finish()
                skipped = None
            have_session = True
            header = data.get("session")
            extra = [k for k in data if k not in ("session", "version", "format")]
            if extra:
                yield LoadProblem(name, number, f"unknown key {quoted(extra[0])} beside 'session' in a session line",
                                  code=codes.H002)
            # Format 2 says so, or its header's fields do; otherwise its first record will tell.
            table = data.get("format") == 2 or (isinstance(header, dict) and "opening_balances" in header)
            yield SessionRecord(name, number, header, format=2 if table else 0)
        elif isinstance(data, LineDict) and ("game" in data or "seat" in data):
            record = table_line(name, number, data)
            if not have_session:
                yield LoadProblem(name, number, "a game or seat before any session line: no session to "
                                  "audit it in", code=codes.H006)
                continue
            assert record is not None
            yield record
        elif isinstance(data, LineDict) and "round" in data:
            if skipped is None and not have_session:
                skipped = _Skipped(LoadProblem(name, number, "rounds before any session line",
                                               code=codes.H006))
            if skipped is not None:
                skipped.add(number)
                continue
            yield RoundRecord(name, number, data)
        else:
            yield LoadProblem(name, number, _not_a_record(data))
    if skipped is not None:
        yield skipped.finish()


_RECORD_KEYS = ("session", "round", "game", "seat")


def _not_a_history(data: object) -> str | None:
    """Why a first line says the file is no hand history (a first line one edit from a
    record, ``{"sesion": ...}``, is a damaged one: its H004 says so)."""
    if isinstance(data, dict) and any(one_edit(str(key).lower(), k) for key in data for k in _RECORD_KEYS):
        return None
    return not_a_history(data, "its first line", "a hand history in JSON Lines opens with a session line, "
                                                 "{\"session\": {...}}, then a line a round or game")


def _not_a_record(data: object) -> str:
    """Why a line is no record, naming the key a single edit makes a record's
    ('sesion': 'session'): a looser match would offer 'session' for 'decision'."""
    message = "a JSON Lines record is an object with a 'session', 'round', 'game' or 'seat' key"
    for key in data if isinstance(data, dict) else ():
        close = [k for k in _RECORD_KEYS if one_edit(str(key).lower(), k)]
        if close:
            return f"{message}; unknown key {quoted(key)}: did you mean {close[0]!r}?"
    return message


def _plain_line(name: str, number: int, raw: bytes, rounds: bool, tables: bool = True) -> Record | None:
    """A round, game or seat line the fast decoders read (``referee.load.plain``,
    ``referee.load.table``: ``tables``), the kind read last tried first; None: the
    general reader reads it (a session line, anything not provably plain)."""
    if rounds or not tables:
        fast = fast_round(raw)
        if fast is not None:
            return tuple.__new__(PlainRound, (name, number, raw, fast))
        return plain_table_line(name, number, raw) if tables and b'"game"' in raw else None
    if b'"game"' in raw:
        found = plain_table_line(name, number, raw)
        if found is not None:
            return found
    fast = fast_round(raw)
    return None if fast is None else tuple.__new__(PlainRound, (name, number, raw, fast))


def round_line(name: str, number: int, raw: bytes) -> RoundRecord | LoadProblem:
    """The reading of a round line in a session, as :func:`records` gives it: what a
    :class:`~referee.load.records.PlainRound` is when the fast lane does not take it."""
    text = _text(name, raw, number)
    if isinstance(text, LoadProblem):
        return text
    try:
        return RoundRecord(name, number, loads_line(text, number))
    except JsonInputError as err:
        return _numbered(_refused(name, number, err), raw)


def _text(name: str, raw: bytes, number: int) -> str | LoadProblem:
    """The line as text, or why not (H004, not fatal: the next line is read)."""
    text = decode(name, raw, number)
    if isinstance(text, LoadProblem):
        text.fatal = False
        text.code = codes.H004
    return text


def _refused(name: str, number: int, err: JsonInputError) -> LoadProblem:
    """A line the JSON reader refuses: H003 for a key written twice, else H004."""
    return LoadProblem(name, number, err.message, code=codes.H003 if err.code == codes.H003 else codes.H004)


def _numbered(problem: LoadProblem, raw: bytes) -> LoadProblem:
    """An unreadable round line whose number still shows keeps it (the audit counts it)."""
    found = _ROUND_START.match(raw)
    if found:
        problem.round_number = int(found.group(1))
        problem.message = f"round {problem.round_number}: {problem.message}"
    return problem


rereads_rounds_with(round_line)
