"""A counted seat as the monitor needs it: a plain record, read from a store or made
by a test (the statistics never see a database)."""

from __future__ import annotations

from dataclasses import dataclass

#: Stake bands by the Ante, in the table's currency: (upper bound included, label).
#: Why these: a decade apart roughly, as casinos set table limits (a 1 table, a 5, a 25,
#: a 100, above), so a band holds players of one kind of table.
STAKE_BANDS: tuple[tuple[int | None, str], ...] = (
    (1_000_000, "ante <= 1"), (5_000_000, "ante 1-5"), (25_000_000, "ante 5-25"),
    (100_000_000, "ante 25-100"), (None, "ante > 100"),
)


def stake_band(ante_u: int) -> str:
    """The band of an Ante given in millionths."""
    for upper, label in STAKE_BANDS:
        if upper is None or ante_u <= upper:
            return label
    raise AssertionError("the last band is open")  # pragma: no cover


@dataclass(slots=True)
class Seat:
    """One counted seat (a format-1 round is one seat). Amounts in millionths.

    ``order`` places its game among the stored ones (larger is newer: the store's
    order, the first record of a game for all of its seats); ``game`` tells games
    apart; ``deal`` marks the one seat a game whose deal is tested (the first seat of
    the game's first record)."""

    order: int
    game: tuple[object, ...]
    time_us: int | None
    table: str | None
    dealer: str | None
    profile: str
    player: str | None
    ante_u: int
    staked_u: int
    net_u: int
    bonus_u: int
    called: bool
    known: tuple[int, ...] | None
    bonus_value: int | None = None
    deal: bool = False
    player_value: int | None = None
    dealer_value: int | None = None
    #: The stored row it is: a seat's id, or minus the id of the run of clean rounds it is in.
    row: int = 0
    #: Filled by the monitor: the seat's exact figures (see ``valuing.Valuation``).
    situation: object = None
    #: Filled by the monitor for a ``deal`` seat whose five cards are known: the deal's exact
    #: expectations (``valuing.DealFigures``), apart from ``situation``, so that the deal's
    #: seat shares its figures with its game's other seats alike (one key a game, not two).
    deal_figures: object = None
    #: What the seat was paid on the main game, in millionths: what it was paid in all (its
    #: wallet's moves where it has a wallet, else its record's net: ``audit.owed.seat_paid``,
    #: as ``check`` reads it) less the Bonus net the rules give. None: nothing says what it
    #: was paid (left out of the paid basis, ``docs/monitor.md``). Its owed amount, what
    #: ``check`` calls owed (over 0 to the player), is ``net_u - paid_u``.
    paid_u: int | None = None

    @property
    def owed_u(self) -> int:
        """What the rules give less what the seat was paid (0 when nothing says what it was paid)."""
        return 0 if self.paid_u is None else self.net_u - self.paid_u


def unpack_known(packed: int | None) -> tuple[int, ...] | None:
    """The five cards known at the decision, from ``seats.known`` (6 bits each, low first)."""
    if packed is None:
        return None
    return tuple((packed >> (6 * i)) & 63 for i in range(5))


def when(us: int | None) -> str | None:
    """A seat's time (microseconds since the epoch) as the monitor writes it: ISO 8601, UTC."""
    from ..report.rows import when as written

    return None if us is None else written(us)
