"""How much one expression of a mapping may ask of one record, and what it is when it asks
for more. Apart from :mod:`.search` and :mod:`.expressions`, which both need them, so that
neither imports the other for them."""

from __future__ import annotations

from .normalize import Misfit

#: Steps an expression may take on one record: nodes visited, items of the lists and
#: objects it builds, items of what it serializes or compares. A game record of a
#: 7-seat table through the built-in mappings' expressions takes under 200; a million
#: is about a second of CPU at worst.
BUDGET = 1_000_000


class Overspent(Misfit):
    """An expression that asked for more than :data:`BUDGET` steps on one record."""
