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
from ..report.progress import Progress
from . import common
from .app import main


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
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
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
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
def check(files: tuple[str, ...], profile: str | None, fmt: str | None, output: str | None,
          also: list[tuple[str, str]], quiet: bool,
          strict: bool, color: str, verbose: bool, jobs: int | None, cluster: str | None, progress: bool | None,
          all_rows: bool, store: str | None, mapping: str | None, wallet: tuple[str, ...],
          wallet_mapping: str) -> None:
    """Audit hand-history FILES (YAML, JSON, JSON Lines; '-' for stdin; directories and globs).

    With --mapping, FILES are a provider's exports (JSON pages, JSON Lines, CSV) read through
    the mapping into format 2 and audited as a live-table log is; or wallet logs audited alone.

    Exit status: 0 no error findings (warnings alone exit 0 unless --strict), 1 error findings
    (or warnings under --strict), 2 unreadable input, nothing audited or bad usage, 130 interrupted.
    """
    common.check_profile(profile)
    common.check_mapping(mapping, wallet, wallet_mapping)
    if mapping is not None and cluster is not None:
        raise click.UsageError("--mapping is audited on this machine: --cluster takes hand histories")
    outputs = [("--output", output), *((f"--also {name}", path) for name, path in also)]
    guard(outputs, [*files, *wallet, *([profile] if profile else [])])
    sources = common.sources(files, mapping)
    jobs = jobs or os.cpu_count() or 1
    common.tune_collector()
    if verbose:
        from ..load.yamlio import LOADER_NAME

        click.echo(f"referee {__version__}: YAML loader {LOADER_NAME}; {len(sources)} input(s); "
                   f"up to {jobs} process(es)", err=True)
    name = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    stdout = sys.stdout
    chosen = common.reporter_class(name)
    show = progress if progress is not None else (sys.stderr.isatty() and not quiet and not chosen.machine)
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
        reporters = [chosen(out, color=False if to_file else common.use_color(color, stdout), quiet=quiet,
                                   strict=strict, **extra)]
        reporters += also_reporters(also, others, quiet, strict)
        if to_file:
            reporters.append(common.SummaryOnly(guarded(stdout, STDOUT), strict=strict))
        stream = audit_stream(sources, options, reporters + ([sink] if sink else []), jobs, common.note, cluster)
        meter = Progress(sys.stderr, stream.total, stream.done, tasks=stream.tasks) if show else None
        try:
            summary = dispatch(common.skipping(sink.watch(stream.events) if sink else stream.events),
                               reporters + ([sink] if sink else []), meter, sink.index if sink else None)
        finally:
            if sink is not None:
                sink.close()
    if sink is not None:
        common.note(sink.summary())
    sys.exit(common.exit_code(summary, strict))


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
