"""What both hand-history formats share: amounts, card tokens, words, what a table recorded.

Format 1 (:mod:`referee.models.rounds`) and format 2 (:mod:`referee.models.table`) spell a
stake, a card and a table's record of a result the same way, so they are defined once.
A record is a frozen msgspec struct, decoded once and strictly: its types (a boolean is
never a number, a number never text), its lengths and bounds (``msgspec.Meta``) and what
``Meta`` cannot say of a Decimal (finite, within bounds, at most six places: the
``__post_init__`` of each struct) are checked by that decode. A record it refuses is read
again by the did-you-mean validation (:mod:`referee.models.explainers`), which words the
problem, or reads a word spelt another way (``Call``, ``Two Pair``) as that word.
Card fields hold text: whether a token is one of the 52 cards is a ruling (a void deal,
rule §07), not a validation error.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from ..rules.category import Category

#: The profile of a session that names none (also ``profiles.DEFAULT`` and every
#: ``--profile`` default): defined here, where the format says it, as profiles reads models.
DEFAULT_PROFILE = "vivo"
#: The version of format 1: what ``version:`` may say and what ``simulate`` writes.
FORMAT_VERSION = 1
#: The largest stake. Results and balances may be far larger: a royal flush at the
#: largest Ante under a profile paying up to 1,000,000:1 (and a Call of 100 × Ante)
#: is under 10^21, so any stake the format accepts gives results it can hold.
MAX_AMOUNT = Decimal("1e12")
#: The highest round (or game) number a record may give itself.
MAX_ROUND = 10**12
MAX_RESULT = Decimal("1e24")
#: The most decimal places an amount may have (after trailing zeros: 1.5000000 is 1.5).
PLACES = 6
Outcome = Literal["fold", "win", "lose", "push", "void"]
Decision = Literal["call", "fold"]
GameStatus = Literal["settled", "cancelled"]
WalletKind = Literal["debit", "credit", "cancel", "refund"]

_ZERO = Decimal(0)
_LOW_MONEY = -MAX_RESULT


_STEP = Decimal(1).scaleb(-PLACES)


def exact(value: Decimal, low: Decimal, high: Decimal) -> None:
    """Refuse what the format's amounts are not (a ValueError the strict decode reports
    as a refusal): not finite, below ``low`` or above ``high``, more than six places.
    The same tests, in the same sense, as the explainer's ``Stake`` and ``Money``. The
    common case is decided by two comparisons and a remainder: a multiple of 10^-6 has
    at most six places however many zeros it is written with."""
    try:
        if low <= value <= high and not value % _STEP:
            return
    except ArithmeticError:  # NaN, or a quotient beyond the context's precision
        pass
    _exact(value, low, high)


def _exact(value: Decimal, low: Decimal, high: Decimal) -> None:
    """:func:`exact`'s test in full, as pydantic makes it: places counted once trailing
    zeros are dropped (``normalize``, in the current context)."""
    if not value.is_finite() or not low <= value <= high:
        raise ValueError("not an amount of the format")
    exponent = value.normalize().as_tuple().exponent
    if isinstance(exponent, int) and exponent < -PLACES:
        raise ValueError("more than six decimal places")


def utf8(*values: str | list[str] | None) -> None:
    """Refuse text that is no Unicode string UTF-8 can write (a lone surrogate: JSON's
    ``"\\ud800"``), as the explainer's strict strings do (its H001 says "unable to parse
    raw data as a unicode string"); msgspec keeps such text. ``values``: the record's
    strict texts, a list of them (cards), or None. ASCII, the common case, is one test."""
    for value in values:
        if value is None:
            continue
        if type(value) is str:
            if not value.isascii():
                value.encode("utf-8")  # a UnicodeEncodeError is a ValueError: a refusal
        elif not "".join(value).isascii():
            for text in value:
                text.encode("utf-8")


CardToken = Annotated[str, msgspec.Meta(max_length=16)]
CardList = Annotated[list[CardToken], msgspec.Meta(max_length=52)]
Text500 = Annotated[str, msgspec.Meta(max_length=500)]
Identifier = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class Record(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A record of a hand history: frozen, read by name, unknown keys refused."""

    #: Its fields that hold a time (:func:`convert` reads one finer than a microsecond
    #: as the did-you-mean validation does).
    TIMES: ClassVar[tuple[str, ...]] = ()


class Recorded(Record, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the table paid and logged. Every field is optional; every field present is audited."""

    void: bool | None = None
    void_reason: str | None = None
    outcome: Outcome | None = None
    player_hand: Category | None = None
    dealer_hand: Category | None = None
    dealer_qualified: bool | None = None
    ante: Decimal | None = None
    call: Decimal | None = None
    bonus: Decimal | None = None
    net: Decimal | None = None
    returned: Decimal | None = None
    balance: Decimal | None = None

    def __post_init__(self) -> None:
        for value in (self.ante, self.call, self.bonus, self.net, self.returned, self.balance):
            if value is not None:
                exact(value, _LOW_MONEY, MAX_RESULT)


def dump(record: msgspec.Struct, exclude: str | None = None) -> dict[str, Any]:
    """A record's fields as a mapping, in their order, those that are None (and the one
    named ``exclude``) left out, the records it holds (``recorded``, a game's seats, a
    seat's wallet) dumped alike: what the store keeps of a record. A ``meta`` mapping is
    kept as it is."""
    out: dict[str, Any] = {}
    for name in record.__struct_fields__:
        value = getattr(record, name)
        if value is None or name == exclude:
            continue
        if isinstance(value, msgspec.Struct):
            value = dump(value)
        elif type(value) is list and value and isinstance(value[0], msgspec.Struct):
            value = [dump(item) for item in value]
        out[name] = value
    return out


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The one of ``choices`` a typo ``word`` most likely meant, if any is close."""
    import difflib  # here: only a problem needs it, and its import is 1 ms of every start

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """``; did you mean 'dealer'?`` for a typo, else the list of what is expected."""
    meant = closest(word, choices)
    if meant is not None:
        return f"; did you mean {meant!r}?"
    return f" (expected one of: {', '.join(choices)})"


RECORDED_FIELDS: tuple[str, ...] = Recorded.__struct_fields__
