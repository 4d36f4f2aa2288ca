"""Amounts: exact decimals, written the way people write them."""

from __future__ import annotations

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
    """A JSON-ready number: an int when whole, else a float (exact up to 15 digits)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value
