"""The finding codes' catalogue as people read it: docs/findings.md, ``referee rule CODE``
and the rules of a SARIF report are all written from :data:`referee.models.codes.CODES`,
so a code's meaning and what to do about it are said once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class Code(Protocol):
    """A finding code as the catalogue reads it (:class:`referee.models.codes.Code`; a
    protocol here, so that the codes may write their docs through this module without an
    import cycle)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def example(self) -> str: ...
    @property
    def fix(self) -> str: ...
    @property
    def anchor(self) -> str: ...
    @property
    def docs(self) -> str: ...

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
