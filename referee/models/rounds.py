"""The hand-history format, version 1: a round, the record the audit reads.

A round is a frozen msgspec struct (:class:`Round`), decoded once and strictly; the
did-you-mean validation (:mod:`referee.models.explainers`) words what that decode
refuses. The session header and the documents around the rounds are read once a
session and stay pydantic models (:class:`Session`, :class:`SessionDocument`); the
committed JSON Schema (``schemas/``) comes from the explainers. Card fields hold text:
whether a token is one of the 52 cards is a ruling (a void deal, rule §07), not a
validation error.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, ClassVar

import msgspec

from .common import FORMAT_VERSION, MAX_AMOUNT, MAX_ROUND, CardList, CardToken, Decision, Record, Recorded, exact, utf8
from .explainers import MultiSessionDocument, Session, SessionDocument, hand_history_schema

__all__ = ["FORMAT_VERSION", "ROUND_FIELDS", "SESSION_FIELDS", "MultiSessionDocument", "Round", "Session",
           "SessionDocument", "hand_history_schema"]

_ZERO = Decimal(0)


class Round(Record, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One round as dealt and recorded."""

    TIMES: ClassVar[tuple[str, ...]] = ("time",)
    # Strict: a quoted "2", 2.0 or true is refused (an H001 on the field), never silently read.
    round: Annotated[int, msgspec.Meta(ge=0, le=MAX_ROUND)]
    time: datetime | None = None
    ante: Decimal
    call: Decimal | None = None
    bonus: Decimal = _ZERO
    player: CardList
    flop: CardList
    decision: Decision
    turn: CardToken | None = None
    river: CardToken | None = None
    dealer: CardList | None = None
    recorded: Recorded | None = None
    meta: dict[str, object] | None = None

    def __post_init__(self) -> None:
        exact(self.ante, _ZERO, MAX_AMOUNT)
        if self.call is not None:
            exact(self.call, _ZERO, MAX_AMOUNT)
        if self.bonus is not _ZERO:
            exact(self.bonus, _ZERO, MAX_AMOUNT)
        utf8(self.player, self.flop, self.turn, self.river, self.dealer)

    @property
    def wallet(self) -> None:
        """A round records no wallet: it is, for the audit, a seat without one."""
        return None


ROUND_FIELDS: tuple[str, ...] = Round.__struct_fields__
SESSION_FIELDS = tuple(Session.model_fields)
