"""The shape of a YAML or JSON hand-history document: one session and its rounds, or
``sessions:``, a list of them. The keys are the models' (:mod:`referee.models`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...escape import quoted
from ...models import codes
from ...models.common import suggest
from ...models.rounds import MultiSessionDocument, SessionDocument
from ..reading import Reading
from ..records import LineDict, LoadProblem, Record, RoundRecord, SessionRecord, key_line
from ..table import is_table_document, table_document

TOP_KEYS = tuple(dict.fromkeys([*SessionDocument.model_fields, *MultiSessionDocument.model_fields]))
#: A document with none of these at its top is not a hand history at all (a provider's
#: export, a CI workflow): it is refused whole (exit 2), not audited as an empty session.
HISTORY_KEYS = ("session", "rounds", "sessions", "games")
WHAT_IT_IS = ("a hand history has 'session' and 'rounds', or 'format: 2' with 'games'; a provider's export is "
              "read with --mapping: referee mappings")


def sessions(reading: Reading, data: Any, index: int = 0) -> Iterator[Record]:
    """The sessions of one document (one session, or ``sessions:``)."""
    name = reading.name
    line = data.line if isinstance(data, LineDict) else 1
    if reading.skipped is not None:
        return
    refused = not_a_history(data)
    if refused is not None:
        problem = reading.not_history(line, refused) if index == 0 else reading.fail(line, refused)
        if problem is not None:
            yield problem
        return
    if is_table_document(data):
        yield from table_document(name, data, index)
        return
    for key in data:
        if key not in TOP_KEYS:
            yield LoadProblem(name, _line(data, key), f"unknown key {quoted(key)}{suggest(str(key), TOP_KEYS)}",
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


def not_a_history(data: Any, what: str = "its top level", rule: str = WHAT_IT_IS) -> str | None:
    """Why ``data`` (a document, or the first line of JSON Lines) is not a hand history,
    naming what was found; None when it is one (or looks enough like one for the models
    to say what is wrong with it)."""
    if isinstance(data, dict):
        if any(key in data for key in HISTORY_KEYS):
            return None
        found = f"{what} is an empty mapping" if not data else f"{_keys_of(what)} {_listed(list(data))}"
    else:
        found = f"{what} is {kind(data)}"
    return f"not a hand history: {found} ({rule})"


def _keys_of(what: str) -> str:
    """``its top-level keys are``, ``its first line's keys are``."""
    return "its top-level keys are" if what == "its top level" else f"{what}'s keys are"


def _listed(keys: list[Any], most: int = 6) -> str:
    """``'data', 'uuid'``; a key YAML read as another type as it reads it (``on:`` is True)."""
    shown = ", ".join(repr(k) if isinstance(k, str) else str(k) for k in keys[:most])
    return shown + (f" and {len(keys) - most} more" if len(keys) > most else "")


def _one_session(name: str, data: dict[str, object], index: int) -> Iterator[Record]:
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
