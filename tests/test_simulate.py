"""`referee simulate` (issue 7)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from .conftest import check_json, run


@pytest.mark.parametrize("profile", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
@pytest.mark.parametrize("policy", ["always-call", "simple"])
def test_simulated_logs_are_clean(tmp_path: Path, profile: str, policy: str) -> None:
    bonus = ("--bonus", "1") if profile.startswith("bonus") else ()
    for fmt in ("yaml", "json", "jsonl"):
        out = tmp_path / f"sim.{fmt}"
        code, _ = run("simulate", "--profile", profile, "--policy", policy, "--sessions", "2", "--rounds", "30",
                      "--seed", "11", *bonus, "--format", fmt, "--output", str(out))
        assert code == 0
        code, report = check_json(str(out))
        assert code == 0 and report["summary"]["findings"] == 0 and report["summary"]["counted_rounds"] == 60


def test_faults_are_all_found_and_nothing_else(tmp_path: Path) -> None:
    log, manifest = tmp_path / "f.jsonl", tmp_path / "m.json"
    code, _ = run("simulate", "--profile", "bonus-aa", "--sessions", "10", "--rounds", "40", "--seed", "5",
                  "--bonus", "1", "--faults", "0.15", "--faults-manifest", str(manifest), "--format", "jsonl",
                  "--output", str(log))
    assert code == 0
    injected = json.loads(manifest.read_text())
    assert len({i["kind"] for i in injected}) >= 12  # tests/test_faults.py covers every kind
    _, report = check_json(str(log))
    everything = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    found = Counter((f["session"], f["round"], f["code"], f["line"]) for f in everything)
    expected = Counter((None if i["kind"] == "broken_session_line" else i["session"], i["round"], code, i["line"])
                       for i in injected for code in i["codes"])
    assert found == expected


def test_reproducible(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.yaml"
        run("simulate", "--seed", "99", "--rounds", "15", "--faults", "0.2", "--output", str(out))
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_always_call_dealer_qualification_rate(tmp_path: Path) -> None:
    """With always-call the dealer's cards are dealt every round: the rate is 75.777% (RULES.md).

    20,000 rounds; binomial standard error 0.303 percentage points; tolerance 4 sigma.
    """
    out = tmp_path / "s.jsonl"
    run("simulate", "--sessions", "20", "--rounds", "1000", "--seed", "2026", "--format", "jsonl",
        "--output", str(out))
    _, report = check_json(str(out))
    rounds = [r for s in report["sessions"] for r in s["rounds"]]
    rate = sum(r["dealer_qualified"] for r in rounds) / len(rounds)
    p = 101_378_140 / 133_784_560
    sigma = (p * (1 - p) / len(rounds)) ** 0.5
    assert abs(rate - p) < 4 * sigma


@pytest.mark.parametrize("option, value", [("--ante", "0.001"), ("--ante", "0.015"), ("--bonus", "0.005")])
def test_a_stake_off_the_increment_is_refused(tmp_path: Path, option: str, value: str) -> None:
    """The simulator never writes a log its own audit rejects (S008 every round)."""
    out = tmp_path / "s.yaml"
    code, text = run("simulate", "--profile", "bonus-aa", option, value, "--output", str(out))
    assert code == 2 and "stake increment 0.01" in text and not out.exists()


def test_a_stake_on_the_increment_is_dealt(tmp_path: Path) -> None:
    out = tmp_path / "s.yaml"
    assert run("simulate", "--ante", "0.05", "--rounds", "3", "--output", str(out))[0] == 0
    assert check_json(str(out))[0] == 0
