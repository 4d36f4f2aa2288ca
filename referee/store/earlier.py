"""The games stored before a source, found for its games to be compared with (``G001``/
``G002`` against the store): kept as rows or in runs of a live table's clean games, read
as one first record each (the first stored: its file, line and cards; every record's
players); and the format-1 sessions stored before it, for its sessions to be compared
with (``S010``/``S011``). Apart from the writer: a read, on the writer's transaction or
a connection of its own."""

from __future__ import annotations

import json
from typing import Any

from . import schema, tableruns
from .rows import GameFingerprint

#: A game's key: (its table, its id).
Key = tuple[str | None, str]


def any_before(conn: Any, limit: int) -> bool:
    """Whether the store holds any game of a source before ``limit`` (a new store holds
    none: nothing to look up)."""
    from sqlalchemy import select

    g, r = schema.games, schema.runs
    return (conn.execute(select(g.c.id).where(g.c.source_id < limit).limit(1)).first() is not None
            or conn.execute(select(r.c.id).where(r.c.games.is_not(None), r.c.source_id < limit)
                            .limit(1)).first() is not None)


def games(conn: Any, limit: int, keys: set[Key]) -> dict[Key, GameFingerprint]:
    """The games of ``keys`` stored by sources before ``limit``, as one first record each."""
    names = sorted({game for _, game in keys})
    records: list[tuple[int, int, GameFingerprint]] = []
    for start in range(0, len(names), 500):
        records += _rows_of(conn, limit, names[start:start + 500], keys)
        records += _runs_of(conn, limit, names[start:start + 500], keys)
    records.sort(key=lambda r: (r[0], r[1]))  # the order they were stored in: source, then line
    found: dict[Key, GameFingerprint] = {}
    for _, _, fp in records:
        key = (fp.table, fp.game or "")
        first = found.get(key)
        if first is None:
            found[key] = fp
        else:
            found[key] = GameFingerprint(first.game, "", first.file, first.line,
                                         first.cards if first.cards is not None else fp.cards,
                                         (*first.players, *fp.players), first.table, first.kind)
    return found


def _rows_of(conn: Any, limit: int, names: list[str], keys: set[Key]) -> list[tuple[int, int, GameFingerprint]]:
    """The records of games ``names`` kept as rows: (source, line, fingerprint)."""
    from sqlalchemy import select

    g, s = schema.games, schema.sources
    query = (select(g.c.tbl, g.c.game, g.c.cards, g.c.players, g.c.line, g.c.kind, s.c.name, g.c.source_id)
             .join(s, s.c.id == g.c.source_id).where(g.c.game.in_(names), g.c.source_id < limit))
    out = []
    for row in conn.execute(query):
        if (row.tbl, row.game) in keys:
            cards = None if row.cards is None else tuple(json.loads(row.cards))
            out.append((row.source_id, row.line, GameFingerprint(row.game, "", row.name, row.line, cards,
                                                                 tuple(json.loads(row.players)), row.tbl,
                                                                 row.kind)))
    return out


def _runs_of(conn: Any, limit: int, names: list[str], keys: set[Key]) -> list[tuple[int, int, GameFingerprint]]:
    """The records of games ``names`` kept in runs of clean games."""
    from sqlalchemy import select

    r, k, s, se = schema.runs, schema.run_keys, schema.sources, schema.sessions
    query = (select(r, se.c.tbl.label("session_tbl"), s.c.name.label("source_name"),
                    k.c.value.label("wanted")).select_from(k.join(r, r.c.id == k.c.run_id)
                                                           .join(s, s.c.id == r.c.source_id)
                                                           .join(se, se.c.id == r.c.session_id))
             .where(k.c.kind == "game", k.c.value.in_(names), r.c.source_id < limit))
    runs: dict[int, tableruns.Packed] = {}
    out = []
    for row in conn.execute(query):
        if (row.session_tbl, row.wanted) not in keys:
            continue
        packed = runs.get(row.id)
        if packed is None:
            packed = runs[row.id] = tableruns.Packed(row)
        for game in packed.records_of(row.wanted):
            line = packed.lines[game]
            players = tuple(packed.seat(place, game).player for place in packed.seats_of(game))
            out.append((packed.source_id, line, GameFingerprint(row.wanted, "", row.source_name, line,
                                                                packed.card_names(game), players,
                                                                row.session_tbl, "counted")))
    return out


#: A format-1 session stored before: its source's name, its line, its digest, its records.
StoredSession = tuple[str, int, str, int]


def any_sessions_before(conn: Any, limit: int) -> bool:
    """Whether the store holds a format-1 session with its digest (written since the
    digest is kept) of a source before ``limit``."""
    from sqlalchemy import select

    se = schema.sessions
    return conn.execute(select(se.c.id).where(se.c.format == 1, se.c.counts.is_not(None), se.c.source_id < limit)
                        .limit(1)).first() is not None


def sessions(conn: Any, limit: int, ident: str) -> list[StoredSession]:
    """The format-1 sessions ``ident`` stored by sources before ``limit``, in the order they
    were stored in."""
    from sqlalchemy import select

    se, s = schema.sessions, schema.sources
    query = (select(s.c.name, se.c.line, se.c.counts).join(s, s.c.id == se.c.source_id)
             .where(se.c.ident == ident, se.c.format == 1, se.c.counts.is_not(None), se.c.source_id < limit)
             .order_by(se.c.source_id, se.c.line))
    out = []
    for row in conn.execute(query):
        held = json.loads(row.counts)
        out.append((row.name, row.line, str(held["content"]), int(held["records"])))
    return out
