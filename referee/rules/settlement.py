"""Settling one round under a profile: the ruling the referee stands behind.

The ruling keeps every fact an explanation needs (cards, hands, which rule paid each
wager), so that ``check``, ``explain``, ``simulate`` and ``report`` all say the same
thing: there is one place where a round is settled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from .cards import SPELLINGS, Card, CardError, parse_card
from .hands import HandValue, evaluate, evaluate_deal
from .profile import AnteWhenNotQualified, Profile

Decision = Literal["call", "fold"]
Outcome = Literal["fold", "win", "lose", "push", "void"]
VoidKind = Literal["bad_card", "duplicate_card", "wrong_count", "incomplete_call"]
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
    kind: VoidKind
    reason: str


@dataclass(frozen=True, slots=True)
class Ruling:
    """The settlement of one round. Amounts are net results; ``returned`` adds stakes.

    ``ante_rule``, ``call_rule`` and ``bonus_rule`` say which rule settled each wager
    (``paytable``, ``even_money``, ``call_odds``, ``returned``, ``push``, ``lost``,
    ``folded``, ``forfeited``, ``bonus_paytable``, ``not_offered``, ``none``, ``void``).
    """

    outcome: Outcome
    cards: Cards
    void: Void | None = None
    player_hand: HandValue | None = None
    dealer_hand: HandValue | None = None
    bonus_hand: HandValue | None = None
    dealer_qualified: bool | None = None
    ante_stake: Decimal = ZERO
    call_stake: Decimal = ZERO
    bonus_stake: Decimal = ZERO
    ante: Decimal = ZERO
    call: Decimal = ZERO
    bonus: Decimal = ZERO
    ante_rule: str = "none"
    call_rule: str = "none"
    bonus_rule: str = "none"
    notes: tuple[str, ...] = field(default=())

    @property
    def net(self) -> Decimal:
        return self.ante + self.call + self.bonus

    @property
    def staked(self) -> Decimal:
        return self.ante_stake + self.call_stake + self.bonus_stake

    @property
    def returned(self) -> Decimal:
        """Everything handed back to the player: stakes kept plus winnings."""
        return self.staked + self.net

    @property
    def void_reason(self) -> str | None:
        return self.void.reason if self.void else None


def _parse_group(tokens: Sequence[object] | None, label: str) -> tuple[Card | None, ...]:
    if tokens is None:
        return ()
    try:  # the common case: every token in a canonical spelling, one lookup each
        fast = tuple(map(_SPELLED, tokens))  # type: ignore[arg-type]
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
    if cards.dealer and len(cards.dealer) != 2:
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
        return Ruling(
            outcome="void", cards=Cards(), void=Void(void.kind, void.reason),
            ante_stake=deal.ante, call_stake=call_stake, bonus_stake=deal.bonus,
            ante_rule="void", call_rule="void" if call_stake else "none",
            bonus_rule="void" if deal.bonus else "none",
        )
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
    bonus_hand, bonus, bonus_rule = _settle_bonus(profile, deal, private + [c for c in cards.flop if c is not None])
    outcome, ante, ante_rule, call, call_rule = _main_wagers(
        profile, deal, call_stake, player_hand, dealer_hand, qualified
    )
    return Ruling(
        outcome=outcome, cards=cards, player_hand=player_hand, dealer_hand=dealer_hand,
        bonus_hand=bonus_hand, dealer_qualified=qualified, ante_stake=deal.ante,
        call_stake=call_stake, bonus_stake=deal.bonus, ante=ante, call=call, bonus=bonus,
        ante_rule=ante_rule, call_rule=call_rule, bonus_rule=bonus_rule,
    )


def _main_wagers(
    profile: Profile, deal: Deal, call_stake: Decimal,
    player: HandValue | None, dealer: HandValue | None, qualified: bool | None,
) -> tuple[Outcome, Decimal, str, Decimal, str]:
    """Outcome and net Ante and Call: the table of RULES.md, row by row."""
    if deal.decision == "fold":
        return "fold", -deal.ante, "folded", ZERO, "none"
    assert player is not None and dealer is not None  # read_cards guarantees a full deal
    odds = profile.ante_paytable[player.category]
    if not qualified:
        if profile.ante_when_not_qualified is AnteWhenNotQualified.EVEN_MONEY:
            return "win", deal.ante, "even_money", ZERO, "returned"
        return "win", deal.ante * odds, "paytable", ZERO, "returned"
    if player > dealer:
        call_rule = "call_odds" if profile.call_win_odds else "returned"
        return "win", deal.ante * odds, "paytable", call_stake * profile.call_win_odds, call_rule
    if player == dealer:
        return "push", ZERO, "push", ZERO, "push"
    return "lose", -deal.ante, "lost", -call_stake, "lost"


def _settle_bonus(
    profile: Profile, deal: Deal, five: list[Card]
) -> tuple[HandValue | None, Decimal, str]:
    if not deal.bonus:
        return None, ZERO, "none"
    rule = profile.bonus
    if rule is None:
        return None, ZERO, "not_offered"
    hand = evaluate(five)
    if deal.decision == "fold" and rule.fold_forfeits:
        return hand, -deal.bonus, "forfeited"
    odds = rule.paytable.get(hand.category)
    if odds is not None and rule.minimum.passes(hand.value):
        return hand, deal.bonus * odds, "bonus_paytable"
    return hand, -deal.bonus, "lost"
