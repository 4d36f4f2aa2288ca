"""``check --store``: every audited source into the store, one transaction a source.

The sink is a reporter (:class:`StoreSink`): it sees the events every report sees, in
file order, in one process or under ``--jobs`` (the rows and runs are made where the
events are, :mod:`referee.store.rows` and :mod:`referee.store.packing`; only they travel
back). :meth:`StoreSink.watch` wraps the event stream to know where each source begins
and ends (the reporters are told of inputs only at the end of the run).

Why one transaction a source, taken under a lock: a run killed midway leaves no half
source (the database drops what was not committed) and a rerun stores what is missing;
two writers (two runs on one SQLite file, two machines on one server) take turns by
source, so that each source's games are compared with every game stored before it
(``G001``/``G002`` against the store, :class:`StoreIndex`) and the chain has one order.
A file already stored (by its SHA-256) adds nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NotRequired, TypedDict

from ..load.inputs import Source
from ..report.base import Reporter
from . import StoreError, chunks, codec, packing, rows
from .chunks import Digests, kind_of
from .earlier import StoredSession
from .engine import Target, engine, failure
from .migrate import check as check_schema
from .rows import Finding, GameFingerprint, GameIndex, InputInfo, SessionIndex, SessionInfo, SessionResult
from .source import SourceWriter
from .tableruns import LaneGames
from .wallets import WalletLog

#: Game ids looked up in the store at once.
LOOKUP_BATCH = 2_000


class CheckOptions(TypedDict):
    """What a stored source was audited with (a replay audits it alike)."""

    profile: str | None
    #: ``check --mapping``: the mapping as audited ({"name", "builtin", "sha256", "text"}),
    #: so a replay reads the stored export through it.
    mapping: NotRequired[dict[str, object]]
    #: ``--wallet``: each log as named, in order, with the SHA-256 of its bytes (kept once in
    #: ``wallet_logs``), and the mapping they were read through, kept as ``mapping`` is.
    wallets: NotRequired[list[dict[str, object]]]
    wallet_mapping: NotRequired[dict[str, object]]
    #: Before schema 0004, the logs' names only (their bytes were not kept): read, never written.
    wallet: NotRequired[list[str]]


class StoreSink(Reporter):
    """Writes every event of the run to the store (see the module's docstring)."""

    machine = True

    def __init__(self, store: Target, sources: list[Source], options: CheckOptions,
                 note: Callable[[str], None] | None = None, wallets: list[WalletLog] | None = None) -> None:
        super().__init__(io.StringIO())
        self.store = store
        self.sources = sources
        self.wallets = wallets or []
        if self.wallets:
            options = {**options, "wallets": [{"name": w.name, "sha256": w.sha256} for w in self.wallets]}
        self.options = codec.dumps(options)
        #: Why the sources joined to the wallet logs cannot be kept, once known.
        self.wallet_problem = next((f"its wallet log {w.name} cannot be read again to be kept" for w in self.wallets
                                    if w.sha256 is None), None)
        #: The wallet logs' inputs seen so far (they come first, before any export's events).
        self.wallets_read = 0
        #: An export's games are made by its mapping: their records are no lines of the source.
        self.packs = "mapping" not in options
        #: The sources' digests, hashed from the check's start (:func:`prepare`).
        self.digests: Digests | None = None
        self.note = note or (lambda _: None)
        self.engine: Any = None
        self.current: SourceWriter | None = None
        self.position = 0
        self.index = StoreIndex(self)
        self.sessions = StoreSessions(self)
        self.stored: list[str] = []
        self.known: list[str] = []
        self.refused: list[str] = []
        self.head = ""
        #: The store's error, once a write failed: the sink then stops (the source being
        #: written is rolled back) and the audit goes on, so that the report is still
        #: written; the command says the error after it and exits 2.
        self.error: StoreError | None = None
        #: Each source's kind, as its reader will tell it (read here, before any worker forks).
        self.kinds = {s.name: kind_of(s) for s in sources}

    # -- in the worker: pure ---------------------------------------------------------

    def round_payload(self, result: Any) -> Any:
        return rows.round_row(result)

    def clean_payload(self, rounds: Any) -> Any:
        """JSON Lines rounds as runs (each record is its own line of the kept bytes);
        a document's rounds as rows, with their records (a line of YAML is no record)."""
        if rounds and self.kinds.get(rounds[0].file) == "jsonl":
            return packing.clean_runs(rounds)
        return [rows.round_row(r.round()) for r in rounds]

    def game_payload(self, result: Any) -> Any:
        """A game the full audit took: in a run of clean games when one can hold it (its
        records lines of the kept bytes: :func:`packing.full_games`), else as its rows."""
        if self.packs and self.kinds.get(result.file) == "jsonl":
            packed = packing.full_games(result)
            if packed is not None:
                return packed
        return rows.game_payload(result)

    def clean_games_payload(self, games: Any) -> list[Any]:
        """A batch of the fast lane's live-table games: in runs of clean games when their
        records are lines of the kept bytes (a JSON Lines log, not an export read through a
        mapping: :func:`packing.lane_games`); else each as its rows, from its full result."""
        if self.packs and games and self.kinds.get(games[0].file) == "jsonl":
            return packing.lane_games(games)
        return [rows.game_payload(game.result()) for game in games]

    # -- in the parent, in file order -------------------------------------------------

    def take_round(self, payload: rows.SeatRow) -> None:
        if self.error is not None:
            return
        source = self._at()
        self._guarded(lambda: source.added(source.seat(payload)))

    def take_clean(self, payload: list[rows.Run] | list[rows.SeatRow]) -> None:
        if self.error is not None:
            return
        source = self._at()

        def work() -> None:
            for item in payload:
                if isinstance(item, rows.Run):
                    source.run(item)
                else:
                    source.seat(item)
            source.added("")

        self._guarded(work)

    def take_game(self, payload: rows.GamePayload | LaneGames) -> None:
        if self.error is not None:
            return
        source = self._at()
        if source.game(payload):  # enough held: written out (a game alone writes nothing)
            self._guarded(lambda: source.added(None))

    def session_opened(self, info: SessionInfo) -> None:
        if self.error is not None:
            return
        source = self._at()
        self._guarded(lambda: source.open_session(info))

    def session_closed(self, result: SessionResult) -> None:
        if self.error is not None:
            return
        source = self._at()
        self._guarded(lambda: source.close_session(result))

    def problem(self, finding: Finding) -> None:
        if self.error is not None:
            return
        source = self._at()

        def work() -> None:
            source.finding(finding, None)
            source.added(None)

        self._guarded(work)

    def _at(self) -> SourceWriter:
        assert self.current is not None, "watch() begins each source"
        return self.current

    def watch(self, events: Iterable[Any]) -> Iterator[Any]:
        """The events, unchanged; each source begun before its first event and
        committed once its last is in (its :class:`InputInfo`)."""
        for event in events:
            if self.current is None and self.error is None:
                self._guarded(self._begin)
            if isinstance(event, InputInfo) and self._keeps(event) and self.error is None:
                self._guarded(self._ender(event))
            yield event

    def _keeps(self, info: InputInfo) -> bool:
        """Whether ``info`` ends the source being written. Not a ``--wallet`` log's: the logs
        are read first, in order, to fill the exports' seats, and are not sources of their
        own; each must have been read as the bytes hashed to be kept (else the sources joined
        to it are not stored: what was audited would not be what is kept)."""
        if self.wallets_read >= len(self.wallets):
            return True
        log = self.wallets[self.wallets_read]
        self.wallets_read += 1
        if log.sha256 is not None and info.sha256 != log.sha256 and self.wallet_problem is None:
            self.wallet_problem = f"its wallet log {log.name} changed while it was audited"
        return False

    def wallet_files(self) -> tuple[str, ...]:
        """Where the audit reads each ``--wallet`` log: the file kept (standard input copied)."""
        return tuple(str(w.source.path) for w in self.wallets)

    def _guarded(self, work: Callable[[], None]) -> None:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            work()
        except SQLAlchemyError as err:
            self._failed(failure(self.store, err, "cannot write"))
        except OSError as err:
            self._failed(StoreError(self.store.scrub(f"store {self.store.shown}: cannot write: "
                                                     f"{err.strerror or err}")))

    def _failed(self, error: StoreError) -> None:
        """A write that failed (a full disk, a read-only store): the source being written is
        rolled back and nothing more is written; the audit and its report go on (a store
        that cannot be written is no reason to lose the report), and the games stored
        before are no longer looked up (the report is then of the inputs alone)."""
        self.close()
        if self.error is None:
            self.error = error

    def _ender(self, info: InputInfo) -> Callable[[], None]:
        return lambda: self._end(info)

    def _begin(self) -> None:
        if self.engine is None:  # here, not before: the workers are forked by now
            self.engine = engine(self.store)
        source = self.sources[self.position] if self.position < len(self.sources) else None
        self.current = SourceWriter(self, source)

    def _end(self, info: InputInfo) -> None:
        current = self._at()
        self.current = None
        self.position += 1
        try:
            current.end(info)
        except BaseException:  # its transaction rolled back and its connection closed, not left waiting
            current.abandon()
            raise
        self.index.second.clear()  # a stored source's games were all taken; a known one's are not kept

    def close(self) -> None:
        """Leave the store as it was before the source being written (a failure, Ctrl-C)."""
        current, self.current = self.current, None
        if current is not None:
            current.abandon()
        if self.engine is not None:
            self.engine.dispose()
            self.engine = None

    def lookup(self, keys: set[tuple[str | None, str]]) -> dict[tuple[str | None, str], GameFingerprint]:
        """The games of ``keys`` stored before the source being read, as one first
        record each (what :class:`GameIndex` keeps of a game)."""
        found: dict[tuple[str | None, str], GameFingerprint] = {}
        if self.error is None:
            source = self._at()
            self._guarded(lambda: found.update(source.lookup(keys)))
        return found

    def digest(self, source: Source) -> str | None:
        """A source's SHA-256 now: hashed since the check began (:class:`Digests`), or here."""
        return self.digests.of(source) if self.digests is not None else chunks.file_digest(source)

    def sessions_before(self, ident: str) -> list[StoredSession]:
        """The format-1 sessions ``ident`` stored before the source being read (none once
        a write failed: the store is no longer read, the report is of the inputs alone)."""
        found: list[StoredSession] = []
        if self.error is not None:
            return found
        source = self._at()
        self._guarded(lambda: found.extend(source.sessions_before(ident)))
        return found

    def stored_games(self) -> bool:
        """Whether the store held any game before the source being read (a new one holds
        none: nothing to look up)."""
        found = [False]
        if self.error is not None:
            return False
        source = self._at()

        def work() -> None:
            found[0] = source.stored_games()

        self._guarded(work)
        return found[0]

    def summary(self) -> str:
        """What the run stored; after a failed write, the error and what it means."""
        if self.error is not None:
            kept = f"the {len(self.stored)} source(s) before it were stored" if self.stored else "nothing was stored"
            return (f"{self.error}; the report is written, but {kept}, and the games after the failure were not "
                    "compared with those stored before")
        parts = [f"{len(self.stored)} source{'s' * (len(self.stored) != 1)} stored"]
        if self.known:
            parts.append(f"{len(self.known)} already there")
        if self.refused:
            parts.append(f"{len(self.refused)} not stored ({', '.join(self.refused[:3])}"
                         f"{', ...' if len(self.refused) > 3 else ''})")
        return f"store {self.store.shown}: {', '.join(parts)}"


class StoreSessions(SessionIndex):
    """The run's session index, which also knows the format-1 sessions stored before the
    source being read: the same session given again another day is ``S010`` (not stored
    again), another record under its id ``S011``, as if both were in this run. Looked up
    once an id, when a session of it opens (one indexed query; none when the store holds
    no such session before the source)."""

    def __init__(self, sink: StoreSink) -> None:
        super().__init__()
        self.sink = sink
        self.looked: set[str] = set()

    def known(self, info: SessionInfo) -> bool:
        if info.format == 1 and info.id not in self.looked:
            self.looked.add(info.id)
            for name, line, content, records in self.sink.sessions_before(info.id):
                self.remember(info.id, name, line, content, records)
        return super().known(info)


class StoreIndex(GameIndex):
    """The run's game index, which also knows every game stored before the source being
    read: a game that comes again from another file, another day or another machine is
    ``G001``/``G002`` as if both records were in this run.

    Why deferred: the index's findings are read only when a session closes, so the
    games seen are looked up in the store a batch at a time (one query for thousands),
    then seen in order, as they came."""

    def __init__(self, sink: StoreSink) -> None:
        super().__init__()
        self.sink = sink
        self.waiting: list[GameFingerprint] = []
        #: For each game seen, in order: was it already known (a second record)?
        self.second: list[bool] = []

    def see(self, fp: GameFingerprint) -> None:
        self.waiting.append(fp)
        if len(self.waiting) >= LOOKUP_BATCH:
            self.resolve()

    def resolve(self) -> None:
        waiting, self.waiting = self.waiting, []
        if not waiting:
            return
        wanted = set() if not self.sink.stored_games() else (
            {(fp.table, fp.game) for fp in waiting if fp.game is not None} - self.games.keys())
        if wanted:
            for first in self.sink.lookup(wanted).values():
                super().see(first)  # a game not seen yet: no finding, its first record kept
        for fp in waiting:
            self.second.append(fp.game is not None and (fp.table, fp.game) in self.games)
            super().see(fp)

    def settle(self, result: SessionResult) -> None:
        self.resolve()
        super().settle(result)

    def take(self, count: int) -> list[bool]:
        self.resolve()
        taken, self.second = self.second[:count], self.second[count:]
        return taken


def prepare(text: str, sources: list[Source], options: CheckOptions,
            note: Callable[[str], None] | None = None, wallet: tuple[str, ...] = (),
            digests: Digests | None = None) -> tuple[StoreSink, list[Source]]:
    """The sink of ``check --store TEXT``, its store checked (created when new) before
    anything is audited, and the sources as they will be kept: standard input and
    other streams copied to a file first (a store keeps what it audited, so the bytes
    must be there to read again); so are the ``--wallet`` logs, each hashed now (the
    sources name them by SHA-256: :meth:`StoreSink.wallet_files` is where to read them)."""
    from .engine import sqlite_file, target

    store = target(text)
    if store.path is not None:
        from ..output import guard

        guard([("--store", str(store.path))], [s.name for s in sources] + list(wallet))
    sqlite_file(store, create=True)
    made = engine(store)
    try:
        with made.connect() as conn:
            conn.info["write"] = True
            with conn.begin():
                check_schema(conn, store, create=True)
    except StoreError:
        raise
    except Exception as err:  # a driver's error: one line, the password masked
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(err, (SQLAlchemyError, OSError)):
            raise failure(store, err, "cannot open") from None
        raise
    finally:
        made.dispose()
    kept = [_kept(s) for s in sources]
    sink = StoreSink(store, kept, options, note, [_wallet(name) for name in wallet])
    sink.digests = digests
    return sink, kept


def _wallet(name: str) -> WalletLog:
    """A ``--wallet`` log as it will be kept: a regular file (standard input copied), hashed."""
    from pathlib import Path

    from .chunks import file_digest

    kept = _kept(Source(name, None if name == "-" else Path(name)))
    return WalletLog(name, kept, file_digest(kept))


def _kept(source: Source) -> Source:
    """A source as a regular file (a stream copied to a temporary one, under its name)."""
    import stat
    import tempfile
    from pathlib import Path

    if source.data is not None:
        return source
    if source.path is not None:
        try:
            if stat.S_ISREG(source.path.stat().st_mode):
                return source
        except OSError:
            return source  # the audit says why it cannot be read
    from ..load.inputs import open_input

    opened = open_input(source)
    try:
        copy = tempfile.NamedTemporaryFile(prefix="referee-store-", delete=False)  # noqa: SIM115 - removed at exit
        with copy:
            while block := opened.file.read(1 << 20):
                copy.write(block)
    finally:
        opened.close()
    import atexit

    atexit.register(_remove, copy.name)
    return Source(source.name, Path(copy.name))


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
