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
page). An :class:`Expression` is evaluated by :class:`_Budgeted`, which counts every
node it visits and every item of every list or object it builds, weighs what it is
about to serialize or compare, and stops at :data:`BUDGET` with :class:`Overspent` (a
:class:`Misfit`: the record's ``H008`` naming the key), so any expression answers in
time and memory linear in the budget and the record, whatever it says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping as MappingType
from typing import TYPE_CHECKING, Any

import jmespath
from jmespath import functions
from jmespath.exceptions import JMESPathError
from jmespath.visitor import Options, TreeInterpreter

from ..records import line_at
from .normalize import Misfit

if TYPE_CHECKING:
    from jmespath.visitor import _TreeNode  # the parse tree's type, in the stubs only

#: Steps an expression may take on one record: nodes visited, items of the lists and
#: objects it builds, items of what it serializes or compares. A game record of a
#: 7-seat table through the built-in mappings' expressions takes under 200; a million
#: is about a second of CPU at worst.
BUDGET = 1_000_000

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


class Overspent(Misfit):
    """An expression that asked for more than :data:`BUDGET` steps on one record."""


class _Spent(Exception):
    """Raised inside the interpreter when the budget runs out (turned into Overspent)."""


class _Functions(functions.Functions):
    """JMESPath's functions, with the two that can be made to walk a value of any size
    (``to_string`` serializes it, ``contains`` compares it with each item) weighing it
    first."""

    budget: _Budgeted | None = None

    @functions.signature({"types": []})
    def _func_to_string(self, arg: Any) -> Any:
        if isinstance(arg, str):
            return arg
        if self.budget is not None:
            self.budget.weigh(arg)
        return json.dumps(arg, separators=(",", ":"), default=str)

    @functions.signature({"types": ["array", "string"]}, {"types": []})
    def _func_contains(self, subject: Any, search: Any) -> Any:
        if self.budget is not None and isinstance(subject, list):
            self.budget.charge(len(subject) * self.budget.weigh(search))
        return search in subject


class _Budgeted(TreeInterpreter):
    """JMESPath's own interpreter, counting what it does (see the module's docstring)."""

    def __init__(self) -> None:
        self._calls = _Functions()
        self._calls.budget = self
        super().__init__(Options(custom_functions=self._calls))
        self.left = BUDGET

    def charge(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise _Spent

    def visit(self, node: _TreeNode, *args: Any, **kwargs: Any) -> Any:
        self.charge(1)
        result = super().visit(node, *args, **kwargs)
        if type(result) is list or type(result) is dict:
            self.charge(len(result))
        return result

    def visit_comparator(self, node: _TreeNode, value: Any) -> Any:
        if node["value"] in ("eq", "ne"):
            left, right = self.visit(node["children"][0], value), self.visit(node["children"][1], value)
            self.charge(min(self.weigh(left), self.weigh(right)))
            return self.COMPARATOR_FUNC[node["value"]](left, right)
        return super().visit_comparator(node, value)

    def weigh(self, value: Any) -> int:
        """The items of ``value`` counted as a tree (a list holding one list twice counts
        it twice, as serializing or comparing it would), charged as they are counted."""
        stack, weight = [value], 0
        while stack:
            item = stack.pop()
            weight += 1
            self.charge(1)
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, MappingType):
                stack.extend(item.values())
        return weight


class Expression:
    """Any other JMESPath expression, evaluated within :data:`BUDGET`."""

    __slots__ = ("compiled", "interpreter", "key", "text")
    plain = False

    def __init__(self, text: str, key: str = "") -> None:
        self.text = text
        self.key = key
        self.compiled = jmespath.compile(text)
        #: Only an expression that can repeat a value (a multi-select: ``[@,@]``,
        #: ``{a: @, b: @}``) can grow it beyond the record; any other walks the record's
        #: own tree (projections, filters, functions: linear in its size) and runs on
        #: JMESPath's plain interpreter, a third faster.
        self.interpreter = _Budgeted() if _repeats(self.compiled.parsed) else None

    def __call__(self, data: Any) -> Any:
        interpreter = self.interpreter
        try:
            if interpreter is None:
                return self.compiled.search(data)
            interpreter.left = BUDGET
            result = interpreter.visit(self.compiled.parsed, data)
            interpreter.weigh(result)
        except (_Spent, RecursionError):
            shown = self.text if len(self.text) <= 80 else f"{self.text[:80]}… ({len(self.text):,} characters)"
            raise Overspent(f"{self.key + ': ' if self.key else ''}{shown!r} took more than its budget of "
                            f"{BUDGET:,} steps on this record (an expression that grows its value at each "
                            "stage?); the record is not read") from None
        return result

    def path(self, base: str) -> str:
        return f"{base} ({self.text})" if base else self.text

    def line_in(self, record: Any, line: int) -> int:
        return line


Getter = PlainPath | Expression


def _repeats(node: _TreeNode) -> bool:
    """Whether the parsed expression holds a multi-select (what can repeat a value)."""
    if node.get("type") in ("multi_select_list", "multi_select_dict"):
        return True
    return any(_repeats(child) for child in node.get("children", ()) if isinstance(child, dict))


def compile_expression(text: str, key: str = "") -> Getter:
    """The getter of ``text`` (the mapping's ``key``, named when it overspends);
    ValueError saying why when JMESPath cannot parse it."""
    text = text.strip()
    try:
        compiled = Expression(text, key)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except JMESPathError as err:
        raise ValueError(_why(err, text)) from None
    if _PLAIN.match(text):
        if _KEY.match(text):
            return KeyPath(text)
        return KeysPath(text) if "[" not in text else PlainPath(text)
    return compiled


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

