"""Where a finding is: how a record names itself, and the line of each field.

Why a place per record: the audit is one for both formats and words its findings
once; what differs is how a record is named ("round 3: ..." in format 1, "game g7,
player p1: ..." at a live table), which of a finding's fields say where (its ``round``,
or its ``game`` and ``player``), and what a void deal is said not to count toward. The
reader of each format (``audit/intake_rounds.py``, ``audit/intake_table.py``) makes
the places; the checks only say ``emit(code, message, field, expected, recorded)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..load.records import ExportDict, export_path_at, line_at
from ..models.codes import FindingCode
from ..rules.money import plain
from .results import Finding


@dataclass(frozen=True, slots=True)
class Place:
    """How the findings of one record say where they are."""

    #: Put before every message: ``round 3: `` or ``game g7, player p1: `` (or nothing).
    prefix: str = ""
    #: The finding's ``round`` field (format 1), and its ``game`` and ``player`` (format 2).
    round: int | None = None
    game: str | None = None
    player: str | None = None
    #: What a game is called in a sentence ("round", "game"): a void deal is "not counted".
    noun: str = "round"
    #: Whose stake a fixed-stake finding compares with: "the session's", "the player's".
    stake_owner: str = "the session's"
    stake_scope: str = ""


def round_place(number: int | None) -> Place:
    """A format-1 round's place: its number, in the message and in the finding. The
    places of the usual numbers are made once (every session counts from 1)."""
    if type(number) is int and 0 <= number < _KEPT:
        place = _ROUND_PLACES.get(number)
        if place is None:
            place = _ROUND_PLACES[number] = Place(f"round {number}: ", round=number)
        return place
    return Place(f"round {number}: " if number is not None else "", round=number)


#: Round places kept (a frozen place is shared): numbers below this, at most this many.
_KEPT = 100_000
_ROUND_PLACES: dict[int, Place] = {}


def game_place(game: str | None, player: str | None = None) -> Place:
    """A live table's game (and a seat's player): named in the message and the finding."""
    parts = [f"game {game}" if game is not None else "game ?"]
    if player is not None:
        parts.append(f"player {player}")
    return Place(", ".join(parts) + ": ", game=game, player=player, noun="game", stake_owner="the player's",
                 stake_scope=" in this session")


def field_path(field: str) -> tuple[str | int, ...]:
    """``flop[2]`` -> ``("flop", 2)``; ``recorded.net`` -> ``("recorded", "net")``."""
    path: list[str | int] = []
    for part in field.replace("[", ".[").split("."):
        if part.startswith("[") and part.endswith("]") and part[1:-1].isdigit():
            path.append(int(part[1:-1]))
        elif part:
            path.append(part)
    return tuple(path)


class Emitter:
    """Adds findings about one record (a game, or one seat of it) to its own list and
    the session's, each at the line of the field it is about."""

    __slots__ = ("data", "drop", "findings", "line", "place", "session")

    def __init__(self, session: Any, findings: list[Finding], data: Any, line: int, place: Place,
                 drop: tuple[FindingCode, ...] = ()) -> None:
        self.session = session
        self.findings = findings
        self.data = data
        self.line = line
        self.place = place
        #: Codes this record does not report (a seat's V003 when its game's is the one).
        self.drop = drop

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        if code in self.drop:
            return
        line = line_at(self.data, field_path(field), self.line) if field else self.line
        self.add(Finding(code, self.place.prefix + message, self.session.file, line, None, field or None,
                         plain(expected), plain(recorded)))

    def add(self, finding: Finding) -> None:
        """A finding made elsewhere (validation's), placed here."""
        if type(self.data) is ExportDict and finding.field and finding.export_field is None:
            exported = export_path_at(self.data, field_path(finding.field))
            if exported is not None:
                finding.export_field = exported
                finding.message += f" (in the export: {exported})"
        place = self.place
        finding.round, finding.game, finding.player = place.round, place.game, place.player
        self.findings.append(self.session.add(finding))
