"""The ten hand categories: one enum, spelt in files exactly as the formats spell them.

Why one type: a category used to be an int (in packed values), a name in a tuple and
a ``Literal`` (in profiles and records), and every crossing between them cost a cast.
A :class:`Category` is a ``str`` (``Category.TWO_PAIR == "two_pair"``), so JSON, YAML
and f-strings write it as before, and it knows its place in the ranking (``order``,
0 for high card to 9 for royal flush, the number packed in a hand value).

>>> Category.of(Category.FLUSH.order << 20) is Category.FLUSH
True
>>> [c.value for c in Category.ranked()][:2]
['high_card', 'pair']
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

CATEGORY_SHIFT = 20


class Category(StrEnum):
    """A hand category, strongest first (the order of the guide's §04 and of the schemas)."""

    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    PAIR = "pair"
    HIGH_CARD = "high_card"

    @property
    def order(self) -> int:
        """0 (high card) to 9 (royal flush): the category packed in a hand value."""
        return _INDEX[self]

    @property
    def words(self) -> str:
        """The category in plain English: ``two pair``."""
        return self.value.replace("_", " ")

    @classmethod
    def of(cls, value: int) -> Category:
        """The category of a packed hand value."""
        return _RANKED[value >> CATEGORY_SHIFT]

    @classmethod
    def at(cls, index: int) -> Category:
        """The category with this index (0 high card .. 9 royal flush)."""
        return _RANKED[index]

    @classmethod
    def ranked(cls) -> tuple[Category, ...]:
        """Weakest first, so that ``ranked()[i].order == i``."""
        return _RANKED

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Validated as the ``Literal`` it replaces, then made a member: the committed JSON
        Schemas and the validation errors (``literal_error``) stay exactly as they were."""
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(cls, core_schema.literal_schema([c.value for c in cls]))


def as_word(value: Any) -> Any:
    """A word as people write it, spelt as the formats spell it: any capitalisation,
    blanks around it, and spaces or hyphens for underscores (``Two Pair``, ``two-pair``,
    `` FOLD ``, ``Even money``: ``two_pair``, ``fold``, ``even_money``). Records and
    profiles read their words through this one function, so a word one accepts the
    other does; anything not text is returned as it is (its model says what is wrong).

    >>> as_word("Two Pair"), as_word(" two-pair "), as_word("THREE_of a-Kind"), as_word(3)
    ('two_pair', 'two_pair', 'three_of_a_kind', 3)
    """
    if not isinstance(value, str):
        return value
    return "_".join(value.replace("-", " ").replace("_", " ").split()).lower()


_RANKED: tuple[Category, ...] = tuple(reversed(Category))
_INDEX: dict[Any, int] = {c: i for i, c in enumerate(_RANKED)}
