"""Reading format 2 (the live table): documents with ``format: 2`` and JSON Lines.

Why records and not models here: like format 1, the loader only says which mapping
is a session, a game or a seat, with its line; validation is the audit's job, so one
bad seat is one finding and the rest of the table is still audited.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ..escape import quoted
from ..models import codes
from ..models.common import MAX_ROUND, suggest
from .records import GameRecord, LineDict, LoadProblem, Record, SeatRecord, SessionRecord, key_line

TOP_KEYS = ("format", "session", "games")
FORMAT_KEY = "format"


def is_table_document(data: Any) -> bool:
    """A YAML or JSON document of format 2 says so: ``format: 2``."""
    return isinstance(data, dict) and data.get(FORMAT_KEY) == 2 and not isinstance(data.get(FORMAT_KEY), bool)


def table_document(name: str, data: dict[str, object], index: int = 0) -> Iterator[Record]:
    """The session of a format-2 document, then each game (seats inline)."""
    for key in data:
        if key not in TOP_KEYS:
            yield LoadProblem(name, key_line(data, key, 1), f"unknown key {quoted(key)}{suggest(str(key), TOP_KEYS)}",
                              code=codes.H002)
    line = key_line(data, "session", data.line if isinstance(data, LineDict) else 1)
    yield SessionRecord(name, line, data.get("session"), index, format=2)
    games = data.get("games")
    if games is None:
        yield LoadProblem(name, line, "the session has no 'games' list", code=codes.H001)
        return
    if not isinstance(games, list):
        yield LoadProblem(name, key_line(data, "games", line), "'games' is a list of games", code=codes.H001)
        return
    for item in games:
        item_line = item.line if isinstance(item, LineDict) else key_line(data, "games", line)
        yield GameRecord(name, item_line, item)


def table_line(name: str, number: int, data: LineDict) -> Record | None:
    """A JSON Lines line with a ``seat`` or a ``game`` key, as its record; None for
    any other line (format 1 reads it)."""
    if "seat" in data:
        return SeatRecord(name, number, data)
    if "game" in data:
        return GameRecord(name, number, data)
    return None


# ----------------------------------------------------------------------------- plain lines (the fast path)
#
# Why: reading a seat with ``json`` (a LineDict per mapping, exact decimals) and then
# validating it with pydantic costs about 35 us; msgspec decodes the same line into typed
# structs in under 1 us. A line is taken this way only when the structs prove it is
# exactly what the general reader and the models would accept, with the same values;
# anything else (an unknown key, ``null``, a string where a number goes, a bool, a
# duplicate key, text the structs do not allow) is read by the general reader as before.
#
# Duplicate keys: msgspec keeps the last one silently, where the general reader refuses
# the line (H003). No string of the line holds a ``"``: the line has no ``\"`` nor
# ``\u0022`` (the only ways to write one in a string). So each quote of the raw line
# opens or closes a key or a string value, and the line has no duplicate key exactly
# when it holds as many quotes as the struct encoded again (keys present plus string
# values, two quotes each). A second key, or an amount written as a string ("1", which
# msgspec would read as a Decimal), adds quotes. A line that is the struct's own
# encoding, as msgspec writes it (then only blanks), needs no count: it cannot hold a
# key twice.
#
# Strings are constrained as the models constrain them (lengths, fixed words), by
# msgspec; a line without any backslash has no string that JSON would escape, so the
# JSON report may write its ids as they are (``PlainGameRecord.escaped``).

_Text = str
_Id = Annotated[str, Meta(min_length=1, max_length=500)] | int
_WalletId = Annotated[str, Meta(min_length=1, max_length=500)]
_Reference = Annotated[str, Meta(max_length=500)]
_Token = Annotated[str, Meta(max_length=16)]
_Cards = Annotated[list[_Token], Meta(max_length=52)]
_Category = Literal["royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
                    "three_of_a_kind", "two_pair", "pair", "high_card"]
_Outcome = Literal["fold", "win", "lose", "push", "void"]
_STAKE_INT = Annotated[int, Meta(ge=0, le=10**12)]
_MONEY_INT = Annotated[int, Meta(ge=-10**18, le=10**18)]  # pydantic allows 10^24: beyond int64, read in full


#: The fields of a plain seat's ``recorded``, in order: ``balance`` last, as the audit's
#: memo key is the others (audit/table.py).
RECORDED_STRUCT_FIELDS = ("void", "void_reason", "outcome", "player_hand", "dealer_hand", "dealer_qualified", "ante",
                          "call", "bonus", "net", "returned", "balance")


def _structs(decimals: bool) -> tuple[type[Any], type[Any], type[Any]]:
    """The struct of a seat, of a seat line and of a game line. Amounts are whole numbers
    in range (checked by msgspec); with ``decimals`` they may also be Decimals, which
    the audit checks as pydantic would (places, range, no -0)."""
    stake: Any = _STAKE_INT | Decimal if decimals else _STAKE_INT
    money: Any = _MONEY_INT | Decimal if decimals else _MONEY_INT
    opts: dict[str, Any] = {"forbid_unknown_fields": True, "gc": False}
    unset: Any = UnsetType
    wallet = msgspec.defstruct("PlainWallet", [
        ("id", _WalletId), ("kind", Literal["debit", "credit", "cancel", "refund"]), ("amount", stake),
        ("reference", _Reference | unset, UNSET)], **opts)
    types = {"void": bool, "void_reason": _Text, "outcome": _Outcome, "player_hand": _Category,
             "dealer_hand": _Category, "dealer_qualified": bool}
    recorded = msgspec.defstruct("PlainRecorded", [(name, types.get(name, money) | unset, UNSET)
                                                   for name in RECORDED_STRUCT_FIELDS], **opts)
    seat = msgspec.defstruct("PlainSeat", [
        ("player_id", _Id), ("ante", stake), ("decision", Literal["call", "fold"]), ("bonus", stake | unset, UNSET),
        ("call", stake | unset, UNSET), ("player", _Cards | unset, UNSET), ("recorded", recorded | unset, UNSET),
        ("wallet", Annotated[list[wallet], Meta(max_length=1000)] | unset, UNSET)],  # type: ignore[valid-type]
        **opts)
    seat_line = msgspec.defstruct("PlainSeatLine", [("game", _Id), ("seat", seat)], **opts)
    game = msgspec.defstruct("PlainGame", [
        ("game", _Id), ("round", Annotated[int, Meta(ge=0, le=MAX_ROUND)] | unset, UNSET),
        ("started", _Text | unset, UNSET), ("settled", _Text | unset, UNSET), ("status", _Text | unset, UNSET),
        ("dealer_id", _Text | unset, UNSET), ("player", _Cards | unset, UNSET), ("flop", _Cards | unset, UNSET),
        ("turn", _Token | unset, UNSET), ("river", _Token | unset, UNSET), ("dealer", _Cards | unset, UNSET),
        ("seats", Annotated[list[seat], Meta(max_length=100_000)] | unset, UNSET),  # type: ignore[valid-type]
        ("meta", dict[str, object] | unset, UNSET)],  # kept, not audited: an import's provenance
        **opts)
    return seat, seat_line, game


_WHOLE = _structs(False)
_DECIMAL = _structs(True)
#: The seat struct whose amounts are all integers (no Decimal in it): what the store
#: writes of such a seat is msgspec's own encoding (referee/store/codec.py).
WHOLE_SEATS = frozenset({_WHOLE[0]})
#: The fields of a plain game line, in order (both struct families).
GAME_STRUCT_FIELDS: tuple[str, ...] = _WHOLE[2].__struct_fields__
#: Decoders by (kind, decimals): kind 1 a game line, 2 a seat line.
_DECODERS = {(kind, decimals): msgspec.json.Decoder(shapes[3 - kind])
             for decimals, shapes in ((False, _WHOLE), (True, _DECIMAL)) for kind in (1, 2)}
_ENCODE = msgspec.json.Encoder(decimal_format="number").encode


class PlainGameRecord(GameRecord):
    """A game line read by the fast decoder: ``plain`` is its struct (seats inline or
    none); ``data``, what the general reader gives, is read from ``raw`` on demand."""

    __slots__ = ("decimals", "escaped", "plain", "raw")
    seat_lines: list[int] | None = None  # an imported game's seats' lines (load/exports/exported.py)

    def __init__(self, source: str, line: int, plain: Any, raw: bytes, decimals: bool, escaped: bool) -> None:
        self.source, self.line, self.plain, self.raw, self.decimals = source, line, plain, raw, decimals
        self.escaped = escaped

    @property
    def data(self) -> Any:
        return _data(self, GameRecord)

    @data.setter
    def data(self, value: Any) -> None:
        _DATA_SLOTS[GameRecord].__set__(self, value)


class PlainSeatRecord(SeatRecord):
    """A seat line read by the fast decoder (see :class:`PlainGameRecord`)."""

    __slots__ = ("decimals", "escaped", "plain", "raw")

    def __init__(self, source: str, line: int, plain: Any, raw: bytes, decimals: bool, escaped: bool) -> None:
        self.source, self.line, self.plain, self.raw, self.decimals = source, line, plain, raw, decimals
        self.escaped = escaped

    @property
    def data(self) -> Any:
        return _data(self, SeatRecord)

    @data.setter
    def data(self, value: Any) -> None:
        _DATA_SLOTS[SeatRecord].__set__(self, value)


_DATA_SLOTS: dict[type[Any], Any] = {GameRecord: GameRecord.__dict__["data"], SeatRecord: SeatRecord.__dict__["data"]}


def _data(record: PlainGameRecord | PlainSeatRecord, base: type[Any]) -> Any:
    """The line as the general reader gives it (``loads_line``), decoded once."""
    slot = _DATA_SLOTS[base]
    try:
        return slot.__get__(record, base)
    except AttributeError:
        from .jsonio import loads_line

        value = loads_line(record.raw.decode("utf-8"), record.line)
        slot.__set__(record, value)
        return value


def plain_game(data: dict[str, object], decimals: bool = True) -> Any | None:
    """A game given as Python values (an importer's), as the game struct when msgspec
    proves it fits (types, lengths, words, ranges); else None. ``decimals``: whether its
    amounts may be Decimals (else whole numbers only, as a format-2 line without them)."""
    try:
        return msgspec.convert(data, (_DECIMAL if decimals else _WHOLE)[2])
    except msgspec.ValidationError:
        return None


def plain_table_line(name: str, number: int, raw: bytes) -> PlainGameRecord | PlainSeatRecord | None:
    """A game or seat line proven plain (see above), or None: the general reader reads it."""
    kind = 2 if b'"seat"' in raw else 1
    decimals = False
    try:
        plain = _DECODERS[kind, False].decode(raw)
    except msgspec.ValidationError:
        try:
            plain = _DECODERS[kind, True].decode(raw)
        except msgspec.DecodeError:
            return None
        decimals = True
    except msgspec.DecodeError:
        return None
    escaped = b"\\" in raw
    encoded = _ENCODE(plain)
    if not raw.startswith(encoded):  # else the line is the struct's own encoding (then blanks): no key twice
        if escaped and (b'\\"' in raw or b"\\u0022" in raw):
            return None  # a string may hold a quote: the count below would prove nothing
        if raw.count(b'"') != encoded.count(b'"'):
            return None
    if kind == 2:
        return PlainSeatRecord(name, number, plain, raw, decimals, escaped)
    return PlainGameRecord(name, number, plain, raw, decimals, escaped)
