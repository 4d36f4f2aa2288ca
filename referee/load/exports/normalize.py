"""Reading an export's values as format 2's: cards, amounts, times and words.

Why here and exact: an export writes ``TD``, ``10h``, ``HA`` or ``S_K`` for a card,
``"1.50"``, ``150`` (minor units) or a JSON number for an amount, ISO 8601 or epoch
milliseconds for a time, ``Resolved`` for settled. Each normalizer reads one notation
as the mapping declares it and nothing else: an amount is never read through a binary
float (``0.30000000000000004`` is refused, not rounded), a card the notation cannot
read is passed on as written (the audit voids the deal and quotes it, §07), and a
value that cannot be read at all is a :class:`Misfit` naming what was found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from ...escape import clipped, digits, quoted
from ...models.common import MAX_RESULT, suggest
from ...models.mapping import MAX_CARD_TOKEN, Cards, Money, Times, card_pattern, spellings
from ...rules.cards import Card, known_card
from ...rules.category import as_word

#: An amount as text: digits, one optional point, an optional sign (no exponent, no
#: thousands separator: ``1,000`` is two readings).
_AMOUNT = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$")
_WHOLE = re.compile(r"^\s*[-+]?\d+\s*$")
#: More places than a ledger holds: what a binary float printed in full looks like.
MAX_PLACES = 6
#: Beyond any stake, result or balance of the format (``models.common.MAX_RESULT``).
MAX_ANY = MAX_RESULT


#: An amount as read: an int where it is whole (``"5.00"`` is 5), else an exact Decimal.
Amount = Decimal | int


class Misfit(ValueError):
    """A value the mapping cannot read: what was expected, what was found."""


class CardReader:
    """Reads one card notation into format 2's tokens (``Th``).

    It is also the export's :class:`referee.audit.compare.Notation`: a token that is no
    card is passed on as written, and the audit's did-you-mean for it (``a transcription
    slip for AH?``) searches the tokens one edit away in this notation, so it is spelt as
    the export spells its cards, not as format 2 does (``Ah``)."""

    def __init__(self, cards: Cards) -> None:
        self.tokens = spellings(cards)
        self.pattern = card_pattern(cards.pattern) if cards.pattern else None
        self.cards = cards
        #: Every character the notation's spellings use (what an edit may put in).
        self.alphabet = "".join(sorted({c for token in self.tokens for c in token}))

    def card(self, value: Any) -> Any:
        """The card ``value`` is, as format 2 writes it; unreadable text as written."""
        if not isinstance(value, str):
            return value
        token = self.tokens.get(value)  # the usual card, spelt exactly: one lookup
        if token is not None:
            return token
        token = self._token(value.strip())
        return value if token is None else token

    def read(self, token: str) -> Card | None:
        """The card ``token`` spells in this notation, or None (never raises)."""
        found = self._token(token.strip())
        return None if found is None else known_card(found)

    def _token(self, text: str) -> str | None:
        """Format 2's token of the card ``text`` spells here, or None."""
        token = self.tokens.get(text)
        if token is not None:
            return token
        if self.pattern is not None and len(text) <= MAX_CARD_TOKEN:
            found = self.pattern.fullmatch(text)
            if found is not None:
                rank, suit = found.group("rank"), found.group("suit")
                return self.tokens.get(self.cards.separator.join(
                    (rank, suit) if self.cards.order == "rank-suit" else (suit, rank)))
        return None

    def cards_of(self, value: Any) -> Any:
        """A list of cards; text holding several (``"AH TD"``, ``"AH,TD"``) is split."""
        if isinstance(value, str) and (" " in value.strip() or "," in value):
            value = [part for part in re.split(r"[\s,]+", value.strip()) if part]
        if isinstance(value, list):
            tokens = self.tokens  # the usual cards, each spelt exactly: one lookup each
            read = [tokens.get(item) if type(item) is str else None for item in value]
            return read if None not in read else [self.card(item) for item in value]
        return value


class MoneyReader:
    """Reads amounts exactly: decimal text or numbers as written, or minor units."""

    def __init__(self, money: Money, whole: bool = False) -> None:
        self.minor = money.unit == "minor"
        #: Whole amounts given as ints (a game's seats: see :meth:`amount`).
        self.whole = whole
        self.factor = Decimal(money.factor)
        #: What was read, by (type, value): a table writes the same few amounts.
        self.memo: dict[Any, Amount] = {}

    def amount(self, value: Any) -> Amount:
        """The amount; :class:`Misfit` for anything that is not one exactly. With
        ``whole`` (a game's seats), a whole amount is given as an int (``"5.00"`` is 5),
        as ``import`` writes it: the audit then takes an imported game as it takes the
        format-2 log written of it (the fast lane's whole-number struct, no Decimal
        checks), and the full audit and the lane see the very same values
        (``REFEREE_FAST=verify``). Without (a wallet's transactions, opening balances),
        the amount as written, which their findings quote."""
        key = (type(value), value) if not isinstance(value, (list, dict)) else None
        if key is not None:
            known = self.memo.get(key)
            if known is not None:
                return known
        exact = self._read(value)
        amount: Amount = exact
        if self.whole and exact == exact.to_integral_value() and not (exact.is_zero() and exact.is_signed()):
            amount = int(exact)
        if key is not None and len(self.memo) < 100_000:
            self.memo[key] = amount
        return amount

    def _read(self, value: Any) -> Decimal:
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise Misfit(f"expected an amount, found {_shown(value)}")
        if isinstance(value, float):
            raise Misfit(f"expected an exact amount, found the binary float {value!r}")
        if self.minor:
            if isinstance(value, int) or (isinstance(value, str) and _WHOLE.match(value)):
                if len(str(value).strip().lstrip("+-")) > 40:
                    raise Misfit(f"{_shown(value)} is beyond any amount a ledger holds (at most 10^24)")
                amount = Decimal(int(value)) / self.factor
                if abs(amount) > MAX_ANY:
                    raise Misfit(f"{_shown(value)} is beyond any amount a ledger holds (at most 10^24)")
                return amount
            raise Misfit(f"expected a whole number of minor units (1/{self.factor} of the currency), found "
                         f"{_shown(value)}")
        if isinstance(value, int):
            value = Decimal(value)
        if isinstance(value, str):
            if not _AMOUNT.match(value):
                raise Misfit(f"expected an amount such as 1.50, found {_shown(value)}")
            value = Decimal(value.strip())
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise Misfit(f"expected an amount, found {value}")
            if abs(value) > MAX_ANY:
                raise Misfit(f"{_shown(value)} is beyond any amount a ledger holds (at most 10^24)")
            places = -value.as_tuple().exponent  # type: ignore[operator]
            if places > MAX_PLACES:
                raise Misfit(f"{value} has {places} decimal places: a binary float printed in full? an amount is "
                             f"exact, with at most {MAX_PLACES} places")
            return value
        raise Misfit(f"expected an amount, found {_shown(value)}")  # pragma: no cover - JSON has no other type


class TimeReader:
    """Reads times as the mapping declares them, into aware datetimes (UTC when naive
    times have no zone)."""

    def __init__(self, times: Times) -> None:
        self.times = times
        self.zone: Any = zone(times.zone) if times.zone else UTC

    def reader(self) -> Any:
        """The function a time of this mapping is read by: :meth:`iso` for ISO 8601 times
        with their offset (the usual export), chosen once for the file, else :meth:`time`."""
        return self.iso if self.times.kind == "iso8601" else self.time

    def iso(self, value: Any) -> datetime:
        """:meth:`time` of an ``iso8601`` time in one step where it is one with its offset
        as written (no blank around it); anything else is :meth:`time`'s, which says why
        it is not read."""
        if type(value) is str:
            try:
                moment = _FROM_ISO(value)
            except ValueError:
                return self.time(value)
            if moment.tzinfo is not None:
                return moment
        return self.time(value)

    def time(self, value: Any) -> datetime:
        kind = self.times.kind
        if kind in ("epoch-s", "epoch-ms"):
            if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
                raise Misfit(f"expected {kind} (a number), found {_shown(value)}")
            try:
                number = Decimal(str(value).strip())
            except InvalidOperation:
                raise Misfit(f"expected {kind} (a number), found {_shown(value)}") from None
            micros = number * (1000 if kind == "epoch-ms" else 1_000_000)
            if not number.is_finite() or abs(micros) >= 10**17:
                raise Misfit(f"{_shown(value)} is not a time ({kind}: too far from 1970)")
            return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(micros))
        if not isinstance(value, str):
            raise Misfit(f"expected a time as text ({kind}), found {_shown(value)}")
        try:
            if kind == "naive" and self.times.format:
                moment = datetime.strptime(value.strip(), self.times.format)
            else:
                moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise Misfit(f"expected an ISO 8601 time such as 2026-12-01T10:00:00Z, found {_shown(value)}") from None
        if moment.tzinfo is None:
            if kind == "iso8601":
                raise Misfit(f"{value!r} has no UTC offset: say times.kind: naive and times.zone in the mapping")
            moment = moment.replace(tzinfo=self.zone)
        return moment


_FROM_ISO = datetime.fromisoformat


@lru_cache(maxsize=16)
def zone(name: str) -> Any:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Misfit(f"times.zone {name!r} is not a time zone (an IANA name such as Europe/Malta)") from None


class WordReader:
    """Reads the provider's words through the mapping's word map (exact, then in any
    case); a word not in the map is passed on for format 2's own reading (Call, FOLD)."""

    def __init__(self, table: Mapping[str, str], choices: tuple[str, ...], what: str, strict: bool = False) -> None:
        self.table = table
        self.folded = {as_word(k): v for k, v in table.items()}
        self.choices = choices
        self.what = what
        self.strict = strict
        #: What was read, by the word as written: an export says the same few words.
        self.memo: dict[str, Any] = {}

    def word(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        known = self.memo.get(value)  # an export says the same few words: each read once
        if known is not None:
            return known
        meant = self._word(value)
        if len(self.memo) < 1000:
            self.memo[value] = meant
        return meant

    def _word(self, value: str) -> Any:
        meant = self.table.get(value)
        if meant is None:
            meant = self.folded.get(as_word(value))
        if meant is not None:
            return meant
        spelt = as_word(value)
        if spelt in self.choices:
            return spelt
        if self.strict:
            known = tuple(self.table) or self.choices
            raise Misfit(f"unknown {self.what} {quoted(value)}{suggest(value, known)} (map it in words)")
        return value


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return quoted(value) if isinstance(value, str) else clipped(digits(value) if isinstance(value, (int, Decimal))
                                                                else str(value))


shown = _shown
