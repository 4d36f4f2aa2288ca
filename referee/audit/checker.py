"""Auditing: each round re-ruled and compared with what the table recorded.

The checker consumes raw records (from ``referee.load``) and yields events for the
reporters, in file order: a :class:`SessionInfo` when a session opens, a
:class:`RoundResult` per round, a :class:`SessionResult` when it closes, a
:class:`Finding` for a problem outside any session, and an :class:`InputInfo` when a
file is done. Nothing is held but the current session's running state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..load.records import (
    GameRecord,
    LoadProblem,
    OversizedList,
    Record,
    RoundRecord,
    SeatRecord,
    SessionRecord,
    key_line,
    line_at,
)
from ..load.sources import Source, read
from ..models import RECORDED_FIELDS, ROUND_FIELDS, SESSION_FIELDS, Round, Session, suggest
from ..profiles import LoadedProfile, ProfileError, resolve_profile
from ..rules.money import fmt, plain
from ..rules.profile import Profile
from ..rules.settlement import Deal, Ruling, settle
from . import codes
from .codes import FindingCode
from .compare import compare_record
from .results import Finding, InputInfo, Ledger, RoundResult, SessionInfo, SessionResult
from .table import GameResult, TableAudit, misplaced, settle_formats

Event = SessionInfo | RoundResult | SessionResult | Finding | InputInfo | GameResult
ZERO = Decimal(0)


@dataclass(slots=True)
class Options:
    """What the command line can change about an audit."""

    profile: str | None = None
    keep_raw: bool = False


class SessionAudit:
    """The running state of one session: numbering, stakes, balances, ledger."""

    def __init__(self, record: SessionRecord, options: Options) -> None:
        self.file = record.source
        self.findings: list[Finding] = []
        self.header: Session | None = None
        self.id = f"{Path(record.source).name}#{record.index + 1}"
        if record.data is None:
            self._add(Finding(codes.H001, "the document has no 'session' header", self.file, record.line))
        else:
            self.header = self._validate_header(record)
            if self.header is not None:
                self.id = self.header.id
        self.loaded: LoadedProfile | None = None
        name = options.profile or (self.header.profile if self.header else "vivo")
        try:
            base = Path(record.source).parent if record.source != "-" else None
            self.loaded = resolve_profile(name, base)
        except ProfileError as err:
            self._add(Finding(codes.H005, str(err).splitlines()[0], self.file,
                              key_line(record.data, "profile", record.line), field="profile"))
            for problem in err.problems:  # each at its own line of the profile, as a log's findings
                self._add(Finding(codes.H005, f"profile: {problem.message}", problem.file, problem.line,
                                  field="profile"))
        self.info = SessionInfo(
            self.id, self.file, record.line,
            self.loaded.profile.name if self.loaded else None,
            self.loaded.origin if self.loaded else None,
            self.loaded.sha256 if self.loaded else None,
            record.index,
            _player(self.header),
        )
        opening = self.header.opening_balance if self.header and self.header.opening_balance is not None else ZERO
        self.ledger = Ledger(opening_balance=opening, closing_balance=opening)
        self.balance = opening  # by the rules
        self.table_balance = opening  # as the table kept it (recorded where known)
        self.expected_number = 1
        self.replayable: int | None = None
        self.used_numbers: set[int] = set()
        self.first_ante: Decimal | None = None
        self.keep_raw = options.keep_raw

    @property
    def profile(self) -> Profile | None:
        return self.loaded.profile if self.loaded else None

    def _add(self, finding: Finding) -> Finding:
        finding.session = self.id
        self.findings.append(finding)
        return finding

    def _validate_header(self, record: SessionRecord) -> Session | None:
        try:
            return Session.model_validate(record.data)
        except ValidationError as err:
            found = validation_findings(err, record.data, self.file, record.line, None, "session", SESSION_FIELDS)
            for finding in found:
                self._add(finding)
            return None

    def audit_round(self, record: RoundRecord) -> RoundResult:
        data = record.data
        number = data.get("round") if isinstance(data, dict) and isinstance(data.get("round"), int) else None
        result = RoundResult(number, record.source, record.line, self.id, raw=data if self.keep_raw else None)
        try:
            model = Round.model_validate(data)
        except ValidationError as err:
            for finding in validation_findings(err, data, self.file, record.line, number, "", ROUND_FIELDS):
                result.findings.append(self._add(finding))
            result.balance = self.balance
            self.ledger.add(result)
            return result
        result.record = model
        profile = self.profile
        if profile is None:
            result.balance = self.balance
            self.ledger.add(result)
            return result
        deal = Deal(model.ante, model.player, model.flop, model.decision, model.turn, model.river,
                    model.dealer, model.bonus)
        ruling = settle(profile, deal)
        result.ruling = ruling
        emit = _Emitter(self, result, data)
        self._check_numbering(model, ruling, emit)
        self._check_stakes(model, profile, ruling, emit)
        compare_record(model, ruling, emit)
        self._check_balance(model, ruling, emit)
        result.balance = self.balance
        result.recorded_balance = model.recorded.balance if model.recorded else None
        self.ledger.add(result)
        return result

    def _check_numbering(self, model: Round, ruling: Ruling, emit: _Emitter) -> None:
        n = model.round
        expected = self.expected_number
        if n == expected:
            self.expected_number = n + 1
        elif n == self.replayable:
            self.expected_number = n + 1  # the replay of a void deal keeps its number (§07)
        elif n in self.used_numbers:
            emit(codes.S003, f"round number {n} is used twice (expected {expected})", "round", expected, n)
            self.expected_number = expected + 1
        elif n > expected:
            missing = f"{expected}" if n == expected + 1 else f"{expected} to {n - 1}"
            emit(codes.S004, f"round {missing} missing: round {n} follows round {expected - 1}", "round", expected, n)
            self.expected_number = n + 1
        else:
            # A late round fills an earlier gap: the next expected number stays.
            emit(codes.S009, f"round {n} is out of order (expected {expected})", "round", expected, n)
        self.used_numbers.add(n)
        self.replayable = n if ruling.outcome == "void" else None

    def _check_stakes(self, model: Round, profile: Profile, ruling: Ruling, emit: _Emitter) -> None:
        for name, amount in (("ante", model.ante), ("bonus", model.bonus), ("call", model.call)):
            if amount is not None and amount % profile.stake_increment:
                emit(codes.S008, f"{name} stake {fmt(amount)} is not a multiple of the profile's stake increment "
                     f"{fmt(profile.stake_increment)}", name, None, amount)
        if model.ante <= 0:
            emit(codes.S008, "the Ante stake must be more than 0", "ante", None, model.ante)
        if model.call is not None and model.call != model.ante * profile.call_multiple:
            emit(codes.S001, f"Call stake {fmt(model.call)} is not {fmt(profile.call_multiple)} × Ante "
                 f"{fmt(model.ante)}", "call", model.ante * profile.call_multiple, model.call)
        if profile.fixed_stakes:
            if self.first_ante is None:
                self.first_ante = model.ante
            elif model.ante != self.first_ante:
                emit(codes.S002, f"Ante {fmt(model.ante)} differs from the session's {fmt(self.first_ante)}; "
                     f"profile {profile.name} fixes stakes", "ante", self.first_ante, model.ante)
        if model.bonus and profile.bonus is None:
            emit(codes.S006, f"bonus stake {fmt(model.bonus)} under profile {profile.name}, which has no bonus; "
                 "it is returned", "bonus", ZERO, model.bonus)
        header = self.header
        if (profile.call_requires_funds and model.decision == "call" and header is not None
                and header.opening_balance is not None):
            needed = model.ante + model.bonus + ruling.call_stake
            if self.balance < needed:
                emit(codes.S007, f"the call needs {fmt(needed)} in stakes but the balance is {fmt(self.balance)}",
                     "decision", needed, self.balance)

    def _check_balance(self, model: Round, ruling: Ruling, emit: _Emitter) -> None:
        recorded = model.recorded
        self.balance += ruling.net
        step = recorded.net if recorded is not None and recorded.net is not None else ruling.net
        expected = self.table_balance + step
        if recorded is not None and recorded.balance is not None:
            if recorded.balance != expected:
                emit(codes.P005, f"balance {fmt(recorded.balance)} does not follow: {fmt(self.table_balance)} "
                     f"{'+' if step >= 0 else '-'} {fmt(abs(step))} = {fmt(expected)}",
                     "recorded.balance", expected, recorded.balance)
            self.table_balance = recorded.balance
        else:
            self.table_balance = expected

    def close(self) -> SessionResult:
        agreed = self.header.rounds_agreed if self.header and self.header.rounds_agreed else None
        if agreed is None and self.profile is not None:
            agreed = self.profile.rounds_agreed
        # A round that could not be ruled was still played: it counts (its own finding says why it
        # was not ruled), so one bad record is not also a wrong round count.
        counted = self.ledger.counted_rounds + self.ledger.invalid_rounds
        if agreed is not None and counted != agreed and self.profile is not None:
            unruled = f", {self.ledger.invalid_rounds} of them not ruled" if self.ledger.invalid_rounds else ""
            self._add(Finding(codes.S005, f"{counted} counted rounds{unruled}, {agreed} agreed "
                              f"({self.ledger.void_rounds} void rounds do not count)",
                              self.file, self.info.line, expected=agreed, recorded=counted))
        return SessionResult(self.info, self.ledger, self.findings)


def _player(header: Session | None) -> str | None:
    """Format 1 has no player field: a session's ``meta.player`` names one, if present."""
    meta = header.meta if header is not None else None
    player = meta.get("player") if meta else None
    return None if player is None else str(player)


class _Emitter:
    """Adds findings for one round, with the line of the field each is about."""

    __slots__ = ("data", "result", "session")

    def __init__(self, session: SessionAudit, result: RoundResult, data: Any) -> None:
        self.session = session
        self.result = result
        self.data = data

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        path = tuple(field.split("."))
        line = line_at(self.data, path, self.result.line)
        number = self.result.number
        text = f"round {number}: {message}" if number is not None else message
        self.result.findings.append(self.session._add(
            Finding(code, text, self.result.file, line, number, field, plain(expected), plain(recorded))))


def validation_findings(err: ValidationError, data: Any, file: str, line: int, number: int | None,
                        prefix: str, known: tuple[str, ...]) -> list[Finding]:
    """One clear finding per pydantic error: the path, what is wrong, what was expected."""
    findings = []
    where = f"round {number}: " if number is not None else ("session: " if prefix else "")
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
        path = f"{prefix}.{path}" if prefix and path else (prefix or path)
        kind = error["type"]
        at = line_at(data, loc, line)
        if kind == "extra_forbidden":
            fields = RECORDED_FIELDS if len(loc) > 1 and loc[0] == "recorded" else known
            findings.append(Finding(codes.H002, f"{where}unknown field {path!r}{suggest(str(loc[-1]), fields)}",
                                    file, at, number, path))
            continue
        findings.append(Finding(codes.H001, f"{where}{path or 'record'}: {_explain(error)}", file, at, number, path,
                                recorded=_short(error.get("input"))))
    return findings


def _explain(error: Any) -> str:
    kind = error["type"]
    value = error.get("input")
    got = f"got {_short(value)!r}" if not isinstance(value, (dict, list)) else f"got a {type(value).__name__}"
    if kind == "missing":
        return "required field is missing"
    if isinstance(value, OversizedList):
        return f"a list of {value.count:,} items, longer than any list of a hand history (at most 52 cards)"
    if kind == "string_type" and not isinstance(value, (dict, list)):
        return f"expected a card or text such as 'Ah' or '10♥', {got}"
    if kind == "model_type" or kind == "dict_type":
        return f"expected a mapping, {got}"
    return f"{error['msg']}; {got}"


def _short(value: Any) -> Any:
    if isinstance(value, OversizedList):
        return repr(value)
    if isinstance(value, str) and len(value) > 60:
        return value[:57] + "..."
    if isinstance(value, (dict, list)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, Decimal):
        return str(value)
    return value


def audit_records(records: Iterable[Record], options: Options) -> Iterator[Event]:
    """Audit a stream of records (one file's or a chunk's) in order; format-2 sessions
    (games and seats) go to :class:`referee.audit.table.TableAudit`."""
    current: SessionAudit | TableAudit | None = None
    for record in settle_formats(records):
        if isinstance(current, TableAudit) and isinstance(record, (GameRecord, SeatRecord, RoundRecord)):
            yield from current.take(record)
        elif isinstance(record, RoundRecord):
            if current is None:  # pragma: no cover - loaders open a session first
                continue
            yield current.audit_round(record)  # type: ignore[union-attr]
        elif isinstance(record, SessionRecord):
            if current is not None:
                yield from _close(current)
            current = TableAudit(record, options) if record.format == 2 else SessionAudit(record, options)
            yield current.info
        elif isinstance(record, (GameRecord, SeatRecord)):
            finding = misplaced(record)
            if current is not None:
                current._add(finding)
            else:  # pragma: no cover - loaders open a session first
                yield finding
        else:
            yield from _problem(record, current)
    if current is not None:
        yield from _close(current)


def _close(current: SessionAudit | TableAudit) -> Iterator[Event]:
    if isinstance(current, TableAudit):
        yield from current.close()
    else:
        yield current.close()


def _problem(problem: LoadProblem, current: SessionAudit | TableAudit | None) -> Iterator[Event]:
    finding = Finding(problem.code, problem.message, problem.source, problem.line)
    if current is not None and not problem.fatal:
        current._add(finding)
    else:
        yield finding


def audit_source(source: Source, options: Options) -> Iterator[Event]:
    """Audit one input, then say what it was (digest, size, readable)."""
    yield from audit_records(read(source), options)
    yield InputInfo(source.name, source.kind, source.size, source.sha256, not source.unreadable)
