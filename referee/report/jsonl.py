"""``--format jsonl``: one finding a line (JSON), for log pipelines; nothing else.

Each line is a complete JSON object with the fields of a finding in ``--format json``
(code, name, severity, message, file, line, session, round, field, expected,
recorded), written as soon as its session closes.
"""

from __future__ import annotations

from ..audit.results import Finding, SessionResult
from ..rules.money import dumps
from .base import Reporter, finding_dict


class JsonLinesReporter(Reporter):
    machine = True

    def _write(self, finding: Finding) -> None:
        self.out.write(dumps(finding_dict(finding), ensure_ascii=False, separators=(",", ":")) + "\n")

    def session_closed(self, result: SessionResult) -> None:
        for f in result.findings:
            self._write(f)

    def problem(self, finding: Finding) -> None:
        self._write(finding)
