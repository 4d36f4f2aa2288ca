"""``referee stats``: return to player, fairness of the deal, the exact value of every decision."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from .. import __version__
from ..audit.results import InputInfo
from ..audit.stream import Options
from ..pipeline import events
from ..report.base import printable
from ..report.progress import Steps
from ..rules.money import dumps
from . import common
from .app import main

if TYPE_CHECKING:
    from ..store.selecting import Span


@main.command()
@click.argument("files", nargs=-1)
@common.PROFILE_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.99, show_default=True,
              help="Confidence of the intervals and level of the tests.")
@click.option("--decisions/--no-decisions", default=True, show_default=True,
              help="Value every decision exactly (shipped outcome counts; another dealer qualifier's "
                   "are counted once and cached).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes [default: the cores].")
@common.STORE_OPTION
@common.MAPPING_OPTION
@click.option("--since", metavar="TIME", default=None, help="Only rounds and games at or after TIME (ISO 8601).")
@click.option("--until", metavar="TIME", default=None, help="Only rounds and games at or before TIME (ISO 8601).")
@click.option("--table", default=None, metavar="ID", help="Only the games of this table (format 2).")
@click.option("--dealer", default=None, metavar="ID", help="Only the games this dealer dealt (format 2).")
@common.WALLET_OPTION
@common.WALLET_MAPPING_OPTION
def stats(files: tuple[str, ...], profile: str | None, fmt: str, confidence: float, decisions: bool,
          jobs: int | None, store: str | None, since: str | None, until: str | None, table: str | None,
          dealer: str | None, mapping: str | None, wallet: tuple[str, ...], wallet_mapping: str) -> None:
    """Statistical audit of FILES: return to player, fairness of the deal, decision audit.

    Exit status: 0 nothing suspect, 1 a flag or a suspect test, 2 unreadable input or bad usage.
    """
    from ..analysis.observe import observe

    common.files_or_store(files, store, profile)
    common.check_profile(profile)
    common.read_through(mapping, store, wallet, wallet_mapping, profile)
    window = (common.time_option(since, "--since"), common.time_option(until, "--until"), table, dealer)
    _ordered(window[0], window[1], since, until)
    inputs: list[InputInfo] = []
    with contextlib.ExitStack() as stack:
        if store is not None:
            from ..store.read import Stored, groups

            stored = stack.enter_context(Stored(store))
            replayed = stack.enter_context(stored.replay(stored.sources(files)))
            stream: Iterator[Any] = itertools.chain.from_iterable(events(group, options)
                                                                   for group, options in groups(replayed))
        else:
            stream = events(common.sources(files, mapping), Options(profile=profile, mapping=mapping, wallet=wallet,
                                                                    wallet_mapping=wallet_mapping))
        from ..store.selecting import Span, selected

        seen: dict[str, set[str]] = {}
        span = Span()
        observations = observe(common.kept(iter(selected(stream, *window, seen=seen, span=span)), inputs))
        if not observations.rounds:
            _unseen(seen, table, dealer)
            asked = " ".join(f"--{name} {printable(value)}" for name, value in
                             (("since", since), ("until", until), ("table", table), ("dealer", dealer))
                             if value is not None)
            if asked and not any(not i.readable for i in inputs):
                rounds = "stored round or game" if store is not None else "round or game of the inputs"
                _outside(span, f"{'window' if since or until else 'selection'} given ({asked})", rounds)
        _describe(observations, inputs, decisions, jobs, confidence, fmt)


def _ordered(low: Any, high: Any, since: str | None, until: str | None) -> None:
    """--since after --until is a window no time is in: a usage error naming both."""
    from datetime import UTC

    if low is None or high is None:
        return
    if (low if low.tzinfo else low.replace(tzinfo=UTC)) > (high if high.tzinfo else high.replace(tzinfo=UTC)):
        raise click.UsageError(f"--since {printable(str(since))} is after --until {printable(str(until))}: no time "
                               "is in that window (both ends are included; give the earlier time to --since)")


def _outside(span: Span, asked: str, rounds: str) -> None:
    """No round ruled in the window, table and dealer asked for: said with the times
    there were, exit 2 (not "no round of the inputs was ruled", which they were)."""
    from datetime import UTC, datetime, timedelta

    def shown(us: int) -> str:
        return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)).isoformat()

    if span.kept:
        click.echo(f"nothing to describe: no {rounds} in the {asked} was ruled ({span.kept:,} there, none "
                   "counted: void, cancelled or invalid); run referee check on them", err=True)
        sys.exit(2)
    if not span.met:
        return  # no round at all: said as without a window
    timed = span.met - span.untimed
    if span.first is None or span.last is None:
        had = f"none of the {span.met:,} read has a time (a round without a time is in no window)"
    elif not span.untimed:
        had = f"the {span.met:,} read run from {shown(span.first)} to {shown(span.last)}"
    else:
        had = (f"of the {span.met:,} read, {timed:,} run from {shown(span.first)} to {shown(span.last)} and "
               f"{span.untimed:,} have no time (in no window)")
    click.echo(f"nothing to describe: no {rounds} is in the {asked}; {had}", err=True)
    sys.exit(2)


def _unseen(seen: dict[str, set[str]], table: str | None, dealer: str | None) -> None:
    """A --table or --dealer that no game had: said with the nearest one, exit 2."""
    from ..spelling import did_you_mean

    for option, asked in (("table", table), ("dealer", dealer)):
        had = sorted(seen.get(option, ()))
        if asked is not None and asked not in had:
            names = f" (the games had {', '.join(printable(n) for n in had[:10])}{', ...' if len(had) > 10 else ''})" \
                if had else " (no game named one)"
            raise click.UsageError(f"--{option} {printable(asked)}: no game of the inputs had it"
                                   f"{did_you_mean(asked, had)}{names}")


def _describe(observations: Any, inputs: list[InputInfo], decisions: bool, jobs: int | None, confidence: float,
              fmt: str) -> None:
    """The statistics of what was observed, printed, and the exit status."""
    from ..analysis.decisions import situations_of, value_all
    from ..analysis.stats import Inputs, compute
    from ..report.stats import render

    unreadable = [i.file for i in inputs if not i.readable]
    for name in unreadable:
        click.echo(f"{printable(name)}: cannot be read in full; run referee check on it", err=True)
    if not unreadable and not observations.rounds:
        click.echo("nothing to describe: no round of the inputs was ruled (none, or all void or invalid); "
                   "run referee check on them", err=True)
        sys.exit(2)
    values = None
    if decisions:
        steps = Steps(sys.stderr, "valuing decisions", len(situations_of(observations.rounds)))
        try:
            values = value_all(observations.rounds, jobs or os.cpu_count() or 1, steps.update,
                               counting=lambda n: _counting(steps, n))
        finally:
            steps.close()
    result = compute(Inputs(observations, values, confidence))
    if fmt == "json":
        click.echo(dumps({"referee": {"version": __version__}, **result.to_json()}, indent=1, ensure_ascii=False))
    else:
        click.echo(render(result), nl=False)
    sys.exit(2 if unreadable else 1 if result.suspect else 0)


def _counting(steps: Steps, classes: int) -> None:
    """Say, before minutes of work, why: a qualifier no table holds yet."""
    from ..analysis.situations import cache_root

    steps.close()
    what = "1 flop class" if classes == 1 else f"{classes:,} flop classes"
    click.echo(f"referee: stats: counting {what} for a dealer qualifier the shipped table does not hold "
               f"(a fifth of a second each, once: cached under {printable(str(cache_root()))})", err=True)
