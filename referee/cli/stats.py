"""``referee stats``: return to player, fairness of the deal, the exact value of every decision."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterator
from typing import Any

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


@main.command()
@click.argument("files", nargs=-1)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
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
    common.read_through(mapping, store, wallet, wallet_mapping)
    window = (common.time_option(since, "--since"), common.time_option(until, "--until"), table, dealer)
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
        from ..store.selecting import selected

        seen: dict[str, set[str]] = {}
        observations = observe(common.kept(iter(selected(stream, *window, seen=seen)), inputs))
        if not observations.rounds:
            _unseen(seen, table, dealer)
        _describe(observations, inputs, decisions, jobs, confidence, fmt)


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
