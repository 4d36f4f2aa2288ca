"""Each player's running state in a session: the two balance chains, the stake, the ledger.

The two chains of ``docs/ledger.md``: **by the rules** (the opening balance plus every
ruled net) and **as the table kept it** (the last recorded balance plus the nets since);
a recorded balance is right when it follows from either. Format 1 has one player (the
session's); a live table one per player id. Everything here is the same for both.

Why the chain is kept in pieces: in a clean session it is one trusted anchor (the last
recorded balance) and the nets since, so the fast lane (``audit/lane.py``) keeps those
three amounts (``anchor``, ``since_table``, ``since_ruled``; ``anchor`` None: nothing
anchors it yet) and :attr:`Player.chain` builds the :class:`BalanceState` the ledger
functions take only when the full audit asks; any other state is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..models import codes
from .ledger import Anchor, BalanceState, advance, judge, reanchor
from .ledger import opening as ledger_opening
from .places import Emitter
from .results import Finding, Ledger

ZERO = Decimal(0)


class Player:
    """One player's balances, chain, stake and ledger in a session."""

    __slots__ = ("_antes", "_chain", "_ledger", "anchor", "anchor_game", "anchor_round", "balance", "booked",
                 "funded", "id", "last_ante", "same", "since_ruled", "since_table", "stake")

    def __init__(self, player_id: str, opening: Decimal | None) -> None:
        self.id = player_id
        start = opening if opening is not None else ZERO
        self._ledger = Ledger(opening_balance=start, closing_balance=start)
        #: Seats booked by their sums that the ledger has not taken yet
        #: (a :class:`referee.audit.games.Book` each: the lane's, and the full audit's clean seats).
        self.booked: dict[Any, int] = {}
        #: The balance by the rules.
        self.balance = start
        self._chain: BalanceState | None = None
        self.anchor: Decimal | None = None
        #: Where the balance ``anchor`` was recorded (None: the opening balance).
        self.anchor_round: int | None = None
        self.anchor_game: str | None = None
        self.since_table: Decimal = ZERO
        self.since_ruled: Decimal = ZERO
        self.chain = ledger_opening(opening)
        self._antes: dict[Decimal, int] = {}
        #: Seats at the player's stake that ``_antes`` has not counted yet (the lane's).
        self.same = 0
        self.stake: Decimal | None = None
        #: The Ante of the player's last seat whose stakes were checked (a change is found once).
        self.last_ante: Decimal | None = None
        #: The opening balance is known: the funds for a Call can be checked (S007).
        self.funded = opening is not None

    @property
    def antes(self) -> dict[Decimal, int]:
        """How many seats the player played at each Ante (:func:`ledger.stake_check`)."""
        if self.same:
            assert self.stake is not None
            self._antes[self.stake] += self.same
            self.same = 0
        return self._antes

    @property
    def ledger(self) -> Ledger:
        """The player's ledger, with the seats booked by their sums."""
        if self.booked:
            ledger = self._ledger
            for book, count in self.booked.items():
                book.add(ledger, count)
            self.booked = {}
        return self._ledger

    @property
    def chain(self) -> BalanceState:
        if self._chain is not None:
            return self._chain
        if self.anchor is None:
            return BalanceState()
        return BalanceState((Anchor(self.anchor, self.since_table, self.since_ruled, round=self.anchor_round,
                                    game=self.anchor_game),))

    @chain.setter
    def chain(self, state: BalanceState) -> None:
        anchors = state.anchors
        if not anchors:
            self._chain, self.anchor = None, None
            return
        first = anchors[0]
        if len(anchors) == 1 and first.trusted and first.table is not None and first.ruled is not None:
            self._chain, self.anchor, self.since_table, self.since_ruled = None, first.balance, first.table, first.ruled
            self.anchor_round, self.anchor_game = first.round, first.game
        else:
            self._chain = state

    def table_balance(self) -> Decimal | None:
        """The balance as the table kept it, where it can be known."""
        if self._chain is None:
            return None if self.anchor is None else self.anchor + self.since_table
        return self._chain.table_balance


def count_book(player: Player, booked: dict[Any, int], book: Any, recorded: Decimal | None) -> None:
    """A seat ruled valid that owes nothing, counted by its ``book``
    (``games.seat_book``) for its player's ledger and the session's (``booked``), its
    sums added only when a ledger is read; the player's closing balance, and the
    recorded one when the seat records one. The full audit (``SessionAudit._book``) and
    the fast lane (``lane.take_seat``) book such a seat by it."""
    mine = player.booked
    mine[book] = mine.get(book, 0) + 1
    booked[book] = booked.get(book, 0) + 1
    ledger = player._ledger
    ledger.closing_balance = player.balance
    if recorded is not None:
        ledger.recorded_closing_balance = recorded  # the session's is made at the close


@dataclass(slots=True)
class BalanceWork:
    """A seat's part in its player's balance chain, judged at once or, for a game that
    may be the early one of two swapped games, once the next game's number says; and
    where a finding of it goes among the seat's own findings and the session's."""

    player: Player
    table_net: Decimal | None  # None: a void or cancelled game the table paid, how much not recorded
    ruled_net: Decimal | None  # None: a seat that cannot be read
    recorded: Decimal | None
    #: A void or cancelled game the table paid (V001, G003): the anchors before stay beside.
    settled_void: bool
    emit: Emitter
    at_own: int
    at_session: int


def judge_balance(work: BalanceWork, session_findings: list[Finding]) -> bool:
    """A seat's nets on its player's chain, and its recorded balance judged on it (a
    P005 put where it would have gone, judged at once); whether there was one."""
    player = work.player
    if _follows(player, work):
        return False
    player.chain = advance(player.chain, work.table_net, work.ruled_net)
    if work.recorded is None:
        return False
    # unchecked: what a void or cancelled game the table paid was paid, or an unreadable seat's net
    checkable = work.table_net is not None and work.ruled_net is not None
    broken = judge(player.chain, work.recorded) if checkable else None
    emit = work.emit
    if broken is not None:
        emit(codes.P005, broken.message(), "recorded.balance", broken.expected, work.recorded)
        place_last(emit.findings, work.at_own, session_findings, work.at_session)
    player.chain = reanchor(player.chain, work.recorded, broken is not None, emit.place.round, emit.place.game,
                            keep=work.settled_void)
    return broken is not None


def _follows(player: Player, work: BalanceWork) -> bool:
    """The clean seat's case, decided on the player's pieces without building a chain
    (:func:`follows`): both nets known, no void the table paid. Then the chain is
    carried on (:func:`carry`) as :func:`advance` and :func:`reanchor` would make it,
    and nothing is said; any other case (False) goes the general way."""
    recorded, table_net, ruled_net = work.recorded, work.table_net, work.ruled_net
    if table_net is None or ruled_net is None or work.settled_void or not follows(player, recorded, table_net,
                                                                                     ruled_net):
        return False
    place = work.emit.place
    carry(player, recorded, table_net, ruled_net, place.round, place.game)
    return True


def follows(player: Player, recorded: Decimal | None, table_net: Decimal, ruled_net: Decimal) -> bool:
    """The test of P005: the seat records no balance, or one that follows from an anchor
    of the player's chain by the nets the table recorded or by the rules'. Decided on
    the player's pieces when the chain is one trusted anchor (or nothing anchors it
    yet); on the chain itself, by :func:`~.ledger.judge`, when a break or a void the
    table paid left several (a finding's neighbours are then not thrown off the cheap
    path). The full audit (:func:`judge_balance`) and the fast lane
    (``lane.take_seat``) both ask it; a seat it does not clear is judged the general
    way, which words the finding."""
    chain = player._chain
    if chain is not None:
        return recorded is None or judge(advance(chain, table_net, ruled_net), recorded) is None
    anchor = player.anchor
    return (recorded is None or anchor is None or anchor + (player.since_table + table_net) == recorded
            or anchor + (player.since_ruled + ruled_net) == recorded)


def carry(player: Player, recorded: Decimal | None, table_net: Decimal, ruled_net: Decimal, round: int | None,
          game: str | None) -> None:
    """The chain after a seat that :func:`follows`: its recorded balance the new anchor
    (recorded at ``round`` or ``game``), else its nets carried on from the anchor; a
    chain of several anchors moved on as :func:`judge_balance` moves it (``advance``,
    then ``reanchor`` on a balance that broke nothing)."""
    chain = player._chain
    if chain is not None:
        chain = advance(chain, table_net, ruled_net)
        player.chain = chain if recorded is None else reanchor(chain, recorded, False, round, game)
        return
    if recorded is not None:
        player.anchor, player.since_table, player.since_ruled = recorded, ZERO, ZERO
        player.anchor_round, player.anchor_game = round, game
    elif player.anchor is not None:
        player.since_table += table_net
        player.since_ruled += ruled_net


def breaks(works: list[BalanceWork]) -> int:
    """How many of these balances, judged in this order, would follow from neither chain
    (a dry run: nothing is changed, nothing reported)."""
    chains: dict[int, BalanceState] = {}
    found = 0
    for work in works:
        key = id(work.player)
        chain = advance(chains.get(key, work.player.chain), work.table_net, work.ruled_net)
        if work.recorded is not None:
            broken = judge(chain, work.recorded) if work.table_net is not None and work.ruled_net is not None else None
            found += broken is not None
            chain = reanchor(chain, work.recorded, broken is not None, work.emit.place.round, work.emit.place.game,
                             keep=work.settled_void)
        chains[key] = chain
    return found


def place_last(own: list[Finding], at_own: int, session_findings: list[Finding], at_session: int) -> None:
    """The finding just emitted (last among a record's own findings and the session's)
    moved to where it belongs in both: one emitted late, for a record held back."""
    finding = own.pop()
    own.insert(at_own, finding)
    session_findings.pop()
    session_findings.insert(at_session, finding)
