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
from dataclasses import dataclass, field, fields, is_dataclass
from decimal import Decimal
from fractions import Fraction

from ..profiles import ProfileOrigin
from ..rules.hands import evaluate
from ..rules.money import plain
from ..rules.strategy import bonus_edge
from .decisions import Situation, Valued
from .distributions import z_for
from .fairness import OMIT_NONE, Fairness, Verdict, fairness
from .observe import Observations, Observed
from .reference import OptimalPlay
from .reference import optimal as reference_optimal

MIN_ROUNDS = 30


def plain_amount(amount: Decimal) -> Decimal:
    """One spelling a stake level (``1.00`` and ``1`` are one level): :func:`plain`'s."""
    return Decimal(str(plain(amount)))


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
    #: The stake level, exact (money is never a float: ``1``, ``2.5``, not ``1.0``).
    ante: Decimal | None = field(default=None, metadata=OMIT_NONE)
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
            ante: Decimal | None = None) -> Returns:
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
        returns_by_stake=[returns(p.label, rs, inputs.values, inputs.confidence, plain_amount(a))
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
