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
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..audit.stream import Options
from ..load.inputs import Source
from . import StoreError, codec, schema
from .engine import Target, engine, failure, target
from .migrate import check as check_schema


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
    #: and the ``--wallet`` logs joined to it (names only: their bytes are not kept).
    mapping: dict[str, Any] | None = None
    wallet: tuple[str, ...] = ()

    def options(self, store: str) -> Options:
        """The options to audit it again with, as ``check`` audited it."""
        if self.wallet:
            raise StoreError(f"store {store}: {self.name} was checked with --wallet {' '.join(self.wallet)}, and "
                             "a store keeps the export, not the wallet logs, so it cannot be audited again from "
                             "the store as it was checked (recall --store reads what was stored; check --mapping "
                             "... --wallet ... audits the files again)")
        if self.mapping is None:
            return Options(profile=self.profile)
        return Options(profile=self.profile, mapping=str(self.mapping["name"]),
                       mapping_text=str(self.mapping["text"]).encode("utf-8"),
                       mapping_builtin=bool(self.mapping["builtin"]))


class Stored:
    """A store opened for reading (use as a context manager)."""

    def __init__(self, text: str) -> None:
        self.target: Target = target(text)
        if self.target.path is not None and not self.target.path.is_file():
            raise StoreError(f"store {self.target.shown}: no such file")
        self.engine = engine(self.target, readonly=True)
        try:
            self.conn = self.engine.connect()
            check_schema(self.conn, self.target, create=False)
        except StoreError:
            self.engine.dispose()
            raise
        except Exception as err:
            self.engine.dispose()
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
        try:
            self.conn.close()
        finally:
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

    def sources(self, names: tuple[str, ...] = ()) -> list[StoredSource]:
        """The stored sources in the order they were stored; only those named ``names``
        (as they were named when stored) when given, each name having to match one."""
        import sqlalchemy as sa

        s = schema.sources
        found = [_stored(r) for r in self.conn.execute(sa.select(s).order_by(s.c.id))]
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
        pieces = [zlib.decompress(r.data) for r in
                  self.conn.execute(sa.select(c.c.data).where(c.c.source_id == source.id).order_by(c.c.seq))]
        data = b"".join(pieces)
        if hashlib.sha256(data).hexdigest() != source.sha256:
            raise StoreError(f"store {self.target.shown}: the bytes of {source.name} are not those stored "
                             f"(run referee store verify {self.target.shown})")
        return data

    def profiles(self, sources: list[StoredSource]) -> dict[str, bytes]:
        """Every profile the sessions of ``sources`` were ruled by: origin -> bytes."""
        import sqlalchemy as sa

        p, se = schema.profiles, schema.sessions
        ids = [s.id for s in sources]
        query = (sa.select(p.c.origin, p.c.content).distinct()
                 .join(se, se.c.profile_id == p.c.id).where(se.c.source_id.in_(ids)))
        return {r.origin: bytes(r.content) for r in self.conn.execute(query)}

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
        candidates = [x for x in self.sources(() if name is None else (name,)) if x.id in found]
        where = f" in session {session}" if session else ""
        if not candidates:
            raise StoreError(f"store {self.target.shown}: no {what}{where}"
                             + (f" in {name}" if name is not None else ""))
        if len(candidates) > 1:
            names = ", ".join(x.name for x in candidates[:8])
            raise StoreError(f"store {self.target.shown}: {what}{where} is in several stored files ({names}); "
                             f"name one: referee explain --store {self.target.shown} FILE ...")
        return candidates[0]

    @contextmanager
    def replay(self, sources: list[StoredSource]) -> Iterator[list[tuple[Source, Options]]]:
        """The stored sources as inputs (temporary files under their stored names), each
        with the options it was audited with, while the profiles they were ruled by are
        the ones resolved."""
        from ..profiles import kept_profiles

        with tempfile.TemporaryDirectory(prefix="referee-replay-") as folder, kept_profiles(self.profiles(sources)):
            out = []
            for i, source in enumerate(sources):
                path = Path(folder) / f"{i}"
                path.write_bytes(self.data(source))
                out.append((Source(source.name, path), source.options(self.target.shown)))
            yield out


def _stored(r: Any) -> StoredSource:
    options = codec.loads(r.options)
    return StoredSource(r.id, r.name, r.sha256, r.kind, r.size, bool(r.readable), options.get("profile"), r.stored_us,
                        r.sessions, r.games, r.seats, options.get("mapping"), tuple(options.get("wallet", ())))


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
