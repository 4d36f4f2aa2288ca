"""Cards and the notations real hand histories use.

A card is an ``int`` from 0 to 51 (``rank * 4 + suit``) so that the evaluator can use
it as a table index with no conversion; :class:`Card` only adds a readable face.
Every spelling seen in logs parses to the same 52 objects: ``Ah``, ``AH``, ``ah``,
``A♥`` (also the outline symbols ♡ ♢ ♤ ♧), ``Th``, ``10h``, ``10♥`` and the French
ranks ``V`` (valet), ``D`` (dame), ``R`` (roi).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..escape import quoted

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
    "nines", "tens", "jacks", "queens", "kings", "aces",
)
UNSEEN = "??"

_RANK_SPELLINGS: dict[str, int] = {}
for _i, _r in enumerate(RANKS):
    _RANK_SPELLINGS[_r] = _i
    _RANK_SPELLINGS[_r.lower()] = _i
_RANK_SPELLINGS["10"] = RANKS.index("T")
for _fr, _en in (("V", "J"), ("D", "Q"), ("R", "K")):
    _RANK_SPELLINGS[_fr] = RANKS.index(_en)
    _RANK_SPELLINGS[_fr.lower()] = RANKS.index(_en)

_SUIT_SPELLINGS: dict[str, int] = {}
for _i, (_s, _sym, _outline) in enumerate(zip(SUITS, SUIT_SYMBOLS, "♧♢♡♤", strict=True)):
    _SUIT_SPELLINGS[_s] = _i
    _SUIT_SPELLINGS[_s.upper()] = _i
    _SUIT_SPELLINGS[_sym] = _i
    _SUIT_SPELLINGS[_outline] = _i

_EXPECTED = (
    "expected a rank (2-9, 10 or T, J/V, Q/D, K/R, A) followed by a suit "
    "(c d h s or ♣ ♦ ♥ ♠)"
)


class CardError(ValueError):
    """A token that is not one of the 52 cards; the message names the token."""

    def __init__(self, token: object, reason: str) -> None:
        self.token = token
        self.reason = reason
        super().__init__(f"{quoted(token)} is not a card: {reason}")


class Card(int):
    """One of the 52 cards. Compares and hashes as its index (rank * 4 + suit).

    >>> ace = parse_card("A♥")
    >>> ace, int(ace), ace.rank, ace.suit, ace.symbol
    (Card('Ah'), 50, 12, 2, 'A♥')
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        """0 for a two up to 12 for an ace."""
        return self >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades (suits never rank, §04)."""
        return self & 3

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, as printed in the guide: ``A♥``."""
        return RANKS[self >> 2] + SUIT_SYMBOLS[self & 3]

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))

# Every accepted spelling, precomputed, so parsing a token is one dict lookup.
SPELLINGS: dict[str, Card] = {}
for _rs, _ri in _RANK_SPELLINGS.items():
    for _ss, _si in _SUIT_SPELLINGS.items():
        SPELLINGS[_rs + _ss] = DECK[_ri * 4 + _si]


def parse_card(token: object) -> Card | None:
    """Read one card token; ``None`` for a card not seen (``??`` or absent).

    Raises :class:`CardError` naming the token and what is wrong with it.

    Every spelling of a card is the same object:

    >>> {parse_card(t) for t in ("Th", "10h", "TH", "10♥", " 10♡ ")}
    {Card('Th')}
    >>> parse_card("D♠"), parse_card("??")  # a French dame; a card not seen
    (Card('Qs'), None)
    >>> parse_card("1h")
    Traceback (most recent call last):
    ...
    referee.rules.cards.CardError: '1h' is not a card: '1' is not a rank (expected 2-9, 10 or T, J/V, Q/D, K/R, A)
    """
    if token is None:
        return None
    if isinstance(token, Card):
        return token
    if not isinstance(token, str):
        raise CardError(token, f"a card is written as text, got {type(token).__name__}; {_EXPECTED}")
    card = SPELLINGS.get(token)
    if card is not None:
        return card
    text = token.strip().replace("\ufe0f", "")
    card = SPELLINGS.get(text)
    if card is not None:
        return card
    if text == UNSEEN:
        return None
    raise CardError(token, _diagnose(text))


def known_card(token: str) -> Card | None:
    """The card a token spells as :func:`parse_card` reads it, or None (a card not seen,
    or no card at all): never raises. Why: a search over many candidate spellings (a
    did-you-mean) pays for an exception per miss otherwise.

    >>> known_card(" 10♡ "), known_card("1h"), known_card("??")
    (Card('Th'), None, None)
    """
    card = SPELLINGS.get(token)
    return card if card is not None else SPELLINGS.get(token.strip().replace("\ufe0f", ""))


def _diagnose(text: str) -> str:
    if not text:
        return f"empty; {_EXPECTED}"
    if len(text) > 8:
        return f"too long for a card; {_EXPECTED}"
    rank, suit = text[:-1], text[-1]
    if suit not in _SUIT_SPELLINGS:
        if text in _RANK_SPELLINGS:
            return f"rank {quoted(text)} has no suit; {_EXPECTED}"
        return f"{quoted(suit)} is not a suit (expected c d h s or ♣ ♦ ♥ ♠)"
    if not rank:
        return f"suit {quoted(suit)} has no rank; {_EXPECTED}"
    if rank not in _RANK_SPELLINGS:
        return f"{quoted(rank)} is not a rank (expected 2-9, 10 or T, J/V, Q/D, K/R, A)"
    return _EXPECTED  # pragma: no cover - every rank+suit pair is in SPELLINGS


def parse_cards(tokens: Iterable[object]) -> list[Card]:
    """Read several tokens; every one must be a seen card.

    >>> parse_cards(["A♠", "7d", "4c"])
    [Card('As'), Card('7d'), Card('4c')]
    """
    cards = []
    for token in tokens:
        card = parse_card(token)
        if card is None:
            raise CardError(token, "this card must be known here, not unseen")
        cards.append(card)
    return cards


def seen_cards(tokens: Iterable[object]) -> Iterator[tuple[int, Card]]:
    """Each card that can be read and was seen, with its place among ``tokens``; an
    unreadable or unseen token is passed over (a finding elsewhere says why). For
    spotting a card dealt twice, where only readable cards can clash.

    >>> list(seen_cards(["A♠", "??", "1h", "7d"]))
    [(0, Card('As')), (3, Card('7d'))]
    """
    for i, token in enumerate(tokens):
        try:
            card = parse_card(token)
        except CardError:
            continue
        if card is not None:
            yield i, card


def rank_char(rank: int) -> str:
    """The rank as written in descriptions: ``T`` is written ``10``.

    >>> rank_char(8), rank_char(12)
    ('10', 'A')
    """
    return "10" if rank == 8 else RANKS[rank]
