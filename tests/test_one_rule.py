"""Issue 44, "a rule is written once": each decision the fast lane used to make again by
itself (``return None  # P005`` beside the full audit's own test) is one function, in
the rule's own module, that the full audit and the lane both call.

A spy put in place of each such function, wherever the package holds it, must be asked
with the lane (``audit/lane.py``) on the stack when the lane takes the seats of a clean
log (the default: it takes every settled game), and with the full audit
(``audit/session.py``) on it when the full audit takes them all (``REFEREE_FAST=0``):
a lane that decides the rule again by its own code is never seen asking, and fails here.
The reports of both paths are the same byte for byte (``test_fast_path.py``, the golden
files); this says they are the same because one function decides."""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

import pytest

from referee.audit import fast

from .conftest import run


class Rule(NamedTuple):
    """A rule's function (its module and name), the formats whose logs ask it (a
    format-1 round has no wallet), and what is on the stack when the lane asks it and
    when the full audit does (a file, or a function: the reports' own)."""

    module: str
    name: str
    formats: tuple[int, ...] = (1, 2)
    lane: str = "lane.py"
    full: str = "session.py"


RULES = [
    Rule("referee.audit.fast", "as_written"),  # the stakes in a settlement's key (settlement_key's, seats.py's)
    Rule("referee.audit.compare", "fields_agree"),  # P004 and every field a ruling decides (V002, P001-P007, K001-K003)
    Rule("referee.audit.players", "follows"),  # P005: the balance chain
    Rule("referee.audit.players", "carry"),  # the chain moved on by a seat that follows
    Rule("referee.audit.players", "count_book"),  # a clean seat booked in the ledgers
    Rule("referee.audit.wallet", "wallet_right", (2,)),  # W001-W004: a seat's wallet
    Rule("referee.audit.stakes", "stake_holds"),  # S002: fixed stakes
    Rule("referee.audit.stakes", "keep_stake"),  # a seat at the player's stake counted
    Rule("referee.audit.stakes", "funds_short"),  # S007: a Call needs funds
    Rule("referee.audit.duplicates", "seat_once", (2,), full="intake_table.py"),  # G002: seated twice in a game
    # a number in order (S003, S004, S009 say nothing): a round's lane, a game's
    Rule("referee.audit.ledger", "in_order", (1,), lane="lane_round"),
    Rule("referee.audit.ledger", "in_order", (2,), lane="commit_game"),
    # what the table paid, as a seat's bottom line says: the JSON report's clean seat and a ruled one
    Rule("referee.audit.owed", "paid_by_lines", (2,), lane="_templated", full="_ruled_seat"),
]


def _spy(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> Counter[str]:
    """Every binding of ``module.name`` in the package replaced by a spy that counts, for
    each file and function, the calls made with it on the stack."""
    original: Callable[..., Any] = getattr(importlib.import_module(module), name)
    callers: Counter[str] = Counter()

    def spy(*args: Any, **kwargs: Any) -> Any:
        frame: FrameType | None = sys._getframe(1)
        seen: set[str] = set()
        while frame is not None:
            seen.update((Path(frame.f_code.co_filename).name, frame.f_code.co_name))
            frame = frame.f_back
        callers.update(seen)
        return original(*args, **kwargs)

    for loaded in list(sys.modules.values()):
        if loaded is not None and loaded.__name__.startswith("referee") and vars(loaded).get(name) is original:
            monkeypatch.setattr(loaded, name, spy)
    return callers


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A clean log of each format, under a profile that checks every stake rule (fixed
    stakes, funds for a Call), its seats with wallets and recorded balances."""
    where = tmp_path_factory.mktemp("one-rule")
    made = {1: where / "f1.jsonl", 2: where / "f2.jsonl"}
    table = ("--seats", "2-4")
    for format, extra in ((1, ()), (2, table)):
        code, _ = run("simulate", "--profile", "caribbean", "--sessions", "2", "--rounds", "60", "--seed", "11",
                      *extra, "--format", "jsonl", "--output", str(made[format]))
        assert code == 0
    return made


CASES = [(rule, format) for rule in RULES for format in rule.formats]


@pytest.mark.parametrize(("rule", "format"), CASES, ids=[f"{rule.name}-{format}" for rule, format in CASES])
def test_the_lane_and_the_full_audit_ask_the_one_rule(rule: Rule, format: int, logs: dict[int, Path],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    reports = {}
    for mode, asker in (("1", rule.lane), ("0", rule.full)):
        monkeypatch.setenv("REFEREE_FAST", mode)
        monkeypatch.setattr(fast, "_MEMOS", {})  # the lane's entries made again: each asks again
        with monkeypatch.context() as patched:
            callers = _spy(patched, rule.module, rule.name)
            code, reports[mode] = run("check", "--format", "json", "--jobs", "1", str(logs[format]))
        assert code == 0
        assert callers[asker] > 0, (mode, dict(callers))
        if mode == "0":
            assert callers["lane.py"] == 0 and callers[rule.lane] == 0
    assert reports["1"] == reports["0"]
