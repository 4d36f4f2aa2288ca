"""The opening of a session's audit, shared by format 1 (checker.SessionAudit) and
format 2 (table.TableAudit): both read a header and a profile the same way, so one
piece of code decides the session's id, its header findings and its profile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..load.records import SessionRecord, key_line
from ..models import codes
from ..models.codes import FindingCode
from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..profiles import LoadedProfile, ProfileError, resolve_profile
from ..rules.money import fmt
from ..rules.profile import Profile
from .ledger import HeldNumber, Numbering, settle_held
from .results import Finding


class _Header(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def profile(self) -> str: ...


H = TypeVar("H", bound=_Header)


class Emit(Protocol):
    """How each format reports a finding on the record being audited."""

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None: ...


class _HasFindings(Protocol):
    @property
    def findings(self) -> list[Finding]: ...


R = TypeVar("R", bound=_HasFindings)


@dataclass(slots=True)
class Held(Generic[R]):
    """A round (format 1) or game (format 2) held back for its number's verdict, the
    emitter of its findings, and where that finding goes among its own findings and
    the session's."""

    number: HeldNumber
    result: R
    emit: Emit
    at_result: int
    at_session: int


def release_held(held: Held[R], numbering: Numbering, following: int | None,
                 session_findings: list[Finding], swap: bool = False) -> R:
    """Settle a held number (``ledger.settle_held``) and put its finding where number
    findings go: first among the record's own, at its place among the session's. The
    early one of two swapped rounds (``swap``, format 1: ``ledger.swapped``) has none."""
    if swap:
        return held.result
    found = settle_held(numbering, held.number, following)
    held.emit(found.code, found.message, "round", found.expected, held.number.number)
    place_last(held.result.findings, held.at_result, session_findings, held.at_session)
    return held.result


def place_last(own: list[Finding], at_own: int, session_findings: list[Finding], at_session: int) -> None:
    """The finding just emitted (last among a record's own findings and the session's)
    moved to where it belongs in both: one emitted late, for a record held back."""
    finding = own.pop()
    own.insert(at_own, finding)
    session_findings.pop()
    session_findings.insert(at_session, finding)


def check_stake_units(ante: Decimal, bonus: Decimal | None, call: Decimal | None, increment: Decimal,
                      emit: Emit) -> None:
    """S008, the same in both formats: every stake a multiple of the profile's
    increment, and an Ante more than 0 (a round's and a seat's stakes alike)."""
    for name, amount in (("ante", ante), ("bonus", bonus), ("call", call)):
        if amount is not None and amount % increment:
            emit(codes.S008, f"{name} stake {fmt(amount)} is not a multiple of the profile's stake increment "
                 f"{fmt(increment)}", name, None, amount)
    if ante <= 0:
        emit(codes.S008, "the Ante stake must be more than 0", "ante", None, ante)


class SessionOpening(Generic[H]):
    """Findings, id, header and profile of a session, as its header record gives them."""

    def _open(self, record: SessionRecord, profile: str | None,
              validate: Callable[[SessionRecord], H | None]) -> ProfileError | None:
        """Read the header (H001 when there is none) and resolve the profile: the
        option's, else the header's, else the default. The id is ``file#index`` until a
        valid header names it. A profile that cannot be loaded is returned, not reported:
        each format words that finding its own way."""
        self.file = record.source
        self.findings: list[Finding] = []
        self.header: H | None = None
        self.id = f"{Path(record.source).name}#{record.index + 1}"
        if record.data is None:
            self._add(Finding(codes.H001, "the document has no 'session' header", self.file, record.line))
        else:
            self.header = validate(record)
            if self.header is not None:
                self.id = self.header.id
        self.loaded: LoadedProfile | None = None
        name = profile or (self.header.profile if self.header else DEFAULT_PROFILE)
        try:
            base = Path(record.source).parent if record.source != "-" else None
            self.loaded = resolve_profile(name, base)
        except ProfileError as err:
            return err
        return None

    def _profile_failed(self, err: ProfileError, record: SessionRecord) -> None:
        """H005 for a profile that does not load, worded alike in both formats: the
        error's first line at the header's ``profile`` key, then one finding per
        problem at its own line of the profile file (as a log's findings)."""
        self._add(Finding(codes.H005, str(err).splitlines()[0], self.file,
                          key_line(record.data, "profile", record.line), field="profile"))
        for problem in err.problems:
            self._add(Finding(codes.H005, f"profile: {problem.message}", problem.file, problem.line,
                              field="profile"))

    @property
    def profile(self) -> Profile | None:
        return self.loaded.profile if self.loaded else None

    def _add(self, finding: Finding) -> Finding:
        finding.session = self.id
        self.findings.append(finding)
        return finding
