"""Rule profiles: the paytables and options that differ between game systems.

A profile is data (a YAML file validated by :class:`Profile`) so that an operator's
own paytable is audited by the same code as the built-in ones. The built-ins, one
per system described in docs/rules.md, live in ``referee/data/profiles/``.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from .cards import RANKS
from .category import Category, as_word
from .evaluator import pack

RankName = Literal["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
#: Odds, multiples and increments are money: at most 6 decimal places (as stakes) and a
#: sane size, so that no profile can make an amount of a million digits (``1e-999999``)
#: or a remainder the decimal context cannot compute (``stake_increment: 1e-30``).
MONEY_PLACES = 6
Odds = Annotated[Decimal, Field(ge=0, le=1_000_000, decimal_places=MONEY_PLACES,
                                description="net payout per unit staked (100 means 100:1)")]


class AnteWhenNotQualified(StrEnum):
    """How the Ante pays when the dealer does not qualify."""

    PAYTABLE = "paytable"
    EVEN_MONEY = "even_money"


#: A category or rule word as people write it (``Two Pair``, ``even money``), read as a
#: hand history reads its words (:func:`~referee.rules.category.as_word`).
CategoryWord = Annotated[Category, BeforeValidator(as_word)]


def paytable_words(table: object) -> object:
    """A paytable's categories as people write them, each once: ``Two Pair`` beside
    ``two_pair`` is the same line written twice, which is refused, not one of them kept."""
    if not isinstance(table, dict):
        return table
    read: dict[object, object] = {}
    written: dict[object, object] = {}
    for key, odds in table.items():
        word = as_word(key)
        if word in read:
            raise ValueError(f"{written[word]!r} and {key!r} are the same category: write it once")
        read[word], written[word] = odds, key
    return read


class HandThreshold(BaseModel):
    """The weakest hand that passes: a category, and for a pair the lowest rank.

    ``{category: pair, rank: "4"}`` is the dealer's pair of 4s or better;
    ``{category: pair, rank: A}`` is a bonus's pair of aces or better.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: CategoryWord
    rank: RankName | None = Field(
        default=None, description="lowest rank of the pair (or of the category's main rank)"
    )

    def floor(self) -> int:
        """The smallest packed hand value that passes."""
        return _floor(self.category, self.rank)

    def passes(self, value: int) -> bool:
        return value >= self.floor()

    def words(self) -> str:
        if self.rank is None:
            return f"{self.category.replace('_', ' ')} or better"
        return f"{self.category.replace('_', ' ')} of {self.rank}s or better"


@lru_cache(maxsize=64)
def _floor(category: Category, rank: str | None) -> int:
    """Cached: settling asks for the dealer's qualifier once a round."""
    return pack(Category(category).order, (RANKS.index(rank),) if rank is not None else ())


class BonusRule(BaseModel):
    """An optional side bet on the player's two cards and the flop (five cards)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    paytable: dict[Category, Odds] = Field(
        description="net odds by the category of the player's five cards; a category absent loses"
    )
    minimum: HandThreshold = Field(description="the weakest hand that is paid")
    fold_forfeits: bool = Field(description="a fold loses the bonus stake and any bonus win")

    _paytable_words = field_validator("paytable", mode="before")(staticmethod(paytable_words))


class Topic(StrEnum):
    """The part of a ruling that quotes a passage of the rules (see :class:`Passage`)."""

    FOLD = "fold"  # the fold loses the Ante
    BEST_FIVE = "best_five"  # each side's best five of seven
    RANKING = "ranking"  # how two hands of a category compare
    QUALIFICATION = "qualification"  # when the dealer qualifies
    NOT_QUALIFIED = "not_qualified"  # what Ante and Call get when the dealer does not
    WIN = "win"  # the player beats a qualified dealer
    TIE = "tie"  # an exact tie with a qualified dealer
    LOSE = "lose"  # a qualified dealer wins
    PAYTABLE = "paytable"  # the Ante paytable
    BONUS = "bonus"  # the side bet and its paytable
    BONUS_FOLD = "bonus_fold"  # what a fold does to the side bet
    VOID = "void"  # an incorrect deal


Language = Literal["en", "fr"]
#: A reference said in one way for every reader, or in each reader's language.
Worded = str | dict[Language, Annotated[str, Field(min_length=1, max_length=200)]]


def in_language(words: Worded, language: str) -> str:
    """``words`` in ``language`` when given in it, else in the first language given
    (a plain string is the same in every language)."""
    if isinstance(words, str):
        return words
    for lang, said in words.items():
        if lang == language:
            return said
    return next(iter(words.values()), "")


class Passage(BaseModel):
    """The words of one rule, quoted by a ruling: where they come from and the text in
    the languages the document exists in (a ruling in another language quotes one of
    them as written). ``cite`` may be given by language so that a French ruling names
    the section in French (the built-ins point at docs/rules.md, which ships with the
    project, never at a document a user cannot open)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cite: Worded = Field(min_length=1, max_length=200,
                         description="where the words are: a section, a heading; or that by language (en, fr)")
    text: dict[Literal["en", "fr"], Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        min_length=1, description="the words, by language (en, fr)"
    )

    def where(self, language: str) -> str:
        """Where the words are, said in ``language`` when the profile says it so."""
        return in_language(self.cite, language)

    def quote(self, language: str) -> tuple[str, str]:
        """The text in ``language`` if the document has it, else as written; and its language."""
        for lang, words in self.text.items():
            if lang == language:
                return words, lang
        return next(iter(self.text.values())), next(iter(self.text))


class Profile(BaseModel):
    """One game system's rules: what each wager pays in each situation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    description: str
    source: Worded = Field(default="", max_length=200,
                           description="the document the profile follows; or that by language (en, fr)")
    ante_paytable: dict[Category, Odds] = Field(
        description="net odds of the Ante by the player's hand category; all ten categories"
    )
    call_multiple: Decimal = Field(default=Decimal(2), gt=0, le=100, decimal_places=MONEY_PLACES,
                                   description="Call stake = multiple × Ante")
    call_win_odds: Decimal = Field(
        default=Decimal(1), ge=0, le=1000, decimal_places=MONEY_PLACES,
        description="net odds of the Call when the player beats a qualified dealer (0: returned)",
    )
    ante_when_not_qualified: Annotated[AnteWhenNotQualified, BeforeValidator(as_word)] = Field(
        default=AnteWhenNotQualified.PAYTABLE)
    dealer_qualifier: HandThreshold = Field(default=HandThreshold(category="pair", rank="4"))
    bonus: BonusRule | None = None
    rounds_agreed: int | None = Field(default=20, ge=1, description="counted rounds a session agrees")
    fixed_stakes: bool = Field(default=True, description="stakes may not change within a session")
    stake_increment: Decimal = Field(
        default=Decimal("0.01"), gt=0, le=1_000_000, decimal_places=MONEY_PLACES,
        description="every stake must be a whole multiple of this (0.01: cents; 1: whole units)",
    )
    call_requires_funds: bool = Field(
        default=False,
        description="where a session records an opening balance, a call it cannot cover is a finding",
    )
    rules: dict[Topic, Passage] = Field(
        default_factory=dict,
        description="the words of the rules, quoted by explain: fold, best_five, ranking, qualification, "
        "not_qualified, win, tie, lose, paytable, bonus, bonus_fold, void (the built-ins ship theirs beside them)",
    )

    _paytable_words = field_validator("ante_paytable", mode="before")(staticmethod(paytable_words))

    @field_validator("ante_paytable")
    @classmethod
    def _all_categories(cls, table: dict[str, Decimal]) -> dict[str, Decimal]:
        missing = [c for c in Category.ranked() if c not in table]
        if missing:
            raise ValueError(f"the Ante paytable needs every category; missing: {', '.join(missing)}")
        return table

    @model_validator(mode="after")
    def _bonus_minimum_is_paid(self) -> Profile:
        if self.bonus is not None and self.bonus.minimum.category not in self.bonus.paytable:
            raise ValueError("bonus.minimum names a category that bonus.paytable does not pay")
        return self

    def dealer_qualifies(self, value: int) -> bool:
        return self.dealer_qualifier.passes(value)

