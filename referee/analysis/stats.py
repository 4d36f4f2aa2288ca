"""``referee stats``: return to player, fairness of the deal, decisions; as plain data.

Every test says what it compares and when its sample is too small to mean anything
(an expected count under 5 in a chi-square cell; fewer than 30 rounds for an
interval). Where decisions have been valued, the expectations are exact for the play
that happened: the player's final category and the dealer's qualification are only
seen when the player calls, and which hands call depends on the cards, so the exact
conditional probabilities of each called round are summed instead of assuming the
unconditional ones (which hold only for a player who always calls).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..profiles import ProfileOrigin
from ..rules.evaluator import CATEGORY_NAMES
from ..rules.hands import evaluate
from ..rules.strategy import bonus_edge
from .decisions import Situation, Valued
from .distributions import chi2_sf, two_sided_p, z_for
from .observe import POSITIONS, Observations, Observed
from .reference import DEALER_QUALIFIES, SEVEN_CARD_COUNTS, SEVEN_CARD_HANDS
from .reference import optimal as reference_optimal

MIN_EXPECTED = 5.0
MIN_ROUNDS = 30


@dataclass(slots=True)
class Inputs:
    observations: Observations
    values: dict[Situation, Valued] | None
    confidence: float


def interval(samples: list[float], confidence: float) -> dict[str, Any]:
    n = len(samples)
    if n == 0:
        return {"n": 0, "mean": None, "low": None, "high": None, "sd": None, "enough": False}
    mean = math.fsum(samples) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in samples) / (n - 1)) if n > 1 else 0.0
    half = z_for(confidence) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "low": mean - half, "high": mean + half, "sd": sd, "enough": n >= MIN_ROUNDS}


def returns(rounds: list[Observed], values: dict[Situation, Valued] | None, confidence: float) -> dict[str, Any]:
    per_ante = [float(r.main_net / r.ante) for r in rounds]
    staked = math.fsum(float(r.main_staked) for r in rounds)
    net = math.fsum(float(r.main_net) for r in rounds)
    ratio = net / staked if staked else None
    result: dict[str, Any] = {"rounds": len(rounds), "net_per_ante": interval(per_ante, confidence)}
    if ratio is not None and len(rounds) > 1:
        mean_staked = staked / len(rounds)
        residuals = [float(r.main_net) - ratio * float(r.main_staked) for r in rounds]
        sd = math.sqrt(math.fsum(x * x for x in residuals) / (len(rounds) - 1)) / mean_staked
        half = z_for(confidence) * sd / math.sqrt(len(rounds))
        result["net_per_wagered"] = {"mean": ratio, "low": ratio - half, "high": ratio + half}
        result["rtp"] = {"mean": 1 + ratio, "low": 1 + ratio - half, "high": 1 + ratio + half}
    result["bonus_net"] = float(sum((r.bonus for r in rounds), Decimal(0)))
    observed = result["net_per_ante"]
    flags = []
    optimal = reference_optimal(rounds[0].profile) if rounds else None
    result["optimal"] = optimal
    target = optimal["net_per_ante"] if optimal else None
    if isinstance(target, float) and observed["enough"] and not observed["low"] <= target <= observed["high"]:
        flags.append(f"net per Ante {observed['mean']:+.4f}: the optimal play's {target:+.4f} is outside "
                     f"its {confidence:.0%} interval")
    if values is not None:
        expected = [float(_decision_value(r, values[(r.profile, r.known)]))
                    for r in rounds if r.known is not None]
        if expected:
            mean = math.fsum(expected) / len(expected)
            result["expected_from_decisions"] = mean
            if observed["enough"] and not observed["low"] <= mean <= observed["high"]:
                flags.append(f"net per Ante {observed['mean']:+.4f}: outside its {confidence:.0%} interval around "
                             f"the exact expectation of the decisions made, {mean:+.4f}")
    result["flags"] = flags
    return result


def _decision_value(r: Observed, v: Valued) -> Fraction:
    """Exact expected net per Ante of the decision taken (main game)."""
    return v.call_value if r.called else Fraction(-1)


def fairness(rounds: list[Observed], values: dict[Situation, Valued] | None) -> dict[str, Any]:
    basis = _basis(rounds, values)
    return {
        "positions": [_position(rounds, i) for i in range(len(POSITIONS))],
        "categories": _categories(rounds, values, basis),
        "dealer_qualification": _qualification(rounds, values, basis),
    }


@dataclass(slots=True)
class Basis:
    """What the called hands' category and qualification are compared with.

    ``exact``: each decision's exact conditional probabilities (decisions valued);
    ``optimal``: every decision was optimal play's, so the PAR sheet's figures for
    called hands hold; ``always-call``: the unconditional seven-card figures hold;
    ``none``: the calls depend on the cards in a way not known without valuing them.
    """

    name: str
    categories: list[float] | None = None
    qualifies: float | None = None


def _basis(rounds: list[Observed], values: dict[Situation, Valued] | None) -> Basis:
    if values is not None and all(r.known is not None for r in rounds):
        return Basis("exact")
    if all(r.called for r in rounds):
        return Basis("always-call", [SEVEN_CARD_COUNTS[c] / SEVEN_CARD_HANDS for c in CATEGORY_NAMES],
                     DEALER_QUALIFIES / SEVEN_CARD_HANDS)
    origins = {r.profile for r in rounds}
    if len(origins) == 1 and all(r.known is not None for r in rounds):
        figures = _optimal_figures(origins.pop(), rounds)
        if figures is not None:
            return figures
    return Basis("none")


def _optimal_figures(origin: ProfileOrigin, rounds: list[Observed]) -> Basis | None:
    from .sheet import optimal_table, stored_sheet

    profile = origin.resolve().profile
    table = optimal_table(profile)
    sheet = stored_sheet(profile.name) if table is not None else None
    if table is None or sheet is None:
        return None
    if any(table.calls(r.known[:2], r.known[2:]) != r.called for r in rounds if r.known is not None):
        return None
    rows = {row["category"]: row for row in sheet["main"]["ante_table"]}
    calls = sum(row["cases"] for row in rows.values())
    qualified = sum(row["win"] + row["tie"] + row["lose"] for row in rows.values())
    return Basis("optimal", [rows[c]["cases"] / calls for c in CATEGORY_NAMES], qualified / calls)


def _position(rounds: list[Observed], i: int) -> dict[str, Any]:
    """Chi-square of the 52 card frequencies at one dealt position (51 degrees of freedom).

    Player and flop cards are uniform over 52 in every round. The turn, river and
    dealer cards are seen only after a call, and the call depends on the five cards
    seen: each is uniform over the 47 cards unseen at the decision, so each round adds
    1/47 to the expectation of each of those.
    """
    observed = [0] * 52
    seen = 0
    known_counts = [0] * 52  # how often each card was among the five seen, in rounds showing this position
    unknown = 0  # rounds showing this position whose five cards were not all seen
    for r in rounds:
        card = r.cards[i]
        if card is None:
            continue
        observed[card] += 1
        seen += 1
        if i >= 5:
            known = r.known
            if known is None:
                unknown += 1
            else:
                for c in known:
                    known_counts[c] += 1
    if i < 5:
        expected = [seen / 52] * 52
    else:
        counted = seen - unknown
        expected = [(counted - known_counts[c]) / 47 + unknown / 52 for c in range(52)]
    return {"position": POSITIONS[i], **_chi_square(observed, expected)}


def _chi_square(observed: list[int], expected: list[float]) -> dict[str, Any]:
    n = sum(observed)
    cells = [(o, e) for o, e in zip(observed, expected, strict=True) if e > 0]
    smallest = min((e for _, e in cells), default=0.0)
    enough = n > 0 and smallest >= MIN_EXPECTED
    statistic = math.fsum((o - e) ** 2 / e for o, e in cells) if cells else 0.0
    dof = len(cells) - 1
    p = chi2_sf(statistic, dof) if enough and dof > 0 else None
    return {"n": n, "chi2": statistic, "dof": dof, "p_value": p, "min_expected": smallest, "enough": enough}


def _categories(rounds: list[Observed], values: dict[Situation, Valued] | None, basis: Basis) -> dict[str, Any]:
    called = [r for r in rounds if r.called and r.player_category is not None]
    observed = [0] * 10
    expected = [0.0] * 10
    for r in called:
        observed[CATEGORY_NAMES.index(r.player_category)] += 1
        if basis.name == "exact" and values is not None and r.known is not None:
            for k, exact in enumerate(values[(r.profile, r.known)].categories):
                expected[k] += float(exact)
        elif basis.categories is not None:
            for k, share in enumerate(basis.categories):
                expected[k] += share
    result: dict[str, Any] = {"basis": basis.name, "exact_conditional": basis.name == "exact",
                              "observed": dict(zip(CATEGORY_NAMES, observed, strict=True)),
                              "expected": dict(zip(CATEGORY_NAMES, expected, strict=True))}
    if basis.name == "none":
        return {**result, "bins": [], "n": len(called), "chi2": 0.0, "dof": 0, "p_value": None,
                "min_expected": 0.0, "enough": False}
    bins = _merge_small(observed, expected)
    return {**result, "bins": [b[0] for b in bins], **_chi_square([b[1] for b in bins], [b[2] for b in bins])}


def _merge_small(observed: list[int], expected: list[float]) -> list[tuple[str, int, float]]:
    """Merge the rarest categories (from the top) until each bin expects 5 or more."""
    bins: list[tuple[str, int, float]] = []
    name, o, e = "", 0, 0.0
    for k in range(9, -1, -1):
        name = f"{name}+{CATEGORY_NAMES[k]}" if name else CATEGORY_NAMES[k]
        o += observed[k]
        e += expected[k]
        if e >= MIN_EXPECTED:
            bins.append((name, o, e))
            name, o, e = "", 0, 0.0
    if name and bins:
        last = bins.pop()
        bins.append((f"{last[0]}+{name}", last[1] + o, last[2] + e))
    elif name:
        bins.append((name, o, e))
    return bins


def _qualification(rounds: list[Observed], values: dict[Situation, Valued] | None, basis: Basis) -> dict[str, Any]:
    seen = [r for r in rounds if r.dealer_qualified is not None]
    qualified = sum(1 for r in seen if r.dealer_qualified)
    exact = basis.name == "exact"
    if exact:
        probabilities = [float(values[(r.profile, r.known)].qualifies) for r in seen]  # type: ignore[index]
    elif basis.qualifies is not None:
        probabilities = [basis.qualifies] * len(seen)
    else:
        probabilities = []
    expected = math.fsum(probabilities)
    variance = math.fsum(p * (1 - p) for p in probabilities)
    z = (qualified - expected) / math.sqrt(variance) if variance > 0 else 0.0
    enough = bool(probabilities) and expected >= MIN_EXPECTED and len(seen) - expected >= MIN_EXPECTED
    return {"basis": basis.name, "n": len(seen), "qualified": qualified, "expected": expected,
            "rate": qualified / len(seen) if seen else None,
            "expected_rate": expected / len(seen) if seen else None, "z": z,
            "p_value": two_sided_p(z) if enough else None, "enough": enough, "exact_conditional": exact}


def decision_audit(rounds: list[Observed], values: dict[Situation, Valued]) -> dict[str, Any]:
    mistakes = []
    every = []
    cost: dict[str, Fraction] = defaultdict(Fraction)
    calls = best_calls = valued = 0
    for r in rounds:
        if r.known is None:
            continue
        v = values[(r.profile, r.known)]
        edge = _edge(r)
        call, fold = v.call_value + edge, Fraction(-1)
        chosen = call if r.called else fold
        best = max(call, fold)
        valued += 1
        calls += r.called
        best_calls += call > fold
        loss = best - chosen
        cost[r.session] += loss * Fraction(r.ante)
        entry = {
            "session": r.session, "round": r.number, "file": r.file, "line": r.line,
            "cards": " ".join(_card(c) for c in r.known),
            "decision": "call" if r.called else "fold", "best": "call" if call > fold else "fold",
            "call_value": float(call), "fold_value": float(fold), "loss_per_ante": float(loss),
            "loss": float(loss * Fraction(r.ante)),
        }
        every.append(entry)
        if loss > 0:
            mistakes.append(entry)
    return {"decisions": valued, "call_rate": calls / valued if valued else None,
            "optimal_call_rate": best_calls / valued if valued else None, "mistakes": mistakes, "all": every,
            "cost_by_session": {s: float(c) for s, c in cost.items()}}


def _edge(r: Observed) -> Fraction:
    """What calling gains on a bonus a fold would forfeit (see ``strategy.bonus_edge``)."""
    if not r.bonus_stake or r.known is None:
        return Fraction(0)
    profile = r.profile.resolve().profile
    return bonus_edge(profile, evaluate(list(r.known)).value, Fraction(r.ante), Fraction(r.bonus_stake))


def _card(index: int) -> str:
    from ..rules.cards import DECK

    return str(DECK[index])


def compute(inputs: Inputs) -> dict[str, Any]:
    rounds = inputs.observations.rounds
    by_profile: dict[ProfileOrigin, list[Observed]] = defaultdict(list)
    by_stake: dict[tuple[ProfileOrigin, Decimal], list[Observed]] = defaultdict(list)
    for r in rounds:
        by_profile[r.profile].append(r)
        by_stake[(r.profile, r.ante)].append(r)
    result: dict[str, Any] = {
        "confidence": inputs.confidence, "rounds": len(rounds), "sessions": len({r.session for r in rounds}),
        "returns": [{"profile": p.label, **returns(rs, inputs.values, inputs.confidence)}
                    for p, rs in sorted(by_profile.items())],
        "returns_by_stake": [{"profile": p.label, "ante": float(a),
                              **returns(rs, inputs.values, inputs.confidence)}
                             for (p, a), rs in sorted(by_stake.items())],
        "fairness": fairness(rounds, inputs.values),
        "decisions": decision_audit(rounds, inputs.values) if inputs.values is not None else None,
    }
    return result
