"""The command line: argument handling only; the work is in the library."""

from __future__ import annotations

import os
import sys
from typing import TextIO

import click

from . import __version__
from .audit.checker import Options
from .audit.results import InputInfo, Summary
from .audit.run import dispatch, events
from .load.sources import SourceError, expand
from .report.base import Reporter, summary_line
from .report.json import JsonReporter
from .report.text import TextReporter

FORMATS: dict[str, type[Reporter]] = {"text": TextReporter, "json": JsonReporter}


def use_color(choice: str, stream: TextIO) -> bool:
    """``--color``: ``auto`` colours a terminal unless ``NO_COLOR`` is set (no-color.org)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """Casino Hold'em hand-history referee: re-rules recorded rounds and audits the ledger."""


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
              help="Report format [default: text].")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report to FILE; the summary still goes to the terminal.")
@click.option("--quiet", "-q", is_flag=True, help="Only findings and the summary.")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; NO_COLOR is respected.")
@click.option("--verbose", "-v", is_flag=True, help="Say which YAML loader ran and other details on stderr.")
def check(files: tuple[str, ...], profile: str | None, fmt: str | None, output: str | None, quiet: bool,
          strict: bool, color: str, verbose: bool) -> None:
    """Audit hand-history FILES (YAML, JSON, JSON Lines; '-' for stdin; directories and globs).

    Exit status: 0 no findings, 1 findings, 2 unreadable input or bad usage.
    """
    try:
        sources = expand(list(files))
    except SourceError as err:
        raise click.UsageError(str(err)) from None
    if verbose:
        from .load.yamlio import LOADER_NAME

        click.echo(f"referee {__version__}: YAML loader {LOADER_NAME}; {len(sources)} input(s)", err=True)
    name = fmt or "text"
    options = Options(profile=profile)
    stdout = sys.stdout
    if output:
        with open(output, "w", encoding="utf-8", newline="\n") as out:
            reporters = [FORMATS[name](out, color=False, quiet=quiet, strict=strict),
                         _SummaryOnly(stdout, strict=strict)]
            summary = dispatch(events(sources, options), reporters)
    else:
        reporter = FORMATS[name](stdout, color=use_color(color, stdout), quiet=quiet, strict=strict)
        summary = dispatch(events(sources, options), [reporter])
    sys.exit(summary.exit_code(strict))


class _SummaryOnly(Reporter):
    """With ``--output``, the terminal still gets the findings count."""

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.out.write(summary_line(summary) + "\n")


if __name__ == "__main__":  # pragma: no cover
    main()
