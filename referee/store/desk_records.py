"""The desk's answers as records: a game found, a game whole, one of its seats.

Why apart from :mod:`referee.store.desk`: the search and the game's page
(:mod:`~referee.store.desk_search`, :mod:`~referee.store.desk_detail`) build them, and
``desk`` calls those; kept here, the records import nothing of either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import cached_property

from ..audit.explain import Explanation, WalletMoves
from ..audit.owed import BottomLine
from ..audit.results import Finding
from ..models.common import Recorded


@dataclass(frozen=True, slots=True)
class GameHit:
    """A game found: where and when it was dealt, who sat, what was found, what is owed."""

    #: The game's id as recorded.
    game: str
    table: str | None
    dealer: str | None
    #: When it was settled (or started), UTC; None when its record has no time.
    time: datetime | None
    #: Its players' ids, in seat order.
    players: tuple[str, ...]
    #: The codes of its findings (the game's and its seats'), sorted, once each.
    codes: tuple[str, ...]
    #: What its seats are owed by the rules, in all, each way: to players and to the house
    #: (each 0 or more), and ``owed`` their sum (the money in dispute).
    owed: Decimal
    owed_to_player: Decimal
    owed_to_house: Decimal
    #: The stored file it is recorded in (a game stored in two files is two hits, the
    #: second ``second``: a second record of a game already recorded).
    source: str
    second: bool = False
    #: The line of its record in that file.
    line: int = 0


@dataclass(frozen=True)
class GameSeat:
    """A seat of a game, as ``explain --game G --player P`` rules it (not slotted: its
    :attr:`json` is made when first read, by the API's callers, never by the desk's
    pages, which draw from :attr:`explanation`)."""

    player_id: str
    #: ``win``, ``lose``, ``push``, ``fold``, ``void``, ``cancelled`` (None: not ruled).
    outcome: str | None
    #: The net result by the rules (None: not ruled).
    net: Decimal | None
    #: What the record says the table did (its outcome and amounts), when it says.
    recorded: Recorded | None
    #: What the table paid in all, as the bottom line reads it (the wallet's where there is one).
    paid: Decimal | None
    #: What the seat's wallet moved (debits, credits, refunds), when it has a wallet.
    wallet: WalletMoves | None
    findings: tuple[Finding, ...]
    #: The bottom line: what was paid, what the rules give, who is owed (``bottom.owed``:
    #: over 0 to the player, under 0 to the house).
    bottom: BottomLine | None
    #: The full ruling, as data (None when the seat could not be ruled: ``problem`` says why).
    explanation: Explanation | None
    #: The ruling in words, in the language asked for (``explain``'s text).
    text: str
    problem: str | None = None
    #: The language of :attr:`text` and :attr:`json`.
    language: str = "en"

    @cached_property
    def json(self) -> dict[str, object] | None:
        """The ruling as ``explain --format json`` gives it (None when not ruled)."""
        from ..i18n import Messages
        from ..report.ruling_json import explanation_json

        return None if self.explanation is None else explanation_json(self.explanation, Messages(self.language))


@dataclass(frozen=True, slots=True)
class GameDetail:
    """A game whole: where, when, its cards, each seat's ruling."""

    game: str
    table: str | None
    dealer: str | None
    time: datetime | None
    #: The stored file and line of its record, and its session.
    source: str
    line: int
    session: str
    #: ``settled``, ``cancelled``... as recorded (None: the record says nothing).
    status: str | None
    #: The cards as ruled, by group: ``player``, ``flop``, ``turn``, ``river``, ``dealer``
    #: (card names such as ``Ah``; None when the game's cards were not all read).
    cards: dict[str, list[str]] | None
    seats: tuple[GameSeat, ...]
    #: The game's own findings (a seat's are in its :class:`GameSeat`).
    findings: tuple[Finding, ...]
    #: ``en`` or ``fr``: the language of the rulings' words.
    language: str
    #: The other stored files that record this game (a second record), by name.
    also_in: tuple[str, ...] = ()
    #: Stored records read that changed after they were stored (``store verify`` says
    #: more): shown, never silent.
    changed: tuple[str, ...] = field(default_factory=tuple)
