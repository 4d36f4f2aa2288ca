"""The desk's logins, kept in the store (schema 0009, ``desk_sessions``): so that every
worker process of ``referee serve --workers N`` honours a session another opened, and a
restart logs no one out.

Why the token's SHA-256 and not the token: whoever reads the store (a backup, a replica)
must not be able to act as a logged-in user; the cookie carries 256 random bits, so one
plain SHA-256 of them cannot be reversed or guessed (no slow hash is needed, unlike a
password). The CSRF token is kept as it is: forms must be given it back, and alone it
opens nothing.

Why ``seen_us`` is written at most once a minute (:data:`SEEN_EVERY_US`): a write at each
request would make every page a commit; a session's idle time is then known to the minute,
against an idle limit of hours. A session ends when its user logs out, is disabled or is
given a new password (:func:`referee.store.accounts.disable_user`, ``set_password``), when
it has been idle for ``idle_us`` or open for ``max_us``; an ended session's row is deleted.

Each function takes ``where`` (a store URL or path, an engine, or a connection outside any
transaction: :mod:`referee.store.appended`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from . import schema
from .appended import Where, now_us, reading, writing

#: How stale ``seen_us`` may be before a request writes it again.
SEEN_EVERY_US = 60 * 1_000_000


@dataclass(frozen=True, slots=True)
class Login:
    """An open session: its cookie token (only when just opened: the store has its hash),
    its user, the CSRF token its forms carry, when it started and was last seen (µs)."""

    token: str
    user: str
    csrf: str
    started_us: int
    seen_us: int
    #: Its account's role and whether it is disabled now (read with it: one query a request).
    role: str = ""
    disabled: bool = False


def hashed(token: str) -> str:
    """What the store keeps of a cookie's token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def open_login(where: Where, user: str, at_us: int | None = None, idle_us: int | None = None,
               max_us: int | None = None) -> Login:
    """A new session of ``user`` (256 random bits for the cookie, as many for CSRF); the
    sessions ended by time (``idle_us``, ``max_us``, when given) deleted on the way."""
    now = now_us() if at_us is None else at_us
    login = Login(secrets.token_urlsafe(32), user, secrets.token_urlsafe(32), now, now)
    t = schema.desk_sessions
    with writing(where) as conn:
        if idle_us is not None and max_us is not None:
            conn.execute(t.delete().where((t.c.seen_us < now - idle_us) | (t.c.started_us < now - max_us)))
        conn.execute(t.insert().values(token=hashed(login.token), user=user, csrf=login.csrf, started_us=now,
                                       seen_us=now))
    return login


def find_login(where: Where, token: str, idle_us: int, max_us: int, at_us: int | None = None) -> Login | None:
    """The open session of ``token``, seen now, with its account's role as the store says
    it now; None when there is none, its account is gone, or it has been idle ``idle_us``
    or open ``max_us`` (then it is ended)."""
    import sqlalchemy as sa

    now = now_us() if at_us is None else at_us
    t, u = schema.desk_sessions, schema.users
    key = hashed(token)
    with reading(where) as conn:
        row = conn.execute(sa.select(t, u.c.role, u.c.disabled).select_from(t.join(u, u.c.name == t.c.user))
                           .where(t.c.token == key)).first()
    if row is None:
        return None
    if now - int(row.seen_us) > idle_us or now - int(row.started_us) > max_us:
        close_login(where, token)
        return None
    seen = int(row.seen_us)
    if now - seen >= SEEN_EVERY_US:
        with writing(where) as conn:
            conn.execute(t.update().where(t.c.token == key).values(seen_us=now))
        seen = now
    return Login("", str(row.user), str(row.csrf), int(row.started_us), seen, str(row.role), bool(row.disabled))


def close_login(where: Where, token: str) -> None:
    """The session of ``token`` ended."""
    t = schema.desk_sessions
    with writing(where) as conn:
        conn.execute(t.delete().where(t.c.token == hashed(token)))


def close_logins(conn: Any, user: str) -> int:
    """Every session of ``user`` ended, in the caller's write transaction (an account
    disabled or given a new password): how many."""
    t = schema.desk_sessions
    return int(conn.execute(t.delete().where(t.c.user == user)).rowcount or 0)


def count_logins(where: Where, user: str) -> int:
    """How many sessions ``user`` has open (ended ones not yet deleted included)."""
    import sqlalchemy as sa

    t = schema.desk_sessions
    with reading(where) as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(t).where(t.c.user == user)).scalar() or 0)
