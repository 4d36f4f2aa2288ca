"""The desk's one door to the store: accounts, the desk's queries, cases, the read log, alerts.

Why one module: the routes ask in the desk's words (an account, a game, a search) and
this module says them in the store's (:mod:`referee.store.accounts`, ``cases``,
``access``, ``desk``; the alerts of ``referee alerts``), each call in its own
transaction on the store's engine. A store error becomes :class:`Unavailable` (its
message without the URL's secrets), which the routes answer as 503.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ..store import StoreError
from ..store.engine import Target, engine, failure, sqlite_file, target

T = TypeVar("T")

#: Connections each of the desk's engines keeps open (as many again are opened at a
#: busy moment, and closed after it).
POOL = 8


class Unavailable(Exception):
    """The store could not be read or written (a message safe to show: 503)."""


class Unacceptable(Exception):
    """The store refused what was asked (a closed case decided, a name taken): 400; 409
    when the seat has a case already (:class:`referee.store.cases.CaseTaken`). ``error``
    is the store's own, whose words a page says in its reader's language."""

    def __init__(self, error: Exception, status: int = 400) -> None:
        super().__init__(str(error))
        self.error = error
        self.status = status


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: str
    active: bool


class Unit:
    """One request's connection in its one transaction (PostgreSQL: :meth:`Backend.unit`):
    the session looked up, the page's reads and its read log all in it, committed once
    (:meth:`Backend.commit`) before the page is answered."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn


@dataclass(frozen=True, slots=True)
class Checked:
    """The store's last verification as the desk ran it: when, and each problem in words."""

    at: float
    problems: tuple[str, ...]
    #: The ids of the sources it verified (a source stored since was not).
    ids: frozenset[int]


class Backend:
    """A store opened for the desk (read and write: accounts, cases and reads are written)."""

    def __init__(self, text: str, pool: int = POOL) -> None:
        self.text = text
        self.target: Target = target(text)
        sqlite_file(self.target, create=False)
        #: Two engines, each keeping ``pool`` connections open (and its compiled
        #: statements) for the server's life: one that writes (accounts, sessions, cases,
        #: the read log), one opened read-only for the desk's questions.
        self.engine = engine(self.target, pool=pool)
        self.reader = engine(self.target, readonly=True, pool=pool)
        #: A reading page (a game, a search) in one transaction (:meth:`unit`): on
        #: PostgreSQL, where a transaction is a round trip to begin and one to end and
        #: writers lock only the rows they write. Not on SQLite: the read log's write
        #: would hold the file's one write lock while the page is ruled (every other
        #: page's log waiting for it), and a read transaction that turns into a write
        #: fails at once when another writer committed since it began.
        self.one = self.target.kind == "postgresql"
        from ..store.desk_detail import Rulings

        self.checked: Checked | None = None
        #: The games whole made so far, kept for their next reader (bounded).
        self.rulings = Rulings()
        self._verifying = threading.Lock()
        from sqlalchemy.exc import SQLAlchemyError

        from ..store.migrate import check

        try:
            with self.engine.connect() as conn, conn.begin():
                check(conn, self.target, create=False)
        except SQLAlchemyError as err:
            raise failure(self.target, err, "cannot open") from None

    def close(self) -> None:
        """The engines' connections closed (the server stopping)."""
        self.engine.dispose()
        self.reader.dispose()

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """A connection of the engine, a store error as :class:`Unavailable`."""
        with self._errors(), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            yield
        except Unacceptable:
            raise
        except StoreError as err:
            if type(err).__name__ == "CaseTaken":
                raise Unacceptable(err, 409) from None
            if type(err).__name__ in ("AccountError", "CaseError", "AlertError"):
                raise Unacceptable(err) from None
            raise Unavailable(str(err)) from None
        except (SQLAlchemyError, OSError) as err:
            raise Unavailable(self.target.scrub(f"the store {self.target.shown} failed: "
                                                f"{type(err).__name__}")) from None

    @contextmanager
    def unit(self) -> Iterator[Unit | None]:
        """One connection in one transaction for a reading request (None on SQLite: see
        :attr:`one`), rolled back and given back when the block ends, whatever was not
        committed (:meth:`commit`) undone: a page that failed logs nothing."""
        if not self.one:
            yield None
            return
        with self._errors():
            conn = self.engine.connect()
        try:
            with self._errors():
                conn.begin()
            yield Unit(conn)
        finally:
            try:
                if conn.in_transaction():
                    conn.rollback()
            finally:
                conn.close()

    def commit(self, unit: Unit | None) -> None:
        """A request's one transaction committed (its read log with it), before its answer."""
        if unit is not None:
            with self._errors():
                unit.conn.commit()

    def run(self, call: Callable[[Any], T]) -> T:
        """``call(where)``: the store's desk functions take the engine as ``where`` (each
        call its own transaction); a store error as :class:`Unavailable` or
        :class:`Unacceptable`."""
        with self._errors():
            return call(self.engine)

    def ping(self) -> None:
        import sqlalchemy as sa

        with self._conn() as conn, conn.begin():
            conn.execute(sa.text("SELECT 1")).scalar()

    # --- accounts ---------------------------------------------------------------------

    def account(self, name: str) -> Account | None:
        from ..store import accounts

        user = self.run(lambda conn: accounts.get_user(conn, name))
        return None if user is None else _account(user)

    def authenticate(self, name: str, password: str) -> Account | None:
        from ..store import accounts

        user = self.run(lambda conn: accounts.authenticate(conn, name, password))
        return None if user is None else _account(user)

    def accounts(self) -> list[Account]:
        from ..store import accounts

        return [_account(u) for u in self.run(accounts.list_users)]

    def add_account(self, name: str, role: str, password: str) -> None:
        from ..store import accounts

        self.run(lambda conn: accounts.add_user(conn, name, role, password))

    def disable_account(self, name: str) -> None:
        from ..store import accounts

        self.run(lambda conn: accounts.disable_user(conn, name))

    def set_password(self, name: str, password: str) -> None:
        from ..store import accounts

        self.run(lambda conn: accounts.set_password(conn, name, password))

    @contextmanager
    def stored(self, unit: Unit | None = None) -> Iterator[Any]:
        """The store opened for reading, for one request (a read transaction kept open
        would see the store as it was); through the request's ``unit`` when it has one."""
        from ..store.read import Stored

        try:
            opened = Stored(self.text, shared=self.reader) if unit is None else Stored(self.text, conn=unit.conn)
        except StoreError as err:
            raise Unavailable(str(err)) from None
        with opened:
            yield opened

    @contextmanager
    def refusing(self) -> Iterator[None]:
        """A store's refusal of a question (a filter it cannot take) as :class:`Unacceptable`."""
        try:
            yield
        except StoreError as err:
            raise Unacceptable(err) from None

    def log(self, actor: str, what: str, subjects: list[str], unit: Unit | None = None) -> None:
        """A line in the read log for each player whose records ``actor`` read (who, what,
        whose; the store adds when), in one transaction: the request's ``unit``, committed
        here, when it has one. A player's id longer than the log keeps is logged as its
        first characters and a digest of the whole (the page is shown; the read is still
        logged, and told apart from another id's)."""
        from ..store import access

        whose = list(dict.fromkeys(_subject(s) for s in subjects if s))
        if whose:
            self.run(lambda where: access.log_reads(where if unit is None else unit.conn, actor, what, whose))
        self.commit(unit)

    # --- the store's verification (Watch) ---------------------------------------------

    def verify(self) -> Checked:
        """Verify the whole store now (one at a time), as ``store verify`` does."""
        from ..store.read import Stored
        from ..store.verify import verify

        with self._verifying:
            try:
                with Stored(self.text) as stored:
                    verdict = verify(stored)
            except StoreError as err:
                raise Unavailable(str(err)) from None
            self.checked = Checked(time.time(), tuple(verdict.problems),
                                   frozenset(e.id for e in verdict.entries.get("sources", [])))
        return self.checked


def _subject(player: str) -> str:
    """A player's id as the read log keeps it (at most its 200 characters)."""
    from ..store.access import MAX_TEXT

    if len(player) <= MAX_TEXT:
        return player
    import hashlib

    return f"{player[:MAX_TEXT - 24]}…#{hashlib.sha256(player.encode()).hexdigest()[:16]}"


def _account(user: Any) -> Account:
    return Account(str(user.name), str(user.role), not bool(getattr(user, "disabled", False)))
