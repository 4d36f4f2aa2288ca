"""The readers: one module a format, each turning a hashed byte stream into records.

Registered here as the reporters are in the command line: adding a format is a module
with a ``read(reading, stream)`` function and a line in :data:`READERS` (and, if its
files can be told by their first bytes, a line in :func:`detect_kind`). :func:`read`
is how the rest of the package reads an input: the one pass of
:class:`~referee.load.reading.Reading` with this registry.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from ..reading import Reading, Stream
from ..records import Record
from . import json, jsonl

Reader = Callable[[Reading, Stream], Iterator[Record]]


def _yaml(reading: Reading, stream: Stream) -> Iterator[Record]:
    """The YAML reader, imported when a YAML file is read: importing PyYAML costs 10 ms,
    which a command reading JSON (and the built-in profiles, see referee.profiles) need
    not pay at every start."""
    from . import yaml

    return yaml.read(reading, stream)


READERS: dict[str, Reader] = {"yaml": _yaml, "json": json.read, "jsonl": jsonl.read}
SUFFIXES = {".jsonl": "jsonl", ".json": "json", ".yaml": "yaml", ".yml": "yaml"}


def detect_kind(name: str, head: bytes) -> str:
    """``yaml``, ``json`` or ``jsonl``, by extension, else by the first bytes."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0].strip()
        return "jsonl" if first.endswith(b"}") and b"\n{" in text else "json"
    return "yaml"


def read(reading: Reading) -> Iterator[Record]:
    """Every record of one input, in file order; problems are records, never raised."""
    return reading.records(READERS, detect_kind)
