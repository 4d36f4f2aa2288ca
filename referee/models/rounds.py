"""The hand-history format, version 1, as pydantic models.

These models are the format's single definition: validation, the committed JSON
Schemas in ``schemas/`` and the format documentation all come from them. Card fields
hold text: whether a token is one of the 52 cards is a ruling (a void deal, rule
§07), not a validation error.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import Field, StrictStr

from .common import DEFAULT_PROFILE, MAX_ROUND, CardList, CardToken, DecisionWord, Money, Recorded, Stake, StrictModel

#: The version of this format: what ``version:`` may say (``Literal[1]`` below, as
#: Literal takes no constant) and what the schema's title and ``simulate`` write.
FORMAT_VERSION = 1


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

    @property
    def wallet(self) -> None:
        """A round records no wallet: it is, for the audit, a seat without one."""
        return None


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




ROUND_FIELDS = tuple(Round.model_fields)
SESSION_FIELDS = tuple(Session.model_fields)
