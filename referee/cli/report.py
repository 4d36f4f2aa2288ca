"""``referee report``: the audit as one self-contained HTML file."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys

import click

from ..audit.stream import Options
from ..output import STDOUT, guard, guarded, open_output
from ..pipeline import audit_stream, dispatch
from . import common
from .app import main


@main.command()
@click.argument("files", nargs=-1)
@click.option("--output", "-o", metavar="FILE", required=True,
              help="The HTML file to write ('-': standard output, the summary then on stderr).")
@common.PROFILE_OPTION
@common.LANG_OPTION
@click.option("--strict", is_flag=True, help="Warnings fail too (exit status).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes auditing files (and chunks of large JSON Lines files) [default: the number of cores].")
@common.CLUSTER_OPTION
@common.STORE_OPTION
@common.MAPPING_OPTION
@common.WALLET_OPTION
@common.WALLET_MAPPING_OPTION
def report(files: tuple[str, ...], output: str, profile: str | None, lang: str | None, strict: bool,
           jobs: int | None, cluster: str | None, store: str | None, mapping: str | None, wallet: tuple[str, ...],
           wallet_mapping: str) -> None:
    """Write the audit of FILES as one self-contained HTML file (charts inline, no network).

    Exit status as for check: 0 no error findings (warnings alone exit 0 unless --strict), 1 error
    findings (or warnings under --strict), 2 unreadable input, nothing audited or bad usage, 130 interrupted.
    """
    from ..i18n import default_language
    from ..report.html import HtmlReporter
    from ..report.pages import ReportUnavailable

    common.files_or_store(files, store, profile)
    common.check_profile(profile)
    common.read_through(mapping, store, wallet, wallet_mapping, profile)
    guard([("--output", output)], [] if store is not None else [*files, *wallet, *([profile] if profile else [])])
    common.tune_collector()
    terminal = guarded(sys.stderr if output == STDOUT else sys.stdout, STDOUT)
    with contextlib.ExitStack() as stack:
        if store is not None:
            from ..store.read import Stored, groups

            stored = stack.enter_context(Stored(store))
            runs = groups(stack.enter_context(stored.replay(stored.sources(files))))
        else:
            runs = [(common.sources(files, mapping), Options(profile=profile, mapping=mapping, wallet=wallet,
                                                             wallet_mapping=wallet_mapping))]
        out = stack.enter_context(open_output(output))
        try:
            reporter = HtmlReporter(out, strict=strict, lang=lang or default_language())
        except (ReportUnavailable, ImportError) as err:
            raise click.UsageError(common.report_extra(err)) from None
        reporters = [reporter, common.SummaryOnly(terminal)]
        streams = (audit_stream(sources, options, reporters, jobs or os.cpu_count() or 1, common.note,
                                cluster).events
                   for sources, options in runs)
        summary = dispatch(itertools.chain.from_iterable(streams), reporters)
    sys.exit(common.exit_code(summary, strict))

