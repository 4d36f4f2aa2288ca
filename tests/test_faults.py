"""The systemic proof of issue 15: simulated faults are found exactly, and nothing else.

``simulate --faults`` writes a manifest of every fault it injected and the finding it
must give; the audit of the log must report exactly those findings, fault by fault
(session, round, code, and for JSON Lines the line), with nothing anywhere else:
adjacent faults included, at 1%, 10% and 30%, under every built-in profile, in YAML
and JSON Lines, over several seeds.
"""

from __future__ import annotations

import io
import json
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.models.written import InjectedFault
from referee.profiles import resolve_profile
from referee.simulate import FAULTS, Settings, write

from .conftest import check_json

PROFILES = ("vivo", "caribbean", "bonus-aa", "bonus-100")
RATES = (0.01, 0.1, 0.3)
SEEDS = (1, 2)
Key = tuple[Any, ...]
TOTALS: Counter[str] = Counter()


def simulate_and_check(tmp_path: Path, profile: str, rate: float, seed: int, fmt: str,
                       sessions: int = 6, rounds: int = 40) -> tuple[Counter[Key], Counter[Key], list[InjectedFault]]:
    """(findings reported, findings the manifest calls for, the manifest)."""
    settings = Settings(resolve_profile(profile).profile, sessions, rounds, seed, bonus=Decimal(1), faults=rate)
    buffer = io.StringIO()
    write(settings, fmt, buffer)
    path = tmp_path / f"{profile}-{rate}-{seed}.{fmt}"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    manifest = [i.as_dict() for i in settings.manifest]
    _, report = check_json(str(path))
    with_line = fmt == "jsonl"
    found: Counter[Key] = Counter()
    for f in [f for s in report["sessions"] for f in s["findings"]] + report["problems"]:
        found[(f["session"], f["round"], f["code"]) + ((f["line"],) if with_line else ())] += 1
    expected: Counter[Key] = Counter()
    for fault in manifest:
        session = None if fault["kind"] == "broken_session_line" else fault["session"]
        for code in fault["codes"]:
            expected[(session, fault["round"], code) + ((fault["line"],) if with_line else ())] += 1
    TOTALS["rounds"] += report["summary"]["rounds"]
    TOTALS["findings"] += sum(found.values())
    TOTALS["faults"] += len(manifest)
    return found, expected, manifest


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("rate", RATES)
def test_findings_equal_the_manifest_exactly(tmp_path: Path, profile: str, rate: float) -> None:
    for seed in SEEDS:
        for fmt in ("jsonl", "yaml"):
            found, expected, _ = simulate_and_check(tmp_path, profile, rate, seed, fmt)
            assert found == expected, (seed, fmt, found - expected, expected - found)


def test_every_fault_kind_is_drawn_and_found(tmp_path: Path) -> None:
    """At 30% over a longer log every kind appears, adjacent faults among them."""
    start = time.perf_counter()
    kinds: Counter[str] = Counter()
    adjacent = 0
    for profile in PROFILES:
        found, expected, manifest = simulate_and_check(tmp_path, profile, 0.3, 7, "jsonl", sessions=8, rounds=60)
        assert found == expected, (profile, found - expected, expected - found)
        kinds.update(f["kind"] for f in manifest)
        ordinals = {(f["session"], f["ordinal"]) for f in manifest}
        adjacent += sum((s, o + 1) in ordinals for s, o in ordinals)
    assert set(kinds) == set(FAULTS), set(FAULTS) - set(kinds)
    assert adjacent > 50
    print(f"\n{TOTALS['rounds']:,} rounds, {TOTALS['faults']:,} faults, {TOTALS['findings']:,} findings "
          f"checked so far; this test {time.perf_counter() - start:.1f} s")


def test_the_manifest_says_which_codes_and_lines(tmp_path: Path) -> None:
    _, _, manifest = simulate_and_check(tmp_path, "vivo", 0.3, 3, "jsonl")
    lines = (tmp_path / "vivo-0.3-3.jsonl").read_text(encoding="utf-8").splitlines()
    for fault in manifest:
        assert fault["codes"] == [FAULTS[fault["kind"]]] and fault["line"] is not None
        text = lines[fault["line"] - 1]
        if fault["round"] is not None:
            assert text.startswith(f'{{"round":{fault["round"]},')
    assert json.loads(json.dumps(manifest)) == manifest


@pytest.mark.parametrize(("paid", "hidden"), [(-5, {"wrong_balance"}), (-7, {"balance_slip"}), (-3, set()),
                                              (0, set())])
def test_no_balance_fault_where_a_kept_anchor_explains_it(paid: int, hidden: set[str]) -> None:
    """After a void deal the table paid (here: recorded as a loss of ``paid``), the audit
    keeps the rules' chain from before beside the table's (docs/ledger.md): a wrong
    balance of the size of that payment reads as the table correcting itself, so the
    simulator draws none there. The audit itself, fed the same nets, agrees."""
    from random import Random

    from referee.audit.ledger import advance, judge
    from referee.simulate import BALANCE_STEPS, _Session

    session = _Session(Settings(resolve_profile("vivo").profile), Random(0), "s")
    session.last_net = Decimal(3)
    session._chain(None, {"recorded": {"net": 3, "balance": 3}})
    session._chain("void_as_loss", {"recorded": {"net": paid, "balance": 3 + paid}})
    assert session._hidden_steps() == hidden
    for kind, step in BALANCE_STEPS.items():  # a clean round (net 3), then a balance off by the step
        seen = judge(advance(session.chain, Decimal(3), Decimal(3)), 3 + paid + 3 + step) is not None
        assert seen == (kind not in hidden)
