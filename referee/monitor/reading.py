"""The seat facts of a store, read without replaying anything (``docs/store.md``,
"For monitor: the seat facts"): one query for the seats kept as rows, one for the
clean rounds packed in runs. The store is opened read-only (:class:`~referee.store.read.Stored`)."""

from __future__ import annotations

import json
from typing import Any

from ..store import schema
from .facts import Seat, unpack_known

#: Where a read starts and ends: (the last seat row's id, the last run's id), both included
#: in the read that ends there and left out of the one that starts there.
Marks = tuple[int, int]


def seats(conn: Any, after: Marks = (0, 0), upto: Marks | None = None) -> list[Seat]:
    """Every counted seat of the store (those stored after ``after`` and up to ``upto``
    when given: the monitor's cache reads what it has not seen), in the store's order,
    newest last."""
    found = _rows(conn, after[0], None if upto is None else upto[0]) + _runs(conn, after[1],
                                                                            None if upto is None else upto[1])
    found.sort(key=lambda f: f[0])
    first: dict[object, int] = {}
    out: list[Seat] = []
    for seat_id, second, seat in found:  # a game's seats are placed at its first seat read, in rows or runs
        if isinstance(seat.game, tuple) and seat.game[0] != "seat":
            new = seat.game not in first
            seat.order = first.setdefault(seat.game, seat_id)
            seat.deal = new and not second
        out.append(seat)
    out.sort(key=lambda s: s.order)
    return out


#: A seat as read, before its game's place is known: its id, whether its game is a second
#: record of a game, and its facts.
_Found = tuple[int, bool, Seat]


def _rows(conn: Any, after: int = 0, upto: int | None = None) -> list[_Found]:
    import sqlalchemy as sa

    s, st, se, g = schema.seats, schema.settlements, schema.sessions, schema.games
    query = (sa.select(s.c.id, s.c.time_us, s.c.player, s.c.known, s.c.player_value, s.c.dealer_value,
                       s.c.bonus_value, st.c.outcome, st.c.ante_u, st.c.main_staked_u, st.c.main_net_u,
                       st.c.bonus_staked_u, se.c.origin, se.c.tbl.label("session_tbl"),
                       se.c.player.label("session_player"), g.c.id.label("game_row"), g.c.tbl, g.c.game,
                       g.c.dealer, g.c.second)
             .select_from(s.join(st, st.c.id == s.c.settlement_id).join(se, se.c.id == s.c.session_id)
                          .outerjoin(g, g.c.id == s.c.game_id))
             .where(s.c.kind == "counted", s.c.id > after).order_by(s.c.id))
    if upto is not None:
        query = query.where(s.c.id <= upto)
    out: list[_Found] = []
    for r in conn.execute(query):
        if r.ante_u is None or r.main_staked_u is None or r.main_net_u is None:
            continue  # an amount that is not a whole number of millionths: not summed
        table = r.tbl if r.tbl is not None else r.session_tbl
        if r.game_row is None:
            key: object = ("seat", r.id)
        else:
            key = ("game", table, r.game) if r.game is not None else ("row", r.game_row)
        out.append((r.id, bool(r.second), Seat(
            order=r.id, game=key, time_us=r.time_us, table=table, dealer=r.dealer,
            profile=r.origin or "builtin:vivo", player=r.player if r.player is not None else r.session_player,
            ante_u=r.ante_u, staked_u=r.main_staked_u, net_u=r.main_net_u, bonus_u=r.bonus_staked_u or 0,
            called=r.outcome != "fold", known=unpack_known(r.known), bonus_value=r.bonus_value,
            player_value=r.player_value, dealer_value=r.dealer_value, row=r.id)))
    return out


def _runs(conn: Any, after: int = 0, upto: int | None = None) -> list[_Found]:
    """The fast lane's clean rounds (format 1: no table, dealer or time) and a live
    table's clean games, unpacked."""
    import sqlalchemy as sa

    r, se, st = schema.runs, schema.sessions, schema.settlements
    query = (sa.select(r, se.c.origin, se.c.tbl, se.c.player.label("session_player"))
             .select_from(r.join(se, se.c.id == r.c.session_id)).where(r.c.id > after).order_by(r.c.first_seat))
    if upto is not None:
        query = query.where(r.c.id <= upto)
    runs = conn.execute(query).all()
    ids = sorted({i for run in runs for i in json.loads(run.settlements)})
    settled: dict[int, Any] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        for row in conn.execute(sa.select(st.c.id, st.c.outcome, st.c.ante_u, st.c.main_staked_u, st.c.main_net_u,
                                          st.c.bonus_staked_u, st.c.bonus_cat).where(st.c.id.in_(part))):
            settled[row.id] = row
    out: list[_Found] = []
    for run in runs:
        picks = [settled[i] for i in json.loads(run.settlements)]
        out += _rounds(run, picks) if run.games is None else _games(run, picks)
    return out


def _rounds(run: Any, picks: list[Any]) -> list[_Found]:
    """A run of format-1 rounds."""
    from ..rules.hands import evaluate

    out: list[_Found] = []
    for i in range(run.rounds):
        row = picks[int.from_bytes(run.picks[2 * i:2 * i + 2], "little")]
        if row.ante_u is None or row.main_staked_u is None or row.main_net_u is None:
            continue
        known = tuple(run.cards[9 * i:9 * i + 5])
        bonus = row.bonus_staked_u or 0
        out.append((run.first_seat + i, False, Seat(
            order=run.first_seat + i, game=("seat", run.first_seat + i), time_us=None, table=run.tbl,
            dealer=None, profile=run.origin or "builtin:vivo", player=run.session_player, ante_u=row.ante_u,
            staked_u=row.main_staked_u, net_u=row.main_net_u, bonus_u=bonus, called=row.outcome != "fold",
            known=known, bonus_value=evaluate(list(known)).value if bonus else None, row=-run.id)))
    return out


def _games(run: Any, picks: list[Any]) -> list[_Found]:
    """A run of a live table's clean games: each seat as its row would have it (its hands
    its game's cards evaluated, its bonus hand's where its settlement has one)."""
    from ..rules.hands import evaluate
    from ..store.tableruns import Packed

    packed = Packed(run)
    out: list[_Found] = []
    for game in range(packed.count):
        cards = packed.game_cards(game)
        board = [cards[2], cards[3], cards[4], cards[5], cards[6]]
        player = evaluate([cards[0], cards[1], *board]).value
        dealer = evaluate([cards[7], cards[8], *board]).value
        bonus = evaluate(list(cards[:5])).value
        key = ("game", run.tbl, packed.games[game])
        when, by, second = packed.time_us(game), packed.dealer(game), bool(packed.second[game])
        for place in packed.seats_of(game):
            row = picks[packed.picks[place]]
            if row.ante_u is None or row.main_staked_u is None or row.main_net_u is None:
                continue
            out.append((packed.first_seat + place, second, Seat(
                order=packed.first_seat + place, game=key, time_us=when, table=run.tbl, dealer=by,
                profile=run.origin or "builtin:vivo", player=packed.players[packed.player_picks[place]],
                ante_u=row.ante_u, staked_u=row.main_staked_u, net_u=row.main_net_u,
                bonus_u=row.bonus_staked_u or 0, called=row.outcome != "fold", known=tuple(cards[:5]),
                bonus_value=bonus if row.bonus_cat is not None else None, player_value=player, dealer_value=dealer,
                row=-run.id)))
    return out
