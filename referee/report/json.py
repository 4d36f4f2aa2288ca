"""``--format json``: the stable contract for scripts, written as it goes.

The document is streamed (rounds are written as they are audited), so a report of
a million rounds never sits in memory. Amounts are JSON numbers, exact.
"""

from __future__ import annotations

from typing import Any

from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..audit.table import GameResult, TableSessionInfo, TableSessionResult
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
from .table import game_dict, session_tail


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
        fields = session_head(info)
        if isinstance(info, TableSessionInfo):
            fields.update({"format": 2, "table": info.table, "currency": info.currency})
        head = _dump(fields)
        body = '"games":[' if isinstance(info, TableSessionInfo) else '"rounds":['
        self.out.write(("," if self._sessions else "") + "\n" + head[:-1] + "," + body)
        self._sessions += 1
        self._rounds = 0

    def round_payload(self, result: RoundResult) -> Any:
        return _dump(round_dict(result))

    def take_round(self, payload: Any) -> None:
        self.out.write(("," if self._rounds else "") + "\n" + payload)
        self._rounds += 1

    def game_payload(self, result: GameResult) -> Any:
        return _dump(game_dict(result))

    def take_game(self, payload: Any) -> None:
        self.take_round(payload)

    def session_closed(self, result: SessionResult) -> None:
        if isinstance(result, TableSessionResult):
            tail = session_tail(result)
            self.out.write('],"players":' + _dump(tail["players"]) + ',"ledger":' + _dump(tail["ledger"]))
        else:
            self.out.write('],"ledger":' + _dump(ledger_dict(result.ledger)))
        self.out.write(',"findings":' + _dump([finding_dict(f) for f in result.findings]) + "}")

    def problem(self, finding: Finding) -> None:
        self._problems.append(finding)

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.out.write('\n],"problems":' + _dump([finding_dict(f) for f in self._problems])
                       + ',"inputs":' + _dump([input_dict(i) for i in inputs])
                       + ',"summary":' + _dump(summary_dict(summary, self.strict)) + "}\n")
