"""Reading YAML safely and exactly.

Why a loader of our own: PyYAML's safe loader turns ``0.1`` into a binary float,
silently keeps the last of two duplicate keys, expands aliases on traversal (the
"billion laughs"), and forgets line numbers. Hand histories settle money, so numbers
become :class:`~decimal.Decimal`, duplicate keys and aliases are refused, and every
mapping remembers where it was written. libyaml's C parser is used when PyYAML has it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from typing import IO, Any, cast

import yaml

from ..escape import quoted
from ..models import codes
from ..models.codes import FindingCode
from .records import MAX_LIST_ITEMS, LineDict, LineList, OversizedList

try:
    from yaml import CSafeLoader as _BaseLoader

    LIBYAML = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]  # the same interface, pure Python

    LIBYAML = False

LOADER_NAME = "libyaml (yaml.CSafeLoader)" if LIBYAML else "pure Python (yaml.SafeLoader)"


class YamlInputError(Exception):
    """Refused YAML input, with the 1-based line it concerns."""

    def __init__(self, message: str, line: int, code: FindingCode = codes.H000) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = code


class Loader(_BaseLoader):
    """libyaml's event parser, and PyYAML's scalar constructors with exact floats.

    Only the events and the scalar constructors are used: :class:`_Builder` makes the
    mappings and lists itself (lines, duplicate keys, aliases, bounds), so PyYAML's
    node graph is never composed.
    """


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
        raise YamlInputError(f"{quoted(node.value)} is not a number that can be read exactly",
                             node.start_mark.line + 1) from None


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
Loader.add_constructor(_FLOAT, _construct_decimal)
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_SCALAR_TAGS = (_STR, _INT, _FLOAT, _NULL, _BOOL, _TIMESTAMP, "!")
#: Lists that may be long: a session's rounds, a document's sessions. Any other list
#: (cards, meta) keeps at most this many items; the rest are counted, not stored.
LONG_LISTS = ("rounds", "sessions", "games", "seats")
#: Lists whose items' lines are kept when written one per line (at most MAX_LIST_ITEMS).
CARD_LISTS = ("player", "flop", "dealer")
MAX_DEPTH = 64
MAX_DIGITS = 4000


class _Builder:
    """Python values straight from libyaml's events: no node graph, bounded memory.

    Why: PyYAML composes a node graph (several objects a scalar) and then constructs
    through a generic recursive dispatch, which costs more than libyaml's parsing and
    holds the whole graph; a million-item list of cards took 466 MB. Here each event
    becomes its value at once, plain scalars are resolved by YAML 1.1's rules (PyYAML's
    own resolver table), lists other than ``rounds``/``sessions`` keep at most
    ``MAX_LIST_ITEMS`` items, nesting stops at ``MAX_DEPTH``, and an alias or a merge
    key is refused.
    """

    def __init__(self, loader: Loader) -> None:
        self.loader = loader
        # get_event never returns None before StreamEndEvent, which ends the reading.
        self.get = cast(Callable[[], yaml.Event], loader.get_event)
        self.resolvers = loader.yaml_implicit_resolvers
        #: Where the document being read starts (after an error: where the unread part starts).
        self.document_line = 1

    def documents(self) -> Iterator[Any]:
        get = self.get
        get()  # StreamStartEvent
        while True:
            event = get()
            if isinstance(event, yaml.StreamEndEvent):
                return
            self.document_line = _line_of(event)
            with _collector_paused():
                value = self.value(get(), 0, "")
            end = get()  # DocumentEndEvent
            self.document_line = end.end_mark.line + 1 if end.end_mark is not None else self.document_line
            yield value

    def value(self, event: yaml.Event, depth: int, key: str) -> Any:
        if isinstance(event, yaml.ScalarEvent):
            return self.scalar(event)
        if depth >= MAX_DEPTH:
            raise YamlInputError(f"nested more than {MAX_DEPTH} levels deep: not a hand history",
                                 _line_of(event))
        if isinstance(event, yaml.MappingStartEvent):
            self._check_tag(event, _MAP)
            return self.mapping(event, depth + 1)
        if isinstance(event, yaml.SequenceStartEvent):
            self._check_tag(event, _SEQ)
            return self.sequence(depth + 1, key)
        if isinstance(event, yaml.AliasEvent):
            raise YamlInputError(
                "YAML aliases (*name) are not accepted in hand histories: write the value out",
                _line_of(event),
            )
        raise YamlInputError(f"unexpected YAML {type(event).__name__}", _line_of(event))

    def mapping(self, start: yaml.MappingStartEvent, depth: int) -> LineDict:
        result = LineDict()
        result.line = _line_of(start)
        lines = result.lines
        get = self.get
        while True:
            event = get()
            if isinstance(event, yaml.MappingEndEvent):
                return result
            line = _line_of(event)
            if isinstance(event, yaml.ScalarEvent) and event.value == "<<" and event.implicit[0]:
                raise YamlInputError("YAML merge keys (<<) are not accepted in hand histories", line)
            key = self.value(event, depth, "")
            if not isinstance(key, str):
                if isinstance(key, (int, bool, Decimal)) or key is None:
                    key = str(key)
                else:
                    raise YamlInputError(f"a mapping key must be text, got {type(key).__name__}", line)
            if key in result:
                raise YamlInputError(
                    f"duplicate key {quoted(key)} (first at line {lines[key]}); a key may appear once", line, codes.H003
                )
            result[key] = self.value(get(), depth, key)
            lines[key] = line

    def sequence(self, depth: int, key: str) -> list[Any] | OversizedList:
        items: list[Any] = []
        lines: list[int] | None = [] if key in CARD_LISTS else None
        get = self.get
        cap = None if key in LONG_LISTS else MAX_LIST_ITEMS
        count = 0
        while True:
            event = get()
            if isinstance(event, yaml.SequenceEndEvent):
                if cap is not None and count > cap:
                    return OversizedList(count)
                if lines and len(set(lines)) > 1:  # a block list: each card's own line is kept
                    return LineList(items, lines)
                return items
            count += 1
            if cap is not None and count > cap:
                self.skip(event)
            else:
                if lines is not None:
                    lines.append(_line_of(event))
                items.append(self.value(event, depth, ""))

    def skip(self, event: yaml.Event) -> None:
        """Consume one value without keeping it (the rest of an oversized list)."""
        level = 0
        while True:
            if isinstance(event, yaml.AliasEvent):
                raise YamlInputError(
                    "YAML aliases (*name) are not accepted in hand histories: write the value out",
                    _line_of(event),
                )
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                level += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                level -= 1
            if level == 0:
                return
            event = self.get()

    def _check_tag(self, event: yaml.CollectionStartEvent, expected: str) -> None:
        if event.tag not in (None, "!", expected):
            raise YamlInputError(f"YAML tag {event.tag} is not accepted in hand histories",
                                 _line_of(event))

    def scalar(self, event: yaml.ScalarEvent) -> Any:
        value = event.value
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolve(value) if event.implicit[0] else _STR
        if tag == _STR:
            return value
        if tag not in _SCALAR_TAGS:
            raise YamlInputError(f"YAML tag {tag} is not accepted in hand histories", _line_of(event))
        if tag == _INT:
            if len(value) > MAX_DIGITS:  # beyond int()'s digit limit: exact, and out of any range
                return _construct_decimal(self.loader, yaml.ScalarNode(tag, value))
            if value.isdigit():
                return int(value)
        if tag == _NULL:
            return None
        node = yaml.ScalarNode(tag, value, cast(Any, event.start_mark), cast(Any, event.end_mark), event.style)
        try:
            return self.loader.construct_object(node, deep=True)
        except (ValueError, TypeError, OverflowError) as err:
            raise YamlInputError(f"{value[:40]!r} cannot be read as {tag.rsplit(':', 1)[-1]}: {err}",
                                 _line_of(event)) from None
        finally:
            self.loader.constructed_objects.clear()

    def resolve(self, value: str) -> str:
        """The tag of a plain scalar, by YAML 1.1's implicit rules (as PyYAML)."""
        for tag, regexp in self.resolvers.get(value[:1], ()):
            if regexp.match(value):
                # YAML 1.1's base-60 numbers (3:1 read as 181) stay text, as in YAML 1.2:
                # a profile's odds written 3:1 are odds, and no log means base 60.
                return _STR if tag in (_INT, _FLOAT) and ":" in value else str(tag)
        return _STR


def _line_of(event: yaml.Event) -> int:
    mark = event.start_mark
    return mark.line + 1 if mark is not None else 0


def load_documents(text: str | bytes | IO[bytes]) -> Any:
    """Iterate the documents of a YAML stream, one at a time.

    The cyclic garbage collector is paused while a document is built: a large
    document is hundreds of thousands of new objects, none in a cycle, and the
    collector would walk all of them again and again (measured: 10,000 rounds load in
    1.2 s paused against 3.9 s not).
    """
    loader = Loader(text)
    builder = _Builder(loader)
    try:
        yield from builder.documents()
    except yaml.YAMLError as err:
        vars(err)["document_line"] = builder.document_line  # read by the reader (getattr)
        raise
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
