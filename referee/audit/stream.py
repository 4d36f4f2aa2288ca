"""Auditing a stream of records: each session opened, its games audited, in file order.

The audit consumes raw records (from ``referee.load``) and yields events for the
reporters, in file order: a :class:`SessionInfo` when a session opens, a
:class:`GameResult` per game (a round is a game of one seat), batches of the fast
lane's clean games (:class:`CleanGames`, when asked for), a :class:`SessionResult` when
it closes, a :class:`Finding` for a problem outside any session, and an
:class:`InputInfo` when a file is done. Nothing is held but the current session's
running state. Which format a session is, is the only thing decided here: its reader
into the audit (``intake_rounds``, ``intake_table``) is chosen once, at its header.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..load.inputs import Source
from ..load.plain import fast_mapping
from ..load.readers import read as read_input
from ..load.reading import Reading
from ..load.records import (
    GameRecord,
    LoadProblem,
    MappedRound,
    PlainRound,
    Record,
    RoundRecord,
    SeatRecord,
    SessionRecord,
)
from ..models import codes
from .clean import CleanGame, CleanGames
from .games import GameResult
from .intake_rounds import RoundsIntake
from .intake_table import TableIntake
from .results import Finding, InputInfo, SessionInfo, SessionResult
from .session import Options

Event = SessionInfo | GameResult | SessionResult | Finding | InputInfo | CleanGames
Intake = RoundsIntake | TableIntake
#: Clean games a batch holds at most (a batch is one event, one pickle under ``--jobs``).
BATCH = 1000
#: Problems held while a JSON Lines session's format is not yet known (bounded).
MAX_PENDING = 1000
_new = tuple.__new__

__all__ = ["BATCH", "Event", "Options", "audit_reading", "audit_records", "audit_source", "settle_formats"]


class _Stream:
    """The events of one stream of records, and the session being audited."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.current: Intake | None = None
        self.batch = CleanGames()

    def games(self, done: Iterable[GameResult | CleanGame]) -> Iterator[Event]:
        """Results in file order: clean games batched (when asked for), others each."""
        for game in done:
            if isinstance(game, CleanGame):
                if not self.options.batches:
                    yield game.result()
                    continue
                batch = self.batch
                if not batch:
                    batch.format = game.format
                batch.append(game)
                if len(batch) >= BATCH:
                    yield batch
                    self.batch = CleanGames()
                continue
            yield from self.flush()
            yield game

    def flush(self) -> Iterator[CleanGames]:
        if self.batch:
            yield self.batch
            self.batch = CleanGames()

    def close(self) -> Iterator[Event]:
        current, self.current = self.current, None
        if current is None:
            return
        if isinstance(current, TableIntake):
            yield from self.games(current.close())
        yield from self.flush()
        results, result = current.session.close()
        if isinstance(current, RoundsIntake) and current.content is not None:
            result.digest, result.records = current.content.digest(), current.content.records
        yield from self.games(results)
        yield result


def audit_records(records: Iterable[Record], options: Options) -> Iterator[Event]:
    """Audit a stream of records (one file's or a chunk's) in order."""
    stream = _Stream(options)
    batches = options.batches
    for record in settle_formats(records):
        current = stream.current
        if type(current) is RoundsIntake:
            plain = _plain(record, current)
            if plain is not None:
                done = current.take_plain(plain)
                if type(done) is CleanGame and batches:  # the hot loop of a clean log: batched here
                    batch = stream.batch
                    if not batch:
                        batch.format = 1
                    batch.append(done)
                    if len(batch) >= BATCH:
                        yield batch
                        stream.batch = CleanGames()
                    continue
                yield from stream.games([done] if isinstance(done, CleanGame) else done)
                continue
        if type(record) is PlainRound:  # not in a format-1 session: read as the reader reads it
            record = record.full()
        assert not isinstance(record, PlainRound)
        if isinstance(current, TableIntake) and isinstance(record, (GameRecord, SeatRecord, RoundRecord)):
            yield from stream.games(current.take(record))
        elif isinstance(record, RoundRecord):
            if current is not None:  # loaders open a session first
                yield from stream.games(current.take(record))
        elif isinstance(record, SessionRecord):
            yield from stream.close()
            stream.current = TableIntake(record, options) if record.format == 2 else RoundsIntake(record, options)
            yield stream.current.info
        elif isinstance(record, (GameRecord, SeatRecord)):
            finding = _misplaced(record)
            if isinstance(current, RoundsIntake) and current.content is not None:
                current.content.other(("misplaced", record.data))
            if current is not None:
                current.session.add(finding)
            else:  # pragma: no cover - loaders open a session first
                yield finding
        elif isinstance(record, LoadProblem) and record.ends_session:
            # An unreadable session line: what follows belongs to no session, not to the last one.
            yield from stream.close()
            yield Finding(record.code, record.message, record.source, record.line)
        else:
            yield from _problem(record, stream)
    yield from stream.close()


def _plain(record: Record, current: RoundsIntake) -> PlainRound | None:
    """The record as the fast lane takes it, when it may: a JSON Lines round the fast
    decode read, or a document's round (YAML, JSON) whose mapping has the struct's
    types, with the lane on."""
    if type(record) is PlainRound:
        return record
    if type(record) is RoundRecord and current.session.lane is not None and isinstance(record.data, dict):
        fast = fast_mapping(record.data)
        if fast is not None:
            return _new(MappedRound, (record.source, record.line, record, fast))
    return None


def _problem(problem: LoadProblem, stream: _Stream) -> Iterator[Event]:
    finding = Finding(problem.code, problem.message, problem.source, problem.line, problem.round_number,
                      export_field=problem.export_field)
    current = stream.current
    if current is not None and not problem.fatal:
        current.session.add(finding)
        if isinstance(current, RoundsIntake):
            yield from stream.flush()
            current.problem(problem)
            yield from stream.games(current.session.seq.take_released())
    else:
        yield finding


def _misplaced(record: GameRecord | SeatRecord) -> Finding:
    """A game or seat record in a format-1 session."""
    return Finding(codes.H007, "a format-2 game or seat in a format-1 session (rounds): not audited", record.source,
                   record.line)


def settle_formats(records: Iterable[Record]) -> Iterator[Record]:
    """Give every session its format: a JSON Lines session line says nothing, so the
    first record after it tells (a game or a seat: format 2; anything else: 1)."""
    pending: SessionRecord | None = None
    held: list[Record] = []
    for record in records:
        if pending is None:
            if isinstance(record, SessionRecord) and record.format == 0:
                pending = record
                continue
            yield record
            continue
        if isinstance(record, LoadProblem) and not record.fatal and len(held) < MAX_PENDING:
            held.append(record)
            continue
        pending.format = 2 if isinstance(record, (GameRecord, SeatRecord)) else 1
        yield pending
        yield from held
        pending, held = None, []
        if isinstance(record, SessionRecord) and record.format == 0:
            pending = record
        else:
            yield record
    if pending is not None:
        pending.format = 1
        yield pending
        yield from held


def audit_reading(reading: Reading, options: Options) -> Iterator[Event]:
    """Audit one input in one pass, then say what it was (digest, size, readable)."""
    yield from audit_records(read_input(reading), options)
    yield InputInfo(reading.name, reading.kind, reading.size, reading.sha256, not reading.fatal,
                    compression=reading.compression, text_size=reading.text_size, text_sha256=reading.text_sha256,
                    skipped=reading.skipped)


def audit_source(source: Source, options: Options) -> Iterator[Event]:
    """Audit one input (see :func:`audit_reading`); a provider's export through its
    mapping (``options.mapping``), as ``check --mapping`` audits it."""
    if options.mapping is not None:
        from .imports import export_events

        return export_events([source], options, audit_records)
    return audit_reading(Reading(source), options)
