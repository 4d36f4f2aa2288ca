"""The store's schema version: Alembic's migrations, shipped in the package.

Why refused rather than guessed: a store written by a newer referee may hold what this
one cannot read right (a column it does not know), so it is refused with one line; an
older one is migrated only when asked (``referee store upgrade URL``), since a shared
store is upgraded once, by whoever looks after it, not by the first check that opens it.
A store that does not exist yet is created at the current version by a command that
writes (``check --store``).
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any

from . import StoreError

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from sqlalchemy.engine import Connection

    from .engine import Target


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("referee.store").joinpath("migrations")))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config())


def head() -> str:
    found = scripts().get_current_head()
    assert found is not None  # the package ships its migrations
    return found


#: The newest migration's revision: what a store this referee writes is at. Kept here so
#: that opening a store at this version does not import Alembic (a test compares it with
#: the shipped scripts' head).
HEAD = "0010"


def current(connection: Connection) -> str | None:
    """The store's schema version (None: no version table, a new or foreign database)."""
    import sqlalchemy as sa

    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    version = sa.table("alembic_version", sa.column("version_num", sa.Text()))
    found = connection.execute(sa.select(version.c.version_num)).scalars().all()
    return str(found[0]) if found else None


def has_tables(connection: Connection) -> bool:
    from sqlalchemy import inspect

    return bool(inspect(connection).get_table_names())


def state(connection: Connection) -> tuple[str, str | None]:
    """The store's schema against this referee's: ``current``, ``older`` (migrations
    apply), ``newer`` (a version it does not know), ``empty`` (a new database) or
    ``foreign`` (tables, but not a store's); and the version found."""
    found = current(connection)
    if found == HEAD:
        return "current", found
    if found is None:
        return ("foreign" if has_tables(connection) else "empty"), None
    known = {script.revision for script in scripts().walk_revisions()}
    return ("older" if found in known else "newer"), found


def check(connection: Connection, store: Target, create: bool) -> str:
    """The store's version when this referee can use it as it is; else a StoreError
    saying why (newer, older, not a store); a new, empty database is created at the
    current version when ``create``."""
    kind, found = state(connection)
    if kind == "current":
        return HEAD
    if kind == "empty" and create:
        made(connection)
        return HEAD
    raise refusal(store, kind, found)


def refusal(store: Target, kind: str, found: str | None) -> StoreError:
    if kind == "foreign":
        return StoreError(f"store {store.shown}: not a referee store (it has tables but no schema version)")
    if kind == "empty":
        return StoreError(f"store {store.shown}: empty, nothing stored yet (check --store writes one)")
    if kind == "newer":
        return StoreError(f"store {store.shown}: schema version {found} is newer than this referee knows "
                          f"({HEAD}); use a newer referee")
    return StoreError(f"store {store.shown}: schema version {found} is older than this referee's ({HEAD}): "
                      f"run referee store upgrade {store.shown}")


def made(connection: Connection) -> None:
    """A new store: ``schema.py``'s tables made at once, stamped at :data:`HEAD` as
    Alembic stamps. Why not the migrations one by one: importing Alembic and running its
    steps was a quarter of a second of every ``check`` that creates a store (a fifth of
    what storing 200,000 rounds adds); the two give the very same schema, statement for
    statement (``tests/test_store.py`` compares them), and an older store is still
    migrated by the migrations (:func:`upgrade`)."""
    import sqlalchemy as sa

    from . import schema
    from .chains import CHAINED

    schema.metadata.create_all(connection)
    version = sa.Table("alembic_version", sa.MetaData(), sa.Column("version_num", sa.String(32), nullable=False),
                       sa.PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))
    version.create(connection)
    connection.execute(version.insert().values(version_num=HEAD))
    connection.execute(schema.store_meta.insert().values(id=1, head="", sources=0))
    connection.execute(schema.chains.insert(), [{"name": name, "size": 0, "head": ""} for name in CHAINED])


def upgrade(connection: Connection, to: str = "head") -> list[str]:
    """Migrate to the current version (or to the revision ``to``: a test makes the store
    an older referee made); returns the versions applied, oldest first."""
    from alembic import command

    before = current(connection)
    command.upgrade(_config(connection), to)
    after = current(connection)
    path: list[Any] = list(scripts().iterate_revisions(after, before)) if after != before else []
    return [script.revision for script in reversed(path)]
