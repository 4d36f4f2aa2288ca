"""The hand-history format, version 2 (the live table), as pydantic models.

Why a second format: at a live table one dealer deals one hand per game and many
players bet on it, each with their own Ante, Bonus and decision (issue 19). Format 1
knows one player per round, so a real table log would repeat the deal once per
player; format 2 records the deal once and the seats under it, with what the wallet
really moved. Like format 1, card fields hold text: a token that is not one of the
52 cards makes the deal void (§07), it is not a validation error.

These models are the format's single definition: validation, the committed JSON
Schema (``schemas/table-history.schema.json``) and ``docs/format.md`` follow them.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StrictStr

from .common import (
    DEFAULT_PROFILE,
    MAX_ROUND,
    CardList,
    CardToken,
    DecisionWord,
    Money,
    Recorded,
    Stake,
    StrictModel,
    words,
)

FORMAT = 2
GameStatus = Annotated[Literal["settled", "cancelled"], words("settled", "cancelled")]
WalletKind = Annotated[Literal["debit", "credit", "cancel", "refund"], words("debit", "credit", "cancel", "refund")]


def _text_id(value: Any) -> Any:
    """Exports write ids as numbers or text: both name the same game or player."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Identifier = Annotated[StrictStr, Field(min_length=1, max_length=500)]
#: A game or player id: text; a whole number is read as its digits.
TextId = Annotated[StrictStr, BeforeValidator(_text_id), Field(min_length=1, max_length=500)]


class WalletMove(StrictModel):
    """One transaction of the wallet: money that really left or reached the player."""

    id: Identifier = Field(description="the wallet's transaction id")
    kind: WalletKind = Field(description="debit (a stake taken), credit (a payout), cancel or refund (a stake "
                                         "given back for a void or cancelled game)")
    amount: Stake
    reference: StrictStr | None = Field(default=None, max_length=500, description="the wallet's own reference; kept")
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class Seat(StrictModel):
    """One player's bets on a game, as the table recorded them."""

    player_id: TextId
    ante: Stake
    bonus: Stake = Field(default=Decimal(0), description="bonus stake (profiles with a bonus)")
    call: Stake | None = Field(default=None, description="the Call stake, when the log records it")
    decision: DecisionWord
    player: CardList | None = Field(default=None, description="the seat's own two cards, at a table where "
                                                              "each seat is dealt its own hand")
    recorded: Recorded | None = None
    wallet: Annotated[list[WalletMove], Field(max_length=1000)] | None = None
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class Game(StrictModel):
    """One game round: one deal, the seats that bet on it."""

    game: TextId = Field(description="the game round's id, unique in the session")
    round: int | None = Field(default=None, ge=0, le=MAX_ROUND, description="the table's sequence number (numbering "
                                                                         "is audited when present)")
    started: datetime | None = None
    settled: datetime | None = None
    status: GameStatus = Field(default="settled", description="cancelled: every stake is refunded")
    dealer_id: StrictStr | None = Field(default=None, max_length=500, description="who dealt; kept")
    player: CardList | None = Field(default=None, description="the shared hand every seat plays; absent when "
                                                              "each seat has its own cards")
    flop: CardList | None = None
    turn: CardToken | None = None
    river: CardToken | None = None
    dealer: CardList | None = None
    seats: Annotated[list[Seat], Field(max_length=100_000)] | None = Field(
        default=None, description="the seats inline; in JSON Lines they may follow as seat lines")
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class TableSession(StrictModel):
    """A table session's header."""

    id: Identifier
    profile: StrictStr = Field(default=DEFAULT_PROFILE,
                               description="a built-in profile name or a path to a profile file")
    table: StrictStr | None = Field(default=None, max_length=500, description="the table; kept as provenance")
    currency: StrictStr | None = Field(default=None, max_length=16)
    opening_balances: dict[str, Money] | None = Field(default=None, description="each player's opening balance")
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class TableDocument(StrictModel):
    """A format-2 document: one session, its games and their seats."""

    format: Literal[2]
    session: TableSession
    games: list[Game]


class SeatLine(StrictModel):
    """A JSON Lines seat line: the seat, and the game it belongs to."""

    game: TextId
    seat: Seat


def table_history_schema() -> dict[str, object]:
    """The JSON Schema of a format-2 document (what ``schemas/`` commits)."""
    schema = TableDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "referee table history, format version 2"
    return schema


GAME_FIELDS = tuple(Game.model_fields)
SEAT_FIELDS = tuple(Seat.model_fields)
WALLET_FIELDS = tuple(WalletMove.model_fields)
TABLE_SESSION_FIELDS = tuple(TableSession.model_fields)
