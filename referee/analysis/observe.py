"""What the statistics need of each audited round, gathered once from the audit.

A round counts when it was ruled and not void: the referee's own ruling (not the
table's record) is what the statistics describe. Cards are kept as indices (0..51),
``None`` where the record says a card was not seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from ..audit.duplicates import SessionIndex
from ..audit.games import GameResult, round_view
from ..audit.results import RoundResult, SessionInfo, SessionResult
from ..models import codes
from ..profiles import DEFAULT, ProfileOrigin
from ..rules.cards import Card
from ..rules.settlement import Ruling

POSITIONS = ("player 1", "player 2", "flop 1", "flop 2", "flop 3", "turn", "river", "dealer 1", "dealer 2")


@dataclass(slots=True)
class Observed:
    session: str
    number: int | None
    file: str
    line: int
    profile: ProfileOrigin
    ante: Decimal
    main_staked: Decimal
    main_net: Decimal
    net: Decimal
    bonus: Decimal
    bonus_stake: Decimal
    called: bool
    cards: tuple[int | None, ...]  # the nine positions of POSITIONS (None: not dealt or not seen)
    player_category: str | None
    dealer_qualified: bool | None
    #: Format 2: who played, at which table, who dealt; ``repeat`` marks every seat of a
    #: game after the first, so that the deal is tested once per game.
    player: str | None = None
    table: str | None = None
    dealer_id: str | None = None
    repeat: bool = False

    @property
    def known(self) -> tuple[int, ...] | None:
        """The five cards seen at the decision, when all were seen."""
        five = self.cards[:5]
        return tuple(c for c in five if c is not None) if None not in five else None


@dataclass(slots=True)
class Observations:
    rounds: list[Observed] = field(default_factory=list)
    sessions: dict[str, SessionInfo] = field(default_factory=dict)
    #: Format 2: the games whose deal is counted, as ``GameIndex`` keys them (table, game
    #: id): a second record of a game (two lines, two files) is the same deal.
    dealt: set[tuple[str | None, str | None]] = field(default_factory=set)
    #: Format 1: every session by id, as ``check`` judges them: the same session given
    #: twice (``S010``: two files, a copy with a comment added) is observed once.
    index: SessionIndex = field(default_factory=SessionIndex)
    #: Where the rounds of the session being read begin in :attr:`rounds`.
    opened: int = 0

    def add(self, event: object, session: SessionInfo | None) -> None:
        if isinstance(event, SessionInfo):
            self.sessions[event.id] = event
            self.opened = len(self.rounds)
            return
        if isinstance(event, SessionResult):
            found = self.index.judge(event)
            if found is not None and found.code == codes.S010:
                del self.rounds[self.opened:]  # the same rounds again: observed at the first record
            return
        if isinstance(event, GameResult) and event.format == 2:
            self._game(event)
            return
        if isinstance(event, GameResult):
            event = round_view(event)
        if not isinstance(event, RoundResult) or event.ruling is None or event.ruling.outcome == "void":
            return
        self._ruled(event.ruling, event.session, event.number, event.file, event.line)

    def _game(self, game: GameResult) -> None:
        """Every ruled seat of a live-table game; the deal itself counts once."""
        info = self.sessions.get(game.session)
        table = info.table if info is not None and info.format == 2 else None
        dealer_id = game.record.dealer_id if game.record is not None else None
        key = (table, game.game)
        first = key not in self.dealt or game.game is None
        for seat in game.seats:
            if seat.ruling is None or seat.ruling.outcome == "void" or seat.copy:  # a copy is no second bet
                continue
            self._ruled(seat.ruling, game.session, game.number, seat.file, seat.line)
            self.rounds[-1].player, self.rounds[-1].table = seat.player_id, table or game.session
            self.rounds[-1].dealer_id, self.rounds[-1].repeat = dealer_id, not first
            first = False
            self.dealt.add(key)

    def _ruled(self, r: Ruling, session: str, number: int | None, file: str, line: int) -> None:
        c = r.cards
        info = self.sessions.get(session)
        origin = info.profile_origin if info and info.profile_origin else ProfileOrigin.of_builtin(DEFAULT)

        def index(card: Card | None) -> int | None:
            return None if card is None else int(card)

        dealer = tuple(c.dealer) if len(c.dealer) == 2 else (None, None)
        cards = tuple(index(x) for x in (*c.player, *c.flop, c.turn, c.river, *dealer))
        self.rounds.append(Observed(
            session=session, number=number, file=file, line=line, profile=origin,
            ante=r.ante_stake, main_staked=r.ante_stake + r.call_stake, main_net=r.ante + r.call, net=r.net,
            bonus=r.bonus, bonus_stake=r.bonus_stake, called=r.outcome != "fold", cards=cards,
            player_category=r.player_hand.category if r.player_hand is not None and r.outcome != "fold" else None,
            dealer_qualified=r.dealer_qualified,
        ))


def observe(events: Iterable[object]) -> Observations:
    found = Observations()
    current: SessionInfo | None = None
    for event in events:
        if isinstance(event, SessionInfo):
            current = event
        found.add(event, current)
    return found
