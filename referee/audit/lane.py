"""The fast lane: a game proven clean is audited without building a model, a ruling or
a result, from the same session state as the full audit (one lane for both formats: a
round of format 1 is a game of one seat).

Why: on a clean log nearly every game is plain, and its whole audit is a handful of
comparisons against a settlement already made for another seat with the same facts.
The lane takes a seat only when it can prove that the full audit would give it no
finding and move the session's state in one known way; the first seat it cannot take,
and every seat after it, go to the full audit, unchanged, so the report cannot tell
which path a seat took.

A game is plain when its number is the one expected (or it records none), nothing is
held or swapped, it is the first record of its game in the session, it is settled, and
its deal's cards are known and distinct (:func:`~referee.rules.hands.evaluate_known`).
A seat is proven clean when:

* its :class:`~referee.audit.clean.LaneEntry`, keyed on everything its settlement and
  its record's checks depend on (decision, stakes as written, both categories,
  qualification, the comparison of the hands, the bonus hand, and every recorded field
  but the balance), is clean: the stake checks find nothing and every recorded field
  equals the ruling's (:func:`~referee.audit.compare.fields_agree`);
* the full audit's own tests of the player's state pass: its recorded balance follows
  from the player's chain (:func:`~referee.audit.players.follows`), its stake
  holds (:func:`~referee.audit.stakes.stake_holds`), its funds cover a Call
  (:func:`~referee.audit.stakes.funds_short`), its wallet is right
  (:func:`~referee.audit.wallet.wallet_right`) and its player is not seated twice
  (:func:`~referee.audit.duplicates.seat_once`).

The entry is made once from the real settlement (:class:`~referee.audit.seats.Rulings`)
and the real checks; no rule is decided here by code of its own (a seat a test does not
clear goes to the full audit, which words the finding). ``REFEREE_FAST=verify`` runs
the full audit beside every game the lane takes and raises if the two differ in
anything: result, findings, or state.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from msgspec import UNSET
from msgspec.structs import astuple

from ..rules.hands import HandValue, evaluate_known
from .clean import (
    MAX_INT,
    NOT_PLAIN,
    CleanSeat,
    LaneEntry,
    LaneMemo,
    make_entry,
    plain_stake,
    recorded_amounts_ok,
    recorded_balance,
)
from .duplicates import seat_once
from .fast import MEMO_LIMIT, bonus_key, settlement_key
from .ledger import in_order
from .players import carry, count_book, follows
from .seats import Rulings
from .stakes import funds_short, keep_stake, stake_holds
from .wallet import wallet_right

ZERO = Decimal(0)
_MISSING: Any = object()
_new = tuple.__new__


class Deal:
    """The deal as :class:`~referee.audit.seats.Rulings` reads one (a game's or a round's
    struct: the shared hand or none, the board, the dealer's cards), for a new entry."""

    __slots__ = ("dealer", "flop", "player", "river", "status", "turn")

    def __init__(self, player: Any, flop: Any, turn: Any, river: Any, dealer: Any) -> None:
        self.player, self.flop, self.turn, self.river, self.dealer = player, flop, turn, river, dealer
        self.status = "settled"


class _SeatView:
    """What :meth:`Rulings.seat` reads of a seat, as validation would give it."""

    __slots__ = ("ante", "bonus", "decision", "player")

    def __init__(self, decision: str, ante: Decimal, bonus: Decimal, player: Any) -> None:
        self.decision, self.ante, self.bonus, self.player = decision, ante, bonus, player


def game_plain(session: Any, number: Any, counted: bool, game_id: str | None) -> bool:
    """Whether the game's place in the sequence is plain: nothing held or open, its
    number the one expected (or none recorded), no replay of a voided deal pending, the
    first record of its game in the session."""
    seq = session.seq
    if seq.held is not None or seq.late is not None or session.table_voided_number is not None:
        return False
    if counted and number not in seq.numbering.accept:
        return False
    return game_id is None or game_id not in seq.seen


def deal_hands(player: Any, flop: Any, turn: Any, river: Any, dealer: Any) -> tuple[HandValue, HandValue] | None:
    """Both hands of a deal of nine known, distinct cards; None otherwise (or when a
    card is not recorded)."""
    if dealer is UNSET or turn is UNSET or river is UNSET or flop is UNSET or player is UNSET or len(flop) != 3:
        return None
    return evaluate_known(player, dealer, (flop[0], flop[1], flop[2], turn, river))


def shared_facts(memo: LaneMemo, hands: tuple[HandValue, HandValue], player_cards: Any,
                 flop: Any) -> tuple[tuple[HandValue, HandValue], tuple[HandValue, tuple[Any, ...]] | None]:
    """What a shared hand's seats share of their settlement's key (the hands, and the
    bonus hand: :func:`~referee.audit.fast.bonus_key`), made once a game."""
    return hands, bonus_key(memo.profile, (player_cards[0], player_cards[1], flop[0], flop[1], flop[2]))


def take_seat(session: Any, memo: LaneMemo, seat: Any, player_cards: Any, hands: tuple[HandValue, HandValue],
              deal: Any, line: int, key: str | None, player_id: str | None, source: Any, index: int,
              seated: set[str] | None, where: tuple[int | None, str | None],
              shared: tuple[tuple[HandValue, HandValue], tuple[HandValue, tuple[Any, ...]] | None] | None = None,
              decimals: bool = True) -> CleanSeat | None:
    """The seat's audit if the lane can prove it clean (its effects committed), else
    None with nothing changed: the full audit then takes it from the same state.
    ``deal``: the game's :class:`Deal`, or a format-1 round's struct (its own cards,
    no shared hand: a :class:`Deal` is made of it only for a new entry).
    ``where``: the round number or game id a recorded balance anchors the chain at.
    ``shared``: a shared hand's :func:`shared_facts`, made once a game (None: made
    here, for a seat that plays its own cards). ``decimals``: whether
    the seat's struct may hold a Decimal (a format-2 line decoded without them holds
    whole numbers only: their checks are skipped)."""
    player_hand = hands[0]
    profile = memo.profile
    bonus = seat.bonus
    bonus_facts: tuple[Any, ...] = ()
    bonus_hand = None
    if bonus is not UNSET and bonus:
        bonused = (shared if shared is not None else shared_facts(memo, hands, player_cards, deal.flop))[1]
        if bonused is not None:
            bonus_hand, bonus_facts = bonused
    settled = settlement_key(seat.decision, (seat.ante, seat.call, bonus), player_hand, hands[1], memo.floor,
                             bonus_facts)
    recorded = seat.recorded
    recorded_key = None if recorded is UNSET else astuple(recorded)[:-1]
    key_ = (settled, recorded_key)
    entry: LaneEntry | None = memo.entries.get(key_, _MISSING)
    if entry is _MISSING:
        entry = _new_entry(memo, key_, seat, player_cards, deal, session)
    if entry is None or not entry.clean:
        return None
    balance: Decimal | None = None
    if recorded_key is not None:
        raw = recorded.balance
        if type(raw) is int and -MAX_INT <= raw <= MAX_INT:  # the usual case, as recorded_balance reads it
            balance = Decimal(raw)
        else:
            read = recorded_balance(recorded)
            if read is False:
                return None
            balance = read
    if (decimals and recorded_key is not None and Decimal in map(type, recorded_key)
            and not recorded_amounts_ok(recorded_key)):
        return None
    if key is None:
        return None
    player = session.players.get(key) or session.player(key)
    net = entry.net
    if not follows(player, balance, entry.table_net, net):
        return None  # P005: the full audit words it
    # (a rule the profile does not apply is not asked: a call a seat saved)
    if profile.fixed_stakes and not stake_holds(profile, player, entry.ante):
        return None  # S002, or the stake changing: the full audit judges
    if profile.call_requires_funds and funds_short(profile, player, entry.decision, entry.ante, entry.bonus,
                                                   entry.call_stake):
        return None  # S007
    ids = _wallet_ids(seat, entry, session.transactions)
    if ids is False:
        return None
    if seated is not None and player_id is not None and not seat_once(seated, player_id):
        return None  # seated twice: G002 (the last check: it seats the player)
    # Every check passed: the seat's effects, as the full audit has them.
    if ids:
        session.transactions.update(ids)
    if profile.fixed_stakes:
        keep_stake(profile, player, entry.ante)
    player.balance += net
    carry(player, balance, entry.table_net, net, *where)
    count_book(player, session.booked, entry.book, balance)
    return tuple.__new__(CleanSeat, (entry, player_id, line, player.balance, balance, seat, player_hand, bonus_hand,
                                     source, index))


def _new_entry(memo: LaneMemo, key: tuple[Any, ...], seat: Any, player_cards: Any, deal: Any,
               session: Any) -> LaneEntry | None:
    """The entry of ``key``, made from this seat by the real settlement (kept too when
    the seat is not plain: the full audit takes such seats)."""
    ante, bonus = plain_stake(seat.ante), plain_stake(seat.bonus)
    entry: LaneEntry | None = None
    if ante is not None and ante is not NOT_PLAIN and bonus is not NOT_PLAIN and seat.decision in ("call", "fold"):
        if type(deal) is not Deal:  # a format-1 round's struct: its cards are the seat's own
            deal = Deal(None, deal.flop, deal.turn, deal.river, deal.dealer)
        rulings = Rulings(memo.profile, deal, session.memo)
        own = player_cards if deal.player is None else None
        ruling, _ = rulings.seat(_SeatView(seat.decision, ante, bonus or ZERO, own))
        entry = make_entry(memo.profile, ruling, seat)
    if len(memo.entries) < MEMO_LIMIT:
        memo.entries[key] = entry
    return entry


def _wallet_ids(seat: Any, entry: LaneEntry, transactions: set[str]) -> list[str] | bool | None:
    """A seat's wallet ids when W001-W004 find nothing (:func:`~.wallet.wallet_right`;
    None: no wallet); False when the full audit must judge it."""
    wallet = getattr(seat, "wallet", UNSET)
    if wallet is UNSET:
        return None
    ids = wallet_right(wallet, entry.staked, entry.returned, False, transactions)
    return False if ids is None else ids


def commit_game(session: Any, number: Any, counted: bool, game_id: str | None, seats: int) -> None:
    """The game's own effects once every seat was taken: its number, its record in the
    session, its count."""
    if counted:
        in_order(session.seq.numbering, number)
    if game_id is not None:
        session.seq.seen.add(game_id)
    counts = session.counts
    counts.games += 1
    counts.counted += 1
    counts.seats += seats
