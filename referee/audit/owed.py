"""The bottom line of a round: what the table paid, what the rules give, who is owed.

One typed record (:class:`BottomLine`) that every reader states in its own words:
``explain`` (its first paragraph), ``recall`` (text, JSON, HTML) and the HTML report
(a disputed round's summary, the verdict's "owed each way"). Why one function: the
same round used to be summed up three ways that disagreed (a wrong balance was
"nobody is owed anything" in one and a broken balance in another). The auditor's
reasoning is in docs/ledger.md, "Who is owed".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..models import codes
from .results import Finding, RoundResult

if TYPE_CHECKING:
    from ..models.common import Recorded
    from ..rules.settlement import Line, Ruling

Party = Literal["player", "house"]
ZERO = Decimal(0)


class SeatResult(Protocol):
    """What a bottom line reads of a seat (a :class:`referee.audit.games.SeatResult`);
    a protocol so that the ledger (audit/games.py) can book what a seat owes without
    an import cycle."""

    @property
    def ruling(self) -> Ruling | None: ...
    @property
    def cancelled(self) -> bool: ...
    @property
    def record(self) -> Any: ...
    @property
    def findings(self) -> list[Finding]: ...


@dataclass(frozen=True, slots=True)
class BalanceOff:
    """A recorded balance that follows from neither chain (``P005``): the figure the
    table recorded and the one the rules give from the last recorded balance."""

    recorded: Decimal
    expected: Decimal

    @property
    def difference(self) -> Decimal:
        """How far the record is from the rules (always more than 0)."""
        return abs(self.recorded - self.expected)

    @property
    def favours(self) -> Party:
        """A balance recorded too high shows the player more than the rules give."""
        return "player" if self.recorded > self.expected else "house"


@dataclass(frozen=True, slots=True)
class BottomLine:
    """What a round comes to in money, for the dispute desk."""

    #: The ruled net result (what the rules give).
    rules: Decimal
    #: What the table paid in all (its net), when the record says (None: it does not).
    paid: Decimal | None
    #: The recorded balance, when it does not follow (None: it does, or is not recorded).
    balance: BalanceOff | None = None
    #: The session's currency (format 2's header), which the words give every amount
    #: ("15 EUR are owed to the player"); None when the session does not say.
    currency: str | None = None
    #: What the record says was paid and what the wallet moved, each when known: ``paid``
    #: is the wallet's (the money that moved) where there is one, else the record's; a
    #: reader says both, each labelled, where both exist and differ.
    recorded: Decimal | None = None
    wallet: Decimal | None = None

    @property
    def owed(self) -> Decimal:
        """What the rules give less what the table paid: over 0 owed to the player,
        under 0 to the house; 0 when the record does not say what was paid."""
        return owed_of(self.rules, self.paid)

    @property
    def owed_to(self) -> Party | None:
        return None if self.owed == 0 else "player" if self.owed > 0 else "house"


def owed_of(rules: Decimal, paid: Decimal | None) -> Decimal:
    """What the rules give less what the table paid (0 when what was paid is not said):
    the one sum :attr:`BottomLine.owed` and :func:`seat_owed` make."""
    return ZERO if paid is None else rules - paid


def table_paid(result: RoundResult) -> Decimal | None:
    """The table's net result for the round: recorded, or made of what it recorded
    (the total returned less the stakes, or every wager's result); a deal recorded
    void with no amounts returned the stakes (0)."""
    return recorded_paid(result.record.recorded if result.record is not None else None, result.ruling)


def recorded_paid(recorded: Recorded | None, ruling: Ruling | None) -> Decimal | None:
    """What a record says the table paid (see :func:`table_paid`); without a ruling only
    the recorded net can be read (the stakes are not known)."""
    if recorded is None:
        return None
    return recorded.net if ruling is None else paid_by_lines(recorded, ruling.lines)


def paid_by_lines(recorded: Recorded, lines: tuple[Line, ...], absent: object = None) -> Decimal | None:
    """What a record says the table paid, given the ruling's lines (:func:`recorded_paid`:
    the recorded net, else the return less the stakes, else every wager's result; a deal
    recorded void with no amounts, 0). Apart so that the monitor, which keeps a seat's
    lines but not its ruling, reads it exactly as ``check`` does, and the JSON report's
    clean seats (``report/table.py``) ask it whether the record says: their struct's
    field not recorded reads ``absent`` (UNSET), its amounts may be whole numbers."""
    if recorded.net is not absent:
        return recorded.net
    returned: Any = recorded.returned  # a Decimal, or the struct's whole number
    if returned is not absent:
        return Decimal(returned) - sum((line.stake for line in lines), ZERO)
    parts = [getattr(recorded, line.wager.value) for line in lines]
    if parts and all(p is not absent for p in parts):
        return sum(parts, ZERO)
    if recorded.void:
        return ZERO
    return None


def wallet_net(seat: SeatResult) -> Decimal | None:
    """What the player actually received, when the seat has a wallet: credits, cancels
    and refunds less debits. Why this and not the recorded net: the wallet is the money
    that moved, so it is what the table paid; a record that says otherwise is a finding,
    not the truth (None when the seat has no wallet)."""
    moves = seat.record.wallet if seat.record is not None else None
    if moves is None:
        return None
    return moves_net(moves)


def moves_net(moves: Iterable[Any]) -> Decimal:
    """What wallet moves gave the player: credits, cancels and refunds less debits."""
    return sum((-m.amount if m.kind == "debit" else m.amount for m in moves), ZERO)


def seat_paid(recorded: Recorded | None, moves: Iterable[Any] | None, lines: tuple[Line, ...]) -> Decimal | None:
    """What a seat was paid, as :func:`seat_bottom_line` has it: what its wallet moved when
    it has one, else what its record says (None: neither says); ``lines``: its ruling's."""
    if moves is not None:
        return moves_net(moves)
    return None if recorded is None else paid_by_lines(recorded, lines)


def balance_off(findings: Iterable[Finding]) -> BalanceOff | None:
    """The round's ``P005``, if any: the checker's ledger chains (audit/ledger.py) judged
    the recorded balance and found it follows from neither; its ``expected`` is the
    rules' chain from the last recorded balance, so an earlier wrong payment (its own
    finding, its own amount owed) is not counted again here."""
    for f in findings:
        if f.code == codes.P005 and f.recorded is not None and f.expected is not None:
            return BalanceOff(Decimal(str(f.recorded)), Decimal(str(f.expected)))
    return None


def bottom_line(result: RoundResult) -> BottomLine | None:
    """The bottom line of a ruled round (None when it could not be ruled); a format-2
    seat's is :func:`seat_bottom_line` (what its wallet moved, when it has one)."""
    if result.ruling is None:
        return None
    paid = table_paid(result)
    return BottomLine(result.ruling.net, paid, balance_off(result.findings), recorded=paid)


def seat_bottom_line(seat: SeatResult) -> BottomLine | None:
    """A format-2 seat's bottom line: paid is what the wallet moved when the seat has
    one, else what its record says; a cancelled game gives 0 (every stake refunded).
    None when the seat was not ruled."""
    rules = _seat_rules(seat)
    if rules is None:
        return None
    wallet = wallet_net(seat)
    recorded = recorded_paid(seat.record.recorded if seat.record is not None else None, seat.ruling)
    return BottomLine(rules, recorded if wallet is None else wallet, balance_off(seat.findings), recorded=recorded,
                      wallet=wallet)


def seat_owed(seat: SeatResult) -> Decimal | None:
    """A seat's :attr:`BottomLine.owed`, as :func:`seat_bottom_line` has it, without the
    words' parts (its balance, what each side recorded): what the ledger books of every
    seat. None when the seat was not ruled."""
    rules = _seat_rules(seat)
    if rules is None:
        return None
    paid = wallet_net(seat)
    if paid is None:
        paid = recorded_paid(seat.record.recorded if seat.record is not None else None, seat.ruling)
    return owed_of(rules, paid)


def _seat_rules(seat: SeatResult) -> Decimal | None:
    """What the rules give a format-2 seat: its ruled net, 0 in a cancelled game (every
    stake refunded); None when the seat was not ruled."""
    if seat.ruling is not None:
        return seat.ruling.net
    return ZERO if seat.cancelled else None
