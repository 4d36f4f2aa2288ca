"""One line of a seamless-wallet log, as the importers read it (issue 29).

Why a model of its own: a provider's money lives in a separate wallet log (debit,
credit, cancel, each with the balance after), not in its game history. The importers
(:mod:`referee.load.exports.wallet`) read every log shape into this one record, and
two readers take it: the join that fills a format-2 seat's ``wallet``, and the
money-only audit of a log alone (:mod:`referee.audit.wallet_log`). Amounts are exact
``Decimal`` (minor units already divided by their factor); a transaction is where it
was read: file, line and the log's own field path.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Literal, NotRequired, TypedDict

Action = Literal["debit", "credit", "cancel"]
ACTIONS: tuple[Action, ...] = ("debit", "credit", "cancel")


@dataclass(frozen=True, slots=True)
class Transaction:
    """A debit (a stake taken), a credit (a payout, 0 for a lost round: it closes the
    round) or a cancel (a debit given back), naming its debit by ``reference``."""

    file: str
    line: int
    #: Where in the log: ``[12]`` for the 13th JSON Lines record, ``row 5`` for CSV.
    pointer: str
    action: Action
    user: str
    #: The game round the money is for (the game id of the history).
    round: str | None
    id: str
    amount: Decimal
    #: The debit a credit or cancel settles (its transaction id).
    reference: str | None = None
    table: str | None = None
    #: The player's balance after this transaction, when the log says.
    balance: Decimal | None = None
    time: datetime | None = None


class SeatMove(TypedDict):
    """A transaction as a format-2 seat's ``wallet`` holds it (the join's output)."""

    id: str
    kind: Action
    amount: Decimal
    reference: NotRequired[str]


#: The join: each (game id, player id)'s moves, in the log's order.
WalletIndex = dict[tuple[str, str], list[SeatMove]]
