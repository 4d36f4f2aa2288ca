"""Amounts: exact decimals, written the way people write them."""

from __future__ import annotations

import json
import re
from decimal import Decimal


def fmt(amount: Decimal | int) -> str:
    """``3``, ``-1``, ``2.5``: never ``3.00``, ``1E+2`` or ``-0``."""
    if isinstance(amount, int):
        return str(amount)
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def signed(amount: Decimal | int) -> str:
    """``+3``, ``-1``, ``0``."""
    text = fmt(amount)
    return f"+{text}" if amount > 0 else text


def plain(value: object) -> object:
    """A JSON-ready number: an int when whole, else the Decimal itself, which
    :func:`dumps` writes exactly (never through a binary float)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value.normalize()
    return value


_MARK = "\x00decimal:"
_MARKED = re.compile(r'"\\u0000decimal:(-?[0-9]+(?:\.[0-9]+)?)"')


def _exact(value: object) -> str:
    if isinstance(value, Decimal) and value.is_finite():
        return _MARK + format(value, "f")
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(value: object, **options: object) -> str:
    """``json.dumps`` that writes Decimals as exact JSON numbers (``0.1``, never
    ``0.1000000000000000055``): amounts never pass through a binary float."""
    text = json.dumps(value, default=_exact, **options)  # type: ignore[arg-type]
    return _MARKED.sub(r"\1", text) if "\\u0000decimal:" in text else text
