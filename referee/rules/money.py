"""Amounts: exact decimals, written the way people write them."""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

# Exact money: the default 28 significant digits cannot hold a result of 10^20 with six
# decimal places times a fractional odds, nor a long ledger's sum of them; 60 can.
decimal.DefaultContext.prec = 60
decimal.getcontext().prec = 60


def fmt(amount: Decimal | int) -> str:
    """``3``, ``-1``, ``2.5``: never ``3.00``, ``1E+2`` or ``-0``.

    >>> [fmt(Decimal(t)) for t in ("3.00", "1E+2", "-0", "2.50", "0.10")]
    ['3', '100', '0', '2.5', '0.1']
    """
    if isinstance(amount, int):
        return str(amount)
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def signed(amount: Decimal | int) -> str:
    """``+3``, ``-1``, ``0``.

    >>> signed(Decimal("3.0")), signed(-1), signed(Decimal("-0.00"))
    ('+3', '-1', '0')
    """
    text = fmt(amount)
    return f"+{text}" if amount > 0 else text


def plain(value: object) -> object:
    """A JSON-ready number: an int when whole, else the Decimal itself, which
    :func:`dumps` writes exactly (never through a binary float)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value.normalize()
    return value


class _HasDecimal(Exception):
    """Raised by the fast encoder's ``default`` hook at the first Decimal."""


def _no_decimal(value: object) -> object:
    if isinstance(value, Decimal):
        raise _HasDecimal
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _number(value: float | Decimal, allow_nan: bool = False) -> str:
    """A JSON number: a Decimal exactly as it is (``0.1``, ``100``), a float as ``json`` writes it."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a JSON number")
        return format(value, "f")
    if value != value or value in (math.inf, -math.inf):
        if not allow_nan:
            raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


class ExactEncoder(json.JSONEncoder):
    """``json``'s own encoder, with Decimals written as JSON numbers digit for digit.

    It reuses the standard library's pure-Python encoding loop, telling it that a
    Decimal is a number and how to write one: so every other byte is what
    ``json.dumps`` writes, and no string is ever mistaken for a number.
    """

    def iterencode(self, o: object, _one_shot: bool = False) -> Iterator[str]:
        encoder = json.encoder.encode_basestring_ascii if self.ensure_ascii else json.encoder.encode_basestring
        make: Callable[..., Callable[[object, int], Iterator[str]]] = vars(json.encoder)["_make_iterencode"]
        iterate: Callable[[object, int], Iterator[str]] = make(
            {} if self.check_circular else None, self.default, encoder, self.indent,
            lambda value: _number(value, self.allow_nan), self.key_separator, self.item_separator,
            self.sort_keys, self.skipkeys, _one_shot, float=(float, Decimal))
        return iterate(o, 0)


def dumps(value: object, **options: Any) -> str:
    """``json.dumps`` that writes Decimals as exact JSON numbers (``0.1``, never
    ``0.1000000000000000055``): amounts never pass through a binary float.

    Values without a Decimal (the usual case: :func:`plain` makes whole amounts ints)
    take the C encoder; the first Decimal sends the value to :class:`ExactEncoder`.

    >>> dumps({"net": plain(Decimal("-0.10")), "staked": plain(Decimal("3.00")), "note": "0.1"})
    '{"net": -0.1, "staked": 3, "note": "0.1"}'
    >>> dumps([Decimal("1234567890.123456789012")])  # more digits than a float holds
    '[1234567890.123456789012]'
    """
    try:
        return json.dumps(value, default=_no_decimal, **options)
    except _HasDecimal:
        return json.dumps(value, cls=ExactEncoder, **options)


def encoder(**options: Any) -> Callable[[object], str]:
    """:func:`dumps` with these ``options``, its two encoders made once: ``json.dumps``
    with options makes an encoder every call, and a report writes a value a game."""
    fast = json.JSONEncoder(default=_no_decimal, **options).encode
    exact = ExactEncoder(**options).encode

    def encode(value: object) -> str:
        try:
            return fast(value)
        except _HasDecimal:
            return exact(value)

    return encode
