"""Comparing a round's record with its ruling: one finding per root cause.

Why "root cause": when the deal is void, every recorded payout is wrong as a
consequence; the auditor needs the one finding that says the deal was void
(V001), not five. Likewise a valid deal recorded as void gives V002 alone.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, assert_never

from ..models import Recorded, Round
from ..rules.money import signed
from ..rules.payout import Rule, Wager
from ..rules.settlement import Ruling
from . import codes
from .codes import FindingCode

Emit = Callable[[FindingCode, str, str, Any, Any], None]
_WAGERS = (("ante", codes.P001, "Ante result"), ("call", codes.P002, "Call result"),
           ("bonus", codes.P003, "bonus result"), ("net", codes.P004, "net result"),
           ("returned", codes.P007, "total returned"))


def compare_record(model: Round, ruling: Ruling, emit: Emit) -> None:
    recorded = model.recorded
    if ruling.outcome == "void":
        _compare_void(recorded, ruling, emit)
        return
    if recorded is None:
        return
    if recorded.void:
        emit(codes.V002, "the deal is correct but recorded as void", "recorded.void", False, True)
        return
    _compare_hands(recorded, ruling, emit)
    _compare_money(recorded, ruling, emit)


def _compare_void(recorded: Recorded | None, ruling: Ruling, emit: Emit) -> None:
    reason = ruling.void_reason or "malformed deal"
    settled = recorded is not None and (
        recorded.void is False
        or (recorded.outcome is not None and recorded.outcome != "void")
        or any(getattr(recorded, name) for name in ("ante", "call", "bonus", "net"))
    )
    if settled:
        emit(codes.V001, f"void deal ({reason}) recorded as valid: all stakes are returned (§07)",
             "recorded.void" if recorded is not None and recorded.void is not None else "recorded",
             "void", "settled")
        return
    emit(codes.V003, f"void deal: {reason}; stakes returned, round not counted (§07)", "round", None, None)
    if recorded is not None:
        _compare_money(recorded, ruling, emit)


def _compare_hands(recorded: Recorded, ruling: Ruling, emit: Emit) -> None:
    if recorded.outcome is not None and recorded.outcome != ruling.outcome:
        emit(codes.P006, f"outcome recorded {recorded.outcome}, the rules give {ruling.outcome}",
             "recorded.outcome", ruling.outcome, recorded.outcome)
    hands = (("player_hand", codes.K001, ruling.player_hand), ("dealer_hand", codes.K002, ruling.dealer_hand))
    for name, code, hand in hands:
        value = getattr(recorded, name)
        if value is None or hand is None:
            continue
        if value != hand.category:
            who = name.split("_")[0]
            emit(code, f"{who} hand recorded {value}, the rules give {hand.category} ({hand.description})",
                 f"recorded.{name}", hand.category, value)
    if (recorded.dealer_qualified is not None and ruling.dealer_qualified is not None
            and recorded.dealer_qualified != ruling.dealer_qualified):
        said = "qualified" if recorded.dealer_qualified else "not qualified"
        truth = "qualifies" if ruling.dealer_qualified else "does not qualify"
        why = ruling.dealer_hand.description if ruling.dealer_hand else ""
        emit(codes.K003, f"dealer recorded {said}, but with {why} the dealer {truth} (pair of 4s or better, §05)",
             "recorded.dealer_qualified", ruling.dealer_qualified, recorded.dealer_qualified)


def _compare_money(recorded: Recorded, ruling: Ruling, emit: Emit) -> None:
    for name, code, label in _WAGERS:
        value: Decimal | None = getattr(recorded, name)
        if value is None:
            continue
        truth: Decimal = getattr(ruling, name)
        if value != truth:
            emit(code, f"{label} recorded {signed(value)}, the rules give {signed(truth)} "
                 f"({_rule_words(ruling, name)})", f"recorded.{name}", truth, value)


def _rule_words(ruling: Ruling, name: str) -> str:
    if name in ("net", "returned"):
        return f"outcome {ruling.outcome}"
    line = ruling.line(Wager(name))
    return rule_words(line.rule) if line is not None else "no stake"


def rule_words(rule: Rule) -> str:
    """The rule in the few words of a ``check`` finding; mypy checks that every rule has some."""
    match rule:
        case Rule.ANTE_PAYTABLE:
            return "Ante paytable"
        case Rule.EVEN_MONEY:
            return "even money"
        case Rule.CALL_ODDS:
            return "Call odds"
        case Rule.CALL_RETURNED | Rule.CALL_RETURNED_ON_WIN:
            return "returned"
        case Rule.PUSH:
            return "push"
        case Rule.DEALER_WINS | Rule.BONUS_MISSED:
            return "lost"
        case Rule.FOLDED:
            return "fold loses the Ante"
        case Rule.FORFEITED:
            return "fold forfeits the bonus"
        case Rule.BONUS_PAYTABLE:
            return "bonus paytable"
        case Rule.NOT_OFFERED:
            return "no bonus in this profile: returned"
        case Rule.VOID:
            return "void: returned"
        case _:
            assert_never(rule)
