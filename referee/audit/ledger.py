"""The ledger model (docs/ledger.md): pure functions over a session's running state.

Two running balances are kept: **by the rules** (the opening balance plus every ruled
net) and **as the table kept it** (the last recorded balance plus the nets since). A
recorded balance is right when it follows from the last recorded balance plus either
the nets the table recorded since, or the ruled nets since (the wallet was paid right,
only a net field was wrong). Only a balance that follows from neither is a break, and
after a break the table's new figure anchors the chain, so one wrong balance is one
finding; the anchors before a break are kept beside it (three at most), so a one-off
slip that the table corrected on the next round is one finding too.

Numbering follows the same spirit: every round present keeps its number, a record
repeated verbatim is one ``S003`` and the next round is in order; a number that is off
is judged once the next round's number is seen (one round held back), so one mistyped
number is one finding.

Everything here is small and pure over explicit state so that another engine (a fast
path) can reuse it and give byte-identical results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from ..models import codes
from ..models.codes import FindingCode

ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class Anchor:
    """A balance the chain starts from, and the nets since (``None`` once unknown).

    ``table`` sums the nets as the table recorded them (the ruled net where a round
    records none, 0 where the table voided the round); ``ruled`` sums the rules' nets.
    """

    balance: Decimal
    table: Decimal | None = ZERO
    ruled: Decimal | None = ZERO
    trusted: bool = True
    round: int | None = None
    #: Format 2: the game whose recorded balance this is (a game id is no round number).
    game: str | None = None


@dataclass(frozen=True, slots=True)
class BalanceState:
    """The chain as the table kept it: the last recorded balance first, then (after a
    break) the last right one. Empty until something anchors it (no opening balance)."""

    anchors: tuple[Anchor, ...] = ()

    @property
    def table_balance(self) -> Decimal | None:
        """The balance as the table kept it, where it can be known."""
        if not self.anchors or self.anchors[0].table is None:
            return None
        return self.anchors[0].balance + self.anchors[0].table


@dataclass(frozen=True, slots=True)
class BalanceBreak:
    """A recorded balance that follows from neither chain: what each chain gives."""

    recorded: Decimal
    anchor: Anchor
    by_rules: Decimal | None
    by_table: Decimal | None

    @property
    def expected(self) -> Decimal:
        return self.by_rules if self.by_rules is not None else self.by_table if self.by_table is not None else ZERO

    def message(self) -> str:
        a = self.anchor
        where = (f"round {a.round}'s recorded balance" if a.round is not None
                 else f"game {a.game}'s recorded balance" if a.game is not None else "the opening balance")
        parts = []
        if self.by_rules is not None and a.ruled is not None:
            parts.append(f"by the rules {_sum(a.balance, a.ruled, self.by_rules)} "
                         f"({_off(self.recorded, self.by_rules)})")
        if self.by_table == self.by_rules and parts:
            parts[0] = parts[0].replace("by the rules", "by the rules and by the nets the table recorded", 1)
        elif self.by_table is not None and a.table is not None:
            parts.append(f"by the nets the table recorded {_sum(a.balance, a.table, self.by_table)} "
                         f"({_off(self.recorded, self.by_table)})")
        return (f"balance {_fmt(self.recorded)} does not follow from {where} {_fmt(a.balance)}: "
                + "; ".join(parts))


def _fmt(amount: Decimal) -> str:
    from ..rules.money import fmt

    return fmt(amount)


def _sum(start: Decimal, step: Decimal, total: Decimal) -> str:
    sign = "+" if step >= 0 else "-"
    return f"{_fmt(start)} {sign} {_fmt(abs(step))} = {_fmt(total)}"


def _off(recorded: Decimal, expected: Decimal) -> str:
    diff = recorded - expected
    return f"{_fmt(abs(diff))} {'more' if diff > 0 else 'less'}"


def opening(balance: Decimal | None) -> BalanceState:
    """The chain at the start of a session: anchored by the opening balance if known."""
    return BalanceState((Anchor(balance),)) if balance is not None else BalanceState()


def advance(state: BalanceState, table_net: Decimal | None, ruled_net: Decimal | None) -> BalanceState:
    """One round's nets added to every anchor (``None``: that chain is lost)."""
    return BalanceState(tuple(
        Anchor(a.balance,
               None if a.table is None or table_net is None else a.table + table_net,
               None if a.ruled is None or ruled_net is None else a.ruled + ruled_net,
               a.trusted, a.round, a.game)
        for a in state.anchors
    ))


def judge(state: BalanceState, recorded: Decimal) -> BalanceBreak | None:
    """``None`` when the recorded balance follows from some anchor by either chain, or
    cannot be checked (no anchor, or both chains lost); else what each chain gives."""
    if not state.anchors:
        return None
    checkable = False
    for a in state.anchors:
        for since in (a.table, a.ruled):
            if since is not None:
                checkable = True
                if a.balance + since == recorded:
                    return None
    if not checkable:
        return None
    first = state.anchors[0]
    by_rules = first.balance + first.ruled if first.ruled is not None else None
    by_table = first.balance + first.table if first.table is not None else None
    return BalanceBreak(recorded, first, by_rules, by_table)


def reanchor(state: BalanceState, recorded: Decimal, broke: bool, number: int | None,
             game: str | None = None, keep: bool = False) -> BalanceState:
    """The recorded balance becomes the anchor. After a break the anchors before it
    stay beside it (at most three in all): a slip the table corrected, or a wrong
    balance it carried on, is then one finding, not two. ``game``: format 2's game
    the balance was recorded at, which a finding about the next one names.

    ``keep``: the balance follows the table's chain only because the table paid a deal
    the rules void (``V001``) or a game that was cancelled (``G003``), whose own finding
    says so. The anchors before it stay beside it too, so that a table that corrects
    itself on the next balance (back on the rules' chain) is not a second finding."""
    fresh = Anchor(recorded, trusted=not broke, round=number, game=game)
    if not broke and not keep:
        return BalanceState((fresh,))
    return BalanceState((fresh, *state.anchors[:MAX_ANCHORS - 1]))


MAX_ANCHORS = 3


def lose_track(state: BalanceState) -> BalanceState:
    """A round whose nets cannot be known at all: the next recorded balance re-anchors."""
    return advance(state, None, None)


@dataclass(slots=True)
class Numbering:
    """Round numbers: which numbers are in order next, which were used, which may be
    replayed (a deal the table voided keeps its number, §07)."""

    accept: tuple[int, ...] = (1,)
    replay: int | None = None
    used: set[int] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class NumberFinding:
    code: FindingCode
    message: str
    expected: int


def number_round(state: Numbering, n: int | None, repeated: bool, voided: bool) -> NumberFinding | None:
    """Check one present round's number and move the state on.

    ``repeated``: the record is a verbatim copy of the previous one (S003 once; the
    next round is still in order). ``voided``: the deal is void, or the table recorded
    it void, so its replay may reuse the number. ``None`` for a round whose number
    cannot be read: it is taken to be the next one.
    """
    used = state.used
    assert used is not None
    expected, highest = state.accept[0], state.accept[-1]
    if repeated and n is not None:
        return NumberFinding(codes.S003, f"round {n} is recorded twice: the same record again", expected)
    if n is None:
        n = expected
    if n in state.accept:
        in_order(state, n, voided)
        return None
    finding: NumberFinding | None = None
    if n == state.replay:
        pass  # the replay of the void deal just dealt: the sequence goes on from where that deal left it
    elif n in used:
        finding = NumberFinding(codes.S003, f"round number {n} is used twice (expected {expected})", expected)
        # Either this round took the next number's place or the table numbered it wrong
        # and goes on: both next numbers are in order.
        state.accept = (expected, expected + 1)
    elif n > highest:
        missing = f"{highest}" if n == highest + 1 else f"{highest} to {n - 1}"
        finding = NumberFinding(codes.S004, f"round {missing} missing: round {n} follows round {highest - 1}",
                                highest)
        state.accept = (n + 1,)
    else:
        # A late round fills an earlier gap: the next expected number stays.
        finding = NumberFinding(codes.S009, f"round {n} is out of order (expected {expected})", expected)
    used.add(n)
    state.replay = n if voided else None
    return finding


def in_order(state: Numbering, n: int, voided: bool = False) -> None:
    """A number the sequence expects next (``n in state.accept``): nothing is said, the
    number after it is expected, and ``n`` may be replayed only when its deal is void.
    The one step of :func:`number_round`'s in-order case, which the full audit's
    sequence (``Sequence.number``) and the fast lane (``lane.commit_game``,
    ``intake_rounds``) take too."""
    state.accept = (n + 1,)
    state.used.add(n)
    state.replay = n if voided else None


@dataclass(frozen=True, slots=True)
class HeldNumber:
    """A round whose number is off, its verdict held until the next round's number is
    seen: one mistyped number is then one finding, on that round, not several."""

    number: int
    expected: int
    default: NumberFinding
    was_used: bool
    voided: bool


def number_or_hold(state: Numbering, n: int | None, repeated: bool,
                   voided: bool) -> tuple[NumberFinding | None, HeldNumber | None]:
    """As :func:`number_round`, but a number that is off is held (its default verdict
    and what was expected before it) for :func:`settle_held` to decide on the next round."""
    expected = state.accept[0]
    was_used = n is not None and n in state.used
    found = number_round(state, n, repeated, voided)
    if found is None or repeated or n is None:
        return found, None
    return None, HeldNumber(n, expected, found, was_used, voided)


def swapped(held: HeldNumber, following: int | None) -> bool:
    """Whether the held round and the next one are two rounds written in each other's
    place (``k+1`` where ``k`` was expected, then ``k``): one fault, whose one finding is
    the late round's (``S009``, out of order); the early one's number is right."""
    return (following is not None and following == held.expected and held.number == held.expected + 1
            and not held.was_used)


def replay_after_swap(state: Numbering, early: HeldNumber) -> None:
    """Once the late one of two swapped rounds is numbered: the early one was played
    after it, so when its deal was void (or recorded void) the replay that comes next
    takes its number (§07), not the late one's."""
    if early.voided:
        state.replay = early.number


def settle_held(state: Numbering, held: HeldNumber, following: int | None) -> NumberFinding:
    """The held round's verdict once the next round's number is known (``None``: the
    session ended, or the next number cannot be read). When the next round continues
    the sequence from before the held one (``expected + 1``), the held round alone was
    misnumbered: it is taken to be the expected number and the sequence goes on;
    otherwise its default verdict (a skip, a reuse, a late round) stands. (Two rounds
    written in each other's place, :func:`swapped`, are settled without it: the held
    one has no finding.)"""
    if following is None or following != held.expected + 1:
        return held.default
    used = state.used
    assert used is not None
    if not held.was_used:
        used.discard(held.number)
    used.add(held.expected)
    state.accept = (held.expected + 1,)
    state.replay = held.expected if held.voided else None
    return NumberFinding(codes.S003 if held.was_used else codes.S009,
                         f"round number {held.number} where {held.expected} was expected "
                         f"(round {following} follows)", held.expected)


def stake_check(counts: dict[Decimal, int], stake: Decimal | None, ante: Decimal,
                previous: Decimal | None = None) -> tuple[Decimal, Decimal | None]:
    """The session's stake after this Ante, and the stake it breaks (None if none).

    The stake is the Ante most rounds so far used, the first one on a tie: one odd Ante
    anywhere is one finding, and a first round at an odd Ante is found on the next
    round (the first that shows the difference), not on every later one. ``previous``
    is the Ante of the round before: the same odd Ante again continues one change of
    stake, found once at the change (Antes 1, 1, 2, 2, 2 are one ``S002``, on the first 2).
    """
    counts[ante] = counts.get(ante, 0) + 1
    if stake is None or ante == stake:
        return ante, None
    if counts[ante] > counts[stake]:
        return ante, None  # the rounds at the old stake were the odd ones, already reported
    if ante == previous:
        return stake, None  # the change already found on its first round
    return stake, stake
