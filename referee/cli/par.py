"""``referee par``: the exact PAR sheet of a profile under optimal play."""

from __future__ import annotations

import os
import sys

import click

from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..report.progress import Steps
from ..rules.money import dumps
from .app import main


@main.command()
@click.option("--profile", "profile_name", default=DEFAULT_PROFILE, show_default=True, metavar="NAME|FILE")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes [default: the cores].")
@click.option("--stored", is_flag=True, help="Print the sheet shipped with referee (built-in profiles) at once.")
@click.option("--check", "check_stored", is_flag=True,
              help="Recompute and compare with the shipped sheet; exit 1 if they differ.")
def par(profile_name: str, fmt: str, jobs: int | None, stored: bool, check_stored: bool) -> None:
    """The exact PAR sheet of a profile under optimal play: house edge, element of risk,
    call rate, outcome probabilities, the Ante table and the bonus, by enumerating every
    deal (about 3 minutes for a full sheet on 2 cores; needs NumPy: referee[par])."""
    from ..analysis.par import ParUnavailable
    from ..analysis.sheet import compute_sheet, differences, stored_sheet
    from ..profiles import BUILTIN, ProfileError, resolve_profile
    from ..report.par import render

    try:
        profile = resolve_profile(profile_name).profile
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None
    shipped = stored_sheet(profile_name) if profile_name in BUILTIN else None
    if stored:
        if shipped is None:
            raise click.UsageError(f"no sheet is shipped for {profile_name!r}; compute it (without --stored)")
        sheet = shipped
    else:
        from ..analysis.par import flop_classes

        steps = Steps(sys.stderr, "flop classes counted", len(flop_classes(tuple(range(52)))))
        try:
            sheet = compute_sheet(profile, jobs or os.cpu_count() or 1, steps.update)
        except ParUnavailable as err:
            raise click.UsageError(str(err)) from None
        finally:
            steps.close()
    if check_stored:
        if shipped is None:
            raise click.UsageError(f"no sheet is shipped for {profile_name!r} to compare with")
        found = differences(shipped, sheet)
        for line in found:
            click.echo(f"differs: {line}", err=True)
        click.echo(f"{profile_name}: the computed sheet {'differs from' if found else 'matches'} the shipped one",
                   err=True)
    click.echo(dumps(sheet, indent=1) if fmt == "json" else render(sheet), nl=fmt == "json")
    sys.exit(1 if check_stored and found else 0)

