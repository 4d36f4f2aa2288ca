"""Reading YAML safely and exactly.

Why a loader of our own: PyYAML's safe loader turns ``0.1`` into a binary float,
silently keeps the last of two duplicate keys, expands aliases on traversal (the
"billion laughs"), and forgets line numbers. Hand histories settle money, so numbers
become :class:`~decimal.Decimal`, duplicate keys and aliases are refused, and every
mapping remembers where it was written. libyaml's C parser is used when PyYAML has it.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import IO, Any

import yaml

from .records import LineDict

try:
    from yaml import CSafeLoader as _BaseLoader

    LIBYAML = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

    LIBYAML = False

LOADER_NAME = "libyaml (yaml.CSafeLoader)" if LIBYAML else "pure Python (yaml.SafeLoader)"


class YamlInputError(Exception):
    """Refused YAML input, with the 1-based line it concerns."""

    def __init__(self, message: str, line: int, code: str = "H000") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = code


class Loader(_BaseLoader):
    """Safe loader with Decimal numbers, exact lines, no duplicate keys, no aliases."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            raise YamlInputError(
                "YAML aliases (*name) are not accepted in hand histories: write the value out",
                node.start_mark.line + 1,
            )
        return super().construct_object(node, deep=deep)


def _construct_mapping(loader: Loader, node: yaml.MappingNode) -> LineDict:
    result = LineDict()
    result.line = node.start_mark.line + 1
    lines = result.lines
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise YamlInputError("YAML merge keys (<<) are not accepted in hand histories",
                                 key_node.start_mark.line + 1)
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str):
            key = str(key) if isinstance(key, (int, bool, Decimal)) or key is None else key
            if not isinstance(key, str):
                raise YamlInputError(f"a mapping key must be text, got {type(key).__name__}", line)
        if key in result:
            raise YamlInputError(
                f"duplicate key {key!r} (first at line {lines[key]}); a key may appear once", line, "H003"
            )
        result[key] = loader.construct_object(value_node, deep=True)
        lines[key] = line
    return result


def _construct_decimal(loader: Loader, node: yaml.ScalarNode) -> Decimal:
    text = str(node.value).replace("_", "").strip()
    lowered = text.lower()
    if lowered in (".nan",):
        return Decimal("NaN")
    if lowered in (".inf", "+.inf"):
        return Decimal("Infinity")
    if lowered == "-.inf":
        return Decimal("-Infinity")
    try:
        return Decimal(text)
    except InvalidOperation:
        raise YamlInputError(f"{node.value!r} is not a number that can be read exactly",
                             node.start_mark.line + 1) from None


Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)


def load_documents(text: str | bytes | IO[bytes]) -> Any:
    """Iterate the documents of a YAML stream, one at a time."""
    loader = Loader(text)
    try:
        while loader.check_data():  # type: ignore[no-untyped-call]
            yield loader.get_data()
    finally:
        loader.dispose()


def describe_yaml_error(err: yaml.YAMLError) -> tuple[str, int]:
    """A one-line message and a line for a PyYAML error."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 if mark is not None else 0
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    context = getattr(err, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    return message, line
