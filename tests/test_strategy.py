"""Exact call values and the ``optimal`` policy (issues 7 and 8)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from random import Random

import pytest

from referee import DECK, Category, evaluate, load_profile, parse_cards
from referee.rules.evaluator import rank7
from referee.rules.strategy import (
    COMPLETIONS,
    LOSE,
    NOT_QUALIFIED,
    TIE,
    WIN,
    bonus_edge,
    call_counts,
    should_call,
)
from referee.simulate import optimal_policy

from .conftest import check_json, run

VIVO = load_profile("vivo")
QUALIFIER = VIVO.dealer_qualifier.floor()


def cards(text: str) -> list[int]:
    return [int(c) for c in parse_cards(text.split())]


def brute_force(private: list[int], flop: list[int]) -> list[list[int]]:
    """Every completion evaluated one by one: the slow, obvious count."""
    counts = [[0, 0, 0, 0] for _ in range(10)]
    unseen = [c for c in range(52) if c not in private + flop]
    f1, f2, f3 = flop
    p1, p2 = private
    for turn, river in combinations(unseen, 2):
        player = rank7(p1, p2, f1, f2, f3, turn, river)
        row = counts[player >> 20]
        rest = [c for c in unseen if c != turn and c != river]
        for d1, d2 in combinations(rest, 2):
            dealer = rank7(d1, d2, f1, f2, f3, turn, river)
            if dealer < QUALIFIER:
                row[NOT_QUALIFIED] += 1
            elif player > dealer:
                row[WIN] += 1
            elif player == dealer:
                row[TIE] += 1
            else:
                row[LOSE] += 1
    return counts


@pytest.mark.parametrize("private, flop", [("Ah Kd", "7c 9s As"), ("2h 5h", "9h Jh 5c"), ("3c 3d", "3h 3s 8d")])
def test_counts_match_brute_force(private: str, flop: str) -> None:
    fast = call_counts(cards(private), cards(flop), QUALIFIER)
    assert [list(row) for row in fast.counts] == brute_force(cards(private), cards(flop))
    assert fast.total() == COMPLETIONS


def test_value_of_a_hand_that_cannot_lose_or_tie() -> None:
    """Four aces with a pair of aces on the board: the dealer always qualifies, and only a
    straight flush in clubs (30 of the completions) beats the player."""
    counts = call_counts(cards("Ac Ad"), cards("Ah As 2c"), QUALIFIER)
    assert counts.outcome(NOT_QUALIFIED) == 0 and counts.outcome(TIE) == 0
    assert counts.outcome(LOSE) == 30
    win = counts.outcome(WIN)
    assert counts.call_value(VIVO) == Fraction(win * 12 - 30 * 3, COMPLETIONS)


def test_decisions() -> None:
    assert should_call(VIVO, cards("Ah Kd"), cards("7c 9s As"))  # the worked example
    assert should_call(VIVO, cards("2c 3d"), cards("2h 8s Ks"))  # any pair calls
    assert not should_call(VIVO, cards("2c 7d"), cards("Jh Qs 4c"))


def test_bonus_edge_only_when_a_fold_forfeits_a_won_bonus() -> None:
    aa = load_profile("bonus-aa")
    assert aa.bonus is not None and aa.bonus.fold_forfeits
    pair_aces = evaluate(parse_cards(["Ah", "Ad", "7c", "9s", "2d"])).value
    odds = Fraction(aa.bonus.paytable[Category.PAIR])
    assert bonus_edge(aa, pair_aces, Fraction(1), Fraction(1)) == odds + 1
    pair_kings = evaluate(parse_cards(["Kh", "Kd", "7c", "9s", "2d"])).value
    assert bonus_edge(aa, pair_kings, Fraction(1), Fraction(1)) == 0
    assert bonus_edge(load_profile("bonus-100"), pair_aces, Fraction(1), Fraction(1)) == 0


@pytest.mark.slow
def test_optimal_call_rate() -> None:
    """The optimal call rate is 81.991% (RULES.md). 20,000 random decisions (read from the
    shipped decision table): binomial standard error 0.27 points; tolerance 4 sigma."""
    rng = Random(7)
    calls = 0
    n = 20_000
    for _ in range(n):
        dealt = [DECK[i] for i in rng.sample(range(52), 5)]
        calls += optimal_policy(VIVO, dealt[:2], dealt[2:], Decimal(1), Decimal(0))
    p = 0.81991
    sigma = (p * (1 - p) / n) ** 0.5
    assert abs(calls / n - p) < 4 * sigma


@pytest.mark.slow
@pytest.mark.parametrize("name", ["vivo", "caribbean", "bonus-100"])
def test_shipped_decision_table_agrees_with_the_exact_value(name: str) -> None:
    """The table the PAR engine wrote and the pure-Python exact value decide alike."""
    from referee.analysis.sheet import optimal_table

    profile = load_profile(name)
    table = optimal_table(profile)
    assert table is not None
    rng = Random(name)
    for _ in range(12):
        dealt = rng.sample(range(52), 5)
        assert table.calls(dealt[:2], dealt[2:]) == should_call(profile, dealt[:2], dealt[2:])


@pytest.mark.parametrize("profile", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
def test_optimal_simulated_logs_are_clean(tmp_path: Path, profile: str) -> None:
    out = tmp_path / "sim.yaml"
    bonus = ("--bonus", "1") if profile.startswith("bonus") else ()
    code, _ = run("simulate", "--profile", profile, "--policy", "optimal", "--rounds", "6", "--seed", "3",
                  *bonus, "--output", str(out))
    assert code == 0
    code, report = check_json(str(out))
    assert code == 0 and report["summary"]["counted_rounds"] == 6
