"""The money-only audit of a wallet log read alone (referee/audit/wallet_log.py, issue 29).

Transactions are built here, not read: the readers are tested on their own. Each code
fires once where it should; a clean log gives nothing; each cascade (a duplicate debit,
a cancel after a credit, a credit whose debit is missing...) is one finding; and a
random clean log gives none, with one injected fault of each kind giving exactly its one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.audit.results import Finding
from referee.audit.wallet_log import WalletAudit, audit_wallet
from referee.models import codes
from referee.models.transaction import Action, Transaction

from .conftest import ROOT

FILE = "wallet.jsonl"


class Log:
    """A wallet log written line by line: ``[n]`` at line n + 1, balances as given."""

    def __init__(self) -> None:
        self.lines: list[Transaction] = []

    def add(self, action: Action, tx: str, amount: str, ref: str | None = None, *, user: str = "p1",
            round: str | None = "g1", balance: str | None = None) -> Transaction:
        n = len(self.lines)
        line = Transaction(FILE, n + 1, f"[{n}]", action, user, round, tx, Decimal(amount), ref,
                           balance=None if balance is None else Decimal(balance))
        self.lines.append(line)
        return line

    def debit(self, tx: str, amount: str = "1", *, user: str = "p1", round: str | None = "g1",
              balance: str | None = None) -> Transaction:
        return self.add("debit", tx, amount, user=user, round=round, balance=balance)

    def credit(self, tx: str, ref: str | None, amount: str = "0", *, user: str = "p1", round: str | None = "g1",
               balance: str | None = None) -> Transaction:
        return self.add("credit", tx, amount, ref, user=user, round=round, balance=balance)

    def cancel(self, tx: str, ref: str | None, amount: str = "1", *, user: str = "p1", round: str | None = "g1",
               balance: str | None = None) -> Transaction:
        return self.add("cancel", tx, amount, ref, user=user, round=round, balance=balance)


def audit(lines: list[Transaction]) -> list[Finding]:
    return list(audit_wallet(lines))


def found(lines: list[Transaction]) -> list[tuple[str, int]]:
    """Each finding as (code, line)."""
    return [(f.code, f.line) for f in audit(lines)]


# Clean logs.


def test_a_lost_round_closed_by_a_credit_of_0_is_clean() -> None:
    log = Log()
    log.debit("tx1", "1.00", balance="99.00")
    log.credit("tx2", "tx1", "0", balance="99.00")
    assert found(log.lines) == []


def test_two_debits_and_one_credit_is_clean() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.debit("tx2", "2", balance="97")
    log.credit("tx3", "tx2", "6", balance="103")
    assert found(log.lines) == []


def test_a_debit_given_back_is_clean() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.cancel("tx2", "tx1", "1", balance="100")
    assert found(log.lines) == []


def test_a_credit_for_each_debit_of_a_round_is_clean() -> None:
    """A provider that credits each stake: the round's first credit covers the other
    debit, which its own credit may still name, once."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.debit("tx2", "1", balance="98")
    log.credit("tx3", "tx1", "2", balance="100")
    log.credit("tx4", "tx2", "0", balance="100")
    assert found(log.lines) == []


def test_a_stake_given_back_then_the_round_paid_is_clean() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.debit("tx2", "5", balance="94")
    log.cancel("tx3", "tx2", "5", balance="99")
    log.credit("tx4", "tx1", "2", balance="101")
    assert found(log.lines) == []


def test_players_of_one_table_round_are_rounds_of_their_own() -> None:
    """The same round id for two players, interleaved, each with a balance of their own."""
    log = Log()
    log.debit("a1", "1", user="p1", balance="99")
    log.debit("b1", "2", user="p2", balance="48")
    log.credit("b2", "b1", "4", user="p2", balance="52")
    log.credit("a2", "a1", "0", user="p1", balance="99")
    assert found(log.lines) == []


def test_a_round_id_used_again_after_its_round_closed_opens_a_new_round() -> None:
    log = Log()
    log.debit("tx1")
    log.credit("tx2", "tx1")
    log.debit("tx3")
    log.credit("tx4", "tx3")
    assert found(log.lines) == []


def test_a_log_without_balances_or_rounds_is_audited_for_its_settlements() -> None:
    log = Log()
    log.debit("tx1", round=None)
    log.credit("tx2", "tx1", round=None)
    log.debit("tx3", round=None)
    assert found(log.lines) == [("W008", 3)]


def test_a_round_recorded_on_one_side_only_still_matches() -> None:
    log = Log()
    log.debit("tx1", round="g1")
    log.credit("tx2", "tx1", round=None)
    assert found(log.lines) == []


def test_the_empty_log_is_clean() -> None:
    assert found([]) == []


# Each code, once where it should.


def test_w004_duplicate_transaction_id() -> None:
    log = Log()
    log.debit("tx1", balance="99")
    log.credit("tx2", "tx1", balance="99")
    log.debit("tx2", balance="98")
    [f] = audit(log.lines)
    assert (f.code, f.line, f.field, f.recorded) == (codes.W004, 3, "transaction", "tx2")
    assert f.message.startswith("[2].transaction: debit tx2 repeats the id of a credit")


def test_w005_a_credit_without_a_reference() -> None:
    log = Log()
    log.debit("tx1")
    log.credit("tx2", None)
    [f] = audit(log.lines)
    assert (f.code, f.line, f.field, f.recorded, f.game, f.player) == (codes.W005, 2, "reference", None, "g1", "p1")
    assert f.message == ("[1].reference: credit tx2 of 0 names no debit (no reference); expected a debit of "
                         "p1's round g1 before it")


@pytest.mark.parametrize(("ref", "says"), [
    ("tx9", "names tx9, which no transaction before it has"),
    ("c0", "names c0, a credit, not a debit"),
    ("b1", "names b1, a debit of p2's round g1"),
    ("d0", "names d0, a debit of p1's round g0"),
])
def test_w005_a_reference_that_names_no_debit_of_its_round(ref: str, says: str) -> None:
    log = Log()
    log.debit("d0", round="g0")
    log.credit("c0", "d0", round="g0")
    log.debit("b1", user="p2")
    log.credit("b2", "b1", user="p2")
    log.debit("tx1")
    log.cancel("tx2", ref)
    [f] = audit(log.lines)
    assert (f.code, f.line) == (codes.W005, 6)
    assert says in f.message and f.message.startswith("[5].reference: cancel tx2 of 1 ")


def test_w006_two_credits_of_one_debit() -> None:
    log = Log()
    log.debit("tx1", balance="99")
    log.credit("tx2", "tx1", "2", balance="101")
    log.credit("tx3", "tx1", "2", balance="103")
    [f] = audit(log.lines)
    assert (f.code, f.line, f.field, f.expected, f.recorded) == (codes.W006, 3, "reference", "tx2", "tx1")
    assert f.message == ("[2].reference: credit tx3 settles debit tx1 a second time: it was credited by tx2; "
                         "expected one settlement of a debit")


def test_w006_two_cancels_of_one_debit() -> None:
    log = Log()
    log.debit("tx1")
    log.cancel("tx2", "tx1")
    log.cancel("tx3", "tx1")
    assert found(log.lines) == [("W006", 3)]


def test_w006_a_credit_of_a_cancelled_debit() -> None:
    log = Log()
    log.debit("tx1")
    log.cancel("tx2", "tx1")
    log.credit("tx3", "tx1")
    [f] = audit(log.lines)
    assert (f.code, f.line) == (codes.W006, 3) and "it was cancelled by tx2" in f.message


def test_w007_a_cancel_after_the_credit_not_also_w006() -> None:
    log = Log()
    log.debit("tx1")
    log.credit("tx2", "tx1")
    log.cancel("tx3", "tx1")
    [f] = audit(log.lines)
    assert (f.code, f.line, f.expected) == (codes.W007, 3, "tx2")
    assert f.message == ("[2].reference: cancel tx3 gives back debit tx1, already credited by tx2: a settled "
                         "stake cannot be given back")


def test_w007_a_cancel_of_a_debit_its_round_credit_covered() -> None:
    log = Log()
    log.debit("tx1")
    log.debit("tx2")
    log.credit("tx3", "tx1", "4")
    log.cancel("tx4", "tx2")
    [f] = audit(log.lines)
    assert (f.code, f.line) == (codes.W007, 4)
    assert "already settled with p1's round g1 by credit tx3" in f.message


def test_w008_a_round_never_closed_once_at_its_first_debit() -> None:
    log = Log()
    log.debit("a1", user="p2")
    log.debit("tx1", "1")
    log.debit("tx2", "2")
    log.credit("a2", "a1", user="p2")
    [f] = audit(log.lines)
    assert (f.code, f.line, f.field, f.game, f.player, f.recorded) == (codes.W008, 2, "round", "g1", "p1",
                                                                       Decimal(3))
    assert f.message == ("[1].round: p1's round g1 is never closed: debit tx1 of 1 (2 debits open, 3 in all) has "
                         "no credit (a credit of 0 closes a lost round) nor cancel by the end of the log")


def test_w008_at_the_first_debit_still_open() -> None:
    log = Log()
    log.debit("tx1")
    log.debit("tx2")
    log.cancel("tx3", "tx1")
    assert found(log.lines) == [("W008", 2)]


def test_w008_once_for_each_open_round_in_the_order_they_opened() -> None:
    log = Log()
    log.debit("tx1", round="g2")
    log.debit("tx2", round="g1")
    log.debit("tx3", round="g2")
    assert found(log.lines) == [("W008", 1), ("W008", 2)]


def test_w009_a_balance_that_does_not_follow() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="110")
    [f] = audit(log.lines)
    assert (f.code, f.line, f.field, f.expected, f.recorded) == (codes.W009, 2, "balance", Decimal(101),
                                                                 Decimal(110))
    assert f.message == ("[1].balance: p1's balance after credit tx2 is 110, expected 99 + 2 = 101 from the "
                         "balance after [0] (line 1); 9 more")


def test_w009_a_debit_and_the_previous_balance_in_another_file() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.lines[0] = replace(log.lines[0], file="day1.jsonl")
    log.debit("tx2", "2.5", round="g2", balance="97")
    log.credit("tx3", "tx1", round="g1")
    log.credit("tx4", "tx2", round="g2")
    [f] = audit(log.lines)
    assert f.code == codes.W009 and f.message.endswith("expected 99 - 2.5 = 96.5 from the balance after [0] "
                                                       "(day1.jsonl:1); 0.5 more")


def test_w009_the_first_transaction_of_a_player_sets_the_chain() -> None:
    log = Log()
    log.debit("tx1", "1", balance="5")
    log.debit("a1", "1", user="p2", balance="1000")
    log.credit("tx2", "tx1", "2", balance="7")
    log.credit("a2", "a1", "0", user="p2", balance="999")
    assert found(log.lines) == [("W009", 4)]


def test_w009_only_when_both_balances_are_present() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2")
    log.debit("tx3", "1", round="g2", balance="50")
    log.credit("tx4", "tx3", "0", round="g2", balance="50")
    assert found(log.lines) == []


def test_w009_a_slip_in_one_balance_is_one_finding() -> None:
    """The next balance follows from the expected figure: the wallet carried on right."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="110")
    log.debit("tx3", "1", round="g2", balance="100")
    log.credit("tx4", "tx3", "0", round="g2", balance="100")
    assert found(log.lines) == [("W009", 2)]


def test_w009_a_jump_carried_on_is_one_finding() -> None:
    """The next balance follows from the recorded figure: the chain goes on from it."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="110")
    log.debit("tx3", "1", round="g2", balance="109")
    log.credit("tx4", "tx3", "0", round="g2", balance="109")
    assert found(log.lines) == [("W009", 2)]


def test_w009_two_breaks_are_two_findings() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="110")
    log.debit("tx3", "1", round="g2", balance="200")
    assert [c for c, _ in found(log.lines)] == ["W009", "W009", "W008"]


# Cascades: one root cause, one finding.


def test_a_debit_line_written_twice_is_w004_only() -> None:
    """Not W008 for the copy, nor W006 when the credit settles the round."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="101")
    assert found(log.lines) == [("W004", 2)]


def test_a_credit_line_written_twice_is_w004_only_not_w006() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="101")
    log.credit("tx2", "tx1", "2", balance="101")
    assert found(log.lines) == [("W004", 3)]


def test_a_copy_written_later_with_its_stale_balance_is_w004_only() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="101")
    log.debit("tx3", "1", round="g2", balance="100")
    log.debit("tx1", "1", balance="99")
    log.credit("tx4", "tx3", "0", round="g2", balance="100")
    assert found(log.lines) == [("W004", 4)]


def test_an_id_used_again_for_money_that_moved_is_w004_only() -> None:
    """The next balance may follow from the repeat's own."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "0", balance="99")
    log.debit("tx1", "5", round="g2", balance="94")
    log.debit("tx3", "1", round="g3", balance="93")
    log.credit("tx4", "tx3", "0", round="g3", balance="93")
    assert found(log.lines) == [("W004", 3)]


def test_a_cancel_after_a_credit_is_w007_only_with_any_balance() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "0", balance="99")
    log.cancel("tx3", "tx1", "1", balance="100")
    log.debit("tx4", "1", round="g2", balance="99")
    log.credit("tx5", "tx4", "0", round="g2", balance="99")
    assert found(log.lines) == [("W007", 3)]


def test_a_credit_refused_by_the_wallet_is_w006_only() -> None:
    """The second credit moved no money: the next balance follows from the one before it."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx1", "2", balance="101")
    log.credit("tx3", "tx1", "2", balance="101")
    log.debit("tx4", "1", round="g2", balance="100")
    log.credit("tx5", "tx4", "0", round="g2", balance="100")
    assert found(log.lines) == [("W006", 3)]


def test_a_credit_whose_debit_is_missing_is_w005_only() -> None:
    """No debit, so no round to leave open; the balance chain starts at the credit."""
    log = Log()
    log.credit("tx2", "tx1", "2", balance="101")
    log.debit("tx3", "1", round="g2", balance="100")
    log.credit("tx4", "tx3", "0", round="g2", balance="100")
    assert found(log.lines) == [("W005", 1)]


def test_a_credit_with_a_wrong_reference_closes_its_round() -> None:
    """W005, and its round (by its ``round``) is not also reported open."""
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.credit("tx2", "tx7", "2", balance="101")
    assert found(log.lines) == [("W005", 2)]


def test_a_cancel_with_a_wrong_reference_excuses_its_round() -> None:
    log = Log()
    log.debit("tx1", "1", balance="99")
    log.cancel("tx2", None, "1", balance="100")
    assert found(log.lines) == [("W005", 2)]


def test_a_credit_written_before_its_debit_is_w005_only() -> None:
    """A log out of order: the debit that comes later is settled by it, not left open,
    and its own credit would be the second settlement."""
    log = Log()
    log.credit("tx2", "tx1", "0")
    log.debit("tx1", "1")
    assert found(log.lines) == [("W005", 1)]
    log.credit("tx3", "tx1", "0")
    assert found(log.lines) == [("W005", 1), ("W006", 3)]


def test_a_later_debit_of_another_player_is_not_settled_by_an_orphan() -> None:
    log = Log()
    log.credit("tx2", "tx1", "0", user="p2")
    log.debit("tx1", "1")
    assert found(log.lines) == [("W005", 1), ("W008", 2)]


def test_an_orphan_credit_does_not_touch_the_debit_of_another_round_it_names() -> None:
    log = Log()
    log.debit("tx1", round="g1")
    log.debit("tx2", round="g2")
    log.credit("tx3", "tx1", round="g2")
    log.credit("tx4", "tx1", round="g1")
    assert found(log.lines) == [("W005", 3)]


def test_a_duplicate_settlement_leaves_the_round_as_the_first_settled_it() -> None:
    log = Log()
    log.debit("tx1")
    log.cancel("tx2", "tx1")
    log.cancel("tx3", "tx1")
    log.debit("tx4")
    log.credit("tx5", "tx4")
    assert found(log.lines) == [("W006", 3)]


# The API.


def test_the_audit_counts_its_transactions() -> None:
    log = Log()
    log.debit("tx1")
    log.debit("tx1")
    log.credit("tx2", "tx1")
    wallet = WalletAudit()
    assert [f.code for f in audit_wallet(log.lines, wallet)] == ["W004"]
    assert wallet.transactions == 3


def test_take_and_close() -> None:
    log = Log()
    wallet = WalletAudit()
    assert wallet.take(log.debit("tx1")) == []
    assert [f.code for f in wallet.take(log.debit("tx1"))] == ["W004"]
    assert [f.code for f in wallet.close()] == ["W008"]
    assert wallet.close() == [] and wallet.transactions == 2
    with pytest.raises(RuntimeError):
        wallet.take(log.debit("tx2"))


def test_findings_stream_as_the_log_is_read() -> None:
    """A generator log: the finding of line 2 comes before line 3 is read."""
    read: list[int] = []

    def lines() -> Iterator[Transaction]:
        log = Log()
        for tx in (log.debit("tx1"), log.debit("tx1"), log.credit("tx2", "tx1")):
            read.append(tx.line)
            yield tx

    findings = audit_wallet(lines())
    assert next(findings).line == 2 and read == [1, 2]
    assert list(findings) == [] and read == [1, 2, 3]


def test_closed_rounds_are_not_kept() -> None:
    """Memory: a long clean log leaves no open round behind (only the ids seen)."""
    wallet = WalletAudit()
    log = Log()
    for n in range(2000):
        wallet.take(log.debit(f"d{n}", round=f"g{n}"))
        wallet.take(log.debit(f"e{n}", round=f"g{n}"))
        wallet.take(log.credit(f"c{n}", f"e{n}", round=f"g{n}"))
        assert not wallet._rounds
    assert wallet.close() == [] and wallet.transactions == 6000


def test_money_is_decimal() -> None:
    log = Log()
    log.debit("tx1", "0.10", balance="0.10")
    log.credit("tx2", "tx1", "0.20", balance="0.30")  # 0.1 + 0.2 is 0.3 exactly, never 0.30000000000000004
    assert found(log.lines) == []
    log.debit("tx3", "0.10", round="g2", balance="0.21")
    log.credit("tx4", "tx3", "0", round="g2", balance="0.21")
    [f] = audit(log.lines)
    assert (f.expected, f.recorded) == (Decimal("0.20"), Decimal("0.21")) and isinstance(f.expected, Decimal)


#: One case of each code, (action, id, reference, balance) a line, for the catalogue's
#: "every code is emitted" (tests/test_ledger_cases.py).
CODE_CASES: dict[str, list[tuple[Action, str, str | None, str | None]]] = {
    codes.W004: [("debit", "tx1", None, None), ("debit", "tx1", None, None), ("credit", "tx2", "tx1", None)],
    codes.W005: [("credit", "tx2", "tx1", None)],
    codes.W006: [("debit", "tx1", None, None), ("credit", "tx2", "tx1", None), ("credit", "tx3", "tx1", None)],
    codes.W007: [("debit", "tx1", None, None), ("credit", "tx2", "tx1", None), ("cancel", "tx3", "tx1", None)],
    codes.W008: [("debit", "tx1", None, None)],
    codes.W009: [("debit", "tx1", None, "9"), ("credit", "tx2", "tx1", "5")],
}


@pytest.mark.parametrize("code", sorted(CODE_CASES))
def test_code_case(code: str) -> None:
    log = Log()
    for action, tx, ref, balance in CODE_CASES[code]:
        log.add(action, tx, "1", ref, balance=balance)
    assert [f.code for f in audit(log.lines)] == [code]


# The documented example (docs/wallet-log.md) gives the findings it shows (as check prints them).


def test_the_documented_example() -> None:
    page = (ROOT / "docs" / "wallet-log.md").read_text(encoding="utf-8")
    log_text, shown = re.findall(r"```(?:jsonl|text)\n(.*?)```", page, re.S)[:2]
    lines = [_read(n, raw) for n, raw in enumerate(log_text.splitlines())]
    assert "".join(f"{f.file}:{f.line}: {f.code} [{f.severity}] {f.message}\n" for f in audit(lines)) == shown


def _read(n: int, raw: str) -> Transaction:
    """The reader's part, as small as the example needs."""
    d = json.loads(raw)
    return Transaction("wallet.jsonl", n + 1, f"[{n}]", d["action"], d["user"], d["round"], d["transaction"],
                       Decimal(d["amount"]), d["reference"], d.get("table"),
                       None if d["balance"] is None else Decimal(d["balance"]))


# Random clean logs, and one fault in them.

USERS = ("p1", "p2", "p3")
GAMES = ("g1", "g2", "g3", "g4")
cents = st.integers(min_value=1, max_value=500).map(lambda c: Decimal(c) / 100)


@dataclass
class Built:
    """A clean log, and what is known of it to inject faults."""

    lines: list[Transaction]
    openings: dict[str, Decimal]


@st.composite
def round_events(draw: st.DrawFn, user: str, game: str, ids: Iterator[str]) -> list[Transaction]:
    """One round's transactions in order: its debits, then a credit (maybe one for each
    debit), or a cancel of each, or a cancel of some and a credit."""
    amounts = draw(st.lists(cents, min_size=1, max_size=3))
    debits = [_event("debit", user, game, next(ids), a) for a in amounts]
    shape = draw(st.sampled_from(["credit", "per-debit", "cancel", "mixed"] if len(debits) > 1 else
                                 ["credit", "cancel"]))
    order = draw(st.permutations(debits))
    if shape == "cancel":
        return debits + [_event("cancel", user, game, next(ids), d.amount, d.id) for d in order]
    cancelled = order[:draw(st.integers(1, len(order) - 1))] if shape == "mixed" else []
    kept = [d for d in order if d not in cancelled]
    named = kept if shape == "per-debit" else kept[:1]
    return (debits + [_event("cancel", user, game, next(ids), d.amount, d.id) for d in cancelled]
            + [_event("credit", user, game, next(ids), draw(st.integers(0, 2000)) / Decimal(100), d.id)
               for d in named])


def _event(action: Action, user: str, game: str, tx: str, amount: Decimal, ref: str | None = None) -> Transaction:
    return Transaction(FILE, 0, "", action, user, game, tx, amount, ref)


@st.composite
def clean_logs(draw: st.DrawFn) -> Built:
    keys = draw(st.lists(st.tuples(st.sampled_from(USERS), st.sampled_from(GAMES)), min_size=1, max_size=6,
                         unique=True))
    ids = iter(f"tx{n}" for n in range(10_000))
    rounds = [draw(round_events(user, game, ids)) for user, game in keys]
    turns = draw(st.permutations([r for r, events in enumerate(rounds) for _ in events]))
    cursor = [0] * len(rounds)
    events: list[Transaction] = []
    for r in turns:
        events.append(rounds[r][cursor[r]])
        cursor[r] += 1
    openings = {u: draw(st.integers(0, 10_000)) / Decimal(100) for u in USERS}
    return Built(with_balances(events, openings), openings)


def with_balances(events: list[Transaction], openings: dict[str, Decimal]) -> list[Transaction]:
    """Each player's balance after, from their opening balance; lines numbered in order."""
    balance = dict(openings)
    out = []
    for tx in events:
        balance[tx.user] += -tx.amount if tx.action == "debit" else tx.amount
        out.append(replace(tx, balance=balance[tx.user]))
    return numbered(out)


def numbered(lines: list[Transaction]) -> list[Transaction]:
    return [replace(tx, line=n + 1, pointer=f"[{n}]") for n, tx in enumerate(lines)]


def balance_before(lines: list[Transaction], position: int, user: str, opening: Decimal) -> Decimal:
    """The player's balance after the last of their lines before ``position``."""
    before = [tx.balance for tx in lines[:position] if tx.user == user and tx.balance is not None]
    return before[-1] if before else opening


def inserted(built: Built, position: int, tx: Transaction, moved: bool) -> list[Transaction]:
    """A new line at ``position``: it moved its money (the player's later balances carry it
    on) or the wallet refused it (its balance is the one before it)."""
    lines = built.lines
    before = balance_before(lines, position, tx.user, built.openings[tx.user])
    shift = (-tx.amount if tx.action == "debit" else tx.amount) if moved else Decimal(0)
    later = [replace(t, balance=t.balance + shift) if t.user == tx.user and t.balance is not None else t
             for t in lines[position:]]
    return numbered([*lines[:position], replace(tx, balance=before + shift), *later])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs())
def test_a_random_clean_log_gives_no_finding(built: Built) -> None:
    wallet = WalletAudit()
    assert list(audit_wallet(built.lines, wallet)) == []
    assert wallet.transactions == len(built.lines)


def _only(lines: list[Transaction]) -> tuple[str, int]:
    findings = found(lines)
    assert len(findings) == 1, findings
    return findings[0]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w004_injected(built: Built, data: st.DataObject) -> None:
    """A line written again anywhere after itself, with its own (stale) balance."""
    lines = built.lines
    i = data.draw(st.integers(0, len(lines) - 1))
    j = data.draw(st.integers(i + 1, len(lines)))
    faulty = numbered([*lines[:j], lines[i], *lines[j:]])
    assert _only(faulty) == ("W004", j + 1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w005_injected(built: Built, data: st.DataObject) -> None:
    """A credit's or cancel's reference lost, unknown, a settlement's, or another round's debit."""
    lines = built.lines
    i = data.draw(st.sampled_from([n for n, tx in enumerate(lines) if tx.action != "debit"]))
    tx = lines[i]
    others = [t.id for t in lines if t.action == "debit" and (t.user, t.round) != (tx.user, tx.round)]
    settlements = [t.id for t in lines if t.action != "debit" and t.id != tx.id]
    ref = data.draw(st.sampled_from([None, "tx-unknown", *others, *settlements]))
    faulty = [*lines[:i], replace(tx, reference=ref), *lines[i + 1:]]
    assert _only(faulty) == ("W005", i + 1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w006_injected(built: Built, data: st.DataObject) -> None:
    """A second credit or cancel of a settled debit (or a credit of a cancelled one), after
    its settlement, whether the wallet moved its money or not."""
    lines = built.lines
    i = data.draw(st.sampled_from([n for n, tx in enumerate(lines) if tx.action != "debit"]))
    first = lines[i]
    action: Action = data.draw(st.sampled_from(["credit", "cancel"])) if first.action == "cancel" else "credit"
    again = replace(first, action=action, id="tx-again")
    position = data.draw(st.integers(i + 1, len(lines)))
    faulty = inserted(built, position, again, data.draw(st.booleans()))
    assert _only(faulty) == ("W006", position + 1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w007_injected(built: Built, data: st.DataObject) -> None:
    """A cancel, after its round's first credit, of a debit of that round not given back."""
    lines = built.lines
    paid = [n for n, tx in enumerate(lines) if tx.action == "credit"]
    if not paid:
        return  # every round given back: no credit to cancel after
    i = data.draw(st.sampled_from(paid))
    credit = lines[i]
    cancelled = {t.reference for t in lines if t.action == "cancel"}
    if any(t.action == "credit" and (t.user, t.round) == (credit.user, credit.round) for t in lines[:i]):
        return  # not the round's first credit: the first one is drawn too
    debits = [t for t in lines[:i] if t.action == "debit" and (t.user, t.round) == (credit.user, credit.round)
              and t.id not in cancelled]
    debit = data.draw(st.sampled_from(debits))
    back = replace(debit, action="cancel", id="tx-back", reference=debit.id)
    position = data.draw(st.integers(i + 1, len(lines)))
    faulty = inserted(built, position, back, data.draw(st.booleans()))
    assert _only(faulty) == ("W007", position + 1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w008_injected(built: Built, data: st.DataObject) -> None:
    """A round's credits left out (or, for a round given back, one of its cancels): its
    first debit still open is the one finding's line."""
    lines = built.lines
    user, game = data.draw(st.sampled_from(sorted({(t.user, t.round or "") for t in lines})))
    mine = [t for t in lines if (t.user, t.round) == (user, game)]
    credits = {t.id for t in mine if t.action == "credit"}
    dropped = credits or {data.draw(st.sampled_from([t.id for t in mine if t.action == "cancel"]))}
    events = [t for t in lines if t.id not in dropped]
    faulty = with_balances(events, built.openings)
    given_back = {t.reference for t in events if t.action == "cancel"}
    first_open = next(n for n, t in enumerate(faulty) if t.id in {d.id for d in mine if d.action == "debit"}
                      and t.id not in given_back)
    assert _only(faulty) == ("W008", first_open + 1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_logs(), st.data())
def test_w009_injected(built: Built, data: st.DataObject) -> None:
    """One balance off (a slip), or off and carried on (a jump): one finding, at it."""
    lines = built.lines
    seconds = [n for n, tx in enumerate(lines) if any(t.user == tx.user for t in lines[:n])]
    if not seconds:
        return  # every player has one line: no chain to break
    i = data.draw(st.sampled_from(seconds))
    off = data.draw(cents | cents.map(lambda c: -c))
    carried = data.draw(st.booleans())
    user = lines[i].user
    faulty = [shifted(t, off) if n == i or (carried and n > i and t.user == user) else t
              for n, t in enumerate(lines)]
    assert _only(faulty) == ("W009", i + 1)


def shifted(tx: Transaction, by: Decimal) -> Transaction:
    assert tx.balance is not None
    return replace(tx, balance=tx.balance + by)


# ----------------------------------------------------------------------------- conventions (issue 45)

def _conventional(lines: list[Transaction]) -> list[str]:
    """The codes of a log audited as a provider that names no debit and credits no lost
    round writes it (a wallet mapping's ``conventions``)."""
    found = audit_wallet(lines, WalletAudit(unreferenced_settles=True, uncredited_lost=True))
    return [f.code for f in found]


def test_a_log_with_no_references_and_no_credit_of_0_is_clean_under_its_conventions() -> None:
    log = Log()
    log.debit("t1", "1", round="g1")
    log.debit("t2", "2", round="g1")
    log.credit("t3", None, "6", round="g1")  # settles t1 and t2: no reference
    log.debit("t4", "1", round="g2")  # lost: no credit at all; g3 closes it
    log.debit("t5", "1", round="g3")
    log.cancel("t6", None, "1", round="g3")  # given back: settles t5
    log.debit("t7", "1", round="g4")  # lost, closed by the end of the log
    assert _conventional(log.lines) == []
    assert sorted(f.code for f in audit(log.lines)) == ["W005", "W005", "W008", "W008"]  # the strict reading


def test_the_conventions_still_find_what_no_convention_explains() -> None:
    log = Log()
    log.credit("t1", None, "2", round="g9")  # no debit of g9 at all
    log.debit("t2", "1", round="g1")
    log.credit("t3", None, "2", round="g1")
    log.credit("t4", None, "2", round="g1")  # g1 was already settled: a second payout
    log.debit("t5", "1", round="g2")
    log.credit("t6", "t5", "2", round="g2")
    log.cancel("t7", "t5", "1", round="g2")  # a cancel after its credit
    log.debit("t8", "1", round="g3")
    log.debit("t8", "1", round="g3")  # the same id twice
    assert _conventional(log.lines) == ["W005", "W005", "W007", "W004"]


def test_a_late_credit_of_a_round_closed_as_lost_settles_it() -> None:
    log = Log()
    log.debit("t1", "1", round="g1")
    log.debit("t2", "1", round="g2")  # g1 closed as lost
    log.credit("t3", None, "2", round="g1")  # then its payout, late: it settles g1
    log.credit("t4", None, "2", round="g2")
    assert _conventional(log.lines) == []


def test_the_builtin_bare_wallet_mapping_reads_its_sample_clean_and_the_strict_one_does_not() -> None:
    from .conftest import check_json

    sample = str(ROOT / "samples" / "exports" / "seamless-wallet-bare.jsonl")
    code, report = check_json("--mapping", "seamless-wallet-bare", sample)
    assert code == 0 and report["problems"] == [] and report["summary"]["findings"] == 0
    code, report = check_json("--mapping", "seamless-wallet", sample)
    assert code == 1 and {f["code"] for f in report["problems"]} == {"W005", "W008"}


def test_conventions_belong_to_a_wallet_mapping() -> None:
    from referee.load.exports import MappingError
    from referee.load.exports.mappings import parse_mapping

    from .test_importers import MINIMAL

    with pytest.raises(MappingError) as caught:
        parse_mapping((MINIMAL + "conventions:\n  uncredited: lost\n").encode(), "m.yaml")
    assert "a mapping of kind wallet" in str(caught.value)
