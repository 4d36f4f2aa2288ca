"""The facts of a ruling, for ``referee explain`` and the HTML report.

An explanation is data, not prose: which cards play, why the dealer qualifies, where
the comparison is decided, which rule settled each wager, what the record got wrong.
Reporters put it into words in the reader's language (``report/ruling.py``), so the
English and French rulings cannot say different things.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from ..load.sources import Source
from ..profiles import ProfileError, resolve_profile
from ..rules.hands import HandValue
from ..rules.profile import Profile
from ..rules.settlement import Ruling
from ..rules.tiebreak import Play, TieBreak, fewest_private, tie_break
from .checker import Options, audit_source
from .results import Finding, RoundResult, SessionInfo


@dataclass(frozen=True, slots=True)
class Side:
    """One side's hand: its value and the five that play."""

    hand: HandValue
    play: Play


@dataclass(frozen=True, slots=True)
class Wager:
    """One wager's settlement: ``rule`` as in :class:`Ruling`; ``odds`` for paytable lines."""

    name: str
    stake: Decimal
    net: Decimal
    rule: str
    odds: Decimal | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """Everything a ruling states about one round."""

    file: str
    line: int
    session: str
    number: int | None
    profile: Profile
    profile_origin: str
    profile_sha256: str
    ruling: Ruling
    player: Side | None
    dealer: Side | None
    comparison: TieBreak | None
    wagers: tuple[Wager, ...]
    sections: tuple[str, ...]
    findings: tuple[Finding, ...]
    #: The cards as the record wrote them, by group ("Player", "Flop", ...): what a
    #: void deal is shown with, since its cards could not all be read.
    recorded_cards: tuple[tuple[str, tuple[str, ...]], ...] = ()


class ExplainError(Exception):
    """The round asked for is not there, or cannot be ruled (exit 2)."""


def find_rounds(
    source: Source, number: int, session: str | None, options: Options
) -> list[tuple[SessionInfo, RoundResult]]:
    """Every round numbered ``number`` (a void deal and its replay share one), with its
    session, after auditing the whole session so that findings carry their context."""
    matches: list[tuple[SessionInfo, RoundResult]] = []
    current: SessionInfo | None = None
    sessions: set[str] = set()
    for event in audit_source(source, options):
        if isinstance(event, SessionInfo):
            current = event
        elif isinstance(event, RoundResult) and event.number == number and session in (None, event.session):
            sessions.add(event.session)
            matches.append((current, event))  # type: ignore[arg-type]
    if not matches:
        where = f" in session {session}" if session else ""
        raise ExplainError(f"{source.name}: no round {number}{where}")
    if len(sessions) > 1:
        raise ExplainError(
            f"{source.name}: round {number} is in several sessions ({', '.join(sorted(sessions))}); "
            "choose one with --session"
        )
    return matches


def explain_rounds(source: Source, number: int, session: str | None, options: Options) -> list[Explanation]:
    return [explain(result, info) for info, result in find_rounds(source, number, session, options)]


def explain(result: RoundResult, info: SessionInfo) -> Explanation:
    if result.ruling is None or info.profile_origin is None:
        problems = "; ".join(f"{f.code} {f.message}" for f in result.findings) or "no profile"
        raise ExplainError(f"{result.file}:{result.line}: round {result.number} cannot be ruled: {problems}")
    origin = info.profile_origin
    try:
        loaded = resolve_profile(origin.removeprefix("builtin:"))
    except ProfileError as err:  # pragma: no cover - the audit loaded it a moment ago
        raise ExplainError(str(err)) from None
    ruling = result.ruling
    player = dealer = None
    comparison = None
    if ruling.player_hand is not None:
        player = _side(ruling.player_hand, ruling.cards.player, ruling.cards.board)
    if ruling.dealer_hand is not None:
        dealer = _side(ruling.dealer_hand, ruling.cards.dealer, ruling.cards.board)
        if ruling.dealer_qualified and ruling.player_hand is not None:
            comparison = tie_break(ruling.player_hand, ruling.dealer_hand)
    return Explanation(
        file=result.file, line=result.line, session=result.session, number=result.number,
        profile=loaded.profile, profile_origin=loaded.origin, profile_sha256=loaded.sha256,
        ruling=ruling, player=player, dealer=dealer, comparison=comparison,
        wagers=tuple(_wagers(ruling, loaded.profile)), sections=_sections(ruling),
        findings=tuple(result.findings), recorded_cards=_recorded_cards(result),
    )


def _recorded_cards(result: RoundResult) -> tuple[tuple[str, tuple[str, ...]], ...]:
    record = result.record
    if record is None:
        return ()
    groups = [("Player", record.player), ("Flop", record.flop), ("Turn", [record.turn] if record.turn else []),
              ("River", [record.river] if record.river else []), ("Dealer", record.dealer or [])]
    return tuple((label, tuple(tokens)) for label, tokens in groups if tokens)


def _side(hand: HandValue, private: Iterable[object], board: Iterable[object]) -> Side:
    mine = [c for c in private if c is not None]
    return Side(hand, fewest_private(mine, list(board), hand.value))


def _wagers(ruling: Ruling, profile: Profile) -> Iterator[Wager]:
    category = ruling.player_hand.category if ruling.player_hand is not None else None
    ante_odds = None
    if ruling.ante_rule == "paytable" and category is not None:
        ante_odds = profile.ante_paytable[category]
    elif ruling.ante_rule == "even_money":
        ante_odds = Decimal(1)
    yield Wager("ante", ruling.ante_stake, ruling.ante, ruling.ante_rule, ante_odds, category)
    if ruling.call_stake:
        odds = profile.call_win_odds if ruling.call_rule == "call_odds" else None
        yield Wager("call", ruling.call_stake, ruling.call, ruling.call_rule, odds)
    if ruling.bonus_stake:
        bonus_category = ruling.bonus_hand.category if ruling.bonus_hand is not None else None
        odds = None
        if ruling.bonus_rule == "bonus_paytable" and profile.bonus is not None and bonus_category is not None:
            odds = profile.bonus.paytable.get(bonus_category)
        yield Wager("bonus", ruling.bonus_stake, ruling.bonus, ruling.bonus_rule, odds, bonus_category)


def _sections(ruling: Ruling) -> tuple[str, ...]:
    """The guide's sections (§02-§07) this ruling applied, in order."""
    if ruling.outcome == "void":
        return ("§07",)
    if ruling.outcome == "fold":
        return ("§02", "§05")
    sections = ["§02", "§03"]
    if ruling.dealer_qualified:
        sections.append("§04")
    sections.append("§05")
    if ruling.ante_rule == "paytable":
        sections.append("§06")
    return tuple(sections)

