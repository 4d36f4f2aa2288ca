"""Hand values: what ``referee.evaluate`` returns.

There are 7,462 hand values (4,824 of them reachable from five to seven cards, as
far as the order of rule §04 goes), so each is one shared, immutable
:class:`HandValue`: ``evaluate`` looks it up and allocates nothing. It carries the
packed value (which alone decides the order), the category, the ranks that break
ties and a description computed once. Which five cards play depends on the cards,
not on the value, so it is asked for with the cards: ``hand.best_five_of(cards)``.

Each card has a key (see :data:`EVAL_KEYS`) whose sum over a hand holds one bit a
card (a repeated card carries, so the popcount falls short), one nibble a suit
(started at 3, so that five or more of a suit set its top bit) and the rank
multiset's key; a hand is its cards' lookups, additions, one popcount and one dict
lookup. :func:`evaluate_deal` rules both hands of a deal with one repeated-card
check over all nine cards; :func:`referee.rules.batch.evaluate_batch` does arrays of hands in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import evaluator
from .cards import RANK_NAMES, RANK_PLURALS, Card, CardError, parse_card, rank_char
from .category import Category
from .evaluator import (
    CATEGORY_NAMES,
    FIVE,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    RANK_KEYS,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_MASKS,
    THREE_OF_A_KIND,
    TWO_PAIR,
    RankTables,
    Tables,
    category_of,
    ranks_of,
    tables,
)

if TYPE_CHECKING:
    pass

CATEGORIES = CATEGORY_NAMES  # Category.ranked(), kept as the package's public name


class HandError(ValueError):
    """Cards that cannot form a hand: wrong count or a card given twice."""


class HandValue:
    """The value of a hand of 5 to 7 cards, totally ordered by rule §04.

    Only the best five cards count, so two hand values compare equal exactly when
    their best fives have the same ranks in the same roles; suits never rank. There
    is one object per value (``HandValue.of``), shared and immutable.
    """

    __slots__ = ("_description", "category", "ranks", "value")

    value: int
    category: Category
    ranks: tuple[int, ...]
    _description: str | None

    def __new__(cls, value: int) -> HandValue:
        known = _INTERNED.get(value)
        if known is not None:
            return known
        self = object.__new__(cls)
        _set_value(self, value)
        _set_category(self, CATEGORIES[value >> evaluator.CATEGORY_SHIFT])
        _set_ranks(self, ranks_of(value))
        _set_description(self, None)
        _INTERNED[value] = self
        return self

    @classmethod
    def of(cls, value: int) -> HandValue:
        """The shared object of a packed value."""
        return _INTERNED.get(value) or cls(value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a HandValue is shared and cannot change ({name})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (HandValue, (self.value,))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value < other.value
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value <= other.value
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value > other.value
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.value >= other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    @property
    def description(self) -> str:
        """Plain English, e.g. ``pair of aces, kickers K 9 7`` (computed once per value)."""
        text = self._description
        if text is None:
            text = describe(self.value)
            object.__setattr__(self, "_description", text)
        return text

    def best_five_of(self, cards: Iterable[Any]) -> tuple[Card, ...]:
        """The five of ``cards`` (the hand this value was evaluated from) that play,
        most significant first.

        Where equal ranks leave a choice (a kicker from a pair, two of three cards of
        a triple), the card given earlier in the input plays.
        """
        return best_five(self.value, [_as_card(c) for c in cards])

    def __repr__(self) -> str:
        return f"<HandValue {self.category}: {self.description}>"

    def __str__(self) -> str:
        return self.description


_INTERNED: dict[int, HandValue] = {}
# The slots' own setters (a HandValue refuses setattr): twice as fast as
# object.__setattr__, and every shared value is made at start-up.
_set_value, _set_category, _set_ranks, _set_description = (
    vars(HandValue)[name].__set__ for name in ("value", "category", "ranks", "_description"))


def _as_card(token: object) -> Card:
    card = parse_card(token)
    if card is None:
        raise CardError(token, "an unseen card cannot be evaluated")
    return card


# Key layout: bits 0-51 one bit a card; 52-67 one nibble a suit; 68 up the rank key.
SUIT_AT = 52
RANK_AT = 68
CARD_BITS = (1 << 52) - 1
START = 0x3333 << SUIT_AT
FLUSH_TEST = 0x8888 << SUIT_AT
EVAL_KEYS: tuple[int, ...] = tuple(
    (RANK_KEYS[c >> 2] << RANK_AT) | (1 << (SUIT_AT + 4 * (c & 3))) | (1 << c) for c in range(52)
)
_KEY: dict[object, int] = {}


def _prime_keys() -> None:
    from .cards import DECK, SPELLINGS

    for card in DECK:
        _KEY[card] = EVAL_KEYS[card]
    for spelling, card in SPELLINGS.items():
        _KEY[spelling] = EVAL_KEYS[card]


_prime_keys()


class _Lookup:
    """The evaluator's tables with their values as shared :class:`HandValue` objects."""

    __slots__ = ("_tables", "ranks", "suited")

    def __init__(self, t: Tables) -> None:
        self._tables = t
        self.suited = _shared(t.flushes.keys(), t.flushes.values())  # by the suit's bits moved to the first suit
        self.ranks: dict[int, dict[int, HandValue]] = {}
        self.size(7)

    def size(self, n: int) -> dict[int, HandValue]:
        """The rank table of ``n`` cards (five and six made on first use: only the bonus
        and explanations need them)."""
        table = self.ranks.get(n)
        if table is None:
            ranks = self._tables.ranks
            if isinstance(ranks, RankTables) and not dict.__contains__(ranks, n):
                keys, distinct, index = ranks.indexed(n)  # no int dict: the shipped arrays themselves
                shared = [HandValue(v) for v in distinct]
                table = dict(zip(keys, map(shared.__getitem__, index), strict=True))
            else:
                table = _shared(ranks[n].keys(), ranks[n].values())
            self.ranks[n] = table
        return table


def _shared(keys: Iterable[int], values: Collection[int]) -> dict[int, HandValue]:
    """A table of packed values as one with their shared :class:`HandValue` objects (each
    made once, then looked up: a table holds far fewer values than keys)."""
    shared = {v: HandValue(v) for v in set(values)}
    return dict(zip(keys, map(shared.__getitem__, values), strict=True))


_lookup: _Lookup | None = None
_R7: dict[int, HandValue] = {}


def _tables() -> _Lookup:
    global _lookup, _R7
    if _lookup is None:
        _lookup = _Lookup(tables())
        _R7 = _lookup.ranks[7]
    return _lookup


def _suited(key: int) -> HandValue:
    """The value of distinct cards whose key says five or more share a suit."""
    suit = 0 if key >> (SUIT_AT + 3) & 1 else 1 if key >> (SUIT_AT + 7) & 1 else 2 if key >> (SUIT_AT + 11) & 1 else 3
    return (_lookup or _tables()).suited[(key & SUIT_MASKS[suit]) >> suit]


def _card_key(token: object) -> int:
    key = _KEY.get(token) if isinstance(token, str | int) else None
    return EVAL_KEYS[_as_card(token)] if key is None else key


def _repeated(cards: Sequence[Any]) -> HandError:
    """The error of a hand that repeats a card, its cards named whatever they were given
    as (a store packs them as indexes 0 to 51: naming one must not fail as a
    :class:`CardError`, which would hide the repeat behind a wrong message)."""
    return HandError(f"a card is given twice in {' '.join(_card_name(c) for c in cards)}")


def _card_name(token: Any) -> str:
    """A card's name for a message: an index 0 to 51 by the deck's order, else as parsed."""
    if type(token) is int and 0 <= token < 52:
        from .cards import DECK

        return str(DECK[token])
    return str(_as_card(token))


def evaluate(cards: Sequence[Any] | Iterable[Any]) -> HandValue:
    """Value of 5, 6 or 7 cards (Card objects or strings in any notation).

    Raises :class:`CardError` for a token that is not a card and :class:`HandError`
    for a wrong count or a card given twice.

    The worked example of §09: the player's aces beat the dealer's queens.

    >>> board = "A♠ 7♦ 4♣ 9♥ 2♠".split()
    >>> player, dealer = evaluate(["A♥", "K♦", *board]), evaluate(["Q♠", "Q♣", *board])
    >>> player.category.value, player.description, player > dealer
    ('pair', 'pair of aces, kickers K 9 7', True)

    Only the best five count: when the board plays for both, the hands tie.

    >>> evaluate("2c 3d Ts Js Qd Kc Ah".split()) == evaluate("4h 5h Ts Js Qd Kc Ah".split())
    True
    >>> evaluate("Ah 2d 3c 4s 5h Kd Kc".split()).description  # the ace plays low in the wheel
    'straight, five high'
    >>> evaluate("Ah Ad 7c 4s 5h 9d Ah".split())
    Traceback (most recent call last):
    ...
    referee.rules.hands.HandError: a card is given twice in Ah Ad 7c 4s 5h 9d Ah
    """
    k = _KEY
    try:
        a, b, c, d, e, f, g = cards
        key = START + k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
    except (ValueError, KeyError, TypeError):
        return _evaluate_any(tuple(cards))
    if (key & CARD_BITS).bit_count() != 7:
        raise _repeated(tuple(cards))
    if key & FLUSH_TEST:
        return _suited(key)
    return (_R7 or _tables().ranks[7])[key >> RANK_AT]


def evaluate_indexes(cards: Sequence[int]) -> HandValue:
    """Value of 5, 6 or 7 cards given as indexes 0 to 51 (as a store packs them, each a
    byte): ``evaluate``'s value, read without reading each card as a token (a first run
    of the monitor evaluates a five-card Bonus hand a game). An index past 51 is an
    IndexError (a damaged store), a card given twice a :class:`HandError`."""
    n = len(cards)
    if not 5 <= n <= 7 or min(cards) < 0:
        raise HandError(f"a hand has 5, 6 or 7 cards, each 0 to 51, got {list(cards)!r}")
    key = START + sum(map(EVAL_KEYS.__getitem__, cards))
    if (key & CARD_BITS).bit_count() != n:
        from .cards import DECK

        raise HandError(f"a card is given twice in {' '.join(str(DECK[c]) for c in cards)}")
    if key & FLUSH_TEST:
        return _suited(key)
    return _tables().size(n)[key >> RANK_AT]


def _evaluate_any(cards: tuple[Any, ...]) -> HandValue:
    """Any count, any token (the path ``evaluate`` leaves for everything but 7 known cards)."""
    n = len(cards)
    if not 5 <= n <= 7:
        raise HandError(f"a hand has 5, 6 or 7 cards, got {n}")
    key = START + sum(_card_key(c) for c in cards)
    if (key & CARD_BITS).bit_count() != n:
        raise _repeated(tuple(cards))
    if key & FLUSH_TEST:
        return _suited(key)
    return _tables().size(n)[key >> RANK_AT]


def evaluate_deal(
    player: Sequence[Any], dealer: Sequence[Any], board: Sequence[Any]
) -> tuple[HandValue, HandValue]:
    """Both hands of a deal: two private cards each and the five of the board.

    One check for a repeated card over all nine; raises like :func:`evaluate`.
    """
    k = _KEY  # the body of evaluate_known, inline: a call more costs 7% of a deal
    try:
        p1, p2 = player
        d1, d2 = dealer
        b1, b2, b3, b4, b5 = board
        base = START + k[b1] + k[b2] + k[b3] + k[b4] + k[b5]
        mine = k[p1] + k[p2]
        theirs = k[d1] + k[d2]
    except (ValueError, KeyError, TypeError):
        return _evaluate_deal_slow(tuple(player), tuple(dealer), tuple(board))
    if ((base + mine + theirs) & CARD_BITS).bit_count() != 9:
        raise _repeated((*player, *dealer, *board))
    r7 = _R7 or _tables().ranks[7]
    key = base + mine
    first = _suited(key) if key & FLUSH_TEST else r7[key >> RANK_AT]
    key = base + theirs
    return first, _suited(key) if key & FLUSH_TEST else r7[key >> RANK_AT]


def evaluate_known(
    player: Sequence[object], dealer: Sequence[object], board: Sequence[object]
) -> tuple[HandValue, HandValue] | None:
    """:func:`evaluate_deal` for the fast lane: None, never an exception nor the slow
    path, unless the nine cards are known spellings (or cards), two + two + five, all
    distinct. Why: the lane must only take what it can prove plain; everything else is
    ruled by the full path, which says why a deal is void."""
    k = _KEY
    try:
        p1, p2 = player
        d1, d2 = dealer
        b1, b2, b3, b4, b5 = board
        base = START + k[b1] + k[b2] + k[b3] + k[b4] + k[b5]
        mine = k[p1] + k[p2]
        theirs = k[d1] + k[d2]
    except (ValueError, KeyError, TypeError):
        return None
    if ((base + mine + theirs) & CARD_BITS).bit_count() != 9:
        return None
    r7 = _R7 or _tables().ranks[7]
    key = base + mine
    first = _suited(key) if key & FLUSH_TEST else r7[key >> RANK_AT]
    key = base + theirs
    return first, _suited(key) if key & FLUSH_TEST else r7[key >> RANK_AT]


def _evaluate_deal_slow(
    player: tuple[Any, ...], dealer: tuple[Any, ...], board: tuple[Any, ...]
) -> tuple[HandValue, HandValue]:
    if len(player) != 2 or len(dealer) != 2 or len(board) != 5:
        raise HandError(f"a deal has 2 + 2 private cards and 5 on the board, got "
                        f"{len(player)} + {len(dealer)} and {len(board)}")
    everything = (*player, *dealer, *board)
    if len({_as_card(c) for c in everything}) != 9:
        raise _repeated(everything)
    return _evaluate_any((*player, *board)), _evaluate_any((*dealer, *board))



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
    """The five of ``cards`` that make ``value``, most significant first.

    >>> from .cards import parse_cards
    >>> cards = parse_cards("A♥ K♦ A♠ 7♦ 4♣ 9♥ 2♠".split())
    >>> best_five(evaluate(cards).value, cards)
    (Card('Ah'), Card('As'), Card('Kd'), Card('9h'), Card('7d'))
    """
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
        return tr("four of a kind, {ranks}, kicker {kicker}").format(
            ranks=plural(r[0]), of_ranks=of(r[0]), kicker=rank(r[1]))
    if category == FULL_HOUSE:
        return tr("full house, {ranks} full {of_ranks}").format(
            ranks=plural(r[0]), of_ranks=of(r[1]), low=plural(r[1])
        )
    if category == FLUSH:
        return tr("flush, {rank} high: {cards}").format(rank=name(r[0]), cards=listed(r))
    if category == STRAIGHT:
        return tr("straight, {rank} high").format(rank=name(r[0]))
    if category == THREE_OF_A_KIND:
        return tr("three of a kind, {ranks}, kickers {kickers}").format(
            ranks=plural(r[0]), of_ranks=of(r[0]), kickers=listed(r[1:]))
    if category == TWO_PAIR:
        return tr("two pair, {high} and {low}, kicker {kicker}").format(
            high=plural(r[0]), low=plural(r[1]), kicker=rank(r[2])
        )
    if category == PAIR:
        return tr("pair {of_ranks}, kickers {kickers}").format(of_ranks=of(r[0]), kickers=listed(r[1:]))
    return tr("high card {rank}, then {kickers}").format(rank=name(r[0]), kickers=listed(r[1:]))
