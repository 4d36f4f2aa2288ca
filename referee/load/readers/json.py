"""JSON documents: read whole (at most ``MAX_DOCUMENT_BYTES``, checked before), with
exact decimals and duplicate keys refused (:mod:`referee.load.jsonio`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..jsonio import JsonInputError, loads_document
from ..reading import Reading, Stream
from ..records import LoadProblem, Record
from .document import sessions
from .text import decode


def read(reading: Reading, stream: Stream) -> Iterator[Record]:
    data = document(reading, stream, loads_document)
    if isinstance(data, LoadProblem):
        yield data
        return
    yield from sessions(reading, data)


def document(reading: Reading, stream: Stream, parse: Callable[[str], Any]) -> Any:
    """The whole stream as one JSON document (a byte-order mark dropped, UTF-8 checked),
    parsed by ``parse``; or the fatal problem that stops the input. Shared with the
    importers' JSON pages (``referee.load.exports.files``), which parse at C speed."""
    raw = stream.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = decode(reading.name, raw, 1)
    if not isinstance(text, str):
        return reading.fail(text.line, text.message, text.code)
    try:
        return parse(text)
    except JsonInputError as err:
        return reading.fail(err.line, err.message, err.code)
