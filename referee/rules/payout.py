"""What each wager pays in each situation: the one place a profile's payout rules live.

Why one place: a round is settled (``settle``), valued for optimal play
(``strategy.Payoffs``), counted for the PAR sheet and put into words (``check``,
``explain``, every report). When each of them knew the rules on its own, a new rule
could pass the tests while ``explain`` called it a void deal. Here a profile's rules
are one function, :func:`main_terms` (Ante and Call) and one for the side bet,
:func:`bonus_term`; everything else reads the :class:`Term` they give. A new rule is
a member of :class:`Rule`, a branch here and, because every wording is a ``match``
ending in ``assert_never``, a sentence wherever mypy asks for one.

>>> from referee.profiles import load_profile
>>> ante, call = main_terms(load_profile("caribbean"), Ending.NOT_QUALIFIED, Category.FLUSH)
>>> (ante.rule, ante.net, call.rule, call.net)
(<Rule.EVEN_MONEY: 'even_money'>, Decimal('1'), <Rule.CALL_RETURNED: 'returned'>, Decimal('0'))
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import Enum, IntEnum, StrEnum
from typing import assert_never

from .category import Category
from .profile import AnteWhenNotQualified, Profile

ONE, ZERO = Decimal(1), Decimal(0)


class Wager(StrEnum):
    """The three wagers a round can hold."""

    ANTE = "ante"
    CALL = "call"
    BONUS = "bonus"


class Ending(IntEnum):
    """How the main game ends after a call (the order of ``strategy``'s counts), or a fold."""

    NOT_QUALIFIED = 0
    WIN = 1
    TIE = 2
    LOSE = 3
    FOLD = 4


class Rule(Enum):
    """The rule that settled one wager. The value is its name in JSON (``explain --format
    json``'s ``rule``), which two pairs of rules share: what differs is the reason."""

    ANTE_PAYTABLE = "paytable"  # the Ante paid by the profile's paytable
    EVEN_MONEY = "even_money"  # the Ante paid 1:1 when the dealer does not qualify
    CALL_ODDS = "call_odds"  # the Call paid when the player beats a qualified dealer
    CALL_RETURNED = "returned"  # the Call returned: the dealer does not qualify
    CALL_RETURNED_ON_WIN = "returned_on_win"  # the Call returned by a profile that does not pay it
    PUSH = "push"  # an exact tie against a qualified dealer
    DEALER_WINS = "lost"  # the qualified dealer wins
    FOLDED = "folded"  # the Ante lost by the fold
    BONUS_PAYTABLE = "bonus_paytable"  # the bonus paid by its paytable
    BONUS_MISSED = "bonus_missed"  # the bonus hand is below the bonus's minimum
    FORFEITED = "forfeited"  # a fold forfeits the bonus
    NOT_OFFERED = "not_offered"  # a bonus stake under a profile without a bonus: returned
    VOID = "void"  # the deal is void: every stake returned
    CANCELLED = "cancelled"  # the table cancelled the game (format 2): every stake refunded

    @property
    def code(self) -> str:
        """The rule's name in JSON, as it was before the rules were an enum."""
        return _CODES.get(self, self.value)

    @property
    def pays(self) -> bool:
        """Whether the rule pays odds (then a line carries them)."""
        return self in _PAYING


_CODES = {Rule.CALL_RETURNED_ON_WIN: "returned", Rule.BONUS_MISSED: "lost"}
_PAYING = frozenset({Rule.ANTE_PAYTABLE, Rule.EVEN_MONEY, Rule.CALL_ODDS, Rule.BONUS_PAYTABLE})


@dataclass(frozen=True, slots=True)
class Term:
    """How one wager settles: the rule and the net result per unit staked
    (``-1`` lost, ``0`` returned, the odds when paid)."""

    rule: Rule
    net: Decimal

    @property
    def odds(self) -> Decimal | None:
        """The odds paid (``3`` for 3:1), for the rules that pay."""
        return self.net if self.rule.pays else None


LOST_BY_FOLD = Term(Rule.FOLDED, -ONE)
VOID = Term(Rule.VOID, ZERO)


def main_terms(profile: Profile, ending: Ending, category: Category) -> tuple[Term, Term]:
    """The Ante's and the Call's settlement (docs/rules.md's table, row by row), by how the
    game ends and the player's final category (the fold's category does not matter)."""
    match ending:
        case Ending.FOLD:
            return LOST_BY_FOLD, Term(Rule.FOLDED, ZERO)
        case Ending.NOT_QUALIFIED:
            if profile.ante_when_not_qualified is AnteWhenNotQualified.EVEN_MONEY:
                return Term(Rule.EVEN_MONEY, ONE), Term(Rule.CALL_RETURNED, ZERO)
            return Term(Rule.ANTE_PAYTABLE, profile.ante_paytable[category]), Term(Rule.CALL_RETURNED, ZERO)
        case Ending.WIN:
            ante = Term(Rule.ANTE_PAYTABLE, profile.ante_paytable[category])
            if profile.call_win_odds:
                return ante, Term(Rule.CALL_ODDS, profile.call_win_odds)
            return ante, Term(Rule.CALL_RETURNED_ON_WIN, ZERO)
        case Ending.TIE:
            return Term(Rule.PUSH, ZERO), Term(Rule.PUSH, ZERO)
        case Ending.LOSE:
            return Term(Rule.DEALER_WINS, -ONE), Term(Rule.DEALER_WINS, -ONE)
        case _:
            assert_never(ending)


def bonus_term(profile: Profile, five_value: int | None, folded: bool) -> Term:
    """The side bet's settlement on the player's two cards and the flop (``five_value``,
    a packed hand value; ``None`` when the profile has no bonus and nothing was evaluated)."""
    rule = profile.bonus
    if rule is None or five_value is None:
        return Term(Rule.NOT_OFFERED, ZERO)
    if folded and rule.fold_forfeits:
        return Term(Rule.FORFEITED, -ONE)
    odds = rule.paytable.get(Category.of(five_value))
    if odds is not None and rule.minimum.passes(five_value):
        return Term(Rule.BONUS_PAYTABLE, odds)
    return Term(Rule.BONUS_MISSED, -ONE)


@dataclass(frozen=True)
class MainGame:
    """Everything that decides the main game's money: the whole payout table (every
    ending, every category), the Call's size and the dealer's qualifier. Two profiles
    with equal ``MainGame`` values are the same game, whatever their names say, so
    they share the optimal decisions and the PAR sheet."""

    terms: tuple[tuple[tuple[Term, Term], ...], ...]  # [ending][category order]
    call_multiple: Decimal
    qualifier: int

    @classmethod
    def of(cls, profile: Profile) -> MainGame:
        terms = tuple(tuple(main_terms(profile, ending, c) for c in Category.ranked()) for ending in Ending)
        return cls(terms, profile.call_multiple, profile.dealer_qualifier.floor())

    def net(self, ending: Ending, category: Category) -> Decimal:
        """Net result of Ante and Call together, in Antes."""
        ante, call = self.terms[ending][category.order]
        return ante.net + (self.call_multiple * call.net if ending is not Ending.FOLD else ZERO)
