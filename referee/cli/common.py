"""What the commands share: naming inputs, a profile checked early, notes, exit codes,
the report formats and colour."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import click

from ..audit.results import InputInfo, Summary
from ..audit.stream import Event
from ..errors import UserError, not_a_file
from ..escape import printable_lines
from ..load.inputs import EXPORT_EXTENSIONS, EXTENSIONS, Source, SourceError, expand
from ..output import STDOUT
from ..profiles import ProfileOrigin
from ..report.base import Reporter, summary_line

#: The report formats of ``check``, each with the module (in ``referee.report``) and
#: class of its reporter. Only the chosen format's module is imported: the JUnit one
#: alone pulls in xml.sax, urllib, http.client and ssl, the text one tabulate, and a
#: command pays for them at every start (``reporter_class``).
FORMATS: dict[str, tuple[str, str]] = {
    "text": ("text", "TextReporter"), "json": ("json", "JsonReporter"), "jsonl": ("jsonl", "JsonLinesReporter"),
    "github": ("github", "GithubReporter"), "junit": ("junit", "JunitReporter"),
    "sarif": ("sarif", "SarifReporter"), "gitlab": ("gitlab", "GitlabReporter"),
}


def reporter_class(name: str) -> type[Reporter]:
    """The reporter of the format ``name`` (a key of :data:`FORMATS`), its module imported now."""
    module, cls = FORMATS[name]
    reporter: type[Reporter] = getattr(importlib.import_module(f"..report.{module}", __package__), cls)
    return reporter


def use_color(choice: str, stream: TextIO) -> bool:
    """``--color``: ``auto`` colours a terminal unless ``NO_COLOR`` is set (no-color.org)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


LANG_OPTION = click.option(
    "--lang", type=click.Choice(["en", "fr"]), default=None,
    help="Language of the ruling [default: from LC_ALL / LC_MESSAGES / LANG, else en].",
)


CLUSTER_OPTION = click.option(
    "--cluster", metavar="tcp://HOST:PORT|local:N", default=None,
    help="Audit on a Dask cluster's workers (its scheduler's address), or on N local worker processes; "
         "the inputs must be on a file system the workers share (docs/cluster.md). Needs "
         "pip install 'referee[cluster]'.",
)


def sources(files: tuple[str, ...], mapping: str | None = None,
            exclude: list[tuple[str, Path]] | None = None, excluded_by: str = "--exclude") -> list[Source]:
    """The inputs the arguments name, or a usage error (exit 2) saying which names nothing;
    with ``mapping`` (a mapping already checked), folders are searched for the files it
    reads (``*.json``, ``*.jsonl`` or ``*.csv``), not for hand histories. ``exclude``:
    globs (each read against its folder) that leave out files found in folders or by a
    glob, never a file named as an argument; how many is said (``excluded_by``)."""
    found = _expanded(files, mapping)
    if not exclude:
        return found
    from ..report.view import matches

    named = set(files)
    kept = [s for s in found if s.name in named or not any(matches(g, s.name, root) for g, root in exclude)]
    if len(kept) < len(found):
        left = len(found) - len(kept)
        note(f"{left} file{'s' * (left != 1)} found in the folders given left out by {excluded_by}")
    return kept


def _expanded(files: tuple[str, ...], mapping: str | None) -> list[Source]:
    extensions: tuple[str, ...] = EXTENSIONS
    if mapping is not None:
        from ..load.exports import load_mapping

        kind = load_mapping(mapping).mapping.input
        extensions = tuple(e for e in EXPORT_EXTENSIONS if e == f".{kind}")
    try:
        return expand(list(files), note, extensions)
    except SourceError as err:
        raise click.UsageError(str(err)) from None


def profile_reference(origin: ProfileOrigin, output: str | None) -> str | None:
    """How a simulated log names a profile file so that ``referee check`` audits it as is:
    relative to the log's folder (where check looks first), absolute for standard output.
    None for a built-in: the sessions name it."""
    if origin.builtin is not None:
        return None
    path = os.path.abspath(origin.name)
    if output in (None, STDOUT):
        return path
    return os.path.relpath(path, os.path.dirname(os.path.abspath(output)))


def note(message: str) -> None:
    click.echo(f"referee: {printable_lines(message)}", err=True)


def exit_code(summary: Summary, strict: bool) -> int:
    """The summary's exit code; nothing audited at all is exit 2, never a pass."""
    code = summary.exit_code(strict)
    if code == 2 and summary.rounds == 0 and not summary.games.get("games") and not summary.transactions \
            and not summary.unreadable:
        click.echo("referee: nothing audited: the inputs hold no round", err=True)
    return code


def skipping(stream: Iterator[Any]) -> Iterator[Any]:
    """The events, less the inputs found in a folder that are not hand histories (a
    settings YAML, a profile beside the logs): each said once on stderr, then left out of
    the report, its integrity block and the exit status. Closed, it closes ``stream``
    (an interrupt ends the audit's workers at once, as :func:`dispatch` closes a stream)."""
    from ..escape import printable

    try:
        for event in stream:
            if isinstance(event, InputInfo) and event.skipped is not None:
                note(f"{printable(event.file)}: skipped, {printable(event.skipped)}")
                continue
            yield event
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()


def kept(stream: Iterator[Event], inputs: list[InputInfo]) -> Iterator[Event]:
    """The events, keeping what each input was (readable or not) on the way."""
    for event in stream:
        if isinstance(event, InputInfo):
            inputs.append(event)
        yield event


def read_through(mapping: str | None, store: str | None, wallet: tuple[str, ...] = (),
                 wallet_mapping: str = "seamless-wallet", profile: str | None = None) -> str | None:
    """``--mapping`` and ``--wallet`` of explain, stats and report: checked (exit 2 when they
    cannot work), and refused beside ``--store`` (the store replays each source through its
    own mapping, joined to its own wallet logs)."""
    if mapping is not None and store is not None:
        raise click.UsageError("--mapping does not apply with --store (the store keeps the mapping each export was "
                               "read through): drop --mapping")
    if wallet and store is not None:
        raise click.UsageError("--wallet does not apply with --store (the store keeps the wallet logs each export "
                               "was checked with): drop --wallet")
    checked = check_mapping(mapping, wallet, wallet_mapping)
    export_profile(mapping, profile)
    return checked


#: ``--store`` on the commands that read: the store instead of the files (FILES then
#: name stored sources, as they were named when stored).
STORE_OPTION = click.option(
    "--store", "store", metavar="URL", default=None,
    help="Read the audit store (a SQLite file or postgresql://...) instead of files; FILES then pick stored "
         "sources by the names they were stored under.")


def files_or_store(files: tuple[str, ...], store: str | None, profile: str | None = None) -> None:
    """FILES are needed unless a store is read; a store keeps its own profiles."""
    if not files and store is None:
        raise click.MissingParameter(param_type="argument", param_hint="'FILES...'")
    if store is not None and profile is not None:
        raise click.UsageError("--profile does not go with --store: the store keeps the profiles each source was "
                               "ruled by")


def time_option(text: str | None, name: str) -> Any:
    """An ISO 8601 time option (no zone: UTC), or a usage error naming the option."""
    if text is None:
        return None
    from ..recall import parse_time

    try:
        return parse_time(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a time (ISO 8601, e.g. 2026-11-29T21:30)",
                                 param_hint=name) from None


REPORT_EXTRA = "pip install 'referee[report]'"


def report_extra(err: Exception) -> str:
    """The message for a missing report extra, with the install line said once: the HTML
    report's own message already carries it, a bare ImportError does not."""
    text = str(err)
    return text if REPORT_EXTRA in text else f"{text}; install the report extra: {REPORT_EXTRA}"


def check_profile(profile: str | None) -> None:
    """``--profile`` names a built-in or a readable, valid file: else a usage error (exit 2)
    before any input is read, not a finding pinned to each session's header."""
    if profile is None:
        return
    from ..profiles import ProfileError, resolve_profile

    try:
        resolve_profile(profile)
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None


#: ``--profile`` of the commands that rule every session of their files.
PROFILE_OPTION = click.option(
    "--profile", metavar="NAME|FILE",
    help="Rule profile for every session, whatever the sessions name (the auditor's safeguard against a log's "
         "own profile file); with --mapping, needed when the mapping names none. docs/profiles.md.")
MAPPING_OPTION = click.option(
    "--mapping", metavar="NAME|FILE", default=None,
    help="FILES are a provider's exports, read through this mapping (a built-in: 'referee mappings' lists "
         "them; or a mapping file). docs/importers.md.")
WALLET_OPTION = click.option(
    "--wallet", "wallet", metavar="FILE", multiple=True,
    help="A seamless-wallet log whose transactions fill the exported seats' wallets, by game and player "
         "(repeat for several; with --mapping).")
WALLET_MAPPING_OPTION = click.option(
    "--wallet-mapping", metavar="NAME|FILE", default="seamless-wallet", show_default=True,
    help="The mapping the --wallet logs are read through.")


def check_mapping(mapping: str | None, wallet: tuple[str, ...], wallet_mapping: str) -> str | None:
    """``--mapping`` and ``--wallet-mapping`` load and fit their roles, ``--wallet`` files
    exist: else exit 2 before any input is read. The inputs' folder walk then looks
    for exports (JSON, JSON Lines, CSV)."""
    if mapping is None:
        if wallet:
            raise click.UsageError("--wallet joins a wallet log to a provider's export: give --mapping too "
                                   "(or audit the log alone: --mapping seamless-wallet LOG)")
        return None
    from ..audit.imports import wallet_mapping_of
    from ..load.exports import MappingError, load_mapping

    try:
        loaded = load_mapping(mapping)
        if wallet:
            if loaded.mapping.kind == "wallet":
                raise click.UsageError(f"--mapping {mapping} reads wallet logs: FILES are then the logs "
                                       "themselves, without --wallet")
            wallet_mapping_of(wallet_mapping)
    except MappingError as err:
        raise click.BadParameter(str(err), param_hint="--mapping") from None
    except UserError as err:
        raise click.BadParameter(str(err), param_hint="--wallet-mapping") from None
    for name in wallet:
        if name != "-" and not os.path.isfile(name):
            raise click.BadParameter(f"{name}: {not_a_file(name)}", param_hint="--wallet")
    return mapping


def export_profile(name: str | None, profile: str | None) -> None:
    """After :func:`check_mapping`, for a command that rules (check, explain, stats,
    report; not import, which writes the sessions as the mapping names them): an
    export's games are ruled by the profile someone named, ``--profile`` or the mapping's
    ``session.profile`` (each of :data:`referee.models.mapping.PROFILE_KEYS`). None named
    is a usage error (exit 2), never the default: an export does not say which paytable
    its table paid, and a bonus table audited as vivo gives thousands of findings that
    look like the table's fault, a caribbean one none that would show it."""
    if name is None or profile is not None:
        return
    from ..load.exports import load_mapping
    from ..models.mapping import PROFILE_KEYS

    mapping = load_mapping(name).mapping  # check_mapping read it whole: it loads
    if mapping.kind != "games" or mapping.names_profile() is not None:
        return
    keys = " or ".join(f"{section}.{key}" for section, key in PROFILE_KEYS)
    raise click.UsageError(f"--mapping {name} names no profile for the exported games: give --profile NAME|FILE "
                           f"(vivo, caribbean, bonus-aa, bonus-100 or a profile file), or set {keys} in the mapping")


def tune_collector() -> None:
    """An audit builds millions of short-lived objects and no cycles worth chasing:
    collect the young generation less often (bench/RESULTS.md has the figures)."""
    import gc

    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


class SummaryOnly(Reporter):
    """With ``--output``, the terminal still gets the findings count."""

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.out.write(summary_line(summary) + "\n")

