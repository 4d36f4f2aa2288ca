"""``--format json``: the stable contract for scripts, written as it goes.

The document is streamed (rounds are written as they are audited), so a report of
a million rounds never sits in memory. Amounts are JSON numbers, exact.
"""

from __future__ import annotations

from typing import Any

from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..rules.money import dumps
from .base import (
    Reporter,
    finding_dict,
    input_dict,
    ledger_dict,
    referee_dict,
    round_dict,
    session_head,
    summary_dict,
)


def _dump(value: Any) -> str:
    return dumps(value, ensure_ascii=False, separators=(",", ":"))


class JsonReporter(Reporter):
    machine = True

    def start(self) -> None:
        self.out.write('{"referee":' + _dump(referee_dict()) + ',"sessions":[')
        self._sessions = 0
        self._rounds = 0
        self._problems: list[Finding] = []

    def session_opened(self, info: SessionInfo) -> None:
        head = _dump(session_head(info))
        self.out.write(("," if self._sessions else "") + "\n" + head[:-1] + ',"rounds":[')
        self._sessions += 1
        self._rounds = 0

    def round_payload(self, result: RoundResult) -> Any:
        return _dump(round_dict(result))

    def take_round(self, payload: Any) -> None:
        self.out.write(("," if self._rounds else "") + "\n" + payload)
        self._rounds += 1

    def session_closed(self, result: SessionResult) -> None:
        self.out.write('],"ledger":' + _dump(ledger_dict(result.ledger)) + ',"findings":'
                       + _dump([finding_dict(f) for f in result.findings]) + "}")

    def problem(self, finding: Finding) -> None:
        self._problems.append(finding)

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.out.write('\n],"problems":' + _dump([finding_dict(f) for f in self._problems])
                       + ',"inputs":' + _dump([input_dict(i) for i in inputs])
                       + ',"summary":' + _dump(summary_dict(summary, self.strict)) + "}\n")
