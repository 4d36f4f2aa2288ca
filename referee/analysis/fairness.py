"""The fairness of the deal for ``referee stats``: the 52 card frequencies at each dealt
position, the player's final category over called rounds, and how often the dealer
qualified, each a test that says when its sample is too small to mean anything (an
expected count under 5 in a chi-square cell).

Why its own module: the tests compare the deal with exact expectations (each called
round's conditional probabilities where decisions were valued, the PAR sheet's or the
seven-card figures otherwise); the returns and the decisions (``stats.py``) only read
their verdicts.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from ..profiles import ProfileOrigin
from ..rules.category import Category
from ..rules.evaluator import CATEGORY_NAMES
from .decisions import Situation, Valued
from .distributions import chi2_sf, two_sided_p
from .observe import POSITIONS, Observed
from .reference import DEALER_QUALIFIES, SEVEN_CARD_COUNTS, SEVEN_CARD_HANDS

MIN_EXPECTED = 5.0

# Field metadata read by to_json: leave the key out when the value is None (the key is
# absent from the JSON, not null), or write the fields of a nested record in its place.
OMIT_NONE = {"omit_none": True}
FLATTEN = {"flatten": True}


class Verdict(enum.Enum):
    """What a test says; the exit code of ``referee stats`` is picked from it."""

    OK = "ok"
    TOO_SMALL = "sample too small to test"
    SUSPECT = "suspect"


def judge(enough: bool, p_value: float | None, confidence: float) -> Verdict:
    """Too small when the sample cannot mean anything; suspect when p < 1 - confidence."""
    if not enough:
        return Verdict.TOO_SMALL
    return Verdict.OK if p_value is None or p_value >= 1 - confidence else Verdict.SUSPECT


@dataclass(frozen=True, slots=True)
class ChiSquare:
    n: int
    chi2: float
    dof: int
    p_value: float | None
    min_expected: float
    enough: bool

    def verdict(self, confidence: float) -> Verdict:
        return judge(self.enough, self.p_value, confidence)


@dataclass(frozen=True, slots=True)
class PositionTest:
    """The 52 card frequencies at one dealt position."""

    position: str
    test: ChiSquare = field(metadata=FLATTEN)

    def verdict(self, confidence: float) -> Verdict:
        return self.test.verdict(confidence)


@dataclass(frozen=True, slots=True)
class CategoryTest:
    """The player's final category over called rounds, rare categories merged into bins."""

    basis: str
    exact_conditional: bool
    observed: dict[Category, int]
    expected: dict[Category, float]
    bins: list[str]
    test: ChiSquare = field(metadata=FLATTEN)

    def verdict(self, confidence: float) -> Verdict:
        return self.test.verdict(confidence)


@dataclass(frozen=True, slots=True)
class QualificationTest:
    """How often the dealer qualified, against the exact or reference expectation."""

    basis: str
    n: int
    qualified: int
    expected: float
    rate: float | None
    expected_rate: float | None
    z: float
    p_value: float | None
    enough: bool
    exact_conditional: bool

    def verdict(self, confidence: float) -> Verdict:
        return judge(self.enough, self.p_value, confidence)


@dataclass(frozen=True, slots=True)
class Fairness:
    positions: list[PositionTest]
    categories: CategoryTest
    dealer_qualification: QualificationTest

    def tests(self) -> list[PositionTest | CategoryTest | QualificationTest]:
        return [*self.positions, self.categories, self.dealer_qualification]


def fairness(rounds: list[Observed], values: dict[Situation, Valued] | None) -> Fairness:
    basis = _basis(rounds, values)
    return Fairness([_position(rounds, i) for i in range(len(POSITIONS))], _categories(rounds, values, basis),
                    _qualification(rounds, values, basis))


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


def _position(rounds: list[Observed], i: int) -> PositionTest:
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
    return PositionTest(POSITIONS[i], _chi_square(observed, expected))


def _chi_square(observed: list[int], expected: list[float]) -> ChiSquare:
    n = sum(observed)
    cells = [(o, e) for o, e in zip(observed, expected, strict=True) if e > 0]
    smallest = min((e for _, e in cells), default=0.0)
    enough = n > 0 and smallest >= MIN_EXPECTED
    statistic = math.fsum((o - e) ** 2 / e for o, e in cells) if cells else 0.0
    dof = len(cells) - 1
    p = chi2_sf(statistic, dof) if enough and dof > 0 else None
    return ChiSquare(n, statistic, dof, p, smallest, enough)


def _categories(rounds: list[Observed], values: dict[Situation, Valued] | None, basis: Basis) -> CategoryTest:
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
    counts = dict(zip(CATEGORY_NAMES, observed, strict=True))
    shares = dict(zip(CATEGORY_NAMES, expected, strict=True))
    if basis.name == "none":
        return CategoryTest(basis.name, False, counts, shares, [], ChiSquare(len(called), 0.0, 0, None, 0.0, False))
    bins = _merge_small(observed, expected)
    return CategoryTest(basis.name, basis.name == "exact", counts, shares, [b[0] for b in bins],
                        _chi_square([b[1] for b in bins], [b[2] for b in bins]))


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


def _qualification(rounds: list[Observed], values: dict[Situation, Valued] | None,
                   basis: Basis) -> QualificationTest:
    seen = [r for r in rounds if r.dealer_qualified is not None]
    qualified = sum(1 for r in seen if r.dealer_qualified)
    exact = basis.name == "exact"
    if exact and values is not None:  # the exact basis: every round's five cards known and valued
        probabilities = [float(values[(r.profile, r.known)].qualifies) for r in seen if r.known is not None]
    elif basis.qualifies is not None:
        probabilities = [basis.qualifies] * len(seen)
    else:
        probabilities = []
    expected = math.fsum(probabilities)
    variance = math.fsum(p * (1 - p) for p in probabilities)
    z = (qualified - expected) / math.sqrt(variance) if variance > 0 else 0.0
    enough = bool(probabilities) and expected >= MIN_EXPECTED and len(seen) - expected >= MIN_EXPECTED
    return QualificationTest(basis.name, len(seen), qualified, expected, qualified / len(seen) if seen else None,
                             expected / len(seen) if seen else None, z, two_sided_p(z) if enough else None,
                             enough, exact)
