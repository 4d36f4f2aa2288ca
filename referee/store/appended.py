"""Where the desk's records are written and read: a store named as ``--store`` names it,
or an engine or connection the caller keeps open (``referee serve`` keeps one).

Every function of :mod:`referee.store.accounts`, :mod:`referee.store.cases` and
:mod:`referee.store.access` takes ``where``, one of:

* a store URL or path (``str``, as ``--store`` takes it) or a :class:`~.engine.Target`:
  opened for the call and closed after it (a new SQLite file is made at the current
  schema by a writer, as ``check --store`` makes one; a reader refuses a missing store);
* a SQLAlchemy ``Engine``: a connection taken from it for the call;
* a SQLAlchemy ``Connection`` outside any transaction: used as it is, each write one
  transaction committed before the function returns, each read its own transaction too
  (a reader holding one open would see the store as it was).

Why appended rows share one helper (:func:`append`): a chained table's rows are given
consecutive ids and linked into the table's chain in the transaction that writes them,
under a lock (the chain's row in ``chains``, locked ``FOR UPDATE`` on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` locks the file), so two desks writing at once keep one order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Union

from . import StoreError, chains, digest, schema
from .engine import Target, engine, first_line, masked, sqlite_file, target
from .migrate import check as check_schema

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

#: What the desk's functions take as ``where`` (see the module's docstring).
Where = Union[str, Target, "Engine", "Connection"]


def now_us() -> int:
    """Now, in microseconds since 1970 UTC (the store's times)."""
    return time.time_ns() // 1000


@contextmanager
def _connection(where: Where, write: bool, create: bool = True) -> Iterator[tuple[Connection, str]]:
    """A connection for ``where`` and how to name the store in an error; a writer makes a
    missing store unless ``create`` is False."""
    import sqlalchemy as sa

    if isinstance(where, sa.engine.Connection):
        yield where, "the store"
        return
    if isinstance(where, sa.engine.Engine):
        with where.connect() as conn:
            yield conn, masked(str(where.url))
        return
    store = where if isinstance(where, Target) else target(where)
    sqlite_file(store, create=write and create)
    made = engine(store, readonly=not write)
    try:
        with made.connect() as conn:
            if write:
                conn.info["write"] = True
                with conn.begin():
                    check_schema(conn, store, create=create)
            else:
                with conn.begin():
                    check_schema(conn, store, create=False)
            yield conn, store.shown
    finally:
        made.dispose()


@contextmanager
def writing(where: Where, *, create: bool = True, doing: str = "cannot write") -> Iterator[Connection]:
    """A connection in a write transaction on ``where``, committed when the block ends
    (rolled back on an error); a database error is one line (exit 2), saying ``doing``.
    ``create``: a missing store is made (False: it is an error, as for alerts' records).
    A connection already in a transaction (the desk's page on PostgreSQL: one a request)
    is written in that transaction, which its caller commits."""
    with _connection(where, write=True, create=create) as (conn, shown), _failures(shown, doing):
        if conn.in_transaction():
            yield conn
            return
        before = conn.info.get("write")
        conn.info["write"] = True  # SQLite: BEGIN IMMEDIATE (the write lock first, so writers queue)
        try:
            with conn.begin():
                yield conn
        finally:  # a connection of the caller's pool goes back to reading with BEGIN
            conn.info["write"] = before


@contextmanager
def reading(where: Where) -> Iterator[Connection]:
    """A connection in a read transaction on ``where`` (ended when the block ends; a
    connection already in a transaction reads in it, left to its caller to end)."""
    with _connection(where, write=False) as (conn, shown), _failures(shown, "cannot read"):
        if conn.in_transaction():
            yield conn
            return
        with conn.begin():
            yield conn


@contextmanager
def _failures(shown: str, doing: str) -> Iterator[None]:
    try:
        yield
    except StoreError:
        raise
    except Exception as err:
        from sqlalchemy.exc import SQLAlchemyError

        if not isinstance(err, SQLAlchemyError):
            raise
        raise StoreError(masked(f"store {shown}: {doing}: {first_line(err)}")) from None


def lock(conn: Connection, names: tuple[str, ...]) -> None:
    """The chains ``names`` locked until the transaction ends (their rows in ``chains``,
    in name order so that two writers never wait for each other; SQLite's writer already
    holds the file)."""
    import sqlalchemy as sa

    c = schema.chains
    conn.execute(sa.select(c.c.name).where(c.c.name.in_(sorted(names))).order_by(c.c.name).with_for_update())


def append(conn: Connection, name: str, values: dict[str, Any]) -> dict[str, Any]:
    """A row appended to the chained table ``name`` (the chain locked by :func:`lock`):
    the next id, its digest over its columns, linked into the chain; the row as written."""

    return append_many(conn, name, [values])[0]


def append_many(conn: Connection, name: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows appended to the chained table ``name`` as :func:`append` appends one, in one
    statement and one link of the chain (a page's reads: one insert, not one a player)."""
    import sqlalchemy as sa

    if not rows:
        return []
    table = schema.metadata.tables[name]
    first = (conn.execute(sa.select(sa.func.max(table.c.id))).scalar() or 0) + 1
    made = [{"id": first + k, **values} for k, values in enumerate(rows)]
    columns = digest.columns(name)
    for row in made:
        row["digest"] = digest.of(tuple(row[c] for c in columns))
    conn.execute(table.insert(), made)
    chains.link(conn, name, [row["digest"] for row in made])
    return made
