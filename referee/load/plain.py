"""The typed decode of a plain JSON Lines round: msgspec, exact, and proven unambiguous.

Why a second decoder: ``json.loads`` costs about 4 µs a round, as much as the whole
audit of a plain round on the fast lane (``referee.audit.lane``); msgspec decodes the
same line into a typed struct in under 1 µs, with the exactness the audit needs:
JSON numbers become ``int`` or :class:`~decimal.Decimal` digit for digit (``1.0``
stays ``Decimal('1.0')``), a boolean is never an int, ``NaN``, invalid UTF-8 and
unknown keys are refused.

msgspec keeps the last of two equal keys, where the reader refuses them (H003). The
proof that a line has none: outside strings JSON has no quote, and each string, key or
value, is delimited by two quotes (a quote inside one is escaped, ``\\"``, one more).
So the quotes of a line number exactly twice its keys and string values when, and only
when, no key or string was written more than once and none holds a quote: the decoded
struct says how many keys and strings it kept, the raw bytes how many were written.

Anything refused here (and anything the lane later refuses) is read again by the
reader's own decoder, exactly as without this module: the struct is a shortcut, never
a second opinion.
"""

from __future__ import annotations

import os
from decimal import Decimal

import msgspec

from ..models.common import RECORDED_FIELDS
from ..models.rounds import ROUND_FIELDS
from .records import LineDict


def mode() -> str:
    """``on`` (default), ``off`` (``REFEREE_FAST=0``) or ``verify``."""
    value = os.environ.get("REFEREE_FAST", "1").strip().lower()
    if value in ("0", "off", "no", "false"):
        return "off"
    return "verify" if value == "verify" else "on"


UNSET = msgspec.UNSET
Amount = int | Decimal | msgspec.UnsetType


class FastRecorded(msgspec.Struct, forbid_unknown_fields=True):
    """``recorded`` as a plain round writes it (no ``void_reason``: free text is left to
    the reader). ``balance`` last: the lane keys a settlement on the other fields; the
    words (strings) second to fourth: :func:`fast_round` counts them."""

    void: bool | msgspec.UnsetType = UNSET
    outcome: str | msgspec.UnsetType = UNSET
    player_hand: str | msgspec.UnsetType = UNSET
    dealer_hand: str | msgspec.UnsetType = UNSET
    dealer_qualified: bool | msgspec.UnsetType = UNSET
    ante: Amount = UNSET
    call: Amount = UNSET
    bonus: Amount = UNSET
    net: Amount = UNSET
    returned: Amount = UNSET
    balance: Amount = UNSET


class FastRound(msgspec.Struct, forbid_unknown_fields=True):
    """A round line without ``time`` or ``meta`` (those are left to the reader) and
    without nulls (``"turn": null`` is read by the reader)."""

    round: int
    ante: Amount
    player: list[str]
    flop: list[str]
    decision: str
    call: Amount = UNSET
    bonus: Amount = UNSET
    turn: str | msgspec.UnsetType = UNSET
    river: str | msgspec.UnsetType = UNSET
    dealer: list[str] | msgspec.UnsetType = UNSET
    recorded: FastRecorded | msgspec.UnsetType = UNSET


assert FastRecorded.__struct_fields__[-1] == "balance"  # the lane keys a settlement on the others
assert FastRecorded.__struct_fields__[1:4] == ("outcome", "player_hand", "dealer_hand")  # its words
assert set(FastRound.__struct_fields__) == set(ROUND_FIELDS) - {"time", "meta"}
assert set(FastRecorded.__struct_fields__) == set(RECORDED_FIELDS) - {"void_reason"}

_DECODE = msgspec.json.Decoder(FastRound).decode
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
_astuple = msgspec.structs.astuple
_ROUND_WIDTH = len(FastRound.__struct_fields__)
_RECORDED_WIDTH = len(FastRecorded.__struct_fields__)
ROUND_START = b'{"round":'


def fast_round(raw: bytes) -> FastRound | None:
    """The struct of a round line whose keys are provably each written once; None when
    msgspec refuses the line or its quotes are not two per key and string it kept."""
    try:
        found = _DECODE(raw)
    except _ERRORS:
        return None
    tokens = _ROUND_WIDTH - _astuple(found).count(UNSET) + len(found.player) + len(found.flop) + 1  # + decision
    dealer = found.dealer
    if dealer is not UNSET:
        tokens += len(dealer)
    tokens += (found.turn is not UNSET) + (found.river is not UNSET)
    recorded = found.recorded
    if recorded is not UNSET:
        values = _astuple(recorded)
        tokens += _RECORDED_WIDTH - values.count(UNSET) + 3 - values[1:4].count(UNSET)  # + the three words
    return found if raw.count(b'"') == 2 * tokens else None


def fast_mapping(data: dict[str, object]) -> FastRound | None:
    """The struct of a round a document reader (YAML, JSON) read as a mapping, when its
    values have exactly the struct's types (no bool for a number, no text for an
    amount, no null); None otherwise. The mapping is the reader's own, so there is
    nothing to prove about keys written twice: the struct only saves the lane from
    reading the mapping field by field."""
    try:
        return msgspec.convert(data, FastRound, strict=True)
    except msgspec.ValidationError:
        return None


def plain_data(found: FastRound, line: int) -> LineDict:
    """The mapping the JSON Lines reader makes of the line ``found`` was decoded from,
    made from the struct: every value the same, of the same type (a JSON number an
    ``int`` or an exact :class:`~decimal.Decimal` both ways, no null, no key twice:
    :func:`fast_round` proved it), each mapping a :class:`LineDict` on ``line``. Only
    the keys' order may differ from the line's, which nothing reads of a record the
    strict decode accepts (the did-you-mean words of one it refuses read the line again)."""
    data = LineDict(_builtins(found, builtin_types=_KEPT))
    data.line = line
    recorded = data.get("recorded")
    if recorded is not None:
        recorded = data["recorded"] = LineDict(recorded)
        recorded.line = line
    return data


_builtins = msgspec.to_builtins
_KEPT = (Decimal,)  # amounts stay exact Decimals (unset fields are left out)
