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


def check_stakes(seat: Any, profile: Profile, player: Player, void: bool, emit: Emit, stake_owner: str,
                 stake_scope: str) -> None:
    """Every stake check of one seat, in order; ``void``: the deal is void (it risks
    nothing: the funds are not checked)."""
    placed = check_placed(seat.ante, seat.bonus, seat.call, seat.decision, profile, emit)
    if stake_holds(profile, player, seat.ante):
        keep_stake(profile, player, seat.ante)
    else:
        player.stake, odd = stake_check(player.antes, player.stake, seat.ante, player.last_ante)
        player.last_ante = seat.ante
        if odd is not None:
            emit(codes.S002, f"Ante {fmt(seat.ante)} differs from {stake_owner} {fmt(odd)}{stake_scope}; "
                 f"profile {profile.name} fixes stakes", "ante", odd, seat.ante)
    check_offered(seat.bonus, profile, emit)
    check_funds(seat, profile, player, void, placed, emit)


def stake_holds(profile: Profile, player: Player, ante: Decimal) -> bool:
    """The cheap case of S002: the profile does not fix stakes, or the player has none yet,
    or this Ante is it; then nothing is said and :func:`keep_stake` counts the seat.
    Otherwise the counts decide (:func:`~.ledger.stake_check`: one finding per change).
    The full audit (:func:`check_stakes`) and the fast lane (``lane.take_seat``) both ask it."""
    stake = player.stake
    return not profile.fixed_stakes or stake is None or ante == stake


def keep_stake(profile: Profile, player: Player, ante: Decimal) -> None:
    """A seat whose Ante :func:`stake_holds`, counted as :func:`~.ledger.stake_check`
    counts it (a seat at the player's stake by ``same``, added to the counts only when
    something reads them): the stake is then the Ante as this seat wrote it."""
    if not profile.fixed_stakes:
        return
    if player.stake is not None:
        player.same += 1
    else:
        player._antes[ante] = player._antes.get(ante, 0) + 1
    player.stake = player.last_ante = ante


def check_placed(ante: Decimal, bonus: Decimal, call: Decimal | None, decision: str, profile: Profile,
                 emit: Emit) -> Decimal:
    """S008 and S001, which the stakes as placed decide alone (whoever plays them, with
    whatever cards): the fast lane decides them once for every seat that staked alike
    (``clean.make_entry``). The Call the rules place, for the funds check."""
    placed: Decimal = ante * profile.call_multiple if decision == "call" else ZERO
    # S008 and S001 judge the stakes' values, not their spelling: stakes found right once
    # (under these rules) are right again, and a round of a clean log asks only that.
    key = (ante, bonus, call, decision, profile.stake_increment, profile.call_multiple)
    if key in _PLACED_RIGHT:
        return placed
    before = _Counted(emit)
    check_stake_units(ante, bonus, call, profile.stake_increment, before)
    if call is not None and call != placed:
        if decision == "fold":
            emit(codes.S001, f"Call stake {fmt(call)} on a fold: a fold places no Call stake", "call", ZERO, call)
        else:
            emit(codes.S001, f"Call stake {fmt(call)} is not {fmt(profile.call_multiple)} × Ante {fmt(ante)}", "call",
                 placed, call)
    elif not before.said and len(_PLACED_RIGHT) < _KEPT:
        _PLACED_RIGHT.add(key)
    return placed


#: Stakes (Ante, bonus, Call, decision, and the rules' increment and Call multiple) that
#: :func:`check_placed` found right; at most ``_KEPT`` of them.
_PLACED_RIGHT: set[tuple[Any, ...]] = set()
_KEPT = 20_000


class _Counted:
    """An :class:`Emit` that says whether it was called (then the stakes are not kept)."""

    __slots__ = ("emit", "said")

    def __init__(self, emit: Emit) -> None:
        self.emit, self.said = emit, False

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        self.said = True
        self.emit(code, message, field, expected, recorded)


def check_offered(bonus: Decimal, profile: Profile, emit: Emit) -> None:
    """S006: a bonus stake the profile does not offer (decided by the stake alone, as
    :func:`check_placed`)."""
    if bonus and profile.bonus is None:
        emit(codes.S006, f"bonus stake {fmt(bonus)} under profile {profile.name}, which has no bonus; "
             "it is returned", "bonus", ZERO, bonus)


def check_funds(seat: Any, profile: Profile, player: Player, void: bool, placed: Decimal, emit: Emit) -> None:
    """S007 only when no reading of the balance covers the call: neither the rules'
    balance nor the table's (an earlier wrong payment is its own finding). A void deal
    risks nothing and is not checked; nor is a player whose opening balance is unknown."""
    if not void and funds_short(profile, player, seat.decision, seat.ante, seat.bonus, placed):
        needed = seat.ante + seat.bonus + placed
        table = player.table_balance()
        best = player.balance if table is None else max(player.balance, table)
        kept = f" (as the table kept it {fmt(table)})" if table is not None and table != player.balance else ""
        emit(codes.S007, f"the call needs {fmt(needed)} in stakes but the balance is {fmt(player.balance)}{kept}",
             "decision", needed, best)


def funds_short(profile: Profile, player: Player, decision: str, ante: Decimal, bonus: Decimal,
                call: Decimal) -> bool:
    """The test of S007: the profile needs funds for a Call, the seat calls, the
    player's opening balance is known, and the balance does not :func:`cover <covers>`
    its stakes (``call``: the Call the rules place; summed only when the rest holds).
    The full audit (:func:`check_funds`, which then words it) and the fast lane
    (``lane.take_seat``) both ask it."""
    return (profile.call_requires_funds and decision == "call" and player.funded
            and not covers(player, ante + bonus + call))


def covers(player: Player, needed: Decimal) -> bool:
    """Some reading of the player's balance covers ``needed``, the rules' or the table's
    where it can be known (an earlier wrong payment is its own finding)."""
    table = player.table_balance()
    return (player.balance if table is None else max(player.balance, table)) >= needed
