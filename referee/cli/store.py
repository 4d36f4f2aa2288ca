"""``referee store upgrade|verify|info|checkpoint URL``, ``referee store keygen KEYFILE``:
look after an audit store (docs/store.md)."""

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


#: What ``store verify`` says when no checkpoint was given (what it cannot prove).
UNPROVEN = ("without a checkpoint this proves only that the store agrees with itself: whoever can write to it "
            "could have removed its newest sources and set the head back, or changed a record and recomputed every "
            "digest and the chain; verify against a signed checkpoint kept outside the store (referee store "
            "checkpoint, --checkpoint FILE --public-key KEY.pub) to prove nothing it covered changed")


@store.command()
@click.argument("url")
@click.option("--checkpoint", "checkpoint", metavar="FILE", default=None,
              help="A checkpoint (referee store checkpoint): the store must still hold, unchanged and in order, "
                   "every source and alert it covered.")
@click.option("--public-key", "public_key", metavar="KEYFILE.pub", default=None,
              help="The public key the checkpoint is signed with (referee store keygen).")
def verify(url: str, checkpoint: str | None, public_key: str | None) -> None:
    """Recompute the chain and every stored record's digest; say which changed.

    With --checkpoint and --public-key: also that everything the checkpoint covered is
    still there, unchanged and in order (the first source that differs is named).

    Exit status: 0 intact, 1 something changed after it was stored (or since the
    checkpoint), 2 no store, or a checkpoint that cannot be read or is not signed by the key.
    """
    from ..store.read import Stored
    from ..store.verify import verify as run_verify

    if (checkpoint is None) != (public_key is None):
        raise click.UsageError("--checkpoint and --public-key go together (a checkpoint is trusted only when "
                               "its signature is checked)")
    taken = None
    if checkpoint is not None and public_key is not None:
        from ..store.checkpoint import read
        from ..store.keys import read_verifier

        taken = read(checkpoint, read_verifier(public_key))
    with Stored(url) as stored:
        found = run_verify(stored)
        shown = stored.target.shown
    for problem in found.problems:
        click.echo(printable(f"{shown}: {problem}"))  # names a stored record: escaped
    held = ""
    if taken is not None:
        from ..store.checkpoint import compare, covers

        differs = compare(taken, found)
        for problem in differs:
            click.echo(f"{shown}: since the checkpoint of {taken.taken}: {problem}")
        held = f"; the checkpoint of {taken.taken} ({covers(taken.entries)}) {'does not hold' if differs else 'holds'}"
        found.problems += differs
    else:
        click.echo(f"{shown}: {UNPROVEN}")
    state = "intact" if found.intact else f"{len(found.problems)} problem{'s' * (len(found.problems) != 1)}"
    logs = f", {found.wallet_logs} wallet log{'s' * (found.wallet_logs != 1)}" if found.wallet_logs else ""
    click.echo(f"store {shown}: {found.sources} source{'s' * (found.sources != 1)}{logs}, {found.rows:,} rows "
               f"checked: {state}; chain head {found.head or '(empty)'}{held}")
    sys.exit(0 if found.intact else 1)


@store.command()
@click.argument("keyfile")
@click.option("--name", "name", metavar="NAME", default=None,
              help="The key's name in the signatures it makes (no space, no '+'; default: KEYFILE's name without "
                   "its extension).")
def keygen(keyfile: str, name: str | None) -> None:
    """A new Ed25519 key pair to sign checkpoints: KEYFILE (private, mode 0600) and KEYFILE.pub.

    Neither is ever replaced. Keep KEYFILE where the store's writers cannot read it;
    hand KEYFILE.pub to whoever verifies the checkpoints.
    """
    from ..store.keys import keygen as make_key

    key = make_key(keyfile, name)
    click.echo(f"key {key.name} (id {key.id.hex()}): private key {keyfile} (mode 0600), public key {keyfile}.pub")


@store.command()
@click.argument("url")
@click.option("--key", "key", metavar="KEYFILE", required=True, help="The private key to sign with (store keygen).")
@click.option("-o", "--output", "output", metavar="FILE", default="-",
              help="Where to write the checkpoint (default: standard output).")
def checkpoint(url: str, key: str, output: str) -> None:
    """A signed checkpoint of the store: how many sources and alerts it holds, each one's
    digest and the chains' heads, recomputed from the rows (docs/store.md).

    Only an intact store is signed. Exit status: 0 written, 1 the store is not intact
    (nothing signed), 2 no store, or a key that cannot be read.
    """
    from ..output import guard, open_output
    from ..store.checkpoint import covers, make
    from ..store.keys import read_signer
    from ..store.read import Stored
    from ..store.verify import verify as run_verify

    signer = read_signer(key)
    with Stored(url) as stored:
        if stored.target.path is not None:
            guard([("--output", output)], [str(stored.target.path), key, f"{key}.pub"])
        else:
            guard([("--output", output)], [key, f"{key}.pub"])
        found = run_verify(stored)
        shown = stored.target.shown
    if not found.intact:
        for problem in found.problems:
            click.echo(f"{shown}: {problem}", err=True)
        click.echo(f"referee: store {shown}: not intact ({len(found.problems)} problem"
                   f"{'s' * (len(found.problems) != 1)}): no checkpoint signed", err=True)
        sys.exit(1)
    text = make(found, shown, signer)
    with open_output(output) as fh:
        fh.write(text)
    where = "" if output == "-" else f" to {output}"
    click.echo(f"referee: store {shown}: checkpoint of {covers(found.entries)} signed by {signer.name}{where}; "
               f"chain head {found.head or '(empty)'}", err=True)


@store.command()
@click.argument("url")
def info(url: str) -> None:
    """What the store holds: schema version, sources (stored when, where from), counts, wallet logs."""
    import sqlalchemy as sa

    from ..store import schema
    from ..store.migrate import HEAD
    from ..store.read import Stored, source_games

    # Read first, then write: a write that fails (a closed pipe, a full disk) is the
    # output's failure, not "cannot read" the store's.
    with Stored(url) as stored, stored.reading():
        conn = stored.conn
        shown = stored.target.shown
        meta = conn.execute(sa.select(schema.store_meta)).mappings().one()
        rows = conn.execute(sa.select(schema.sources).order_by(schema.sources.c.id)).mappings().all()
        w = schema.wallet_logs
        logs = conn.execute(sa.select(w).order_by(w.c.id)).mappings().all()
        games = source_games(conn)
    click.echo(f"store {shown}: schema version {HEAD}, {len(rows)} source"
               f"{'s' * (len(rows) != 1)}, chain head {meta['head'] or '(empty)'}")
    totals = {k: sum(r[k] for r in rows) for k in ("sessions", "seats", "findings")}
    every = (sum(g for g, _ in games.values()), sum(s for _, s in games.values()))
    click.echo(f"  {_counts(totals['sessions'], every, totals['seats'], totals['findings'])}")
    for r in rows:
        when = datetime.fromtimestamp(r["stored_us"] / 1e6, UTC).isoformat(timespec="seconds")
        said = _counts(r["sessions"], games.get(r["id"], (0, 0)), r["seats"], r["findings"])
        click.echo(f"  {r['id']}. {printable(r['name'])} ({r['kind']}, {r['size']:,} bytes, "
                   f"sha256 {r['sha256'][:16]}...): {said}; stored {when} on {r['host']}")
    _wallet_logs(logs)


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
        click.echo(f"  w{r['id']}. {printable(r['name'])} ({r['size']:,} bytes, sha256 {r['sha256'][:16]}...): "
                   f"kept with source {r['source_id']}, {when}")
