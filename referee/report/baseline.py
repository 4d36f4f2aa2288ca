"""Accepted findings (a baseline): the findings of a day written down, each with a
fingerprint, so that later runs hide exactly those (docs/configuration.md#baseline).

Why a fingerprint of facts: a baseline must keep hiding a finding after the log is
reformatted (keys reordered, spaced) or lines are inserted before it, and must never
hide another. So the fingerprint is a hash of what makes the finding: its code, its
file (as a path relative to the baseline's folder: the same whatever folder the check
runs from), its session, its round or game and player, the field it is on and the
values it compares; never its line nor its message's wording. A finding in another
file, session, round or game has another fingerprint, whatever it says.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..audit.results import Finding
from ..errors import UserError
from ..spelling import did_you_mean

#: The baseline file's own version (its top key): a later shape gets a new number.
VERSION = 1
#: An entry's keys, in the order they are written.
ENTRY_KEYS = ("code", "file", "session", "round", "game", "player", "fingerprint", "reason")


class BaselineError(UserError):
    """A baseline file that cannot be read, or is not one (exit 2)."""


def identity(file: str, folder: Path) -> str:
    """A finding's file as the baseline names it: relative to the baseline's folder, with
    ``/`` between parts (standard input stays ``-``)."""
    if file == "-":
        return file
    try:
        return Path(os.path.relpath(os.path.abspath(file), folder)).as_posix()
    except ValueError:  # pragma: no cover - another drive (Windows)
        return Path(file).as_posix()


def _canonical(value: Any) -> Any:
    """A value as the fingerprint reads it: a number by its value (``5.0`` is ``5``),
    a mapping by its keys in order, any sequence as a list."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Decimal)):
        return {"#": format(Decimal(value).normalize(), "f")}
    if isinstance(value, float):
        return {"#": repr(value)}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return str(value)


def fingerprint(finding: Finding, folder: Path) -> str:
    """The finding's fingerprint (16 hex digits of a SHA-256) for a baseline in ``folder``."""
    facts = [finding.code, identity(finding.file, folder), finding.session, finding.round, finding.game,
             finding.player, finding.field, _canonical(finding.expected), _canonical(finding.recorded)]
    text = json.dumps(facts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Entry:
    """One accepted finding as the baseline keeps it, and the line it is written on."""

    code: str
    file: str
    session: str | None
    round: int | None
    game: str | None
    player: str | None
    fingerprint: str
    reason: str
    line: int = 0

    def where(self) -> str:
        """The entry's finding in words: ``P005 in logs/a.yaml, session s1, round 10``."""
        parts = [f"{self.code} in {self.file}"]
        if self.session is not None:
            parts.append(f"session {self.session}")
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.player is not None:
            parts.append(f"player {self.player}")
        return ", ".join(parts)


def entry_of(finding: Finding, folder: Path, reason: str = "") -> Entry:
    return Entry(finding.code, identity(finding.file, folder), finding.session, finding.round, finding.game,
                 finding.player, fingerprint(finding, folder), reason)


@dataclass(frozen=True, slots=True)
class Baseline:
    """A baseline file as read: where it is (``shown`` as reports say it), its SHA-256,
    its entries, and the set of their fingerprints (what a worker needs to hide)."""

    shown: str
    sha256: str
    folder: Path
    entries: tuple[Entry, ...]
    fingerprints: frozenset[str]


def read(path: str, shown: str) -> Baseline:
    """The baseline at ``path``; a :class:`BaselineError` says what is wrong with it."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise BaselineError(f"baseline {shown}: {err.strerror or err}") from None
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BaselineError(f"baseline {shown}: not a JSON document ({err})") from None
    if not isinstance(document, dict) or document.get("referee_baseline") != VERSION \
            or not isinstance(document.get("findings"), list):
        raise BaselineError(f"baseline {shown}: not a referee baseline (expected {{\"referee_baseline\": {VERSION}, "
                            "\"findings\": [...]}, as --write-baseline writes)")
    lines = data.decode("utf-8").splitlines()
    entries = tuple(_entry(item, n, shown, lines) for n, item in enumerate(document["findings"], 1))
    folder = Path(path).resolve().parent
    return Baseline(shown, hashlib.sha256(data).hexdigest(), folder, entries,
                    frozenset(e.fingerprint for e in entries))


def _entry(item: Any, number: int, shown: str, lines: list[str]) -> Entry:
    where = f"baseline {shown}: finding {number}"
    if not isinstance(item, dict):
        raise BaselineError(f"{where}: expected an object")
    for key in item:
        if key not in ENTRY_KEYS:
            raise BaselineError(f"{where}: unknown key {str(key)[:40]!r}{did_you_mean(str(key), ENTRY_KEYS)}")
    code, mark = item.get("code"), item.get("fingerprint")
    if not isinstance(code, str) or not isinstance(mark, str) or not mark:
        raise BaselineError(f"{where}: needs a code and a fingerprint (strings)")
    reason = item.get("reason", "")
    line = next((i for i, text in enumerate(lines, 1) if f'"{mark}"' in text), 0)
    return Entry(code, str(item.get("file", "")), _optional(item.get("session")), _number(item.get("round")),
                 _optional(item.get("game")), _optional(item.get("player")), mark,
                 reason if isinstance(reason, str) else "", line)


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def reasons(path: str) -> dict[str, str]:
    """The reasons already written in the baseline at ``path``, by fingerprint, so that
    writing it again keeps them (none when there is no such file, or not a baseline)."""
    try:
        baseline = read(path, path)
    except BaselineError:
        return {}
    return {e.fingerprint: e.reason for e in baseline.entries if e.reason}


def text(entries: list[Entry]) -> str:
    """The baseline file: one entry a line (a diff shows each accepted finding that
    comes or goes), sorted by file, session, round or game, player and code."""
    def key(e: Entry) -> tuple[str, str, int, str, str, str, str]:
        return (e.file, e.session or "", e.round if e.round is not None else -1, e.game or "", e.player or "",
                e.code, e.fingerprint)

    rows = []
    for e in sorted(entries, key=key):
        row: dict[str, Any] = {"code": e.code, "file": e.file, "session": e.session}
        if e.round is not None:
            row["round"] = e.round
        if e.game is not None:
            row["game"] = e.game
        if e.player is not None:
            row["player"] = e.player
        row.update(fingerprint=e.fingerprint, reason=e.reason)
        rows.append("    " + json.dumps(row, ensure_ascii=False))
    body = ",\n".join(rows)
    return f'{{\n  "referee_baseline": {VERSION},\n  "findings": [\n{body}{chr(10) if rows else ""}  ]\n}}\n'
