"""``REFEREE_FAST=verify``: every game the fast lane takes is audited the full way too,
from a copy of the same state, and the two must agree in everything: the game's result
(seats, rulings, findings, balances) and what the session keeps for the games after it.

Why a copy: the lane commits a seat's effects as it proves it clean, so the full audit
runs beside it on a shadow of the session made just before (its shared memos, profile
and caches are shared, not copied: both paths read them alike).
"""

from __future__ import annotations

import copy
from dataclasses import astuple, replace
from typing import Any

from ..rules.hands import HandValue
from .clean import CleanGame, CleanSeat
from .fast import FastPathMismatch
from .games import GameResult, SeatResult
from .results import Finding


def _shadow(intake: Any, *more: Any) -> Any:
    """A deep copy of the intake (and its session), the shared caches left shared."""
    s = intake.session
    shared = [s.memo, s.lane, s.loaded, s.info, s.info.profile_origin]
    memo = {id(x): x for x in shared if x is not None}
    return copy.deepcopy((intake, *more), memo)


def verified_round(intake: Any, record: Any, hands: tuple[HandValue, HandValue]) -> CleanGame | None:
    """A format-1 round on the lane, and the full audit of it beside (see the module)."""
    (shadow,) = _shadow(intake)
    clean: CleanGame | None = intake.lane_round(record, hands)
    if clean is None:
        return None
    full = shadow.audit(record.full())
    seq = intake.session.seq
    released, seq.released = seq.released, []  # a held round this one's number settled: the full audit's too
    _compare([*released, clean], full, f"line {record.line}")
    _compare_state(intake.session, shadow.session, f"line {record.line}")
    seq.released = released
    return clean


def verified_game(intake: Any, game: Any) -> list[Any]:
    """A format-2 game on the lane (all its seats or a first few), and the full audit of
    it beside (see the module)."""
    shadow, shadow_game = _shadow(intake, game)
    taken: list[CleanSeat] = []
    clean = intake.lane_game(game, taken)
    ours: list[Any] = [clean] if clean is not None else list(intake.full_game(game, taken))
    full = shadow.full_game(shadow_game, [])
    where = f"game {game.id} (line {game.line})"
    _compare(ours, full, where)
    _compare_state(intake.session, shadow.session, where)
    return ours


def _compare(ours: list[Any], full: list[Any], where: str) -> None:
    mine = [comparable(r.result() if isinstance(r, CleanGame) else r) for r in ours]
    theirs = [comparable(r) for r in full]
    if mine != theirs:
        raise FastPathMismatch(f"{where}: the fast lane gives {mine!r}, the full audit {theirs!r}")


def _compare_state(ours: Any, full: Any, where: str) -> None:
    a, b = state(ours), state(full)
    for name, x, y in zip(("players", "ledger", "counts", "sequence", "session"), a, b, strict=True):
        if x != y:
            raise FastPathMismatch(f"{where}: state {name}: the fast lane leaves {x!r}, the full audit {y!r}")


def comparable(game: GameResult) -> tuple[Any, ...]:
    """Everything a game's result says, as values (exact: ``repr`` tells 1 from 1.0)."""
    return (game.game, game.number, game.file, game.line, game.session, game.format, game.status, repr(game.record),
            game.outcome, game.void_reason, repr(game.player_hand), repr(game.dealer_hand), game.dealer_qualified,
            [_seat(s) for s in game.seats], [_finding(f) for f in game.findings], game.cards, game.table,
            game.repeated)


def _seat(seat: SeatResult) -> tuple[Any, ...]:
    return (seat.player_id, seat.file, seat.line, repr(seat.record), repr(seat.ruling), seat.cancelled,
            [_finding(f) for f in seat.findings], repr(seat.balance), repr(seat.recorded_balance),
            repr(seat.totals), seat.copy, seat.table_void)


def _finding(f: Finding) -> tuple[Any, ...]:
    return tuple(repr(v) for v in astuple(f))


def state(s: Any) -> tuple[Any, ...]:
    """What the session keeps between games, as values."""
    players = [(p.id, repr(p.balance), p.chain, sorted(p.antes.items()), repr(p.stake), repr(p.last_ante),
                p.funded, p.ledger) for p in s.players.values()]
    seq = s.seq
    numbering = (seq.numbering.accept, seq.numbering.replay, sorted(seq.numbering.used))
    sequence = (numbering, sorted(seq.seen), seq.held is not None, seq.late is not None, len(seq.released))
    session = (sorted(s.transactions), sorted(s.game_players.items()), s.table_voided_number, s.valid_voided,
               [_finding(f) for f in s.findings])
    ledger = replace(s.session_ledger, closing_balance=None, recorded_closing_balance=None)  # made at the close
    return players, ledger, s.counts, sequence, session
