"""``--format junit``: JUnit XML (the Ant format Jenkins, GitLab and Azure read).

A ``testsuite`` per session, a ``testcase`` per round and one named ``session`` for
the session's own checks (header, agreed rounds, closing balance). A round with an
error is a ``failure`` carrying every message that fails it; a void deal recorded as
void is ``skipped`` with its reason; info findings alone do not fail a round. A file
that cannot be read is a suite of its own with one failing case. A format-2 game is a
case; what the whole audit finds of a game (``G001``, ``G002``: a second record of it,
judged once every record before it is seen) fails that game's case, not ``session``. A
suite's ``time`` is how long its session's audit took (the integrity suite's, the whole
audit's); a case has none of its own (``0``). The document validates against the common
JUnit schema (a test checks it).

Why warnings fail a case only under ``--strict``: a CI reads the report's failures as
its verdict, and that verdict must be the tool's exit code (warnings exit 0 unless
``--strict``). Without it a warning is written to its suite's ``system-out`` (the Ant
schema gives a test case no output of its own) and counted in its ``warnings``
property, so it is read, not lost.
"""

from __future__ import annotations

import re
import socket
import time
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .. import __version__
from ..audit.clean import CleanGames
from ..audit.games import GameResult
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..escape import visible
from .base import Reporter, summary_line
from .table import table_totals
from .text import finding_line

#: What XML 1.0 cannot hold at all, not even as a character reference (``&#1;`` is not
#: well-formed): C0 controls but tab, line feed and carriage return, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _legal(text: str) -> str:
    """``text`` with what XML cannot hold written as the text format writes it (``\\x01``,
    ``\\uffff``): one such character in a session or player id made the whole report
    unreadable to a CI's JUnit parser. The invisible characters (a bidirectional control,
    a zero-width space) are written escaped too (``\\u200b``): a CI page shows these
    names to a person, who must tell ``p-1-003`` from ``p-1-003`` and a U+200B."""
    text = visible(text)
    return _NOT_XML.sub(_escaped, text) if _NOT_XML.search(text) else text


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _attr(text: str) -> str:
    return quoteattr(_legal(text))


def _text(text: str) -> str:
    return escape(_legal(text))


def failing(findings: list[Finding], strict: bool) -> list[Finding]:
    """Findings that fail a test case: errors, and warnings under ``--strict``; never infos."""
    return [f for f in findings if f.severity == "error" or (strict and f.severity == "warning")]


def warned(findings: list[Finding], strict: bool) -> tuple[str, ...]:
    """The lines of the warnings that do not fail (without ``--strict``), for the suite's output."""
    return () if strict else tuple(finding_line(f) for f in findings if f.severity == "warning")


def _case(name: str, classname: str, body: str = "") -> str:
    head = f"<testcase name={_attr(name)} classname={_attr(classname)} time=\"0\""
    return f"  {head}>{body}</testcase>\n" if body else f"  {head}/>\n"


def _failure(findings: list[Finding]) -> str:
    codes = " ".join(sorted({f.code for f in findings}))
    first = findings[0]
    message = first.message if len(findings) == 1 else f"{len(findings)} findings: {codes}"
    text = "\n".join(finding_line(f) for f in findings)
    return f"<failure message={_attr(message)} type={_attr(codes)}>{_text(text)}</failure>"


def _round_name(number: int | None, line: int) -> str:
    return f"round {number} (line {line})" if number is not None else f"a round with no number (line {line})"


def _game_name(game: str | None, line: int) -> str:
    return f"game {game} (line {line})" if game is not None else f"a game with no id (line {line})"


def _key(f: Finding) -> tuple[object, ...]:
    return (f.code, f.file, f.line, f.game, f.player, f.message)


def profile_junit(info: SessionInfo) -> str:
    """A session's profile as its suite's output says it: the words every report uses,
    with the SHA-256 (a custom profile's words already hold it)."""
    if info.custom_profile:
        return info.profile_said
    return f"{info.profile_said} sha256 {info.profile_sha256}"


class JunitReporter(Reporter):
    machine = True

    def start(self) -> None:
        self._began = time.perf_counter()
        self._suites = 0
        self._stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
        self._host = socket.gethostname() or "localhost"
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')

    def session_opened(self, info: SessionInfo) -> None:
        self._info = info
        self._cases: list[str] = []
        self._counts = {"tests": 0, "failures": 0, "skipped": 0}
        self._in_games: set[tuple[object, ...]] = set()
        #: Each game's case by (game, line): its place in the suite, name, outcome and failing findings.
        self._games: dict[tuple[str | None, int], tuple[int, str, bool, list[Finding]]] = {}
        self._warned: list[str] = []
        self._opened = time.perf_counter()

    def round_payload(self, result: RoundResult) -> Any:
        """``(case XML, failed, skipped, lines of the warnings that do not fail it)``."""
        name = _round_name(result.number, result.line)
        notes = warned(result.findings, self.strict)
        bad = failing(result.findings, self.strict)
        if bad:
            return _case(name, result.session, _failure(bad)), True, False, notes
        if result.ruling is not None and result.ruling.outcome == "void":
            reason = f"void deal: {result.ruling.void_reason}"
            return _case(name, result.session, f"<skipped message={_attr(reason)}/>"), False, True, notes
        return _case(name, result.session), False, False, notes

    def clean_payload(self, rounds: CleanGames) -> Any:
        """A clean round passes: its case, written the same way as :meth:`round_payload`'s."""
        return [(_case(_round_name(r.number, r.line), r.session), False, False, ()) for r in rounds]

    def game_payload(self, result: GameResult) -> Any:
        """A format-2 game is one case (its seats' findings in it): ``(case XML, failed,
        skipped, warnings' lines, keys of the findings it holds)``."""
        name = _game_name(result.game, result.line)
        found = result.findings + [f for s in result.seats for f in s.findings]
        keys = frozenset(_key(f) for f in found)
        notes = warned(found, self.strict)
        bad = failing(found, self.strict)
        place = (result.game, result.line, result.session, bad)
        if bad:
            return _case(name, result.session, _failure(bad)), True, False, notes, keys, place
        if result.outcome in ("void", "cancelled"):
            reason = f"void deal: {result.void_reason}" if result.outcome == "void" else "cancelled game"
            return _case(name, result.session, f"<skipped message={_attr(reason)}/>"), False, True, notes, keys, place
        return _case(name, result.session), False, False, notes, keys, place

    def take_game(self, payload: Any) -> None:
        *rest, keys, (game, line, session, bad) = payload
        self._in_games |= keys
        self._games[(game, line)] = (len(self._cases), session, bool(rest[2]), bad)
        self.take_round(tuple(rest))

    def _game_found(self, found: list[Finding]) -> list[Finding]:
        """Findings about a game that the whole audit makes (G001, G002: a second record
        of a game, judged once every record before it is seen) join that game's case,
        failing it; the others are given back, for the session's own case."""
        rest = []
        for f in found:
            place = self._games.get((f.game, f.line)) if f.game is not None else None
            if place is None:
                rest.append(f)
                continue
            index, session, skipped, bad = place
            if not bad:
                self._counts["failures"] += 1
                self._counts["skipped"] -= skipped
            bad = [*bad, f]
            self._games[(f.game, f.line)] = (index, session, False, bad)
            self._cases[index] = _case(f"game {f.game} (line {f.line})", session, _failure(bad))
        return rest

    def take_round(self, payload: Any) -> None:
        case, failed, skipped, notes = payload
        self._cases.append(case)
        self._counts["tests"] += 1
        self._counts["failures"] += failed
        self._counts["skipped"] += skipped
        self._warned += notes

    def session_closed(self, result: SessionResult) -> None:
        mine = [f for f in result.findings if f.round is None and _key(f) not in self._in_games]
        own = self._game_found(failing(mine, self.strict))
        self._warned += warned(mine, self.strict)
        self._counts["tests"] += 1
        self._counts["failures"] += bool(own)
        self._cases.append(_case("session", result.info.id, _failure(own) if own else ""))
        ledger = result.ledger
        out = (f"{ledger.counted_rounds} counted rounds, {ledger.void_rounds} void, {ledger.invalid_rounds} invalid; "
               f"net {ledger.net}; {profile_junit(result.info)}")
        if result.info.format == 2:
            said = profile_junit(result.info)
            out = f"{table_totals(result)} {said[0].upper()}{said[1:]}"
        if self._warned:
            count = len(self._warned)
            said = "1 warning (a failure only with --strict)" if count == 1 else \
                f"{count} warnings (failures only with --strict)"
            out += f"\n{said}:\n" + "\n".join(self._warned)
        seconds = time.perf_counter() - self._opened
        self._suite(result.info.id, result.info.file, self._cases, self._counts, out, seconds,
                    {"profile": str(result.info.profile_origin or ""),
                     "profile.sha256": result.info.profile_sha256 or "", "warnings": str(len(self._warned))})

    def problem(self, finding: Finding) -> None:
        """A problem outside any session: a failing case, unless it is only a warning
        (or an info) that does not fail the check."""
        bad = failing([finding], self.strict)
        body = _failure(bad) if bad else ""
        self._suite(finding.file, finding.file, [_case("file", finding.file, body)],
                    {"tests": 1, "failures": int(bool(bad)), "skipped": 0}, "\n".join(warned([finding], self.strict)),
                    0.0)

    def _suite(self, name: str, package: str, cases: list[str], counts: dict[str, int], out: str, seconds: float,
               properties: dict[str, str] | None = None) -> None:
        """A suite; ``seconds``: the time its audit took (a session's, from its opening to
        its close; the integrity suite's, the whole audit's)."""
        attrs = (f"name={_attr(name)} package={_attr(package)} id=\"{self._suites}\" "
                 f"timestamp=\"{self._stamp}\" hostname={_attr(self._host)} tests=\"{counts['tests']}\" "
                 f"failures=\"{counts['failures']}\" errors=\"0\" skipped=\"{counts['skipped']}\" "
                 f"time=\"{seconds:.3f}\"")
        props = "".join(f"   <property name={_attr(k)} value={_attr(v)}/>\n"
                        for k, v in (properties or {}).items())
        self.out.write(f" <testsuite {attrs}>\n  <properties>\n{props}  </properties>\n")
        self.out.writelines(cases)
        self.out.write(f"  <system-out>{_text(out)}</system-out>\n  <system-err/>\n </testsuite>\n")
        self._suites += 1

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        properties = {"referee.version": __version__}
        for n, i in enumerate(inputs):
            properties[f"input.{n}.file"] = i.file
            if i.hashed:  # an input that could not be opened has neither: said by its H000
                properties.update({f"input.{n}.size": str(i.size), f"input.{n}.sha256": i.sha256})
            else:
                properties[f"input.{n}.read"] = "no: it could not be opened"
            if i.compression is not None:
                properties.update({f"input.{n}.compression": i.compression,
                                   f"input.{n}.uncompressed.size": str(i.text_size),
                                   f"input.{n}.uncompressed.sha256": i.text_sha256})
        for origin, sha in sorted(summary.profiles.items()):
            properties[f"profile.{origin}"] = sha
        for origin, sha in sorted(summary.mappings.items()):
            properties[f"mapping.{origin}"] = sha
        self._suite("referee integrity", "referee", [], {"tests": 0, "failures": 0, "skipped": 0},
                    summary_line(summary), time.perf_counter() - self._began, properties)
        self.out.write(f"<!-- {_text(summary_line(summary)).replace('--', '- -')} -->\n</testsuites>\n")

