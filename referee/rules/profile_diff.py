"""How a profile's rules differ from a built-in's, in words (``H010``).

Why: a profile file may call itself ``vivo`` and pay a royal flush 1:1; every report
would then print ``vivo`` over a paytable nobody published. What counts is what rules a
round: every field of :class:`~referee.rules.profile.Profile` but the ones that only
name or describe it (its name, description, source and the words of its rules, which
``explain`` quotes but no settlement reads). A field added to the profile is compared
without a change here.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .category import Category
from .money import fmt
from .profile import BonusRule, HandThreshold, Profile

#: The fields that name or describe a profile, never what it pays.
WORDS_ONLY = frozenset({"name", "description", "source", "rules"})


def rule_fields() -> tuple[str, ...]:
    """The fields of a profile that rule a round, in the model's order."""
    return tuple(name for name in Profile.model_fields if name not in WORDS_ONLY)


def differences(profile: Profile, builtin: Profile, builtin_name: str) -> list[str]:
    """Each way ``profile`` rules otherwise than the built-in ``builtin_name``, one phrase
    each (``royal_flush 1:1, the built-in vivo pays 100:1``); empty when they rule alike."""
    said = f"the built-in {builtin_name}"
    found: list[str] = []
    for name in rule_fields():
        mine, theirs = getattr(profile, name), getattr(builtin, name)
        if mine == theirs:
            continue
        if name == "ante_paytable":
            found += _paytable("", mine, theirs, said)
        elif name == "bonus":
            found += _bonus(mine, theirs, said)
        else:
            found.append(f"{name} {_value(name, mine)}, {said} has {_value(name, theirs)}")
    return found


def _paytable(prefix: str, mine: dict[Category, Decimal], theirs: dict[Category, Decimal], said: str) -> list[str]:
    found = []
    for category in reversed(Category.ranked()):
        a, b = mine.get(category), theirs.get(category)
        if a != b:
            found.append(f"{prefix}{category} {_odds(a)}, {said} pays {_odds(b)}")
    return found


def _bonus(mine: BonusRule | None, theirs: BonusRule | None, said: str) -> list[str]:
    if mine is None or theirs is None:
        return [f"bonus {_value('bonus', mine)}, {said} has {_value('bonus', theirs)}"]
    found = _paytable("bonus.paytable.", mine.paytable, theirs.paytable, said)
    if mine.minimum != theirs.minimum:
        found.append(f"bonus.minimum {mine.minimum.words()}, {said} has {theirs.minimum.words()}")
    if mine.fold_forfeits != theirs.fold_forfeits:
        found.append(f"bonus.fold_forfeits {_value('', mine.fold_forfeits)}, {said} has "
                     f"{_value('', theirs.fold_forfeits)}")
    return found


def _odds(odds: Decimal | None) -> str:
    return "nothing" if odds is None else f"{fmt(odds)}:1"


def _value(name: str, value: Any) -> str:
    """A field's value as a profile file would write it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "call_win_odds":
        return f"{fmt(value)}:1" if value else "returned"
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, HandThreshold):
        return value.words()
    if isinstance(value, BonusRule):
        return value.name
    return str(value)
