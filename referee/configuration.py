"""``referee check``'s configuration file, found as ruff finds its own (docs/configuration.md).

Why a file: a CI job and a developer's terminal must audit alike, so what is chosen
once (the profile pinned, the findings selected or accepted) is kept beside the logs'
project, not in each command line. It is the auditor's own file, found upward from the
working directory (never beside a log: an audited party must not steer its own audit),
and a report says which one was read and its SHA-256.

In each folder from the working directory up, the first of ``.referee.toml``,
``referee.toml`` and ``pyproject.toml`` with a ``[tool.referee]`` table is the one
(a ``pyproject.toml`` without that table is passed over); ``--config FILE`` names it,
``--isolated`` reads none. Unknown keys are refused with a did-you-mean: a misspelt
``ignroe`` that silently did nothing would let findings through unnoticed.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserError
from .spelling import did_you_mean

#: The file names looked for in each folder, in the order they win.
NAMES = (".referee.toml", "referee.toml", "pyproject.toml")

#: Every key, with what it takes (docs/configuration.md documents each).
KEYS: dict[str, str] = {
    "profile": "a built-in profile's name or a profile file (relative to the configuration's folder)",
    "strict": "true or false",
    "format": "a report format (text, json, jsonl, github, junit)",
    "select": "a list of codes or prefixes",
    "extend-select": "a list of codes or prefixes",
    "ignore": "a list of codes or prefixes",
    "per-file-ignores": "a table of globs, each to a list of codes or prefixes",
    "exclude": "a list of globs",
    "exit-zero": "true or false",
    "baseline": "a baseline file (relative to the configuration's folder)",
}


class ConfigError(UserError):
    """A configuration file that cannot be read or says something referee does not take (exit 2)."""


@dataclass(frozen=True, slots=True)
class Configuration:
    """What a configuration file sets (None or empty: not set), and where it is.

    ``shown`` is its path as reports say it (relative to the working directory);
    ``root`` its folder, against which its globs and paths are read."""

    path: Path
    shown: str
    sha256: str
    root: Path
    profile: str | None = None
    strict: bool | None = None
    format: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    exit_zero: bool | None = None
    baseline: str | None = None
    #: The keys the file set, in its order (what the report says it changed).
    keys: tuple[str, ...] = field(default=())


def find(start: Path) -> Path | None:
    """The configuration file for ``start`` (a folder): the nearest one upward, or None."""
    folder = start.resolve()
    for here in (folder, *folder.parents):
        for name in NAMES:
            candidate = here / name
            if not candidate.is_file():
                continue
            if name != "pyproject.toml" or _has_table(candidate):
                return candidate
    return None


def _has_table(path: Path) -> bool:
    """Whether a ``pyproject.toml`` has a ``[tool.referee]`` table (one that cannot be
    parsed is taken: its error is then said, not passed over in silence)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    tool = data.get("tool")
    return isinstance(tool, dict) and "referee" in tool


def load(path: Path, codes: Callable[[str, str], str], formats: tuple[str, ...]) -> Configuration:
    """Read and check ``path``. ``codes(value, where)`` checks a code or prefix and gives
    it back as kept (a :class:`ConfigError` otherwise); ``formats`` are the report formats."""
    shown = _shown(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"--config {shown}: {err.strerror or err}") from None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{shown}: not valid TOML: {err}") from None
    table: Any = document
    prefix = ""
    if path.name == "pyproject.toml":
        table = document.get("tool", {}).get("referee") if isinstance(document.get("tool"), dict) else None
        prefix = "tool.referee."
        if table is None:
            raise ConfigError(f"{shown}: no [tool.referee] table")
    if not isinstance(table, dict):
        raise ConfigError(f"{shown}: [{prefix[:-1]}] is not a table")
    return _parse(table, _Place(shown, prefix), path, hashlib.sha256(data).hexdigest(), codes, formats)


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a key is, as a message names it: ``pyproject.toml: tool.referee.select``."""

    shown: str
    prefix: str

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.shown}: {self.prefix}{key}: {message}")


def _parse(table: dict[str, Any], place: _Place, path: Path, sha256: str, codes: Callable[[str, str], str],
           formats: tuple[str, ...]) -> Configuration:
    for key in table:
        if key not in KEYS:
            hint = did_you_mean(key, KEYS) or f" (the keys: {', '.join(KEYS)})"
            raise ConfigError(f"{place.shown}: unknown key {place.prefix}{_bounded(key)}{hint}")
    root = path.resolve().parent
    values: dict[str, Any] = {}
    for key in ("strict", "exit-zero"):
        if key in table:
            values[key.replace("-", "_")] = _boolean(table[key], key, place)
    if "format" in table:
        fmt = _text(table["format"], "format", place)
        if fmt not in formats:
            raise place.error("format", f"'{_bounded(fmt)}' is not a report format ({', '.join(formats)})"
                              f"{did_you_mean(fmt, formats)}")
        values["format"] = fmt
    if "profile" in table:
        values["profile"] = _relative(_text(table["profile"], "profile", place), root, builtin=True)
    if "baseline" in table:
        values["baseline"] = _relative(_text(table["baseline"], "baseline", place), root, builtin=False)
    for key in ("select", "extend-select", "ignore"):
        if key in table:
            where = f"{place.shown}: {place.prefix}{key}"
            values[key.replace("-", "_")] = tuple(codes(c, where) for c in _texts(table[key], key, place))
    if "exclude" in table:
        values["exclude"] = _texts(table["exclude"], "exclude", place)
    if "per-file-ignores" in table:
        values["per_file_ignores"] = _per_file(table["per-file-ignores"], place, codes)
    return Configuration(path, place.shown, sha256, root, keys=tuple(table), **values)


def _per_file(value: Any, place: _Place, codes: Callable[[str, str], str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise place.error("per-file-ignores", "expected a table of globs, each to a list of codes "
                                              '(e.g. "logs/old/*" = ["P", "W00"])')
    out = []
    for glob, listed in value.items():
        key = f"per-file-ignores.{glob}"
        where = f"{place.shown}: {place.prefix}{key}"
        out.append((glob, tuple(codes(c, where) for c in _texts(listed, key, place))))
    return tuple(out)


def _boolean(value: Any, key: str, place: _Place) -> bool:
    if not isinstance(value, bool):
        raise place.error(key, f"expected true or false, found {_bounded(repr(value))}")
    return value


def _text(value: Any, key: str, place: _Place) -> str:
    if not isinstance(value, str) or not value:
        raise place.error(key, f"expected a string, found {_bounded(repr(value))}")
    return value


def _texts(value: Any, key: str, place: _Place) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise place.error(key, f"expected a list of strings (e.g. [\"P\", \"W00\"]), found {_bounded(repr(value))}")
    return tuple(value)


def _relative(value: str, root: Path, builtin: bool) -> str:
    """A path the configuration names, read against its folder; a built-in profile's
    name stays a name."""
    if builtin:
        from .profiles import BUILTIN

        if value in BUILTIN:
            return value
    return str(root / value) if not os.path.isabs(value) else value


def _shown(path: Path) -> str:
    """A path as a report says it: relative to the working directory (``../pyproject.toml``)."""
    try:
        return os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive (Windows)
        return str(path)


def _bounded(text: str, limit: int = 60) -> str:
    """A value quoted in a message: escaped, on one line, and short."""
    from .escape import printable

    shown = printable(text)
    return shown if len(shown) <= limit else shown[:limit] + "…"
