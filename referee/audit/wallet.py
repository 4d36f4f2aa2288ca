"""A seat's wallet: the money that really moved, against the stakes and what the rules return.

``W001`` the debits are the stakes placed; ``W002`` the credits are what the rules
return (nothing for a void or cancelled game); ``W003`` the cancels and refunds give
back every stake of a void or cancelled game, and nothing of a settled one; ``W004`` a
transaction id used twice in a session.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..models import codes
from ..rules.money import fmt
from .stakes import Emit

ZERO = Decimal(0)


def check_wallet(moves: list[Any], staked: Decimal, returned: Decimal, refunded: bool, transactions: set[str],
                 emit: Emit) -> None:
    """The seat's wallet moves against its stakes and returns; ``transactions``: the
    session's ids so far (this seat's are added). Worded only when :func:`wallet_right`
    finds something."""
    ids = wallet_right(moves, staked, returned, refunded, transactions)
    if ids is not None:
        transactions.update(ids)
        return
    for move in moves:
        if move.id in transactions:
            emit(codes.W004, f"wallet transaction {move.id} is used twice in this session", "wallet", None, move.id)
        transactions.add(move.id)
    debit, credit, back = wallet_totals(moves)
    if debit != staked:
        emit(codes.W001, f"wallet debits {fmt(debit)}, the stakes placed are {fmt(staked)}", "wallet", staked, debit)
    if credit != returned:
        why = "a void or cancelled game pays nothing" if refunded else "what the rules return"
        emit(codes.W002, f"wallet credits {fmt(credit)}, expected {fmt(returned)} ({why})", "wallet", returned,
             credit)
    expected = staked if refunded else ZERO
    if back != expected:
        why = "a void or cancelled game refunds every stake" if refunded else "the game was settled"
        emit(codes.W003, f"wallet cancels and refunds {fmt(back)}, expected {fmt(expected)} ({why})", "wallet",
             expected, back)


def wallet_right(moves: Any, staked: Decimal, returned: Decimal, refunded: bool,
                 transactions: set[str]) -> list[str] | None:
    """The test of W001-W004: the moves' ids when no id is given twice or was seen
    before in the session (``transactions``, left as it is), the debits are the stakes,
    the credits what the rules return (``returned``) and the cancels and refunds every
    stake of a void or cancelled game (``refunded``), nothing of a settled one; None
    when any of them is wrong. The full audit (:func:`check_wallet`, which then words
    each) and the fast lane (``lane.take_seat``) both ask it."""
    ids = [move.id for move in moves]
    if len(set(ids)) != len(ids) or not transactions.isdisjoint(ids):
        return None
    debit, credit, back = wallet_totals(moves)
    if debit != staked or credit != returned or back != (staked if refunded else ZERO):
        return None
    return ids


def wallet_totals(moves: Any) -> tuple[Decimal, Decimal, Decimal]:
    """The debits, the credits, and the cancels and refunds of a seat's wallet moves:
    what W001, W002 and W003 compare."""
    debit = credit = back = ZERO
    for move in moves:
        kind = move.kind
        if kind == "debit":
            debit += move.amount
        elif kind == "credit":
            credit += move.amount
        else:  # cancel, refund
            back += move.amount
    return debit, credit, back
