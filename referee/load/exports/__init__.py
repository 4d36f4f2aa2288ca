"""The importers: providers' exports read through a mapping file into format 2 (issue 29).

``read_export(reading, mapping)`` is to an export what ``referee.load.readers.read`` is
to a hand history: the one pass of :class:`~referee.load.reading.Reading` (hashed,
checked for change), yielding format-2 session and game records the audit takes as it
takes a format-2 log's. Modules: :mod:`.mappings` (the mapping files), :mod:`.search`
(their expressions), :mod:`.normalize` (cards, money, times, words), :mod:`.files`
(the records of a JSON, JSON Lines or CSV file), :mod:`.games` (records into games and
seats; :mod:`.plan`, the mapping's seat and game keys compiled once), :mod:`.fields`
(what a field that does not fit says), :mod:`.exported` (the records the audit takes),
:mod:`.wallet` (a seamless-wallet log into transactions and the join), :mod:`.convert`
(format 2 written out, for ``import``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..reading import Reading, Stream
from ..records import Record
from .files import export_records
from .games import GameBuilder
from .mappings import LoadedMapping, MappingError, builtin_names, load_mapping
from .wallet import WalletJoin

__all__ = ["LoadedMapping", "MappingError", "builtin_names", "load_mapping", "read_export"]


def read_export(reading: Reading, loaded: LoadedMapping, wallet: WalletJoin | None = None) -> Iterator[Record]:
    """Every format-2 record of one export file (a games mapping), in its order."""
    kind = loaded.mapping.input

    def games(reading: Reading, stream: Stream) -> Iterator[Record]:
        builder = GameBuilder(loaded, reading, wallet)
        return builder.build(export_records(reading, stream, loaded.mapping, builder.document_complete,
                                            builder.seats_key))

    reading.streams_json = True  # a page is streamed (.pages): no cap on its size
    return reading.records({kind: games}, lambda name, head: kind)
