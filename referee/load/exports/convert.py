"""An export's format-2 records written as a format-2 JSON Lines log (``referee import``).

Why a file and not only ``check --mapping``: an auditor archives what was audited, diffs
two runs, reruns the audit with another profile; a format-2 log is that, readable by
every command. Each game line keeps its provenance in ``meta.export`` (the export file
and the record's pointer); each session line the mapping's name and digest and the
export file's SHA-256, which is checked to be of exactly the bytes converted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any, TextIO, TypedDict

from ...rules.money import ExactEncoder
from ..records import GameRecord, LoadProblem, Record, SessionRecord


class _Encoder(ExactEncoder):
    """Exact Decimals (as every writer of the tool), times in ISO 8601."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return o.isoformat()
        return super().default(o)


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, cls=_Encoder, ensure_ascii=False, separators=(",", ":"))


class Provenance(TypedDict):
    """What a session line says of the export it was converted from."""

    mapping: str
    mapping_sha256: str
    file: str
    sha256: str | None


def write_format2(records: Iterable[Record], out: TextIO, export: Provenance) -> list[LoadProblem]:
    """Write every session and game of ``records``; the problems met (not written)."""
    problems: list[LoadProblem] = []
    for record in records:
        if isinstance(record, SessionRecord):
            header = dict(record.data)
            meta = dict(header.get("meta") or {})
            meta["export"] = {**meta.get("export", {}), **export}
            header["meta"] = meta
            out.write(_dumps({"format": 2, "session": header}) + "\n")
        elif isinstance(record, GameRecord):
            game = _plain(record.data)
            game["meta"] = {"export": {"file": record.source, "pointer": getattr(record, "pointer", None)}}
            out.write(_dumps(game) + "\n")
        elif isinstance(record, LoadProblem):
            problems.append(record)
    return problems


def _plain(value: Any) -> Any:
    """Records as plain dicts and lists (an ExportDict's paths stay behind)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal) and value == value.to_integral_value() and abs(value) < 10**15:
        return int(value)
    return value
