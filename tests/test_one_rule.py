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
from typing import Any

import pytest

from referee.audit import fast

from .conftest import run

#: Each rule's function: its module and name (and the formats whose logs ask it: a
#: format-1 round has no wallet; and the full audit's module that asks it, when not
#: ``session.py``).
RULES: list[tuple[str, str] | tuple[str, str, tuple[int, ...]] | tuple[str, str, tuple[int, ...], str]] = [
    ("referee.audit.fast", "as_written"),  # the stakes in a settlement's key (fast.settlement_key's, seats.py's)
    ("referee.audit.compare", "fields_agree"),  # P004 and every field a ruling decides (V002, P001-P007, K001-K003)
    ("referee.audit.players", "follows"),  # P005: the balance chain
    ("referee.audit.players", "carry"),  # the chain moved on by a seat that follows
    ("referee.audit.wallet", "wallet_right", (2,)),  # W001-W004: a seat's wallet
    ("referee.audit.stakes", "stake_holds"),  # S002: fixed stakes
    ("referee.audit.stakes", "keep_stake"),  # a seat at the player's stake counted
    ("referee.audit.stakes", "funds_short"),  # S007: a Call needs funds
    ("referee.audit.duplicates", "seat_once", (2,), "intake_table.py"),  # G002: a player seated twice in a game
]


def _spy(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> Counter[str]:
    """Every binding of ``module.name`` in the package replaced by a spy that counts, for
    each file of the package, the calls made with it on the stack."""
    original: Callable[..., Any] = getattr(importlib.import_module(module), name)
    callers: Counter[str] = Counter()

    def spy(*args: Any, **kwargs: Any) -> Any:
        frame: FrameType | None = sys._getframe(1)
        files = set()
        while frame is not None:
            files.add(Path(frame.f_code.co_filename).name)
            frame = frame.f_back
        callers.update(files)
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


CASES = [(rule[0], rule[1], format, rule[3] if len(rule) == 4 else "session.py")
         for rule in RULES for format in (rule[2] if len(rule) >= 3 else (1, 2))]


@pytest.mark.parametrize(("module", "name", "format", "full"), CASES, ids=[f"{case[1]}-{case[2]}" for case in CASES])
def test_the_lane_and_the_full_audit_ask_the_one_rule(module: str, name: str, format: int, full: str,
                                                      logs: dict[int, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    reports = {}
    for mode, asker in (("1", "lane.py"), ("0", full)):
        monkeypatch.setenv("REFEREE_FAST", mode)
        monkeypatch.setattr(fast, "_MEMOS", {})  # the lane's entries made again: each asks again
        with monkeypatch.context() as patched:
            callers = _spy(patched, module, name)
            code, reports[mode] = run("check", "--format", "json", "--jobs", "1", str(logs[format]))
        assert code == 0
        assert callers[asker] > 0, (mode, dict(callers))
        if mode == "0":
            assert callers["lane.py"] == 0
    assert reports["1"] == reports["0"]
