"""``referee store upgrade|verify|info URL``: look after an audit store."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import click

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
        click.echo(f"{shown}: {problem}")
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
        games = stored_games(conn)
    click.echo(f"store {shown}: schema version {HEAD}, {len(rows)} source"
               f"{'s' * (len(rows) != 1)}, chain head {meta['head'] or '(empty)'}")
    totals = {k: sum(r[k] for r in rows) for k in ("sessions", "seats", "findings")}
    every = (sum(g for g, _ in games.values()), sum(s for _, s in games.values()))
    click.echo(f"  {_counts(totals['sessions'], every, totals['seats'], totals['findings'])}")
    for r in rows:
        when = datetime.fromtimestamp(r["stored_us"] / 1e6, UTC).isoformat(timespec="seconds")
        said = _counts(r["sessions"], games.get(r["id"], (0, 0)), r["seats"], r["findings"])
        click.echo(f"  {r['id']}. {r['name']} ({r['kind']}, {r['size']:,} bytes, sha256 {r['sha256'][:16]}...): "
                   f"{said}; stored {when} on {r['host']}")
    _wallet_logs(logs)


def stored_games(conn: Any) -> dict[int, tuple[int, int]]:
    """Each source's games and second records of a game, as its sessions' audit counted
    them (:class:`referee.audit.games.GameCounts`, kept with each table session): the
    one count of games ``check`` says, never the stored game records (a game written
    twice is one game)."""
    import sqlalchemy as sa

    from ..store import codec, schema

    s = schema.sessions
    found: dict[int, tuple[int, int]] = {}
    for source, counts in conn.execute(sa.select(s.c.source_id, s.c.counts).where(s.c.counts.is_not(None))):
        data = codec.loads(counts)
        games, seconds = found.get(source, (0, 0))
        found[source] = (games + int(data.get("games", 0)), seconds + int(data.get("second_records", 0)))
    return found


def _counts(sessions: int, games: tuple[int, int], seats: int, findings: int) -> str:
    """A store's or a source's counts, each noun in its number; the games of its tables
    when it has any, second records of a game said apart."""
    from ..report.base import second_records_phrase

    played, seconds = games
    also = f" (and {second_records_phrase(seconds)})" if seconds else ""
    table = f"{played:,} game{'s' * (played != 1)}{also}, " if played or seconds else ""
    return (f"{sessions:,} session{'s' * (sessions != 1)}, {table}{seats:,} rounds and seats, "
            f"{findings:,} finding{'s' * (findings != 1)}")


def _wallet_logs(logs: Sequence[Any]) -> None:
    """The wallet logs kept for exports checked with --wallet, when there are any."""
    if logs:
        click.echo(f"  {len(logs)} wallet log{'s' * (len(logs) != 1)} joined to exports (check --wallet), each kept "
                   "once:")
    for r in logs:
        when = datetime.fromtimestamp(r["stored_us"] / 1e6, UTC).isoformat(timespec="seconds")
        click.echo(f"  w{r['id']}. {r['name']} ({r['size']:,} bytes, sha256 {r['sha256'][:16]}...): kept with "
                   f"source {r['source_id']}, {when}")
