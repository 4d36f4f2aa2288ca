"""Mapping files: the built-ins shipped in ``referee/data/mappings``, or a file of the
user's, read once, checked whole, with every problem at its line.

Why checked at load and not at the first record: a mapping that cannot work (an
unknown key, an expression JMESPath cannot parse, a regex without its groups, a card
notation that reads a token two ways) would otherwise fail on every record of a
million-line export. A problem is a :class:`MappingError` (exit 2) naming the file,
the line, the key, and a did-you-mean where one edit fixes it.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ...errors import UserError, not_a_file
from ...models.common import closest, suggest
from ...models.mapping import Mapping
from ..records import line_at
from .search import Getter, compile_expression

SUFFIX = ".yaml"


class MappingError(UserError):
    """A mapping that cannot be used (exit 2)."""


@dataclass(frozen=True)
class LoadedMapping:
    """A mapping as checked, with what the report says of it: its name (a built-in's, or
    the file as given) and the SHA-256 of its bytes."""

    name: str
    sha256: str
    mapping: Mapping
    #: Each expression of the mapping compiled, by its key (``seat.player_id``).
    getters: dict[str, Getter]
    builtin: bool
    #: Its bytes, as read: what a store keeps, so that a replay reads through this very mapping.
    text: bytes = b""

    @property
    def origin(self) -> str:
        return f"{self.name} (built-in)" if self.builtin else self.name

    def get(self, key: str) -> Getter | None:
        return self.getters.get(key)


def builtin_names() -> list[str]:
    """The built-in mappings, by name."""
    folder = resources.files("referee").joinpath("data", "mappings")
    return sorted(p.name.removesuffix(SUFFIX) for p in folder.iterdir() if p.name.endswith(SUFFIX))


def builtin_text(name: str) -> bytes:
    return resources.files("referee").joinpath("data", "mappings", f"{name}{SUFFIX}").read_bytes()


@lru_cache(maxsize=32)
def load_mapping(name_or_path: str) -> LoadedMapping:
    """A built-in by name, else a mapping file; :class:`MappingError` when neither works."""
    names = builtin_names()
    if name_or_path in names:
        data, builtin = builtin_text(name_or_path), True
    else:
        path = Path(name_or_path)
        if not path.is_file():
            if path.suffix or "/" in name_or_path or os.path.lexists(name_or_path):
                raise MappingError(f"mapping {name_or_path}: {not_a_file(name_or_path)}")
            raise MappingError(f"unknown mapping {name_or_path!r}{suggest(name_or_path, names)} "
                               "('referee mappings' lists them; or give a mapping file)")
        try:
            data = path.read_bytes()
        except OSError as err:
            raise MappingError(f"mapping {name_or_path}: {err.strerror or err}") from None
        builtin = False
    return parse_mapping(data, name_or_path, builtin)


def parse_mapping(data: bytes, name: str, builtin: bool = False) -> LoadedMapping:
    """A mapping from its YAML bytes, checked whole."""
    document = _document(data, name)
    try:
        mapping = Mapping.model_validate(document)
    except ValidationError as err:
        said = _explain(err, document)
        said += [problem for problem in _raw_expressions(document) if problem[1].split(":")[0] not in
                 {message.split(":")[0] for _, message in said}]
        raise MappingError(_problems(name, said)) from None
    if mapping.times.zone is not None:
        from .normalize import Misfit, zone

        try:
            zone(mapping.times.zone)
        except Misfit as err:
            line = line_at(document, ("times", "zone"), 1)
            raise MappingError(_problems(name, [(line, str(err))])) from None
    getters: dict[str, Getter] = {}
    for key, expression in expressions(mapping):
        try:
            getters[key] = compile_expression(expression, key)
        except ValueError as err:
            line = line_at(document, tuple(key.split(".")), 1)
            raise MappingError(_problems(name, [(line, f"{key}: {expression!r} is not a JMESPath expression: "
                                                       f"{err}")])) from None
    return LoadedMapping(name, hashlib.sha256(data).hexdigest(), mapping, getters, builtin, data)


def expressions(mapping: Mapping) -> list[tuple[str, str]]:
    """Every expression of the mapping, by its dotted key."""
    found = [(name, getattr(mapping, name)) for name in ("group", "seats") if getattr(mapping, name)]
    for section in ("session", "document", "game", "seat", "bet", "transaction"):
        model = getattr(mapping, section)
        if model is None:
            continue
        for field, value in model:
            if isinstance(value, str) and (section, field) != ("session", "profile"):
                found.append((f"{section}.{field}", value))
            elif isinstance(value, BaseModel):  # document.opening_balances as at/player/amount
                found += [(f"{section}.{field}.{key}", text) for key, text in value if isinstance(text, str)]
    return found


def _raw_expressions(document: Any) -> list[tuple[int, str]]:
    """The expressions of a mapping the model refused, checked all the same: every
    problem of the file is said at once."""
    found: list[tuple[int, str]] = []
    for section in ("session", "game", "seat", "bet", "transaction"):
        fields = document.get(section) if isinstance(document, dict) else None
        if not isinstance(fields, dict):
            continue
        for key, text in fields.items():
            if isinstance(text, str) and (section, key) != ("session", "profile"):
                try:
                    compile_expression(text)
                except ValueError as err:
                    line = line_at(document, (section, key), 1)
                    found.append((line, f"{section}.{key}: {text!r} is not a JMESPath expression: {err}"))
    return found


def _document(data: bytes, name: str) -> Any:
    import yaml

    from ..yamlio import YamlInputError, describe_yaml_error, load_documents

    try:
        documents = list(load_documents(data))
    except YamlInputError as err:
        raise MappingError(_problems(name, [(err.line, err.message)])) from None
    except yaml.YAMLError as err:
        message, line = describe_yaml_error(err)
        raise MappingError(_problems(name, [(line, message)])) from None
    except ValueError as err:
        raise MappingError(f"mapping {name}: not UTF-8 text: {err}") from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise MappingError(_problems(name, [(1, "expected one YAML mapping (key: value lines)")]))
    return documents[0]


def _problems(name: str, found: list[tuple[int, str]]) -> str:
    count = f"{len(found)} problems" if len(found) != 1 else "1 problem"
    lines = [f"mapping {name} is not valid ({count}):"]
    lines += [f"  {name}:{line}: {message}" for line, message in sorted(found)]
    return "\n".join(lines)


def _explain(err: ValidationError, document: Any) -> list[tuple[int, str]]:
    """Each validation error in words, at the line of its key."""
    out = []
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        path = ".".join(str(p) for p in loc) or "(top)"
        line = line_at(document, loc, getattr(document, "line", 1) or 1)
        kind, value = error["type"], error.get("input")
        if kind == "extra_forbidden":
            message = f"unknown key{suggest(str(loc[-1]), _fields(loc[:-1]))}"
        elif kind == "missing":
            message = "required key is missing"
        elif kind == "literal_error":
            expected = str((error.get("ctx") or {}).get("expected", ""))
            meant = closest(str(value), re.findall(r"'([^']*)'", expected)) if isinstance(value, str) else None
            hint = f"; did you mean {meant!r}?" if meant else f" (expected {expected})"
            message = f"unknown value {value!r}{hint}"
        elif kind == "string_pattern_mismatch" and loc and loc[-1] == "records":
            message = f"{value!r} is not a records path: keys and [] such as data[].games[]"
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
        out.append((line, f"{path}: {message}"))
    return out


def _fields(loc: tuple[Any, ...]) -> tuple[str, ...]:
    """The keys the model at ``loc`` allows (for a did-you-mean)."""
    model: Any = Mapping
    for part in loc:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        annotation = getattr(field, "annotation", None)
        candidates = [a for a in getattr(annotation, "__args__", (annotation,))
                      if isinstance(a, type) and issubclass(a, BaseModel)]
        if not candidates:
            return ()
        model = candidates[0]
    return tuple(model.model_fields)
