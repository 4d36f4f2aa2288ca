"""Reading a store back: its sources, their bytes, and the audit replayed from them.

Why a replay: ``explain``, ``stats`` and ``report`` from the store re-audit the stored
bytes, under the names they were stored with and with the very profiles they were
ruled by (kept in the store): their output is then the one the files give, byte for
byte, by construction, and it stays so as the audit changes. ``recall`` reads stored
results instead (:mod:`referee.store.recall`): it must answer in milliseconds.

A store is opened read-only here (SQLite ``mode=ro``, PostgreSQL read-only
transactions): reading never changes it, and a reader never waits for a writer.
"""

from __future__ import annotations

import hashlib
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..audit.stream import Options
from ..load.inputs import Source
from . import StoreError, codec, schema
from .engine import Target, engine, failure, sqlite_file, target
from .migrate import check as check_schema
from .wallets import WalletRef, names_only, refs


@dataclass(frozen=True, slots=True)
class StoredSource:
    id: int
    name: str
    sha256: str
    kind: str
    size: int
    readable: bool
    profile: str | None
    stored_us: int
    sessions: int
    games: int
    seats: int
    #: ``check --mapping``: the mapping it was read through (name, builtin, sha256, text),
    #: the ``--wallet`` logs joined to it (name and SHA-256: their bytes are kept in
    #: ``wallet_logs``) and the mapping they were read through.
    mapping: dict[str, Any] | None = None
    wallets: tuple[WalletRef, ...] = ()
    wallet_mapping: dict[str, Any] | None = None
    #: Stored before schema 0004: the ``--wallet`` logs' names only (their bytes were not kept).
    unkept_wallets: tuple[str, ...] = ()

    def options(self, store: str, wallet_files: tuple[str, ...] = ()) -> Options:
        """The options to audit it again with, as ``check`` audited it; its wallet logs read
        from ``wallet_files`` (their kept bytes), under the names they were given."""
        if self.unkept_wallets:
            raise StoreError(f"store {store}: {self.name} was checked with --wallet "
                             f"{' '.join(self.unkept_wallets)} and stored before referee kept wallet logs (the store "
                             "has the export, not the wallet logs), so it cannot be audited again from the store as "
                             "it was checked (recall --store reads what was stored; check --mapping ... --wallet ... "
                             "audits the files again)")
        if self.mapping is None:
            return Options(profile=self.profile)
        options = Options(profile=self.profile, mapping=str(self.mapping["name"]),
                          mapping_text=str(self.mapping["text"]).encode("utf-8"),
                          mapping_builtin=bool(self.mapping["builtin"]))
        if not self.wallets:
            return options
        assert self.wallet_mapping is not None and len(wallet_files) == len(self.wallets)
        return replace(options, wallet=tuple(w.name for w in self.wallets), wallet_files=wallet_files,
                       wallet_mapping=str(self.wallet_mapping["name"]),
                       wallet_mapping_text=str(self.wallet_mapping["text"]).encode("utf-8"),
                       wallet_mapping_builtin=bool(self.wallet_mapping["builtin"]))


class Stored:
    """A store opened for reading (use as a context manager)."""

    def __init__(self, text: str, shared: Any = None, conn: Any = None) -> None:
        """The store named ``text`` opened; through ``shared`` (an engine opened read-only
        on it, its schema checked, kept by the caller: ``referee serve``'s pool) when given,
        a connection taken from it and given back at :meth:`close`; read through ``conn``
        (the caller's connection in its transaction, left to the caller to end and close:
        the desk's page on PostgreSQL, one transaction a request) when given."""
        self.target: Target = target(text)
        self._own = shared is None and conn is None
        self._borrowed = conn is not None
        if conn is not None:
            self.engine, self.conn = conn.engine, conn
            return
        if shared is not None:
            self.engine = shared
            try:
                self.conn = self.engine.connect()
            except Exception as err:
                raise self._failure(err, "cannot open") from None
            return
        sqlite_file(self.target, create=False)
        self.engine = engine(self.target, readonly=True)
        try:
            self.conn = self.engine.connect()
            check_schema(self.conn, self.target, create=False)
        except BaseException as err:
            # the connection closed too, not only the engine disposed: left to the garbage
            # collector, its read transaction on a new, empty SQLite file kept a writer in
            # the same process (a test's) waiting for the lock, up to REFEREE_STORE_WAIT
            if getattr(self, "conn", None) is not None:
                with suppress(Exception):
                    self.conn.close()
            self.engine.dispose()
            if isinstance(err, StoreError) or not isinstance(err, Exception):
                raise
            raise self._failure(err, "cannot open") from None

    def _failure(self, err: BaseException, doing: str) -> BaseException:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(err, (SQLAlchemyError, OSError)):
            return failure(self.target, err, doing)
        return err

    def __enter__(self) -> Stored:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._borrowed:
            return
        try:
            self.conn.close()
        finally:
            if self._own:
                self.engine.dispose()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Database errors while reading, as one line (exit 2)."""
        try:
            yield
        except StoreError:
            raise
        except Exception as err:
            raised = self._failure(err, "cannot read")
            if raised is err:
                raise
            raise raised from None

    # -- sources ---------------------------------------------------------------------

    def sources(self, names: tuple[str, ...] = (), ids: list[int] | None = None) -> list[StoredSource]:
        """The stored sources in the order they were stored; only those named ``names``
        (as they were named when stored) when given, each name having to match one; only
        those of ``ids`` when given (the desk's page: not every source of a large store)."""
        import sqlalchemy as sa

        s = schema.sources
        query = sa.select(s).order_by(s.c.id)
        if ids is not None:
            query = query.where(s.c.id.in_(sorted(set(ids))))
        found = [_stored(r) for r in self.conn.execute(query)]
        if not names:
            return found
        missing = [n for n in names if not any(x.name == n for x in found)]
        if missing:
            from ..spelling import did_you_mean

            raise StoreError(f"store {self.target.shown}: no source stored as {missing[0]!r}"
                             f"{did_you_mean(missing[0], [x.name for x in found])}")
        return [x for x in found if x.name in names]

    def data(self, source: StoredSource) -> bytes:
        """A source's bytes, checked against its SHA-256."""
        import sqlalchemy as sa

        c = schema.chunks
        try:
            pieces = [zlib.decompress(r.data) for r in
                      self.conn.execute(sa.select(c.c.data).where(c.c.source_id == source.id).order_by(c.c.seq))]
        except (zlib.error, TypeError):  # a piece that is no compressed bytes any more: rewritten
            pieces = []
        data = b"".join(pieces)
        if not pieces or hashlib.sha256(data).hexdigest() != source.sha256:
            raise StoreError(f"store {self.target.shown}: the bytes of {source.name} are not those stored "
                             f"(run referee store verify {self.target.shown})")
        return data

    def profiles(self, sources: list[StoredSource]) -> dict[str, bytes]:
        """Every profile the sessions of ``sources`` were ruled by: origin -> bytes."""
        import sqlalchemy as sa

        p, se = schema.profiles, schema.sessions
        ids = [s.id for s in sources]
        query = (sa.select(p.c.origin, p.c.content, p.c.sha256).distinct()
                 .join(se, se.c.profile_id == p.c.id).where(se.c.source_id.in_(ids)))
        found: dict[str, bytes] = {}
        for r in self.conn.execute(query):
            content = bytes(r.content) if isinstance(r.content, (bytes, memoryview)) else None
            if content is None or hashlib.sha256(content).hexdigest() != r.sha256:  # a replay would rule otherwise
                raise StoreError(f"store {self.target.shown}: the profile {r.origin} is not the one its sessions "
                                 f"were ruled by (changed after it was stored: run referee store verify "
                                 f"{self.target.shown})")
            found[r.origin] = content
        return found

    def write_wallet(self, source: StoredSource, ref: WalletRef, path: Path) -> None:
        """A wallet log's kept bytes written to ``path`` a piece at a time (a log may be
        large), checked against the SHA-256 the source names (its digest covers that name)."""
        import sqlalchemy as sa

        w, c = schema.wallet_logs, schema.wallet_chunks
        found = self.conn.execute(sa.select(w.c.id).where(w.c.sha256 == ref.sha256)).scalar()
        whole = hashlib.sha256()
        if found is not None:
            query = sa.select(c.c.data).where(c.c.wallet_id == found).order_by(c.c.seq)
            with path.open("wb") as out:
                for row in self.conn.execution_options(yield_per=16).execute(query):
                    data = zlib.decompress(row.data)
                    whole.update(data)
                    out.write(data)
        if found is None or whole.hexdigest() != ref.sha256:
            said = "are not in the store" if found is None else "are not those stored"
            raise StoreError(f"store {self.target.shown}: the bytes of wallet log {ref.name} (checked with "
                             f"{source.name}) {said} (run referee store verify {self.target.shown})")

    def holding(self, game: str | None, number: int | None, session: str | None, name: str | None) -> StoredSource:
        """The one stored source that holds game ``game`` (or round ``number``), in
        session ``session`` when given, among the sources named ``name`` when given."""
        import sqlalchemy as sa

        g, s, r, se, k = schema.games, schema.seats, schema.runs, schema.sessions, schema.run_keys
        if game is not None:
            queries = [sa.select(g.c.source_id, g.c.session_id).where(g.c.game == game),
                       sa.select(r.c.source_id, r.c.session_id).where(r.c.id.in_(
                           sa.select(k.c.run_id).where(k.c.value == game, k.c.kind == "game")))]
            what = f"game {game}"
        else:
            queries = [sa.select(s.c.source_id, s.c.session_id).where(s.c.number == number, s.c.game_id.is_(None)),
                       sa.select(r.c.source_id, r.c.session_id).where(r.c.games.is_(None), r.c.first_number <= number,
                                                                      r.c.first_number + r.c.rounds > number)]
            what = f"round {number}"
        sessions = None if session is None else {int(x) for x in self.conn.execute(
            sa.select(se.c.id).where(se.c.ident == session)).scalars()}
        found = {int(row[0]) for query in queries for row in self.conn.execute(query)
                 if sessions is None or row[1] in sessions}
        named = self.sources(() if name is None else (name,))
        candidates = [x for x in named if x.id in found]
        where = f" in session {session}" if session else ""
        if not candidates:
            hint = "" if number is None else self._as_game(number, sessions, {x.id: x.name for x in named}, session)
            raise StoreError(f"store {self.target.shown}: no {what}{where}"
                             + (f" in {name}" if name is not None else "") + hint)
        if len(candidates) > 1:
            names = ", ".join(x.name for x in candidates[:8])
            raise StoreError(f"store {self.target.shown}: {what}{where} is in several stored files ({names}); "
                             f"name one: referee explain --store {self.target.shown} FILE ...")
        return candidates[0]

    def _as_game(self, number: int, sessions: set[int] | None, names: dict[int, str], session: str | None) -> str:
        """A live table's stored games numbered ``number``: how to explain one (as
        :func:`referee.audit.explain.find_rounds` says it of a file)."""
        import sqlalchemy as sa

        from . import tableruns

        g, r = schema.games, schema.runs
        found: list[tuple[str, int]] = []  # (game id, source id), in the store's order
        for row in self.conn.execute(sa.select(g.c.game, g.c.source_id, g.c.session_id).where(
                g.c.number == number, g.c.game.is_not(None)).order_by(g.c.id)):
            if (sessions is None or row.session_id in sessions) and row.source_id in names:
                found.append((row.game, row.source_id))
        for run in self.conn.execute(sa.select(r).where(r.c.games.is_not(None), r.c.first_number <= number,
                                                        r.c.last_number >= number).order_by(r.c.id)):
            if (sessions is None or run.session_id in sessions) and run.source_id in names:
                packed = tableruns.Packed(run)
                found += [(packed.games[i], packed.source_id) for i in packed.numbered(number)]
        games = list(dict.fromkeys(found))
        if not games:
            return ""
        if len(games) > 1:
            return (f"; games {', '.join(game for game, _ in games[:8])} of a live table are numbered {number}: "
                    "choose one with --game")
        game, source = games[0]
        on = f" --session {session}" if session else ""
        return (f"; game {game} of this live table is numbered {number}: referee explain --store "
                f"{self.target.shown} {names[source]}{on} --game {game}")

    @contextmanager
    def replay(self, sources: list[StoredSource]) -> Iterator[list[tuple[Source, Options]]]:
        """The stored sources as inputs (temporary files under their stored names), each
        with the options it was audited with, while the profiles they were ruled by are
        the ones resolved."""
        from ..profiles import kept_profiles

        with tempfile.TemporaryDirectory(prefix="referee-replay-") as folder, kept_profiles(self.profiles(sources)):
            out = []
            wallets: dict[str, str] = {}  # a log's SHA-256 -> its file: written once, however many sources
            for i, source in enumerate(sources):
                path = Path(folder) / f"{i}"
                path.write_bytes(self.data(source))
                files = tuple(self._wallet_file(source, ref, Path(folder), wallets) for ref in source.wallets)
                out.append((Source(source.name, path), source.options(self.target.shown, files)))
            yield out

    def _wallet_file(self, source: StoredSource, ref: WalletRef, folder: Path, written: dict[str, str]) -> str:
        if ref.sha256 not in written:
            path = folder / f"wallet-{len(written)}"
            with self.reading():
                self.write_wallet(source, ref, path)
            written[ref.sha256] = str(path)
        return written[ref.sha256]


def source_games(conn: Any, ids: list[int] | None = None) -> dict[int, tuple[int, int]]:
    """Each source's games and second records of a game (only those of ``ids`` when
    given), as its sessions' audit counted them (:class:`referee.audit.games.GameCounts`,
    kept with each table session): the one count of games ``check`` says, never the
    stored game records (a game written twice is one game). ``store info`` and the
    desk's Watch say these."""
    import sqlalchemy as sa

    s = schema.sessions
    query = sa.select(s.c.source_id, s.c.counts).where(s.c.counts.is_not(None))
    if ids is not None:
        query = query.where(s.c.source_id.in_(sorted(set(ids))))
    found: dict[int, tuple[int, int]] = {}
    for source, counts in conn.execute(query):
        data = codec.loads(counts)
        games, seconds = found.get(source, (0, 0))
        found[source] = (games + int(data.get("games", 0)), seconds + int(data.get("second_records", 0)))
    return found


def _stored(r: Any) -> StoredSource:
    options = codec.loads(r.options)
    return StoredSource(r.id, r.name, r.sha256, r.kind, r.size, bool(r.readable), options.get("profile"), r.stored_us,
                        r.sessions, r.games, r.seats, options.get("mapping"), refs(options),
                        options.get("wallet_mapping"), names_only(options))


def groups(replayed: list[tuple[Source, Options]]) -> list[tuple[list[Source], Options]]:
    """Consecutive sources audited with the same options, together (one audit run each)."""
    out: list[tuple[list[Source], Options]] = []
    for source, options in replayed:
        if out and out[-1][1] == options:
            out[-1][0].append(source)
        else:
            out.append(([source], options))
    return out


def origin_of(text: str | None) -> Any:
    """A :class:`~referee.profiles.ProfileOrigin` from its text (``builtin:vivo`` or a path)."""
    from ..profiles import ProfileOrigin

    if text is None:
        return None
    if text.startswith("builtin:"):
        return ProfileOrigin.of_builtin(text.removeprefix("builtin:"))
    return ProfileOrigin("file", text)
