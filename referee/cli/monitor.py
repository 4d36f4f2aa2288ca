"""``referee monitor --store URL``: live return to player watched by segment and window."""

from __future__ import annotations

import sys

import click

from .app import main


@main.command()
@click.option("--store", "store", metavar="URL", required=True,
              help="The audit store to watch (a SQLite file or postgresql://...), opened read-only.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@click.option("--band", "band_name", type=click.Choice(["99", "99.9"]), default="99", show_default=True,
              help="The family band an alert is outside: the chance that a fair store alerts anywhere.")
@click.option("--correction", type=click.Choice(["sidak", "bonferroni", "none"]), default="sidak",
              show_default=True, help="How the band accounts for the number of tests made.")
@click.option("--segment", "kinds", multiple=True,
              type=click.Choice(["all", "table", "dealer", "profile", "stake", "player"]),
              help="Only these segments (repeat the option) [default: all of them].")
def monitor(store: str, fmt: str, band_name: str, correction: str, kinds: tuple[str, ...]) -> None:
    """Observed return to player against the exact expected return of the decisions taken,
    by table, dealer, profile, stake band, bet and player, over the last 1,000 / 10,000 /
    100,000 games and the last day, week and month (docs/monitor.md).

    Exit status: 0 no alert, 1 an alert, 2 no store or a usage problem.
    """
    from ..monitor import output, reading
    from ..monitor.cells import KINDS
    from ..monitor.run import judge
    from ..profiles import kept_profiles
    from ..store.read import Stored

    with Stored(store) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        profiles = stored.profiles(stored.sources())
        shown = stored.target.shown
    with kept_profiles(profiles):
        verdict = judge(seats, band_name, correction, kinds or KINDS)
    render = {"text": output.text, "json": output.to_json, "github": output.github}[fmt]
    click.echo(render(verdict, shown), nl=False)
    sys.exit(1 if verdict.alerting else 0)
