"""The finding codes' catalogue as people read it: docs/findings.md, ``referee rule CODE``
and the rules of a SARIF report are all written from :data:`referee.models.codes.CODES`,
so a code's meaning and what to do about it are said once. The shape of a code is here,
below its registrations in :mod:`referee.models.codes` (which imports this module)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NewType

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
FindingCode = NewType("FindingCode", str)


@dataclass(frozen=True, slots=True)
class Code:
    """One finding code with its documentation: registered, one constant a code, in
    :mod:`referee.models.codes`, which re-exports this class."""

    code: FindingCode
    name: str
    severity: Severity
    summary: str
    example: str = ""
    #: What an operator should check or do about it (``referee rule CODE``, docs/findings.md).
    fix: str = ""
    #: What the finding is, in a few words: said, translated, where the English message
    #: cannot be quoted (a French ruling, issue 27; ``report/ruling_words.py``). The French
    #: is in referee/locale (a test checks each title has one).
    title: str = ""

    @property
    def anchor(self) -> str:
        """The entry's anchor in docs/findings.md (its heading ``P002 call-result``, as
        GitHub and the site both slug it)."""
        return f"{self.code.lower()}-{self.name}"

    @property
    def docs(self) -> str:
        """The entry's place in the repository's documentation."""
        return f"docs/findings.md#{self.anchor}"


_INTRO = [
    "# Finding codes",
    "",
    "Generated from `referee/models/codes.py` (`python -m referee.models.codes > docs/findings.md`); "
    "`tests/test_docs.py` fails when this file is stale. `referee rule CODE` prints one entry, "
    "`referee rule --all` every one.",
    "Severities: `error` fails the check (exit 1); `warning` fails it only with `--strict`; "
    "`info` never does.",
    "",
    "| code | name | severity |",
    "| --- | --- | --- |",
]


def markdown(codes: Iterable[Code]) -> str:
    """docs/findings.md: a table of every code linking to its entry, then the entries
    (meaning, example, what to do), each under a heading ``P002 call-result``."""
    every = list(codes)
    lines = list(_INTRO)
    lines += [f"| [`{c.code}`](#{c.anchor}) | {c.name} | {c.severity} |" for c in every]
    for c in every:
        lines += ["", f"## {c.code} {c.name}", "", f"Severity: {c.severity}.", "", c.summary]
        if c.example:
            lines += ["", f"Example: {c.example}"]
        lines += ["", f"What to do: {c.fix}"]
    return "\n".join(lines) + "\n"


def rule_text(c: Code) -> str:
    """One code as ``referee rule CODE`` prints it."""
    lines = [f"{c.code} {c.name} ({c.severity})", "", c.summary]
    if c.example:
        lines += ["", f"Example: {c.example}"]
    lines += ["", f"What to do: {c.fix}", "", f"Documentation: {c.docs}"]
    return "\n".join(lines) + "\n"


def rule_markdown(c: Code) -> str:
    """One code's help as Markdown (a SARIF rule's ``help``: code scanning shows it)."""
    parts = [f"**{c.code} {c.name}** ({c.severity})", c.summary]
    if c.example:
        parts.append(f"Example: {c.example}")
    parts += [f"What to do: {c.fix}", f"Documentation: {c.docs}"]
    return "\n\n".join(parts)
