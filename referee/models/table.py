"""The hand-history format, version 2 (the live table): a game, its seats, their wallets.

Why a second format: at a live table one dealer deals one hand per game and many
players bet on it, each with their own Ante, Bonus and decision (issue 19). Format 1
knows one player per round, so a real table log would repeat the deal once per
player; format 2 records the deal once and the seats under it, with what the wallet
really moved. Like format 1, card fields hold text: a token that is not one of the
52 cards makes the deal void (§07), it is not a validation error.

The records (:class:`Game`, :class:`Seat`, :class:`WalletMove`) are frozen msgspec
structs, decoded once and strictly; the did-you-mean validation
(:mod:`referee.models.explainers`) words what that decode refuses and reads an id
written as a number (``"player_id": 7``) as its digits. The session header and the
document stay pydantic models; the committed JSON Schema
(``schemas/table-history.schema.json``) comes from the explainers.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, ClassVar

import msgspec

from .common import (
    MAX_AMOUNT,
    MAX_ROUND,
    CardList,
    CardToken,
    Decision,
    GameStatus,
    Identifier,
    Record,
    Recorded,
    Text500,
    WalletKind,
    exact,
    utf8,
)
from .explainers import SeatLine, TableDocument, TableSession, table_history_schema

__all__ = ["FORMAT", "GAME_FIELDS", "SEAT_FIELDS", "TABLE_SESSION_FIELDS", "WALLET_FIELDS", "Game", "Seat",
           "SeatLine", "TableDocument", "TableSession", "WalletMove", "table_history_schema"]

FORMAT = 2
_ZERO = Decimal(0)


class WalletMove(Record, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One transaction of the wallet: money that really left or reached the player."""

    id: Identifier
    kind: WalletKind
    amount: Decimal
    reference: Text500 | None = None
    meta: dict[str, object] | None = None

    def __post_init__(self) -> None:
        exact(self.amount, _ZERO, MAX_AMOUNT)
        utf8(self.id, self.reference)


class Seat(Record, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's bets on a game, as the table recorded them."""

    player_id: Identifier
    ante: Decimal
    bonus: Decimal = _ZERO
    call: Decimal | None = None
    decision: Decision
    player: CardList | None = None
    recorded: Recorded | None = None
    wallet: Annotated[list[WalletMove], msgspec.Meta(max_length=1000)] | None = None
    meta: dict[str, object] | None = None

    def __post_init__(self) -> None:
        exact(self.ante, _ZERO, MAX_AMOUNT)
        if self.call is not None:
            exact(self.call, _ZERO, MAX_AMOUNT)
        if self.bonus is not _ZERO:
            exact(self.bonus, _ZERO, MAX_AMOUNT)
        utf8(self.player)  # its id, read as pydantic's TextId reads it, may hold any text


class Game(Record, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One game round: one deal, the seats that bet on it."""

    TIMES: ClassVar[tuple[str, ...]] = ("started", "settled")
    game: Identifier
    round: Annotated[int, msgspec.Meta(ge=0, le=MAX_ROUND)] | None = None
    started: datetime | None = None
    settled: datetime | None = None
    status: GameStatus = "settled"
    dealer_id: Text500 | None = None
    player: CardList | None = None
    flop: CardList | None = None
    turn: CardToken | None = None
    river: CardToken | None = None
    dealer: CardList | None = None
    seats: Annotated[list[Seat], msgspec.Meta(max_length=100_000)] | None = None
    meta: dict[str, object] | None = None

    def __post_init__(self) -> None:
        utf8(self.dealer_id, self.player, self.flop, self.turn, self.river, self.dealer)  # not its id (TextId)


GAME_FIELDS: tuple[str, ...] = Game.__struct_fields__
SEAT_FIELDS: tuple[str, ...] = Seat.__struct_fields__
WALLET_FIELDS: tuple[str, ...] = WalletMove.__struct_fields__
TABLE_SESSION_FIELDS = tuple(TableSession.model_fields)
