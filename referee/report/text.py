"""``--format text``: findings like a linter's, then the ledger reconciliation.

The ledger table is for people: a session of up to :data:`SHORT_SESSION` rounds
shows every round; a longer one shows its flagged rounds (those with a finding)
and says how many it left out, since a 200,000-row table is read by nobody and
costs more to lay out than the whole audit. ``--all-rows`` prints every row.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import click
from tabulate import tabulate

from ..audit.clean import CleanGame, CleanGames
from ..audit.games import GameCounts, GameResult
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..models import codes
from ..rules.money import fmt, signed
from .base import Reporter, integrity_lines, printable, second_records_phrase, summary_line
from .table import GAME_HEADERS, PLAYER_HEADERS, game_row, player_rows, table_totals

_SEVERITY_COLOR = {"error": "red", "warning": "yellow", "info": "cyan"}
SHORT_SESSION = 200
HEADERS = ("round", "decision", "player", "dealer", "qualified", "ante", "call", "bonus",
           "net", "net rec.", "balance", "bal. rec.", "status")


LEDGER_ALIGN = ("right", "left", "left", "left", "left") + ("right",) * 7 + ("left",)


def simple_table(rows: list[list[Any]], headers: tuple[str, ...], align: tuple[str, ...]) -> str:
    """``tabulate(rows, headers, tablefmt="simple", disable_numparse=True, colalign=align)``,
    byte for byte, for rows of plain ASCII (a test compares the two on random tables).

    Why not tabulate itself here: it infers a type for every cell, which cost a faulty
    200,000-round log's text report about 0.3 s for its flagged rows; other tables (and
    any cell it would measure differently, such as a wide character) still go to it."""
    cells = [["" if c is None else str(c).strip() for c in row] for row in rows]
    if not all(text.isascii() and text.isprintable() for row in cells for text in row):
        return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True, colalign=align)
    widths = [max(len(h) + 2, *(len(row[i]) for row in cells)) for i, h in enumerate(headers)]

    def line(row: list[str] | tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if a == "right" else c.ljust(w)
                         for c, w, a in zip(row, widths, align, strict=True)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *map(line, cells)])


def finding_line(f: Finding, color: bool = False) -> str:
    """``file:line: CODE [severity] message``, the shape editors and CI logs recognise."""
    code = click.style(f.code, fg=_SEVERITY_COLOR[f.severity], bold=True) if color else f.code
    return f"{printable(f.file)}:{f.line}: {code} [{f.severity}] {printable(f.message)}"


def _short(category: str | None) -> str:
    return category.replace("_", " ") if category else ""


def ledger_row(r: RoundResult) -> list[Any]:
    ruling = r.ruling
    record = r.record
    recorded = record.recorded if record else None
    status = round_status(r)
    if ruling is None:  # invalid, or its session's profile could not be loaded
        return [r.number, record.decision if record else "", "", "", "", "", "", "", "", "", fmt(r.balance), "",
                status]
    qualified = "" if ruling.dealer_qualified is None else ("yes" if ruling.dealer_qualified else "no")
    return [
        r.number, record.decision if record else "",
        _short(ruling.player_hand.category if ruling.player_hand else None),
        _short(ruling.dealer_hand.category if ruling.dealer_hand else None), qualified,
        signed(ruling.ante), signed(ruling.call), signed(ruling.bonus) if ruling.bonus_stake else "",
        signed(ruling.net),
        signed(recorded.net) if recorded is not None and recorded.net is not None else "",
        fmt(r.balance),
        fmt(recorded.balance) if recorded is not None and recorded.balance is not None else "",
        status,
    ]


def _unformatted(r: RoundResult) -> tuple[Any, ...]:
    """What :func:`ledger_row` writes of a ruled round, before formatting (small, picklable)."""
    ruling = r.ruling
    assert ruling is not None
    record = r.record
    recorded = record.recorded if record else None
    return (r.number, record.decision if record else "",
            ruling.player_hand.category if ruling.player_hand else None,
            ruling.dealer_hand.category if ruling.dealer_hand else None, ruling.dealer_qualified,
            ruling.ante, ruling.call, ruling.bonus if ruling.bonus_stake else None, ruling.net,
            recorded.net if recorded is not None else None, r.balance,
            recorded.balance if recorded is not None else None, round_status(r))


def _amounts(r: RoundResult) -> tuple[Any, ...]:
    """Ante, Call, bonus (None when not staked) and net, as :func:`_unformatted` keeps them."""
    ruling = r.ruling
    assert ruling is not None
    return ruling.ante, ruling.call, ruling.bonus if ruling.bonus_stake else None, ruling.net


class _CleanRows:
    """The unformatted rows of a batch of clean rounds (:func:`_unformatted`'s), made
    only when read: a long session prints none of them, so most never are. Under
    ``--jobs`` it crosses to the parent as a plain list of rows."""

    __slots__ = ("rounds",)

    def __init__(self, rounds: CleanGames) -> None:
        self.rounds = rounds

    def __len__(self) -> int:
        return len(self.rounds)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for r in self.rounds:
            yield _clean_row(r.number, _view(r), r.recorded_net, r.balance, r.recorded_balance)

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (list(self),)


def _view(r: CleanGame) -> tuple[Any, ...]:
    """What every clean round of one lane entry shows alike (decision to net), kept once."""
    view = r.entry.views.get("text")
    if view is None:
        e = r.entry
        view = e.views["text"] = (e.decision, e.player_category, e.dealer_category, e.qualified,
                                  *_amounts(r.round()))
    return view


def _clean_row(number: int | None, view: tuple[Any, ...], recorded_net: Any, balance: Any,
               recorded_balance: Any) -> tuple[Any, ...]:
    """:func:`_unformatted` of a clean round."""
    decision, player, dealer, qualified, ante, call, bonus, net = view
    status = _balance_off(recorded_balance, balance) or "ok"
    return (number, decision, player, dealer, qualified, ante, call, bonus, net, recorded_net, balance,
            recorded_balance, status)


def _formatted(raw: tuple[Any, ...]) -> list[Any]:
    """:func:`ledger_row` of the round :func:`_unformatted` read (the tests compare both)."""
    number, decision, player, dealer, qualified, ante, call, bonus, net, recorded_net, balance, recorded_balance, \
        status = raw
    return [
        number, decision, _short(player), _short(dealer),
        "" if qualified is None else ("yes" if qualified else "no"),
        signed(ante), signed(call), signed(bonus) if bonus is not None else "", signed(net),
        signed(recorded_net) if recorded_net is not None else "", fmt(balance),
        fmt(recorded_balance) if recorded_balance is not None else "", status,
    ]


def round_status(r: RoundResult) -> str:
    """A round's status: its finding codes; else "ok" only when every recorded field
    matches: a recorded balance that an earlier round put off (a finding there, none
    here) says by how much, ``bal. off -1``; else ``void`` or ``ok``."""
    codes = " ".join(sorted({f.code for f in r.findings}))
    if codes:
        return codes
    if r.ruling is None:
        return "not ruled"
    return _balance_off(r.recorded_balance, r.balance) or ("void" if r.ruling.outcome == "void" else "ok")


def _balance_off(recorded: Decimal | None, balance: Decimal) -> str | None:
    """``bal. off -1`` when a recorded balance parts from the rules' (an earlier round's
    finding says why), else None."""
    return f"bal. off {signed(recorded - balance)}" if recorded is not None and recorded != balance else None


def _marked(rows: list[list[Any]], findings: list[Finding], seconds: set[tuple[str | None, int]],
            flagged_only: bool) -> tuple[list[list[Any]], int]:
    """The game rows without their (game, line) key, and in the findings cell of a
    record the codes of the session's findings about it (``G001``, ``G002``: comparing
    it with an earlier record of its game, found after its row was made); a second
    record without one says so (``second record``, never ``ok``), and is left out where
    only the flagged rows are shown. Also how many of the rows are second records."""
    about: dict[tuple[str | None, int], set[str]] = {}
    for f in findings:
        if f.game is not None and f.code in (codes.G001, codes.G002):
            about.setdefault((f.game, f.line), set()).add(f.code)
    out = []
    second = 0
    for *row, key in rows:
        extra = about.get(key)
        if extra:
            row[-1] = " ".join(sorted(extra | set(row[-1].split()) - {"ok"}))
        if key in seconds:
            if row[-1] == "ok":
                if flagged_only:
                    continue
                row[-1] = "second record"
            second += 1
        out.append(row)
    return out, second


def _without_empty_wallet(rows: list[list[Any]]) -> tuple[list[list[Any]], list[str]]:
    """The rows and headers, without the wallet's net where no game shown has a wallet."""
    at = GAME_HEADERS.index("net (wallet)")
    if any(row[at] for row in rows):
        return rows, list(GAME_HEADERS)
    return [row[:at] + row[at + 1:] for row in rows], [h for i, h in enumerate(GAME_HEADERS) if i != at]


def _shown(games: int, seconds: int, counts: GameCounts) -> str:
    """Which of a long table's games the text shows, each count the one the summary says
    (:class:`referee.audit.games.GameCounts`), second records said apart."""
    also = ""
    if counts.second_records:
        also = f" (and {seconds} of {second_records_phrase(counts.second_records)})"
    return (f"{games} of {counts.games} game{'s' * (counts.games != 1)} shown{also}: a session over {SHORT_SESSION} "
            f"records shows those with a finding (--all-rows prints every record).")


class TextReporter(Reporter):
    """Per session: its findings, its ledger table, its totals; then the summary."""

    def __init__(self, *args: Any, all_rows: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.all_rows = all_rows

    def start(self) -> None:
        self._rows: list[list[Any]] = []
        self._flags: list[bool] = []
        self._seen = 0
        self._filtered = False
        self._games: set[str] = set()  # every game id seen (format 2), for a second record's row
        self._seconds: set[tuple[str | None, int]] = set()  # the (game, line) of each second record's row

    def _echo(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def session_opened(self, info: SessionInfo) -> None:
        self._rows, self._flags, self._seen, self._filtered = [], [], 0, False
        self._seconds = set()

    def round_payload(self, result: RoundResult) -> Any:
        """``(row, flagged)``; a row without findings is sent unformatted (most of a long
        session's rows are never printed), see :func:`_unformatted`."""
        if self.quiet:
            return None
        if result.findings or result.ruling is None:
            return ledger_row(result), bool(result.findings)
        return _unformatted(result), False

    def clean_payload(self, rounds: CleanGames) -> Any:
        """The rows of a batch of clean rounds, made only when read (:class:`_CleanRows`)."""
        return None if self.quiet else _CleanRows(rounds)

    def take_clean(self, payload: Any) -> None:
        """As :meth:`take_round` for each round; past a long session's first rows, an
        unflagged row is only counted, so the rest of the batch is counted at once."""
        if payload is None:
            return
        for i, row in enumerate(payload):
            if not self.all_rows and self._seen >= SHORT_SESSION:
                self.take_round((None, False))  # drops the unflagged rows kept so far, once
                self._seen += len(payload) - i - 1
                return
            self.take_round((row, False))

    def take_round(self, payload: Any) -> None:
        """Keep every row while the session is short; past that, the flagged ones only
        (so that memory stays flat however long the session)."""
        if payload is None:
            return
        row, flagged = payload
        self._seen += 1
        if self.all_rows or self._seen <= SHORT_SESSION:
            self._rows.append(row if isinstance(row, list) else _formatted(row))
            self._flags.append(flagged)
            return
        if not self._filtered:
            self._rows = [r for r, f in zip(self._rows, self._flags, strict=True) if f]
            self._flags, self._filtered = [], True
        if flagged:
            self._rows.append(row)

    def game_payload(self, result: GameResult) -> Any:
        """``(row, flagged)``; the row ends with the record's (game, line), which only
        :meth:`_table_closed` reads (see :meth:`take_game`)."""
        flagged = bool(result.findings) or any(s.findings for s in result.seats)
        return None if self.quiet else ([*game_row(result), (result.game, result.line)], flagged)

    def take_game(self, payload: Any) -> None:
        """As :meth:`take_round`; a record of a game already seen is kept flagged: whether
        it agrees with the first (``G001``, ``G002``) is found here, in this process, once
        every record before it is in (:class:`referee.audit.duplicates.GameIndex`), after its
        row was made."""
        if payload is None:
            return
        row, flagged = payload
        game = row[-1][0]
        if game is not None:
            if game in self._games:
                flagged = True  # until the session's findings say whether it agrees
                self._seconds.add(row[-1])
            self._games.add(game)
        self.take_round((row, flagged))

    def session_closed(self, result: SessionResult) -> None:
        info, ledger = result.info, result.ledger
        for f in sorted(result.findings, key=lambda f: f.line):
            self._echo(finding_line(f, self.color))
        if self.quiet:
            return
        if result.info.format == 2:
            self._table_closed(result)
            return
        title = (f"Session {printable(str(info.id))} ({printable(info.file)}:{info.line}), "
                 f"{printable(info.profile_said)}")
        self._echo(click.style(title, bold=True) if self.color else title)
        if self._rows:
            self._echo(simple_table(self._rows, HEADERS, LEDGER_ALIGN))
        if len(self._rows) < self._seen:
            self._echo(f"{len(self._rows)} of {self._seen} rounds shown: a session over {SHORT_SESSION} rounds "
                       f"shows the flagged ones (--all-rows prints every round).")
        rtp = f"{ledger.rtp:.2%}" if ledger.rtp is not None else "n/a"
        verdict = {"player": "the player wins", "bank": "the bank wins", "draw": "a draw"}[ledger.verdict]
        recorded = ""
        if ledger.recorded_closing_balance is not None:
            recorded = f"; recorded closing balance {fmt(ledger.recorded_closing_balance)}"
        self._echo(
            f"Counted rounds {ledger.counted_rounds}, void {ledger.void_rounds}, invalid {ledger.invalid_rounds}; "
            f"staked {fmt(ledger.staked)}, returned {fmt(ledger.returned)}, net {signed(ledger.net)}, "
            f"return to player {rtp}; closing balance {fmt(ledger.closing_balance)}{recorded}. "
            f"Session result {signed(ledger.net)}: {verdict}.")
        self._echo()

    def _table_closed(self, result: SessionResult) -> None:
        """A format-2 session: a line per game, a line per player, the table's totals."""
        info = result.info
        title = (f"Table session {printable(str(info.id))} ({printable(info.file)}:{info.line}), "
                 f"{printable(info.profile_said)}")
        self._echo(click.style(title, bold=True) if self.color else title)
        rows, seconds = _marked(self._rows, result.findings, self._seconds, self._filtered)
        if rows:
            self._echo(tabulate(*_without_empty_wallet(rows), tablefmt="simple", disable_numparse=True))
        if self._filtered:
            self._echo(_shown(len(rows) - seconds, seconds, result.games))
        self._echo()
        if result.players:
            self._echo(tabulate(player_rows(result), headers=PLAYER_HEADERS, tablefmt="simple",
                                disable_numparse=True))
        self._echo(table_totals(result))
        self._echo()

    def problem(self, finding: Finding) -> None:
        self._echo(finding_line(finding, self.color))

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        if not self.quiet:
            for line in integrity_lines(summary, inputs):
                self._echo(line)
        self._echo(summary_line(summary))
