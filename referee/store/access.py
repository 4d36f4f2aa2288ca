"""The read log: each read of a player's records through the desk, who, what and when,
for the data-protection officer (GDPR art. 5(2) and 30: the controller shows who
processed a person's data).

Why in the store and chained: the store is where the records are, and a log kept beside
them that anyone with write access could trim would prove nothing; its rows are appended
and chained (:mod:`referee.store.chains`), so ``store verify`` and a signed checkpoint
find one removed or changed.

Each function takes ``where`` (a store URL or path, an engine, or a connection outside any
transaction: :mod:`referee.store.appended`). ``log_read`` writes, so the desk passes it a
writable store even where it reads through a read-only one.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import StoreError, schema
from .appended import Where, append, append_many, lock, now_us, reading, writing

#: The longest ``what`` and ``subject`` kept (words and ids, not documents).
MAX_TEXT = 200


@dataclass(frozen=True, slots=True)
class Read:
    """A read logged: when (microseconds since 1970 UTC), by which account, what was read
    (``game``, ``recall``, ``search``, ``case``...) and whose records (a player's id)."""

    id: int
    at_us: int
    user: str
    what: str
    subject: str


def _text(name: str, value: str) -> str:
    if not value or len(value) > MAX_TEXT:
        raise StoreError(f"a read logged needs its {name} (1 to {MAX_TEXT} characters)")
    return value


def log_read(where: Where, user: str, what: str, subject: str) -> Read:
    """``user`` read ``what`` (the desk's words: ``game 8812347``, ``recall``, ``search``,
    ``case 4``) of ``subject`` (a player's id), now: appended to the log."""
    values = {"at_us": now_us(), "actor": _text("user", user), "what": _text("what", what),
              "subject": _text("subject", subject)}
    with writing(where) as conn:
        lock(conn, ("reads",))
        row = append(conn, "reads", values)
    return Read(int(row["id"]), int(row["at_us"]), user, what, subject)


def log_reads(where: Where, user: str, what: str, subjects: list[str]) -> list[Read]:
    """``user`` read ``what`` of each of ``subjects``, now: appended in one transaction (a
    page that shows many players' records, a search's list, costs one commit, not one a
    player: SQLite syncs each commit to the disk)."""
    at = now_us()
    rows = [{"at_us": at, "actor": _text("user", user), "what": _text("what", what),
             "subject": _text("subject", subject)} for subject in subjects]
    if not rows:
        return []
    with writing(where) as conn:
        lock(conn, ("reads",))
        made = append_many(conn, "reads", rows)
    return [Read(int(r["id"]), int(r["at_us"]), user, what, str(r["subject"])) for r in made]


def list_reads(where: Where, subject: str | None = None, user: str | None = None, since_us: int | None = None,
               until_us: int | None = None, limit: int | None = None) -> list[Read]:
    """The reads logged, oldest first: only of ``subject``, by ``user``, from ``since_us``
    and before ``until_us`` (microseconds since 1970 UTC) when given; at most ``limit``
    (the newest ones) when given."""
    import sqlalchemy as sa

    r = schema.reads
    query = sa.select(r)
    if subject is not None:
        query = query.where(r.c.subject == subject)
    if user is not None:
        query = query.where(r.c.actor == user)
    if since_us is not None:
        query = query.where(r.c.at_us >= since_us)
    if until_us is not None:
        query = query.where(r.c.at_us < until_us)
    query = query.order_by(r.c.id) if limit is None else query.order_by(r.c.id.desc()).limit(limit)
    with reading(where) as conn:
        found = [Read(int(x.id), int(x.at_us), str(x.actor), str(x.what), str(x.subject)) for x in conn.execute(query)]
    return sorted(found, key=lambda x: x.id)
