"""JSON documents: read whole (at most ``MAX_DOCUMENT_BYTES``, checked before), with
exact decimals and duplicate keys refused (:mod:`referee.load.jsonio`)."""

from __future__ import annotations

from collections.abc import Iterator

from ..jsonio import JsonInputError, loads_document
from ..reading import Reading, Stream
from ..records import Record
from .document import sessions
from .text import decode


def read(reading: Reading, stream: Stream) -> Iterator[Record]:
    raw = stream.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = decode(reading.name, raw, 1)
    if not isinstance(text, str):
        yield reading.fail(text.line, text.message, text.code)
        return
    try:
        data = loads_document(text)
    except JsonInputError as err:
        yield reading.fail(err.line, err.message, err.code)
        return
    yield from sessions(reading, data)
