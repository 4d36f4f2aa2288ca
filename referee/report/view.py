"""What a report shows of an audit: the findings selected (``--select``, ``--ignore``,
per-file ignores), those a baseline accepted hidden, and the exit status asked for
(``--exit-zero``); docs/configuration.md.

Why a view and not a filter on the audit: the audit computes the same whatever is
shown (an ignored ``P005`` changes no balance), and the audit store keeps every
finding: it is the record, a report is a view of it. The decision is made in one place,
:meth:`View.verdict`, a pure function of the finding, so that it is the same where a
round's payload is made (a worker process under ``--jobs`` or ``--cluster``) and where
the summary and the exit status are counted (the parent, :func:`referee.pipeline.dispatch`).
Every reporter but the store sees the audit through :class:`Selected`; nothing is
hidden unsaid: the summary says how many findings were ignored and by what.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from ..audit.clean import CleanGame, CleanGames
from ..audit.games import GameResult
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..models import codes
from ..models.codes import CODES
from . import baseline as baselines
from .base import Reporter

#: A code no view hides: an input not read in full is not a finding one can accept
#: (its exit status 2 stands, and its reason must be on the screen), as ruff always
#: reports a syntax error.
NEVER_HIDDEN = frozenset({codes.H000})


def check_code(value: str, where: str) -> str:
    """A code or a prefix of codes as given (``P005``, ``P``, ``W00``; ``ALL`` is every
    code), upper-cased; a :class:`ValueError` names ``where`` and the code meant."""
    from ..spelling import did_you_mean

    code = value.strip().upper()
    if code == "ALL" or (code and any(c.startswith(code) for c in CODES)):
        return code
    families = sorted({c[0] for c in CODES})
    hint = did_you_mean(code, CODES) or f" (codes start with {', '.join(families)}: docs/findings.md)"
    raise ValueError(f"{where}: {value[:40]!r} is no finding code nor the start of one{hint}")


@dataclass(frozen=True, slots=True)
class Rule:
    """A code prefix selected (``keep``) or ignored, and what said so (``--ignore``,
    ``pyproject.toml``): the longest prefix that matches a code decides, and of two
    equally long the later (the command line comes after the configuration)."""

    prefix: str
    keep: bool
    origin: str


@dataclass(frozen=True, slots=True)
class FileRule:
    """Per-file ignores: the codes ignored in the files a glob matches."""

    glob: str
    prefixes: tuple[str, ...]
    origin: str


def matches(pattern: str, file: str, root: Path) -> bool:
    """Whether ``pattern`` matches ``file`` read against ``root``: its whole relative path,
    a folder it is in (``logs/old``), or any one part of it (``*.jsonl``, ``fixtures``);
    ``**/`` may also match no folder."""
    if file == "-":
        return False
    rel = os.path.relpath(os.path.abspath(file), root)
    parts = PurePosixPath(Path(rel).as_posix()).parts
    if parts and parts[0] == "..":
        parts = PurePosixPath(Path(os.path.abspath(file)).as_posix()).parts
    patterns = {pattern.rstrip("/"), pattern.replace("**/", "").rstrip("/")}
    for p in patterns:
        if any(fnmatchcase("/".join(parts[:i]), p) for i in range(1, len(parts) + 1)):
            return True
        if "/" not in p and any(fnmatchcase(part, p) for part in parts):
            return True
    return False


@dataclass(slots=True)
class View:
    """The selection, the baseline and ``--exit-zero``, with the parent's tally of what
    they hid (``matched``: the baseline's entries that hid or met a finding) and, under
    ``--write-baseline``, the findings to write (``written``)."""

    rules: tuple[Rule, ...] = (Rule("", True, "default"),)
    per_file: tuple[FileRule, ...] = ()
    root: Path = field(default_factory=Path.cwd)
    baseline: baselines.Baseline | None = None
    exit_zero: bool = False
    configuration: tuple[str, str, tuple[str, ...]] | None = None
    #: ``--write-baseline``: the folder of the file to write (fingerprints are relative to it).
    writing: Path | None = None
    #: What chose the selection in force (``--select`` or the configuration): what hides a code it leaves out.
    selected_by: str = "--select"
    matched: set[str] = field(default_factory=set)
    written: dict[str, baselines.Entry] = field(default_factory=dict)
    _by_code: dict[str, str | None] = field(default_factory=dict)

    @property
    def hides(self) -> bool:
        """Whether this view can hide anything (else reporters need not be wrapped)."""
        return self.rules != (Rule("", True, "default"),) or bool(self.per_file) or self.baseline is not None

    def verdict(self, finding: Finding) -> str | None:
        """None when ``finding`` is shown, else what hides it (``--ignore``,
        ``pyproject.toml``, ``baseline FILE``): a pure function of the finding."""
        if finding.code in NEVER_HIDDEN:
            return None
        reason = self._rule(finding.code)
        if reason is None:
            reason = self._per_file(finding)
        if reason is None and self.baseline is not None \
                and baselines.fingerprint(finding, self.baseline.folder) in self.baseline.fingerprints:
            reason = f"baseline {self.baseline.shown}"
        return reason

    def _rule(self, code: str) -> str | None:
        if code in self._by_code:
            return self._by_code[code]
        best: Rule | None = None
        for rule in self.rules:
            if code.startswith(rule.prefix) and (best is None or len(rule.prefix) >= len(best.prefix)):
                best = rule
        if best is None:  # no prefix selected it
            reason: str | None = self.selected_by
        else:
            reason = None if best.keep else best.origin
        self._by_code[code] = reason
        return reason

    def _per_file(self, finding: Finding) -> str | None:
        for rule in self.per_file:
            if any(finding.code.startswith(p) for p in rule.prefixes) and matches(rule.glob, finding.file, self.root):
                return rule.origin
        return None

    # The parent's side: counting, the baseline's entries met, the baseline to write.

    def count(self, summary: Summary, finding: Finding) -> None:
        """``finding`` into the summary: counted when shown, else among the ignored by
        what hid it."""
        reason = self.verdict(finding)
        if reason is None:
            summary.count(finding)
            if self.writing is not None and finding.code not in NEVER_HIDDEN and finding.code != codes.B001:
                entry = baselines.entry_of(finding, self.writing)
                self.written.setdefault(entry.fingerprint, entry)
        else:
            summary.ignored[reason] = summary.ignored.get(reason, 0) + 1
        if self.baseline is not None:  # an entry met by a finding hidden for another reason is not stale either
            mark = baselines.fingerprint(finding, self.baseline.folder)
            if mark in self.baseline.fingerprints:
                self.matched.add(mark)

    def start(self, summary: Summary) -> None:
        summary.exit_zero = self.exit_zero
        summary.configuration = self.configuration
        if self.baseline is not None:
            summary.baseline = (self.baseline.shown, self.baseline.sha256)

    def unmatched(self, inputs: list[InputInfo]) -> list[Finding]:
        """A ``B001`` (info) for each baseline entry of a file audited in this run that
        no finding met: fixed since, so the entry can go (entries of files not audited
        now are not judged)."""
        if self.baseline is None:
            return []
        audited = {baselines.identity(i.file, self.baseline.folder) for i in inputs}
        return [Finding(codes.B001, f"baseline entry {e.where()} no longer matches any finding: remove it",
                        self.baseline.shown, e.line)
                for e in self.baseline.entries if e.fingerprint not in self.matched and e.file in audited]


class Selected(Reporter):
    """A reporter that sees the audit through a :class:`View`: each round, game, session
    and problem with only the findings shown. Its payload methods stay pure (they run
    in workers), the view's verdict being a function of the finding alone."""

    def __init__(self, inner: Reporter, view: View) -> None:
        super().__init__(inner.out, color=inner.color, quiet=inner.quiet, strict=inner.strict)
        self.inner = inner
        self.view = view
        self.machine = inner.machine
        self.spills = inner.spills

    def _kept(self, findings: list[Finding]) -> list[Finding] | None:
        """The findings shown, or None when they all are (most rounds: nothing to copy)."""
        if not findings:
            return None
        kept = [f for f in findings if self.view.verdict(f) is None]
        return None if len(kept) == len(findings) else kept

    def start(self) -> None:
        self.inner.start()

    def session_opened(self, info: SessionInfo) -> None:
        self.inner.session_opened(info)

    def round_payload(self, result: RoundResult) -> Any:
        kept = self._kept(result.findings)
        return self.inner.round_payload(result if kept is None else replace(result, findings=kept))

    def take_round(self, payload: Any) -> None:
        self.inner.take_round(payload)

    def clean_payload(self, rounds: CleanGames) -> Any:
        return self.inner.clean_payload(rounds)  # the fast lane's rounds have no finding

    def take_clean(self, payload: Any) -> None:
        self.inner.take_clean(payload)

    def game_payload(self, result: GameResult) -> Any:
        return self.inner.game_payload(self._game(result))

    def _game(self, result: GameResult) -> GameResult:
        kept = self._kept(result.findings)
        seats = []
        changed = kept is not None
        for seat in result.seats:
            mine = self._kept(seat.findings)
            seats.append(seat if mine is None else replace(seat, findings=mine))
            changed |= mine is not None
        if not changed:
            return result
        return replace(result, findings=result.findings if kept is None else kept, seats=seats)

    def clean_game_payload(self, game: CleanGame) -> Any:
        return self.inner.clean_game_payload(game)

    def clean_games_payload(self, games: CleanGames) -> list[Any]:
        return self.inner.clean_games_payload(games)

    def take_game(self, payload: Any) -> None:
        self.inner.take_game(payload)

    def session_closed(self, result: SessionResult) -> None:
        kept = self._kept(result.findings)
        self.inner.session_closed(result if kept is None else replace(result, findings=kept))

    def problem(self, finding: Finding) -> None:
        if self.view.verdict(finding) is None:
            self.inner.problem(finding)

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.inner.finish(summary, inputs)
