"""Records of one game, and records written twice: one finding each, never a cascade.

Two kinds of duplicates: a live table's game recorded again (two lines, two files, two
exports: the same cards and no player twice, else ``G001``/``G002``), judged over the
whole audit in the parent (:class:`GameIndex`); and format 1's record repeated verbatim,
the previous one again (one ``S003``, :func:`is_copy`), judged in the session.
"""

from __future__ import annotations

from typing import Any

from ..models import codes
from ..models.codes import FindingCode
from .games import GameFingerprint
from .results import Finding, SessionResult


def is_copy(data: Any, last: Any) -> bool:
    """Whether a record is the previous one again, value for value and type for type."""
    return data is not None and isinstance(data, dict) and data == last and same_record(data, last)


def same_record(a: Any, b: Any) -> bool:
    """Equal and of the same types all through: ``round: true`` is not a copy of
    ``round: 1`` (Python's ``True == 1``). Called only on records already equal."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(same_record(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return all(same_record(x, y) for x, y in zip(a, b, strict=True))
    return True


_FirstRecord = tuple[tuple[str, ...] | None, set[str] | tuple[str, ...], str, int]


class GameIndex:
    """Every game id of the audit, across sessions and files: a game recorded twice (two
    lines, two files, two exports) must carry the same cards and no player twice.

    Why in the parent: with ``--jobs`` two records of a game may be audited in two
    processes; the parent sees every game in file order, so one-process and parallel
    reports agree. A finding goes to the session being read when the second record
    comes (its game and player ids and line say where).

    The key is (table, game): a game id is unique at its table, so two tables (or two
    sessions naming different tables) may both have a game ``1``; sessions that name no
    table share one scope, as an export's game ids are unique per provider."""

    def __init__(self) -> None:
        #: By key: the cards, the players (a tuple until the game is seen again: most
        #: games never are, and a set of 200 ids a game was most of the parent's work
        #: for this index under --jobs), the file and line of the first record.
        self.games: dict[tuple[str | None, str], _FirstRecord] = {}
        self.pending: list[Finding] = []
        #: The kinds of the second records seen since the session was last settled.
        self.repeats: list[str] = []

    def see(self, fp: GameFingerprint) -> None:
        if fp.game is None:
            return
        key = (fp.table, fp.game)
        known = self.games.get(key)
        if known is None:
            self.games[key] = (fp.cards, fp.players, fp.file, fp.line)
            return
        self.repeats.append(fp.kind)
        cards, seated, file, line = known
        players = seated if isinstance(seated, set) else set(seated)
        self.games[key] = (cards, players, file, line)
        where = f"{file}:{line}"
        if fp.cards is not None and cards is not None and fp.cards != cards:
            self._add(fp, None, codes.G001, f"game {fp.game}: recorded again with other cards: {' '.join(fp.cards)} "
                      f"here, {' '.join(cards)} at {where}", " ".join(cards), " ".join(fp.cards))
        elif cards is None:
            self.games[key] = (fp.cards, players, file, line)
        for player in dict.fromkeys(fp.players):
            if player in players:
                self._add(fp, player, codes.G002, f"game {fp.game}, player {player}: seated again in a second record "
                          f"of the game (first at {where})", None, player)
        players.update(fp.players)

    def _add(self, fp: GameFingerprint, player: str | None, code: FindingCode, message: str, expected: Any,
             recorded: Any) -> None:
        self.pending.append(Finding(code, message, fp.file, fp.line, None, "game" if player is None else "player_id",
                                    expected, recorded, fp.session, game=fp.game, player=player))

    def settle(self, result: SessionResult) -> None:
        """The findings found while this session was read join its findings, and its
        games counted again (second records) are taken out of its game counts."""
        if self.pending:
            result.findings.extend(self.pending)
            self.pending = []
        if result.games is not None:
            for kind in self.repeats:
                result.games.uncount(kind)
        self.repeats = []
