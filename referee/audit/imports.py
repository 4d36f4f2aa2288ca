"""Auditing providers' exports (``check --mapping``): the games of each export file,
with the money of a wallet log joined to their seats, or a wallet log alone.

Why here and not in a reader: the export's games go into the very audit a format-2
log goes through (:func:`referee.audit.stream.audit_records`); what is particular to
exports is around it: the mapping (its origin and digest in each input's
:class:`InputInfo`, hence in the report's integrity block), the wallet logs read
first (each an input of the report, hashed like the rest) and joined by game and
player, and a wallet log read alone, audited for its money only
(:mod:`referee.audit.wallet_log`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..load.inputs import Source
from ..load.reading import Reading
from ..load.records import LoadProblem, Record
from ..models import codes
from ..models.transaction import Transaction
from .results import Finding, InputInfo
from .session import Options

if TYPE_CHECKING:  # the importers (and JMESPath) are imported when an export is read
    from ..load.exports import LoadedMapping
    from ..load.exports.wallet import WalletJoin

AuditRecords = Callable[[Iterable[Record], Options], Iterator[Any]]


def export_events(sources: Iterable[Source], options: Options, audit_records: AuditRecords,
                  readings: list[Reading] | None = None) -> Iterator[Any]:
    """Every event of an audit of exports (``options.mapping``), in input order: the
    wallet logs first when joined."""
    from ..load.exports import load_mapping, read_export

    assert options.mapping is not None
    if options.mapping_text is not None:
        from ..load.exports.mappings import parse_mapping

        loaded = parse_mapping(options.mapping_text, options.mapping, options.mapping_builtin)
    else:
        loaded = load_mapping(options.mapping)
    if loaded.mapping.kind == "wallet":
        for source in sources:
            yield from wallet_alone(_reading(source, readings), loaded)
        return
    from ..load.exports.wallet import WalletJoin

    join: WalletJoin | None = None
    if options.wallet:
        join = WalletJoin()
        wallet_mapping = wallet_mapping_of(options.wallet_mapping, options.wallet_mapping_text,
                                           options.wallet_mapping_builtin)
        for source in wallet_sources(options):
            yield from _joined_wallet(_reading(source, readings), wallet_mapping, join)
    for source in sources:
        reading = _reading(source, readings)
        yield from audit_records(read_export(reading, loaded, join), options)
        yield _info(reading, loaded)
    if join is not None:
        yield from unmatched(join)


def unmatched(join: WalletJoin) -> Iterator[Finding]:
    """W010: money the wallet moved for a game and player no exported seat shows."""
    for tx in join.unmatched():
        yield Finding(codes.W010, unmatched_message(tx), tx.file, tx.line, None, "round", None, tx.round,
                      game=tx.round, player=tx.user)


def unmatched_message(tx: Transaction) -> str:
    return (f"{tx.pointer}: the wallet moved money for game {tx.round}, player {tx.user}, and no record of the "
            "exports seats that player at that game")


def wallet_sources(options: Options) -> list[Source]:
    """The ``--wallet`` logs as inputs: each under its name, read from its own file (or
    standard input), or from ``options.wallet_files`` when given (a store's replay)."""
    if not options.wallet_files:
        return [Source(name, _path(name)) for name in options.wallet]
    from pathlib import Path

    return [Source(name, Path(path)) for name, path in zip(options.wallet, options.wallet_files, strict=True)]


def wallet_mapping_of(name: str, text: bytes | None = None, builtin: bool = False) -> LoadedMapping:
    """The mapping of ``--wallet`` logs (from its kept bytes ``text`` when a replay from the
    store carries them): a wallet mapping, else a usage error."""
    from ..load.exports import load_mapping

    if text is None:
        loaded = load_mapping(name)
    else:
        from ..load.exports.mappings import parse_mapping

        loaded = parse_mapping(text, name, builtin)
    if loaded.mapping.kind != "wallet":
        raise UserError(f"--wallet-mapping {name}: a mapping of kind 'wallet' is needed, this one reads games")
    return loaded


def _path(name: str) -> Any:
    from pathlib import Path

    return None if name == "-" else Path(name)


def _reading(source: Source, readings: list[Reading] | None) -> Reading:
    reading = Reading(source)
    if readings is not None:
        readings.append(reading)
    return reading


def _info(reading: Reading, loaded: LoadedMapping, transactions: int = 0) -> InputInfo:
    return InputInfo(reading.name, reading.kind, reading.size, reading.sha256, not reading.fatal, loaded.origin,
                     loaded.sha256, transactions)


def _problem(problem: LoadProblem) -> Finding:
    return Finding(problem.code, problem.message, problem.source, problem.line, export_field=problem.export_field)


def _joined_wallet(reading: Reading, loaded: LoadedMapping, join: WalletJoin) -> Iterator[Any]:
    """A wallet log read into ``join``; its problems as findings, then its input."""
    before = join.count
    for problem in join.read(reading, loaded):
        yield _problem(problem)
    yield _info(reading, loaded, join.count - before)


def wallet_alone(reading: Reading, loaded: LoadedMapping) -> Iterator[Any]:
    """A wallet log audited for its money alone: each finding, then its input."""
    from ..load.exports.wallet import read_transactions
    from .wallet_log import WalletAudit

    conventions = loaded.mapping.conventions
    audit = WalletAudit(unreferenced_settles=conventions.unreferenced == "settles-round",
                        uncredited_lost=conventions.uncredited == "lost")
    for item in read_transactions(reading, loaded):
        if isinstance(item, Transaction):
            yield from audit.take(item)
        elif isinstance(item, LoadProblem):
            audit.gap()
            yield _problem(item)
    if not reading.fatal:
        yield from audit.close()
    yield _info(reading, loaded, audit.transactions)
