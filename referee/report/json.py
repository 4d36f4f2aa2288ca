"""``--format json``: the stable contract for scripts, written as it goes.

The document is streamed (rounds are written as they are audited), so a report of
a million rounds never sits in memory. Amounts are JSON numbers, exact.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..audit.clean import CleanGame, CleanGames
from ..audit.fast import SHARED_LINES
from ..audit.games import GameResult
from ..audit.owed import table_paid
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..rules.money import encoder, plain
from ..rules.settlement import Ruling
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
from .spill import CleanText, write_text
from .table import clean_game_json, game_json, session_tail

_dump = encoder(ensure_ascii=False, separators=(",", ":"))


# The middle of a round's line (outcome to bottom line), once per memoised settlement
# and what the table paid (its bottom line's only figure of its own).
_MIDDLE: dict[tuple[int, str], str] = {}


def _templated(result: RoundResult, ruling: Ruling) -> str:
    """The line ``_dump(round_dict(result))`` writes, for a round without findings whose
    settlement is shared (the fast path's memo): only its number, line and balances
    are its own, and what the table paid. The tests compare both ways byte for byte."""
    key = (id(ruling.lines), str(table_paid(result)))
    middle = _MIDDLE.get(key)
    if middle is None:
        middle = _MIDDLE[key] = _middle(result)
    return _line(result.number, result.line, middle, result.balance, result.recorded_balance)


def _line(number: object, line: int, middle: str, balance: Decimal, recorded_balance: Decimal | None) -> str:
    """A round without findings whose settlement's text (``middle``) is already written."""
    return (f'{{"round":{number},"line":{line},{middle},"balance":{_number(balance)},'
            f'"recorded_balance":{_number(recorded_balance)},"findings":[]}}')


def _middle(result: RoundResult) -> str:
    """What a round's line says of its settlement (outcome to bottom line), unbraced."""
    whole = round_dict(result)
    part = {k: whole[k] for k in ("outcome", "void_reason", "player_hand", "dealer_hand", "dealer_qualified",
                                  "settlement", "bottom_line")}
    return _dump(part)[1:-1]


def _number(amount: Decimal | None) -> str:
    """An amount as ``_dump(plain(amount))`` writes it."""
    if amount is None:
        return "null"
    text = str(amount)
    if text.isdigit() or (text[0] == "-" and text[1:].isdigit() and text != "-0"):  # a whole number, as written
        return text
    value = plain(amount)
    return format(value, "f") if isinstance(value, Decimal) else str(value)


class JsonReporter(Reporter):
    machine = True
    spills = True

    def start(self) -> None:
        self.out.write('{"referee":' + _dump(referee_dict()) + ',"sessions":[')
        self._sessions = 0
        self._rounds = 0
        self._problems: list[Finding] = []

    def session_opened(self, info: SessionInfo) -> None:
        fields = session_head(info)
        if info.format == 2:
            fields.update({"format": 2, "table": info.table, "currency": info.currency})
        head = _dump(fields)
        body = '"games":[' if info.format == 2 else '"rounds":['
        self.out.write(("," if self._sessions else "") + "\n" + head[:-1] + "," + body)
        self._sessions += 1
        self._rounds = 0

    def round_payload(self, result: RoundResult) -> Any:
        ruling = result.ruling
        if (ruling is not None and not result.findings and type(result.number) is int
                and id(ruling.lines) in SHARED_LINES):
            return _templated(result, ruling)
        return _dump(round_dict(result))

    def take_round(self, payload: str) -> None:
        self.out.write(("," if self._rounds else "") + "\n" + payload)
        self._rounds += 1

    def clean_payload(self, rounds: CleanGames) -> CleanText:
        """The lines of a batch of clean rounds, as one text: each settlement's part
        written once (per lane entry), each round's own number, line and balances
        around it."""
        lines = []
        for r in rounds:
            middle = r.entry.views.get("json")
            if middle is None:
                middle = r.entry.views["json"] = _middle(r.round())
            lines.append(_line(r.number, r.line, middle, r.balance, r.recorded_balance))
        return CleanText(len(lines), ",\n".join(lines))

    def take_clean(self, payload: CleanText) -> None:
        if payload.count:
            self.out.write(("," if self._rounds else "") + "\n")
            write_text(self.out, payload.text)
            self._rounds += payload.count

    def game_payload(self, result: GameResult) -> Any:
        return game_json(result, _dump)

    def clean_game_payload(self, game: CleanGame) -> Any:
        return clean_game_json(game, _dump)

    def take_game(self, payload: Any) -> None:
        self.take_round(payload)

    def session_closed(self, result: SessionResult) -> None:
        if result.info.format == 2:
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
