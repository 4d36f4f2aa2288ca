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

import enum
import math
from collections import defaultdict
from dataclasses import dataclass, field, fields, is_dataclass
from decimal import Decimal
from fractions import Fraction

from ..profiles import ProfileOrigin
from ..rules.category import Category
from ..rules.evaluator import CATEGORY_NAMES
from ..rules.hands import evaluate
from ..rules.strategy import bonus_edge
from .decisions import Situation, Valued
from .distributions import chi2_sf, two_sided_p, z_for
from .observe import POSITIONS, Observations, Observed
from .reference import DEALER_QUALIFIES, SEVEN_CARD_COUNTS, SEVEN_CARD_HANDS, OptimalPlay
from .reference import optimal as reference_optimal

MIN_EXPECTED = 5.0
MIN_ROUNDS = 30

# Field metadata read by to_json: leave the key out when the value is None (the key is
# absent from the JSON, not null), or write the fields of a nested record in its place.
OMIT_NONE = {"omit_none": True}
FLATTEN = {"flatten": True}


def to_json(value: object) -> object:
    """The JSON shape of a result: dataclass fields in declaration order (that order is
    the order of the keys in ``stats --format json``), lists and dicts walked."""
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {}
        for f in fields(value):
            item = getattr(value, f.name)
            if f.metadata.get("omit_none") and item is None:
                continue
            if f.metadata.get("flatten"):
                nested = to_json(item)
                assert isinstance(nested, dict)
                out.update(nested)
            else:
                out[f.name] = to_json(item)
        return out
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


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


@dataclass(slots=True)
class Inputs:
    observations: Observations
    values: dict[Situation, Valued] | None
    confidence: float


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its normal-approximation interval; None throughout when n is 0."""

    n: int
    mean: float | None
    low: float | None
    high: float | None
    sd: float | None
    enough: bool


@dataclass(frozen=True, slots=True)
class Bounds:
    mean: float
    low: float
    high: float


@dataclass(slots=True, kw_only=True)
class Returns:
    """Return to player of one group of rounds (a profile, or a profile and a stake).

    The fields are in the order of the keys of ``stats --format json``; the optional
    ones are left out of it when None."""

    profile: str
    ante: float | None = field(default=None, metadata=OMIT_NONE)
    #: Format 2 groups: the player, table or dealer the rounds (seats) are of.
    player: str | None = field(default=None, metadata=OMIT_NONE)
    table: str | None = field(default=None, metadata=OMIT_NONE)
    dealer: str | None = field(default=None, metadata=OMIT_NONE)
    rounds: int
    net_per_ante: Interval
    net_per_wagered: Bounds | None = field(default=None, metadata=OMIT_NONE)
    rtp: Bounds | None = field(default=None, metadata=OMIT_NONE)
    bonus_net: float
    optimal: OptimalPlay | None
    expected_from_decisions: float | None = field(default=None, metadata=OMIT_NONE)
    flags: list[str] = field(default_factory=list)


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


@dataclass(frozen=True, slots=True)
class Decision:
    """One valued decision: what was played, what was best, and what it cost."""

    session: str
    round: int | None
    file: str
    line: int
    cards: str
    decision: str
    best: str
    call_value: float
    fold_value: float
    loss_per_ante: float
    loss: float


@dataclass(frozen=True, slots=True)
class DecisionAudit:
    decisions: int
    call_rate: float | None
    optimal_call_rate: float | None
    mistakes: list[Decision]
    all: list[Decision]
    cost_by_session: dict[str, float]


@dataclass(frozen=True, slots=True)
class Stats:
    """Everything ``referee stats`` reports."""

    confidence: float
    rounds: int
    sessions: int
    returns: list[Returns]
    returns_by_stake: list[Returns]
    fairness: Fairness
    decisions: DecisionAudit | None
    #: Live tables (format 2): games whose deal was tested (once each), returns by group.
    games: int | None = field(default=None, metadata=OMIT_NONE)
    returns_by_player: list[Returns] | None = field(default=None, metadata=OMIT_NONE)
    returns_by_table: list[Returns] | None = field(default=None, metadata=OMIT_NONE)
    returns_by_dealer: list[Returns] | None = field(default=None, metadata=OMIT_NONE)

    @property
    def suspect(self) -> bool:
        """A flag on a profile's return or a suspect fairness test: exit status 1."""
        return any(g.flags for g in self.returns) or any(
            t.verdict(self.confidence) is Verdict.SUSPECT for t in self.fairness.tests())

    def to_json(self) -> dict[str, object]:
        data = to_json(self)
        assert isinstance(data, dict)
        return data


def interval(samples: list[float], confidence: float) -> Interval:
    n = len(samples)
    if n == 0:
        return Interval(0, None, None, None, None, False)
    mean = math.fsum(samples) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in samples) / (n - 1)) if n > 1 else 0.0
    half = z_for(confidence) * sd / math.sqrt(n)
    return Interval(n, mean, mean - half, mean + half, sd, n >= MIN_ROUNDS)


def returns(profile: str, rounds: list[Observed], values: dict[Situation, Valued] | None, confidence: float,
            ante: float | None = None) -> Returns:
    per_ante = [float(r.main_net / r.ante) for r in rounds]
    staked = math.fsum(float(r.main_staked) for r in rounds)
    net = math.fsum(float(r.main_net) for r in rounds)
    ratio = net / staked if staked else None
    optimal = reference_optimal(rounds[0].profile) if rounds else None
    result = Returns(profile=profile, ante=ante, rounds=len(rounds), net_per_ante=interval(per_ante, confidence),
                     bonus_net=float(sum((r.bonus for r in rounds), Decimal(0))), optimal=optimal)
    if ratio is not None and len(rounds) > 1:
        mean_staked = staked / len(rounds)
        residuals = [float(r.main_net) - ratio * float(r.main_staked) for r in rounds]
        sd = math.sqrt(math.fsum(x * x for x in residuals) / (len(rounds) - 1)) / mean_staked
        half = z_for(confidence) * sd / math.sqrt(len(rounds))
        result.net_per_wagered = Bounds(ratio, ratio - half, ratio + half)
        result.rtp = Bounds(1 + ratio, 1 + ratio - half, 1 + ratio + half)
    observed = result.net_per_ante
    target = optimal.net_per_ante if optimal else None
    if target is not None and _outside(observed, target):
        result.flags.append(f"net per Ante {observed.mean:+.4f}: the optimal play's {target:+.4f} is outside "
                            f"its {confidence:.0%} interval")
    if values is not None:
        expected = [float(_decision_value(r, values[(r.profile, r.known)]))
                    for r in rounds if r.known is not None]
        if expected:
            mean = math.fsum(expected) / len(expected)
            result.expected_from_decisions = mean
            if _outside(observed, mean):
                result.flags.append(f"net per Ante {observed.mean:+.4f}: outside its {confidence:.0%} interval "
                                    f"around the exact expectation of the decisions made, {mean:+.4f}")
    return result


def _outside(observed: Interval, target: float) -> bool:
    """A large enough sample whose interval misses the target."""
    if not observed.enough or observed.low is None or observed.high is None:
        return False
    return not observed.low <= target <= observed.high


def _decision_value(r: Observed, v: Valued) -> Fraction:
    """Exact expected net per Ante of the decision taken (main game)."""
    return v.call_value if r.called else Fraction(-1)


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


def decision_audit(rounds: list[Observed], values: dict[Situation, Valued]) -> DecisionAudit:
    mistakes: list[Decision] = []
    every: list[Decision] = []
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
        entry = Decision(session=r.session, round=r.number, file=r.file, line=r.line,
                         cards=" ".join(_card(c) for c in r.known),
                         decision="call" if r.called else "fold", best="call" if call > fold else "fold",
                         call_value=float(call), fold_value=float(fold), loss_per_ante=float(loss),
                         loss=float(loss * Fraction(r.ante)))
        every.append(entry)
        if loss > 0:
            mistakes.append(entry)
    return DecisionAudit(valued, calls / valued if valued else None, best_calls / valued if valued else None,
                         mistakes, every, {s: float(c) for s, c in cost.items()})


def _edge(r: Observed) -> Fraction:
    """What calling gains on a bonus a fold would forfeit (see ``strategy.bonus_edge``)."""
    if not r.bonus_stake or r.known is None:
        return Fraction(0)
    profile = r.profile.resolve().profile
    return bonus_edge(profile, evaluate(list(r.known)).value, Fraction(r.ante), Fraction(r.bonus_stake))


def _card(index: int) -> str:
    from ..rules.cards import DECK

    return str(DECK[index])


def compute(inputs: Inputs) -> Stats:
    rounds = inputs.observations.rounds
    by_profile: dict[ProfileOrigin, list[Observed]] = defaultdict(list)
    by_stake: dict[tuple[ProfileOrigin, Decimal], list[Observed]] = defaultdict(list)
    for r in rounds:
        by_profile[r.profile].append(r)
        by_stake[(r.profile, r.ante)].append(r)
    live = any(r.player is not None for r in rounds)  # a live table (format 2): returns by group too
    return Stats(
        confidence=inputs.confidence, rounds=len(rounds), sessions=len({r.session for r in rounds}),
        returns=[returns(p.label, rs, inputs.values, inputs.confidence)
                 for p, rs in sorted(by_profile.items())],
        returns_by_stake=[returns(p.label, rs, inputs.values, inputs.confidence, float(a))
                          for (p, a), rs in sorted(by_stake.items())],
        # A live table's deal is tested once per game, however many seats played it.
        fairness=fairness([r for r in rounds if not r.repeat], inputs.values),
        decisions=decision_audit(rounds, inputs.values) if inputs.values is not None else None,
        games=sum(1 for r in rounds if r.player is not None and not r.repeat) if live else None,
        returns_by_player=_grouped(rounds, "player", inputs) if live else None,
        returns_by_table=_grouped(rounds, "table", inputs) if live else None,
        returns_by_dealer=_grouped(rounds, "dealer_id", inputs) if live else None,
    )


def _grouped(rounds: list[Observed], key: str, inputs: Inputs) -> list[Returns]:
    """Returns of a live table's seats by player, table or dealer (each group's first profile)."""
    from dataclasses import replace

    groups: dict[str, list[Observed]] = defaultdict(list)
    for r in rounds:
        value = getattr(r, key)
        if value is not None:
            groups[value].append(r)
    out = []
    for k, rs in sorted(groups.items()):
        found = returns(rs[0].profile.label, rs, inputs.values, inputs.confidence)
        if key == "player":
            found = replace(found, player=k)
        elif key == "table":
            found = replace(found, table=k)
        else:
            found = replace(found, dealer=k)
        out.append(found)
    return out
