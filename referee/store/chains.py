"""The chains kept beside the sources': one a table whose rows are appended and kept.

Why a chain a table: a row's digest proves the row is what was written, not that no row
was removed; the sources' chain (``sources.chain``, its head in ``store_meta``) proves
that of the sources and everything their digests cover. Rows written apart from any
source (the alerts of ``monitor --record``; the desk's cases, their events and
its read log) get a chain of their own: each
link is :func:`referee.store.digest.chained` of the previous link and the row's digest, in
id order, and the table's row in ``chains`` keeps how many rows the chain covers and its
last link. ``store verify`` recomputes each chain; a checkpoint signs each head.

A later table is covered by adding it to :data:`CHAINED` (with the words that say which
of its rows one is), appending each row it gains with :func:`link` in the writer's transaction, and
a migration that adds its row to ``chains`` (its rows already kept chained there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import digest, schema


def _alert(row: Any) -> str:
    return f"{row['segment']} {row['value']}, {row['bet']}, {row['window']}"


def _group(row: Any) -> str:
    return f"{row['lead']}, {row['basis']} basis"


def _action(row: Any) -> str:
    return f"{row['action']} of alert group {row['group_id']} by {row['who']}"


def _delivery(row: Any) -> str:
    return f"alert group {row['group_id']} to {row['url']}: {row['outcome']}"


#: The chained tables, apart from ``sources``, each with the words that say which of its
#: rows one is, beside its id (an alert's segment, bet and window). Since schema 0007 the
#: alert groups, what was done about them and their webhook deliveries (issue 47); since
#: 0008 the desk's cases, their events and the read log (referee.store.cases, .access).
CHAINED: dict[str, Callable[[Any], str]] = {
    "alerts": _alert, "alert_groups": _group, "alert_actions": _action, "alert_notifications": _delivery,
    "cases": lambda row: f"game {row['game']}, player {row['player']}",
    "case_events": lambda row: f"case {row['case_id']}, {row['kind']}",
    "reads": lambda row: f"{row['actor']} read {row['what']} {row['subject']}",
}


def head(conn: Any, name: str) -> tuple[int, str] | None:
    """How many rows of ``name`` its chain covers, and its head (None: no row in ``chains``)."""
    import sqlalchemy as sa

    c = schema.chains
    found = conn.execute(sa.select(c.c.size, c.c.head).where(c.c.name == name)).first()
    return None if found is None else (int(found.size), str(found.head))


def link(conn: Any, name: str, digests: list[str]) -> None:
    """``digests`` (new rows of ``name``, in id order) appended to its chain, in the
    writer's transaction (the store's lock held: no other writer links meanwhile)."""
    if not digests:
        return
    c = schema.chains
    found = head(conn, name)
    size, last = found if found is not None else (0, "")
    for value in digests:
        last = digest.chained(last, value)
    if found is None:  # its row removed: the chain starts again, and verify says the head does not cover the rows
        conn.execute(c.insert().values(name=name, size=size + len(digests), head=last))
    else:
        conn.execute(c.update().where(c.c.name == name).values(size=size + len(digests), head=last))
