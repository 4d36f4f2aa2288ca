"""Records of one game, and records written twice: one finding each, never a cascade.

Three kinds of duplicates: a live table's game recorded again (two lines, two files, two
exports: the same cards and no player twice, else ``G001``/``G002``), judged over the
whole audit in the parent (:class:`GameIndex`); format 1's record repeated verbatim,
the previous one again (one ``S003``, :func:`is_copy`), judged in the session; and a
format-1 session recorded again (``S010`` when its records are the same, ``S011`` when
they are not), each session's records digested where it is read (:class:`Content`) and
the digests compared over the whole audit in the parent (:class:`SessionIndex`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgspec

from ..load.plain import fast_mapping
from ..load.records import MAX_LIST_ITEMS, OversizedList
from ..models import codes
from ..models.codes import FindingCode
from .games import GameFingerprint
from .results import Finding, SessionInfo, SessionResult


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



def seat_once(seated: set[str], player_id: str) -> bool:
    """The test of G002 within a game: whether ``player_id`` is not seated yet among
    ``seated`` (the game's players so far: this record's and earlier records'), and then
    it is. A second seat of a player is not settled again. The full audit
    (``intake_table``, which then words the G002) and the fast lane (``lane.take_seat``)
    both ask it."""
    if player_id in seated:
        return False
    seated.add(player_id)
    return True

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


_ENCODER = msgspec.msgpack.Encoder()
#: Bytes gathered before they are hashed: one hash call for many rounds, not one a round.
_PENDING = 1 << 16


class Content:
    """What a format-1 session's records say, digested as they are read: its header and
    each round (and each round line that could not be read) in order.

    Why values, not bytes: the same session given twice is as often a copy with a comment
    added, or written again with other spacing, as the same file. A round the fast decode
    read is digested from its struct; a round read in full, from the same struct when the
    lane's reading of it makes one (so a round digests alike whichever way it was read),
    else from its values with their types (``round: true`` is not ``round: 1``).

    Each record is a kind byte, then its struct in MessagePack (which says its own length)
    or its values' text with its length, so that the bytes of a session say its records
    one way only; they are gathered and hashed (SHA-256: a record made to collide with
    another must not pass for it) a block at a time, the hot loop's share of the work
    being one encode into the block (about a sixth of the round's decode)."""

    __slots__ = ("hash", "pending", "records")

    def __init__(self, header: Any) -> None:
        self.hash = hashlib.sha256()
        self.pending = bytearray()
        self.records = 0
        self._text(b"H", _canonical(header))

    def __deepcopy__(self, memo: dict[int, Any]) -> Content:
        """A copy digesting on from here (``REFEREE_FAST=verify`` copies a session)."""
        copied = Content.__new__(Content)
        copied.hash, copied.pending, copied.records = self.hash.copy(), bytearray(self.pending), self.records
        return copied

    def fast(self, struct: Any) -> None:
        """A round the fast decode read (its struct)."""
        self.records += 1
        self._struct(struct)

    def data(self, value: Any) -> None:
        """A round read in full (its record as read)."""
        self.records += 1
        struct = fast_mapping(value) if isinstance(value, dict) else None
        if struct is not None:
            self._struct(struct)
        else:
            self._text(b"D", _canonical(value))

    def other(self, what: Any) -> None:
        """Anything else the session holds: a line that cannot be read, a misplaced record."""
        self.records += 1
        self._text(b"O", _canonical(what))

    def _struct(self, struct: Any) -> None:
        """A round's struct; one with a list too long for any record digested as its values
        are, as the YAML reader keeps such a list (its count: :func:`_normal`)."""
        dealer = struct.dealer
        if (len(struct.player) > MAX_LIST_ITEMS or len(struct.flop) > MAX_LIST_ITEMS
                or (dealer is not msgspec.UNSET and len(dealer) > MAX_LIST_ITEMS)):
            self._text(b"D", _canonical(_values(struct)))
            return
        pending = self.pending
        pending.append(70)  # "F"
        _ENCODER.encode_into(struct, pending, len(pending))
        if len(pending) >= _PENDING:
            self.hash.update(pending)
            pending.clear()

    def _text(self, kind: bytes, data: bytes) -> None:
        self.pending += kind + str(len(data)).encode() + b":" + data
        if len(self.pending) >= _PENDING:
            self.hash.update(self.pending)
            self.pending.clear()

    def digest(self) -> str:
        self.hash.update(self.pending)
        self.pending.clear()
        return self.hash.hexdigest()


def _canonical(value: Any) -> bytes:
    """A value's bytes, equal for equal values of equal types (mappings in any order)."""
    return repr(_normal(value)).encode("utf-8", "backslashreplace")


def _values(struct: Any) -> dict[str, Any]:
    """A struct's fields as the mapping it was read from (unset fields left out)."""
    out: dict[str, Any] = {}
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        if value is not msgspec.UNSET:
            out[name] = _values(value) if isinstance(value, msgspec.Struct) else value
    return out


def _normal(value: Any) -> Any:
    if isinstance(value, dict):
        return ("map", sorted(((repr(k), _normal(v)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_LIST_ITEMS:  # as the YAML reader keeps it: a count (no record holds one)
            return ("oversized", len(value))
        return ("list", [_normal(v) for v in value])
    if isinstance(value, OversizedList):
        return ("oversized", value.count)
    return (type(value).__name__, value)


@dataclass(frozen=True, slots=True)
class _FirstSession:
    """A record of a session seen before: its digest (32 bytes), where it is, how many
    records."""

    digest: bytes
    file: str
    line: int
    records: int


class SessionIndex:
    """Every format-1 session of the audit by id, across files: the same session recorded
    again (the same digest) is one ``S010`` and is not audited, counted or said again;
    another record under the same id (another digest) is one ``S011`` naming both places.

    Why in the parent, at the session's close: with ``--jobs`` two records of a session
    may be audited in two processes, and a session's digest is whole only at its end;
    the parent sees every session's close in file order, so one-process and parallel runs
    agree (:mod:`referee.pipeline.merge` holds a session whose id was seen before until
    its close says which it is). Kept small: one record an id (a list only for an id
    recorded more than once), about 250 bytes a session with its id."""

    def __init__(self) -> None:
        self.sessions: dict[str, _FirstSession | list[_FirstSession]] = {}

    def remember(self, ident: str, file: str, line: int, digest: str, records: int) -> None:
        """A record of session ``ident`` from before this audit (``check --store``: stored)."""
        self._add(ident, _FirstSession(bytes.fromhex(digest), file, line, records))

    def known(self, info: SessionInfo) -> bool:
        """Whether a session opening now has an id seen before (it may be a repeat)."""
        return info.format == 1 and info.id in self.sessions

    def judge(self, result: SessionResult) -> Finding | None:
        """Where the session closing now stands: None for a first record (or one never
        compared), else its finding: ``S010`` (a repeat: the caller drops it) or ``S011``
        (added to its findings here)."""
        info = result.info
        if info.format != 1 or result.digest is None:
            return None
        records = result.records
        here = _FirstSession(bytes.fromhex(result.digest), info.file, info.line, records)
        found = self.sessions.get(info.id)
        if found is None:
            self.sessions[info.id] = here
            return None
        seen = found if isinstance(found, list) else [found]
        if here in seen:
            return None  # itself, stored before (a stored source checked again)
        same = next((first for first in seen if first.digest == here.digest), None)
        if same is not None:
            return Finding(codes.S010, f"session {info.id}: the same session again (its header and "
                           f"{_rounds(records)} as at {same.file}:{same.line}): audited and counted there, not "
                           f"here", info.file, info.line, None, "session", f"{same.file}:{same.line}", None, info.id)
        self._add(info.id, here)
        first = seen[0]
        finding = Finding(codes.S011, f"session {info.id}: recorded again with other content than at "
                          f"{first.file}:{first.line} ({_rounds(records)} here, {_rounds(first.records)} there): "
                          f"one session has one record; both are audited and counted", info.file, info.line, None,
                          "session", f"{first.file}:{first.line}", f"{info.file}:{info.line}", info.id)
        result.findings.append(finding)
        return finding

    def _add(self, ident: str, record: _FirstSession) -> None:
        found = self.sessions.get(ident)
        if found is None:
            self.sessions[ident] = record
        elif isinstance(found, list):
            found.append(record)
        else:
            self.sessions[ident] = [found, record]


def _rounds(n: int) -> str:
    """Its rounds, as many as the session's records after its header (a round line that
    cannot be read is one)."""
    return f"{n} round{'s' * (n != 1)}"
