"""`referee stats` (issue 8): distributions, returns, fairness tests, decision audit."""

from __future__ import annotations

import json
import math
from pathlib import Path
from random import Random
from typing import Any

import pytest

from referee import DECK
from referee.analysis.distributions import chi2_sf, gamma_q, z_for
from referee.rules.money import dumps

from .conftest import check_json, run


def even_dof_sf(x: float, dof: int) -> float:
    """Closed form for even degrees of freedom: e^(-x/2) * sum_{i<k} (x/2)^i / i!."""
    half = x / 2
    return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(dof // 2))


@pytest.mark.parametrize("dof", [2, 4, 10, 50, 52])
def test_chi_square_against_the_closed_form(dof: int) -> None:
    for x in (0.1, 1.0, 5.0, 20.0, 51.0, 68.0, 90.0, 150.0):
        assert chi2_sf(x, dof) == pytest.approx(even_dof_sf(x, dof), rel=1e-10, abs=1e-300)


def test_chi_square_critical_values() -> None:
    """Published critical values for 51 degrees of freedom."""
    assert chi2_sf(68.669, 51) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(77.386, 51) == pytest.approx(0.01, abs=1e-4)
    assert chi2_sf(0, 51) == 1.0
    assert gamma_q(1.0, 2.0) == pytest.approx(math.exp(-2.0))
    assert z_for(0.99) == pytest.approx(2.5758, abs=1e-4) and z_for(0.95) == pytest.approx(1.96, abs=1e-3)


def simulated(tmp_path: Path, rounds: int, policy: str = "always-call", seed: str = "21") -> str:
    out = tmp_path / "s.jsonl"
    code, _ = run("simulate", "--sessions", "1", "--rounds", str(rounds), "--seed", seed, "--policy", policy,
                  "--format", "jsonl", "--output", str(out))
    assert code == 0
    return str(out)


def stats_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out = run("stats", "--format", "json", *args)
    return code, json.loads(out)


def test_fair_deal_passes_and_returns_match_the_ledger(tmp_path: Path) -> None:
    log = simulated(tmp_path, 3000)
    code, doc = stats_json("--no-decisions", log)
    positions = doc["fairness"]["positions"]
    assert [p["position"] for p in positions][:2] == ["player 1", "player 2"]
    assert all(p["enough"] and p["dof"] == 51 and p["p_value"] > 0.01 for p in positions)
    assert doc["fairness"]["dealer_qualification"]["n"] == 3000
    _, report = check_json(log)
    ledger = report["sessions"][0]["ledger"]
    returns = doc["returns"][0]
    assert returns["net_per_ante"]["mean"] == pytest.approx(ledger["net"] / 3000)
    assert returns["rtp"]["mean"] == pytest.approx(ledger["returned"] / ledger["staked"])
    assert round(returns["optimal"]["net_per_ante"], 6) == -0.021576  # from the shipped PAR sheet
    assert code in (0, 1)


def test_a_rigged_deck_is_flagged(tmp_path: Path) -> None:
    """The player's first card is an ace four times in five: position 1 fails."""
    rng = Random(5)
    lines = [dumps({"session": {"id": "rigged", "rounds_agreed": 3000}})]
    for number in range(1, 3001):
        order = rng.sample(range(52), 9)
        if rng.random() < 0.8:
            ace = rng.choice([48, 49, 50, 51])
            order = [ace, *[c for c in order if c != ace][:8]]
        cards = [str(DECK[i]) for i in order]
        lines.append(dumps({"round": number, "ante": 1, "player": cards[:2], "flop": cards[2:5],
                            "decision": "call", "turn": cards[5], "river": cards[6], "dealer": cards[7:9]}))
    log = tmp_path / "rigged.jsonl"
    log.write_text("\n".join(lines) + "\n")
    code, doc = stats_json("--no-decisions", str(log))
    first = doc["fairness"]["positions"][0]
    assert first["position"] == "player 1" and first["p_value"] < 1e-12
    assert code == 1
    _, text = run("stats", "--no-decisions", str(log))
    assert "SUSPECT" in text


def test_small_samples_say_so(tmp_path: Path) -> None:
    code, doc = stats_json("--no-decisions", simulated(tmp_path, 40))
    assert not any(p["enough"] for p in doc["fairness"]["positions"]) and code == 0
    _, text = run("stats", "--no-decisions", simulated(tmp_path, 40))
    assert "sample too small to test" in text


def test_tests_without_a_basis_give_one_reason(tmp_path: Path) -> None:
    """Calls that depend on the cards, decisions not valued (issue 27): the category and
    qualification tests say why they are not run, once, not also "sample too small to
    test" (142 rounds are not too few) and not an expectation of 0 or "--decisions" as
    the fix (the default, which --no-decisions turned off)."""
    code, text = run("stats", "--no-decisions", simulated(tmp_path, 200, "simple"))
    (category,) = [line for line in text.splitlines() if line.startswith("Player's final category")]
    (qualification,) = [line for line in text.splitlines() if line.startswith("Dealer qualification")]
    reason = "not tested: the calls depend on the cards and the decisions were not valued (--no-decisions)"
    assert category.endswith(f"called rounds): {reason}")
    assert qualification.endswith(f"%); {reason}")
    for line in (category, qualification):
        assert "too small" not in line and "expected" not in line and "(--decisions)" not in line
    assert code == 0


def test_decision_audit(tmp_path: Path) -> None:
    log = simulated(tmp_path, 12, "always-call", "3")
    code, doc = stats_json("--jobs", "2", log)
    decisions = doc["decisions"]
    assert decisions["decisions"] == 12 and decisions["call_rate"] == 1.0
    for m in decisions["mistakes"]:  # always-call only errs by calling a hand worth less than -1
        assert m["decision"] == "call" and m["best"] == "fold" and m["call_value"] < -1
        assert m["loss_per_ante"] == pytest.approx(-1 - m["call_value"])
    total = sum(m["loss"] for m in decisions["mistakes"])
    assert sum(decisions["cost_by_session"].values()) == pytest.approx(total)
    assert decisions["optimal_call_rate"] == pytest.approx(1 - len(decisions["mistakes"]) / 12)
    q = doc["fairness"]["dealer_qualification"]
    assert q["exact_conditional"] and 0 < q["expected"] < 12
    expected = doc["returns"][0]["expected_from_decisions"]
    assert -3 < expected < 3
    assert code in (0, 1)


@pytest.mark.slow
def test_worked_example_decision_is_a_correct_call() -> None:
    """§09: A♥ K♦ with flop A♠ 7♦ 4♣ calls, and calling is right, with its exact value."""
    from referee import load_profile, parse_cards
    from referee.rules.strategy import call_counts

    from .conftest import SAMPLES

    _, doc = stats_json("--jobs", "2", str(SAMPLES / "clean.yaml"))
    first = next(d for d in doc["decisions"]["all"] if d["round"] == 1)
    vivo = load_profile("vivo")
    cards = [int(c) for c in parse_cards(["Ah", "Kd", "As", "7d", "4c"])]
    exact = call_counts(cards[:2], cards[2:], vivo.dealer_qualifier.floor()).call_value(vivo)
    assert first["cards"] == "Ah Kd As 7d 4c" and first["decision"] == first["best"] == "call"
    assert first["loss"] == 0 and first["call_value"] == pytest.approx(float(exact)) and exact > 1
    assert not any(m["round"] == 1 for m in doc["decisions"]["mistakes"])
    _, text = run("stats", "--jobs", "2", str(SAMPLES / "clean.yaml"))
    assert "Decisions: 20 valued exactly" in text


@pytest.mark.slow
def test_optimal_play_200000_rounds(tmp_path: Path) -> None:
    """200,000 vivo rounds of optimal play (read from the shipped decision table): the
    observed return's 99% interval holds the exact house edge, and no fairness test
    fails at 1% (called hands compared with the PAR sheet's figures for optimal play)."""
    log = tmp_path / "optimal.jsonl"
    code, _ = run("simulate", "--policy", "optimal", "--sessions", "20", "--rounds", "10000", "--seed", "9",
                  "--format", "jsonl", "--output", str(log))
    assert code == 0
    code, doc = stats_json("--no-decisions", "--confidence", "0.99", str(log))
    returns = doc["returns"][0]
    interval = returns["net_per_ante"]
    assert interval["n"] == 200_000
    assert interval["low"] <= returns["optimal"]["net_per_ante"] <= interval["high"]
    assert returns["flags"] == []
    fairness = doc["fairness"]
    assert fairness["categories"]["basis"] == fairness["dealer_qualification"]["basis"] == "optimal"
    for test in [*fairness["positions"], fairness["categories"], fairness["dealer_qualification"]]:
        assert test["enough"] and test["p_value"] >= 0.01, test
    assert code == 0


def test_decisions_of_a_built_in_profile_are_looked_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: nothing is counted or cached for a built-in profile's decisions (the
    shipped table holds them), and nothing is said on stderr for work this short."""
    from click.testing import CliRunner

    from referee.cli import main

    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(main, ["stats", "--format", "json", simulated(tmp_path, 30, "simple", "4")])
    assert result.exit_code in (0, 1) and result.stderr == ""
    assert json.loads(result.stdout)["decisions"]["decisions"] == 30
    assert not (tmp_path / "cache").exists()


@pytest.mark.slow
def test_another_qualifier_is_counted_once_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile whose dealer qualifies otherwise: its flop classes are counted (stderr
    says so, and where they are kept), then read back; the figures are the same."""
    import yaml
    from click.testing import CliRunner

    from referee.cli import main

    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    data = yaml.safe_load((Path(__file__).parent.parent / "referee" / "data" / "profiles" / "vivo.yaml").read_text())
    data.update(name="strict", dealer_qualifier={"category": "pair", "rank": "8"})
    profile = tmp_path / "strict.yaml"
    profile.write_text(yaml.safe_dump(data))
    log = simulated(tmp_path, 4, "simple", "6")
    first = CliRunner().invoke(main, ["stats", "--format", "json", "--jobs", "1", "--profile", str(profile), log])
    assert "referee: stats: counting 4 flop classes" in first.stderr and str(tmp_path / "cache") in first.stderr
    again = CliRunner().invoke(main, ["stats", "--format", "json", "--profile", str(profile), log])
    assert again.stderr == "" and json.loads(again.stdout) == json.loads(first.stdout)
    assert json.loads(first.stdout)["decisions"]["decisions"] == 4
