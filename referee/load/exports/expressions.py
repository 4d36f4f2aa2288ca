"""JMESPath expressions other than plain paths, evaluated within a budget.

Why apart from :mod:`.search`: JMESPath is imported only for a mapping that has such an
expression (the built-in mappings have none: every field is a plain path), and the
budget that bounds any expression is the engine's own business (see :mod:`.search`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping as MappingType
from typing import TYPE_CHECKING, Any

import jmespath
from jmespath import functions
from jmespath.visitor import Options, TreeInterpreter

from .budget import BUDGET, Overspent

if TYPE_CHECKING:
    from jmespath.visitor import _TreeNode  # the parse tree's type, in the stubs only


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


def _repeats(node: _TreeNode) -> bool:
    """Whether the parsed expression holds a multi-select (what can repeat a value)."""
    if node.get("type") in ("multi_select_list", "multi_select_dict"):
        return True
    return any(_repeats(child) for child in node.get("children", ()) if isinstance(child, dict))
