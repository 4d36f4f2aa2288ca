"""What the loaders yield: raw records with the line each came from.

Loaders know nothing of the format's meaning beyond "a session header" and "a
round"; validation is the models' job. Every mapping is a :class:`LineDict` so a
finding can point at the line of the very field it is about.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, cast

from ..models import codes
from ..models.codes import FindingCode


class LineDict(dict[str, object]):
    """A mapping that remembers its own line and the line of each key (1-based)."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.lines: dict[str, int] = {}

    def line_of(self, key: object) -> int:
        return self.lines.get(key, self.line) if isinstance(key, str) else self.line


class ExportDict(LineDict):
    """A format-2 record an importer made from a provider's export: for each key, where
    in the export its value came from (``where``: the expression that read it, the
    record's pointer, the record and its line), so that a finding names both the
    format-2 field and the export's own (``seats[1].ante`` and
    ``data[0].games[3].participants[1].bets[0].stake``) at that field's line. Lines and
    paths are worked out only when a finding asks: most fields never have one."""

    __slots__ = ("notation", "where")

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # one frame: an importer makes three a seat
        if args or kwargs:
            dict.__init__(self, *args, **kwargs)
        self.line = 0
        self.lines = {}
        #: By key: (getter, the record's pointer, the record, its line, its lines); a
        #: getter has ``path(pointer)`` and ``line_in(record, line)``; the lines, when
        #: not None, give an object of a record read with plain dicts its own line and
        #: its twin with lines (``referee.load.jsonio.RecordLines``), the line given
        #: being then its parent's.
        self.where: dict[str, tuple[Any, str, Any, int, Any]] = {}
        #: A game's: how the export spells a card (its mapping's ``CardReader``), so a
        #: did-you-mean for a token that is no card is spelt as the export spells.
        self.notation: Any = None

    def line_of(self, key: object) -> int:
        found = self.where.get(key) if isinstance(key, str) else None
        if found is None:
            return super().line_of(key)
        getter, _, record, line, lines = found
        if lines is None:
            return int(getter.line_in(record, line))
        return int(getter.line_in(lines.twin(record), lines.line(record, line)))

    def path_of(self, key: str) -> str | None:
        found = self.where.get(key)
        return None if found is None else str(found[0].path(found[1]))


def export_path_at(data: object, path: tuple[int | str, ...]) -> str | None:
    """The export's field path of the deepest element of ``path`` an importer recorded
    (None for a record that was not imported)."""
    found = None
    node = data
    for key in path:
        if isinstance(node, ExportDict) and isinstance(key, str):
            found = node.path_of(key) or found
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        elif isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        else:
            break
    return found


class LineList(list[Any]):
    """A card list written one item per line (a YAML block list): the line of each item,
    so a finding on a card points at the card's own line. Flow lists stay plain lists."""

    __slots__ = ("lines",)

    def __init__(self, items: list[Any], lines: list[int]) -> None:
        super().__init__(items)
        self.lines = lines


#: The most items a YAML list other than ``rounds``, ``sessions``, ``games``, ``seats``
#: keeps (:mod:`referee.load.yamlio`); past it, an :class:`OversizedList` counts them.
MAX_LIST_ITEMS = 1000


class OversizedList:
    """Stands for a list too long to be what the format expects (a million cards):
    the loader counts its items instead of keeping them, so memory stays bounded."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def __repr__(self) -> str:
        return f"<a list of {self.count:,} items>"


def key_line(data: object, key: str, default: int) -> int:
    """Line of ``key`` in ``data`` when it is a :class:`LineDict`, else ``default``."""
    return data.line_of(key) if isinstance(data, LineDict) else default


def line_at(data: object, path: tuple[int | str, ...], default: int) -> int:
    """Line of the deepest element of ``path`` that carries a line."""
    line = default
    node = data
    for key in path:
        if isinstance(node, LineDict):
            line = node.line_of(key) or line
            node = node.get(key) if isinstance(key, str) else None
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            if isinstance(node, LineList):
                line = node.lines[key] or line
            node = node[key]
            if isinstance(node, LineDict):
                line = node.line or line
        else:
            break
    return line


@dataclass(slots=True)
class SessionRecord:
    """A session header as read (``data`` is None when the document has none)."""

    source: str
    line: int
    data: Any
    index: int = 0
    #: 2 for a live-table session (games and seats, ``referee.models.table``); 0 when only
    #: the records that follow can tell (a JSON Lines session line).
    format: int = 1


@dataclass(slots=True)
class RoundRecord:
    """One round as read; ``data`` may be anything the file held."""

    source: str
    line: int
    data: Any


@dataclass(slots=True)
class GameRecord:
    """One game of a format-2 session as read (its seats inline or not)."""

    source: str
    line: int
    data: Any
    #: Made by an importer from an export record (``referee.load.exports.games``): its
    #: ``data`` is the record as imported, its times already read as times.
    imported: ClassVar[bool] = False


@dataclass(slots=True)
class SeatRecord:
    """A JSON Lines seat line: ``data`` is the whole line (``game`` and ``seat``)."""

    source: str
    line: int
    data: Any


@dataclass(slots=True)
class LoadProblem:
    """Input that could not be read.

    ``fatal`` problems stop the reading of the file (bad syntax, wrong encoding): the
    file could not be read in full, which exits 2. Others concern one record.
    """

    source: str
    line: int
    message: str
    code: FindingCode = codes.H004
    fatal: bool = False
    #: The number of a round whose line cannot be read, when the line still shows it.
    round_number: int | None = None
    #: An unreadable session line: the rounds after it belong to no session.
    ends_session: bool = False
    #: An export's record that does not fit its mapping: the export's path of the field.
    export_field: str | None = None


class PlainRound(NamedTuple):
    """A JSON Lines round line the fast decode read (``referee.load.plain``): its bytes
    and its struct. The fast lane audits it from the struct; anything else asks for
    :meth:`full`, the reader's own reading of the same bytes, so a line is never read
    two ways. A tuple (one a line: made in half a slotted object's time), read by name."""

    source: str
    line: int
    #: The line's bytes (a :class:`MappedRound`'s: the record it was made from).
    raw: Any
    fast: Any

    def full(self) -> RoundRecord | LoadProblem:
        assert _REREAD is not None, "the JSON Lines reader reads round lines"
        return _REREAD(self.source, self.line, self.raw)


#: The JSON Lines reader's reading of one round line (:func:`rereads_rounds_with`).
_REREAD: Callable[[str, int, bytes], RoundRecord | LoadProblem] | None = None


def rereads_rounds_with(reader: Callable[[str, int, bytes], RoundRecord | LoadProblem]) -> None:
    """How :meth:`PlainRound.full` reads its line (set by the JSON Lines reader)."""
    global _REREAD
    _REREAD = reader


class MappedRound(PlainRound):
    """A round a document reader (YAML, JSON) read as a mapping, with its struct made
    from that mapping (``referee.load.plain.fast_mapping``): ``raw`` is the record
    itself, which :meth:`full` gives back as it was read."""

    __slots__ = ()

    def full(self) -> RoundRecord | LoadProblem:
        return cast(RoundRecord, self.raw)


Record = SessionRecord | RoundRecord | GameRecord | SeatRecord | LoadProblem | PlainRound
