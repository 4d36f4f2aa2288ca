"""``--format jsonl``: one finding a line (JSON), for log pipelines.

Each line is a complete JSON object with the fields of a finding in ``--format json``
(code, name, severity, message, file, line, session, round, field, expected,
recorded), written as soon as its session closes. The last line, the only one
without a ``code``, is the integrity record: the referee's version, each input's
size and SHA-256, each profile's SHA-256, and the summary.
"""

from __future__ import annotations

from ..audit.results import Finding, InputInfo, SessionResult, Summary
from ..rules.money import dumps
from .base import Reporter, finding_dict, input_dict, referee_dict, summary_dict


class JsonLinesReporter(Reporter):
    machine = True

    def _write(self, finding: Finding) -> None:
        self.out.write(dumps(finding_dict(finding), ensure_ascii=False, separators=(",", ":")) + "\n")

    def session_closed(self, result: SessionResult) -> None:
        for f in result.findings:
            self._write(f)

    def problem(self, finding: Finding) -> None:
        self._write(finding)

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        record = {"referee": referee_dict(), "inputs": [input_dict(i) for i in inputs],
                  "summary": summary_dict(summary, self.strict)}
        self.out.write(dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
