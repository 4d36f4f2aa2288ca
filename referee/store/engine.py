"""Which database a store URL names, and a SQLAlchemy engine for it.

The one place that knows SQLite from PostgreSQL: a plain path (``audit.db``) or a
``sqlite:///`` URL is a SQLite file (write-ahead log, a long busy timeout so that two
runs on one file take turns, full sync at each commit); ``postgresql://`` (or
``postgres://``) is a server, reached through psycopg 3. Everything above this module
is SQLAlchemy Core, the same for both.

Why the URL is kept as a :class:`Target`: it is shown in notes, errors and reports,
always with every secret hidden: the password of ``user:password@`` and the values of the
query's ``password``, ``sslpassword`` and ``passfile`` (libpq takes all three there:
``postgresql://auditor@host/audit?password=...`` is a valid URL); a driver's message
that happens to repeat one has it replaced too.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import POSTGRES_EXTRA, STORE_EXTRA, StoreError

if TYPE_CHECKING:
    from sqlalchemy.engine import URL, Engine

#: How long a writer waits for another one to finish its source (SQLite's busy timeout),
#: in seconds; ``REFEREE_STORE_WAIT`` overrides it.
WAIT_SECONDS = 600.0


@dataclass(frozen=True)
class Target:
    """A store as named on the command line: the URL SQLAlchemy opens, what is shown of
    it, the password to keep out of every message, and the SQLite file (None for a server)."""

    url: URL
    shown: str
    #: The URL's secrets (its password, however given), each as written and as decoded.
    secrets: tuple[str, ...]
    path: Path | None

    @property
    def kind(self) -> str:
        return "sqlite" if self.path is not None else "postgresql"

    def scrub(self, message: str) -> str:
        """A message as it may be printed: each secret of the URL, if it appears, masked
        (the longest first, so that no part of one is left)."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            message = message.replace(secret, "***")
        return masked(message)


#: The query keys of a PostgreSQL URL whose values are secrets (libpq's connection
#: parameters): never shown.
SECRET_KEYS = ("password", "sslpassword", "passfile")

_SECRET_QUERY = re.compile(r"(?i)([?&;\s](?:" + "|".join(SECRET_KEYS) + r")=)[^&;\s]*")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*):\S*@")


def masked(text: str) -> str:
    """``text`` with every password a URL in it could carry masked: ``user:***@`` and
    ``password=***`` (and ``sslpassword``, ``passfile``) in its query."""
    return _SECRET_QUERY.sub(r"\1***", _USERINFO.sub(r"\1:***@", text))


def _secrets(url: URL, text: str) -> tuple[str, ...]:
    """What of ``url`` (typed as ``text``) is a secret: its password and its secret query
    values, decoded and as typed (a driver may repeat either)."""
    from urllib.parse import unquote

    found: list[str] = [url.password] if url.password else []
    for key, value in url.query.items():
        if key.lower() in SECRET_KEYS:
            found += [value] if isinstance(value, str) else list(value)
    found += [m.group(0).split("=", 1)[1] for m in _SECRET_QUERY.finditer(text)]
    if (typed := _USERINFO.search(text)) is not None:
        found.append(text[typed.end(1) + 1:typed.end() - 1])
    return tuple(dict.fromkeys(s for x in found for s in (x, unquote(x)) if s))


def sqlalchemy() -> Any:
    """The sqlalchemy module, or a clear exit 2 naming the extra to install."""
    from importlib.util import find_spec

    if find_spec("alembic") is None:  # Alembic is imported only to migrate
        raise StoreError(f"the store needs SQLAlchemy and Alembic: {STORE_EXTRA}")
    try:
        import sqlalchemy
    except ImportError:
        raise StoreError(f"the store needs SQLAlchemy and Alembic: {STORE_EXTRA}") from None
    return sqlalchemy


def target(text: str) -> Target:
    """The store a ``--store`` value names (a path, ``sqlite:///...``, ``postgresql://...``)."""
    sqlalchemy()
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if "://" not in text:
        path = Path(text)
        url = make_url("sqlite+pysqlite://").set(database=str(path.absolute()))
        return Target(url, text, (), path)
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise StoreError(f"{masked(text)}: not a store URL (a file path, sqlite:///FILE or "
                         "postgresql://USER@HOST/DATABASE)") from None
    secrets = _secrets(url, text)
    backend = url.get_backend_name()
    shown = _shown(url)
    if backend in ("postgresql", "postgres"):
        return Target(url.set(drivername="postgresql+psycopg"), shown, secrets, None)
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise StoreError(f"{masked(text)}: a SQLite store is a file: sqlite:///FILE")
        path = Path(url.database)
        return Target(url.set(drivername="sqlite+pysqlite", database=str(path.absolute())), masked(text), (), path)
    raise StoreError(f"{shown}: a store is SQLite (a file path) or PostgreSQL (postgresql://...)")


def _shown(url: URL) -> str:
    """A URL as it may be printed: its password and its secret query values as ``***``."""
    query = {k: ("***" if k.lower() in SECRET_KEYS else v) for k, v in url.query.items()}
    return url.set(query=query).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


#: The first 16 bytes of every SQLite database file (its header string).
SQLITE_HEADER = b"SQLite format 3\x00"


def sqlite_file(store: Target, create: bool) -> None:
    """A SQLite store's file as it may be opened, or a StoreError saying why not, before
    SQLite is asked: it says ``unable to open database file`` of a folder, and takes a
    file too short to hold its header (a 1-byte text file) for an empty database, to be
    read as "nothing stored yet" or, by a writer, overwritten with a new store. ``create``:
    a missing file will be made (its folder must exist), else it must be there. A server's
    store (no path) is left to the server."""
    path = store.path
    if path is None:
        return
    if path.is_dir():
        raise StoreError(f"store {store.shown}: is a directory, not a store file (a store is one SQLite file: "
                         f"name one, such as {path / 'audit.db'})")
    if not path.exists():
        if not create:
            raise StoreError(f"store {store.shown}: no such file")
        if path.parent and not path.parent.is_dir():
            raise StoreError(f"store {store.shown}: no folder {path.parent}")
        return
    if not path.is_file():  # a device, a pipe: never opened (a pipe would wait for a writer)
        raise StoreError(f"store {store.shown}: not a regular file (a store is one SQLite file)")
    if _identity(path) in _HELD:
        return  # SQLite holds it open in this process: its header was read then, and reading it would drop the locks
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError as err:
        raise StoreError(f"store {store.shown}: cannot read: {err.strerror or err}") from None
    if head and head != SQLITE_HEADER:
        raise StoreError(f"store {store.shown}: not a referee store: not a SQLite database (a store is the SQLite "
                         "file check --store writes)")


#: How many SQLite connections this process holds open on each file (device, inode).
#: Such a file is not opened by Python's ``open`` while one is: POSIX drops every lock a
#: process holds on a file when any descriptor of it is closed, so reading its header
#: while a connection was open (the desk's pool, for the server's life) released
#: SQLite's locks; another process closing its connection then took itself for the
#: last, checkpointed and deleted the write-ahead log, and this process went on writing
#: into a deleted file (SQLite's "How To Corrupt An SQLite Database File", 2.2). Counted,
#: not kept, so that a file made later on a reused inode is checked as any other.
_HELD: dict[tuple[int, int], int] = {}
_HELD_LOCK = threading.Lock()


def _identity(path: Path) -> tuple[int, int] | None:
    """The file's (device, inode), None when it cannot be read."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def engine(store: Target, readonly: bool = False, pool: int = 0) -> Engine:
    """An engine for ``store``; ``readonly`` opens it so that nothing can be written
    (SQLite ``mode=ro``; PostgreSQL read-only transactions). ``pool``: how many
    connections it keeps open between uses (0: none, each use connects anew, as a
    command that opens the store once wants). A server (``referee serve``) keeps some:
    a PostgreSQL connection costs a round trip and an authentication, and each engine
    has its own cache of compiled statements, lost with it."""
    sa = sqlalchemy()
    from sqlalchemy.pool import NullPool, QueuePool

    wait = float(os.environ.get("REFEREE_STORE_WAIT", WAIT_SECONDS))
    pooling: dict[str, Any] = ({"poolclass": NullPool} if pool <= 0 else
                               {"poolclass": QueuePool, "pool_size": pool, "max_overflow": pool, "pool_timeout": wait,
                                "pool_pre_ping": store.path is None})
    if store.path is not None:
        url = store.url
        if readonly:  # SQLite's URI filename: the path escaped, ``mode=ro``
            from urllib.parse import quote

            url = url.set(database=f"file:{quote(str(url.database))}", query={"mode": "ro", "uri": "true"})
        # a pooled connection is used by one request at a time, but not always on the thread that opened it
        made: Engine = sa.create_engine(url, **pooling, connect_args={"timeout": wait, "check_same_thread": pool <= 0})
        _sqlite_events(made, readonly, wait, store.path)
        return made
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise StoreError(f"a PostgreSQL store needs psycopg: {POSTGRES_EXTRA}") from None
    options = "-c default_transaction_read_only=on" if readonly else ""
    server: Engine = sa.create_engine(store.url, **pooling, paramstyle="format",
                                      connect_args={"connect_timeout": 10, "application_name": "referee",
                                                    "options": options})
    return server


def _sqlite_events(made: Engine, readonly: bool, wait: float, path: Path) -> None:
    """SQLite as the store needs it: transactions begun by us (a writer's ``BEGIN
    IMMEDIATE`` takes the write lock first, so that two writers queue instead of one
    failing), the write-ahead log (readers never wait for a writer), foreign keys, and
    a commit that reaches the disk; each connection counted while open (:data:`_HELD`)."""

    from sqlalchemy import event

    def _connect(dbapi: Any, record: Any) -> None:
        held = record.info["file"] = _identity(path)
        if held is not None:
            with _HELD_LOCK:
                _HELD[held] = _HELD.get(held, 0) + 1
        dbapi.isolation_level = None
        cursor = dbapi.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if not readonly:
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = FULL")
        finally:
            cursor.close()

    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if connection.info.get("write") else "BEGIN")

    def _close(dbapi: Any, record: Any) -> None:
        held = record.info.pop("file", None)
        if held is not None:
            with _HELD_LOCK:
                left = _HELD.get(held, 0) - 1
                if left > 0:
                    _HELD[held] = left
                else:
                    _HELD.pop(held, None)

    event.listen(made, "connect", _connect)
    event.listen(made, "close", _close)
    event.listen(made, "close_detached", _close)
    event.listen(made, "begin", _begin)


def failure(store: Target, err: BaseException, doing: str) -> StoreError:
    """The one-line error for a database error while ``doing`` something with ``store``:
    the driver's first line, the password masked, SQLAlchemy's statement and links left out."""
    return StoreError(store.scrub(f"store {store.shown}: {doing}: {first_line(err)}"))


def first_line(err: BaseException) -> str:
    """The driver's own first line of a database error (SQLAlchemy's wrapper, its statement
    and its links left out): what a user can act on, on one line."""
    inner = getattr(err, "orig", None) or err
    text = str(inner).strip().splitlines()
    return text[0] if text else type(inner).__name__
