"""What both hand-history formats share: amounts, card tokens, words, what a table recorded.

Format 1 (:mod:`referee.models.rounds`) and format 2 (:mod:`referee.models.table`) spell a
stake, a card and a table's record of a result the same way, so they are defined once.
Card fields hold text: whether a token is one of the 52 cards is a ruling (a void deal,
rule §07), not a validation error.
"""


from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr

from ..rules.category import Category, as_word

#: The profile of a session that names none (also ``profiles.DEFAULT`` and every
#: ``--profile`` default): defined here, where the format says it, as profiles reads models.
DEFAULT_PROFILE = "vivo"
#: The largest stake. Results and balances may be far larger: a royal flush at the
#: largest Ante under a profile paying up to 1,000,000:1 (and a Call of 100 × Ante)
#: is under 10^21, so any stake the format accepts gives results it can hold.
MAX_AMOUNT = Decimal("1e12")
#: The highest round (or game) number a record may give itself.
MAX_ROUND = 10**12
MAX_RESULT = Decimal("1e24")
Outcome = Literal["fold", "win", "lose", "push", "void"]


def words(*choices: str) -> BeforeValidator:
    """Enumerated words as people write them: ``Call``, `` FOLD ``, ``Win``, ``Two Pair``,
    ``two-pair`` (:func:`~referee.rules.category.as_word`, which profiles read by too).
    A word that is none of ``choices`` however written is left as the table wrote it, so
    its finding quotes it ('Two Pairs'; did you mean 'two_pair'?)."""
    known = frozenset(choices)

    def read(value: Any) -> Any:
        spelt = as_word(value)
        return spelt if spelt in known else value

    return BeforeValidator(read)


#: The schema's ``enum`` gives each word's canonical (lower-case) spelling; JSON Schema
#: cannot say "any case", so the description does.
ANY_CASE = "any capitalisation, with spaces or hyphens for underscores, is read as this word (Call, FOLD, Two Pair)"
OutcomeWord = Annotated[Outcome, words(*get_args(Outcome)), Field(description=f"the outcome; {ANY_CASE}")]
CategoryWord = Annotated[Category, words(*Category), Field(description=f"a hand category; {ANY_CASE}")]
Decision = Literal["call", "fold"]
DecisionWord = Annotated[Decision, words(*get_args(Decision)), Field(description=f"the player's decision; {ANY_CASE}")]


Money = Annotated[
    Decimal,
    Field(allow_inf_nan=False, ge=-MAX_RESULT, le=MAX_RESULT, decimal_places=6,
          description="an exact amount: an integer or a decimal (at most 6 places)"),
]
Stake = Annotated[
    Decimal,
    Field(allow_inf_nan=False, ge=0, le=MAX_AMOUNT, decimal_places=6,
          description="an amount staked, 0 or more, exact"),
]
CardToken = Annotated[
    StrictStr, Field(max_length=16, description="a card: Ah, AH, ah, A♥, 10h, Th, Vh (valet), ?? for unseen")
]
CardList = Annotated[list[CardToken], Field(max_length=52)]


class StrictModel(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import
    # (every command's start-up; a JSON Lines check builds Session alone, and no format-2 model).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Recorded(StrictModel):
    """What the table paid and logged. Every field is optional; every field present is audited."""

    void: StrictBool | None = Field(default=None, description="the table voided the deal")
    void_reason: str | None = Field(default=None, description="the table's own words; kept, not audited")
    outcome: OutcomeWord | None = None
    player_hand: CategoryWord | None = None
    dealer_hand: CategoryWord | None = None
    dealer_qualified: StrictBool | None = None
    ante: Money | None = Field(default=None, description="net result of the Ante")
    call: Money | None = Field(default=None, description="net result of the Call")
    bonus: Money | None = Field(default=None, description="net result of the bonus stake")
    net: Money | None = Field(default=None, description="net result of the round")
    returned: Money | None = Field(default=None, description="total handed back, stakes included")
    balance: Money | None = Field(default=None, description="running balance after this round")


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The one of ``choices`` a typo ``word`` most likely meant, if any is close."""
    import difflib  # here: only a problem needs it, and its import is 1 ms of every start

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """``; did you mean 'dealer'?`` for a typo, else the list of what is expected."""
    meant = closest(word, choices)
    if meant is not None:
        return f"; did you mean {meant!r}?"
    return f" (expected one of: {', '.join(choices)})"


RECORDED_FIELDS = tuple(Recorded.model_fields)
