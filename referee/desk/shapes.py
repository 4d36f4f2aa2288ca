"""The desk API's shapes (pydantic models): what ``/openapi.json`` describes and each answer is.

Amounts are exact decimals, written as JSON strings (``"-2"``, ``"1.5"``): never a float.
The names the issue gives are kept exactly (``player_id``, ``outcome``, ``net``,
``findings``; ``game``, ``player``, ``decision``, ``note``; ``user``, ``role``,
``csrf_token``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, Field

Decision = Literal["stands", "owed_to_player", "owed_to_house"]


class Login(BaseModel):
    username: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=1024)


class SessionOut(BaseModel):
    user: str
    role: str
    csrf_token: str


class Problem(BaseModel):
    detail: str


class FindingOut(BaseModel):
    code: str
    severity: str
    message: str


class SeatOut(BaseModel):
    player_id: str
    #: win, loss, fold, push, void... as the rules give it.
    outcome: str | None
    #: The seat's net by the rules.
    net: str | None
    #: The seat's net as the table recorded it.
    recorded: str | None
    #: What the wallet moved for the seat (None without a wallet log).
    wallet: str | None
    #: What is owed (to the player when positive, to the house when negative), by the rules.
    owed: str | None
    findings: list[FindingOut]
    #: The ruling card by card, as ``explain --game G --player P`` gives it, in the asked language.
    ruling: list[str]


class GameOut(BaseModel):
    game_id: str
    table: str | None
    dealer: str | None
    time: str | None
    source: str | None
    lang: str
    seats: list[SeatOut]
    findings: list[FindingOut]


class GameRow(BaseModel):
    """A game as a list shows it: where and when, its players, its codes, what is owed."""

    game_id: str
    table: str | None
    dealer: str | None
    time: str | None
    players: list[str]
    codes: list[str]
    owed: str | None
    #: True when a case was opened on the game (open, decided or closed: ``/cases``).
    cases: bool = False
    #: A recall's row (the player's own seat, as ``referee recall`` gives it): their
    #: decision, the rules' net of the seat and the player's balance by the rules after it.
    decision: str | None = None
    net: str | None = None
    balance: str | None = None


class GamesOut(BaseModel):
    games: list[GameRow]
    #: A recall (one player's seats: their decision, net and balance), not a list of games.
    recall: bool = False
    #: True when more games matched than were returned (narrow the search).
    more: bool = False
    #: When nothing matched a table no game was stored at: the stored table meant, by
    #: filter (``{"table": "T7"}`` for ``t7``: a change of case or one slip of the hand).
    did_you_mean: dict[str, str] = {}


class CaseIn(BaseModel):
    game: str = Field(min_length=1, max_length=200)
    player: str = Field(min_length=1, max_length=200)
    decision: Decision
    note: str = Field(default="", max_length=4000)
    #: What is owed under the decision (required unless it ``stands``): an exact decimal.
    amount: Decimal | None = Field(default=None, max_digits=30, decimal_places=10)
    #: Open it although the seat's earlier case is closed (refused otherwise, 409: it
    #: could pay the seat twice); a case not closed on the seat is refused even so.
    force: bool = False


class CaseEventOut(BaseModel):
    kind: str
    at: str
    actor: str
    decision: str | None
    amount: str | None
    note: str


class CaseOut(BaseModel):
    id: int
    game: str
    player: str
    status: str
    opened_at: str
    opened_by: str
    decision: str | None
    amount: str | None
    note: str
    events: list[CaseEventOut]


class CasesOut(BaseModel):
    cases: list[CaseOut]


class AlertActionOut(BaseModel):
    action: str
    by: str
    at: str
    note: str = ""


class AlertOut(BaseModel):
    id: int
    lead: str
    basis: str | None = None
    segments: list[str] = []
    bet: str | None = None
    window: str | None = None
    z: float | None = None
    first_game: str | None = None
    last_game: str | None = None
    since: str | None = None
    until: str | None = None
    status: str
    #: ``status`` under the name ``referee alerts`` gives it.
    state: str | None = None
    #: Who holds the group and what they said: the first acknowledgement while acknowledged,
    #: the resolution once resolved (as ``referee alerts`` names who has it).
    note: str | None = None
    by: str | None = None
    #: How many games are behind the group, as the monitor counted them.
    games: int | None = None
    #: Every acknowledgement and resolution, oldest first.
    actions: list[AlertActionOut] = []


class AlertsOut(BaseModel):
    alerts: list[AlertOut]


class AckIn(BaseModel):
    note: str = Field(default="", max_length=4000)
    #: ``ack`` (acknowledge) or ``resolve``.
    action: Literal["ack", "resolve"] = "ack"
    #: Acknowledge a group someone acknowledged already (both are kept), as ``alerts ack --force``.
    force: bool = False


class Health(BaseModel):
    status: str
