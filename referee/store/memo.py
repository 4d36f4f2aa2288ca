"""A value made once an object, for the writer's hot path: the seats of one lane entry
share one settlement object, and hashing its fields for every seat cost more than the
rest of the seat's row."""

from __future__ import annotations

from collections.abc import Callable
from operator import is_, itemgetter
from typing import Any


class ByObject:
    """``made(value)`` for each value, made once an object: looked up by the object's id
    (no hashing of its fields), the object kept alive with it so that an id is never
    another object's; bounded (past it, made again: ``made`` looks it up by value)."""

    def __init__(self, made: Callable[[Any], Any]) -> None:
        self.made = made
        self.found: dict[int, tuple[Any, Any]] = {}

    def __getitem__(self, value: Any) -> Any:
        known = self.found.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        result = self.made(value)
        if len(self.found) > 50_000:
            self.found.clear()
        self.found[id(value)] = (value, result)
        return result

    def many(self, values: list[Any]) -> list[Any]:
        """``self[value]`` of each value (when every one is known: in C, a pass a column)."""
        found: list[Any] = list(map(self.found.get, map(id, values)))
        if None not in found and all(map(is_, map(_FIRST, found), values)):
            return list(map(_SECOND, found))
        return [self[value] for value in values]


_FIRST, _SECOND = itemgetter(0), itemgetter(1)
