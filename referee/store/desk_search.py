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
#: Runs read at once while the walk along their times goes on.
RUN_BATCH = 20


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
        self.names: dict[int, str] = {}
        self.tables: dict[int, str | None] = {}
        self.span: int | None = None

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
        runs = [place[0] for place in page if isinstance(place, tuple)]
        self._known({int(row.source_id) for row in rows.values()} | {p.source_id for p in runs},
                    {p.session_id for p in runs})
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
        """The first ``want`` game rows that match, in the answer's order: the timed ones
        walked along an index in time order (a table's, a dealer's, a player's seats', or
        every game's), then, if the page is not full, those without a time. Only the rows
        of the page are read, in keyset batches (never an offset that grows)."""
        f = self.f
        owed = f.min_owed is not None and f.min_owed > 0
        out: list[tuple[tuple[int, int, int], Any]] = []
        seen: set[int] = set()
        for timed in (True, False):
            if len(out) >= want or (not timed and (f.since_us is not None or f.until_us is not None)):
                break
            after: tuple[int, int] | None = None
            while len(out) < want:
                size = BATCH if owed else want - len(out) + 1
                batch = self._row_batch(timed, after, size)
                rows = []
                for row in batch:  # a player seated twice in a game (G002): the game once
                    if int(row.id) not in seen:
                        seen.add(int(row.id))
                        rows.append(row)
                if owed:
                    for row, hit in zip(rows, self._row_hits(rows), strict=True):
                        if f.min_owed is not None and hit.owed >= f.min_owed:
                            out.append(((_time(row.time_us), int(row.source_id), int(row.line)), hit))
                else:
                    out += [((_time(row.time_us), int(row.source_id), int(row.line)), int(row.id)) for row in rows]
                if len(batch) < size:
                    break
                after = (int(batch[-1].key_time or 0), int(batch[-1].key_id))
        return out[:want]

    def _row_batch(self, timed: bool, after: tuple[int, int] | None, size: int) -> list[Any]:
        """The next ``size`` game rows that match, after ``after`` (the last batch's time
        and id) in the answer's order; a player's through their seat rows
        (``ix_seats_player_time``), those with a finding code through their codes
        (``ix_game_codes_time``), any other along ``ix_games_tbl_time``,
        ``ix_games_dealer_time`` or ``ix_games_time``."""
        sa = _sa()
        g, s, c = schema.games, schema.seats, schema.game_codes
        f = self.f
        owed = f.min_owed is not None and f.min_owed > 0
        columns = [g] if owed else [g.c.id, g.c.time_us, g.c.source_id, g.c.line]
        if f.player is not None:  # a seat's time is its game's
            key_time, key_id = s.c.time_us, s.c.id
            query = sa.select(*columns, key_time.label("key_time"), key_id.label("key_id")).select_from(
                s.join(g, g.c.id == s.c.game_id)).where(s.c.player == f.player)
            if f.code is not None:
                query = query.where(sa.exists().where(c.c.game_id == g.c.id, c.c.code == f.code))
        elif f.code is not None:  # the game rows with the code, in time order (``ix_game_codes_time``)
            key_time, key_id = c.c.time_us, c.c.game_id
            query = sa.select(*columns, key_time.label("key_time"), key_id.label("key_id")).select_from(
                c.join(g, g.c.id == c.c.game_id)).where(c.c.code == f.code)
        else:
            key_time, key_id = g.c.time_us, g.c.id
            query = sa.select(*columns, key_time.label("key_time"), key_id.label("key_id"))
        if f.player is not None or f.code is None:  # a code's rows all have a game id (``game_codes``)
            query = query.where(g.c.game.is_not(None))
        for column, value in ((g.c.game, f.game), (g.c.tbl, f.table), (g.c.dealer, f.dealer)):
            if value is not None:
                query = query.where(column == value)
        if f.since_us is not None:
            query = query.where(key_time >= f.since_us)
        if f.until_us is not None:
            query = query.where(key_time < f.until_us)
        if owed:  # something owed: a finding in a seat
            query = query.where(sa.exists().where(s.c.game == g.c.game, s.c.game_id == g.c.id,
                                                  s.c.findings.is_not(None)))
        if not timed:
            query = query.where(key_time.is_(None))
            if after is not None:
                query = query.where(key_id > after[1] if self.ascending else key_id < after[1])
            return list(self.conn.execute(query.order_by(key_id.asc() if self.ascending else key_id.desc())
                                          .limit(size)))
        query = query.where(key_time.is_not(None))
        if after is not None:
            key = sa.tuple_(key_time, key_id)
            query = query.where(key > after if self.ascending else key < after)
        order = [key_time.asc(), key_id.asc()] if self.ascending else [key_time.desc(), key_id.desc()]
        return list(self.conn.execute(query.order_by(*order).limit(size)))

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
        coded: dict[int, set[str]] = {}  # a finding kept apart from the row's (a second record's G001): its code too
        c = schema.game_codes
        for start in range(0, len(ids), 500):
            for game_id, code in self.conn.execute(sa.select(c.c.game_id, c.c.code)
                                                   .where(c.c.game_id.in_(ids[start:start + 500]))):
                coded.setdefault(int(game_id), set()).add(str(code))
        owed = self._owed([x.id for found in seats.values() for x in found if x.findings is not None])
        self._known({int(row.source_id) for row in rows}, set())
        hits = []
        for row in rows:
            mine = seats.get(int(row.id), [])
            codes = {f.code for f in findings_of(row.findings)} | coded.get(int(row.id), set())
            for seat in mine:
                codes.update(f.code for f in findings_of(seat.findings))
            to_player = sum((owed[x.id] for x in mine if owed.get(x.id, ZERO) > 0), ZERO)
            to_house = -sum((owed[x.id] for x in mine if owed.get(x.id, ZERO) < 0), ZERO)
            players = tuple(json.loads(row.players)) if row.players else tuple(str(x.player) for x in mine)
            hits.append(GameHit(str(row.game), row.tbl, row.dealer, as_time(row.time_us), players,
                                tuple(sorted(codes)), to_player + to_house, to_player, to_house,
                                self._source(int(row.source_id)), bool(row.second), int(row.line)))
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
        """The first ``want`` clean games that match, from the runs, in the answer's order.
        A player's or a game's runs are found through ``run_keys``; any other search walks
        the runs along ``ix_runs_time`` from where it asks (back from ``until``, or on from
        ``since``), in keyset batches, and stops once no further run can hold a game of
        the page: a run's games lie between its first and its last time, and no run spans
        more than the longest one (``ix_runs_span``)."""
        f = self.f
        if f.player is not None or f.game is not None:
            return self._keyed_runs(want)
        if f.dealer is not None:
            return self._dealt(want)
        sa = _sa()
        r = schema.runs
        query = sa.select(r).where(r.c.games.is_not(None))
        if f.table is not None:
            sessions = self._sessions(f.table)
            if not sessions:
                return []
            # ``+ 0``: walked along the runs' times (filtered by session), not all the table's runs sorted
            query = query.where((r.c.session_id + 0).in_(sessions))
        span = self._span()
        if f.since_us is not None:
            query = query.where(r.c.time_max_us >= f.since_us)
            if self.ascending:
                query = query.where(r.c.time_min_us >= f.since_us - span)
        if f.until_us is not None:
            query = query.where(r.c.time_min_us < f.until_us)
        out: list[tuple[tuple[int, int, int], Any]] = []
        after: tuple[int, int] | None = None
        while True:
            timed = query.where(r.c.time_min_us.is_not(None))
            if after is not None:
                key = sa.tuple_(r.c.time_min_us, r.c.id)
                timed = timed.where(key > after if self.ascending else key < after)
            order = [r.c.time_min_us.asc(), r.c.id.asc()] if self.ascending else \
                [r.c.time_min_us.desc(), r.c.id.desc()]
            runs = list(self.conn.execute(timed.order_by(*order).limit(RUN_BATCH)))
            for run in runs:
                if self._beyond(int(run.time_min_us), span, out, want):
                    return out
                out += self._run_games(self.loader.intact("runs", run))
            if len(runs) < RUN_BATCH:
                break
            after = (int(runs[-1].time_min_us), int(runs[-1].id))
        if len(out) < want and f.since_us is None and f.until_us is None:  # runs without a time, last
            untimed = query.where(r.c.time_min_us.is_(None)).order_by(r.c.id.asc() if self.ascending else r.c.id.desc())
            for run in self.conn.execute(untimed.limit(want)):
                out += self._run_games(self.loader.intact("runs", run))
        return out

    def _beyond(self, first: int, span: int, out: list[tuple[tuple[int, int, int], Any]], want: int) -> bool:
        """Whether no run from one whose first game is at ``first`` on (in the walk's
        order) can hold a game of the answer: none within the times asked, or none
        before the ``want``-th found."""
        if self.ascending:
            return len(out) >= want and first > self._kth(out, want)
        reach = first + span  # the latest game such a run can hold
        if self.f.since_us is not None and reach < self.f.since_us:
            return True
        return len(out) >= want and reach < self._kth(out, want)

    def _kth(self, out: list[tuple[tuple[int, int, int], Any]], want: int) -> int:
        times = sorted((key[0] for key, _ in out), reverse=not self.ascending)
        return times[want - 1]

    def _keyed_runs(self, want: int) -> list[tuple[tuple[int, int, int], Any]]:
        """A player's or a game's runs (``run_keys``), read whole newest (or oldest) first
        until no further run can hold a game of the page."""
        sa = _sa()
        r, k = schema.runs, schema.run_keys
        f = self.f
        ids: set[int] | None = None
        for kind, value in (("player", f.player), ("game", f.game)):
            if value is not None:
                found = set(self.conn.execute(sa.select(k.c.run_id).where(k.c.value == value, k.c.kind == kind))
                            .scalars())
                ids = found if ids is None else ids & found
        wanted = sorted(ids or ())
        places: list[Any] = []
        for start in range(0, len(wanted), 500):
            places += self.conn.execute(sa.select(r.c.id, r.c.time_min_us, r.c.time_max_us, r.c.session_id)
                                        .where(r.c.id.in_(wanted[start:start + 500]), r.c.games.is_not(None)))
        if f.table is not None:
            sessions = set(self._sessions(f.table))
            places = [p for p in places if int(p.session_id) in sessions]
        places = [p for p in places if _within(p, f.since_us, f.until_us)]
        sign = 1 if self.ascending else -1
        places.sort(key=lambda p: (p.time_min_us is None, sign * (p.time_min_us or 0), sign * int(p.id)))
        span = self._span()
        out: list[tuple[tuple[int, int, int], Any]] = []
        for place in places:
            if place.time_min_us is not None and self._beyond(int(place.time_min_us), span, out, want):
                break
            run = self.conn.execute(sa.select(r).where(r.c.id == place.id)).one()
            out += self._run_games(self.loader.intact("runs", run))
        return out

    def _dealt(self, want: int) -> list[tuple[tuple[int, int, int], Any]]:
        """A dealer's first ``want`` clean games that match, in the answer's order: their
        places walked along ``ix_dealer_games_time`` (a row a game) in keyset batches,
        then, if the page is not full and no time was asked, those without a time; only
        the runs that hold them are read."""
        sa = _sa()
        d, r = schema.dealer_games, schema.runs
        f = self.f
        query = sa.select(d.c.run_id, d.c.place, d.c.time_us).where(d.c.dealer == f.dealer)
        if f.table is not None:
            sessions = self._sessions(f.table)
            if not sessions:
                return []
            query = query.select_from(d.join(r, r.c.id == d.c.run_id)).where(r.c.session_id.in_(sessions))
        if f.since_us is not None:
            query = query.where(d.c.time_us >= f.since_us)
        if f.until_us is not None:
            query = query.where(d.c.time_us < f.until_us)
        places: list[Any] = []
        for timed in (True, False):
            if len(places) >= want or (not timed and (f.since_us is not None or f.until_us is not None)):
                break
            after: tuple[int, ...] | None = None
            keys = [d.c.time_us, d.c.run_id, d.c.place] if timed else [d.c.run_id, d.c.place]
            part = query.where(d.c.time_us.is_not(None) if timed else d.c.time_us.is_(None))
            while len(places) < want:
                batch = part
                if after is not None:
                    key = sa.tuple_(*keys)
                    batch = batch.where(key > after if self.ascending else key < after)
                size = want - len(places)
                found = list(self.conn.execute(batch.order_by(*(k.asc() if self.ascending else k.desc()
                                                                  for k in keys)).limit(size)))
                places += found
                if len(found) < size:
                    break
                last = found[-1]
                after = (int(last.time_us), int(last.run_id), int(last.place)) if timed else \
                    (int(last.run_id), int(last.place))
        runs = {}
        wanted = sorted({int(p.run_id) for p in places})
        for start in range(0, len(wanted), 500):
            for run in self.conn.execute(sa.select(r).where(r.c.id.in_(wanted[start:start + 500]))):
                runs[int(run.id)] = tableruns.Packed(self.loader.intact("runs", run))
        out: list[tuple[tuple[int, int, int], Any]] = []
        for p in places:
            packed, game = runs[int(p.run_id)], int(p.place)
            if packed.dealer(game) == f.dealer:  # as the run's own bytes say (its digest checked)
                out.append(((_time(packed.time_us(game)), packed.source_id, int(packed.lines[game])), (packed, game)))
        return out

    def _sessions(self, table: str) -> list[int]:
        """The ids of a table's sessions (``ix_sessions_tbl``)."""
        se = schema.sessions
        return [int(x) for x in self.conn.execute(_sa().select(se.c.id).where(se.c.tbl == table)).scalars()]

    def _span(self) -> int:
        """The longest time a run of games spans, in microseconds (``ix_runs_span``: one
        step of an index, not a scan of the runs)."""
        if self.span is None:
            r = schema.runs
            found = self.conn.execute(_sa().select(_sa().func.max(r.c.time_max_us - r.c.time_min_us))).scalar()
            self.span = int(found or 0)
        return self.span

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
                       self._source(packed.source_id), bool(packed.second[game]), int(packed.lines[game]))

    def _known(self, sources: set[int], sessions: set[int]) -> None:
        """The names of ``sources`` and the tables of ``sessions`` not read yet, read at
        once (one statement each, not one a source: a page's games come from a few)."""
        sa = _sa()
        so, se = schema.sources, schema.sessions
        if wanted := sorted(sources - self.names.keys()):
            for sid, name in self.conn.execute(sa.select(so.c.id, so.c.name).where(so.c.id.in_(wanted))):
                self.names[int(sid)] = str(name)
        if wanted := sorted(sessions - self.tables.keys()):
            found = dict(self.conn.execute(sa.select(se.c.id, se.c.tbl).where(se.c.id.in_(wanted))).all())
            self.tables.update({i: found.get(i) for i in wanted})

    def _source(self, source_id: int) -> str:
        """A source's name (read once a search: only the page's sources are read)."""
        if source_id not in self.names:
            so = schema.sources
            found = self.conn.execute(_sa().select(so.c.name).where(so.c.id == source_id)).scalar()
            self.names[source_id] = "?" if found is None else str(found)
        return self.names[source_id]

    def _table(self, session_id: int) -> str | None:
        if session_id not in self.tables:
            se = schema.sessions
            self.tables[session_id] = self.conn.execute(_sa().select(se.c.tbl).where(se.c.id == session_id)).scalar()
        return self.tables[session_id]


#: A missing time, in the sort keys (last either way: :meth:`Search._order`).
_NONE = -(1 << 62)


def _within(run: Any, since_us: int | None, until_us: int | None) -> bool:
    """Whether a run (its first and last times) can hold a game from ``since_us`` to
    before ``until_us``."""
    if since_us is not None and (run.time_max_us is None or run.time_max_us < since_us):
        return False
    return until_us is None or (run.time_min_us is not None and run.time_min_us < until_us)


def _time(us: int | None) -> int:
    return _NONE if us is None else int(us)


def _sa() -> Any:
    import sqlalchemy

    return sqlalchemy
