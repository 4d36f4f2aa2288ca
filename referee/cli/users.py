"""``referee users add|list|disable|passwd|reads --store URL``: the desk's accounts, and the
log of who read which player's records (docs/desk.md)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..output import STDOUT, open_output
from ..report.rows import rows_text, when
from ..rules.money import dumps
from .app import main

STORE = click.option("--store", "store", metavar="URL", required=True,
                     help="The audit store (a SQLite file or postgresql://...).")


def _terminal() -> bool:
    return sys.stdin.isatty()


def read_password(name: str) -> str:
    """The password: standard input's first line when it is not a terminal (a script's,
    a secret manager's pipe), else asked twice without echo."""
    if not _terminal():
        line = sys.stdin.readline()
        if not line:
            raise click.UsageError("no password on standard input (give it on its first line)")
        return line.rstrip("\r\n")
    import getpass

    first = getpass.getpass(f"Password for {name}: ")
    if getpass.getpass("Again: ") != first:
        raise click.UsageError("the two passwords differ; nothing was changed")
    return first


@main.group()
def users() -> None:
    """The desk's accounts (referee serve), and the log of reads of players' records."""


@users.command("add")
@click.argument("name")
@click.option("--role", required=True, metavar="ROLE",
              help="viewer, floor, risk, auditor or admin (each may do what the one before it may, and more).")
@STORE
def add(name: str, role: str, store: str) -> None:
    """Add the account NAME with ROLE; its password is read from standard input when it is
    not a terminal, else asked for twice."""
    from ..store.accounts import add_user, check_name, check_role, hasher

    check_name(name)
    check_role(role)
    hasher()  # the extra's absence said before a password is asked for
    user = add_user(store, name, role, read_password(name))
    click.echo(f"referee: account {user.name} added ({user.role})", err=True)


@users.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@STORE
def list_(fmt: str, store: str) -> None:
    """List the accounts: name, role, whether disabled, when made (never a password)."""
    from tabulate import tabulate

    from ..store.accounts import list_users

    found = list_users(store)
    if fmt == "json":
        click.echo(dumps({"users": [{"name": u.name, "role": u.role, "disabled": u.disabled,
                                     "created": when(u.created_us)} for u in found]}, indent=2))
        return
    rows = [[u.name, u.role, "disabled" if u.disabled else "active", when(u.created_us)] for u in found]
    click.echo(tabulate(rows, headers=["name", "role", "status", "created"]) if rows else "no accounts")


@users.command()
@click.argument("name")
@STORE
def disable(name: str, store: str) -> None:
    """Disable the account NAME: it can no longer sign in (what it did keeps its name)."""
    from ..store.accounts import disable_user

    disable_user(store, name)
    click.echo(f"referee: account {name} disabled", err=True)


@users.command()
@click.argument("name")
@STORE
def passwd(name: str, store: str) -> None:
    """Set the password of the account NAME (read as for add)."""
    from ..store.accounts import get_user, hasher, set_password

    hasher()
    if get_user(store, name) is None:
        raise click.UsageError(f"no account {name}")
    set_password(store, name, read_password(name))
    click.echo(f"referee: password of {name} changed", err=True)


@users.command()
@click.option("--player", default=None, metavar="ID", help="Only the reads of this player's records.")
@click.option("--user", default=None, metavar="NAME", help="Only the reads by this account.")
@click.option("--since", default=None, metavar="TIME", help="From TIME (ISO 8601; no zone means UTC).")
@click.option("--until", default=None, metavar="TIME", help="Before TIME.")
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "json"]), default="text", show_default=True)
@click.option("--output", "-o", metavar="FILE", default=None, help="Write to FILE (atomically).")
@STORE
def reads(player: str | None, user: str | None, since: str | None, until: str | None, fmt: str,
          output: str | None, store: str) -> None:
    """The log of reads of players' records through the desk (who, what, when, whose), for
    the data-protection officer: oldest first."""
    from ..store.access import list_reads

    found = list_reads(store, subject=player, user=user, since_us=_us(since, "--since"),
                       until_us=_us(until, "--until"))
    rows = [{"id": r.id, "at": when(r.at_us), "user": r.user, "what": r.what, "player": r.subject} for r in found]
    write(rows, ["id", "at", "user", "what", "player"], fmt, output, "reads", store)


def _us(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    from ..recall import parse_time

    try:
        return int(parse_time(text).timestamp() * 1_000_000)
    except ValueError:
        raise click.BadParameter(f"{text[:40]!r} is not a time (ISO 8601, e.g. 2026-11-29T21:30)",
                                 param_hint=option) from None


def write(rows: list[dict[str, Any]], columns: list[str], fmt: str, output: str | None, key: str,
          store: str | None = None) -> None:
    """``rows`` as text, CSV or JSON (``{key: rows}``: :func:`referee.report.rows.rows_text`,
    a formula-like CSV cell quoted), written by :func:`emit`."""
    emit(rows_text(rows, columns, fmt, key), output, store)


def emit(text: str, output: str | None, store: str | None = None) -> None:
    """``text`` to ``output`` atomically (never over the ``store`` file it was read from)
    or to standard output."""
    if store is not None:
        from ..output import guard
        from ..store.engine import target

        path = target(store).path
        guard([("--output", output)], [str(path)] if path is not None else [])
    with open_output(output or STDOUT) as fh:
        fh.write(text)
