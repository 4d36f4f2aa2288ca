"""The money-only audit of a seamless-wallet log read alone (issue 29).

A provider's money lives in its wallet log (debit, credit, cancel, each with the
player's balance after), which can be audited without the game history: every credit
and cancel settles a debit that came before it, no debit is settled twice or given back
after it was paid, every round is closed, and each player's balances follow from the
amounts. The codes (``docs/wallet-log.md`` explains them with an example):

* ``W004`` a transaction id seen before; the repeat is otherwise left out (it settles
  nothing and opens no round), so a line written twice is one finding.
* ``W005`` a credit or cancel whose ``reference`` names no debit seen before it of the
  same player and round (a round is matched only when both sides record one), or
  names none. The orphan is taken as its round's settlement: a credit closes the
  player's open round of its ``round``, a cancel excuses it from ``W008``; and when the
  debit it names comes later (a log out of order), that debit is settled by it.
* ``W006`` a debit settled a second time (a second credit, a second cancel, a credit of
  a cancelled debit); ``W007`` a cancel of a credited debit, or of a debit whose round a
  credit settled (not also ``W006``).
* ``W008`` at the end of the log, a round (a player's ``round``) with a debit that no
  credit or cancel closed, once, at the first of its debits still open. A credit
  naming any debit of a round closes the round: its other debits are *covered* (a
  provider that credits each debit of a round may still name them, once each).
* ``W009`` a balance after that is not the player's previous balance after plus the
  signed amount (a debit takes it, a credit or cancel adds it), when both are
  recorded; the first balance of a player, or the first after a transaction without
  one, starts the chain. One break is one finding: the next balance may follow from the
  recorded figure (a jump the wallet carried on) or from the expected one (a slip in
  one line), as P005 does for a session (docs/ledger.md). A transaction reported
  ``W004``-``W007`` is not checked for its balance; the next may follow from the one
  before it or from its own.

Why a pure module: the readers (:mod:`referee.load.exports.wallet`) turn any log shape
into :class:`~referee.models.transaction.Transaction` records and the command line
reports; this module only judges, so that every rule is tested on records built in
the test itself, and the same audit serves every log shape and every caller.

The API: :class:`WalletAudit` is the state of one log's audit, fed a transaction at a
time (``take`` gives that transaction's findings, ``close`` the rounds left open at
the end; ``transactions`` counts what it took, for the caller's "N wallet
transactions"); :func:`audit_wallet` streams a whole log through one, in the log's
order, and accepts the caller's ``WalletAudit`` to read its count afterwards::

    audit = WalletAudit()
    findings = list(audit_wallet(transactions, audit))
    print(f"{audit.transactions} wallet transactions")

Memory: open rounds (their unsettled debits), one chain per player, and the
settlements that named a debit not seen yet (faults only), none of which grows with
the length of a well-formed log; plus, for ``W004`` to ``W007`` over the whole log,
every transaction id seen, and for a debit a small record (its round's key, shared
with the round's other debits, what became of it and the id that settled it), so that
a second settlement long after the first is still found. That is the one cost that
grows with the log: about 190 bytes a transaction in CPython 3.11 (ids of 13
characters, rounds of two debits and a credit; the ids alone take half of it), some
1 GB for 5 million transactions (docs/wallet-log.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ..models import codes
from ..models.codes import FindingCode
from ..models.transaction import Action, Transaction
from ..rules.money import fmt
from .results import Finding

#: A round of the log: a player's ``round`` (``None`` when the log records none).
RoundKey = tuple[str, str | None]
#: What became of a debit: not yet settled, named by a credit, settled by a credit of
#: its round that named another of its debits, given back, or (a log whose convention
#: is that a round no credit closes is lost) closed as lost by the player's next round.
State = Literal["open", "credited", "covered", "cancelled", "lost"]


@dataclass(slots=True)
class _Debit:
    """A debit for as long as the log lasts: its round and the id that settled it."""

    key: RoundKey
    state: State = "open"
    by: str | None = None


@dataclass(slots=True)
class _Round:
    """An open round: its debits not yet settled, in the log's order."""

    key: RoundKey
    pending: dict[str, Transaction]
    #: An orphan cancel (W005) named this round: it is not also reported open.
    excused: bool = False


@dataclass(slots=True)
class _Chain:
    """A player's last recorded balance after, where it was, and the other figure (the
    expected one after a W009, a skipped transaction's) a next balance may follow from."""

    balance: Decimal | None
    at: Transaction
    other: Decimal | None = None


class WalletAudit:
    """One wallet log's audit: :meth:`take` each transaction in the log's order, then
    :meth:`close` once; :attr:`transactions` counts the transactions taken."""

    def __init__(self, unreferenced_settles: bool = False, uncredited_lost: bool = False) -> None:
        #: The log's conventions (a wallet mapping's ``conventions``): a credit or cancel
        #: with no reference settles its round's open debits; a round no credit closes
        #: is lost, closed by the player's next round or the log's end.
        self.unreferenced_settles = unreferenced_settles
        self.uncredited_lost = uncredited_lost
        self.transactions = 0
        self._ids: dict[str, _Debit | Action] = {}
        self._rounds: dict[RoundKey, _Round] = {}
        #: A debit id an orphan settlement named before the debit came -> that settlement.
        self._early: dict[str, Transaction] = {}
        self._chains: dict[str, _Chain] = {}
        #: Each player's last round closed as lost (``uncredited_lost``): one a player.
        self._lost: dict[str, _Round] = {}
        self._closed = False

    def take(self, tx: Transaction) -> list[Finding]:
        """The findings of one transaction (at most one: one root cause, one finding)."""
        if self._closed:
            raise RuntimeError("WalletAudit.take after close")
        self.transactions += 1
        fault = self._settle(tx)
        if fault is not None:
            self._skip_balance(tx)
            return [fault]
        broken = self._check_balance(tx)
        return [broken] if broken is not None else []

    def gap(self) -> None:
        """A line of the log could not be read (its H008 says so): whose balance it moved is
        unknown, so each player's chain starts again at their next balance (a W009 after it
        would be that line's knock-on, not a second fault)."""
        self._chains.clear()

    def close(self) -> list[Finding]:
        """The end of the log: a W008 for each round left open, in the order they opened."""
        if self._closed:
            return []
        self._closed = True
        found = [] if self.uncredited_lost else [_open_round(r) for r in self._rounds.values() if not r.excused]
        self._ids.clear()
        self._rounds.clear()
        self._early.clear()
        self._chains.clear()
        self._lost.clear()
        return found

    # Settlement: W004-W008.

    def _settle(self, tx: Transaction) -> Finding | None:
        seen = self._ids.get(tx.id)
        if seen is not None:
            return _duplicate(tx, seen)
        if tx.action == "debit":
            self._ids[tx.id] = self._debit(tx)
            return None
        if tx.reference is None and self.unreferenced_settles:
            opened = self._rounds.get((tx.user, tx.round)) or self._lost_round(tx)
            if opened is not None:
                self._ids[tx.id] = tx.action
                self._settle_round(tx, opened)
                return None
        target = self._ids.get(tx.reference) if tx.reference is not None else None
        self._ids[tx.id] = tx.action
        if not isinstance(target, _Debit) or not _same_round(target.key, tx):
            return self._orphan(tx, target)
        if tx.action == "credit":
            return self._credit(tx, target)
        return self._cancel(tx, target)

    def _settle_round(self, tx: Transaction, opened: _Round) -> None:
        """A credit or cancel with no reference, in a log whose convention is that it
        settles its round: every open debit of the round is credited or given back."""
        for debit_id in opened.pending:
            debit = self._ids[debit_id]
            if isinstance(debit, _Debit) and debit.state in ("open", "lost"):
                debit.state, debit.by = ("covered" if tx.action == "credit" else "cancelled"), tx.id
        self._rounds.pop(opened.key, None)

    def _lose_earlier(self, key: RoundKey) -> None:
        """A log whose rounds no credit closes are lost: the player's other open rounds
        end here (a credit that comes for one later still settles it, once; the last
        one lost is kept for a credit that names no debit)."""
        for other in [k for k in self._rounds if k[0] == key[0] and k != key]:
            lost = self._rounds.pop(other)
            for debit_id in lost.pending:
                debit = self._ids[debit_id]
                if isinstance(debit, _Debit) and debit.state == "open":
                    debit.state = "lost"
            self._lost[key[0]] = lost

    def _lost_round(self, tx: Transaction) -> _Round | None:
        """The player's last round closed as lost, when ``tx`` is for it (a late credit)."""
        lost = self._lost.get(tx.user)
        if lost is None or lost.key != (tx.user, tx.round):
            return None
        del self._lost[tx.user]
        return lost

    def _debit(self, tx: Transaction) -> _Debit:
        key: RoundKey = (tx.user, tx.round)
        if self.uncredited_lost and key not in self._rounds:
            self._lose_earlier(key)
        early = self._early.get(tx.id)
        opened = self._rounds.get(key)
        if early is not None and _same_round(key, early):
            del self._early[tx.id]
            if early.action == "credit" and opened is not None:
                self._close_round(opened, early.id)
            return _Debit(key, "credited" if early.action == "credit" else "cancelled", early.id)
        if opened is None:
            opened = self._rounds[key] = _Round(key, {})
        opened.pending[tx.id] = tx
        return _Debit(opened.key)

    def _credit(self, tx: Transaction, debit: _Debit) -> Finding | None:
        if debit.state in ("credited", "cancelled"):
            return _settled_twice(tx, debit)
        state, debit.state, debit.by = debit.state, "credited", tx.id
        if state == "open" and debit.key in self._rounds:
            self._close_round(self._rounds[debit.key], tx.id)
        return None

    def _cancel(self, tx: Transaction, debit: _Debit) -> Finding | None:
        if debit.state == "cancelled":
            return _settled_twice(tx, debit)
        if debit.state == "lost":  # a round the next one closed as lost, given back after all
            debit.state, debit.by = "cancelled", tx.id
            return None
        if debit.state != "open":
            return _cancel_after_credit(tx, debit)
        debit.state, debit.by = "cancelled", tx.id
        opened = self._rounds[debit.key]
        del opened.pending[_ref(tx)]
        if not opened.pending:
            del self._rounds[debit.key]
        return None

    def _close_round(self, opened: _Round, credit: str) -> None:
        """A credit settles its round: the debits it did not name are covered by it."""
        for debit_id in opened.pending:
            debit = self._ids[debit_id]
            if isinstance(debit, _Debit) and debit.state == "open":
                debit.state, debit.by = "covered", credit
        del self._rounds[opened.key]

    def _orphan(self, tx: Transaction, target: _Debit | Action | None) -> Finding:
        key: RoundKey = (tx.user, tx.round)
        if tx.reference is not None and target is None:
            self._early[tx.reference] = tx
        opened = self._rounds.get(key)
        if opened is not None and tx.action == "credit":
            self._close_round(opened, tx.id)
        elif opened is not None:
            opened.excused = True
        return _orphan_settlement(tx, target)

    # Balances: W009.

    def _check_balance(self, tx: Transaction) -> Finding | None:
        chain = self._chains.get(tx.user)
        if tx.balance is None or chain is None or chain.balance is None:
            self._chains[tx.user] = _Chain(tx.balance, tx)
            return None
        delta = _signed(tx)
        expected = chain.balance + delta
        follows = tx.balance == expected or (chain.other is not None and tx.balance == chain.other + delta)
        self._chains[tx.user] = _Chain(tx.balance, tx, None if follows else expected)
        return None if follows else _balance_break(tx, chain, expected)

    def _skip_balance(self, tx: Transaction) -> None:
        """A transaction already reported: its balance is one the next may follow from."""
        chain = self._chains.get(tx.user)
        if chain is None or chain.balance is None:
            self._chains[tx.user] = _Chain(tx.balance, tx)
        elif tx.balance is not None:
            chain.other = tx.balance


def audit_wallet(transactions: Iterable[Transaction], audit: WalletAudit | None = None) -> Iterator[Finding]:
    """Every finding of a wallet log, streamed in the log's order (the rounds left open,
    W008, at the end); pass ``audit`` to read its :attr:`WalletAudit.transactions` after."""
    audit = WalletAudit() if audit is None else audit
    for tx in transactions:
        yield from audit.take(tx)
    yield from audit.close()


def _same_round(key: RoundKey, tx: Transaction) -> bool:
    """The same player, and the same round unless one side records none."""
    return key[0] == tx.user and (key[1] is None or tx.round is None or key[1] == tx.round)


def _signed(tx: Transaction) -> Decimal:
    return -tx.amount if tx.action == "debit" else tx.amount


def _ref(tx: Transaction) -> str:
    assert tx.reference is not None  # only called once the reference named a debit
    return tx.reference


def _round_name(key: RoundKey) -> str:
    return f"{key[0]}'s round {key[1]}" if key[1] is not None else f"{key[0]}'s round with no id"


def _where(earlier: Transaction, tx: Transaction) -> str:
    return f"line {earlier.line}" if earlier.file == tx.file else f"{earlier.file}:{earlier.line}"


def _finding(code: FindingCode, tx: Transaction, field: str, message: str, expected: object,
             recorded: object) -> Finding:
    return Finding(code, f"{tx.pointer}.{field}: {message}", tx.file, tx.line, field=field, expected=expected,
                   recorded=recorded, game=tx.round, player=tx.user)


def _duplicate(tx: Transaction, seen: _Debit | Action) -> Finding:
    first = "debit" if isinstance(seen, _Debit) else seen
    return _finding(codes.W004, tx, "transaction",
                    f"{tx.action} {tx.id} repeats the id of a {first} before it; expected a new id "
                    "(one transaction moves money once: this one is left out)", None, tx.id)


def _orphan_settlement(tx: Transaction, target: _Debit | Action | None) -> Finding:
    wanted = f"a debit of {_round_name((tx.user, tx.round))} before it"
    if tx.reference is None:
        what = "names no debit (no reference)"
    elif target is None:
        what = f"names {tx.reference}, which no transaction before it has"
    elif isinstance(target, _Debit):
        what = f"names {tx.reference}, a debit of {_round_name(target.key)}"
    else:
        what = f"names {tx.reference}, a {target}, not a debit"
    return _finding(codes.W005, tx, "reference", f"{tx.action} {tx.id} of {fmt(tx.amount)} {what}; expected "
                    f"{wanted}", wanted, tx.reference)


def _settled_twice(tx: Transaction, debit: _Debit) -> Finding:
    done = "credited" if debit.state == "credited" else "cancelled"
    return _finding(codes.W006, tx, "reference",
                    f"{tx.action} {tx.id} settles debit {tx.reference} a second time: it was {done} by "
                    f"{debit.by}; expected one settlement of a debit", debit.by, tx.reference)


def _cancel_after_credit(tx: Transaction, debit: _Debit) -> Finding:
    how = ("credited by" if debit.state == "credited"
           else f"settled with {_round_name(debit.key)} by credit")
    return _finding(codes.W007, tx, "reference",
                    f"cancel {tx.id} gives back debit {tx.reference}, already {how} {debit.by}: a settled "
                    "stake cannot be given back", debit.by, tx.reference)


def _open_round(opened: _Round) -> Finding:
    first = next(iter(opened.pending.values()))
    total = sum((d.amount for d in opened.pending.values()), Decimal(0))
    more = f" ({len(opened.pending)} debits open, {fmt(total)} in all)" if len(opened.pending) > 1 else ""
    return _finding(codes.W008, first, "round",
                    f"{_round_name(opened.key)} is never closed: debit {first.id} of {fmt(first.amount)}{more} "
                    "has no credit (a credit of 0 closes a lost round) nor cancel by the end of the log",
                    None, total)


def _balance_break(tx: Transaction, chain: _Chain, expected: Decimal) -> Finding:
    assert tx.balance is not None and chain.balance is not None
    sign = "-" if tx.action == "debit" else "+"
    gap = tx.balance - expected
    return _finding(codes.W009, tx, "balance",
                    f"{tx.user}'s balance after {tx.action} {tx.id} is {fmt(tx.balance)}, expected "
                    f"{fmt(chain.balance)} {sign} {fmt(tx.amount)} = {fmt(expected)} from the balance after "
                    f"{chain.at.pointer} ({_where(chain.at, tx)}); {fmt(abs(gap))} "
                    f"{'more' if gap > 0 else 'less'}", expected, tx.balance)
