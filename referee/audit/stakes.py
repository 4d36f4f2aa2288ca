"""The stakes of a seat: units, the Call's multiple, fixed stakes, the bonus, the funds.

One set of checks for a round and a seat alike (docs/ledger.md, "Stakes"): ``S008``
every stake a multiple of the profile's increment and an Ante above 0; ``S001`` a Call
of the profile's multiple (none on a fold); ``S002`` the player's stake under a profile
that fixes it (one finding per change); ``S006`` a bonus the profile does not offer;
``S007`` a Call that no reading of the balance covers, where the profile needs funds.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from ..models import codes
from ..models.codes import FindingCode
from ..rules.money import fmt
from ..rules.profile import Profile
from .ledger import stake_check
from .players import Player

ZERO = Decimal(0)


class Emit(Protocol):
    """How a check reports a finding on the record being audited."""

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None: ...


def check_stake_units(ante: Decimal, bonus: Decimal | None, call: Decimal | None, increment: Decimal,
                      emit: Emit) -> None:
    """S008: every stake a multiple of the profile's increment, and an Ante more than 0."""
    for name, amount in (("ante", ante), ("bonus", bonus), ("call", call)):
        if amount is not None and amount % increment:
            emit(codes.S008, f"{name} stake {fmt(amount)} is not a multiple of the profile's stake increment "
                 f"{fmt(increment)}", name, None, amount)
    if ante <= 0:
        emit(codes.S008, "the Ante stake must be more than 0", "ante", None, ante)


def call_stake(seat: Any, profile: Profile) -> Decimal:
    """The Call the rules place: the profile's multiple of the Ante on a call, none on a fold."""
    placed: Decimal = seat.ante * profile.call_multiple if seat.decision == "call" else ZERO
    return placed


def check_stakes(seat: Any, profile: Profile, player: Player, void: bool, emit: Emit, stake_owner: str,
                 stake_scope: str) -> None:
    """Every stake check of one seat, in order; ``void``: the deal is void (it risks
    nothing: the funds are not checked)."""
    check_stake_units(seat.ante, seat.bonus, seat.call, profile.stake_increment, emit)
    placed = call_stake(seat, profile)
    if seat.call is not None and seat.call != placed:
        if seat.decision == "fold":
            emit(codes.S001, f"Call stake {fmt(seat.call)} on a fold: a fold places no Call stake", "call", ZERO,
                 seat.call)
        else:
            emit(codes.S001, f"Call stake {fmt(seat.call)} is not {fmt(profile.call_multiple)} × Ante "
                 f"{fmt(seat.ante)}", "call", placed, seat.call)
    if profile.fixed_stakes:
        player.stake, odd = stake_check(player.antes, player.stake, seat.ante, player.last_ante)
        player.last_ante = seat.ante
        if odd is not None:
            emit(codes.S002, f"Ante {fmt(seat.ante)} differs from {stake_owner} {fmt(odd)}{stake_scope}; "
                 f"profile {profile.name} fixes stakes", "ante", odd, seat.ante)
    if seat.bonus and profile.bonus is None:
        emit(codes.S006, f"bonus stake {fmt(seat.bonus)} under profile {profile.name}, which has no bonus; "
             "it is returned", "bonus", ZERO, seat.bonus)
    check_funds(seat, profile, player, void, placed, emit)


def check_funds(seat: Any, profile: Profile, player: Player, void: bool, placed: Decimal, emit: Emit) -> None:
    """S007 only when no reading of the balance covers the call: neither the rules'
    balance nor the table's (an earlier wrong payment is its own finding). A void deal
    risks nothing and is not checked; nor is a player whose opening balance is unknown."""
    if not profile.call_requires_funds or seat.decision != "call" or void or not player.funded:
        return
    needed = seat.ante + seat.bonus + placed
    table = player.table_balance()
    best = player.balance if table is None else max(player.balance, table)
    if best < needed:
        kept = f" (as the table kept it {fmt(table)})" if table is not None and table != player.balance else ""
        emit(codes.S007, f"the call needs {fmt(needed)} in stakes but the balance is {fmt(player.balance)}{kept}",
             "decision", needed, best)
