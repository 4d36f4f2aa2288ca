"""Reading YAML safely and exactly.

Why a loader of our own: PyYAML's safe loader turns ``0.1`` into a binary float,
silently keeps the last of two duplicate keys, expands aliases on traversal (the
"billion laughs"), and forgets line numbers. Hand histories settle money, so numbers
become :class:`~decimal.Decimal`, duplicate keys and aliases are refused, and every
mapping remembers where it was written. libyaml's C parser is used when PyYAML has it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
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


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"


class _Builder:
    """Python values from a composed node graph, faster than PyYAML's constructor.

    Why: PyYAML constructs every node through a generic, recursive dispatch that
    costs more than libyaml's parsing; hand histories use a handful of plain types.
    Strings, plain integers, mappings and sequences are built here directly; every
    other tag goes through :class:`Loader` (and so through the same rules). A node
    met twice is an alias: refused, like a merge key.
    """

    def __init__(self, loader: Loader) -> None:
        self.loader = loader
        self.seen: set[int] = set()

    def build(self, node: yaml.Node) -> Any:
        key = id(node)
        if key in self.seen:
            raise YamlInputError(
                "YAML aliases (*name) are not accepted in hand histories: write the value out",
                node.start_mark.line + 1,
            )
        self.seen.add(key)
        tag = node.tag
        if tag == _STR:
            return node.value
        if tag == _MAP:
            return self.mapping(node)  # type: ignore[arg-type]
        if tag == _SEQ:
            return [self.build(item) for item in node.value]
        if tag == _INT and node.value.isdigit():
            return int(node.value)
        if tag == _NULL:
            return None
        return self.loader.construct_object(node, deep=True)

    def mapping(self, node: yaml.MappingNode) -> LineDict:
        result = LineDict()
        result.line = node.start_mark.line + 1
        lines = result.lines
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlInputError("YAML merge keys (<<) are not accepted in hand histories",
                                     key_node.start_mark.line + 1)
            key = self.build(key_node)
            line = key_node.start_mark.line + 1
            if not isinstance(key, str):
                key = str(key) if isinstance(key, (int, bool, Decimal)) or key is None else key
                if not isinstance(key, str):
                    raise YamlInputError(f"a mapping key must be text, got {type(key).__name__}", line)
            if key in result:
                raise YamlInputError(
                    f"duplicate key {key!r} (first at line {lines[key]}); a key may appear once", line, "H003"
                )
            result[key] = self.build(value_node)
            lines[key] = line
        return result


def load_documents(text: str | bytes | IO[bytes]) -> Any:
    """Iterate the documents of a YAML stream, one at a time.

    The cyclic garbage collector is paused while a document is composed and built:
    a large document is hundreds of thousands of new objects, none in a cycle, and
    the collector would walk all of them again and again (measured: 10,000 rounds
    load in 1.2 s paused against 3.9 s not).
    """
    loader = Loader(text)
    try:
        while True:
            with _collector_paused():
                if not loader.check_node():
                    break
                node = loader.get_node()
                document = None if node is None else _Builder(loader).build(node)
                # PyYAML's constructor remembers every node it built (for aliases): forget
                # them, or a stream of documents is held in memory to its end.
                loader.constructed_objects.clear()
                loader.recursive_objects.clear()
            yield document
    finally:
        loader.dispose()


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def describe_yaml_error(err: yaml.YAMLError) -> tuple[str, int]:
    """A one-line message and a line for a PyYAML error."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 if mark is not None else 0
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    context = getattr(err, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    return message, line
