"""``referee monitor --store URL``: live return to player watched by segment and window."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from .app import main

if TYPE_CHECKING:
    from ..monitor.facts import Seat
    from ..monitor.groups import AlertGroup
    from ..monitor.run import Verdict


@main.command()
@click.option("--store", "store", metavar="URL", required=True,
              help="The audit store to watch (a SQLite file or postgresql://...), opened read-only.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "html"]), default="text",
              show_default=True, help="html: one page with a control chart a segment (the report extra).")
@click.option("--output", "-o", metavar="FILE", default="-", show_default=True,
              help="Where to write the report ('-': standard output).")
@click.option("--band", "band_name", type=click.Choice(["99", "99.9"]), default="99", show_default=True,
              help="The family band an alert is outside: the chance that a fair store alerts anywhere.")
@click.option("--correction", type=click.Choice(["sidak", "bonferroni", "none"]), default="sidak",
              show_default=True, help="How the band accounts for the number of tests made.")
@click.option("--segment", "kinds", multiple=True,
              type=click.Choice(["all", "table", "dealer", "profile", "stake", "player"]),
              help="Only these segments (repeat the option) [default: all of them].")
@click.option("--cache", "cache", metavar="FILE",
              help="The monitor's cache of this store's sums (so that a run reads only the seats stored since "
                   "the last) [default: one file a store in monitor/ of the cache directory: $REFEREE_CACHE_DIR, "
                   "else ~/.cache/referee].")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Read the whole store and keep nothing (the same report, slower).")
@click.option("--since", "since", metavar="TIME",
              help="Only the games at or after TIME (ISO 8601, e.g. 2026-03-01 or 2026-03-01T12:00:00+01:00; "
                   "UTC when it names no offset); games without a time are left out. Reads the whole store.")
@click.option("--until", "until", metavar="TIME",
              help="Only the games at or before TIME (as --since): the windows end at each segment's newest game "
                   "up to then, as a run at that time would have had them. Reads the whole store.")
@click.option("--record", is_flag=True,
              help="Keep the alerts and their groups in the store (with a digest of their inputs): the one "
                   "option that writes to the store.")
@click.option("--notify", "notify", metavar="URL",
              help="Post each new alert group to this webhook (JSON signed with HMAC-SHA256 of "
                   "$REFEREE_WEBHOOK_SECRET; retried; never changes the verdict or the exit status).")
@click.option("--notify-format", "notify_format", type=click.Choice(["json", "slack", "teams"]), default="json",
              show_default=True, help="json: the group, signed; slack, teams: a message for their incoming webhooks.")
@click.option("--notify-timeout", "notify_timeout", type=click.FloatRange(1, 600), default=30, show_default=True,
              metavar="SECONDS", help="The most time every delivery of a run takes together, retries included.")
def monitor(store: str, fmt: str, output: str, band_name: str, correction: str, kinds: tuple[str, ...],
            cache: str | None, no_cache: bool, since: str | None, until: str | None, record: bool,
            notify: str | None, notify_format: str, notify_timeout: float) -> None:
    """Observed return to player against the exact expected return of the decisions taken,
    on two bases (the rules' nets, and what the seats were paid: the wallet's moves, else
    the record), by table, dealer, profile, stake band, bet and player, over the last 1,000
    / 10,000 / 100,000 games and each segment's last day, week and month; the randomness of
    the deal by table and dealer (docs/monitor.md).

    Exit status: 0 no alert, 1 an alert, 2 nothing tested (no segment has enough games
    yet), no store, a usage problem or a missing extra. A webhook that cannot be reached
    (--notify) is a warning, never another status.
    """
    from ..monitor import output as reports
    from ..monitor.cells import KINDS
    from ..monitor.reading import Unreadable
    from ..output import guard, open_output
    from ..rules.hands import HandError
    from ..store.read import Stored

    guard([("--output", output)], [store])
    _numpy()
    secret = _notify_secret(notify, notify_format)
    if cache is not None and no_cache:
        raise click.UsageError("--cache FILE and --no-cache: give one of them")
    if cache is not None:
        _cache_file(cache)
    kinds = kinds or KINDS
    span = (_time(since, "--since"), _time(until, "--until"))
    if span[0] is not None and span[1] is not None and span[0] > span[1]:
        raise click.BadParameter(f"{until} is before --since {since}", param_hint="--until")
    seats: list[Seat] | None = None
    groups: list[AlertGroup] = []
    with Stored(store) as stored, stored.reading():
        shown = stored.target.shown
        try:
            timed = span != (None, None)  # the cache holds the windows of the whole store: read it all
            verdict = (None if no_cache or fmt == "html" or timed
                       else _cached(stored, cache, band_name, correction, kinds))
            if verdict is None or verdict.alerting:  # an alert's groups and games: from the seats themselves
                seats, full, groups = _whole(stored, band_name, correction, kinds, span,
                                             fmt == "html" or verdict is not None)
                verdict = full
        except (Unreadable, HandError) as err:  # a stored seat that does not read as one, or whose
            from ..store import StoreError  # cards are no hand: changed after it was stored

            raise StoreError(f"store {shown}: a stored seat cannot be read ({err}); "
                             f"referee store verify {shown} names the changed rows") from None
    if fmt == "html":
        from ..monitor.html import HtmlUnavailable, page

        try:
            assert seats is not None
            text = page(verdict, seats, shown, groups)
        except HtmlUnavailable as err:
            raise click.UsageError(str(err)) from None
    elif fmt == "github":
        text = reports.github(verdict, shown, groups)
    else:
        text = {"text": reports.text, "json": reports.to_json}[fmt](verdict, shown, groups)
    with open_output(output) as out:
        out.write(text)
    found = groups if verdict.alerting else []
    new: list[tuple[int | None, AlertGroup]] = []
    if record and verdict.alerting:
        new = [(i, g) for i, g in _record(store, verdict, seats or [], found)]
    elif record:  # nothing to write: a store opened read-only is no obstacle
        click.echo(f"referee: store {shown}: no alert to record", err=True)
    elif notify is not None and found:
        new = [(None, g) for g in _unrecorded(store, found)]
    if notify is not None and new:
        from ..alerts.notify import notify_groups

        notify_groups(store, notify, secret, notify_format, notify_timeout, new, record)
    if not verdict.band.tests:  # nothing tested is not a pass
        click.echo(f"referee: store {shown}: {reports.NOTHING_TESTED}", err=True)
        sys.exit(2)
    sys.exit(1 if verdict.alerting else 0)


def _numpy() -> None:
    """NumPy, which sums the seats (``monitor.columns``), or a clear exit 2 naming the extra.
    Found, not imported: a run whose cache is up to date sums nothing and never imports it
    (0.15 s of CPU, a third of such a run)."""
    from importlib.util import find_spec

    if find_spec("numpy") is None:
        from ..store import STORE_EXTRA, StoreError

        raise StoreError(f"referee monitor needs NumPy: {STORE_EXTRA}")


def _cache_file(cache: str) -> None:
    """A --cache FILE whose folder is missing refused (exit 2), as ``check --store``
    refuses its store's: a mistyped path never makes folders (the default cache, under
    the cache directory, makes its own). A cache that cannot be used otherwise (a folder,
    a file that is not SQLite's) is said and the whole store read, as before."""
    from pathlib import Path

    path = Path(cache)
    if not path.parent.is_dir():
        raise click.BadParameter(f"{cache}: no folder {path.parent}", param_hint="--cache")


def _cached(stored: Any, cache: str | None, band_name: str, correction: str, kinds: tuple[str, ...]) -> Verdict | None:
    """The verdict through the store's cache (None: the cache cannot be used, said on stderr)."""
    import sqlite3
    from pathlib import Path

    from ..monitor.cache import default_path
    from ..monitor.cached import summed
    from ..monitor.run import decide

    path = Path(cache) if cache else default_path(stored.target)
    from ..monitor.reading import Unreadable
    from ..rules.hands import HandError

    try:
        return decide(summed(stored, path, _told if sys.stderr.isatty() else None), band_name, correction, kinds)
    except (Unreadable, HandError):
        raise  # the store's, not the cache's
    except (sqlite3.Error, OSError, ValueError, KeyError, TypeError, IndexError) as err:
        # a cache that cannot be used (or whose own rows were damaged): the whole store read, the same report
        click.echo(f"referee: monitor cache {path}: {type(err).__name__}: {err}; reading the whole store", err=True)
        return None


def _told(done: int, total: int) -> None:
    """A long catch-up's progress, redrawn on the terminal's line."""
    end = "\n" if done >= total else ""
    click.echo(f"\rreferee: monitor cache: {done:,} of {total:,} stored seats read{end}", err=True, nl=False)


def _whole(stored: Any, band_name: str, correction: str, kinds: tuple[str, ...],
           span: tuple[int | None, int | None] = (None, None), needed: bool = False
           ) -> tuple[list[Seat], Verdict, list[AlertGroup]]:
    """Every seat of the store read and valued (those of games in ``span`` when given:
    microseconds since the epoch, both ends included), the verdict on them and its alerts
    by cause. ``needed``: the seats are needed whatever the verdict (an HTML page's charts,
    or the cache's verdict alerts: its groups and games), read and judged one by one as
    before; else the verdict is made from the seats read as columns
    (``monitor.stored_columns``: no ``Seat`` a seat, issue 47's fast first run), and the
    seats read too only when it alerts (else none given back)."""
    from dataclasses import replace

    from ..monitor import reading
    from ..monitor.groups import group_alerts
    from ..monitor.run import judge, judge_table
    from ..monitor.stored_columns import read_table
    from ..monitor.valuing import value
    from ..profiles import kept_profiles

    since, until = span
    table = None if needed else read_table(stored.conn)
    with kept_profiles(stored.profiles(stored.sources())):
        if table is not None:
            if since is not None or until is not None:  # the games of the span, placed as in the whole store
                within = table.timed.copy()
                if since is not None:
                    within &= table.time >= since
                if until is not None:
                    within &= table.time <= until
                table = table.take(within)
            verdict = replace(judge_table(table, band_name, correction, kinds), since_us=since, until_us=until)
            if not verdict.alerting:
                return [], verdict, []
        seats = reading.seats(stored.conn)
        if since is not None or until is not None:
            seats = [s for s in seats if s.time_us is not None and (since is None or s.time_us >= since)
                     and (until is None or s.time_us <= until)]
        if table is None:  # seats needed, or a run whose hands cannot be valued at once: seat by seat
            verdict = replace(judge(seats, band_name, correction, kinds), since_us=since, until_us=until)
        else:
            value(seats)
        return seats, verdict, group_alerts(verdict, seats)


def _time(text: str | None, option: str) -> int | None:
    """An ISO 8601 time as microseconds since the epoch (UTC when it names no offset)."""
    from datetime import UTC, datetime, timedelta

    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        from ..escape import printable

        raise click.BadParameter(f"{printable(text[:60])!r} is not a time (expected ISO 8601, e.g. 2026-03-01 or "
                                 "2026-03-01T12:00:00Z)", param_hint=option) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def _notify_secret(notify: str | None, fmt: str) -> bytes | None:
    """--notify URL checked before anything is read, and the shared secret from the
    environment (required for the json format, whose receiver verifies it)."""
    import os

    from ..alerts.webhook import SECRET_VARIABLE, refused

    if notify is None:
        return None
    why = refused(notify)
    if why is not None:
        raise click.BadParameter(why, param_hint="--notify")
    secret = os.environ.get(SECRET_VARIABLE, "")
    if not secret and fmt == "json":
        raise click.UsageError(f"--notify signs what it posts: set {SECRET_VARIABLE} to the secret shared with the "
                               "receiver")
    return secret.encode("utf-8") if secret else None


def _unrecorded(store: str, found: list[AlertGroup]) -> list[AlertGroup]:
    """Without --record: the groups the store holds no open group of (read-only)."""
    from ..alerts.kept import new_groups
    from ..store.read import Stored

    with Stored(store) as stored, stored.reading():
        return new_groups(stored.conn, found, [])


def _record(store: str, verdict: Verdict, seats: list[Seat], found: list[AlertGroup]) -> list[tuple[int, AlertGroup]]:
    """The alerts and their groups into the store (one transaction), a note of how many
    were new; the new groups with their ids."""
    from ..monitor.record import record
    from ..store.engine import engine, failure, target
    from ..store.migrate import check

    where = target(store)
    made = engine(where)
    try:
        with made.connect() as conn:
            check(conn, where, create=False)
            conn.rollback()
            kept = record(conn, verdict, seats, found)
    except Exception as err:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(err, SQLAlchemyError):
            raise failure(where, err, "cannot record the alerts") from None
        raise
    finally:
        made.dispose()
    new, groups = kept.alerts, len(kept.groups)
    said = f", {groups} new alert group{'s' * (groups != 1)}" if found else ""
    click.echo(f"referee: store {where.shown}: {new} alert{'s' * (new != 1)} recorded{said}", err=True)
    return kept.groups
