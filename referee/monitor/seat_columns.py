"""The valued seats as columns (:class:`Columns`), apart from the sums made of them
(``columns``) and the per-game sums they share (``bets``), which both read them."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import wide
from .facts import Seat
from .valuing import Figures
from .wide import Array


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
    figures: list[Figures]
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
