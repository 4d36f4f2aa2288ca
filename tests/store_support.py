"""What the store's tests share: a store URL on each engine, simulated logs, commands run.

Why a fixture with two engines: the schema, the writer and the readers are meant to
be one for SQLite and PostgreSQL, so every store test runs on both. The PostgreSQL one
needs a server: ``REFEREE_TEST_POSTGRES`` names it (``bash .ci/run`` starts one on a
local port and sets it); each test gets a database of its own, dropped afterwards.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import run

POSTGRES = "REFEREE_TEST_POSTGRES"
NEEDS_POSTGRES = (f"needs a PostgreSQL server: set {POSTGRES}=postgresql://USER@HOST:PORT/DATABASE of a server "
                  "where that user may create databases (bash .ci/run starts one)")


def postgres_admin() -> str:
    url = os.environ.get(POSTGRES)
    if not url:
        pytest.skip(NEEDS_POSTGRES)
    return url


def new_database(admin: str) -> str:
    """A new, empty database on the test server: its URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"referee_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_url(admin).set(database=name).render_as_string(hide_password=False)


def drop_database(admin: str, url: str) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    name = make_url(url).database
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def a_store(engine: str, tmp_path: Path) -> Iterator[str]:
    """A store that does not exist yet: a SQLite file, or a new PostgreSQL database
    (the ``store_url`` fixture of ``conftest.py``)."""
    if engine == "sqlite":
        yield str(tmp_path / "audit.db")
        return
    admin = postgres_admin()
    url = new_database(admin)
    try:
        yield url
    finally:
        drop_database(admin, url)


def simulate(path: Path, *args: str) -> str:
    """A simulated log (``referee simulate ARGS -o PATH``), made once a test."""
    code, out = run("simulate", *args, "--output", str(path))
    assert code == 0, out
    return str(path)


_SEARCHED = re.compile(r"^searched .*$", re.MULTILINE)


def without_searched(text: str) -> str:
    """A recall's text but its last line, which says what was searched (files or the
    store); in JSON, but its ``searched`` object."""
    if text.startswith("{"):
        import json

        doc = json.loads(text)
        doc.pop("searched", None)
        return json.dumps(doc, indent=1)
    return _SEARCHED.sub("searched ...", text)


def source_names(url: str) -> list[str]:
    """The names of the store's sources, in the order they were stored."""
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    made = engine(target(url))
    try:
        with made.connect() as conn:
            return list(conn.execute(sa.text("SELECT name FROM sources ORDER BY id")).scalars())
    finally:
        made.dispose()
