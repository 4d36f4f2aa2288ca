"""The fast path: rounds settled from a memo, without the general machinery.

Every round the full audit reads is its record, the struct
:class:`~referee.models.rounds.Round` decoded once and strictly
(:func:`~referee.models.decode.convert`); no record is built here. A round is settled
from the memo only when both of these hold; anything else is settled in full, so the
report cannot tell the two apart:

* **known, distinct cards.** :class:`SettleMemo` needs all nine cards in one of the
  spellings of :data:`~referee.rules.cards.SPELLINGS`, none twice;
* **a settlement seen before.** A ruling depends on the cards only through the
  decision, the stakes (as written: ``1`` and ``1.0`` are different keys), both
  categories, the dealer's qualification, the comparison of the hands and the
  bonus hand's category and qualification. The first round of each such key is
  settled by the real :func:`~referee.rules.settlement.settle`; the rest reuse its
  lines with their own cards and hands.

Checks, comparison and ledger still run on every round, as in the full audit.
``REFEREE_FAST=0`` turns the fast path off (the tests run both ways and compare the
reports byte for byte); ``REFEREE_FAST=verify`` takes it and also runs the full path
on every round, raising if the two differ.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol, TypeVar

from ..models.common import MAX_AMOUNT
from ..rules.cards import SPELLINGS
from ..rules.hands import HandError, HandValue, evaluate, evaluate_deal
from ..rules.profile import Profile
from ..rules.settlement import Cards, Deal, Ruling, settle

_CARD = SPELLINGS.get


def plain_amount(value: object, low: Decimal) -> Decimal | None:
    """The Decimal pydantic's ``Money``/``Stake`` would give, or None when unsure."""
    if isinstance(value, int) and type(value) is int:  # not a bool
        return Decimal(value) if low <= value <= MAX_AMOUNT else None
    if isinstance(value, Decimal) and type(value) is Decimal:
        exponent = value.as_tuple().exponent
        if (isinstance(exponent, int) and exponent >= -6 and low <= value <= MAX_AMOUNT
                and not (value.is_signed() and value.is_zero())):
            return value
    return None


#: The wager lines of every memoised settlement, by identity: the rulings that share
#: them share everything a report line says of a settlement, so a reporter may write
#: that part once (``report/json.py``). Bounded by the number of distinct settlements.
SHARED_LINES: dict[int, tuple[Any, ...]] = {}


#: Distinct settlements kept per profile: enough for any table's stakes; past it, new
#: ones are settled in full every time, so memory stays bounded whatever the stakes.
MEMO_LIMIT = 20_000
_MEMOS: dict[tuple[type, str, str], Any] = {}
M = TypeVar("M", bound="ProfileMemo")


class ProfileMemo(Protocol):
    """A memo made for one profile (:class:`SettleMemo`, the lane's ``LaneMemo``)."""

    profile: Profile

    def __init__(self, profile: Profile) -> None: ...


def memo_for(profile: Profile, origin: object, sha256: str, kind: type[M]) -> M:
    """One memo of each kind per profile (by origin and content digest), shared by its sessions."""
    key = (kind, str(origin), sha256)
    memo: M | None = _MEMOS.get(key)
    if memo is None or memo.profile != profile:
        memo = _MEMOS[key] = kind(profile)
    return memo


def as_written(stakes: tuple[Any, ...]) -> tuple[Any, ...]:
    """Stakes as written, for a memo's key: ``1`` and ``1.0`` are equal but not alike (a
    ruling keeps each as written, and a report writes it so). Whole numbers as they are
    (the lane's usual case, no text made), and every stake by its text once one is a
    Decimal. The one spelling of stakes in every memo of a settlement:
    :func:`settlement_key`'s, and the seat rulings' and scaled lines' of
    ``audit/seats.py``."""
    for stake in stakes:
        if type(stake) is Decimal:
            return tuple([s if type(s) is int else str(s) for s in stakes])
    return stakes


def settlement_key(decision: str, stakes: tuple[Any, ...], player: HandValue, dealer: HandValue, floor: int,
                   bonus: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    """What a settlement depends on, and nothing else: the decision, the stakes
    (:func:`as_written`), both hands' categories, the dealer's qualification
    (``floor``: the profile's qualifier as a hand value), the comparison of the hands,
    and the bonus hand's :func:`bonus_key` (empty when no bonus is staked). Not the
    cards, which almost never repeat. The one key of every memoised settlement:
    :class:`SettleMemo`'s and the lane's entries (which add the Call as written, that
    the stake checks read)."""
    pv, dv = player.value, dealer.value
    return (decision, as_written(stakes), player.category, dealer.category, dv >= floor,
            1 if pv > dv else 0 if pv == dv else -1, bonus)


def bonus_key(profile: Profile, cards: Any) -> tuple[HandValue, tuple[Any, ...]] | None:
    """The bonus hand of five ``cards`` (the player's two and the flop) and what a
    settlement depends on of it (its category, whether it passes the profile's minimum);
    None where the profile offers no bonus."""
    bonus = profile.bonus
    if bonus is None:
        return None
    hand = evaluate(cards)
    return hand, (hand.category, bonus.minimum.passes(hand.value))


class SettleMemo:
    """Settlements by what they depend on (:func:`settlement_key`), for one profile."""

    __slots__ = ("floor", "memo", "profile")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.floor = profile.dealer_qualifier.floor()  # the dealer qualifies from this hand value up
        self.memo: dict[tuple[Any, ...], Ruling] = {}

    def settle(self, model: DealFacts) -> Ruling | None:
        """The ruling of a round with nine known, distinct cards; None otherwise."""
        dealer = model.dealer
        turn, river = model.turn, model.river
        if dealer is None or turn is None or river is None or len(dealer) != 2 or len(model.player) != 2 \
                or len(model.flop) != 3:
            return None
        card = _CARD
        player_tokens, flop_tokens = model.player, model.flop
        p1, p2 = card(player_tokens[0]), card(player_tokens[1])
        f1, f2, f3 = card(flop_tokens[0]), card(flop_tokens[1]), card(flop_tokens[2])
        d1, d2 = card(dealer[0]), card(dealer[1])
        t, r = card(turn), card(river)
        if p1 is None or p2 is None or f1 is None or f2 is None or f3 is None or d1 is None or d2 is None \
                or t is None or r is None:
            return None
        try:
            player, dealer_hand = evaluate_deal((p1, p2), (d1, d2), (f1, f2, f3, t, r))
        except HandError:  # a card twice: the full path voids it
            return None
        profile = self.profile
        bonus = model.bonus
        bonused = bonus_key(profile, (p1, p2, f1, f2, f3)) if bonus else None
        bonus_hand, bonus_facts = bonused if bonused is not None else (None, ())
        key = settlement_key(model.decision, (model.ante, bonus), player, dealer_hand, self.floor,
                             bonus_facts)
        cards = Cards((p1, p2), (f1, f2, f3), t, r, (d1, d2))
        known = self.memo.get(key)
        if known is None:
            known = settle(profile, deal_of(model))
            if known.outcome == "void":  # pragma: no cover - nine distinct known cards never void
                return known
            if len(self.memo) < MEMO_LIMIT:
                self.memo[key] = known
                SHARED_LINES[id(known.lines)] = known.lines
            return known
        return known.alike(cards, player, dealer_hand, bonus_hand)


class DealFacts(Protocol):
    """What a settlement reads of a deal: a round's, or a game's shared deal at unit
    stakes (``audit/seats.py``)."""

    @property
    def ante(self) -> Decimal: ...
    @property
    def bonus(self) -> Decimal: ...
    @property
    def decision(self) -> str: ...
    @property
    def player(self) -> Any: ...
    @property
    def flop(self) -> Any: ...
    @property
    def turn(self) -> Any: ...
    @property
    def river(self) -> Any: ...
    @property
    def dealer(self) -> Any: ...


def deal_of(model: DealFacts) -> Deal:
    """The settlement's :class:`Deal` of a round or unit deal (its decision a word the
    models or the lane made canonical)."""
    return Deal(model.ante, model.player, model.flop or (), "call" if model.decision == "call" else "fold",
                model.turn, model.river, model.dealer, model.bonus)


class FastPathMismatch(AssertionError):
    """``REFEREE_FAST=verify`` found the fast path differing from the full one."""


def verify_ruling(ruling: Ruling, profile: Profile, model: DealFacts) -> None:
    """Under ``verify``: a memoised ruling must equal the real settlement, amounts as written."""
    full = settle(profile, deal_of(model))
    if ruling != full or repr(ruling) != repr(full):
        raise FastPathMismatch(f"memoised ruling {ruling!r} differs from settle() {full!r}")
