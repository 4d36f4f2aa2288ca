"""``recall --store``'s search: where, among the stored seats and runs, are the rounds a
query targets and the windows before them.

Why apart from the loading (:mod:`referee.store.recall_load`): it finds seat ids, by the
store's indexes (by game, round number, time, player, session; a run of a live table's
games by its keys, then its packed columns), and hands them to the loader; what a view
is made of is none of its business.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ..recall import NAMED_SESSIONS, Query, Recall, Selector, game_key
from . import schema, tableruns
from .read import Stored
from .recall_load import Loader

#: How many stored rows before a window recall reads, at most, to find where a player's
#: recorded balance left the rules' chain (past that, it says nothing of where).
LOOK_BACK = 10_000


class Finder:
    """The store's rows of one recall: what is wanted, where the windows are."""

    def __init__(self, stored: Stored, source_ids: list[int] | None, query: Query) -> None:
        self.stored = stored
        self.conn = stored.conn
        self.sources = source_ids
        self.q = query
        self.width = max(query.last - 1, 1)  # games before a target's; one at least keeps two targets apart
        self.sessions = self._sessions()
        self.loader = Loader(stored)

    def _sessions(self) -> list[int] | None:
        """The sessions of the session asked for (None: any session)."""
        import sqlalchemy as sa

        if self.q.session is None:
            return None
        se = schema.sessions
        query = sa.select(se.c.id).where(se.c.ident == self.q.session)
        if self.sources is not None:
            query = query.where(se.c.source_id.in_(self.sources))
        return [r.id for r in self.conn.execute(query)]

    def answer(self, found: Recall) -> None:
        q = self.q
        if q.round is None and q.game is None and q.at is None:
            self._latest(found)
            return
        targets = self._targets()
        ids: set[int] = set()
        ends: set[int] = set()  # the targets whose window is read
        for seat_id, session_id in targets:  # a player's window runs across sessions, a session's does not
            within = None if q.player is not None else session_id
            ids.add(seat_id)
            if ends:  # the next seat of a target's game (or the game after it) ends a window already read
                previous = self._before(seat_id, within, 1)
                if previous and previous[0] in ends:
                    ends.add(seat_id)
                    continue
            ids.update(self._games_before(seat_id, within, self.width))
            ends.add(seat_id)
        self._feed(ids, found)

    def _feed(self, ids: set[int], found: Recall) -> None:
        """The views of ``ids``, and the rows before them back to where a recorded
        balance off the rules' chain left it, through the selector, into ``found``."""
        selector = Selector(self.q)
        ids, selector.unknown = self._back_to_departures(ids)
        for view in self.loader.views(sorted(ids)):
            selector.feed(view)
        found.matches = selector.finish()
        found.seen = self._seen(found)

    def _back_to_departures(self, ids: set[int]) -> tuple[set[int], set[tuple[int, str | None]]]:
        """``ids`` and, for each player whose first row among them has a recorded balance
        off the rules' chain, the player's rows before it back to the one where the
        balance came to be off by that (so that recall names it, as it does from the
        files); at most :data:`LOOK_BACK` rows a player, past which where it left is
        said to be unknown (the players returned)."""
        views = self.loader.by_id(sorted(ids))
        lowest: dict[tuple[int, str | None], int] = {}
        said: dict[tuple[int, str | None], Decimal] = {}  # the first recorded balance's distance from the chain
        for i in sorted(ids):
            if i in views:
                key = (views[i].session_key, views[i].player)
                lowest.setdefault(key, i)
                off = views[i].off
                if off is not None:  # a row that records no balance (a repeated round) keeps the streak
                    said.setdefault(key, off)
        extra: set[int] = set()
        unknown: set[tuple[int, str | None]] = set()
        for key, below in lowest.items():
            off = said.get(key)
            if not off:
                continue
            found, want, seen = False, 64, 0
            while not found and seen < LOOK_BACK:
                before = self._before(below, key[0], want)
                got = self.loader.by_id(before)
                seen += len(before)
                for i in reversed(before):
                    v = got.get(i)
                    if v is None or (v.session_key, v.player) != key:
                        continue
                    extra.add(i)
                    if v.off is not None and v.off != off:
                        found = True
                        break
                if len(before) < want:
                    found = True  # the session's first rows reached
                if before:
                    below = before[0]
                want = min(want * 4, LOOK_BACK)
            if not found:
                unknown.add(key)
        return ids | extra, unknown

    def _latest(self, found: Recall) -> None:
        """No target: the last rounds of the player, or of the last session (asked for,
        or the only one)."""
        q = self.q
        last = self._last()
        if last is None:
            found.seen = self._seen(found)
            return
        seat_id, session_id = last
        before = self._games_before(seat_id, None if q.player is not None else session_id, q.last - 1)
        self._feed({*before, seat_id}, found)

    def _games_before(self, seat_id: int, session_id: int | None, count: int) -> list[int]:
        """The ids of the wanted views before ``seat_id`` (in its session, when given) from
        the first of the ``count`` whole games before the seat's own: its own game's seats
        before it, then ``count`` games (a round of format 1 is one; a live table's game
        its wanted seats, so a window never starts partway into a game).

        How many seats a game holds is known once they are read: the views are read back
        (the loader keeps them for the answer) and more asked for until the first game of
        the window is whole (the game before it seen, or nothing before it)."""
        want = count + 1
        while True:
            ids = self._before(seat_id, session_id, want)
            views = self.loader.by_id([*ids, seat_id])
            keys = {i: game_key(view) for i, view in views.items()}
            found: list[list[int]] = []  # the ids, game by game
            for i in [*ids, seat_id]:
                key = keys.get(i)
                if found and key is not None and keys.get(found[-1][-1]) == key:
                    found[-1].append(i)
                else:
                    found.append([i])
            whole = len(found) > count + 1 or (len(found) == count + 1 and keys.get(found[0][0]) is None)
            if len(ids) < want or whole:
                return [i for game in (found[-(count + 1):] if whole else found) for i in game]
            # more seats a game than thought: enough for the games still wanted, a fifth more
            per_game = (len(ids) + 1) / len(found)
            want = max(want + count + 1, int(per_game * (count + 2) * 1.2) + 1)

    # -- queries -----------------------------------------------------------------------

    def _wanted_seats(self, query: Any, table: Any) -> Any:
        q = self.q
        if self.sessions is not None:
            query = query.where(table.c.session_id.in_(self.sessions))
        elif self.sources is not None:
            query = query.where(table.c.source_id.in_(self.sources))
        if q.player is not None and table is schema.seats:
            query = query.where(table.c.player == q.player)
        return query

    def _wanted_runs(self, query: Any) -> list[Any]:
        """Runs holding a wanted view (``query`` narrowed): of the sessions or sources asked
        for; of the player asked for, a run of rounds by its session's player and a run of a
        live table's games by ``run_keys``, as two queries (as one, with an OR, SQLite read
        every run of the player: a tenth of a second among 10 million seats), the second
        looking up the player's key of each run the rest of the query leaves."""
        import sqlalchemy as sa

        r, se, k = schema.runs, schema.sessions, schema.run_keys
        query = self._wanted_seats(query, r)
        if self.q.player is None:
            return [query]
        return [query.where(r.c.games.is_(None),
                            r.c.session_id.in_(sa.select(se.c.id).where(se.c.player == self.q.player))),
                query.where(r.c.games.is_not(None), sa.exists().where(k.c.run_id == r.c.id, k.c.kind == "player",
                                                                      k.c.value == self.q.player))]

    def _runs(self, query: Any) -> list[Any]:
        """The wanted runs of ``query``."""
        return [row for wanted in self._wanted_runs(query) for row in self.conn.execute(wanted)]

    def _wanted_places(self, packed: tableruns.Packed, places: Iterable[int]) -> list[int]:
        """The seat ids of a run of games at ``places`` that are of the player asked for."""
        player = self.q.player
        players, picks = packed.players, packed.player_picks
        return [packed.first_seat + p for p in places if player is None or players[picks[p]] == player]

    def _targets(self) -> list[tuple[int, int]]:
        """(seat id, session id) of every view the query targets."""
        import sqlalchemy as sa

        q, s, r = self.q, schema.seats, schema.runs
        out: list[tuple[int, int]] = []
        if q.game is not None:
            rows = self.conn.execute(self._wanted_seats(sa.select(s.c.id, s.c.session_id).where(s.c.game == q.game), s))
            out += [(row.id, row.session_id) for row in rows]
            k = schema.run_keys
            for run in self._runs(sa.select(r).where(
                    r.c.id.in_(sa.select(k.c.run_id).where(k.c.value == q.game, k.c.kind == "game")))):
                packed = tableruns.Packed(run)
                for game in packed.records_of(q.game):
                    out += [(i, run.session_id) for i in self._wanted_places(packed, packed.seats_of(game))]
        elif q.round is not None:
            rows = self.conn.execute(self._wanted_seats(
                sa.select(s.c.id, s.c.session_id).where(s.c.number == q.round), s))
            out += [(row.id, row.session_id) for row in rows]
            runs = self._runs(sa.select(r.c.first_seat, r.c.first_number, r.c.session_id)
                              .where(r.c.games.is_(None), r.c.first_number <= q.round,
                                     r.c.first_number + r.c.rounds > q.round))
            out += [(row.first_seat + q.round - row.first_number, row.session_id) for row in runs]
            for run in self._runs(sa.select(r).where(r.c.games.is_not(None), r.c.first_number <= q.round,
                                                     r.c.last_number >= q.round)):
                packed = tableruns.Packed(run)
                for game in packed.numbered(q.round):
                    out += [(i, run.session_id) for i in self._wanted_places(packed, packed.seats_of(game))]
        elif q.at is not None:
            from .rows import epoch_us

            at = epoch_us(q.at)
            assert at is not None
            found = self.conn.execute(self._wanted_seats(
                sa.select(s.c.id, s.c.session_id, s.c.time_us).where(s.c.time_us <= at)
                .order_by(s.c.time_us.desc(), s.c.id.desc()).limit(1), s)).first()
            best = None if found is None else (found.time_us, found.id, found.session_id)
            best = self._latest_in_runs(at, best)
            if best is not None:
                out.append((best[1], best[2]))
        return sorted(out)

    def _latest_in_runs(self, at: int, best: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        """The latest wanted seat at ``at`` or before (time, id, session id), ties to the
        later seat, among ``best`` and the runs of a live table's games with times."""
        import sqlalchemy as sa

        r = schema.runs
        candidates = self._runs(sa.select(r.c.id, r.c.time_max_us, r.c.first_seat, r.c.rounds)
                                .where(r.c.time_min_us <= at))
        candidates.sort(key=lambda c: (min(c.time_max_us, at), c.first_seat), reverse=True)
        for c in candidates:
            if best is not None and (min(c.time_max_us, at), c.first_seat + c.rounds - 1) < best[:2]:
                break
            run = self.conn.execute(sa.select(r).where(r.c.id == c.id)).one()
            packed = tableruns.Packed(run)
            for game in range(packed.count):
                when = packed.time_us(game)
                if when is None or when > at:
                    continue
                for seat_id in self._wanted_places(packed, packed.seats_of(game)):
                    if best is None or (when, seat_id) > best[:2]:
                        best = (when, seat_id, run.session_id)
        return best

    def _last(self) -> tuple[int, int] | None:
        """The last wanted view (seat id, session id)."""
        import sqlalchemy as sa

        s = schema.seats
        seat = self.conn.execute(self._wanted_seats(
            sa.select(s.c.id, s.c.session_id).order_by(s.c.id.desc()).limit(1), s)).first()
        best = None if seat is None else (int(seat.id), int(seat.session_id))
        for run in self._runs_before(None, None, 1):
            ids = self._run_ids(run, run.first_seat + run.rounds, 1)
            if ids and (best is None or ids[-1] > best[0]):
                best = (ids[-1], int(run.session_id))
        return best

    def _run_ids(self, run: Any, below: int, count: int) -> list[int]:
        """The ids of the last ``count`` wanted views of a run below ``below``."""
        last = min(run.first_seat + run.rounds, below)
        if run.games is None or self.q.player is None:
            return list(range(max(run.first_seat, last - count), last))
        packed = tableruns.Packed(run)
        return self._wanted_places(packed, range(last - packed.first_seat))[-count:]

    def _before(self, seat_id: int, session_id: int | None, count: int) -> list[int]:
        """The ids of the ``count`` wanted views before ``seat_id`` (in its session, when given)."""
        import sqlalchemy as sa

        s = schema.seats
        seats = sa.select(s.c.id).where(s.c.id < seat_id)
        if session_id is not None:
            seats = seats.where(s.c.session_id == session_id)
        ids = [row.id for row in self.conn.execute(self._wanted_seats(seats.order_by(s.c.id.desc()).limit(count),
                                                                        s))]
        # a run of a player's games may hold none of them before the seat (the one it is in)
        for row in self._runs_before(seat_id, session_id, count + 1):
            ids += self._run_ids(row, seat_id, count)
        return sorted(ids)[-count:]

    def _runs_before(self, below: int | None, session_id: int | None, limit: int) -> list[Any]:
        """The last ``limit`` wanted runs that begin before seat ``below`` (any, when None),
        in the session when given, the last first."""
        import sqlalchemy as sa

        r, k = schema.runs, schema.run_keys
        query = sa.select(r)
        if below is not None:
            query = query.where(r.c.first_seat < below)
        if session_id is not None:
            query = query.where(r.c.session_id == session_id)
        wanted = self._wanted_runs(query)
        if self.q.player is not None and session_id is None:  # the player's runs of games newest first, from
            wanted[1] = self._wanted_seats(query, r).join(k, k.c.run_id == r.c.id).where(  # their keys: no sort
                k.c.value == self.q.player, k.c.kind == "player", r.c.games.is_not(None)).order_by(k.c.run_id.desc())
        found: list[Any] = []
        for runs in wanted:  # runs are numbered in the store's order
            found += self.conn.execute(runs.order_by(r.c.id.desc()).limit(limit))
        found.sort(key=lambda run: run.first_seat, reverse=True)  # runs are numbered in the store's order
        return found[:limit]

    def _seen(self, found: Recall) -> dict[str, int]:
        """The first sessions that hold a wanted view (what an ambiguous question names)."""
        import sqlalchemy as sa

        se, _s, _r = schema.sessions, schema.seats, schema.runs
        query = sa.select(se.c.ident, se.c.id).order_by(se.c.id)
        if self.sessions is not None:
            query = query.where(se.c.id.in_(self.sessions))
        elif self.sources is not None:
            query = query.where(se.c.source_id.in_(self.sources))
        seen: dict[str, int] = {}
        for row in self.conn.execute(query):
            if len(seen) >= NAMED_SESSIONS:
                break
            if row.ident in seen or not self._has_views(row.id):
                continue
            seen[row.ident] = 1
        return seen

    def _has_views(self, session_id: int) -> bool:
        import sqlalchemy as sa

        s, r = schema.seats, schema.runs
        seat = sa.select(s.c.id).where(s.c.session_id == session_id)
        if self.q.player is not None:
            seat = seat.where(s.c.player == self.q.player)
        if self.conn.execute(seat.limit(1)).first() is not None:
            return True
        return any(self.conn.execute(runs.limit(1)).first() is not None
                   for runs in self._wanted_runs(sa.select(r.c.id).where(r.c.session_id == session_id)))
