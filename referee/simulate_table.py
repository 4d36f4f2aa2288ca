"""Dealing live-table sessions in format 2: one deal per game, many seats, a wallet.

Why a separate simulator: a live table is not N format-1 sessions side by side. One
deal is shared by every seat (or, at a land-based table, each seat gets its own two
cards from the same deck), players come and go between games, each with their own
stake and way of playing, and the wallet moves money per bet. The faults are the
table's own kinds: two records of one game with different cards, a wallet that moved
the wrong amount, a player seated twice, a cancelled game that was paid anyway. The
manifest says which finding each fault must give, seat by seat.

Reproducible like :mod:`referee.simulate`: one ``random.Random(seed)`` drives
everything in a fixed order.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from random import Random
from typing import Literal, TextIO

from .models import codes
from .models.codes import FindingCode
from .models.written import GameLine, SeatLine, TableLine, WalletLine
from .rules.cards import DECK, Card
from .rules.hands import evaluate
from .rules.money import dumps, plain
from .rules.profile import Profile
from .rules.settlement import Deal, settle
from .simulate import POLICIES, Policy, optimal_policy, recorded_result, simple_policy

TABLE_FAULTS: dict[str, tuple[FindingCode, ...]] = {
    "cards_differ": (codes.G001,),  # a second record of the game, a card changed
    "wallet_credit": (codes.W002,),  # the payout moved one unit too many
    "wallet_debit": (codes.W001,),  # a stake not debited
    "player_twice": (codes.G002,),  # a seat written twice
    "cancelled_paid": (codes.G003, codes.W003),  # a cancelled game paid (W002 too where a seat was credited)
    "swapped_games": (codes.S009,),  # two games written in each other's place: the late one is out of order
}
ANTES = (Decimal(1), Decimal(2), Decimal(5))
#: What ``check`` finds at a seat paid short by ``--pay-short`` (its record and wallet agreeing
#: with each other, not with the rules): its net, its main wager's result (the Call's, else the
#: Ante's) and its wallet's credit.
PAY_SHORT = (codes.P004, codes.W002)
PAY_SHORT_WAGER = {"call": codes.P002, "ante": codes.P001}
OWN_CARDS_MAX_SEATS = 22  # 52 cards: 5 board, 2 dealer, 2 a seat
CANCELLED_RATE = 0.01  # games cancelled (and refunded) correctly
SPLIT_RATE = 0.02  # games written as two records (an export per seat range), cards identical
#: A timed game (``--start``): it lasts 35 to 60 s (bets, the flop, the decisions, the turn,
#: the river, the payout), the next starts 5 to 20 s after it settled, and one game in
#: 60 is followed by a pause of 2 to 6 minutes (a dealer change, a shuffle of the shoe).
#: Why these: a live Casino Hold'em round is about a minute; a table deals 50 to 60 an hour.
GAME_SECONDS = (35, 60)
GAP_SECONDS = (5, 20)
PAUSE_EVERY = 60
PAUSE_SECONDS = (120, 360)
#: Between two sessions at one table (``--table`` with several sessions): a new shift.
SHIFT_BREAK = timedelta(minutes=15)


def parse_seats(text: str) -> tuple[int, int]:
    """``7`` or ``1-7``: the fewest and most seats taken at a game."""
    low, _, high = text.partition("-")
    try:
        a, b = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"{text!r}: expected a number of seats such as 7, or a range such as 1-7") from None
    if not 1 <= a <= b:
        raise ValueError(f"{text!r}: seats run from 1 up, the range low to high")
    return a, b


@dataclass(slots=True)
class TableFault:
    """One injected fault: where, its kind, the code the run's files give read together
    (``code``; None when only the file alone can show it) and, for a wallet log, the code
    the log read alone gives (``alone``; None when it is consistent money, wrong only
    against the games)."""

    session: str
    game: str
    player: str | None
    kind: str
    code: str | None
    alone: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"session": self.session, "game": self.game, "player": self.player, "kind": self.kind,
                "code": self.code, "alone": self.alone}


@dataclass(slots=True)
class TableSettings:
    profile: Profile
    seats: tuple[int, int] = (7, 7)
    sessions: int = 1
    games: int = 20
    seed: int = 0
    policy: str = "mix"
    bonus: Decimal = Decimal(0)
    faults: float = 0.0
    own_cards: bool = False
    manifest: list[TableFault] = field(default_factory=list)
    #: The sessions' ``profile`` field for a profile file: a path check resolves (as in simulate.Settings).
    profile_reference: str | None = None
    #: The fault kinds drawn, uniformly: a provider's export cannot carry every one
    #: (:mod:`referee.simulate_export` leaves ``swapped_games`` out).
    kinds: tuple[str, ...] = tuple(TABLE_FAULTS)
    #: A seamless-wallet export also carries the faults a log alone shows (simulate_log).
    log_faults: bool = True
    #: ``--start``: the first game's start (UTC); each game then carries ``started`` and
    #: ``settled`` (:data:`GAME_SECONDS`). None: games without times, as before.
    start: datetime | None = None
    #: ``--table``: every session at this table, one after the other (its shifts); None:
    #: session *n* at table ``Tn``, the tables side by side.
    table: str | None = None
    #: ``--pay-short TABLE=AMOUNT``: at these tables every winning seat is paid AMOUNT short,
    #: its record (net, the wager's result, the balances after it) and its wallet (the
    #: credit) telling one consistent story: what the monitor's paid basis is there to see.
    pay_short: dict[str, Decimal] = field(default_factory=dict)
    #: ``--rig-deal TABLE``: at these tables a dealer's hand that does not qualify is dealt
    #: again, once, after the players decided (the house's second chance): every record
    #: consistent, the deal not random (the monitor's rules basis and deal tests see it).
    rigged: frozenset[str] = frozenset()


@dataclass(slots=True)
class _Player:
    id: str
    ante: Decimal
    bonus: Decimal
    policy: Policy
    balance: Decimal


class _Table:
    """One session at one table: the players, the running balances, the transactions."""

    def __init__(self, s: TableSettings, rng: Random, index: int, start: datetime | None = None) -> None:
        self.s = s
        self.rng = rng
        self.index = index
        if s.table is None:
            self.id = f"sim-table-{s.profile.name}-{s.seed}-{index + 1}"
            self.table = f"T{index + 1}"
            regulars = f"p-{index + 1}"
        else:  # a named table: its name in every id, so that tables simulated apart never share one
            self.id = f"sim-{s.table}-{s.profile.name}-{s.seed}-{index + 1}"
            self.table = s.table
            regulars = f"p-{s.table}"
        pool = max(s.seats[1] + s.seats[1] // 2, 2)
        policies: tuple[Policy, ...] = ("always-call", "simple") if s.policy == "mix" else (s.policy,)  # type: ignore[assignment]
        opening = Decimal(1000)
        #: The clock of a timed table (``--start``), drawn from a generator of its own so that
        #: the cards dealt are the same with times and without.
        self.clock = start
        self.times = Random(f"times-{s.seed}-{index}")
        self.players = [
            _Player(f"{regulars}-{n + 1:03d}", ANTES[n % len(ANTES)],
                    s.bonus if s.profile.bonus is not None else Decimal(0), policies[n % len(policies)], opening)
            for n in range(pool)]
        self.transactions = 0
        #: The game just dealt is the late one of two swapped games (``swapped_games``).
        self.swapping = False
        #: ``--pay-short``: how short this table pays each winning seat (0: in full).
        self.short = s.pay_short.get(self.table, Decimal(0))
        self.shorted: list[tuple[str, FindingCode]] = []  # the game being dealt's seats paid short
        #: ``--rig-deal``: the second chances drawn from a generator of their own, so that the
        #: rest of the deal (every other card, who sits, how they play) is the fair table's.
        self.rig = Random(f"rig-{s.seed}-{index}") if self.table in s.rigged else None

    def header(self) -> TableLine:
        return {"id": self.id, "profile": self.s.profile_reference or self.s.profile.name, "table": self.table,
                "currency": "EUR", "opening_balances": {p.id: plain(p.balance) for p in self.players}}

    def games(self) -> list[GameLine]:
        out: list[GameLine] = []
        late: list[GameLine] | None = None  # game k of two swapped, written after game k+1
        for number in range(1, self.s.games + 1):
            records = self._game(number, clean=late is not None, may_swap=late is None and 1 < number < self.s.games)
            if late is not None:
                out.extend(records)
                out.extend(late)
                late = None
            elif self.swapping:
                self.swapping = False
                self._note(records[0]["game"], None, "swapped_games", codes.S009)
                late = records
            else:
                out.extend(records)
        return out

    def _tx(self) -> str:
        self.transactions += 1
        return f"{self.id}/tx-{self.transactions}"

    def _game(self, number: int, clean: bool = False, may_swap: bool = False) -> list[GameLine]:
        """Game ``number``'s records. ``clean``: no fault (the one written first of two
        swapped games); ``may_swap``: a drawn ``swapped_games`` makes this game the late
        one of two swapped (:attr:`swapping`: dealt without fault), else a game without
        fault. A game without fault may be written as two records, either of two swapped
        games too (the audit judges the early one's balances after every record of the
        late one)."""
        rng, s = self.rng, self.s
        low, high = s.seats
        count = rng.randint(low, high)
        seated = rng.sample(self.players, count)
        own = s.own_cards
        cards = [DECK[i] for i in rng.sample(range(52), 7 + 2 * (count if own else 1))]
        dealer, flop, turn, river = cards[0:2], cards[2:5], cards[5], cards[6]
        hands = [cards[7 + 2 * i: 9 + 2 * i] for i in range(count)] if own else [cards[7:9]] * count
        if self.rig is not None:
            dealer = self._rigged(dealer, [*flop, turn, river], cards)
        # the seed in the id: independent simulated logs (other seeds) never share a game id
        game_id = (f"{self.table}-{s.seed}-{number:06d}" if s.table is None
                   else f"{self.table}-{s.seed}-{self.index + 1}-{number:06d}")  # a table's shifts apart
        fault = None if clean else self._draw_fault()
        if fault == "swapped_games":
            fault, self.swapping = None, may_swap
            clean = True
        cancelled = fault == "cancelled_paid" or (fault is None and rng.random() < CANCELLED_RATE)
        game: GameLine = {"game": game_id, "round": number}
        if self.clock is not None:
            game["started"], game["settled"] = self._times(number)
        game.update({"status": "cancelled" if cancelled else "settled", "dealer_id": f"d-{1 + number % 3}"})
        if not own:
            game["player"] = [str(c) for c in hands[0]]
        game.update({"flop": [str(c) for c in flop], "turn": str(turn), "river": str(river),
                     "dealer": [str(c) for c in dealer]})
        seats = [self._seat(p, hand, flop, turn, river, dealer, own, cancelled and fault is None, not cancelled)
                 for p, hand in zip(seated, hands, strict=True)]
        game["seats"] = seats
        if self.rig is not None and dealer != cards[0:2]:
            self.s.manifest.append(TableFault(self.id, game_id, None, "rigged_deal", None, None))
        for player, wager in self.shorted:
            for code in (*PAY_SHORT, wager):
                self.s.manifest.append(TableFault(self.id, game_id, player, "pay_short", code, code))
        self.shorted.clear()
        records = [game]
        if fault is not None:
            records = self._inject(fault, game, seats)
        elif len(seats) > 1 and rng.random() < SPLIT_RATE:
            cut = rng.randint(1, len(seats) - 1)
            second = _later(game)
            second["seats"] = seats[cut:]
            game["seats"] = seats[:cut]
            records = [game, second]
        return records

    def _times(self, number: int) -> tuple[str, str]:
        """Game ``number``'s start and settlement (ISO 8601, UTC), the clock moved to the
        next game's start (:data:`GAME_SECONDS`)."""
        assert self.clock is not None
        t = self.times
        started = self.clock
        settled = started + timedelta(seconds=t.randint(*GAME_SECONDS))
        gap = t.randint(*GAP_SECONDS) + (t.randint(*PAUSE_SECONDS) if number % PAUSE_EVERY == 0 else 0)
        self.clock = settled + timedelta(seconds=gap)
        return iso(started), iso(settled)

    def _draw_fault(self) -> str | None:
        if not self.s.faults or self.rng.random() >= self.s.faults:
            return None
        kinds = self.s.kinds
        return kinds[self.rng.randrange(len(kinds))]

    def _seat(self, p: _Player, hand: list[Card], flop: list[Card], turn: Card, river: Card, dealer: list[Card],
              own: bool, refunded: bool, settled: bool = True) -> SeatLine:
        call = self._decide(p, hand, flop)
        decision: Literal["call", "fold"] = "call" if call else "fold"
        ruling = settle(self.s.profile, Deal(p.ante, hand, flop, decision, turn, river, dealer, p.bonus))
        seat: SeatLine = {"player_id": p.id, "ante": plain(p.ante)}
        if p.bonus:
            seat["bonus"] = plain(p.bonus)
        seat["decision"] = decision
        if own:
            seat["player"] = [str(c) for c in hand]
        wallet: list[WalletLine] = [{"id": self._tx(), "kind": "debit", "amount": plain(p.ante + p.bonus)}]
        if ruling.call_stake:
            wallet.append({"id": self._tx(), "kind": "debit", "amount": plain(ruling.call_stake)})
        if refunded:
            wallet.append({"id": self._tx(), "kind": "refund", "amount": plain(ruling.staked)})
            seat["recorded"] = {"outcome": "void", "net": 0, "balance": plain(p.balance)}
        else:
            # a game marked cancelled (a cancelled_paid fault) has no winner to pay short: its fault is its own
            short = min(self.short, ruling.returned) if settled and ruling.net > 0 else Decimal(0)
            p.balance += ruling.net - short
            if ruling.returned - short:
                wallet.append({"id": self._tx(), "kind": "credit", "amount": plain(ruling.returned - short)})
            seat["recorded"] = recorded_result(ruling, p.balance)
            if short:
                self._short(seat, short)
        seat["wallet"] = wallet
        seat["_returned"] = ruling.returned
        seat["_debits"] = [m["id"] for m in wallet if m["kind"] == "debit"]
        return seat

    def _rigged(self, dealer: list[Card], board: list[Card], dealt: list[Card]) -> list[Card]:
        """``--rig-deal``: the dealer's hand, dealt again once from the cards no one holds
        when it does not qualify with the board."""
        assert self.rig is not None
        if self.s.profile.dealer_qualifies(evaluate([*dealer, *board]).value):
            return dealer
        unseen = [c for c in DECK if c not in dealt]
        return self.rig.sample(unseen, 2)

    def _short(self, seat: SeatLine, short: Decimal) -> None:
        """``--pay-short``: a winning seat's record paid ``short`` less, as its wallet was
        (the net, and the main wager's result: the Call's when it called, else the Ante's),
        and said in the manifest with the findings ``check`` gives it."""
        recorded = seat["recorded"]
        recorded["net"] = plain(Decimal(str(recorded["net"])) - short)
        wager: Literal["call", "ante"] = "call" if Decimal(str(recorded.get("call", 0))) else "ante"
        recorded[wager] = plain(Decimal(str(recorded[wager])) - short)
        # said in the manifest once the game's id is known (_game)
        self.shorted.append((seat["player_id"], PAY_SHORT_WAGER[wager]))

    def _decide(self, p: _Player, hand: list[Card], flop: list[Card]) -> bool:
        if p.policy == "always-call":
            return True
        if p.policy == "optimal":
            return optimal_policy(self.s.profile, hand, flop, p.ante, p.bonus)
        return simple_policy(hand, flop)

    def _inject(self, kind: str, game: GameLine, seats: list[SeatLine]) -> list[GameLine]:
        rng, gid = self.rng, game["game"]
        note = self._note
        if kind == "cards_differ":
            dealt = {*game.get("player", []), *game["flop"], game["turn"], game["river"], *game["dealer"]}
            dealt |= {c for seat in seats for c in seat.get("player", [])}
            unseen = [str(c) for c in DECK if str(c) not in dealt]
            second = _later(game)
            second["river"] = unseen[rng.randrange(len(unseen))]
            second["seats"] = []
            note(gid, None, kind, codes.G001)
            return [game, second]
        if kind == "player_twice":
            seat = seats[rng.randrange(len(seats))]
            seats.append(copy.deepcopy(seat))
            note(gid, seat["player_id"], kind, codes.G002)
        elif kind == "wallet_credit":
            seat = seats[rng.randrange(len(seats))]
            credits = [m for m in seat["wallet"] if m["kind"] == "credit"]
            if credits:
                credits[0]["amount"] = plain(Decimal(str(credits[0]["amount"])) + 1)
            else:
                seat["wallet"].append({"id": self._tx(), "kind": "credit", "amount": 1})
            note(gid, seat["player_id"], kind, codes.W002)
        elif kind == "wallet_debit":
            seat = seats[rng.randrange(len(seats))]
            seat["wallet"].pop(0)
            note(gid, seat["player_id"], kind, codes.W001)
        elif kind == "cancelled_paid":
            for seat in seats:
                note(gid, seat["player_id"], kind, codes.G003)
                note(gid, seat["player_id"], kind, codes.W003)
                if seat["_returned"]:
                    note(gid, seat["player_id"], kind, codes.W002)
        return [game]

    def _note(self, game: str, player: str | None, kind: str, code: str) -> None:
        self.s.manifest.append(TableFault(self.id, game, player, kind, code, code))


def simulate_tables(settings: TableSettings) -> list[tuple[TableLine, list[GameLine]]]:
    """Each session's header and its game records, in order. Timed (``start``): tables
    side by side each start then; one named table's sessions follow each other, a
    :data:`SHIFT_BREAK` apart."""
    rng = Random(settings.seed)
    out = []
    start = settings.start
    for index in range(settings.sessions):
        table = _Table(settings, rng, index, start)
        out.append((table.header(), table.games()))
        if settings.table is not None and table.clock is not None:
            start = table.clock + SHIFT_BREAK
    return out


def iso(when: datetime) -> str:
    """A time as format 2 writes it: ISO 8601 in UTC, to the second (``2026-12-01T18:00:00Z``)."""
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_start(text: str) -> datetime:
    """``--start``: an ISO 8601 time; one without a zone is UTC (said in the docs)."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text[:40]!r}: expected an ISO 8601 time such as 2026-12-01T18:00:00Z") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _later(game: GameLine) -> GameLine:
    """A later record of ``game``: its fields but the round number, in their order; the
    caller gives it its seats (last, as in every record)."""
    second = game.copy()
    second.pop("round", None)
    second.pop("seats", None)
    return second


def _clean(game: GameLine) -> GameLine:
    """``game`` as written: without the simulator's notes on its seats."""
    if "seats" in game:
        game = game.copy()
        game["seats"] = [_unnoted(s) for s in game["seats"]]
    return game


def _unnoted(seat: SeatLine) -> SeatLine:
    seat = seat.copy()
    seat.pop("_returned", None)
    seat.pop("_debits", None)
    return seat


def write_tables(settings: TableSettings, fmt: str, out: TextIO, seat_lines: bool = False) -> None:
    """Write format 2: ``yaml`` (one document a session), ``json`` (one session) or
    ``jsonl`` (seats inline, or with ``seat_lines`` one line a seat after its game)."""
    if settings.own_cards and settings.seats[1] > OWN_CARDS_MAX_SEATS:
        raise ValueError(f"with a hand per seat a deck deals at most {OWN_CARDS_MAX_SEATS} seats")
    if fmt == "json" and settings.sessions != 1:
        raise ValueError("a format-2 JSON document holds one session: use yaml or jsonl for several")
    for index, (header, games) in enumerate(simulate_tables(settings)):
        games = [_clean(g) for g in games]
        if fmt == "jsonl":
            out.write(dumps({"session": header, "format": 2}, ensure_ascii=False, separators=(",", ":")) + "\n")
            for game in games:
                head = {k: v for k, v in game.items() if k != "seats"} if seat_lines else game
                out.write(dumps(head, ensure_ascii=False, separators=(",", ":")) + "\n")
                if seat_lines:
                    for seat in game["seats"]:
                        out.write(dumps({"game": game["game"], "seat": seat}, ensure_ascii=False,
                                        separators=(",", ":")) + "\n")
        elif fmt == "json":
            out.write(dumps({"format": 2, "session": header, "games": games}, ensure_ascii=False, indent=1) + "\n")
        else:
            out.write(("---\n" if index else "") + _yaml(header, games))


def _yaml(header: TableLine, games: list[GameLine]) -> str:
    """Block YAML whose values are JSON flow scalars and lists (YAML reads them alike)."""
    from .simulate import _flow

    lines = ["format: 2", "session:"]
    for key, value in header.items():
        lines.append(f"  {key}: {_flow(value)}")
    lines.append("games:")
    for game in games:
        first = True
        for key, value in game.items():
            prefix = "  - " if first else "    "
            first = False
            if key != "seats" or not isinstance(value, list):
                lines.append(f"{prefix}{key}: {_flow(value)}")
                continue
            lines.append(f"{prefix}seats:" if value else f"{prefix}seats: []")
            for seat in value:
                inner = True
                for k, v in seat.items():
                    lead = "      - " if inner else "        "
                    inner = False
                    lines.append(f"{lead}{k}: {_flow(v)}")
    return "\n".join(lines) + "\n"


__all__ = ["POLICIES", "TABLE_FAULTS", "TableSettings", "parse_seats", "parse_start", "write_tables"]
