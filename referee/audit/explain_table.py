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
from ..models.rounds import Round
from ..spelling import did_you_mean
from .duplicates import GameIndex
from .explain import ExplainError, Explanation, explain
from .games import GameResult, SeatResult
from .owed import wallet_net
from .results import Finding, RoundResult, SessionInfo, SessionResult
from .stream import Options, audit_source


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
    seats, across = _find_seats(source, game, player, session, options)
    for info, result, seat in seats:
        explained = explain(as_round(result, seat), info, paid=wallet_net(seat))
        # A finding comparing two records joins every seat it concerns, as its message
        # (its values are the two records' cards, not a record against the rules).
        notes = tuple(replace(f, message=f"{f.message}, at line {f.line}", expected=None, recorded=None) for f in across
                      if f.session == info.id and f.player in (None, seat.player_id))
        out.append(replace(explained, game=result.game, player_id=seat.player_id,
                           findings=explained.findings + notes))
    return out
