"""``referee import``: a provider's export, through a mapping, into a format-2 log."""

from __future__ import annotations

import hashlib
import sys

import click

from ..errors import UserError
from ..output import STDOUT, guard, open_output
from . import common
from .app import main


@main.command("import")
@click.argument("files", nargs=-1, required=True)
@click.option("--mapping", metavar="NAME|FILE", required=True,
              help="How the export reads: a built-in ('referee mappings' lists them) or a mapping file.")
@click.option("--output", "-o", metavar="FILE", required=True,
              help="The format-2 JSON Lines log to write (atomically; '-': standard output).")
@common.WALLET_OPTION
@common.WALLET_MAPPING_OPTION
def import_(files: tuple[str, ...], mapping: str, output: str, wallet: tuple[str, ...], wallet_mapping: str) -> None:
    """Write a provider's export FILES (JSON pages, JSON Lines, CSV) as one format-2 log, so
    the audit can be rerun, diffed and archived: 'referee check' reads it as any live-table log.

    Exit status: 0 every record written (a warning, such as H009, is said on stderr and does not
    change it), 1 some records could not be read through the mapping (each said on stderr, with
    its line; the rest is written), 2 bad usage, a mapping that does
    not fit, or an unreadable input (nothing is written).
    """
    common.check_mapping(mapping, wallet, wallet_mapping)
    from ..audit.imports import unmatched_message, wallet_mapping_of
    from ..load.exports import load_mapping, read_export
    from ..load.exports.convert import Provenance, write_format2
    from ..load.exports.wallet import WalletJoin
    from ..load.reading import Reading

    loaded = load_mapping(mapping)
    if loaded.mapping.kind == "wallet":
        raise click.UsageError(f"--mapping {mapping} reads a wallet log, which holds no games: import the game "
                               "export and give the log with --wallet")
    guard([("--output", output)], [*files, *wallet])
    sources = common.sources(files, mapping)
    problems = 0
    index: WalletJoin | None = None
    if wallet:
        index = WalletJoin()
        wallet_loaded = wallet_mapping_of(wallet_mapping)
        for name in wallet:
            reading = Reading(common.sources((name,))[0])
            for problem in index.read(reading, wallet_loaded):
                problems += _said(problem, reading)
    with open_output(output) as out:
        for source in sources:
            digest = _digest(source)
            reading = Reading(source)
            export: Provenance = {"mapping": loaded.name, "mapping_sha256": loaded.sha256, "file": source.name,
                                  "sha256": digest}
            for problem in write_format2(read_export(reading, loaded, index), out, export):
                problems += _said(problem, reading)
            if digest is not None and reading.sha256 != digest and not reading.fatal:
                raise UserError(f"{source.name}: input changed during the import: import a copy that is no "
                                "longer written to")
        for tx in index.unmatched() if index is not None else []:  # money no seat shows (W010, as check says)
            click.echo(f"{tx.file}:{tx.line}: W010 {unmatched_message(tx)}", err=True)
            problems += 1
    if output != STDOUT:
        said = f"{len(sources)} export file{'s' * (len(sources) != 1)}"
        common.note(f"{output}: written from {said} through {loaded.origin}")
    sys.exit(1 if problems else 0)


def _said(problem: object, reading: object) -> int:
    """One problem on stderr, ``file:line: CODE message``; a fatal one stops (exit 2).
    Counted (exit 1) only when it is an error: a record left unwritten. A warning (H009,
    an expression that found nothing) leaves every record written: said, not counted."""
    from ..load.records import LoadProblem
    from ..models.codes import CODES

    assert isinstance(problem, LoadProblem)
    text = f"{problem.source}:{problem.line}: {problem.code} {problem.message}"
    if problem.fatal:
        raise UserError(text)
    click.echo(text, err=True)
    return 1 if CODES[problem.code].severity == "error" else 0


def _digest(source: object) -> str | None:
    """The file's SHA-256 before it is read: written in the session line, then checked
    against the digest of the bytes the conversion read (None for standard input)."""
    path = getattr(source, "path", None)
    if path is None:
        return None
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()
