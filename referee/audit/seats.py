"""Settling a game's seats: the deal ruled once, each seat's ruling from it.

Why a game is ruled once: every seat at a shared-hand table plays the same cards, so
the deal is validated, voided (§07) and evaluated once per game, with unit stakes, and
each seat's ruling is that unit ruling scaled by the seat's own Ante and Bonus (every
amount of the settlement table is a stake times odds, so scaling is exact). A seat with
its own two cards (a format-1 round is one; so is a land-based table's seat) is settled
with its cards and stakes; at a table of several such seats, a card dealt twice anywhere
in the game voids the whole game. What the game's own report line says of its rulings
(:func:`describe`) and a seat's cards as a void's words read them (:class:`SeatCards`)
are here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal
from typing import Any, cast

from ..rules.cards import SPELLINGS, CardError, parse_card, seen_cards
from ..rules.payout import Wager
from ..rules.profile import Profile
from ..rules.settlement import Line, Ruling, returned, settle
from .fast import MEMO_LIMIT, SHARED_LINES, SettleMemo, as_written, deal_of, verify_ruling
from .games import GameResult, totals_of

ONE = Decimal(1)
ZERO = Decimal(0)


def scaled(unit: Ruling, ante: Decimal, bonus: Decimal) -> Ruling:
    """The ruling of a seat staking ``ante`` and ``bonus``, from the unit ruling (Ante 1,
    Bonus 1) of the same cards and decision: every line's stake and net times the seat's."""
    if ante == unit.ante_stake and bonus == unit.bonus_stake:
        return unit
    shared = SHARED_LINES.get(id(unit.lines)) is unit.lines
    key = (id(unit.lines), *as_written((ante, bonus)))  # the lines keep the stakes as written
    known = _SCALED.get(key) if shared else None
    if known is None:
        factors = {Wager.ANTE: ante, Wager.CALL: ante, Wager.BONUS: bonus}
        lines = tuple(replace(line, stake=line.stake * factors[line.wager], result=line.result * factors[line.wager])
                      for line in unit.lines if factors[line.wager] or line.wager is Wager.ANTE)
        known = (lines, sum((line.result for line in lines), ZERO), sum((line.stake for line in lines), ZERO))
        if shared and len(_SCALED) < MEMO_LIMIT:
            _SCALED[key] = known  # a memoised settlement's at these stakes: its lines shared as the memo's are
            SHARED_LINES[id(lines)] = lines
    return unit.restaked(*known, unit.bonus_hand if bonus else None)


#: The lines (and their net and stakes) of a memoised unit settlement (``SHARED_LINES``)
#: at other stakes, by its lines and the stakes as written.
_SCALED: dict[tuple[Any, ...], tuple[tuple[Line, ...], Decimal, Decimal]] = {}


def void_ruling(reason: str, ante: Decimal, call_stake: Decimal, bonus: Decimal) -> Ruling:
    """A seat of a game voided as a whole (a card dealt twice across seats, §07)."""
    return returned("duplicate_card", reason, ante, call_stake, bonus)


#: Each usual spelling of a card (:data:`~referee.rules.cards.SPELLINGS`) and the card in
#: the one spelling :func:`canonical` gives.
_SPELT = {token: str(card) for token, card in SPELLINGS.items()}


def canonical(tokens: Iterable[object] | None) -> tuple[str, ...]:
    """Card tokens in one spelling (``A♥`` and ``Ah`` are the same card); unreadable
    tokens kept as written."""
    if not tokens:
        return ()
    if type(tokens) is tuple or type(tokens) is list:
        try:  # the usual case, every token a card in one of its usual spellings: one look-up each
            spelt = tuple(map(_SPELT.get, tokens))
        except TypeError:  # an unhashable token: read one by one below
            pass
        else:
            if None not in spelt:
                return cast("tuple[str, ...]", spelt)  # no None in it
    out = []
    for token in tokens:
        known = _SPELT.get(token) if type(token) is str else None
        if known is not None:  # a card in one of its usual spellings: a look-up
            out.append(known)
            continue
        try:
            card = parse_card(token)
        except CardError:
            out.append(str(token))
            continue
        out.append("??" if card is None else str(card))
    return tuple(out)


def cross_seat_duplicates(game: Any, seats: list[tuple[str, Any]]) -> str | None:
    """At a table where each seat has its own cards, the same card in two places
    anywhere in the game voids it. ``seats``: each seat's label and own cards."""
    seen: dict[Any, str] = {}
    groups: list[tuple[str, Iterable[object]]] = [
        ("flop", game.flop or ()), ("turn", [game.turn]), ("river", [game.river]), ("dealer", game.dealer or ())]
    groups += seats
    for label, tokens in groups:
        for _, card in seen_cards(tokens):
            if card in seen and seen[card] != label:
                return f"{card} is dealt twice ({seen[card]} and {label})"
            seen.setdefault(card, label)
    return None


class _UnitDeal:
    """A shared deal at unit stakes, as :meth:`SettleMemo.settle` reads a round."""

    __slots__ = ("ante", "bonus", "dealer", "decision", "flop", "player", "river", "turn")

    def __init__(self, decision: str, game: Any, player: Any, ante: Decimal = ONE, bonus: Decimal = ONE) -> None:
        self.ante, self.bonus, self.decision = ante, bonus, decision
        self.player, self.flop, self.turn, self.river, self.dealer = (
            player, game.flop, game.turn, game.river, game.dealer)


class Rulings:
    """The rulings of one game: a shared deal settled once per decision (unit stakes),
    then scaled per seat; a seat's own hand settled with its own stakes, once per
    distinct hand, decision and stakes. ``memo`` (``audit/fast.py``): a deal of nine
    known, distinct cards is settled as ``settle`` would, from a deal alike seen before."""

    __slots__ = ("cache", "memo", "model", "profile", "seats", "verify")

    def __init__(self, profile: Profile, model: Any, memo: SettleMemo | None = None, verify: bool = False) -> None:
        self.profile = profile
        self.model = model
        self.cache: dict[Any, Ruling] = {}
        self.seats: dict[tuple[Any, ...], tuple[Ruling, tuple[Decimal, Decimal, Decimal]]] = {}
        self.memo = memo
        self.verify = verify

    def unit(self, decision: str) -> Ruling:
        """The shared deal's ruling for ``decision`` at unit stakes."""
        key = (decision, None, ONE, ONE)
        ruling = self.cache.get(key)
        if ruling is None:
            ruling = self.cache[key] = self._settle(_UnitDeal(decision, self.model, self.model.player or ()))
        return ruling

    def _settle(self, deal: _UnitDeal) -> Ruling:
        found = self.memo.settle(deal) if self.memo is not None and deal.flop is not None else None
        if found is None:
            found = settle(self.profile, deal_of(deal))
        elif self.verify:
            verify_ruling(found, self.profile, deal)
        return found

    def seat(self, seat: Any) -> tuple[Ruling, tuple[Decimal, Decimal, Decimal]]:
        """The seat's ruling and its (net, staked, returned)."""
        round_: Any = getattr(self.model, "round", None)
        if round_ is not None and round_ is seat and self.memo is not None and round_.flop is not None:
            # a format-1 round: its own struct is the deal, settled once (no other seat asks)
            ruling = self.memo.settle(round_)
            if ruling is not None:
                if self.verify:
                    verify_ruling(ruling, self.profile, round_)
                return ruling, totals_of(ruling)
        own = tuple(seat.player) if seat.player is not None else None
        key = (seat.decision, own, *as_written((seat.ante, seat.bonus)))  # a seat's lines keep its stakes
        found = self.seats.get(key)
        if found is None:
            if own is None:
                ruling = scaled(self.unit(seat.decision), seat.ante, seat.bonus)
            else:
                ruling = self.cache.get(key) or self._settle(
                    _UnitDeal(seat.decision, self.model, seat.player, seat.ante, seat.bonus))
                self.cache[key] = ruling
            found = self.seats[key] = (ruling, totals_of(ruling))
        return found

    @property
    def shared_void(self) -> bool:
        """The shared deal is void (any of its rulings is: they share the cards)."""
        return any(r.outcome == "void" for (_, own, _, _), r in self.cache.items() if own is None)


def describe(result: GameResult, whole_void: str | None, per_seat: bool) -> None:
    """The game's own line of the report: its outcome and hands, when one deal says them
    (a seat that called shows the whole deal; else the first seat ruled)."""
    if whole_void is not None:
        result.outcome, result.void_reason = "void", whole_void
        return
    unit = first = None
    for seat in result.seats:
        ruling = seat.ruling
        if ruling is None:
            continue
        if first is None:
            first = ruling
        if ruling.outcome != "fold":
            unit = ruling
            break
    if unit is None:
        unit = first
    if unit is None:
        return
    if unit.outcome == "void":
        if not per_seat:
            result.outcome, result.void_reason = "void", unit.void_reason
        return
    result.dealer_hand, result.dealer_qualified = unit.dealer_hand, unit.dealer_qualified
    if not per_seat:
        result.player_hand = unit.player_hand
        result.outcome = unit.outcome if unit.outcome != "fold" else None


class SeatCards:
    """The cards of one seat's deal (its own hand or the shared one, and the board), as
    :func:`~referee.audit.compare.void_detail` reads a round."""

    __slots__ = ("dealer", "flop", "player", "river", "turn")

    def __init__(self, player: Any, deal: Any) -> None:
        self.player, self.flop, self.turn, self.river, self.dealer = (
            player or [], deal.flop or [], deal.turn, deal.river, deal.dealer)
