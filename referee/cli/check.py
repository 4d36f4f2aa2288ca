"""``referee check``: audit hand histories, in one process or many, into any report format."""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from typing import Any, TextIO

import click

from .. import __version__
from ..audit.stream import Options
from ..output import STDOUT, guard, guarded, open_output
from ..pipeline import audit_stream, dispatch
from ..report.base import Reporter
from ..report.progress import Progress
from ..report.view import Selected, View
from . import common, settings
from .app import main


@main.command()
@click.argument("files", nargs=-1, required=True)
@common.PROFILE_OPTION
@click.option("--format", "fmt", type=click.Choice(sorted(common.FORMATS)), default=None,
              help="Report format [default: text; github when GITHUB_ACTIONS=true].")
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write the report to FILE (atomically; '-': standard output); the summary still goes to the "
                   "terminal.")
@click.option("--also", "also", metavar="FORMAT:PATH", multiple=True,
              callback=lambda _context, _parameter, values: also_option(values),
              help="Also write the report in FORMAT to PATH, from the same audit (repeatable), e.g. "
                   "--also junit:referee.xml --also sarif:referee.sarif.")
@click.option("--quiet", "-q", is_flag=True, help="Only findings and the summary.")
@click.option("--strict/--no-strict", default=None, help="Warnings fail the check too [default: no, or the "
                                                          "configuration's strict].")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; NO_COLOR is respected.")
@click.option("--verbose", "-v", is_flag=True, help="Say which YAML loader ran and other details on stderr.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes auditing files (and chunks of large JSON Lines files) [default: the number of cores].")
@common.CLUSTER_OPTION
@click.option("--progress/--no-progress", default=None,
              help="Progress on stderr [default: on a terminal, with the text format, unless --quiet].")
@click.option("--all-rows", is_flag=True,
              help="Text format: every round of every session (by default, sessions over 200 rounds show "
                   "their flagged rounds).")
@click.option("--store", "store", metavar="URL", default=None,
              help="Keep everything audited in this store: a SQLite file, or postgresql://... (docs/store.md).")
@common.MAPPING_OPTION
@common.WALLET_OPTION
@common.WALLET_MAPPING_OPTION
@settings.options
def check(files: tuple[str, ...], profile: str | None, fmt: str | None, output: str | None,
          also: list[tuple[str, str]], quiet: bool, strict: bool | None, color: str, verbose: bool,
          jobs: int | None, cluster: str | None, progress: bool | None, all_rows: bool, store: str | None,
          mapping: str | None, wallet: tuple[str, ...], wallet_mapping: str, **chosen: Any) -> None:
    """Audit hand-history FILES (YAML, JSON, JSON Lines; '-' for stdin; directories and globs).

    With --mapping, FILES are a provider's exports (JSON pages, JSON Lines, CSV) read through
    the mapping into format 2 and audited as a live-table log is; or wallet logs audited alone.

    The nearest configuration file (.referee.toml, referee.toml, or pyproject.toml's
    [tool.referee]) sets defaults for these options (docs/configuration.md).

    Exit status: 0 no error findings (warnings alone exit 0 unless --strict), 1 error findings
    (or warnings under --strict), 2 unreadable input, nothing audited or bad usage, 130 interrupted.
    """
    settled = settings.settle(chosen, profile, strict, fmt, tuple(sorted(common.FORMATS)))
    profile, strict_, fmt, view = settled.profile, settled.strict, settled.format, settled.view
    common.check_profile(profile)
    common.check_mapping(mapping, wallet, wallet_mapping)
    common.export_profile(mapping, profile)
    if mapping is not None and cluster is not None:
        raise click.UsageError("--mapping is audited on this machine: --cluster takes hand histories")
    outputs = [("--output", output), ("--write-baseline", settled.write_baseline),
               *((f"--also {name}", path) for name, path in also)]
    guard(outputs, [*files, *wallet, *([profile] if profile else [])])
    sources = common.sources(files, mapping, settled.exclude, " and ".join(settled.exclude_origins))
    jobs = jobs or os.cpu_count() or 1
    common.tune_collector()
    if verbose:
        from ..load.yamlio import LOADER_NAME

        inputs = f"{len(sources)} input{'s' * (len(sources) != 1)}"
        click.echo(f"referee {__version__}: YAML loader {LOADER_NAME}; {inputs}; up to {jobs} "
                   f"process{'es' * (jobs != 1)}", err=True)
    name = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    stdout = sys.stdout
    chosen_class = common.reporter_class(name)
    show = progress if progress is not None else (sys.stderr.isatty() and not quiet and not chosen_class.machine)
    to_file = output not in (None, STDOUT)
    sink = None
    wallet_files: tuple[str, ...] = ()  # the logs read from their names (standard input for '-')
    if store is not None:
        from ..store.chunks import Digests

        digests = Digests(sources)  # hashed beside the import of the store's modules, which comes next
        from ..store.writer import prepare

        sink, sources = prepare(store, sources, stored_options(profile, mapping, wallet, wallet_mapping), common.note,
                                wallet, digests)
        wallet_files = sink.wallet_files()
    options = Options(profile=profile, mapping=mapping, wallet=wallet, wallet_mapping=wallet_mapping,
                      wallet_files=wallet_files)
    with open_output(output or STDOUT) as out, ExitStack() as others:
        extra = {"all_rows": all_rows} if name == "text" else {}
        reporters: list[Reporter] = [
            chosen_class(out, color=False if to_file else common.use_color(color, stdout), quiet=quiet,
                         strict=strict_, **extra)]
        reporters += also_reporters(also, others, quiet, strict_)
        if to_file:
            reporters.append(common.SummaryOnly(guarded(stdout, STDOUT), strict=strict_))
        if view.hides:  # every report sees the findings shown; the store keeps them all (the audit's record)
            reporters = [Selected(r, view) for r in reporters]
        stream = audit_stream(sources, options, reporters + ([sink] if sink else []), jobs, common.note, cluster)
        meter = Progress(sys.stderr, stream.total, stream.done, tasks=stream.tasks) if show else None
        try:
            summary = dispatch(common.skipping(sink.watch(stream.events) if sink else stream.events),
                               reporters + ([sink] if sink else []), meter, sink.index if sink else None,
                               sink.sessions if sink else None, view)
        finally:
            if sink is not None:
                sink.close()
    if sink is not None:
        if sink.error is not None:  # the report is written: the store's error after it, exit 2
            raise type(sink.error)(sink.summary())
        common.note(sink.summary())
    if settled.write_baseline is not None:
        write_baseline(settled.write_baseline, view)
    sys.exit(common.exit_code(summary, strict_))


def write_baseline(path: str, view: View) -> None:
    """The findings shown today, as a baseline at ``path`` (atomically); the reasons an
    earlier baseline there gave its entries that are still found are kept."""
    from dataclasses import replace

    from ..report import baseline as baselines

    given = baselines.reasons(path)
    entries = [replace(e, reason=given.get(e.fingerprint, "")) for e in view.written.values()]
    with open_output(path) as out:
        out.write(baselines.text(entries))
    kept = sum(1 for e in entries if e.reason)
    common.note(f"wrote {len(entries)} accepted finding{'s' * (len(entries) != 1)} to {path}"
                + (f" ({kept} with the reason already given)" if kept else "")
                + ": fill in each reason; --baseline reads it")


def also_option(values: tuple[str, ...]) -> list[tuple[str, str]]:
    """``--also FORMAT:PATH`` as ``(format, path)`` pairs, or a usage error naming the
    formats (a report to standard output is ``--format``'s)."""
    pairs = []
    for value in values:
        name, sep, path = value.partition(":")
        if not sep or name not in common.FORMATS or not path or path == STDOUT:
            raise click.BadParameter(f"{value!r} is not FORMAT:PATH with FORMAT one of "
                                     f"{', '.join(sorted(common.FORMATS))} and PATH a file (e.g. junit:referee.xml)",
                                     param_hint="--also")
        pairs.append((name, path))
    return pairs


def also_reporters(also: list[tuple[str, str]], stack: ExitStack, quiet: bool, strict: bool) -> list[Any]:
    """The ``--also`` reports, each written atomically to its file when the audit ends
    (an audit that fails leaves every one of them as it was)."""
    reporters = []
    for name, path in also:
        out: TextIO = stack.enter_context(open_output(path))
        reporters.append(common.reporter_class(name)(out, color=False, quiet=quiet, strict=strict))
    return reporters


def stored_options(profile: str | None, mapping: str | None, wallet: tuple[str, ...] = (),
                   wallet_mapping: str = "seamless-wallet") -> Any:
    """What a stored source is kept with, so that a replay audits it alike: the profile
    asked for, and with ``--mapping`` the mapping itself (its bytes: a file may change or
    go, a built-in may change with referee); with ``--wallet``, the wallet mapping alike
    (the logs themselves, by name and SHA-256, are added by the store's writer, which
    keeps their bytes)."""
    options: dict[str, Any] = {"profile": profile}
    if mapping is not None:
        from ..load.exports import load_mapping

        options["mapping"] = _kept_mapping(load_mapping(mapping))
        if wallet:
            options["wallet_mapping"] = _kept_mapping(load_mapping(wallet_mapping))
    return options


def _kept_mapping(loaded: Any) -> dict[str, Any]:
    """A mapping as a store keeps it: name, whether built-in, SHA-256 and text."""
    return {"name": loaded.name, "builtin": loaded.builtin, "sha256": loaded.sha256,
            "text": loaded.text.decode("utf-8")}
