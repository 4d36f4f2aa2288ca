"""The desk's accounts: who may sign in to ``referee serve``, with which role.

Passwords are hashed with Argon2id through ``argon2-cffi`` (the extra ``referee[serve]``),
with its recommended parameters (RFC 9106's second choice: 64 MiB, 3 passes, 4 lanes): a
stolen store gives no password back. A hash made with other parameters (an older
referee's, or an older ``argon2-cffi``'s) is made again at the next sign-in that proves
the password. A name that is no account, or a disabled one, costs the same hash as a
wrong password, so the time an answer takes does not tell which names exist.

Each function takes ``where`` (a store URL or path, an engine, or a connection outside any
transaction: :mod:`referee.store.appended`). Nothing here ever returns, prints or logs a
password or its hash: :class:`User` has neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import Count, worded
from . import StoreError, schema
from .appended import Where, now_us, reading, writing
from .logins import close_logins

if TYPE_CHECKING:
    from argon2 import PasswordHasher

#: The roles, from the least to the most: a viewer reads; floor also opens and decides
#: cases; risk also acknowledges alerts; auditor also uploads; admin also manages users.
ROLES = ("viewer", "floor", "risk", "auditor", "admin")

SERVE_EXTRA = "pip install 'referee[serve]'"

#: An account's name: letters, digits and ``.-_@``, 1 to 64 characters (it is shown on
#: every page and in every case event: no spaces, no markup).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")

#: The shortest password taken (NIST SP 800-63B's minimum for a chosen one) and the
#: longest (a hash of a megabyte of text is a way to make the server work for nothing).
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


class AccountError(StoreError):
    """A name, role or password refused, or no such account (exit 2)."""


@dataclass(frozen=True, slots=True)
class User:
    """An account as the desk sees it (never its password or hash)."""

    id: int
    name: str
    role: str
    disabled: bool
    #: When it was made, in microseconds since 1970 UTC.
    created_us: int


def hasher() -> PasswordHasher:
    """argon2-cffi's hasher with its recommended Argon2id parameters, or a clear exit 2
    naming the extra to install."""
    try:
        from argon2 import PasswordHasher
    except ImportError:
        raise StoreError(f"accounts need argon2-cffi: {SERVE_EXTRA}") from None
    return PasswordHasher()


@cache
def _decoy() -> str:
    """A hash of no password, verified against when the name is no account (the same
    work as a real one)."""
    return hasher().hash("referee: no such account")


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        from ..escape import printable

        raise worded(AccountError, "{name!r} is not an account name (1 to 64 letters, digits, '.', '-', '_' or '@', "
                     "starting with a letter or digit)", name=printable(name[:80]))
    return name


def check_role(role: str) -> str:
    if role not in ROLES:
        from ..spelling import did_you_mean

        raise worded(AccountError, "{role!r} is not a role (one of {roles}){hint}", role=role[:40],
                     roles=", ".join(ROLES), hint=did_you_mean(role, ROLES))
    return role


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise worded(AccountError, "a password has {least} characters at least", least=MIN_PASSWORD)
    if len(password) > MAX_PASSWORD:
        raise worded(AccountError, "a password has {most} characters at most", most=Count(MAX_PASSWORD))
    return password


def _user(row: Any) -> User:
    return User(int(row.id), str(row.name), str(row.role), bool(row.disabled), int(row.created_us))


def add_user(where: Where, name: str, role: str, password: str) -> User:
    """A new account ``name`` with ``role`` and ``password`` (hashed); an AccountError
    when the name, role or password is refused or the name is taken."""
    import sqlalchemy as sa

    check_name(name)
    check_role(role)
    hashed = hasher().hash(check_password(password))
    u = schema.users
    with writing(where) as conn:
        if conn.execute(sa.select(u.c.id).where(u.c.name == name)).first() is not None:
            raise worded(AccountError, "an account {name} exists already", name=name)
        now = now_us()
        values = {"id": (conn.execute(sa.select(sa.func.max(u.c.id))).scalar() or 0) + 1, "name": name, "role": role,
                  "password": hashed, "disabled": 0, "created_us": now, "changed_us": now}
        conn.execute(u.insert().values(**values))
    return User(int(values["id"]), name, role, False, now)


def get_user(where: Where, name: str) -> User | None:
    """The account ``name`` (disabled or not), or None."""
    import sqlalchemy as sa

    u = schema.users
    with reading(where) as conn:
        row = conn.execute(sa.select(u).where(u.c.name == name)).first()
    return None if row is None else _user(row)


def list_users(where: Where) -> list[User]:
    """Every account, by name."""
    import sqlalchemy as sa

    u = schema.users
    with reading(where) as conn:
        return [_user(row) for row in conn.execute(sa.select(u).order_by(u.c.name))]


def authenticate(where: Where, name: str, password: str) -> User | None:
    """The account ``name`` when ``password`` is its password and it is not disabled; else
    None, after the same work whatever the reason. A hash made with other parameters than
    today's is made again (written) once the password is proved. ``where`` must be
    writable for that (a read-only store keeps the old hash)."""
    import sqlalchemy as sa
    from argon2.exceptions import InvalidHashError, VerificationError

    ph = hasher()
    u = schema.users
    with reading(where) as conn:
        row = conn.execute(sa.select(u).where(u.c.name == name)).first() if len(password) <= MAX_PASSWORD else None
    stored = str(row.password) if row is not None else _decoy()
    try:
        ph.verify(stored, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return None
    if row is None or row.disabled:
        return None
    if ph.check_needs_rehash(stored):
        try:
            with writing(where) as conn:
                conn.execute(u.update().where(u.c.id == row.id, u.c.password == stored).values(
                    password=ph.hash(password)))
        except StoreError:  # a store opened read-only: the old hash still proves the password
            pass
    return _user(row)


def disable_user(where: Where, name: str) -> User:
    """The account ``name`` disabled (it can no longer sign in, and its open desk sessions
    end; its cases and reads keep its name); an AccountError when there is no such account."""
    return _change(where, name, disabled=1)


def set_password(where: Where, name: str, password: str) -> User:
    """The account ``name`` given a new ``password`` (hashed; its open desk sessions
    end); an AccountError when there is no such account or the password is refused."""
    hashed = hasher().hash(check_password(password))
    return _change(where, name, password=hashed)


def _change(where: Where, name: str, **values: Any) -> User:
    import sqlalchemy as sa

    u = schema.users
    with writing(where) as conn:
        done = conn.execute(u.update().where(u.c.name == name).values(changed_us=now_us(), **values))
        if done.rowcount != 1:
            raise worded(AccountError, "no account {name}", name=name[:80])
        row = conn.execute(sa.select(u).where(u.c.name == name)).one()
        close_logins(conn, name)
    return _user(row)
