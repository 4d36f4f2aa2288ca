"""``referee report``: the audit as one self-contained HTML file."""

from __future__ import annotations

import os
import sys

import click

from ..audit.stream import Options
from ..output import STDOUT, guard, guarded, open_output
from ..pipeline import audit_stream, dispatch
from . import common
from .app import main


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--output", "-o", metavar="FILE", required=True,
              help="The HTML file to write ('-': standard output, the summary then on stderr).")
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@common.LANG_OPTION
@click.option("--strict", is_flag=True, help="Warnings fail too (exit status).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes auditing files (and chunks of large JSON Lines files) [default: the number of cores].")
@common.CLUSTER_OPTION
def report(files: tuple[str, ...], output: str, profile: str | None, lang: str | None, strict: bool,
           jobs: int | None, cluster: str | None) -> None:
    """Write the audit of FILES as one self-contained HTML file (charts inline, no network).

    Exit status as for check: 0 no findings, 1 findings, 2 unreadable input or bad usage.
    """
    from ..i18n import default_language
    from ..report.html import HtmlReporter, ReportUnavailable

    common.check_profile(profile)
    guard([("--output", output)], [*files, *([profile] if profile else [])])
    sources = common.sources(files)
    common.tune_collector()
    terminal = guarded(sys.stderr if output == STDOUT else sys.stdout, STDOUT)
    with open_output(output) as out:
        try:
            reporter = HtmlReporter(out, strict=strict, lang=lang or default_language())
        except (ReportUnavailable, ImportError) as err:
            raise click.UsageError(common.report_extra(err)) from None
        reporters = [reporter, common.SummaryOnly(terminal)]
        stream = audit_stream(sources, Options(profile=profile), reporters, jobs or os.cpu_count() or 1, common.note,
                              cluster)
        summary = dispatch(stream.events, reporters)
    sys.exit(common.exit_code(summary, strict))

