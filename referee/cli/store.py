"""``referee store upgrade|verify|info URL``: look after an audit store."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import click

from ..escape import printable
from .app import main


@main.group()
def store() -> None:
    """Look after an audit store (a SQLite file, or postgresql://...): see docs/store.md."""


@store.command()
@click.argument("url")
def upgrade(url: str) -> None:
    """Migrate the store at URL to this referee's schema (nothing else changes)."""
    from ..store import StoreError
    from ..store.engine import engine, failure, sqlite_file, target
    from ..store.migrate import HEAD, refusal, state
    from ..store.migrate import upgrade as run_upgrade

    where = target(url)
    sqlite_file(where, create=False)
    made = engine(where)
    try:
        with made.connect() as conn:
            conn.info["write"] = True
            with conn.begin():
                kind, found = state(conn)
                if kind == "current":
                    click.echo(f"store {where.shown}: at schema version {HEAD} already")
                    return
                if kind != "older":
                    raise refusal(where, kind, found)
                applied = run_upgrade(conn)
        steps = f" (migrations {', '.join(applied)})" if len(applied) > 1 else ""  # one step: the version says it
        click.echo(f"store {where.shown}: upgraded from schema version {found} to {HEAD}{steps}")
    except StoreError:
        raise
    except Exception as err:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(err, SQLAlchemyError):
            raise failure(where, err, "cannot upgrade") from None
        raise
    finally:
        made.dispose()


@store.command()
@click.argument("url")
def verify(url: str) -> None:
    """Recompute the chain and every stored record's digest; say which changed.

    Exit status: 0 intact, 1 something changed after it was stored, 2 no store.
    """
    from ..store.read import Stored
    from ..store.verify import verify as run_verify

    with Stored(url) as stored:
        found = run_verify(stored)
        shown = stored.target.shown
    for problem in found.problems:
        click.echo(printable(f"{shown}: {problem}"))  # names a stored record: escaped
    state = "intact" if found.intact else f"{len(found.problems)} problem{'s' * (len(found.problems) != 1)}"
    logs = f", {found.wallet_logs} wallet log{'s' * (found.wallet_logs != 1)}" if found.wallet_logs else ""
    click.echo(f"store {shown}: {found.sources} source{'s' * (found.sources != 1)}{logs}, {found.rows:,} rows "
               f"checked: {state}; chain head {found.head or '(empty)'}")
    sys.exit(0 if found.intact else 1)


@store.command()
@click.argument("url")
def info(url: str) -> None:
    """What the store holds: schema version, sources (stored when, where from), counts, wallet logs."""
    import sqlalchemy as sa

    from ..store import schema
    from ..store.migrate import HEAD
    from ..store.read import Stored

    # Read first, then write: a write that fails (a closed pipe, a full disk) is the
    # output's failure, not "cannot read" the store's.
    with Stored(url) as stored, stored.reading():
        conn = stored.conn
        shown = stored.target.shown
        meta = conn.execute(sa.select(schema.store_meta)).mappings().one()
        rows = conn.execute(sa.select(schema.sources).order_by(schema.sources.c.id)).mappings().all()
        w = schema.wallet_logs
        logs = conn.execute(sa.select(w).order_by(w.c.id)).mappings().all()
    click.echo(f"store {shown}: schema version {HEAD}, {len(rows)} source"
               f"{'s' * (len(rows) != 1)}, chain head {meta['head'] or '(empty)'}")
    totals = {k: sum(r[k] for r in rows) for k in ("sessions", "games", "seats", "findings")}
    click.echo(f"  {totals['sessions']:,} sessions, {totals['games']:,} games, {totals['seats']:,} rounds and "
               f"seats, {totals['findings']:,} findings")
    for r in rows:
        when = datetime.fromtimestamp(r["stored_us"] / 1e6, UTC).isoformat(timespec="seconds")
        click.echo(f"  {r['id']}. {printable(r['name'])} ({r['kind']}, {r['size']:,} bytes, "
                   f"sha256 {r['sha256'][:16]}...): "
                   f"{r['sessions']} session{'s' * (r['sessions'] != 1)}, {r['seats']:,} rounds and seats, "
                   f"{r['findings']} finding{'s' * (r['findings'] != 1)}; stored {when} on {r['host']}")
    _wallet_logs(logs)


def _wallet_logs(logs: Sequence[Any]) -> None:
    """The wallet logs kept for exports checked with --wallet, when there are any."""
    if logs:
        click.echo(f"  {len(logs)} wallet log{'s' * (len(logs) != 1)} joined to exports (check --wallet), each kept "
                   "once:")
    for r in logs:
        when = datetime.fromtimestamp(r["stored_us"] / 1e6, UTC).isoformat(timespec="seconds")
        click.echo(f"  w{r['id']}. {printable(r['name'])} ({r['size']:,} bytes, sha256 {r['sha256'][:16]}...): "
                   f"kept with source {r['source_id']}, {when}")
