"""``referee explain --game ID [--player P]``: the ruling of a seat at a live table.

Why through the format-1 explanation: a seat at a format-2 game is, for the rules,
exactly one round (the game's cards, the seat's stakes and decision, the seat's
record); so its explanation is built by :func:`referee.audit.explain.explain` from
that round, after the whole session is audited (balances and findings in context),
and says which game and player it is about. A seat of a cancelled game is the round
whose every stake is refunded (:func:`referee.rules.settlement.cancelled_ruling`), said
as a void deal is; its bottom line, as every seat's, is the one ``check`` gave it.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from ..load.inputs import Source
from ..models.rounds import Round
from ..profiles import ProfileError
from ..rules.profile import Profile
from ..rules.settlement import Ruling, cancelled_ruling
from ..spelling import did_you_mean
from .duplicates import GameIndex
from .explain import ExplainError, Explanation, WalletMoves, explain
from .games import GameResult, SeatResult
from .owed import seat_bottom_line
from .results import Finding, RoundResult, SessionInfo, SessionResult
from .stream import Options, audit_source

ZERO = Decimal(0)


def find_seats(source: Source, game: str, player: str | None, session: str | None,
               options: Options) -> list[tuple[SessionInfo, GameResult, SeatResult]]:
    """Every seat of game ``game`` (every record of it), or only ``player``'s."""
    return _find_seats(source, game, player, session, options)[0]


def _find_seats(source: Source, game: str, player: str | None, session: str | None,
                options: Options) -> tuple[list[tuple[SessionInfo, GameResult, SeatResult]], list[Finding]]:
    """The seats, and the findings that compare two records of the game (``G001`` other
    cards, ``G002`` a player seated in both): ``check`` makes them in the parent, from
    every game it sees (:class:`GameIndex`), so no record's own findings carry them."""
    found: list[tuple[SessionInfo, GameResult, SeatResult]] = []
    current: SessionInfo | None = None
    seen_game = False
    index = GameIndex()
    across: list[Finding] = []
    sessions: list[str] = []
    games: set[str] = set()  # the games (of the session asked for), for a --game misspelt
    players: set[str] = set()  # the game's players, for a --player misspelt
    for event in audit_source(source, options):
        if isinstance(event, SessionInfo):
            current = event
            sessions.append(event.id)
        elif isinstance(event, GameResult) and event.format == 2:
            index.see(event.fingerprint)
            if event.game is not None and session in (None, event.session):
                games.add(event.game)
            if event.game == game and session in (None, event.session):
                seen_game = True
                assert current is not None
                found += [(current, event, s) for s in event.seats if player in (None, s.player_id)]
                players.update(s.player_id for s in event.seats if s.player_id is not None)
        elif isinstance(event, SessionResult) and event.info.format == 2:
            across += [f for f in index.pending if f.game == game and session in (None, f.session)]
            index.settle(event)
    where = f" in session {session}" if session else ""
    if session is not None and session not in sessions:
        raise ExplainError(f"{source.name}: no session {session}{did_you_mean(session, sessions)}")
    if not seen_game:
        raise ExplainError(f"{source.name}: no game {game}{where}{did_you_mean(game, games)}")
    if not found:
        raise ExplainError(f"{source.name}: game {game} has no seat of player {player}{where}"
                           f"{did_you_mean(str(player), players)}")
    return found, across


def as_round(game: GameResult, seat: SeatResult, profile: Profile | None = None) -> RoundResult:
    """The seat as the one round it is for the rules; a cancelled game's seat with every
    stake refunded (``profile``: the session's, whose Call multiple a call staked when the
    seat does not record its Call; the audit's own default without it)."""
    model, record = game.record, seat.record
    ruling = seat.ruling
    if ruling is None and seat.cancelled and record is not None:
        ruling = _refunded(record, profile)
    if model is None or record is None or ruling is None:
        problems = "; ".join(f"{f.code} {f.message}" for f in seat.findings + game.findings) or "not ruled"
        raise ExplainError(f"{seat.file}:{seat.line}: player {seat.player_id} at game {game.game} cannot be "
                           f"ruled: {problems}")
    round_ = Round(
        round=game.number or 0, ante=record.ante, call=record.call, bonus=record.bonus,
        player=record.player if record.player is not None else (model.player or []), flop=model.flop or [],
        decision=record.decision, turn=model.turn, river=model.river, dealer=model.dealer,
        recorded=record.recorded)
    return RoundResult(game.number, seat.file, seat.line, game.session, round_, ruling,
                       seat.findings + game.findings, seat.balance, seat.recorded_balance)


def _refunded(record: Any, profile: Profile | None) -> Ruling:
    """A cancelled seat's ruling: its stakes as the audit counted them for the wallet's
    refund (``W003``: :func:`referee.audit.games.stakes_of`), each refunded."""
    multiple = profile.call_multiple if profile is not None else Decimal(2)
    call = record.call if record.call is not None else record.ante * multiple
    return cancelled_ruling(record.ante, call if record.decision == "call" else ZERO, record.bonus)


def explain_seat(info: SessionInfo, game: GameResult, seat: SeatResult) -> Explanation:
    """One seat's ruling: its round, with the bottom line ``check`` gave the seat (what
    its wallet moved when it has one, else its record; a cancelled game's rules give 0)
    and what its wallet moved."""
    result = as_round(game, seat, _profile(info) if seat.cancelled else None)
    bottom = seat_bottom_line(seat)
    explained = explain(result, info, bottom)
    moves = seat.record.wallet if seat.record is not None else None
    return replace(explained, game=game.game, player_id=seat.player_id,
                   wallet=WalletMoves.of(moves) if moves is not None else None)


def _profile(info: SessionInfo) -> Profile | None:
    """The session's profile (the audit loaded it a moment ago: cached)."""
    if info.profile_origin is None:
        return None
    try:
        return info.profile_origin.resolve().profile
    except ProfileError:  # pragma: no cover - the audit loaded it a moment ago
        return None


def explain_game(source: Source, game: str, player: str | None, session: str | None,
                 options: Options) -> list[Explanation]:
    """One explanation a seat, a cancelled game's too."""
    out = []
    seats, across = _find_seats(source, game, player, session, options)
    for info, result, seat in seats:
        explained = explain_seat(info, result, seat)
        # A finding comparing two records joins every seat it concerns, as its message
        # (its values are the two records' cards, not a record against the rules).
        notes = tuple(replace(f, message=f"{f.message}, at line {f.line}", expected=None, recorded=None) for f in across
                      if f.session == info.id and f.player in (None, seat.player_id))
        out.append(replace(explained, findings=explained.findings + notes))
    return out
