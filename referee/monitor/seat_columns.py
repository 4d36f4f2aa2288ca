"""The valued seats as columns (:class:`Columns`), apart from the sums made of them
(``columns``) and the per-game sums they share (``bets``), which both read them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from . import wide
from .facts import Seat
from .valuing import Figures
from .wide import Array

#: A Figures' fields in the order its constructor takes them.
FIELDS = ("mean", "variance", "bonus_pay", "bonus_mean", "bonus_variance", "top", "bonus_top", "third", "bonus_third")


class FigureTable(Sequence[Figures]):
    """Distinct figures as columns (a list a field of :data:`FIELDS`), a ``Figures`` made
    only when one is asked for (a game's cross terms: few); what ``valued_columns`` values
    a store's keys into, with no ``Figures`` a key (one a game on a first run)."""

    def __init__(self, fields: dict[str, list[Any]]) -> None:
        self.fields = fields

    def __len__(self) -> int:
        return len(self.fields["mean"])

    @overload
    def __getitem__(self, at: int) -> Figures: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[Figures]: ...

    def __getitem__(self, at: int | slice) -> Figures | Sequence[Figures]:
        if isinstance(at, slice):
            return [self[i] for i in range(len(self))[at]]
        return Figures(**{name: self.fields[name][at] for name in FIELDS})

    def taken(self, at: list[int]) -> FigureTable:
        """The figures ``at``, in that order."""
        return FigureTable({name: [values[i] for i in at] for name, values in self.fields.items()})


@dataclass(slots=True)
class Columns:
    """The valued seats (``situation`` a Figures), newest first, as columns; their
    distinct figures as a table (``sit`` indexes it). ``seats``: the seats themselves
    when made from them (the cache's games name their first seat's game), else empty."""

    seats: list[Seat]
    game: Array
    time: Array
    timed: Array
    ante: Array
    staked: Array
    net: Array
    paid: Array
    paid_known: Array
    bonus: Array
    called: Array
    known: Array
    sit: Array
    figures: Sequence[Figures]
    #: Per distinct figures: limbs of mean, variance, third, bonus pay, mean, variance, third.
    table: dict[str, Array]
    top: Array
    bonus_top: Array
    #: Per distinct figures: whether a call's (or the Bonus's) variance is not 0.
    var_nz: Array
    bonus_var_nz: Array
    #: A seat's stake times a figure, as limbs (:meth:`product`), made when first needed.
    products: dict[str, Array] = field(default_factory=dict)
    #: The seats' names by kind (table, dealer, profile, player) as numbers (-1: none) into
    #: their names, when read as columns (``stored_columns``: ``seats`` then empty).
    named: dict[str, tuple[Array, list[str]]] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.ante.size)

    def product(self, stake: str, figure: str) -> Array:
        """Every seat's stake times one of its figures, as limbs: made once, whatever the kind."""
        key = f"{stake} {figure}"
        found = self.products.get(key)
        if found is None:
            found = self.products[key] = wide.mul(wide.of_int64(getattr(self, stake)), self.table[figure][:, self.sit])
        return found
