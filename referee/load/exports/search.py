"""A mapping's expressions, compiled once: JMESPath, with plain paths read directly.

Why two ways: almost every field of an export is a plain path (``table.id``,
``result.dealer.cards``, ``communityCards[3]``); the JMESPath engine walks its parse
tree for each, about ten times slower than three dictionary lookups. A plain path is
read by :class:`PlainPath` with exactly JMESPath's meaning (a missing key, or an
index out of range, is ``None``; a key on a list, or an index on a mapping, is
``None``); anything else (filters, functions, slices, pipes) is the engine's. A test
checks the two agree on every plain path of the built-in mappings.

Why a budget: a mapping comes from whoever made the export, and a few characters of
JMESPath can ask for more than the machine has (``[@,@] | [@,@] | ... | to_string(@)``
doubles its value at each stage: 172 characters took 41 s and 1.5 GB on a 20 KB
page). An :class:`~.expressions.Expression` is evaluated by its interpreter, which counts every
node it visits and every item of every list or object it builds, weighs what it is
about to serialize or compare, and stops at :data:`.budget.BUDGET` with :class:`.budget.Overspent` (a
:class:`Misfit`: the record's ``H008`` naming the key), so any expression answers in
time and memory linear in the budget and the record, whatever it says. The engine
(:mod:`.expressions`, and JMESPath with it) is imported only for a mapping that has an
expression other than a plain path: the built-in mappings have none.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeAlias

from ..records import line_at

if TYPE_CHECKING:
    from jmespath.exceptions import JMESPathError

    from .expressions import Expression


_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(-?\d+)\]")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[-?\d+\])*(\.[A-Za-z_][A-Za-z0-9_]*(\[-?\d+\])*)*$")


class PlainPath:
    """A dotted path of keys and indexes, read as JMESPath reads it."""

    __slots__ = ("parts", "text")
    plain = True

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts: tuple[str | int, ...] = tuple(key if key else int(index) for key, index in _PART.findall(text))

    def __call__(self, data: Any) -> Any:
        for part in self.parts:
            if type(part) is str:
                if not isinstance(data, dict):
                    return None
                data = data.get(part)
            else:
                if not isinstance(data, list):
                    return None
                try:
                    data = data[part]  # type: ignore[index]
                except IndexError:
                    return None
            if data is None:
                return None
        return data

    def path(self, base: str) -> str:
        """Where the value is, below the record at ``base`` (``data[0].games[3]``)."""
        return f"{base}.{self.text}" if base and not self.text.startswith("[") else f"{base}{self.text}"

    def line_in(self, record: Any, line: int) -> int:
        """The line of the value in ``record`` (the line of the deepest object holding it)."""
        return line_at(record, self.parts, line)


class KeyPath(PlainPath):
    """A plain path of one key (``stake``, ``playerId``): most fields of a bet or a seat,
    read with one lookup."""

    __slots__ = ("key",)

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.key = text

    def __call__(self, data: Any) -> Any:
        return data.get(self.key) if isinstance(data, dict) else None


class KeysPath(PlainPath):
    """A plain path of keys only (``result.dealer.cards``): no index to tell apart."""

    __slots__ = ()

    def __call__(self, data: Any) -> Any:
        for key in self.parts:
            if not isinstance(data, dict):
                return None
            data = data.get(key)
            if data is None:
                return None
        return data


class TwoKeysPath(PlainPath):
    """A plain path of two keys (``roundDetails.bets``, ``dealer.uid``): two lookups,
    written out (a loop costs as much again as the lookups)."""

    __slots__ = ("first", "second")

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.first, self.second = self.parts

    def __call__(self, data: Any) -> Any:
        data = data.get(self.first) if isinstance(data, dict) else None
        return data.get(self.second) if isinstance(data, dict) else None


class ThreeKeysPath(PlainPath):
    """A plain path of three keys (``result.dealer.cards``), written out as :class:`TwoKeysPath`."""

    __slots__ = ("first", "second", "third")

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.first, self.second, self.third = self.parts

    def __call__(self, data: Any) -> Any:
        data = data.get(self.first) if isinstance(data, dict) else None
        data = data.get(self.second) if isinstance(data, dict) else None
        return data.get(self.third) if isinstance(data, dict) else None


class PickedPath(PlainPath):
    """A plain path of a key, an index and a key (``decisions[-1].type``: a seat's last
    decision): written out, as :class:`TwoKeysPath` (read at every seat)."""

    __slots__ = ("first", "index", "second")

    def __init__(self, text: str) -> None:
        super().__init__(text)
        first, index, second = self.parts
        self.first, self.index, self.second = str(first), int(index), str(second)

    def __call__(self, data: Any) -> Any:
        data = data.get(self.first) if isinstance(data, dict) else None
        if not isinstance(data, list):
            return None
        try:
            data = data[self.index]
        except IndexError:
            return None
        return data.get(self.second) if isinstance(data, dict) else None


Getter: TypeAlias = "PlainPath | Expression"


def compile_expression(text: str, key: str = "") -> Getter:
    """The getter of ``text`` (the mapping's ``key``, named when it overspends);
    ValueError saying why when JMESPath cannot parse it."""
    text = text.strip()
    if _PLAIN.match(text):  # JMESPath's own meaning, read directly (see above)
        if _KEY.match(text):
            return KeyPath(text)
        if "[" in text:
            path = PlainPath(text)
            kinds = tuple(type(part) for part in path.parts)
            return PickedPath(text) if kinds == (str, int, str) else path
        return {1: TwoKeysPath, 2: ThreeKeysPath}.get(text.count("."), KeysPath)(text)
    from jmespath.exceptions import JMESPathError

    from .expressions import Expression

    try:
        return Expression(text, key)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except JMESPathError as err:
        raise ValueError(_why(err, text)) from None


def _why(err: JMESPathError, text: str) -> str:
    """JMESPath's complaint in words, with where in the expression."""
    at = getattr(err, "lex_position", None)
    token = getattr(err, "token_value", None)
    if type(err).__name__ == "IncompleteExpressionError":
        return "it ends before it is complete"
    if isinstance(at, int):
        return f"{getattr(err, 'msg', 'invalid')} {token!r} at character {at + 1}" if token is not None else \
            f"{getattr(err, 'msg', 'invalid')} at character {at + 1}"
    return str(err).splitlines()[0] if str(err) else type(err).__name__

