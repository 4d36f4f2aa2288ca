"""Hand values: what ``referee.evaluate`` returns.

A :class:`HandValue` keeps the packed value (which alone decides the order of rule
§04) and the cards it came from; the best five, the category name and the
description are derived only when asked, so that evaluating millions of hands
costs no more than the table lookups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import total_ordering
from typing import Any, Literal

from . import evaluator
from .cards import RANK_NAMES, RANK_PLURALS, Card, CardError, parse_card, rank_char
from .evaluator import (
    CARD_SHIFT,
    CATEGORY_NAMES,
    FIVE,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    KEYS,
    PAIR,
    RANK_FIELD,
    RANK_SHIFT,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_FIELD,
    SUIT_MASKS,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category_of,
    ranks_of,
    tables,
)

CATEGORIES = CATEGORY_NAMES
Category = Literal[
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
    "straight", "three_of_a_kind", "two_pair", "pair", "high_card",
]
_CARD_KEY: dict[object, int] = {}


class HandError(ValueError):
    """Cards that cannot form a hand: wrong count or a card given twice."""


@total_ordering
class HandValue:
    """The value of a hand of 5 to 7 cards, totally ordered by rule §04.

    Only the best five cards count, so two hand values compare equal exactly when
    their best fives have the same ranks in the same roles; suits never rank.
    """

    __slots__ = ("cards", "value")

    value: int
    cards: tuple[Any, ...]

    def __init__(self, value: int, cards: Sequence[Any]) -> None:
        self.value = value
        self.cards = tuple(cards)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value < other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    @property
    def category(self) -> Category:
        """One of the ten category names, ``royal_flush`` down to ``high_card``."""
        return CATEGORIES[self.value >> 20]  # type: ignore[return-value]

    @property
    def category_index(self) -> int:
        """0 (high card) to 9 (royal flush)."""
        return self.value >> 20

    @property
    def ranks(self) -> tuple[int, ...]:
        """The ranks that decide ties, in the order they are compared (0 = two)."""
        return ranks_of(self.value)

    @property
    def best_five(self) -> tuple[Card, ...]:
        """The five cards that play, most significant first.

        Where equal ranks leave a choice (a kicker from a pair, two of three cards of
        a triple), the card given earlier in the input plays.
        """
        return best_five(self.value, [_as_card(c) for c in self.cards])

    @property
    def description(self) -> str:
        """Plain English, e.g. ``pair of aces, kickers K 9 7``."""
        return describe(self.value)

    def __repr__(self) -> str:
        cards = " ".join(str(c) for c in self.best_five)
        return f"<HandValue {self.category} [{cards}]: {self.description}>"

    def __str__(self) -> str:
        return self.description


def _as_card(token: object) -> Card:
    card = parse_card(token)
    if card is None:
        raise CardError(token, "an unseen card cannot be evaluated")
    return card


def _card_key(token: object) -> int:
    """Key of one card given as a Card or any spelling (cached per spelling)."""
    key = _CARD_KEY.get(token)
    if key is None:
        key = KEYS[_as_card(token)]
        if isinstance(token, str):
            _CARD_KEY[token] = key
    return key


def _prime_keys() -> None:
    from .cards import DECK, SPELLINGS

    for card in DECK:
        _CARD_KEY[card] = KEYS[card]
    for spelling, card in SPELLINGS.items():
        _CARD_KEY[spelling] = KEYS[card]


_prime_keys()


def evaluate(cards: Sequence[Any] | Iterable[Any]) -> HandValue:
    """Value of 5, 6 or 7 cards (Card objects or strings in any notation).

    Raises :class:`CardError` for a token that is not a card and :class:`HandError`
    for a wrong count or a card given twice.
    """
    k = _CARD_KEY
    try:
        a, b, c, d, e, f, g = cards
        key = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        n = 7
    except (ValueError, KeyError, TypeError):
        cards = tuple(cards)
        key = _key_slow(cards)
        n = len(cards)
    if (key >> CARD_SHIFT).bit_count() != n:
        raise HandError(f"a card is given twice in {' '.join(str(_as_card(c)) for c in cards)}")
    t = evaluator._tables or tables()
    suit = t.flush_suit[key & SUIT_FIELD]
    hand = _new(HandValue)
    if suit < 0:
        hand.value = t.ranks[n][(key >> RANK_SHIFT) & RANK_FIELD]
    else:
        hand.value = t.suited[(key >> CARD_SHIFT) & SUIT_MASKS[suit]]
    hand.cards = cards if type(cards) is tuple else tuple(cards)
    return hand


_new = object.__new__


def _key_slow(cards: Sequence[Any]) -> int:
    if not 5 <= len(cards) <= 7:
        raise HandError(f"a hand has 5, 6 or 7 cards, got {len(cards)}")
    return sum(_card_key(c) for c in cards)


# Copies of each rank the best five uses, by category, in order of significance.
_GROUPS = {
    FOUR_OF_A_KIND: (4, 1),
    FULL_HOUSE: (3, 2),
    THREE_OF_A_KIND: (3, 1, 1),
    TWO_PAIR: (2, 2, 1),
    PAIR: (2, 1, 1, 1),
    HIGH_CARD: (1, 1, 1, 1, 1),
}


def straight_ranks(top: int) -> list[int]:
    """Ranks of the straight with this top card, highest first (the wheel ends in A)."""
    if top == FIVE:
        return [3, 2, 1, 0, 12]
    return list(range(top, top - 5, -1))


def best_five(value: int, cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five of ``cards`` that make ``value``, most significant first."""
    category = category_of(value)
    ranks = ranks_of(value)
    if category in (FLUSH, STRAIGHT_FLUSH, ROYAL_FLUSH):
        counts = [0, 0, 0, 0]
        for c in cards:
            counts[c.suit] += 1
        suit = counts.index(max(counts))
        wanted = ranks if category == FLUSH else straight_ranks(ranks[0])
        by_rank = {c.rank: c for c in cards if c.suit == suit}
        return tuple(by_rank[r] for r in wanted)
    if category == STRAIGHT:
        chosen: list[Card] = []
        for r in straight_ranks(ranks[0]):
            chosen.append(next(c for c in cards if c.rank == r))
        return tuple(chosen)
    chosen = []
    for r, copies in zip(ranks, _GROUPS[category], strict=True):
        chosen.extend([c for c in cards if c.rank == r][:copies])
    return tuple(chosen)


def _identity(text: str) -> str:
    return text


def rank_list(ranks: Iterable[int], rank: Callable[[int], str] = rank_char, sep: str = " ") -> str:
    return sep.join(rank(r) for r in ranks)


def describe(
    value: int, tr: Callable[[str], str] = _identity, rank: Callable[[int], str] = rank_char, sep: str = " "
) -> str:
    """A hand in words; ``tr`` translates the templates (a gettext function), ``rank``
    writes a rank letter (French writes R for K) and ``sep`` separates listed ranks.

    Templates use ``{rank}`` / ``{ranks}`` for a rank name (singular/plural), and
    ``{of_ranks}`` for the plural with its preposition, so that a catalogue can give
    French its elisions (``paire d'as``, ``paire de rois``).
    """
    category = category_of(value)
    r = ranks_of(value)

    def plural(rank_: int) -> str:
        return tr(RANK_PLURALS[rank_])

    def name(rank_: int) -> str:
        return tr(RANK_NAMES[rank_])

    def of(rank_: int) -> str:
        return tr("of " + RANK_PLURALS[rank_])

    def listed(ranks: Iterable[int]) -> str:
        return rank_list(ranks, rank, sep)

    if category == ROYAL_FLUSH:
        return tr("royal flush")
    if category == STRAIGHT_FLUSH:
        return tr("straight flush, {rank} high").format(rank=name(r[0]))
    if category == FOUR_OF_A_KIND:
        return tr("four {of_ranks}, kicker {kicker}").format(of_ranks=of(r[0]), kicker=rank(r[1]))
    if category == FULL_HOUSE:
        return tr("full house, {ranks} full {of_ranks}").format(
            ranks=plural(r[0]), of_ranks=of(r[1]), low=plural(r[1])
        )
    if category == FLUSH:
        return tr("flush, {rank} high: {cards}").format(rank=name(r[0]), cards=listed(r))
    if category == STRAIGHT:
        return tr("straight, {rank} high").format(rank=name(r[0]))
    if category == THREE_OF_A_KIND:
        return tr("three {of_ranks}, kickers {kickers}").format(of_ranks=of(r[0]), kickers=listed(r[1:]))
    if category == TWO_PAIR:
        return tr("two pair, {high} and {low}, kicker {kicker}").format(
            high=plural(r[0]), low=plural(r[1]), kicker=rank(r[2])
        )
    if category == PAIR:
        return tr("pair {of_ranks}, kickers {kickers}").format(of_ranks=of(r[0]), kickers=listed(r[1:]))
    return tr("high card {rank}, then {kickers}").format(rank=name(r[0]), kickers=listed(r[1:]))
