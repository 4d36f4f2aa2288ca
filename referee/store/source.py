"""One source being stored: its transaction, its rows, its bytes, its digests.

Why a transaction that waits for the others: the source's games are compared with
every game stored before it, and its link in the chain names the one before; so a
writer takes the store's lock (``store_meta``'s row) first, and a second writer waits
until the first has committed its source. The source's bytes are read, hashed, cut at
line ends and compressed on another core meanwhile (:class:`Chunker`), and must be
the very bytes the audit read (the same SHA-256) to be kept.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .. import __version__
from ..load.inputs import Source
from . import desk_keys, digest, earlier, kept_profiles, readback, rows, schema, tableruns
from .chunks import Chunker
from .engine import Target
from .inserts import write_rows
from .memo import ByObject
from .rows import Finding, GameFingerprint, InputInfo, SessionInfo, SessionResult
from .tableruns import LaneGames
from .wallets import KeptWallet, WalletLog, begin_kept

_T = TypeVar("_T")


class Seconds(Protocol):
    def take(self, count: int) -> list[bool]:
        """For the next ``count`` games seen: was each a second record of a game?"""


class StoreSink(Protocol):
    """What a source's writer needs of the run's sink (:class:`referee.store.writer.StoreSink`)."""

    engine: Any
    store: Target
    options: str
    note: Callable[[str], None]
    stored: list[str]
    known: list[str]
    refused: list[str]
    head: str
    #: The run's ``--wallet`` logs, and why the sources joined to them cannot be kept (a
    #: log that cannot be read again, or changed while it was audited), if so.
    wallets: list[WalletLog]
    wallet_problem: str | None

    @property
    def index(self) -> Seconds: ...

    def digest(self, source: Source) -> str | None:
        """The SHA-256 of a source's bytes as they are now (None: it cannot be read again)."""

#: Rows held before they are written (one ``executemany`` a table).
FLUSH_ROWS = 20_000


def now_us() -> int:
    return time.time_ns() // 1000


_ORDER = ("sessions", "settlements", "games", "seats", "runs", "run_keys", "dealer_games", "findings", "chunks")


class SourceWriter:
    """One source being stored: its transaction, its rows and its digests."""

    def __init__(self, sink: StoreSink, source: Source | None) -> None:
        self.sink = sink
        self.source = source
        self.engine = sink.engine
        self.sha256 = sink.digest(source) if source is not None else None
        self.conn: Any = None
        self.id = 0
        self.limit = 0
        self.new = False
        self.buffers: dict[str, list[tuple[Any, ...]]] = {name: [] for name in _ORDER}
        self.size = 0
        self.digests = digest.RowsDigest()
        self.settled: dict[rows.Settled, int] = {}
        #: A lane entry's settlement's id by the object (the seats of an entry share it),
        #: else by its value (a ``--jobs`` worker's payloads are copies).
        self.settled_objects = ByObject(self._settlement)
        #: Games waiting for the index, each with the session it came in (another may
        #: have opened by the time they are written).
        self.pending_games: list[tuple[int, rows.GamePayload | LaneGames]] = []
        self.session: SessionInfo | None = None
        self.session_id = 0
        self.session_row: tuple[Any, ...] | None = None
        self.session_written = False
        self.session_seq = 0
        self.profile_id: int | None = None
        #: The profiles' rows this source found or wrote, by (origin, digest): a log of 200
        #: sessions under one profile looked it up 200 times (a statement each, 0.8 ms).
        self.profiles: dict[tuple[str, str], int | None] = {}
        self.counts = {"sessions": 0, "games": 0, "seats": 0, "findings": 0, "chunks": 0}
        self.time_min: int | None = None
        self.time_max: int | None = None
        self.chunker: Chunker | None = None
        #: Whether the store held any game before this source (looked up once).
        self.earlier: bool | None = None
        #: Whether it held any format-1 session with its digest before this source (likewise).
        self.earlier_sessions: bool | None = None
        #: The wallet logs this source is the first to refer to: kept in its transaction.
        self.wallets: list[KeptWallet] = []
        self._start()

    # -- begin, end ------------------------------------------------------------------

    def _start(self) -> None:
        with self.engine.connect() as conn:
            known = self._known(conn)
        if known is not None or self.sha256 is None:
            self.limit = known if known is not None else 1 << 62
            return
        self.conn = self.engine.connect()
        self.conn.info["write"] = True  # SQLite: BEGIN IMMEDIATE, the write lock first
        self.conn.begin()
        self.conn.execute(schema.store_meta.update().where(schema.store_meta.c.id == 1).values(
            writer=f"{socket.gethostname()}:{os.getpid()}", updated_us=now_us()))
        known = self._known(self.conn)  # stored by another writer while this one waited
        if known is not None:
            self.conn.rollback()
            self.conn.close()
            self.conn = None
            self.limit = known
            return
        meta = self.conn.execute(schema.store_meta.select()).one()
        self.head, self.id = meta.head, meta.sources + 1
        self.limit = self.id
        self.new = True
        self.next = {name: self._max(name) + 1 for name in ("sessions", "settlements", "games", "runs", "findings")}
        self.next["seats"] = max(self._max("seats"), self._last_run_seat()) + 1
        self.first = dict(self.next)  # each table's first id: what is read back after the commit
        assert self.source is not None
        self.conn.execute(schema.sources.insert().values(
            id=self.id, sha256=self.sha256, name=self.source.name, kind="", size=0, readable=0, stored_us=now_us(),
            host=socket.gethostname(), version=__version__, options=self.sink.options, sessions=0, games=0, seats=0,
            findings=0, chunks=0, rows_digest="", digest="", chain=""))
        self.chunker = Chunker(self.source)
        self.chunker.start()
        self.wallets = begin_kept(self.conn, self.sink.wallets, self.sink.wallet_problem, self.id, self._write)

    def _write(self, name: str, batch: list[tuple[Any, ...]]) -> None:
        write_rows(self.conn, self.engine, name, batch)

    def _known(self, conn: Any) -> int | None:
        found = conn.execute(schema.sources.select().with_only_columns(schema.sources.c.id)
                             .where(schema.sources.c.sha256 == self.sha256)).scalar()
        return None if found is None else int(found)

    def _max(self, name: str) -> int:
        table = schema.metadata.tables[name]
        from sqlalchemy import func, select

        return int(self.conn.execute(select(func.max(table.c.id))).scalar() or 0)

    def _last_run_seat(self) -> int:
        from sqlalchemy import func, select

        runs = schema.runs
        return int(self.conn.execute(select(func.max(runs.c.first_seat + runs.c.rounds - 1))).scalar() or 0)

    def end(self, info: InputInfo) -> None:
        """The source's last event is in: commit it, unless it is not the file read."""
        name = self.source.name if self.source is not None else info.file
        if not self.new:
            (self.sink.known if self.sha256 is not None else self.sink.refused).append(name)
            if self.sha256 is None:
                self.sink.note(f"{name}: not stored: it cannot be read again to be kept")
            return
        if info.sha256 != self.sha256:
            self._refuse(name, "it changed while it was audited")
            return
        self._flush()
        self.conn.execute(desk_keys.codes_from(self.first["games"], self.first["findings"]))
        self._chunks(wait=True)
        assert self.chunker is not None
        if self.chunker.error is not None:
            raise self.chunker.error
        if self.chunker.sha256 != self.sha256:
            self._refuse(name, "it changed while it was kept")
            return
        problem = self.sink.wallet_problem
        for kept in self.wallets:
            problem = problem or kept.finish()
        if problem is not None:
            self._refuse(name, problem)
            return
        self._commit(info)
        self.sink.stored.append(name)

    def _refuse(self, name: str, why: str) -> None:
        """Nothing of the source kept (nor of the wallet logs begun with it), and said."""
        self.abandon()
        self.sink.refused.append(name)
        self.sink.note(f"{name}: not stored: {why}")

    def _time(self, when: int) -> None:
        if self.time_min is None or when < self.time_min:
            self.time_min = when
        if self.time_max is None or when > self.time_max:
            self.time_max = when

    def _commit(self, info: InputInfo) -> None:
        values = {
            "id": self.id, "sha256": self.sha256, "name": info.file, "kind": info.kind, "size": info.size,
            "readable": int(info.readable), "stored_us": now_us(), "host": socket.gethostname(),
            "version": __version__, "options": self.sink.options, **self.counts,
            "time_min_us": self.time_min, "time_max_us": self.time_max, "rows_digest": self.digests.hexdigest(),
        }
        own = digest.of(tuple(values[c] for c in digest.columns("sources")))
        chain = digest.chained(self.head, own)
        # not the id among the values set: SQLite takes a parent key set, even to itself, for
        # a change, and looks for its children in every table that refers to sources (a
        # scan of the seats: seconds in a store of millions)
        changed = {k: v for k, v in values.items() if k != "id"}
        self.conn.execute(schema.sources.update().where(schema.sources.c.id == self.id).values(
            **changed, digest=own, chain=chain))
        self.conn.execute(schema.store_meta.update().where(schema.store_meta.c.id == 1).values(
            head=chain, sources=self.id, updated_us=now_us()))
        self.conn.commit()
        self.conn.close()
        self.conn = None
        self.sink.head = chain
        readback.check(self.engine, self.sink.store, self.id, info.file,
                       {name: (self.first[name], self.next[name]) for name in self.first}, self.digests,
                       {"rows_digest": values["rows_digest"], "digest": own, "chain": chain}, self.wallets)

    def abandon(self) -> None:
        if self.chunker is not None:
            self.chunker.halt()
        for kept in self.wallets:
            kept.stop()
        if self.conn is not None:
            try:
                self.conn.rollback()
                self.conn.close()
            except Exception:
                pass
            self.conn = None
        self.new = False

    # -- rows ------------------------------------------------------------------------

    def _take(self, table: str) -> int:
        found: int = self.next[table]
        self.next[table] = found + 1
        return found

    def _add(self, table: str, values: tuple[Any, ...]) -> str:
        row_digest = digest.of(values)
        self.buffers[table].append((*values, row_digest))
        self.digests.add(table, row_digest)
        self.size += 1
        return row_digest

    def added(self, _: object) -> None:
        """After a row or a batch: written out once enough are held."""
        if self.size >= FLUSH_ROWS:
            self._flush()

    def open_session(self, info: SessionInfo) -> None:
        self.session = info
        if not self.new:
            return
        self.session_id = self._take("sessions")
        row = rows.session_row(info)
        self.profile_id = self._profile(row)
        self.session_row = (self.session_id, self.id, self.session_seq, row.ident, row.line, row.format, row.profile,
                            row.origin, row.sha256, self.profile_id, row.player, row.table, row.currency,
                            row.position)
        self.session_seq += 1
        self.session_written = False
        self.counts["sessions"] += 1

    def _profile(self, row: rows.SessionRow) -> int | None:
        """The profile the session was ruled by, kept (by origin and digest) with its bytes."""
        if row.origin is None or row.sha256 is None or self.session is None or self.session.profile_origin is None:
            return None
        key = (row.origin, row.sha256)
        if key not in self.profiles:
            self.profiles[key] = kept_profiles.kept(self.conn, row.origin, row.sha256, row.profile or "",
                                               self.session.profile_origin)
        return self.profiles[key]

    def close_session(self, result: SessionResult) -> None:
        for f in result.findings:
            self.finding(f, self.session_id if self.new else None)
        self.session = None
        if not self.new:
            return
        end = rows.session_end(result)
        assert self.session_row is not None
        values = (*self.session_row, end.ledger, end.players, end.counts, len(result.findings))
        row_digest = digest.of(values)
        self.digests.add("sessions", row_digest)
        if self.session_written:
            s = schema.sessions
            self._flush()
            self.conn.execute(s.update().where(s.c.id == self.session_id).values(
                ledger=end.ledger, players=end.players, counts=end.counts, findings=len(result.findings),
                digest=row_digest))
        else:
            self.buffers["sessions"].append((*values, row_digest))
        self.session_row = None

    def finding(self, f: Finding, session_id: int | None) -> None:
        if not self.new:
            return
        row = rows.finding_row(f)
        self._add("findings", (self._take("findings"), self.id, session_id, self.counts["findings"], *row))
        self.counts["findings"] += 1

    def _settlement(self, facts: rows.Settled | None) -> int | None:
        if facts is None:
            return None
        found = self.settled.get(facts)
        if found is None:
            found = self.settled[facts] = self._take("settlements")
            self._add("settlements", (found, self.id, *facts))
        return found

    def _player(self, row: rows.SeatRow) -> str | None:
        if row.flags & rows.SESSION_PLAYER and self.session is not None:
            return self.session.player
        return row.player

    def seat(self, row: rows.SeatRow, game_id: int | None = None, session_id: int | None = None) -> str:
        if not self.new:
            return ""
        seat_id = self._take("seats")
        if row.time_us is not None:
            self._time(row.time_us)
        self.counts["seats"] += 1
        session = self.session_id if session_id is None else session_id
        return self._add("seats", (
            seat_id, self.id, session, game_id, row.line, row.number, row.game, row.time_us, self._player(row),
            row.decision, row.kind, self._settlement(row.settled), row.cards, row.known, row.player_value,
            row.dealer_value, row.bonus_value, row.balance, row.recorded_balance, row.status, row.record,
            row.findings, row.copy_line, row.flags))

    def run(self, run: rows.Run) -> None:
        if not self.new:
            return
        first = self.next["seats"]
        self.next["seats"] = first + run.rounds
        self.counts["seats"] += run.rounds
        ids = [self._settlement(facts) for facts in run.settled]
        values = (self._take("runs"), self.id, self.session_id, first, run.rounds, run.first_line, run.first_number,
                  run.start_balance, json.dumps(ids), run.picks, run.cards)
        row_digest = digest.of(values)  # over the columns a run of rounds has had since 0001
        self.buffers["runs"].append((*values, row_digest, None, None, None, None, None, None))
        self.digests.add("runs", row_digest)
        self.size += 1

    def _table_run(self, run: tableruns.Builder) -> None:
        """A run of a live table's clean games (:mod:`referee.store.tableruns`): its seats
        numbered next, its digest over every column, its games and players in ``run_keys``."""
        first = self.next["seats"]
        self.next["seats"] = first + run.rounds
        self.counts["seats"] += run.rounds
        if run.time_min is not None and run.time_max is not None:
            self._time(run.time_min)
            self._time(run.time_max)
        run_id = self._take("runs")
        self.buffers["dealer_games"] += run.dealt(run_id)
        head, tail = run.values()
        values = (run_id, self.id, run.session_id, first, run.rounds, *head, *tail)
        row_digest = digest.of(values)
        self.buffers["runs"].append((*values[:-len(tail)], row_digest, *tail))
        self.digests.add("runs", row_digest)
        self.buffers["run_keys"].append((run_id, tail[1]))  # its keys: from its names, by the database
        self.size += 1

    def game(self, payload: rows.GamePayload | LaneGames) -> bool:
        """A game (or a batch of the lane's) held until the index says which are second
        records; whether enough rows are held to write them out (:meth:`added`: the
        caller guards the writing)."""
        if not self.new:
            return False
        self.pending_games.append((self.session_id, payload))
        if isinstance(payload, LaneGames):  # a batch of the lane's, else one game (rows.GamePayload)
            self.size += len(payload.games) + len(payload.players) // 8
        else:
            self.size += 1 + len(payload.seats)
        return self.size >= FLUSH_ROWS

    def _games(self) -> None:
        """The games waiting for the index to say which are second records: the fast
        lane's in runs (consecutive ones of a session together), the others as rows."""
        pending, self.pending_games = self.pending_games, []
        seconds = self.sink.index.take(sum(len(p.games) if type(p) is LaneGames else 1 for _, p in pending))
        run: tableruns.Builder | None = None
        at = 0
        for session_id, payload in pending:
            if type(payload) is LaneGames:
                count = len(payload.games)
                run = tableruns.pack(run, session_id, payload, seconds[at:at + count], self.settled_objects.many,
                                     self._table_run)
                self.counts["games"] += count
                at += count
                continue
            if run is not None:
                self._table_run(run)
                run = None
            assert isinstance(payload, rows.GamePayload)
            self._game_rows(session_id, payload, seconds[at])
            at += 1
        if run is not None:
            self._table_run(run)

    def _game_rows(self, session_id: int, payload: rows.GamePayload, second: bool) -> None:
        """A game as a row, its seats as rows."""
        g = payload.game
        game_id = self._take("games")
        seat_digests = tuple(self.seat(row, game_id, session_id) for row in payload.seats)
        if g.time_us is not None:
            self._time(g.time_us)
        self.counts["games"] += 1
        values = (game_id, self.id, session_id, g.line, g.game, g.number, g.table, g.status, g.kind,
                  g.outcome, g.void_reason, g.player_hand, g.dealer_hand, g.qualified, g.cards, g.players,
                  int(second), g.time_us, g.dealer, g.record, g.findings)
        row_digest = digest.of((*values, seat_digests))
        self.buffers["games"].append((*values, row_digest))
        self.digests.add("games", row_digest)

    def _flush(self) -> None:
        if not self.new:
            return
        if self.pending_games:
            self._games()
        if self.session_row is not None and not self.session_written:
            self.buffers["sessions"].append((*self.session_row, None, None, None, 0, ""))
            self.session_written = True
        self._chunks(wait=False)
        for kept in self.wallets:
            kept.drain(wait=False)
        for name in _ORDER:
            batch = self.buffers[name]
            if batch:
                write_rows(self.conn, self.engine, name, batch)
                self.buffers[name] = []
        self.size = 0

    def _chunks(self, wait: bool) -> None:
        chunker = self.chunker
        if chunker is None:
            return
        out = self.buffers["chunks"]
        for seq, first_line, size, sha, data in chunker.ready(wait):
            out.append((self.id, seq, first_line, size, sha, data))
            self.digests.add("chunks", sha)
            self.counts["chunks"] += 1
        if wait and out:
            write_rows(self.conn, self.engine, "chunks", out)
            self.buffers["chunks"] = []

    def lookup(self, keys: set[tuple[str | None, str]]) -> dict[tuple[str | None, str], GameFingerprint]:
        """The games of ``keys`` stored before this source (:func:`earlier.games`)."""
        if not self.stored_games():
            return {}
        return self._on_connection(lambda conn: earlier.games(conn, self.limit, keys))

    def sessions_before(self, ident: str) -> list[earlier.StoredSession]:
        """The format-1 sessions ``ident`` stored before this source (:func:`earlier.sessions`),
        looked up only when the store holds any (once a source)."""
        if self.earlier_sessions is None:
            self.earlier_sessions = self._on_connection(lambda conn: earlier.any_sessions_before(conn, self.limit))
        if not self.earlier_sessions:
            return []
        return self._on_connection(lambda conn: earlier.sessions(conn, self.limit, ident))

    def stored_games(self) -> bool:
        """Whether the store held any game before this source (a new store holds none:
        nothing to look up). Looked up once a source."""
        if self.earlier is None:
            self.earlier = self._on_connection(lambda conn: earlier.any_before(conn, self.limit))
        return self.earlier

    def _on_connection(self, read: Callable[[Any], _T]) -> _T:
        """``read(conn)`` on the source's transaction if it has one, else on a connection of its own."""
        if self.conn is not None:
            return read(self.conn)
        with self.engine.connect() as conn:
            return read(conn)
