"""A seat of a game built in one pass when everything about it was read before: the
mapping's seat compiled once into a plan (issue 45's speed).

Why: a table writes the same few bet codes, decisions and amounts on every seat. The
exact builder (:meth:`.games.GameBuilder._seat`) reads each field through its getter,
its normalizer and a record of where it came from, in a method a field; for a seat
whose every word and amount is one the file already read (the normalizers' memos), this
plan makes the very same format-2 seat (same keys, in the same order, same values, same
``where`` of each field) in one function, with the getters, memos and keys held as
locals. Anything else (a word or an amount met the first time, a value of another
type, a cancelled game, a key this plan does not take) is ``None``: the exact builder
then reads the seat, and says what does not fit exactly as it always has. Nothing is
changed before the plan knows it succeeds (the keys found, the wallet's join), so a seat
handed to the exact builder is read from scratch.

A seat whose amounts are all whole is first read plain (:meth:`SeatPlan.plain`): the
values msgspec proves, without where each came from; its record is made by
:meth:`SeatPlan.seat` only when something asks for it (``exported.lazy_game_record``).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..records import ExportDict, LineDict
from .normalize import CardReader, MoneyReader, TimeReader, WordReader
from .search import Getter, KeyPath, TwoKeysPath
from .wallet import WalletJoin

ZERO = Decimal(0)
#: The types of what an amount is written as that the money reader keeps what it read of.
HASHED = frozenset((str, int, Decimal))
#: An amount the file has not read before (or not one the money reader keeps): the exact builder's.
UNREAD = object()


#: A seat's bets the plan takes: more is the exact builder's.
_INDEXES = 16
#: The mapping keys the plan reads.
_READ = ("seat.player_id", "seat.decision", "seat.player", "seat.bets", "seat.returned", "seat.balance", "bet.code",
         "bet.stake", "bet.payout")


class BetField:
    """Where a field of a seat's ``index``-th bet is, below the seat: a getter for a
    ``where`` (its path and line said only when a finding asks), made once an index, not
    a path a bet."""

    __slots__ = ("bets", "field", "index")

    def __init__(self, field: Getter, bets: Getter, index: int) -> None:
        self.field, self.bets, self.index = field, bets, index

    def path(self, seat: str) -> str:
        """The export's path of the field (``data[0].games[3].participants[1].bets[0].stake``)."""
        return str(self.field.path(f"{self.bets.path(seat)}[{self.index}]"))

    def line_in(self, bet: Any, line: int) -> int:
        """The field's line in the bet (``bet``: the bet, ``line``: the bet's own)."""
        return int(self.field.line_in(bet, line))


class SeatPlan:
    """The seat keys of one mapping, compiled once (see the module's docstring)."""

    def __init__(self, getters: dict[str, Getter], cards: CardReader, money: MoneyReader, decision: WordReader,
                 kinds: dict[str, Any], found: set[str]) -> None:
        self.player, self.decision = getters["seat.player_id"], getters["seat.decision"]
        self.own, self.bets = getters.get("seat.player"), getters["seat.bets"]
        self.returned, self.balance = getters.get("seat.returned"), getters.get("seat.balance")
        code, stake, self.payout = getters["bet.code"], getters["bet.stake"], getters.get("bet.payout")
        self.code, self.stake = code, stake
        #: A bet's code and stake by one key (the built-in mappings'): read with ``dict.get``.
        self.code_key, self.stake_key, self.paid_key = _key(code), _key(stake), _key(self.payout)
        self.player_key, self.bets_key = _key(self.player), _key(self.bets)
        self.returned_key = _key(self.returned)
        #: Where a bet's stake and payout are, by the bet's index (the first few, made once).
        self.stake_at = [BetField(stake, self.bets, i) for i in range(_INDEXES)]
        payout = self.payout
        self.paid_at = [BetField(payout, self.bets, i) for i in range(_INDEXES)] if payout is not None else []
        self.cards_of = cards.cards_of
        self.amounts = money.memo
        self.decisions = decision.memo
        self.kinds = kinds
        self.found = found
        #: The paths :meth:`plain` reads with ``dict.get``: one key or two, else None (the getter's).
        self.decision_keys, self.own_keys = _keys(self.decision), _keys(self.own)
        self.tokens = cards.tokens
        #: The money reader's amounts written as text, by their text (:func:`_memo`).
        self.known: dict[str, Any] = {}
        #: Whether "seat" and "bet" are yet to be counted as found.
        self.unseen = True

    @staticmethod
    def fits(getters: dict[str, Getter]) -> bool:
        """Whether this plan takes the mapping's seats: bets by code, every key it reads a
        plain path (never an expression, whose budget is the exact builder's to spend,
        once), and none of the keys only the exact builder reads (a seat's net, void
        flag or inline wallet)."""
        if not all(key in getters for key in ("seat.bets", "bet.code", "bet.stake")) or \
                any(key in getters for key in ("seat.net", "seat.void", "seat.wallet")):
            return False
        return all(getters[key].plain for key in _READ if key in getters)

    def _who(self, data: Any) -> tuple[str, str] | None:
        """The seat's player and its decision in the profile's words, read as :meth:`seat` and
        :meth:`plain` both read them; None when either is missing or not one the file read
        before (the exact builder's then, which says why)."""
        if type(data) is not dict and not isinstance(data, dict):
            return None
        player_key = self.player_key
        player = data.get(player_key) if player_key is not None else self.player(data)
        if type(player) is not str:
            return None
        said = self.decision(data)
        decision = self.decisions.get(said) if type(said) is str else None
        return None if decision is None else (player, decision)

    def seat(self, data: Any, line: int, pointer: str, lines: Any, qualified: Any, join: WalletJoin | None,
             game: str) -> ExportDict | None:
        """The seat of game ``game``, or None for the exact builder. ``qualified``: the
        game's dealer qualification (None: not said); ``join``: a ``--wallet`` log's
        moves by game and player, when given. A cancelled game's seat is the exact
        builder's (what it recorded depends on what it paid)."""
        who = self._who(data)
        if who is None:
            return None
        player, decision = who
        cards: Any = None
        own = self.own
        if own is not None:
            cards = own(data)
            if cards is not None:
                cards = self.cards_of(cards)
        bets_key = self.bets_key
        bets = data.get(bets_key) if bets_key is not None else self.bets(data)
        if type(bets) is not list:
            return None
        kinds, amounts, code_key, stake_key, paid_key = (self.kinds, self.amounts, self.code_key, self.stake_key,
                                                         self.paid_key)
        code_of, stake_of, payout_of = self.code, self.stake, self.payout
        #: By kind, in the order the bets first say it: [stake, where, paid, where].
        by_kind: dict[str, list[Any]] = {}
        paid_found = False
        i = -1
        for bet in bets:
            i += 1
            is_dict = type(bet) is dict or isinstance(bet, dict)
            said = (bet.get(code_key) if is_dict else None) if code_key is not None else code_of(bet)
            kind = kinds.get(said) if type(said) is str else None
            if kind is None:
                return None
            if kind == "ignore":
                continue
            value = (bet.get(stake_key) if is_dict else None) if stake_key is not None else stake_of(bet)
            amount = amounts.get((type(value), value)) if type(value) in HASHED else None
            if amount is None:
                return None
            paid: Any = None
            if payout_of is not None:
                value = (bet.get(paid_key) if is_dict else None) if paid_key is not None else payout_of(bet)
                if value is None:
                    paid = ZERO
                else:
                    paid_found = True
                    paid = amounts.get((type(value), value)) if type(value) in HASHED else None
                    if paid is None:
                        return None
            entry = by_kind.get(kind)
            if entry is None:
                if i >= _INDEXES:
                    return None
                bet_line = line if type(bet) is dict else bet.line if isinstance(bet, LineDict) else line
                by_kind[kind] = [amount, (self.stake_at[i], pointer, bet, bet_line, lines), paid,
                                 (self.paid_at[i] if paid is not None else None, pointer, bet, bet_line, lines)]
            else:
                entry[0] += amount
                if paid is not None:
                    entry[2] = paid + entry[2]
        if "ante" not in by_kind:
            return None
        returned = _optional_amount(self.returned, data, amounts)
        balance = _optional_amount(self.balance, data, amounts)
        if returned is UNREAD or balance is UNREAD:
            return None
        # every field read: the seat, its keys in the exact builder's order
        found = self.found
        seat = ExportDict()
        seat.line = line
        where = seat.where
        seat["player_id"] = player
        where["player_id"] = (self.player, pointer, data, line, lines)
        seat["decision"] = decision
        where["decision"] = (self.decision, pointer, data, line, lines)
        found.add("seat")
        if cards is not None:
            found.add("seat.player")
            seat["player"] = cards
            where["player"] = (own, pointer, data, line, lines)
        if bets:
            found.add("bet")
        for kind, entry in by_kind.items():
            seat[kind] = entry[0]
            where[kind] = entry[1]
        if paid_found:
            found.add("bet.payout")
        recorded = ExportDict()
        recorded.line = line
        placed = recorded.where
        if returned is not None:
            found.add("seat.returned")
            recorded["returned"] = returned
            placed["returned"] = (self.returned, pointer, data, line, lines)
        if payout_of is not None:
            for kind, entry in by_kind.items():
                recorded[kind] = entry[2] - entry[0]
                placed[kind] = entry[3]
        if qualified is not None:
            recorded["dealer_qualified"] = qualified
        if balance is not None:
            found.add("seat.balance")
            recorded["balance"] = balance
            placed["balance"] = (self.balance, pointer, data, line, lines)
        seat["recorded"] = recorded
        if join is not None:
            seat["wallet"] = join.take(game, player)
        return seat

    def plain(self, data: Any) -> dict[str, Any] | None:
        """The seat as plain format 2 (a dict msgspec proves on the game's struct: no
        ``where``, no dealer qualification, which is the game's), when every word and
        amount of it is one the file read before, each whole; else None, and nothing is
        counted as found. What :meth:`seat` makes of the same seat is its record, made
        when asked (``exported.lazy_game_record``): the very same keys and values, with
        where each came from.

        Written out in one function (each path of one or two keys read by ``dict.get``
        here, the memos held as locals): it is the mapped audit's hottest loop, a call a
        seat, and each getter, normalizer and helper called from it cost as much again
        as the reading itself (issue 45's speed)."""
        if not isinstance(data, dict):
            return None
        key = self.player_key
        player = data.get(key) if key is not None else self.player(data)
        if type(player) is not str:
            return None
        keys = self.decision_keys
        if keys is None:
            said: Any = self.decision(data)
        else:
            said = data.get(keys[0])
            if len(keys) == 2:
                said = said.get(keys[1]) if isinstance(said, dict) else None
        decision = self.decisions.get(said) if type(said) is str else None
        if decision is None:
            return None
        key = self.bets_key
        bets = data.get(key) if key is not None else self.bets(data)
        if type(bets) is not list or len(bets) > _INDEXES:
            return None
        kinds, memo, known = self.kinds, self.amounts, self.known
        code_key, stake_key, paid_key = self.code_key, self.stake_key, self.paid_key
        payout_of = self.payout
        seat: dict[str, Any] = {"player_id": player, "decision": decision}
        recorded: dict[str, Any] = {}
        for bet in bets:
            is_dict = isinstance(bet, dict)
            said = (bet.get(code_key) if is_dict else None) if code_key is not None else self.code(bet)
            kind = kinds.get(said) if type(said) is str else None
            if kind is None:
                return None
            if kind == "ignore":
                continue
            value = (bet.get(stake_key) if is_dict else None) if stake_key is not None else self.stake(bet)
            amount = known.get(value) if type(value) is str else None
            if amount is None:
                amount = _memo(memo, known, value)
            if type(amount) is not int:  # a fraction is the exact record's (the Decimal struct)
                return None
            had = seat.get(kind)
            seat[kind] = amount if had is None else had + amount
            if payout_of is not None:
                value = (bet.get(paid_key) if is_dict else None) if paid_key is not None else payout_of(bet)
                if value is None:
                    return None  # its payout read as Decimal 0: the exact record's
                paid = known.get(value) if type(value) is str else None
                if paid is None:
                    paid = _memo(memo, known, value)
                if type(paid) is not int:
                    return None
                had = recorded.get(kind)
                recorded[kind] = paid - amount if had is None else had + paid - amount
        if "ante" not in seat:
            return None
        cards: Any = None
        own = self.own
        if own is not None:
            keys = self.own_keys
            if keys is None:
                cards = own(data)
            else:
                cards = data.get(keys[0])
                if len(keys) == 2:
                    cards = cards.get(keys[1]) if isinstance(cards, dict) else None
            if cards is not None:
                tokens = self.tokens
                read = [tokens.get(item) if type(item) is str else None for item in cards] \
                    if type(cards) is list else None
                seat["player"] = cards = read if read is not None and None not in read else self.cards_of(cards)
        returned = balance = None
        getter = self.returned
        if getter is not None:
            key = self.returned_key
            value = data.get(key) if key is not None else getter(data)
            if value is not None:
                returned = known.get(value) if type(value) is str else None
                if returned is None:
                    returned = _memo(memo, known, value)
                if returned is None:
                    return None
        getter = self.balance
        if getter is not None:
            value = getter(data)
            if value is not None:
                balance = known.get(value) if type(value) is str else None
                if balance is None:
                    balance = _memo(memo, known, value)
                if balance is None:
                    return None
        found = self.found
        if cards is not None:
            found.add("seat.player")
        if payout_of is not None:  # the Ante's payout was read
            found.add("bet.payout")
        if returned is not None:
            found.add("seat.returned")
            recorded["returned"] = returned
        if balance is not None:
            found.add("seat.balance")
            recorded["balance"] = balance
        if self.unseen:  # "seat" and "bet" (a seat here has its Ante bet) found once for all
            found.add("seat")
            found.add("bet")
            self.unseen = False
        seat["recorded"] = recorded
        return seat


def _memo(memo: dict[Any, Any], known: dict[str, Any], value: Any) -> Any:
    """What the money reader read ``value`` as before (None: not read, or not an amount
    it keeps); an amount written as text is then kept in ``known``, looked up by its
    text alone at the next seat (no key of its type made for each amount)."""
    if type(value) not in HASHED:
        return None
    amount = memo.get((type(value), value))
    if amount is not None and type(value) is str and len(known) < 100_000:
        known[value] = amount
    return amount


def _optional_amount(getter: Getter | None, data: Any, amounts: dict[Any, Any]) -> Any:
    """A seat's optional amount (its return, its balance) as the file read it before: None
    when the mapping has no such key or the seat leaves it out, :data:`UNREAD` when it says
    an amount the plan cannot take."""
    if getter is None:
        return None
    value = getter(data)
    if value is None:
        return None
    amount = amounts.get((type(value), value)) if type(value) in HASHED else None
    return UNREAD if amount is None else amount


def _keys(getter: Getter | None) -> tuple[str] | tuple[str, str] | None:
    """The key, or the two keys, ``getter`` reads (``dict.get`` then reads them), or None."""
    if isinstance(getter, KeyPath):
        return (getter.key,)
    if isinstance(getter, TwoKeysPath):
        return (str(getter.first), str(getter.second))
    return None


def _key(getter: Getter | None) -> str | None:
    """The one key ``getter`` reads (``dict.get`` then reads it), or None."""
    return getter.key if isinstance(getter, KeyPath) else None


#: A game key's normalizer: the value as read (a Misfit when it cannot be), or None to keep it as found.
Read = Callable[[Any], Any] | None


def game_readers(getters: list[tuple[str, Getter]], cards: CardReader, times: TimeReader,
                 status: WordReader) -> list[tuple[str, Getter, str, Read]]:
    """Each game key of the mapping (``game.started``...) with its getter, its full key
    and its normalizer, chosen once for the file rather than by name for each record."""
    by_name: dict[str, Read] = {"started": times.reader(), "settled": times.reader(), "status": status.word,
                                "player": cards.cards_of, "flop": cards.cards_of, "dealer": cards.cards_of,
                                "board": cards.cards_of, "turn": cards.card, "river": cards.card,
                                "dealer_id": str, "round": _round}
    return [(name, getter, f"game.{name}", by_name.get(name)) for name, getter in getters]


def _round(value: Any) -> Any:
    """A round number written as text (``"12"``) is that number; anything else as found."""
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value
