"""The opening of a session's audit, shared by format 1 (checker.SessionAudit) and
format 2 (table.TableAudit): both read a header and a profile the same way, so one
piece of code decides the session's id, its header findings and its profile."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from ..load.records import SessionRecord
from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..profiles import LoadedProfile, ProfileError, resolve_profile
from ..rules.profile import Profile
from . import codes
from .results import Finding


class _Header(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def profile(self) -> str: ...


H = TypeVar("H", bound=_Header)


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

    @property
    def profile(self) -> Profile | None:
        return self.loaded.profile if self.loaded else None

    def _add(self, finding: Finding) -> Finding:
        finding.session = self.id
        self.findings.append(finding)
        return finding
