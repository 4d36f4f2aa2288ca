"""`referee par` (issue 9): the exact PAR sheet, checked three ways.

1. On a reduced deck (12 cards: 9 to A in two suits, 1,663,200 deals) the NumPy engine
   agrees count for count with ``solve_pure``, which plays every deal one by one, for
   every built-in profile (so also for `caribbean` and `bonus-100`, whose figures no
   one has published).
2. On the full deck, random flops agree with the pure-Python exact call value
   (itself checked against a one-by-one enumeration in test_strategy).
3. The stored sheets hold the published figures (`vivo`: -600,123,513,880 Ante units
   over 27,813,810,024,000 cases; bonus house edges 6.258% and 6.402%).
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from referee import load_profile
from referee.analysis.par import FULL_DECK, FlopSolver, Tables, solve, solve_pure
from referee.analysis.sheet import bonus_sheet, main_sheet, stored_sheet
from referee.report.par import render
from referee.rules.evaluator import CATEGORY_NAMES
from referee.rules.strategy import Payoffs, call_counts

from .conftest import run

SMALL_DECK = tuple(r * 4 + s for r in range(7, 13) for s in (0, 1))


@pytest.mark.parametrize("name", ["vivo", "caribbean", "bonus-100"])
def test_reduced_deck_matches_brute_force(name: str) -> None:
    fast = solve(load_profile(name), SMALL_DECK)
    slow = solve_pure(load_profile(name), SMALL_DECK)
    assert fast.cases == slow.cases == 66 * 120 * 21 * 10
    assert (fast.fold, fast.situations, fast.calling_situations) == (slow.fold, slow.situations,
                                                                     slow.calling_situations)
    assert fast.counts == slow.counts
    assert (fast.indifferent_situations, fast.indifferent_counts) == (slow.indifferent_situations,
                                                                      slow.indifferent_counts)


def test_full_deck_flops_match_the_pure_call_value() -> None:
    profile = load_profile("vivo")
    q = profile.dealer_qualifier.floor()
    solver = FlopSolver(FULL_DECK, Payoffs.of(profile), q, Tables())
    rng = random.Random(11)
    for _ in range(2):
        flop = tuple(sorted(rng.sample(range(52), 3)))
        pairs, counts, completions = solver.flop_counts(flop)
        assert completions == 1_070_190 and counts.sum() == len(pairs) * completions
        for k in rng.sample(range(len(pairs)), 3):
            reference = call_counts(list(pairs[k]), list(flop), q)
            assert counts[k].tolist() == [list(row) for row in reference.counts]


def test_stored_vivo_sheet_has_the_published_figures() -> None:
    sheet = stored_sheet("vivo")
    assert sheet is not None
    main = sheet["main"]
    assert main["cases"] == 27_813_810_024_000
    assert main["net_ante_units"] == "-600123513880"
    assert round(main["house_edge"] * 100, 4) == 2.1576
    assert round(main["element_of_risk"] * 100, 3) == 0.817
    assert round(main["call_rate"]["probability"] * 100, 3) == 81.991
    # The published solver calls where calling is worth exactly what folding is; we fold
    # there ("call exactly when calling beats folding"): same net, and the published
    # outcome probabilities are those with the indifferent situations called.
    published = {"fold": 0.180093, "dealer_not_qualified": 0.205545, "win": 0.272148, "tie": 0.024398,
                 "lose": 0.317817}
    indifferent = main["indifferent"]
    assert indifferent["situations"] > 0
    for outcome, probability in published.items():
        assert round(indifferent["outcomes_if_called"][outcome]["probability"], 6) == probability, outcome
    assert sum(o["count"] for o in main["outcomes"].values()) == main["cases"]


@pytest.mark.parametrize("name, edge", [("bonus-100", 6.258), ("bonus-aa", 6.402)])
def test_bonus_house_edges(name: str, edge: float) -> None:
    sheet = bonus_sheet(load_profile(name))
    assert sheet is not None and sheet["cases"] == 2_598_960
    assert round(sheet["house_edge"] * 100, 3) == edge
    stored = stored_sheet(name)
    assert stored is not None and stored["bonus"] == sheet


def test_main_sheet_arithmetic() -> None:
    """The sheet's figures are the totals' exact ratios (a small deck keeps it quick)."""
    profile = load_profile("vivo")
    totals = solve(profile, SMALL_DECK)
    sheet = main_sheet(profile, totals)
    assert sum(row["cases"] for row in sheet["ante_table"]) == totals.cases - totals.fold
    outcomes = sheet["outcomes"]
    assert sum(o["count"] for o in outcomes.values()) == totals.cases
    assert [row["category"] for row in sheet["ante_table"]] == list(reversed(CATEGORY_NAMES))
    net = Fraction(sheet["net_ante_units"])
    assert sheet["house_edge"] == pytest.approx(float(-net / totals.cases))


def test_par_command_stored_and_differences() -> None:
    import json

    from referee.analysis.sheet import differences

    from .conftest import run

    code, out = run("par", "--profile", "vivo", "--stored")
    assert code == 0 and "house edge (per Ante)          2.1576%" in out and "-600,123,513,880" in out
    assert "indifferent situations         36" in out
    # The text sheet shows both conventions; with the indifferent situations called, the
    # published solver's outcome probabilities (RULES.md) to 6 places, with folding ours.
    rows = {line[:22].strip(): line[22:].split() for line in out.splitlines()
            if line[:22].strip() in ("fold", "dealer not qualified", "win", "tie", "lose")}
    published = {"fold": "0.180093", "dealer not qualified": "0.205545", "win": "0.272148", "tie": "0.024398",
                 "lose": "0.317817"}
    assert {name: row[-1] for name, row in rows.items()} == published
    assert (rows["fold"][1], rows["lose"][1]) == ("0.180094", "0.317816")
    code, out = run("par", "--profile", "bonus-aa", "--stored", "--format", "json")
    sheet = json.loads(out)
    assert code == 0 and sheet["bonus"]["name"] == "Bonus AA"
    assert differences(sheet, sheet) == []
    changed = json.loads(out)
    changed["main"]["cases"] += 1
    assert differences(sheet, changed) == [f"main.cases: {sheet['main']['cases']} != {sheet['main']['cases'] + 1}"]
    code, out = run("par", "--profile", "nope", "--stored")
    assert code == 2


def test_shipped_decisions_only_for_the_same_whole_payout_table() -> None:
    """'Same game as a built-in' compares the whole payout table as settle pays it: a
    profile named like a built-in but paying one line differently gets no stored table;
    one that differs only where money is not at stake (words, rounds) gets it."""
    from decimal import Decimal

    from referee.analysis.sheet import optimal_table
    from referee.rules.category import Category

    vivo = load_profile("vivo")
    assert optimal_table(vivo) is not None
    same_game = vivo.model_copy(update={"rounds_agreed": 10, "rules": {}, "description": "another house"})
    assert optimal_table(same_game) is optimal_table(vivo)
    richer_flush = vivo.model_copy(update={"ante_paytable": {**vivo.ante_paytable, Category.FLUSH: Decimal(3)}})
    returned_call = vivo.model_copy(update={"call_win_odds": Decimal(0)})
    even_money = load_profile("caribbean").ante_when_not_qualified
    caribbean_rule = vivo.model_copy(update={"ante_when_not_qualified": even_money})
    for other in (richer_flush, returned_call, caribbean_rule):
        assert optimal_table(other) is None


def test_payoffs_are_the_settlement_terms() -> None:
    """The engines' payoffs come from payout.main_terms, the terms settle applies."""
    caribbean = Payoffs.of(load_profile("caribbean"))
    assert {row[0] for row in caribbean.table} == {caribbean.scale}  # even money, any hand
    vivo = Payoffs.of(load_profile("vivo"))
    assert vivo.table[9] == (100, 102, 0, -3) and vivo.fold == -1 and vivo.scale == 1
    assert Payoffs.of(load_profile("bonus-100")).table[5][1] == 2  # flush 2:1, the Call returned


@pytest.mark.parametrize("name", ["vivo", "bonus-aa", "caribbean"])
def test_stored_sheet_text_groups_every_count(name: str) -> None:
    """Issue 27: every count of the text sheet has its thousands grouped with commas, the
    exact nets and wagers also ("-600,123,513,880 Ante units", not "-600123513880" beside
    "27,813,810,024,000 cases"); only ``--format json`` keeps the bare figures."""
    code, out = run("par", "--stored", "--profile", name)
    assert code == 0
    ungrouped = re.findall(r"(?<![\d.,])\d{5,}(?![\d.])", out)
    assert ungrouped == [], ungrouped
    sheet = stored_sheet(name)
    assert sheet is not None
    assert f"({_grouped(sheet['main']['net_ante_units'])} Ante units over" in out
    assert f"(over {_grouped(sheet['main']['wagered_ante_units'])} Ante units wagered)" in out
    if sheet.get("bonus"):
        assert f"({_grouped(sheet['bonus']['net_stake_units'])} stake units over 2,598,960" in out


def _grouped(exact: str) -> str:
    return "/".join(f"{int(part):,}" for part in exact.split("/"))


def test_a_fractional_net_is_grouped_on_both_sides() -> None:
    sheet = stored_sheet("vivo")
    assert sheet is not None
    sheet["main"]["net_ante_units"] = "-1234567/20"
    assert "(-1,234,567/20 Ante units over 27,813,810,024,000 cases)" in render(sheet)
