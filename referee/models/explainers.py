"""The did-you-mean validation: the formats' records as pydantic models, run only when
the strict decode of a record fails.

The records themselves are msgspec structs (:mod:`referee.models.common`,
:mod:`~referee.models.rounds`, :mod:`~referee.models.table`): a record is decoded once,
strictly, into its struct. When that decode refuses a record these models read it again
to word the problem as the format's documentation does (``Input should be less than or
equal to 1E+12``, a field's did-you-mean) or, when the record only spells a word another
way (``Call``, ``Two Pair``), to read it as that word. They also give the committed JSON
Schemas (``schemas/``), which say amounts are numbers, where msgspec's schema of a
Decimal is a string. ``tests/test_record_structs.py`` proves each model and its struct
agree field by field and constraint by constraint: names, order, defaults, bounds,
lengths, descriptions, and what each accepts.

The headers (``Session``, ``TableSession``) and the documents around the records are
read once a session; they stay pydantic models alone.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr

from ..rules.category import Category, as_word
from .common import (
    DEFAULT_PROFILE,
    FORMAT_VERSION,
    MAX_AMOUNT,
    MAX_RESULT,
    MAX_ROUND,
    PLACES,
    Decision,
    GameStatus,
    Outcome,
    WalletKind,
)


def words(*choices: str) -> BeforeValidator:
    """Enumerated words as people write them: ``Call``, `` FOLD ``, ``Win``, ``Two Pair``,
    ``two-pair`` (:func:`~referee.rules.category.as_word`, which profiles read by too).
    A word that is none of ``choices`` however written is left as the table wrote it, so
    its finding quotes it ('Two Pairs'; did you mean 'two_pair'?)."""
    known = frozenset(choices)

    def read(value: Any) -> Any:
        spelt = as_word(value)
        return spelt if isinstance(spelt, str) and spelt in known else value  # a mapping is no word (H001)

    return BeforeValidator(read)


#: The schema's ``enum`` gives each word's canonical (lower-case) spelling; JSON Schema
#: cannot say "any case", so the description does.
ANY_CASE = "any capitalisation, with spaces or hyphens for underscores, is read as this word (Call, FOLD, Two Pair)"
OutcomeWord = Annotated[Outcome, words(*get_args(Outcome)), Field(description=f"the outcome; {ANY_CASE}")]
CategoryWord = Annotated[Category, words(*Category), Field(description=f"a hand category; {ANY_CASE}")]
DecisionWord = Annotated[Decision, words(*get_args(Decision)), Field(description=f"the player's decision; {ANY_CASE}")]
StatusWord = Annotated[GameStatus, words(*get_args(GameStatus))]
WalletWord = Annotated[WalletKind, words(*get_args(WalletKind))]

Money = Annotated[
    Decimal,
    Field(allow_inf_nan=False, ge=-MAX_RESULT, le=MAX_RESULT, decimal_places=PLACES,
          description="an exact amount: an integer or a decimal (at most 6 places)"),
]
Stake = Annotated[
    Decimal,
    Field(allow_inf_nan=False, ge=0, le=MAX_AMOUNT, decimal_places=PLACES,
          description="an amount staked, 0 or more, exact"),
]
CardToken = Annotated[
    StrictStr, Field(max_length=16, description="a card: Ah, AH, ah, A♥, 10h, Th, Vh (valet), ?? for unseen")
]
CardList = Annotated[list[CardToken], Field(max_length=52)]


def _text_id(value: Any) -> Any:
    """Exports write ids as numbers or text: both name the same game or player."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Identifier = Annotated[StrictStr, Field(min_length=1, max_length=500)]
#: A game or player id: text; a whole number is read as its digits.
TextId = Annotated[StrictStr, BeforeValidator(_text_id), Field(min_length=1, max_length=500)]


class StrictModel(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import
    # (every command's start-up; a JSON Lines check builds Session alone, and no format-2 model).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Recorded(StrictModel):
    """What the table paid and logged. Every field is optional; every field present is audited."""

    void: StrictBool | None = Field(default=None, description="the table voided the deal")
    void_reason: str | None = Field(default=None, description="the table's own words; kept, not audited")
    outcome: OutcomeWord | None = None
    player_hand: CategoryWord | None = None
    dealer_hand: CategoryWord | None = None
    dealer_qualified: StrictBool | None = None
    ante: Money | None = Field(default=None, description="net result of the Ante")
    call: Money | None = Field(default=None, description="net result of the Call")
    bonus: Money | None = Field(default=None, description="net result of the bonus stake")
    net: Money | None = Field(default=None, description="net result of the round")
    returned: Money | None = Field(default=None, description="total handed back, stakes included")
    balance: Money | None = Field(default=None, description="running balance after this round")


# ----------------------------------------------------------------------------- format 1

class Round(StrictModel):
    """One round as dealt and recorded."""

    # Strict: a quoted "2", 2.0 or true is an H001 on the field, never silently read.
    round: int = Field(strict=True, ge=0, le=MAX_ROUND, description="the round's number in the session, from 1")
    time: datetime | None = None
    ante: Stake
    call: Stake | None = Field(default=None, description="the Call stake, when the log records it")
    bonus: Stake = Field(default=Decimal(0), description="bonus stake (profiles with a bonus)")
    player: CardList
    flop: CardList
    decision: DecisionWord
    turn: CardToken | None = None
    river: CardToken | None = None
    dealer: CardList | None = None
    recorded: Recorded | None = None
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class Session(StrictModel):
    """A session's header."""

    id: StrictStr = Field(min_length=1, max_length=500)
    profile: StrictStr = Field(default=DEFAULT_PROFILE,
                               description="a built-in profile name or a path to a profile file")
    rounds_agreed: int | None = Field(default=None, ge=1, le=10**9)
    opening_balance: Money | None = None
    meta: dict[str, object] | None = Field(default=None, description="free-form data, kept and not audited")


class SessionDocument(StrictModel):
    """One session and its rounds."""

    version: Literal[1] | None = None
    session: Session
    rounds: list[Round]


class MultiSessionDocument(StrictModel):
    """Several sessions in one document."""

    version: Literal[1] | None = None
    sessions: list[SessionDocument]


def hand_history_schema() -> dict[str, object]:
    """The JSON Schema of a hand-history document (what ``schemas/`` commits)."""
    from pydantic import TypeAdapter

    schema = TypeAdapter(SessionDocument | MultiSessionDocument).json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"referee hand history, format version {FORMAT_VERSION}"
    return schema


# ----------------------------------------------------------------------------- format 2

class WalletMove(StrictModel):
    """One transaction of the wallet: money that really left or reached the player."""

    id: Identifier = Field(description="the wallet's transaction id")
    kind: WalletWord = Field(description="debit (a stake taken), credit (a payout), cancel or refund (a stake "
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
    status: StatusWord = Field(default="settled", description="cancelled: every stake is refunded")
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
