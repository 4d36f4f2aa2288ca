"""Settling one round under a profile: the ruling the referee stands behind.

The ruling keeps every fact an explanation needs (cards, hands, and a line per wager
saying which rule of :mod:`referee.rules.payout` settled it, at what odds), so that
``check``, ``explain``, ``simulate`` and ``report`` all read the same record: there is
one place where a round is settled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal, cast

from .cards import SPELLINGS, Card, CardError, parse_card
from .category import Category
from .hands import HandValue, evaluate, evaluate_deal
from .payout import Ending, Rule, Term, Wager, bonus_term, main_terms
from .profile import Profile

Decision = Literal["call", "fold"]
Outcome = Literal["fold", "win", "lose", "push", "void"]
#: Why every stake is returned: a malformed deal (§07), or a game the table cancelled
#: (never a kind ``settle`` gives: a cancelled game is the table's decision, not the rules').
VoidKind = Literal["bad_card", "duplicate_card", "wrong_count", "incomplete_call", "cancelled"]
ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class Deal:
    """What was staked and dealt in one round, as the table recorded it.

    Cards may be :class:`Card` objects or tokens in any notation; ``None`` or ``??``
    is a card not seen. Turn, river and dealer cards may be absent after a fold.
    """

    ante: Decimal
    player: Sequence[object]
    flop: Sequence[object]
    decision: Decision
    turn: object | None = None
    river: object | None = None
    dealer: Sequence[object] | None = None
    bonus: Decimal = ZERO


@dataclass(frozen=True, slots=True)
class Cards:
    """The parsed deal; ``None`` where a card was not seen."""

    player: tuple[Card | None, ...] = ()
    flop: tuple[Card | None, ...] = ()
    turn: Card | None = None
    river: Card | None = None
    dealer: tuple[Card | None, ...] = ()

    @property
    def board(self) -> tuple[Card, ...]:
        cards = (*self.flop, self.turn, self.river)
        return tuple(c for c in cards if c is not None)


@dataclass(frozen=True, slots=True)
class Void:
    """Why a round's stakes all go back: its kind and the sentence that says it."""

    kind: VoidKind
    reason: str


#: The reason of a cancelled game's ruling (``Void.reason``; the JSON's ``void.reason``).
CANCELLED = "the table cancelled the game"


@dataclass(frozen=True, slots=True)
class Line:
    """One wager's settlement: the one record every report reads.

    ``result`` is the net result (a winning stake is also returned); ``odds`` are the
    odds paid, for the rules that pay; ``category`` is the hand the wager was settled
    on (the player's final hand for the Ante, the five-card hand for a bonus).
    """

    wager: Wager
    stake: Decimal
    result: Decimal
    rule: Rule
    odds: Decimal | None = None
    category: Category | None = None


@dataclass(frozen=True, slots=True)
class Ruling:
    """The settlement of one round: the facts (cards, hands, qualification) and one
    :class:`Line` per wager staked. Amounts are net results; ``returned`` adds stakes."""

    outcome: Outcome
    cards: Cards
    lines: tuple[Line, ...]
    void: Void | None = None
    player_hand: HandValue | None = None
    dealer_hand: HandValue | None = None
    bonus_hand: HandValue | None = None
    dealer_qualified: bool | None = None
    #: The round's net result and everything staked: sums of the lines, taken once
    #: here because every reader (checks, ledger, reports) asks for them.
    net: Decimal = field(init=False, repr=False, compare=False)
    staked: Decimal = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "net", sum((line.result for line in self.lines), ZERO))
        object.__setattr__(self, "staked", sum((line.stake for line in self.lines), ZERO))

    def alike(self, cards: Cards, player: HandValue, dealer: HandValue, bonus: HandValue | None) -> Ruling:
        """The ruling of another deal whose settlement is this one's (its lines, outcome
        and qualification: a memo's), with that deal's own cards and hands. Made by
        hand, not by ``__init__``: the sums are this ruling's, and a round settled
        from the memo made one of these every round."""
        return self._made(cards, self.lines, player, dealer, bonus, self.net, self.staked)

    def restaked(self, lines: tuple[Line, ...], net: Decimal, staked: Decimal, bonus: HandValue | None) -> Ruling:
        """This ruling with other stakes' ``lines`` (their sums ``net`` and ``staked``
        given, as :func:`~referee.audit.seats.scaled` keeps them) and bonus hand."""
        return self._made(self.cards, lines, self.player_hand, self.dealer_hand, bonus, net, staked)

    def _made(self, cards: Cards, lines: tuple[Line, ...], player: HandValue | None, dealer: HandValue | None,
              bonus: HandValue | None, net: Decimal, staked: Decimal) -> Ruling:
        made = _bare(Ruling)
        _OUTCOME(made, self.outcome)
        _CARDS(made, cards)
        _LINES(made, lines)
        _VOID(made, self.void)
        _PLAYER(made, player)
        _DEALER(made, dealer)
        _BONUS(made, bonus)
        _QUALIFIED(made, self.dealer_qualified)
        _NET(made, net)
        _STAKED(made, staked)
        return made

    def line(self, wager: Wager) -> Line | None:
        """The wager's line, or None when it was not staked."""
        for line in self.lines:
            if line.wager is wager:
                return line
        return None

    def _result(self, wager: Wager) -> Decimal:
        line = self.line(wager)
        return line.result if line is not None else ZERO

    def _stake(self, wager: Wager) -> Decimal:
        line = self.line(wager)
        return line.stake if line is not None else ZERO

    @property
    def ante(self) -> Decimal:
        return self._result(Wager.ANTE)

    @property
    def call(self) -> Decimal:
        return self._result(Wager.CALL)

    @property
    def bonus(self) -> Decimal:
        return self._result(Wager.BONUS)

    @property
    def ante_stake(self) -> Decimal:
        return self._stake(Wager.ANTE)

    @property
    def call_stake(self) -> Decimal:
        return self._stake(Wager.CALL)

    @property
    def bonus_stake(self) -> Decimal:
        return self._stake(Wager.BONUS)

    @property
    def returned(self) -> Decimal:
        """Everything handed back to the player: stakes kept plus winnings."""
        return self.staked + self.net

    @property
    def void_reason(self) -> str | None:
        return self.void.reason if self.void else None

    @property
    def cancelled(self) -> bool:
        """The table cancelled the game: every stake is refunded (:func:`cancelled_ruling`)."""
        return self.void is not None and self.void.kind == "cancelled"


_bare = object.__new__
#: Each slot's setter (a frozen dataclass is set through its slots' descriptors).
_OUTCOME, _CARDS, _LINES, _VOID, _PLAYER, _DEALER, _BONUS, _QUALIFIED, _NET, _STAKED = (
    Ruling.__dict__[name].__set__ for name in ("outcome", "cards", "lines", "void", "player_hand", "dealer_hand",
                                               "bonus_hand", "dealer_qualified", "net", "staked"))
assert set(Ruling.__slots__) == {"outcome", "cards", "lines", "void", "player_hand", "dealer_hand", "bonus_hand",
                                 "dealer_qualified", "net", "staked"}


def returned(kind: VoidKind, reason: str, ante: Decimal, call_stake: Decimal, bonus: Decimal) -> Ruling:
    """A round whose every stake goes back: a line a wager staked (the Ante always), each
    returned by the rule of ``kind`` (``Rule.VOID``, or ``Rule.CANCELLED``)."""
    rule = Rule.CANCELLED if kind == "cancelled" else Rule.VOID
    stakes = ((Wager.ANTE, ante), (Wager.CALL, call_stake), (Wager.BONUS, bonus))
    lines = tuple(Line(w, stake, ZERO, rule) for w, stake in stakes if stake or w is Wager.ANTE)
    return Ruling(outcome="void", cards=Cards(), lines=lines, void=Void(kind, reason))


def cancelled_ruling(ante: Decimal, call_stake: Decimal, bonus: Decimal) -> Ruling:
    """A seat of a game the table cancelled (format 2's ``status: cancelled``), as its
    ruling: every stake refunded, net 0. Why a ruling at all: the audit rules no cancelled
    seat (its checks need none), but ``explain`` says a cancelled game's ruling as it
    says a void deal's, through the same parts (the cards as recorded, every stake
    returned); so its outcome is ``void`` (nothing is won or lost, nothing counted) and
    its :class:`Void` says why (kind ``cancelled``, never a malformed deal)."""
    return returned("cancelled", CANCELLED, ante, call_stake, bonus)


def _parse_group(tokens: Sequence[object] | None, label: str) -> tuple[Card | None, ...]:
    if tokens is None:
        return ()
    try:  # the common case: every token in a canonical spelling, one lookup each
        fast = tuple(map(_SPELLED, cast("Sequence[str]", tokens)))
        if None not in fast:
            return fast
    except TypeError:  # an unhashable token: the slow path names it
        pass
    cards = []
    for i, token in enumerate(tokens, start=1):
        try:
            cards.append(parse_card(token))
        except CardError as err:
            raise _VoidDeal("bad_card", f"{label} card {i}: {err}") from None
    return tuple(cards)


_SPELLED = SPELLINGS.get


class _VoidDeal(Exception):
    def __init__(self, kind: VoidKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: VoidKind = kind
        self.reason = reason


def read_cards(deal: Deal) -> Cards:
    """Parse and check the deal per rule §07; raises ``_VoidDeal`` when incorrect."""
    player = _parse_group(deal.player, "player")
    flop = _parse_group(deal.flop, "flop")
    (turn,) = _parse_group(None if deal.turn is None else [deal.turn], "turn") or (None,)
    (river,) = _parse_group(None if deal.river is None else [deal.river], "river") or (None,)
    dealer = _parse_group(deal.dealer, "dealer")
    cards = Cards(player, flop, turn, river, dealer)
    _check_counts(cards, deal.decision)
    dealt = [c for c in (*player, *flop, turn, river, *dealer) if c is not None]
    if len(set(dealt)) == len(dealt):
        return cards
    seen: dict[Card, str] = {}
    for label, group in (("player", player), ("flop", flop), ("turn", (turn,)),
                         ("river", (river,)), ("dealer", dealer)):
        for card in group:
            if card is None:
                continue
            if card in seen:
                raise _VoidDeal("duplicate_card", f"{card} is dealt twice ({seen[card]} and {label})")
            seen[card] = label
    return cards


def _check_counts(cards: Cards, decision: Decision) -> None:
    for label, group, want in (("player", cards.player, 2), ("flop", cards.flop, 3)):
        seen = sum(1 for c in group if c is not None)
        if len(group) != want or seen != want:
            raise _VoidDeal("wrong_count", f"the {label} needs {want} cards, the record has {seen}")
    # After a fold the dealer's cards settle nothing: a log that shows one of them is not
    # a wrong deal (docs/ledger.md); more than two is.
    if cards.dealer and (len(cards.dealer) > 2 or (len(cards.dealer) != 2 and decision == "call")):
        raise _VoidDeal("wrong_count", f"the dealer has 2 cards, the record has {len(cards.dealer)}")
    if decision == "call":
        missing = [name for name, card in (("turn", cards.turn), ("river", cards.river)) if card is None]
        if sum(1 for c in cards.dealer if c is not None) != 2:
            missing.append("dealer cards")
        if missing:
            raise _VoidDeal("incomplete_call", f"a call without {' and '.join(missing)}")


def settle(profile: Profile, deal: Deal) -> Ruling:
    """Rule one round. Never raises for a bad deal: a malformed deal is a void ruling."""
    call_stake = deal.ante * profile.call_multiple if deal.decision == "call" else ZERO
    try:
        cards = read_cards(deal)
    except _VoidDeal as void:
        return returned(void.kind, void.reason, deal.ante, call_stake, deal.bonus)
    private = [c for c in cards.player if c is not None]
    board = list(cards.board)
    dealer_cards = [c for c in cards.dealer if c is not None]
    player_hand: HandValue | None
    dealer_hand: HandValue | None = None
    if len(dealer_cards) == 2 and len(board) == 5:
        player_hand, dealer_hand = evaluate_deal(private, dealer_cards, board)
    else:
        player_hand = evaluate(private + board) if len(board) >= 3 else None
    qualified = profile.dealer_qualifies(dealer_hand.value) if dealer_hand is not None else None
    ending = _ending(deal.decision, player_hand, dealer_hand, qualified)
    category = player_hand.category if player_hand is not None else None
    ante, call = main_terms(profile, ending, category or Category.HIGH_CARD)
    lines = [Line(Wager.ANTE, deal.ante, _times(deal.ante, ante), ante.rule, ante.odds, category)]
    if call_stake:
        lines.append(Line(Wager.CALL, call_stake, _times(call_stake, call), call.rule, call.odds))
    bonus_hand = None
    if deal.bonus:
        if profile.bonus is not None:
            bonus_hand = evaluate(private + [c for c in cards.flop if c is not None])
        term = bonus_term(profile, bonus_hand.value if bonus_hand is not None else None, deal.decision == "fold")
        lines.append(Line(Wager.BONUS, deal.bonus, _times(deal.bonus, term), term.rule, term.odds,
                          bonus_hand.category if bonus_hand is not None else None))
    return Ruling(
        outcome=_OUTCOMES[ending], cards=cards, lines=tuple(lines), player_hand=player_hand,
        dealer_hand=dealer_hand, bonus_hand=bonus_hand, dealer_qualified=qualified,
    )


def _times(stake: Decimal, term: Term) -> Decimal:
    """The net result of a stake: exactly ``0`` when returned (not ``0.00``)."""
    return stake * term.net if term.net else ZERO


_OUTCOMES: dict[Ending, Outcome] = {
    Ending.FOLD: "fold", Ending.NOT_QUALIFIED: "win", Ending.WIN: "win", Ending.TIE: "push", Ending.LOSE: "lose",
}


def _ending(
    decision: Decision, player: HandValue | None, dealer: HandValue | None, qualified: bool | None
) -> Ending:
    """How the main game ends: the rows of docs/rules.md's settlement table."""
    if decision == "fold":
        return Ending.FOLD
    assert player is not None and dealer is not None  # read_cards guarantees a full deal
    if not qualified:
        return Ending.NOT_QUALIFIED
    if player > dealer:
        return Ending.WIN
    if player == dealer:
        return Ending.TIE
    return Ending.LOSE
