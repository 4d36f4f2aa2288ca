"""``referee stats``: return to player, fairness of the deal, the exact value of every decision."""

from __future__ import annotations

import contextlib
import os
import sys

import click

from .. import __version__
from ..audit.results import InputInfo
from ..audit.stream import Options
from ..pipeline import events
from ..report.base import printable
from ..rules.money import dumps
from . import common
from .app import main


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.99, show_default=True,
              help="Confidence of the intervals and level of the tests.")
@click.option("--decisions/--no-decisions", default=True, show_default=True,
              help="Value every decision exactly (from the cached per-situation table, built on first use).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes [default: the cores].")
def stats(files: tuple[str, ...], profile: str | None, fmt: str, confidence: float, decisions: bool,
          jobs: int | None) -> None:
    """Statistical audit of FILES: return to player, fairness of the deal, decision audit.

    Exit status: 0 nothing suspect, 1 a flag or a suspect test, 2 unreadable input or bad usage.
    """
    from ..analysis.decisions import value_all
    from ..analysis.observe import observe
    from ..analysis.stats import Inputs, compute
    from ..report.stats import render

    common.check_profile(profile)
    sources = common.sources(files)
    inputs: list[InputInfo] = []
    observations = observe(common.kept(events(sources, Options(profile=profile)), inputs))
    unreadable = [i.file for i in inputs if not i.readable]
    for name in unreadable:
        click.echo(f"{printable(name)}: cannot be read in full; run referee check on it", err=True)
    if not unreadable and not observations.rounds:
        click.echo("nothing to describe: no round of the inputs was ruled (none, or all void or invalid); "
                   "run referee check on them", err=True)
        sys.exit(2)
    values = None
    if decisions:
        count = len({(r.profile, r.known) for r in observations.rounds if r.known is not None})
        show = sys.stderr.isatty()
        with click.progressbar(length=count, label="valuing decisions", file=sys.stderr) if show \
                else contextlib.nullcontext() as bar:
            values = value_all(observations.rounds, jobs or os.cpu_count() or 1,
                               bar.update if bar is not None else None)
    result = compute(Inputs(observations, values, confidence))
    if fmt == "json":
        click.echo(dumps({"referee": {"version": __version__}, **result.to_json()}, indent=1, ensure_ascii=False))
    else:
        click.echo(render(result), nl=False)
    sys.exit(2 if unreadable else 1 if result.suspect else 0)

