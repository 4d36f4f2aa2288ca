"""Why one hand beats another: the comparison of rule §04, step by step.

A ruling must say more than "the player wins": it must walk down the tie-break order
(category, then the ranks in the roles the category gives them) to the first
difference, or show that there is none. Passing example: pair of aces K 9 7 against
pair of aces Q 9 7 is decided at the first kicker, K against Q; pair of aces against
pair of queens at the pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .evaluator import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category_of,
    ranks_of,
)
from .hands import HandValue, evaluate

Role = Literal["category", "quads", "trips", "pair", "high_pair", "low_pair", "kicker", "top_card", "card"]
Winner = Literal["player", "dealer", "tie"]

# The role of each packed rank, by category (rule §04's tie-break order).
ROLES: dict[int, tuple[Role, ...]] = {
    ROYAL_FLUSH: ("top_card",),
    STRAIGHT_FLUSH: ("top_card",),
    FOUR_OF_A_KIND: ("quads", "kicker"),
    FULL_HOUSE: ("trips", "pair"),
    FLUSH: ("card",) * 5,
    STRAIGHT: ("top_card",),
    THREE_OF_A_KIND: ("trips", "kicker", "kicker"),
    TWO_PAIR: ("high_pair", "low_pair", "kicker"),
    PAIR: ("pair", "kicker", "kicker", "kicker"),
    HIGH_CARD: ("card",) * 5,
}


@dataclass(frozen=True, slots=True)
class Step:
    """One comparison: ``role`` (with its 1-based ``index`` among kickers or cards)
    and the two sides' category indices or ranks (0 = two .. 12 = ace)."""

    role: Role
    index: int
    first: int
    second: int

    @property
    def decides(self) -> bool:
        return self.first != self.second


@dataclass(frozen=True, slots=True)
class TieBreak:
    """The steps taken, ending at the deciding one; ``winner`` is from the first side's
    view (``player`` = first, ``dealer`` = second)."""

    steps: tuple[Step, ...]
    winner: Winner


def tie_break(first: HandValue, second: HandValue) -> TieBreak:
    """Compare two hands down rule §04's order until the first difference."""
    a, b = first.value, second.value
    steps = [Step("category", 0, category_of(a), category_of(b))]
    if not steps[0].decides:
        counters: dict[str, int] = {}
        for role, ra, rb in zip(ROLES[category_of(a)], ranks_of(a), ranks_of(b), strict=True):
            counters[role] = counters.get(role, 0) + 1
            steps.append(Step(role, counters[role], ra, rb))
            if ra != rb:
                break
    winner: Winner = "player" if a > b else "dealer" if a < b else "tie"
    return TieBreak(tuple(steps), winner)


@dataclass(frozen=True, slots=True)
class Play:
    """Which five cards play and how many of them are private (0: the board plays)."""

    best_five: tuple[object, ...]
    private: tuple[object, ...]


def fewest_private(private: Sequence[object], board: Sequence[object], value: int) -> Play:
    """The best five using as few private cards as reach ``value`` (rule §03).

    Where a private card and a board card of the same rank could both play, the board
    card is shown: "the board plays" is then said whenever it is true.
    """
    if len(board) == 5 and evaluate(list(board)).value == value:
        return Play(evaluate(list(board)).best_five_of(board), ())
    for card in private if len(board) >= 4 else ():
        hand = evaluate([*board, card])
        if hand.value == value:
            five = hand.best_five_of([*board, card])
            return Play(five, tuple(c for c in five if c == card))
    hand = evaluate([*board, *private])
    five = hand.best_five_of([*board, *private])
    return Play(five, tuple(c for c in five if c in private))
