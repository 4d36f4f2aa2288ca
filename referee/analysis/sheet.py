"""The PAR sheet: exact totals turned into the figures regulators ask for.

Every figure carries its integer count of cases beside its probability, so a reader
can check the division. The main game comes from :mod:`referee.analysis.par`; the
bonus side bet depends on the player's first five cards only, so it is counted over
the 2,598,960 five-card hands (optimal play never folds a paying bonus hand, so the
fold rule does not change it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import combinations
from typing import Any

from ..errors import MissingDataError
from ..rules.evaluator import CATEGORY_NAMES, tables, value_of_key
from ..rules.evaluator import KEYS as CARD_KEYS
from ..rules.payout import MainGame, bonus_term
from ..rules.profile import Profile
from ..rules.strategy import OUTCOMES, Payoffs
from .par import FULL_DECK, DecisionTable, Totals, solve

FORMAT_VERSION = 1


def _ratio(numerator: int, denominator: int) -> dict[str, Any]:
    return {"count": numerator, "of": denominator, "probability": numerator / denominator if denominator else None}


def main_sheet(profile: Profile, totals: Totals) -> dict[str, Any]:
    p = Payoffs.of(profile)
    cases = totals.cases
    calls = cases - totals.fold
    by_outcome = [sum(row[k] for row in totals.counts) for k in range(4)]
    net_scaled = totals.fold * p.fold
    table = []
    for c in range(9, -1, -1):
        nq, win, tie, lose = totals.counts[c]
        contribution = sum(n * pay for n, pay in zip(totals.counts[c], p.table[c], strict=True))
        net_scaled += contribution
        table.append({"category": CATEGORY_NAMES[c], "cases": nq + win + tie + lose,
                      "probability": (nq + win + tie + lose) / cases,
                      "ante_odds": str(profile.ante_paytable[CATEGORY_NAMES[c]]),
                      "not_qualified": nq, "win": win, "tie": tie, "lose": lose,
                      "net": str(Fraction(contribution, p.scale)),
                      "contribution": contribution / p.scale / cases})
    net = Fraction(net_scaled, p.scale)
    wagered = totals.fold + calls * (1 + p.call_stake)
    indifferent_cases = sum(map(sum, totals.indifferent_counts))
    if_called = [by_outcome[k] + sum(row[k] for row in totals.indifferent_counts) for k in range(4)]
    return {
        "cases": cases,
        "net_ante_units": str(net),
        "house_edge": float(-net / cases),
        "element_of_risk": float(-net / wagered),
        "wagered_ante_units": str(wagered),
        "call_rate": _ratio(totals.calling_situations, totals.situations),
        "outcomes": {"fold": _ratio(totals.fold, cases),
                     **{name: _ratio(by_outcome[k], cases) for k, name in enumerate(OUTCOMES)}},
        "indifferent": {
            "situations": totals.indifferent_situations,
            "cases": indifferent_cases,
            "note": "calling is worth exactly -1 Ante, as folding: folded here; calling them instead gives the "
                    "same expected value and these outcome probabilities",
            "outcomes_if_called": {"fold": _ratio(totals.fold - indifferent_cases, cases),
                                   **{name: _ratio(if_called[k], cases) for k, name in enumerate(OUTCOMES)}},
        },
        "ante_table": table,
    }


def bonus_sheet(profile: Profile) -> dict[str, Any] | None:
    """The bonus's exact return over all 2,598,960 five-card hands."""
    rule = profile.bonus
    if rule is None:
        return None
    t = tables()
    pays: dict[int, bool] = {}  # by hand value: whether settle pays the bonus (payout.bonus_term)
    paid = [0] * 10
    unpaid = [0] * 10
    for five in combinations(range(52), 5):
        value = value_of_key(sum(CARD_KEYS[c] for c in five), 5, t)
        wins = pays.get(value)
        if wins is None:
            wins = pays[value] = bonus_term(profile, value, folded=False).rule.pays
        if wins:
            paid[value >> 20] += 1
        else:
            unpaid[value >> 20] += 1
    total = sum(paid) + sum(unpaid)
    net = Fraction(0)
    rows = []
    for c in range(9, -1, -1):
        odds = rule.paytable.get(CATEGORY_NAMES[c])
        contribution = paid[c] * Fraction(odds or 0) - unpaid[c]
        net += contribution
        rows.append({"category": CATEGORY_NAMES[c], "odds": None if odds is None else str(odds),
                     "paid": paid[c], "lost": unpaid[c], "probability_paid": paid[c] / total,
                     "contribution": float(contribution / total)})
    return {"name": rule.name, "cases": total, "net_stake_units": str(net), "house_edge": float(-net / total),
            "table": rows}


def compute_sheet(profile: Profile, jobs: int = 1, progress: Callable[[int], None] | None = None,
                  deck: tuple[int, ...] = FULL_DECK) -> dict[str, Any]:
    totals = solve(profile, deck, jobs, progress)
    return {"format_version": FORMAT_VERSION, "profile": profile.name, "play": "optimal",
            "main": main_sheet(profile, totals), "bonus": bonus_sheet(profile) if deck == FULL_DECK else None}


def stored_sheet(name: str) -> dict[str, Any] | None:
    """The sheet shipped with the package for a built-in profile (None for any other name)."""
    data = _shipped(name, "json")
    return None if data is None else json.loads(data)


def shipped_folder() -> Traversable:
    """Where the PAR sheets and decision tables ship: ``referee/data/par``."""
    return resources.files("referee").joinpath("data", "par")


def _shipped(name: str, kind: str) -> bytes | None:
    """``data/par/NAME.KIND``: None for a name that is not built in; for a built-in, a
    missing file is a broken installation (:class:`MissingDataError`), never a silent
    fall-back to the slow path."""
    from ..profiles import BUILTIN

    if name not in BUILTIN:
        return None
    resource = shipped_folder().joinpath(f"{name}.{kind}")
    try:
        return resource.read_bytes()
    except OSError as err:
        raise MissingDataError(f"referee's data file {resource} cannot be read ({err.strerror or err}): "
                               "the installation is incomplete; reinstall referee") from None


_DECISIONS: dict[str, DecisionTable | None] = {}


def stored_decisions(name: str) -> DecisionTable | None:
    """The optimal decision of every situation, shipped for a built-in profile."""
    if name not in _DECISIONS:
        data = _shipped(name, "decisions")
        _DECISIONS[name] = None if data is None else DecisionTable(data)
    return _DECISIONS[name]


#: By profile object (kept alive here, so its id stays its own): the answer of
#: :func:`optimal_table`, which a simulation of optimal play asks once a round.
_TABLE_FOR: dict[int, tuple[Profile, DecisionTable | None]] = {}


def optimal_table(profile: Profile) -> DecisionTable | None:
    """The shipped decision table that is right for ``profile``: only a built-in's, and
    only when the profile's main game is exactly that built-in's: the whole payout table
    (every ending, every category, as ``settle`` pays it), the Call and the qualifier."""
    known = _TABLE_FOR.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    table = _optimal_table(profile)
    _TABLE_FOR[id(profile)] = (profile, table)
    return table


def _optimal_table(profile: Profile) -> DecisionTable | None:
    from ..profiles import BUILTIN, resolve_profile

    if profile.name not in BUILTIN:
        return None
    same = MainGame.of(resolve_profile(profile.name).profile) == MainGame.of(profile)
    return stored_decisions(profile.name) if same else None


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where two sheets (or two parts of them) differ (exact counts must agree exactly)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if abs(a - b) <= 1e-12 * max(1.0, abs(a)) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]

