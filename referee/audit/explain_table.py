"""``referee explain --game ID [--player P]``: the ruling of a seat at a live table.

Why through the format-1 explanation: a seat at a format-2 game is, for the rules,
exactly one round (the game's cards, the seat's stakes and decision, the seat's
record); so its explanation is built by :func:`referee.audit.explain.explain` from
that round, after the whole session is audited (balances and findings in context),
and says which game and player it is about.
"""

from __future__ import annotations

from dataclasses import replace

from ..load.inputs import Source
from ..models import Round
from .checker import Options, audit_source
from .explain import ExplainError, Explanation, explain
from .owed import wallet_net
from .results import RoundResult, SessionInfo
from .table import GameResult, SeatResult


def find_seats(source: Source, game: str, player: str | None, session: str | None,
               options: Options) -> list[tuple[SessionInfo, GameResult, SeatResult]]:
    """Every seat of game ``game`` (every record of it), or only ``player``'s."""
    found: list[tuple[SessionInfo, GameResult, SeatResult]] = []
    current: SessionInfo | None = None
    seen_game = False
    for event in audit_source(source, options):
        if isinstance(event, SessionInfo):
            current = event
        elif isinstance(event, GameResult) and event.game == game and session in (None, event.session):
            seen_game = True
            assert current is not None
            found += [(current, event, s) for s in event.seats if player in (None, s.player_id)]
    where = f" in session {session}" if session else ""
    if not seen_game:
        raise ExplainError(f"{source.name}: no game {game}{where}")
    if not found:
        raise ExplainError(f"{source.name}: game {game} has no seat of player {player}{where}")
    return found


def as_round(game: GameResult, seat: SeatResult) -> RoundResult:
    """The seat as the one round it is for the rules."""
    model, record = game.record, seat.record
    if model is None or record is None or seat.ruling is None:
        if game.status == "cancelled":
            raise ExplainError(f"{seat.file}:{seat.line}: game {game.game} was cancelled: every stake is refunded, "
                               "nothing to rule")
        problems = "; ".join(f"{f.code} {f.message}" for f in seat.findings + game.findings) or "not ruled"
        raise ExplainError(f"{seat.file}:{seat.line}: player {seat.player_id} at game {game.game} cannot be "
                           f"ruled: {problems}")
    round_ = Round.model_construct(
        round=game.number or 0, ante=record.ante, call=record.call, bonus=record.bonus,
        player=record.player if record.player is not None else (model.player or []), flop=model.flop or [],
        decision=record.decision, turn=model.turn, river=model.river, dealer=model.dealer,
        recorded=record.recorded)
    return RoundResult(game.number, seat.file, seat.line, game.session, round_, seat.ruling,
                       seat.findings + game.findings, seat.balance, seat.recorded_balance)


def explain_game(source: Source, game: str, player: str | None, session: str | None,
                 options: Options) -> list[Explanation]:
    """One explanation a seat (a cancelled game cannot be explained seat by seat)."""
    out = []
    for info, result, seat in find_seats(source, game, player, session, options):
        explained = explain(as_round(result, seat), info, paid=wallet_net(seat))
        out.append(replace(explained, game=result.game, player_id=seat.player_id))
    return out
