"""The desk's search (:func:`referee.store.desk.search_games`): a live table's games among
the stored rows and runs, by the store's indexes, newest (or oldest) first.

Why two halves: a game the audit found something in (a finding, a void or cancelled game,
a second record, an export's) is a ``games`` row with its seats as rows; a clean game is
packed in a run (``runs``, found by time, and by player and game through ``run_keys``).
A clean game has no finding and nothing owed, so a search for a code or an amount owed
reads the rows only. Each half gives its games in order, as many as the page needs; the
two are merged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from . import schema, tableruns
from .read import Stored
from .recall_load import Loader

ZERO = Decimal(0)
#: Rows read at once while a filter that only Python can apply (an amount owed, a dealer
#: in a run) leaves too few.
BATCH = 200


@dataclass(frozen=True, slots=True)
class Filters:
    """What a search asks (each None: any); times in microseconds since 1970 UTC."""

    player: str | None = None
    table: str | None = None
    dealer: str | None = None
    since_us: int | None = None
    until_us: int | None = None
    game: str | None = None
    code: str | None = None
    min_owed: Decimal | None = None


def epoch_us(when: datetime | None) -> int | None:
    """A time as the store keeps it (a time without zone is UTC)."""
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1_000_000)


def as_time(us: int | None) -> datetime | None:
    return None if us is None else datetime.fromtimestamp(us / 1_000_000, UTC)


class Search:
    """One search over an open store (``stored``), its answer in :meth:`games`."""

    def __init__(self, stored: Stored, filters: Filters, ascending: bool = False) -> None:
        self.stored = stored
        self.conn = stored.conn
        self.f = filters
        self.ascending = ascending
        self.loader = Loader(stored)
        self.names = {int(r.id): str(r.name) for r in self.conn.execute(
            _sa().select(schema.sources.c.id, schema.sources.c.name))}
        self.tables: dict[int, str | None] = {}

    def games(self, want: int, skip: int = 0) -> list[Any]:
        """The games of the answer from the ``skip``-th to the ``want``-th, in its order
        (GameHit's). Each half gives the places of its first ``want`` (a game row's id, a
        run's game); only the page's are read whole."""
        found = self._rows(want)
        if self.f.code is None and (self.f.min_owed is None or self.f.min_owed <= 0):
            found += self._runs(want)
        found.sort(key=self._order)
        page = [place for _, place in found[skip:want]]
        g = schema.games
        ids = [place for place in page if isinstance(place, int)]
        rows = {int(row.id): row for row in self.conn.execute(_sa().select(g).where(g.c.id.in_(ids)))} if ids else {}
        made = dict(zip(ids, self._row_hits([rows[i] for i in ids]), strict=True))
        return [made[place] if isinstance(place, int) else self._run_hit(*place) if isinstance(place, tuple)
                else place for place in page]

    def _order(self, item: tuple[tuple[int, int, int], Any]) -> tuple[int, int, int, int]:
        (time_us, source, line), _ = item
        missing = 1 if time_us == _NONE else 0
        sign = 1 if self.ascending else -1
        return missing, sign * time_us, sign * source, sign * line

    # -- games rows ---------------------------------------------------------------------

    def _rows(self, want: int) -> list[tuple[tuple[int, int, int], Any]]:
        sa = _sa()
        g, s, fi = schema.games, schema.seats, schema.findings
        f = self.f
        owed = f.min_owed is not None
        query = (sa.select(g) if owed else sa.select(g.c.id, g.c.time_us, g.c.source_id, g.c.line)).where(
            g.c.game.is_not(None))
        if f.game is not None:
            query = query.where(g.c.game == f.game)
        if f.table is not None:
            query = query.where(g.c.tbl == f.table)
        if f.dealer is not None:
            query = query.where(g.c.dealer == f.dealer)
        if f.since_us is not None:
            query = query.where(g.c.time_us >= f.since_us)
        if f.until_us is not None:
            query = query.where(g.c.time_us < f.until_us)
        if f.player is not None:
            query = query.where(g.c.id.in_(sa.select(s.c.game_id).where(s.c.player == f.player)))
        if f.code is not None:  # ``+ 0``: SQLite without statistics took the session's index, a scan of its findings
            query = query.where(sa.exists().where(fi.c.game == g.c.game, fi.c.code == f.code,
                                                  (fi.c.session_id + 0) == g.c.session_id))
        if f.min_owed is not None and f.min_owed > 0:  # something owed: a finding in a seat
            query = query.where(sa.exists().where(s.c.game == g.c.game, s.c.game_id == g.c.id,
                                                  s.c.findings.is_not(None)))
        order = [g.c.time_us.asc().nulls_last(), g.c.id.asc()] if self.ascending else \
            [g.c.time_us.desc().nulls_last(), g.c.id.desc()]
        out: list[tuple[tuple[int, int, int], Any]] = []
        if not owed:
            return [((_time(row.time_us), int(row.source_id), int(row.line)), int(row.id))
                    for row in self.conn.execute(query.order_by(*order).limit(want))]
        offset = 0
        while len(out) < want:  # what is owed is known once a game's seats are ruled: read until enough
            rows = list(self.conn.execute(query.order_by(*order).limit(BATCH).offset(offset)))
            for row, hit in zip(rows, self._row_hits(rows), strict=True):
                if f.min_owed is None or hit.owed >= f.min_owed:
                    out.append(((_time(row.time_us), int(row.source_id), int(row.line)), hit))
            if len(rows) < BATCH:
                break
            offset += BATCH
        return out[:want]

    def _row_hits(self, rows: list[Any]) -> list[Any]:
        """Game rows as hits: their seats read at once, those with a finding ruled at once
        (what they are owed)."""
        from .desk_records import GameHit
        from .rows import findings_of

        sa = _sa()
        s = schema.seats
        seats: dict[int, list[Any]] = {}
        ids = [int(row.id) for row in rows]
        for start in range(0, len(ids), 500):
            for x in self.conn.execute(sa.select(s.c.id, s.c.game_id, s.c.player, s.c.findings)
                                       .where(s.c.game_id.in_(ids[start:start + 500])).order_by(s.c.id)):
                seats.setdefault(int(x.game_id), []).append(x)
        owed = self._owed([x.id for found in seats.values() for x in found if x.findings is not None])
        hits = []
        for row in rows:
            mine = seats.get(int(row.id), [])
            codes = {f.code for f in findings_of(row.findings)}
            for seat in mine:
                codes.update(f.code for f in findings_of(seat.findings))
            to_player = sum((owed[x.id] for x in mine if owed.get(x.id, ZERO) > 0), ZERO)
            to_house = -sum((owed[x.id] for x in mine if owed.get(x.id, ZERO) < 0), ZERO)
            players = tuple(json.loads(row.players)) if row.players else tuple(str(x.player) for x in mine)
            hits.append(GameHit(str(row.game), row.tbl, row.dealer, as_time(row.time_us), players,
                                tuple(sorted(codes)), to_player + to_house, to_player, to_house,
                                self.names.get(int(row.source_id), "?"), bool(row.second), int(row.line)))
        return hits

    def _owed(self, seat_ids: list[int]) -> dict[int, Decimal]:
        """What each of these seats (with findings) is owed by the rules: over 0 to the
        player, under 0 to the house (its bottom line, :func:`referee.audit.owed.seat_bottom_line`)."""
        from ..audit.owed import seat_bottom_line
        from ..recall import SeatDetail

        out: dict[int, Decimal] = {}
        for seat_id, view in self.loader.by_id(seat_ids).items():
            bottom = seat_bottom_line(view.detail.seat) if isinstance(view.detail, SeatDetail) else None
            if bottom is not None:
                out[seat_id] = bottom.owed
        return out

    # -- runs of clean games --------------------------------------------------------------

    def _runs(self, want: int) -> list[tuple[tuple[int, int, int], Any]]:
        sa = _sa()
        r, k, se = schema.runs, schema.run_keys, schema.sessions
        f = self.f
        query = sa.select(r).where(r.c.games.is_not(None))
        for kind, value in (("player", f.player), ("game", f.game)):
            if value is not None:
                query = query.where(sa.exists().where(k.c.run_id == r.c.id, k.c.kind == kind, k.c.value == value))
        if f.table is not None:
            query = query.where(r.c.session_id.in_(sa.select(se.c.id).where(se.c.tbl == f.table)))
        if f.since_us is not None:
            query = query.where(r.c.time_max_us >= f.since_us)
        if f.until_us is not None:
            query = query.where(r.c.time_min_us < f.until_us)
        order = [r.c.time_min_us.asc().nulls_last(), r.c.id.asc()] if self.ascending else \
            [r.c.time_max_us.desc().nulls_last(), r.c.id.desc()]
        out: list[tuple[tuple[int, int, int], Any]] = []
        offset = 0
        while True:
            runs = list(self.conn.execute(query.order_by(*order).limit(BATCH).offset(offset)))
            for run in runs:
                edge = run.time_min_us if self.ascending else run.time_max_us
                if len(out) >= want and edge is not None and self._past(edge, out, want):
                    return out
                out += self._run_games(self.loader.intact("runs", run))
            if len(runs) < BATCH:
                return out
            offset += BATCH

    def _past(self, edge: int, out: list[tuple[tuple[int, int, int], Any]], want: int) -> bool:
        """Whether no game of a run from ``edge`` on can be among the first ``want``."""
        times = sorted((key[0] for key, _ in out), reverse=not self.ascending)
        kth = times[want - 1]
        return edge > kth if self.ascending else edge < kth

    def _run_games(self, run: Any) -> list[tuple[tuple[int, int, int], Any]]:
        """The games of a run that match, each as (its order, (the run unpacked, its place))."""
        packed = tableruns.Packed(run)
        f = self.f
        out = []
        for game in range(packed.count):
            when = packed.time_us(game)
            if f.since_us is not None and (when is None or when < f.since_us):
                continue
            if f.until_us is not None and (when is None or when >= f.until_us):
                continue
            if (f.game is not None and packed.games[game] != f.game) or \
                    (f.dealer is not None and packed.dealer(game) != f.dealer):
                continue
            if f.player is not None and f.player not in self._players(packed, game):
                continue
            out.append(((_time(when), packed.source_id, int(packed.lines[game])), (packed, game)))
        return out

    @staticmethod
    def _players(packed: tableruns.Packed, game: int) -> tuple[str, ...]:
        return tuple(packed.seat(place, game).player for place in packed.seats_of(game))

    def _run_hit(self, packed: tableruns.Packed, game: int) -> Any:
        """A clean game of a run: no finding, nothing owed."""
        from .desk_records import GameHit

        return GameHit(packed.games[game], self._table(packed.session_id), packed.dealer(game),
                       as_time(packed.time_us(game)), self._players(packed, game), (), ZERO, ZERO, ZERO,
                       self.names.get(packed.source_id, "?"), bool(packed.second[game]), int(packed.lines[game]))

    def _table(self, session_id: int) -> str | None:
        if session_id not in self.tables:
            se = schema.sessions
            self.tables[session_id] = self.conn.execute(_sa().select(se.c.tbl).where(se.c.id == session_id)).scalar()
        return self.tables[session_id]


#: A missing time, in the sort keys (last either way: :meth:`Search._order`).
_NONE = -(1 << 62)


def _time(us: int | None) -> int:
    return _NONE if us is None else int(us)


def _sa() -> Any:
    import sqlalchemy

    return sqlalchemy
