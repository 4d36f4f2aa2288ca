"""The shape of a YAML or JSON hand-history document: one session and its rounds, or
``sessions:``, a list of them. The keys are the models' (:mod:`referee.models`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...models import codes
from ...models.common import suggest
from ...models.rounds import MultiSessionDocument, SessionDocument
from ..reading import Reading
from ..records import LineDict, LoadProblem, Record, RoundRecord, SessionRecord, key_line
from ..table import is_table_document, table_document

TOP_KEYS = tuple(dict.fromkeys([*SessionDocument.model_fields, *MultiSessionDocument.model_fields]))


def sessions(reading: Reading, data: Any, index: int = 0) -> Iterator[Record]:
    """The sessions of one document (one session, or ``sessions:``)."""
    name = reading.name
    line = data.line if isinstance(data, LineDict) else 1
    if is_table_document(data):
        yield from table_document(name, data, index)
        return
    if not isinstance(data, dict):
        yield reading.fail(line, f"a hand history is a mapping with 'session' and 'rounds', got {kind(data)}")
        return
    for key in data:
        if key not in TOP_KEYS:
            yield LoadProblem(name, _line(data, key), f"unknown key {key!r}{suggest(str(key), TOP_KEYS)}",
                              code=codes.H002)
    if "sessions" in data:
        items = data["sessions"]
        if not isinstance(items, list):
            yield reading.fail(_line(data, "sessions"), f"'sessions' is a list, got {kind(items)}")
            return
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                message = f"sessions[{i}] is a mapping with 'session' and 'rounds', got {kind(item)}"
                yield LoadProblem(name, line, message, code=codes.H001)
                continue
            yield from _one_session(name, item, index)
    else:
        yield from _one_session(name, data, index)


def _one_session(name: str, data: dict[str, Any], index: int) -> Iterator[Record]:
    header = data.get("session")
    line = _line(data, "session") if "session" in data else (data.line if isinstance(data, LineDict) else 1)
    yield SessionRecord(name, line, header, index)
    rounds = data.get("rounds")
    if rounds is None:
        yield LoadProblem(name, line, "the session has no 'rounds' list", code=codes.H001)
        return
    if not isinstance(rounds, list):
        yield LoadProblem(name, _line(data, "rounds"), f"'rounds' is a list, got {kind(rounds)}", code=codes.H001)
        return
    for item in rounds:
        item_line = item.line if isinstance(item, LineDict) else _line(data, "rounds")
        yield RoundRecord(name, item_line, item)


def _line(data: Any, key: str) -> int:
    return key_line(data, key, 1)


def kind(value: Any) -> str:
    """What a value is, in words, for a message."""
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "text" if isinstance(value, str) else type(value).__name__
