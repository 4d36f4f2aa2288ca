"""``--format github``: GitHub Actions workflow commands, one annotation a finding.

GitHub shows only the first annotations of a step, so findings are gathered and
printed most severe first (then by file and line); then the integrity lines (inputs'
SHA-256, profiles, version) and last the one-line summary of every finding. Escaping
follows the Actions toolkit: ``%``, CR and LF in the message, and also ``:`` and ``,``
in properties (any other control character is written as the text format writes it,
``\\x1b``), e.g.
``::error file=samples/disputed.yaml,line=22,title=P002 call-result::round 1: Call result recorded +1, ...``
"""

from __future__ import annotations

from ..audit.results import Finding, InputInfo, Summary
from ..escape import escape_data as escape_data  # re-exported: the annotations are written here
from ..escape import escape_property as escape_property
from ..models.codes import CODES, SEVERITY_ORDER
from .base import FindingsReporter, integrity_lines, summary_line

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def annotation(f: Finding) -> str:
    title = f"{f.code} {CODES[f.code].name}" if f.code in CODES else f.code
    props = f"file={escape_property(f.file)},line={f.line},title={escape_property(title)}"
    return f"::{LEVELS[f.severity]} {props}::{escape_data(f.message)}"


class GithubReporter(FindingsReporter):

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        ordered = sorted(self._findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.file, f.line))
        for f in ordered:
            self.out.write(annotation(f) + "\n")
        for line in integrity_lines(summary, inputs):
            self.out.write(line + "\n")
        self.out.write(summary_line(summary) + "\n")
