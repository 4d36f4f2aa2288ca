"""Rows written into a store's tables, as fast as each engine takes them: PostgreSQL's
``COPY``, SQLite's ``executemany`` of one prepared INSERT; the statements made once an
engine and table, their values in the order of the table's columns (rows are tuples)."""

from __future__ import annotations

from typing import Any

from . import schema, tableruns

_INSERTS: dict[tuple[int, str], str] = {}


def write_rows(conn: Any, made: Any, name: str, batch: list[tuple[Any, ...]]) -> None:
    """Rows into a table, in the source's transaction: PostgreSQL's ``COPY`` (psycopg
    writes each row into one stream: about 20 times fewer cycles a row than an
    ``executemany`` of INSERTs, whose every row is a statement the server parses and
    answers, issue 31), else one ``executemany`` (SQLite's is a loop in C already)."""
    if made.dialect.name != "postgresql":
        conn.exec_driver_sql(tableruns.KEYS_SQLITE if name == "run_keys" else _insert(made, name), batch)
        return
    if name == "run_keys":
        batch = list(tableruns.key_rows(batch))  # rows of (run id, names): its keys, row by row
    sql = _copy(made, name)
    dbapi = made.dialect.loaded_dbapi
    try:
        with conn.connection.driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
            write = copy.write_row
            for row in batch:
                write(row)
    except dbapi.Error as err:  # as SQLAlchemy would raise it: the writer says it in one line
        from sqlalchemy.exc import DBAPIError

        raise DBAPIError.instance(sql, None, err, dbapi.Error) from None


def _copy(made: Any, name: str) -> str:
    """The ``COPY ... FROM STDIN`` of a table, its columns in the table's order."""
    key = (id(made.dialect), "copy " + name)
    sql = _INSERTS.get(key)
    if sql is None:
        table = schema.metadata.tables[name]
        quote = made.dialect.identifier_preparer.quote
        columns = ", ".join(quote(c.name) for c in table.columns)
        sql = _INSERTS[key] = f"COPY {quote(name)} ({columns}) FROM STDIN"
    return sql


def _insert(made: Any, name: str) -> str:
    """The INSERT of a table for this engine's dialect, its values in the order of the
    table's columns (rows are written as tuples, past SQLAlchemy's per-row work)."""
    key = (id(made.dialect), name)
    sql = _INSERTS.get(key)
    if sql is None:
        table = schema.metadata.tables[name]
        names = [c.name for c in table.columns]
        compiled = table.insert().compile(dialect=made.dialect, column_keys=names)
        assert list(compiled.positiontup or []) == names, (compiled.positiontup, names)
        sql = _INSERTS[key] = str(compiled)
    return sql
