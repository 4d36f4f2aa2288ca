"""Issue 44, step 1: the full audit (``REFEREE_FAST=0``, what every game the lane does
not take goes through) decides a clean seat cheaply: its settlement from the memo, its
balance on the player's anchor without building a chain. What it reports is unchanged
(the golden files and ledger cases run it); these say it takes the cheap way."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from referee.audit import fast
from referee.audit.places import Emitter, round_place
from referee.audit.players import BalanceWork, Player, judge_balance
from referee.audit.results import Finding

from .conftest import run


def test_the_full_audit_settles_from_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The settlement memo is the audit's, not the lane's: with the lane off, the
    settlements of a clean log are kept in it (before, the full path settled every
    round in full)."""
    log = tmp_path / "log.jsonl"
    assert run("simulate", "--rounds", "200", "--seed", "5", "--output", str(log))[0] == 0
    monkeypatch.setenv("REFEREE_FAST", "0")
    monkeypatch.setattr(fast, "_MEMOS", {})
    code, _ = run("check", str(log), "--format", "json")
    assert code == 0
    memos = [m for m in fast._MEMOS.values() if isinstance(m, fast.SettleMemo)]
    assert memos and memos[0].memo


def _state(player: Player) -> tuple[object, ...]:
    chain = player.chain
    return (player.balance, chain.anchors, player.table_balance())


@pytest.mark.parametrize("seed", range(5))
def test_a_balance_judged_on_the_pieces_as_on_the_chain(seed: int) -> None:
    """A player whose chain is one trusted anchor is judged on its pieces; the state and
    the findings are those of the general way (the same works on a player whose chain
    is held whole)."""
    rng = random.Random(seed)
    quick, whole = Player("p", Decimal(100)), Player("p", Decimal(100))
    found: dict[str, list[tuple[bool, list[str]]]] = {"quick": [], "whole": []}
    for number in range(1, 200):
        net = Decimal(rng.choice((-3, -2, -1, 0, 1, 2, 4, 5)))
        table_net = net if rng.random() > 0.05 else net + 1
        recorded = None if rng.random() < 0.2 else (
            _balance(quick) + table_net if rng.random() > 0.05 else Decimal(rng.randint(0, 300)))
        for name, player in (("quick", quick), ("whole", whole)):
            if name == "whole":
                player._chain = player.chain  # held whole: the general way
            session = _Session()
            own: list[Finding] = []
            emit = Emitter(session, own, None, number, round_place(number))
            work = BalanceWork(player, table_net, net, recorded, False, emit, 0, 0)
            broke = judge_balance(work, session.findings)
            found[name].append((broke, [f.message for f in own]))
        assert _state(quick) == _state(whole)
    assert found["quick"] == found["whole"]


class _Session:
    """What an emitter needs of its session: its file and its findings."""

    file = "log.jsonl"

    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        return finding


def _balance(player: Player) -> Decimal:
    balance = player.table_balance()
    return balance if balance is not None else Decimal(0)


def test_a_round_line_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the lane off, a JSON Lines round line is decoded by msgspec alone, and the
    audit reads the mapping its struct makes: the reader's ``json`` decoder reads only
    the session line (before, every round line was read by it, once more after
    msgspec's read when the lane was on and did not take the round)."""
    from referee.load import jsonio
    from referee.load.readers import jsonl

    log = tmp_path / "log.jsonl"
    assert run("simulate", "--rounds", "50", "--seed", "7", "--output", str(log))[0] == 0
    read: list[int] = []
    original = jsonio.loads_line

    def counted(text: str, line: int) -> object:
        read.append(line)
        return original(text, line)

    monkeypatch.setattr(jsonl, "loads_line", counted)
    monkeypatch.setenv("REFEREE_FAST", "0")
    code, out = run("check", str(log), "--format", "json")
    assert code == 0 and '"rounds":' in out
    assert read == [1]


def test_the_struct_makes_the_readers_mapping(tmp_path: Path) -> None:
    """``plain_data`` gives what the reader's decoder gives for the same line: equal
    values of the same types all through, every mapping a LineDict on the line."""
    from referee.audit.duplicates import same_record
    from referee.load.jsonio import loads_line
    from referee.load.plain import fast_round, plain_data
    from referee.load.records import LineDict

    log = tmp_path / "log.jsonl"
    assert run("simulate", "--rounds", "300", "--seed", "9", "--faults", "0.2", "--bonus", "1",
               "--profile", "bonus-aa", "--output", str(log))[0] == 0
    compared = 0
    for number, raw in enumerate(log.read_bytes().splitlines(keepends=True), start=1):
        found = fast_round(raw)
        if found is None:
            continue
        made, read = plain_data(found, number), loads_line(raw.decode(), number)
        assert made == read and same_record(made, read) and same_record(read, made)
        assert isinstance(made, LineDict) and made.line == number
        recorded = made.get("recorded")
        assert recorded is None or (isinstance(recorded, LineDict) and recorded.line == number)
        compared += 1
    assert compared > 200
