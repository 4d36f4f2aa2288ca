"""The records as the simulators write them, field by field (format 1 and format 2).

The simulators build a record as a plain mapping, to write it in the exact key order a
table would, and then inject faults into it (a wrong net, a card too many, a round
number shifted). These TypedDicts name the fields those steps read and write, so a
typo in a simulator's fault (``recorded["nett"]``) is a type error rather than a new
key in every simulated log. Amounts are ``object``: :func:`referee.rules.money.plain`
gives an ``int`` for whole numbers and a ``Decimal`` otherwise, and a fault may write
anything a broken table could. What the audit accepts is the pydantic models'
business (``rounds.py``, ``table.py``); these describe what is written.
"""

from __future__ import annotations

from typing import TypedDict


class RecordedLine(TypedDict, total=False):
    """A round's or seat's ``recorded`` fields, in the order tables write them."""

    void: bool
    outcome: str
    player_hand: str
    dealer_hand: str
    dealer_qualified: bool | None
    ante: object
    call: object
    bonus: object
    net: object
    balance: object


class RoundLine(TypedDict, total=False):
    """A format-1 round (``referee simulate``)."""

    round: int
    ante: object
    bonus: object
    player: list[str]
    flop: list[str]
    decision: str
    call: object
    turn: str
    river: str
    dealer: list[str]
    recorded: RecordedLine


class SessionLine(TypedDict, total=False):
    """A format-1 session header."""

    id: str
    profile: str
    rounds_agreed: int
    opening_balance: object


class WalletLine(TypedDict):
    """One wallet transaction of a seat."""

    id: str
    kind: str
    amount: object


class SeatLine(TypedDict, total=False):
    """A format-2 seat. ``_returned`` is the simulator's own note of what the rules pay
    back (for its faults), ``_debits`` its note of the stakes' transaction ids before
    any fault (for the exports, whose bets name them); both are dropped before writing."""

    player_id: str
    ante: object
    bonus: object
    decision: str
    player: list[str]
    recorded: RecordedLine
    wallet: list[WalletLine]
    _returned: object
    _debits: list[str]


class GameLine(TypedDict, total=False):
    """A format-2 game record (one game may be written as several)."""

    game: str
    round: int
    started: str
    settled: str
    status: str
    dealer_id: str
    player: list[str]
    flop: list[str]
    turn: str
    river: str
    dealer: list[str]
    seats: list[SeatLine]


class TableLine(TypedDict):
    """A format-2 session header."""

    id: str
    profile: str
    table: str
    currency: str
    opening_balances: dict[str, object]


class InjectedFault(TypedDict):
    """One entry of ``simulate --faults-manifest`` (format 1): the fault and the findings
    it must give, where."""

    session: str
    round: int | None
    ordinal: int
    kind: str
    code: str
    codes: list[str]
    line: int | None


# The providers' export shapes (``referee.simulate_export``): what each writes, in its order.


class HistoryBet(TypedDict):
    """One bet of a game history's participant (amounts as the export spells them)."""

    code: str
    stake: str
    payout: str
    placedOn: str
    transactionId: str


class HistoryDecision(TypedDict):
    type: str


class HistoryParticipant(TypedDict):
    """A seat of a game history's game."""

    playerId: str
    sessionId: str
    currency: str
    bets: list[HistoryBet]
    decisions: list[HistoryDecision]


class HistoryTable(TypedDict):
    id: str
    name: str


class HistoryDealer(TypedDict):
    uid: str
    name: str


class HistoryCards(TypedDict):
    cards: list[str]


class HistoryDealerCards(TypedDict):
    cards: list[str]
    qualified: bool


class HistoryResult(TypedDict):
    player: HistoryCards
    dealer: HistoryDealerCards
    communityCards: list[str]


class HistoryGame(TypedDict):
    """A game of the evolution-history export."""

    id: str
    startedAt: str
    settledAt: str
    status: str
    gameType: str
    table: HistoryTable
    dealer: HistoryDealer
    currency: str
    result: HistoryResult
    participants: list[HistoryParticipant]


class WalletMove(TypedDict):
    """A line of the seamless-wallet export (``balance`` is None until the log's balances are run)."""

    action: str
    user: str
    round: str
    table: str
    transaction: str
    reference: str | None
    amount: str
    balance: str | None
    time: str
    currency: str
