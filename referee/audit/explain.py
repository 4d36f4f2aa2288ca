"""The facts of a ruling, for ``referee explain`` and the HTML report.

An explanation is data, not prose: which cards play, why the dealer qualifies, where
the comparison is decided, what the table paid, what the record got wrong; which rule
settled each wager is the ruling's own lines (``ruling.lines``).
Reporters put it into words in the reader's language (``report/ruling.py``), so the
English and French rulings cannot say different things.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from ..load.inputs import Source
from ..models.common import Recorded
from ..profiles import ProfileError
from ..rules.hands import HandValue
from ..rules.payout import Rule
from ..rules.profile import Profile
from ..rules.settlement import Ruling
from ..rules.tiebreak import Play, TieBreak, fewest_private, tie_break
from ..spelling import did_you_mean
from .games import GameResult, round_view
from .owed import BottomLine, bottom_line
from .results import Finding, RoundResult, SessionInfo, SessionResult
from .stream import Options, audit_source

ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class Side:
    """One side's hand: its value and the five that play."""

    hand: HandValue
    play: Play


@dataclass(frozen=True, slots=True)
class WalletMoves:
    """What a seat's wallet moved (format 2), summed by kind: what the table did with the
    money, beside what it recorded (a cancelled game's ruling says both)."""

    debits: Decimal
    credits: Decimal
    #: Cancels and refunds: stakes given back.
    refunds: Decimal

    @classmethod
    def of(cls, moves: Iterable[Any]) -> WalletMoves:
        """The sums of a seat's wallet moves (:class:`referee.models.table.WalletMove`)."""
        sums = {"debit": ZERO, "credit": ZERO, "cancel": ZERO, "refund": ZERO}
        for move in moves:
            sums[move.kind] += move.amount
        return cls(sums["debit"], sums["credit"], sums["cancel"] + sums["refund"])


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
    sections: tuple[str, ...]
    findings: tuple[Finding, ...]
    #: What the table paid, what the rules give, who is owed (the one bottom line every
    #: reader states: audit/owed.py).
    bottom: BottomLine
    #: The cards as the record wrote them, by group ("Player", "Flop", ...): what a
    #: void deal is shown with, since its cards could not all be read.
    recorded_cards: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Format 2: the game and the seat's player the round is.
    game: str | None = None
    player_id: str | None = None
    #: What the record says the table did (its outcome and amounts), when it says.
    recorded: Recorded | None = None
    #: Format 2: what the seat's wallet moved, when the seat has a wallet.
    wallet: WalletMoves | None = None
    #: Nobody named the profile: why (a key of :data:`referee.profiles.DEFAULT_WORDS`),
    #: said beside the profile; None when someone did.
    profile_default: str | None = None


class ExplainError(Exception):
    """The round asked for is not there, or cannot be ruled (exit 2)."""


def find_rounds(
    source: Source, number: int, session: str | None, options: Options
) -> list[tuple[SessionInfo, RoundResult]]:
    """Every round numbered ``number`` (a void deal and its replay share one), with its
    session, after auditing the whole session so that findings carry their context."""
    matches: list[tuple[SessionInfo, RoundResult]] = []
    unread: list[Finding] = []  # lines that name the round but could not be read as one
    current: SessionInfo | None = None
    sessions: set[str] = set()
    every: list[str] = []  # every session of the file, for a --session misspelt
    games: list[str] = []  # live-table games (format 2) with this number: what --round meant
    for event in audit_source(source, options):
        if isinstance(event, SessionInfo):
            current = event
            every.append(event.id)
        elif isinstance(event, GameResult) and event.format == 2:
            if event.number == number and event.game is not None and session in (None, event.session):
                games.append(event.game)
        elif isinstance(event, GameResult) and event.number == number and session in (None, event.session):
            sessions.add(event.session)
            assert current is not None  # every game is in a session
            matches.append((current, round_view(event)))
        elif isinstance(event, SessionResult) and session in (None, event.info.id):
            unread += [f for f in event.findings if f.round == number]
    if not matches and unread:
        first = unread[0]
        raise ExplainError(f"{first.file}:{first.line}: round {number} cannot be ruled: {first.code} {first.message}")
    if not matches:
        if session is not None and session not in every:
            raise ExplainError(f"{source.name}: no session {session}{did_you_mean(session, every)}")
        where = f" in session {session}" if session else ""
        raise ExplainError(f"{source.name}: no round {number}{where}{_as_game(source, number, games)}")
    if len(sessions) > 1:
        raise ExplainError(
            f"{source.name}: round {number} is in several sessions ({', '.join(sorted(sessions))}); "
            "choose one with --session"
        )
    return matches


def _as_game(source: Source, number: int, games: list[str]) -> str:
    """A live table's game numbered ``number``: how to explain it (its seats)."""
    if not games:
        return ""
    if len(games) > 1:
        return f"; games {', '.join(games)} of this live table are numbered {number}: choose one with --game"
    return f"; game {games[0]} of this live table is numbered {number}: referee explain {source.name} --game {games[0]}"


def explain_rounds(source: Source, number: int, session: str | None, options: Options) -> list[Explanation]:
    """Each round under ``number``; a verbatim copy is not explained again: its note
    (``S003``) joins the first record's explanation."""
    out: list[Explanation] = []
    for info, result in find_rounds(source, number, session, options):
        if result.repeated and result.copy_of is not None and out and out[-1].line == result.copy_of.line:
            out[-1] = replace(out[-1], findings=out[-1].findings + _copy_notes(result))
        else:
            out.append(explain(result, info))
    return out


def explain(result: RoundResult, info: SessionInfo, bottom: BottomLine | None = None) -> Explanation:
    """The round's ruling; for a verbatim copy, the first record's, with the copy's
    ``S003`` added to its findings (a note that the round is recorded twice). ``bottom``
    is the bottom line ``check`` gave the round, when it is not the record's (a format-2
    seat's: what its wallet moved, :func:`referee.audit.owed.seat_bottom_line`)."""
    if result.repeated and result.copy_of is not None:
        first = explain(result.copy_of, info, bottom)
        return replace(first, findings=first.findings + _copy_notes(result))
    if result.ruling is None or info.profile_origin is None:
        problems = "; ".join(f"{f.code} {f.message}" for f in result.findings) or "no profile"
        raise ExplainError(f"{result.file}:{result.line}: round {result.number} cannot be ruled: {problems}")
    try:
        loaded = info.profile_origin.resolve()
    except ProfileError as err:  # pragma: no cover - the audit loaded it a moment ago
        raise ExplainError(str(err)) from None
    ruling = result.ruling
    bottom = bottom or bottom_line(result)
    assert bottom is not None  # ruled
    bottom = replace(bottom, currency=info.currency)
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
        profile=loaded.profile, profile_origin=str(loaded.origin), profile_sha256=loaded.sha256,
        profile_default=info.profile_by if info.profile_defaulted else None,
        ruling=ruling, player=player, dealer=dealer, comparison=comparison,
        sections=_sections(ruling), findings=tuple(_with_ruled(f, ruling) for f in result.findings),
        recorded_cards=_recorded_cards(result),
        bottom=bottom, recorded=result.record.recorded if result.record is not None else None,
    )


#: What the rules give for a recorded field an input finding (H001) leaves without an
#: expected value: ``player_hand: two pair`` is then shown against the rules' category.
def _with_ruled(finding: Finding, ruling: Ruling) -> Finding:
    """What the rules give for a recorded field an input finding (H001) leaves without
    an expected value: ``player_hand: two pair`` is shown against the rules' category."""
    if finding.expected is not None or finding.recorded is None:
        return finding
    match finding.field:
        case "recorded.player_hand":
            ruled: object = ruling.player_hand.category if ruling.player_hand is not None else None
        case "recorded.dealer_hand":
            ruled = ruling.dealer_hand.category if ruling.dealer_hand is not None else None
        case "recorded.outcome":
            ruled = ruling.outcome
        case "recorded.dealer_qualified":
            ruled = ruling.dealer_qualified
        case _:
            return finding
    return replace(finding, expected=ruled)


def _copy_notes(copy: RoundResult) -> tuple[Finding, ...]:
    """The copy's findings as notes on the first record: said in words, with the copy's
    line (no recorded and expected values: a copy's number is not a value to compare)."""
    return tuple(replace(f, message=f"{f.message}, at line {f.line}", recorded=None, expected=None)
                 for f in copy.findings)


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


def _sections(ruling: Ruling) -> tuple[str, ...]:
    """The guide's sections (§02-§07) this ruling applied, in order (none for a cancelled
    game: the table's decision, which the guide does not speak of)."""
    if ruling.cancelled:
        return ()
    if ruling.outcome == "void":
        return ("§07",)
    if ruling.outcome == "fold":
        return ("§02", "§05")
    sections = ["§02", "§03"]
    if ruling.dealer_qualified:
        sections.append("§04")
    sections.append("§05")
    if any(line.rule is Rule.ANTE_PAYTABLE for line in ruling.lines):
        sections.append("§06")
    return tuple(sections)

