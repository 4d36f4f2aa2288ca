"""``referee store verify``: is every stored record still what was stored?

Recomputed, source by source in the chain's order: each chunk's SHA-256 and the whole
source's (the bytes a replay re-audits), each row's digest (which record changed, and
where it came from: file, line, session, game), each source's digest of its rows (a
row added, removed or re-digested), each source's own digest and its link in the
chain (a source changed, removed or moved), the store's head, each wallet log an export
was checked with (its row's digest, each piece's SHA-256, and the whole log's against the
SHA-256 its sources name: that name is in their digests and the chain), each kept profile
(its bytes against the SHA-256 its sessions name, in their digests), and each alert
kept by ``monitor --record`` against its own digest and the alerts' chain
(:mod:`referee.store.chains`). ``intact`` means the store agrees with itself: every row
is the one its digest says was written.

What it cannot prove alone: that nobody rewrote the store consistently (rows, digests
and chain recomputed, the newest sources removed and the head set back). So it also
recomputes each source's digest and link from its rows as they are now, never from the
digests stored beside them (:attr:`Verdict.entries`): a signed checkpoint taken earlier
(:mod:`referee.store.checkpoint`) is compared with these.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import chains, codec, desk_keys, digest, schema, tableruns
from .read import Stored
from .wallets import refs


@dataclass(frozen=True, slots=True)
class Entry:
    """A source (or a row of a chained table) as it is now: its id, the words that name
    it, and its digest recomputed from what is stored under it (its rows' values, its
    bytes), never read from the digests stored beside them."""

    id: int
    name: str
    digest: str


@dataclass(slots=True)
class Verdict:
    """What verify found: each problem in words, how much it read, and each chain's
    entries as recomputed (what a checkpoint is compared with)."""

    problems: list[str] = field(default_factory=list)
    sources: int = 0
    rows: int = 0
    head: str = ""
    wallet_logs: int = 0
    #: ``sources`` and each table of :data:`referee.store.chains.CHAINED`: its entries in order.
    entries: dict[str, list[Entry]] = field(default_factory=dict)

    @property
    def intact(self) -> bool:
        return not self.problems


def verify(stored: Stored, progress: Callable[[str], None] | None = None) -> Verdict:
    import sqlalchemy as sa

    found = Verdict()
    conn = stored.conn
    previous = ""
    recomputed = found.entries["sources"] = []
    with stored.reading():
        wallets = _Wallets(conn)
        for source in conn.execute(sa.select(schema.sources).order_by(schema.sources.c.id)).mappings():
            found.sources += 1
            if progress is not None:
                progress(source["name"])
            where = f"source {source['id']} ({source['name']})"
            rows = _Rows(found, where)
            _chunks(conn, source, rows)
            wallets.referred(source, found)
            for table in digest.ROW_TABLES:
                _table(conn, table, source["id"], rows)
            for run in tableruns.unfound(conn, source["id"]):
                found.problems.append(f"{where}: {describe('runs', run)} is not found by each of its games and "
                                      "players any more (its keys changed after it was stored)")
            found.problems += [f"{where}: {problem}" for problem in desk_keys.unfound(conn, source["id"])]
            if rows.digests.hexdigest() != source["rows_digest"]:
                found.problems.append(f"{where}: its rows are not those stored (a row added, removed or given "
                                      "another digest)")
            own = digest.of(tuple(source[c] for c in digest.columns("sources")))
            now = {**source, "rows_digest": rows.recomputed.hexdigest()}
            recomputed.append(Entry(source["id"], source["name"],
                                    digest.of(tuple(now[c] for c in digest.columns("sources")))))
            if own != source["digest"]:
                found.problems.append(f"{where}: the source's own record changed after it was stored")
            if digest.chained(previous, source["digest"]) != source["chain"]:
                found.problems.append(f"{where}: the chain is broken here (a source before it, or this one, was "
                                      "changed, removed or put in another place)")
            previous = source["chain"]
        wallets.check(found)
        _profiles(conn, found)
        for name in chains.CHAINED:
            _chained(conn, name, found)
        meta = conn.execute(sa.select(schema.store_meta)).mappings().one_or_none()
    if meta is None:  # the one row that says where the chain ends: removed
        found.problems.append("the store's head is gone (its store_meta row was removed): what the chain ends at "
                              "cannot be told")
        return found
    found.head = meta["head"]
    if meta["head"] != previous:
        found.problems.append("the store's head is not the last source's chain (a source was removed or added "
                              "at the end)")
    return found


def _profiles(conn: Any, found: Verdict) -> None:
    """Each kept profile's bytes against its SHA-256, and each session's profile (the one a
    replay rules it by) against the SHA-256 the session names: that name is in the
    session's digest, so the bytes are bound to the chain through it."""
    import sqlalchemy as sa

    p, se = schema.profiles, schema.sessions
    for row in conn.execute(sa.select(p.c.id, p.c.origin, p.c.sha256, p.c.content).order_by(p.c.id)):
        found.rows += 1
        content = plain(row.content)
        if not isinstance(content, bytes) or hashlib.sha256(content).hexdigest() != row.sha256:
            found.problems.append(f"profile row {row.id} ({row.origin}): its bytes are not those its sessions were "
                                  "ruled by (changed after they were stored)")
    query = (sa.select(se.c.id, se.c.ident, se.c.source_id, p.c.id.label("profile"), p.c.origin)
             .join(p, p.c.id == se.c.profile_id).where(p.c.sha256 != se.c.profile_sha256).order_by(se.c.id))
    for row in conn.execute(query):
        found.problems.append(f"source {row.source_id}: session row {row.id} ({row.ident}) points at profile row "
                              f"{row.profile} ({row.origin}), which is not the profile it was ruled by")


def _chained(conn: Any, name: str, found: Verdict) -> None:
    """Each row of a chained table (the alerts ``monitor --record`` kept) against its own
    digest, each gap in its ids (they are given one after another: a gap is rows removed),
    and its chain against the head ``chains`` keeps (a row removed at the end, added or
    put in another place)."""
    import sqlalchemy as sa

    table = schema.metadata.tables[name]
    names = digest.columns(name)
    words = chains.CHAINED[name]
    entries = found.entries[name] = []
    last, size, gaps = "", 0, False
    for row in _stream(conn, sa.select(table).order_by(table.c.id)):
        found.rows += 1
        size += 1
        now = digest.of(tuple(plain(row[c]) for c in names))
        said = words(row)
        if now != row["digest"]:
            found.problems.append(f"{name.removesuffix('s')} row {row['id']} ({said}) changed after it was recorded")
        expected = entries[-1].id + 1 if entries else 1
        if row["id"] != expected:
            gaps = True
            found.problems.append(f"{name} rows {expected} to {row['id'] - 1} are not in the store (removed after "
                                  "they were recorded)" if row["id"] > expected else
                                  f"{name.removesuffix('s')} row {row['id']} ({said}) is not in its place (ids out "
                                  "of order)")
        entries.append(Entry(row["id"], said, now))
        last = digest.chained(last, row["digest"])
    kept = chains.head(conn, name)
    if kept is None:
        found.problems.append(f"the {name}' chain has no head (its row in chains was removed)")
    elif kept != (size, last) and not gaps:
        found.problems.append(f"the {name}' chain does not reach its head ({size} in the store, the head covers "
                              f"{kept[0]}): one was removed, added or put in another place")


class _Rows:
    def __init__(self, verdict: Verdict, where: str) -> None:
        self.verdict = verdict
        self.where = where
        self.digests = digest.RowsDigest()
        #: The same, over each row's digest recomputed from its values (each piece's from its bytes).
        self.recomputed = digest.RowsDigest()


def _chunks(conn: Any, source: Any, rows: _Rows) -> None:
    import sqlalchemy as sa

    c = schema.chunks
    query = sa.select(c.c.seq, c.c.sha256, c.c.data).where(c.c.source_id == source["id"]).order_by(c.c.seq)
    _pieces(conn, query, source["sha256"], rows.where, rows.verdict, rows)


def _pieces(conn: Any, query: Any, sha256: str, where: str, verdict: Verdict, rows: _Rows | None = None) -> None:
    """Kept bytes (a source's, a wallet log's), piece by piece against each piece's
    SHA-256, and whole against ``sha256``."""
    whole = hashlib.sha256()
    for row in conn.execute(query):
        if rows is not None:
            rows.digests.add("chunks", row.sha256)
        try:
            data = zlib.decompress(plain(row.data))
        except (zlib.error, TypeError):  # not compressed bytes any more (rewritten, or as text)
            verdict.problems.append(f"{where}: its bytes, piece {row.seq}, are damaged (they do not decompress)")
            if rows is not None:
                rows.recomputed.add("chunks", "damaged")
            continue
        if rows is not None:
            rows.recomputed.add("chunks", hashlib.sha256(data).hexdigest())
        whole.update(data)
        if hashlib.sha256(data).hexdigest() != row.sha256:
            verdict.problems.append(f"{where}: its bytes, piece {row.seq}, changed after they were stored")
    if whole.hexdigest() != sha256:
        verdict.problems.append(f"{where}: its bytes are not those audited (SHA-256 {sha256[:16]}...)")


class _Wallets:
    """The wallet logs kept for exports checked with ``--wallet``: each source's references
    (name and SHA-256, in its digested options) resolved, then each log checked once."""

    def __init__(self, conn: Any) -> None:
        import sqlalchemy as sa

        self.conn = conn
        w = schema.wallet_logs
        self.rows = list(conn.execute(sa.select(w).order_by(w.c.id)).mappings())
        self.by_sha = {row["sha256"]: row for row in self.rows}
        #: For each log (by id): the sources that refer to it, and the names they gave it.
        self.users: dict[int, list[tuple[int, str]]] = {}

    def referred(self, source: Any, found: Verdict) -> None:
        """The logs ``source`` was checked with: each must be kept (its bytes are checked once, after)."""
        try:
            named = refs(codec.loads(source["options"]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return  # options that do not read: the source's own digest says it changed
        for ref in named:
            row = self.by_sha.get(ref.sha256)
            if row is None:
                found.problems.append(f"source {source['id']} ({source['name']}): its wallet log {ref.name} (SHA-256 "
                                      f"{ref.sha256[:16]}...) is not in the store (removed, or its SHA-256 changed)")
            else:
                self.users.setdefault(row["id"], []).append((source["id"], ref.name))

    def check(self, found: Verdict) -> None:
        """Each kept log: its row against its digest, its bytes against its SHA-256."""
        import sqlalchemy as sa

        c = schema.wallet_chunks
        names = digest.columns("wallet_logs")
        for row in self.rows:
            found.rows += 1
            found.wallet_logs += 1
            where = self._where(row)
            if digest.of(tuple(row[n] for n in names)) != row["digest"]:
                found.problems.append(f"{where}: its record changed after it was stored")
            if row["id"] not in self.users:
                found.problems.append(f"{where}: no stored source was checked with it (its source was removed?)")
            query = sa.select(c.c.seq, c.c.sha256, c.c.data).where(c.c.wallet_id == row["id"]).order_by(c.c.seq)
            _pieces(self.conn, query, row["sha256"], where, found)

    def _where(self, row: Any) -> str:
        """A log in words that lead back to the files: its names as given, and the sources it was joined to."""
        users = self.users.get(row["id"], [])
        names = list(dict.fromkeys(name for _, name in users)) or [row["name"]]
        sources = ", ".join(str(i) for i in dict.fromkeys(i for i, _ in users))
        joined = f", checked with source{'s' * (len(set(i for i, _ in users)) != 1)} {sources}" if users else ""
        return f"wallet log {row['id']} ({', '.join(names)}{joined})"


def _table(conn: Any, name: str, source_id: int, rows: _Rows) -> None:
    import sqlalchemy as sa

    table = schema.metadata.tables[name]
    names = digest.columns(name)
    seat_digests: dict[int, list[str]] = {}
    if name == "games":
        s = schema.seats
        for row in conn.execute(sa.select(s.c.game_id, s.c.digest).where(s.c.source_id == source_id,
                                                                          s.c.game_id.is_not(None))
                                .order_by(s.c.id)):
            seat_digests.setdefault(row.game_id, []).append(row.digest)
    query = sa.select(table).where(table.c.source_id == source_id).order_by(table.c.id)
    for row in _stream(conn, query):
        rows.verdict.rows += 1
        rows.digests.add(name, row["digest"])
        values = digest.covered(name, tuple(plain(row[c]) for c in names))
        if name == "games":
            values = (*values, tuple(seat_digests.get(row["id"], [])))
        now = digest.of(values)
        rows.recomputed.add(name, now)
        if now != row["digest"]:
            rows.verdict.problems.append(f"{rows.where}: {describe(name, row)} changed after it was stored")


def _stream(conn: Any, query: Any) -> Iterator[Any]:
    result = conn.execution_options(yield_per=5000).execute(query)
    yield from result.mappings()


def plain(value: Any) -> Any:
    """A value as the writer had it (a driver may give bytes as a memoryview)."""
    return bytes(value) if isinstance(value, memoryview) else value


def describe(table: str, row: Any) -> str:
    """Which record, in words a reader can find in the file."""
    kind = {"sessions": "session", "settlements": "settlement", "games": "game", "seats": "seat",
            "runs": "run of clean rounds", "findings": "finding"}[table]
    parts = [f"{kind} row {row['id']}"]
    if table == "sessions":
        parts.append(f"(session {row['ident']}, line {row['line']})")
    elif table == "games":
        parts.append(f"(game {row['game']}, line {row['line']})")
    elif table == "seats":
        what = f"game {row['game']}, player {row['player']}" if row["game_id"] is not None else \
            f"round {row['number']}"
        parts.append(f"({what}, line {row['line']})")
    elif table == "runs" and row["games"] is not None:
        return tableruns.described(row)
    elif table == "runs":
        parts.append(f"(rounds {row['first_number']} to {row['first_number'] + row['rounds'] - 1}, lines "
                     f"{row['first_line']} to {row['first_line'] + row['rounds'] - 1})")
    elif table == "findings":
        parts.append(f"({row['code']} at line {row['line']})")
    return " ".join(parts)
