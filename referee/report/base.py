"""The interface every reporter implements, and the pieces they share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from .. import __version__
from ..audit.clean import CleanGame, CleanGames
from ..audit.games import GameResult
from ..audit.owed import BottomLine, bottom_line
from ..audit.results import Finding, InputInfo, Ledger, RoundResult, SessionInfo, SessionResult, Summary
from ..escape import printable as printable
from ..models import codes
from ..models.codes import CODES
from ..profiles import custom_words
from ..rules.money import plain
from .shapes import (
    BottomJSON,
    FindingJSON,
    InputJSON,
    LedgerJSON,
    RefereeJSON,
    RoundJSON,
    SessionHeadJSON,
    SettlementJSON,
    SummaryJSON,
)


class Reporter:
    """Receives audit events in file order; writes as it goes (streaming)."""

    #: Machine formats never print progress or colour.
    machine = False
    #: Its payloads are texts that concatenate: under ``--jobs`` a run of games' texts
    #: reaches ``take_clean`` joined into one :class:`~referee.report.spill.CleanText`
    #: (``",\n"`` between them), and a long text may arrive spilled by a worker
    #: (:mod:`referee.report.spill`), to be written with ``write_text``.
    spills = False

    def __init__(self, out: TextIO, *, color: bool = False, quiet: bool = False, strict: bool = False) -> None:
        self.out = out
        self.color = color
        self.quiet = quiet
        self.strict = strict

    def start(self) -> None:
        """Before the first event."""

    def session_opened(self, info: SessionInfo) -> None:
        """A session begins."""

    def round_payload(self, result: RoundResult) -> Any:
        """What this format keeps of a round (a game of a format-1 session, seen as the
        round it is: :func:`referee.audit.games.round_view`), computed where the round
        was audited.

        Every round goes through here, then :meth:`take_round`, in one process or
        several. Must not depend on the reporter's state: with ``--jobs`` it runs in a
        worker process and only the payload (small, picklable) travels back.
        """
        return None

    def take_round(self, payload: Any) -> None:
        """Add one round's payload to the report, in file order."""

    def clean_payload(self, rounds: CleanGames) -> Any:
        """What this format keeps of a batch of the fast lane's clean rounds (games of a
        format-1 session); pure, like :meth:`round_payload`. By default each round's full
        result goes through :meth:`round_payload` (a format that keeps nothing of a round
        skips even that); a format on the hot path writes straight from the rounds'
        shared settlements."""
        if type(self).round_payload is Reporter.round_payload:
            return None
        return [self.round_payload(r.round()) for r in rounds]

    def take_clean(self, payload: Any) -> None:
        """Add a batch's payload (see :meth:`clean_payload`), in file order."""
        if payload is not None:
            for one in payload:
                self.take_round(one)

    def game_payload(self, result: GameResult) -> Any:
        """What this format keeps of a format-2 game (its seats included); pure, like
        :meth:`round_payload`."""
        return None

    def clean_game_payload(self, game: CleanGame) -> Any:
        """:meth:`game_payload` of a game the fast lane took whole (taken by
        :meth:`take_game` alike); by default from its full result, made only for a
        format that keeps something of a game."""
        if type(self).game_payload is Reporter.game_payload:
            return None
        return self.game_payload(game.result())

    def clean_games_payload(self, games: CleanGames) -> list[Any]:
        """The payloads of a batch of games the fast lane took whole (format 2), each
        taken by :meth:`take_game` in order; pure, like :meth:`round_payload`. By default
        :meth:`clean_game_payload` of each game; a format that keeps such games by the
        batch (the store's runs of them) gives fewer, each of several games."""
        return [self.clean_game_payload(game) for game in games]

    def take_game(self, payload: Any) -> None:
        """Add one game's payload (or a batch's, :meth:`clean_games_payload`) to the
        report, in file order."""

    def session_closed(self, result: SessionResult) -> None:
        """A session ends, with its ledger and findings."""

    def problem(self, finding: Finding) -> None:
        """A problem outside any session (an unreadable file, an orphan record)."""

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        """After the last event."""


class FindingsReporter(Reporter):
    """A format that writes the audit's findings alone, all at the end (GitHub
    annotations, SARIF, GitLab Code Quality): every session's findings and every problem
    outside a session are kept, in the order they came, for :meth:`finish`."""

    machine = True

    def start(self) -> None:
        self._findings: list[Finding] = []

    def session_closed(self, result: SessionResult) -> None:
        self._findings.extend(result.findings)

    def problem(self, finding: Finding) -> None:
        self._findings.append(finding)


def finding_dict(f: Finding) -> FindingJSON:
    found: FindingJSON = {
        "code": f.code, "name": CODES[f.code].name, "severity": f.severity, "message": f.message,
        "file": f.file, "line": f.line, "session": f.session, "round": f.round, "field": f.field,
        "expected": f.expected, "recorded": f.recorded,
    }
    if f.game is not None or f.player is not None:  # format 2 only: format 1's findings keep their shape
        found["game"] = f.game
        found["player"] = f.player
    if f.export_field is not None:  # an imported export's own field path
        found["export_field"] = f.export_field
    return found


def ledger_dict(ledger: Ledger) -> LedgerJSON:
    return {
        "counted_rounds": ledger.counted_rounds, "void_rounds": ledger.void_rounds,
        "invalid_rounds": ledger.invalid_rounds, "staked": plain(ledger.staked),
        "returned": plain(ledger.returned), "net": plain(ledger.net),
        "rtp": None if ledger.rtp is None else round(ledger.rtp, 6), "verdict": ledger.verdict,
        "opening_balance": plain(ledger.opening_balance), "closing_balance": plain(ledger.closing_balance),
        "recorded_closing_balance": plain(ledger.recorded_closing_balance),
        "recorded_net": plain(ledger.recorded_net) if ledger.recorded_nets else None,
        "owed_to_player": plain(ledger.owed_player), "owed_to_house": plain(ledger.owed_house),
    }


def bottom_json(bottom: BottomLine) -> BottomJSON:
    """The bottom line as fields (``owed``: over 0 to the player, under 0 to the house):
    ``explain --format json``'s, and a round's or a seat's in ``check --format json``."""
    off = bottom.balance
    return {"paid": plain(bottom.paid), "recorded": plain(bottom.recorded), "wallet": plain(bottom.wallet),
            "rules": plain(bottom.rules), "owed": plain(bottom.owed),
            "owed_to": bottom.owed_to,
            "balance": None if off is None else {"recorded": plain(off.recorded), "expected": plain(off.expected),
                                                 "favours": off.favours}}


def round_dict(r: RoundResult) -> RoundJSON:
    ruling = r.ruling
    bottom = bottom_line(r)
    settlement: SettlementJSON | None = None
    if ruling is not None:
        settlement = {
            "ante": plain(ruling.ante), "call": plain(ruling.call), "bonus": plain(ruling.bonus),
            "net": plain(ruling.net), "returned": plain(ruling.returned), "staked": plain(ruling.staked),
        }
    return {
        "round": r.number, "line": r.line,
        "outcome": ruling.outcome if ruling else None,
        "void_reason": ruling.void_reason if ruling else None,
        "player_hand": ruling.player_hand.category if ruling and ruling.player_hand else None,
        "dealer_hand": ruling.dealer_hand.category if ruling and ruling.dealer_hand else None,
        "dealer_qualified": ruling.dealer_qualified if ruling else None,
        "settlement": settlement,
        "bottom_line": None if bottom is None else bottom_json(bottom),
        "balance": plain(r.balance),
        "recorded_balance": plain(r.recorded_balance),
        "findings": [finding_dict(f) for f in r.findings],
    }


#: The recorded fields that are money: a finding on one is where the record parts from the rules.
MONEY_FIELDS = frozenset({"recorded.ante", "recorded.call", "recorded.bonus", "recorded.net", "recorded.returned",
                          "recorded.balance"})


def parts_from_rules(result: RoundResult) -> bool:
    """Whether this round's record parts from the rules in money: a finding on a recorded
    amount or balance, or a void deal settled (or a valid one voided). The audit gives
    one finding per root cause, so a balance an earlier round put off is not marked again."""
    return any(f.field in MONEY_FIELDS or f.code in (codes.V001, codes.V002) for f in result.findings)


def session_head(info: SessionInfo) -> SessionHeadJSON:
    """A session's opening fields; ``profile_default`` only when nobody named its profile,
    ``custom_profile`` only when a profile file rules it."""
    head: SessionHeadJSON = {
        "id": info.id, "file": info.file, "line": info.line, "profile": info.profile,
        "profile_origin": str(info.profile_origin) if info.profile_origin else None,
        "profile_sha256": info.profile_sha256,
    }
    if info.profile_defaulted:
        head["profile_default"] = True
    if info.custom_profile:
        head["custom_profile"] = info.profile_said
    return head


def input_dict(i: InputInfo) -> InputJSON:
    """An input as the JSON reports give it: ``size`` and ``sha256`` are null for an
    input that could not be opened (never ``0`` and an empty digest); a compressed log's
    text too."""
    found: InputJSON = {"file": i.file, "kind": i.kind, "size": i.size if i.hashed else None,
                        "sha256": i.sha256 if i.hashed else None, "readable": i.readable}
    if i.compression is not None:
        found["compression"] = i.compression
        found["uncompressed_size"] = i.text_size
        found["uncompressed_sha256"] = i.text_sha256
    return found


def input_line(i: InputInfo) -> str:
    """An input's integrity line: the bytes on disk, and a compressed log's text too; an
    input that could not be opened says so (no size, no SHA-256)."""
    if not i.hashed:
        return f"input {printable(i.file)}: not read (it could not be opened: no size, no SHA-256)"
    line = f"input {printable(i.file)}: {i.size} bytes, sha256 {i.sha256}"
    if i.compression is not None and i.text_sha256:
        line += f" ({i.compression}; uncompressed {i.text_size} bytes, sha256 {i.text_sha256})"
    return line


def summary_dict(summary: Summary, strict: bool) -> SummaryJSON:
    found: SummaryJSON = {
        "files": summary.files, "sessions": summary.sessions, "rounds": summary.rounds,
        "counted_rounds": summary.counted_rounds, "void_rounds": summary.void_rounds,
        "invalid_rounds": summary.invalid_rounds, "staked": plain(summary.staked),
        "returned": plain(summary.returned), "net": plain(summary.net),
        "findings": summary.findings, "by_severity": dict(sorted(summary.by_severity.items())),
        "by_code": dict(sorted(summary.by_code.items())), "unreadable_files": summary.unreadable,
        "exit_code": summary.exit_code(strict),
        "profiles": [{"origin": o, "sha256": h} for o, h in sorted(summary.profiles.items())],
        "owed_to_player": plain(summary.owed_player), "owed_to_house": plain(summary.owed_house),
    }
    if summary.games:
        found["games"] = dict(summary.games)
    if summary.transactions:
        found["transactions"] = summary.transactions
    if summary.mappings:
        found["mappings"] = [{"origin": o, "sha256": h} for o, h in sorted(summary.mappings.items())]
    if summary.custom_profiles:
        found["custom_profiles"] = [{"name": name, "origin": o, "sha256": h}
                                    for o, (name, h) in sorted(summary.custom_profiles.items())]
    if summary.ignored:
        found["ignored"] = dict(sorted(summary.ignored.items()))
    if summary.configuration is not None:
        path, sha, keys = summary.configuration
        found["configuration"] = {"path": path, "sha256": sha, "sets": list(keys)}
    if summary.baseline is not None:
        found["baseline"] = {"path": summary.baseline[0], "sha256": summary.baseline[1]}
    return found


def referee_dict() -> RefereeJSON:
    return {"name": "referee", "version": __version__, "format_version": 1}


def integrity_lines(summary: Summary, inputs: list[InputInfo]) -> list[str]:
    """What the report proves it audited: each input's size and SHA-256, each profile's
    SHA-256, and the referee's version."""
    lines = [input_line(i) for i in inputs]
    lines += [f"profile {printable(origin)}: sha256 {sha}" for origin, sha in sorted(summary.profiles.items())]
    lines += [f"mapping {printable(origin)}: sha256 {sha}" for origin, sha in sorted(summary.mappings.items())]
    if summary.configuration is not None:
        path, sha, keys = summary.configuration
        sets = f" (sets {', '.join(keys)})" if keys else ""
        lines.append(f"configuration {printable(path)}: sha256 {sha}{sets}")
    if summary.baseline is not None:
        lines.append(f"baseline {printable(summary.baseline[0])}: sha256 {summary.baseline[1]}")
    lines.append(f"referee {__version__}")
    return lines


def second_records_phrase(count: int) -> str:
    """The records of a game already recorded, said apart from the games (never one of them)."""
    return f"{count} second record{'s' * (count != 1)} of a game"


def games_phrase(g: Mapping[str, int]) -> str:
    """The games of a table, counted once however often a game was recorded: the one
    count (:class:`referee.audit.games.GameCounts`) every view says."""
    seconds = g.get("second_records", 0)
    also = f", {second_records_phrase(seconds)}" if seconds else ""
    return (f"{g['games']} game{'s' * (g['games'] != 1)} ({g['counted']} counted, {g['void']} void, "
            f"{g['cancelled']} cancelled, {g['invalid']} invalid) with {g['seats']} seat{'s' * (g['seats'] != 1)}"
            f"{also}")


def ignored_words(ignored: dict[str, int]) -> str:
    """What the view hid, said in the summary line: ``; 3 ignored by pyproject.toml``,
    ``; 5 ignored (3 by pyproject.toml, 2 by --ignore)``; nothing when none was."""
    if not ignored:
        return ""
    total = sum(ignored.values())
    if len(ignored) == 1:
        return f"; {total} ignored by {printable(next(iter(ignored)))}"
    each = ", ".join(f"{n} by {printable(why)}" for why, n in sorted(ignored.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"; {total} ignored ({each})"


def summary_line(summary: Summary) -> str:
    """One line over everything audited, for every format's closing word."""
    parts = [f"{summary.files} file{'s' * (summary.files != 1)}",
             f"{summary.sessions} session{'s' * (summary.sessions != 1)}"
             + (f" ({summary.repeated} more given again)" if summary.repeated else "")]
    if summary.games:
        g = summary.games
        parts.append(games_phrase(g))
    if summary.rounds or not (summary.games or summary.transactions):
        parts.append(f"{summary.rounds} round{'s' * (summary.rounds != 1)} ({summary.counted_rounds} counted, "
                     f"{summary.void_rounds} void, "
                     f"{summary.invalid_rounds} invalid)")
    if summary.transactions:
        parts.append(f"{summary.transactions} wallet transaction{'s' * (summary.transactions != 1)}")
    if summary.findings:
        sev = ", ".join(f"{n} {k}{'s' * (n != 1)}" for k, n in sorted(summary.by_severity.items()))
        codes = " ".join(f"{c}×{n}" for c, n in sorted(summary.by_code.items()))
        found = f"{summary.findings} finding{'s' * (summary.findings != 1)} ({sev}): {codes}"
    else:
        found = "no findings"
    unreadable = (f"; {summary.unreadable} file{'s' * (summary.unreadable != 1)} unreadable"
                  if summary.unreadable else "")
    return f"{', '.join(parts)}: {found}{unreadable}{custom_said(summary)}{ignored_words(summary.ignored)}"


def custom_said(summary: Summary) -> str:
    """``; custom profile house-7 (logs/house.yaml, sha256 ...)`` for each profile file a
    session was ruled by: the summary never lets a custom paytable pass for a published one."""
    return "".join(f"; {printable(custom_words(name, origin, sha))}"
                   for origin, (name, sha) in sorted(summary.custom_profiles.items()))
