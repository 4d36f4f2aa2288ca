"""Simulated live tables (``referee.simulate_table``) as the monitor's seat facts, without a store.

Why: the monitor's false alarms and its grouping of alerts are measured and tested over
thousands of simulated tables (``bench/monitor_false_alarms.py``, ``tests/test_monitor_groups.py``),
and storing each one first would cost far more than judging it while adding nothing to
the statistics. The seats are those a store gives for the same log
(:mod:`referee.monitor.reading`; a test compares the two): a counted seat per seat of a
settled game, ruled from its game's cards, its game's seats placed at the game's first
record, the deal carried by the first seat of that record, what it was paid from its
wallet's moves (the paid basis); a cancelled game has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from ..models.written import GameLine, TableLine
from ..rules.cards import DECK
from ..rules.hands import evaluate
from ..rules.profile import Profile
from ..rules.settlement import Deal, settle
from .facts import Seat

CARDS = {str(c): c for c in DECK}
MICRO = 1_000_000


def seats_of(sessions: Iterable[tuple[TableLine, list[GameLine]]], profile: Profile) -> list[Seat]:
    """The counted seats of ``sessions`` (as ``simulate_tables`` gives them, in the order
    they would be stored), ruled under ``profile``."""
    origin = f"builtin:{profile.name}"
    out: list[Seat] = []
    first: dict[object, int] = {}
    for header, games in sessions:
        table = str(header["table"])
        for record in games:
            key = ("game", table, record["game"])
            order = first.setdefault(key, len(out))
            deal = order == len(out)  # the first seat of the game's first record carries the deal
            if record.get("status") == "cancelled":
                continue  # refunded: no counted seat
            cards = _Cards(record)
            when = _us(record.get("settled") or record.get("started"))
            for seat in record.get("seats", []):
                out.append(_seat(profile, origin, key, order, when, table, record.get("dealer_id"), seat, cards, deal))
                deal = False
    out.sort(key=lambda s: s.order)  # stable: a second record's seats join their game's
    return out


class _Cards:
    """A game's cards, read once for its seats."""

    def __init__(self, record: GameLine) -> None:
        self.hand = [CARDS[c] for c in record["player"]]
        self.flop = [CARDS[c] for c in record["flop"]]
        self.turn, self.river = CARDS[record["turn"]], CARDS[record["river"]]
        self.dealer = [CARDS[c] for c in record["dealer"]]
        self.known = tuple(int(c) for c in (*self.hand, *self.flop))
        board = [*self.flop, self.turn, self.river]
        self.player_value = evaluate([*self.hand, *board]).value
        self.dealer_value = evaluate([*self.dealer, *board]).value
        self.bonus_value = evaluate([*self.hand, *self.flop]).value


def _us(text: object) -> int | None:
    if not isinstance(text, str):
        return None
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()) * MICRO


def _seat(profile: Profile, origin: str, key: tuple[object, ...], order: int, when: int | None, table: str,
          dealer_id: object, seat: Any, c: _Cards, deal: bool) -> Seat:
    ante, bonus = Decimal(str(seat["ante"])), Decimal(str(seat.get("bonus", 0)))
    ruling = settle(profile, Deal(ante, c.hand, c.flop, seat["decision"], c.turn, c.river, c.dealer, bonus))
    return Seat(order=order, game=key, time_us=when, table=table, dealer=None if dealer_id is None else str(dealer_id),
                profile=origin, player=seat["player_id"], ante_u=int(ante * MICRO),
                staked_u=int((ruling.ante_stake + ruling.call_stake) * MICRO),
                net_u=int((ruling.ante + ruling.call) * MICRO), bonus_u=int(ruling.bonus_stake * MICRO),
                called=seat["decision"] == "call", known=c.known,
                bonus_value=c.bonus_value if ruling.bonus_stake else None, deal=deal,
                player_value=c.player_value, dealer_value=c.dealer_value,
                paid_u=_paid_u(seat, ruling.bonus))


def _paid_u(seat: Any, bonus_net: Decimal) -> int | None:
    """What the seat was paid on the main game (``Seat.paid_u``): its wallet's moves (or its
    record's net, without a wallet) less the Bonus net the rules give, as a store reads it."""
    moves = seat.get("wallet")
    if moves is not None:
        paid = sum((Decimal(str(m["amount"])) * (-1 if m["kind"] == "debit" else 1) for m in moves), Decimal(0))
    elif seat.get("recorded", {}).get("net") is not None:
        paid = Decimal(str(seat["recorded"]["net"]))
    else:
        return None
    return int((paid - bonus_net) * MICRO)
