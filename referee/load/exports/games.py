"""Export records into format-2 records: a session per table, its games, their seats.

Why records and not models: an imported game goes into the same audit as a format-2
log (``referee.audit.intake_table``), which validates, rules and reports it; the
importer only fills format 2's fields from the mapping's expressions, read through its
normalizers. Each field keeps the line it came from and the export's own path
(:class:`~referee.load.records.ExportDict`), so a finding names both.

One finding per root cause: a game whose own fields do not fit the mapping is one
``H008`` at its record and is not audited; a seat that does not fit is one ``H008`` at
the seat, and the rest of its game is audited. A mapping that fits nothing, already
at the first record, is one error for the file (exit 2), not a finding per record.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...models import codes
from ...models.transaction import SeatMove
from ..reading import Reading
from ..records import ExportDict, LineDict, LoadProblem, Record
from .exported import Place, imported_record, pointer_of
from .fields import field_misfit, misfit_problem, missing, required, text_id
from .files import ExportRecord
from .mappings import LoadedMapping
from .normalize import Amount, CardReader, Misfit, MoneyReader, TimeReader, WordReader
from .parts import BetAt, board, grouped, line_of
from .plan import HASHED, ZERO, SeatPlan, game_readers
from .search import Getter, KeyPath
from .sessions import SessionMaker
from .wallet import TransactionReader, WalletJoin

GAME_CARDS = ("player", "flop", "dealer")
#: The player hand, shared by the game's seats or each seat's own: one mapping may name
#: both (a provider writing a shared hand at some tables and own cards at others); only a
#: file where neither finds anything is told so (H009).
HAND_KEYS = ("game.player", "seat.player")
BET_KINDS = ("ante", "call", "bonus", "ignore")


@dataclass(slots=True)
class _Readers:
    cards: CardReader
    money: MoneyReader
    times: TimeReader
    bet: WordReader
    status: WordReader
    decision: WordReader


#: The game fields read from a game record, and how each value is read.
GAME_KEYS = ("round", "started", "settled", "status", "dealer_id", "player", "flop", "turn", "river", "dealer",
             "board", "dealer_qualified")


@dataclass
class GameBuilder:
    """Builds one export file's format-2 records (``build``), with the wallet moves of
    ``wallet`` (joined by game and player), when a wallet log is given."""

    loaded: LoadedMapping
    reading: Reading
    wallet: WalletJoin | None = None
    #: A game (a seat) of this file fitted the mapping: a field missing from a later one
    #: is a finding about that record, not a mapping that is not the file's.
    _fits: bool = False
    _seat_fits: bool = False
    #: The optional keys whose expression found a value in some record (H009 for the rest).
    _found: set[str] = field(default_factory=set)
    readers: _Readers = field(init=False)
    _game_getters: list[tuple[str, Getter]] = field(init=False)
    _stake_getters: list[tuple[str, Getter]] = field(init=False)

    def __post_init__(self) -> None:
        m, getters = self.loaded.mapping, self.loaded.getters
        self.readers = _Readers(
            CardReader(m.cards), MoneyReader(m.money, whole=True), TimeReader(m.times),
            WordReader(m.words.bet, BET_KINDS[:3], "bet code", strict=True),
            WordReader(m.words.status, ("settled", "cancelled"), "status", strict=True),
            WordReader(m.words.decision, ("call", "fold"), "decision"))
        self._game_getters = [(name, getters[f"game.{name}"]) for name in GAME_KEYS if f"game.{name}" in getters]
        #: Each game key's getter, its key and its normalizer, chosen once (:func:`.plan.game_readers`).
        self._game_plan = game_readers(self._game_getters, self.readers.cards, self.readers.times,
                                       self.readers.status)
        self._stake_getters = [(kind, getters[f"seat.{kind}"]) for kind in ("ante", "call", "bonus")
                               if f"seat.{kind}" in getters]
        self._id = getters["game.id"]
        self._player, self._decision = getters["seat.player_id"], getters["seat.decision"]
        self._own, self._bets = getters.get("seat.player"), getters.get("seat.bets")
        self._returned, self._balance = getters.get("seat.returned"), getters.get("seat.balance")
        self._net, self._void = getters.get("seat.net"), getters.get("seat.void")
        self._moves = getters.get("seat.wallet")
        self._mover = TransactionReader(self.loaded, self.reading.name) if self._moves is not None else None
        self._code, self._stake = getters.get("bet.code"), getters.get("bet.stake")
        self._payout, self._seats = getters.get("bet.payout"), getters.get("seats")
        #: The key a record's seats are read by, when one key (a page then reads its
        #: records with plain dicts, lines when asked: ``load/jsonio.scan_record``).
        self.seats_key = self._seats.key if isinstance(self._seats, KeyPath) else None
        self._qualified: Any = None
        #: Bet codes read before, by what the export writes (words.bet's answer).
        self._kinds: dict[str, Any] = {}
        #: Amounts read before, by (type, value): the money reader's own memo.
        self._amounts = self.readers.money.memo
        #: The seats compiled once, when the mapping's seat keys are the plan's (:mod:`.plan`).
        self._plan = SeatPlan(getters, self.readers.cards, self.readers.money, self.readers.decision, self._kinds,
                              self._found) if SeatPlan.fits(getters) else None
        self.sessions = SessionMaker(self.loaded, self.reading.name, MoneyReader(m.money), self._found)
        self.document_complete = self.sessions.document_complete

    def build(self, records: Iterator[ExportRecord | LoadProblem]) -> Iterator[Record]:
        """The session and game records of one export file, in its order."""
        mapping = self.loaded.mapping
        if mapping.group is not None:
            records_in = grouped(records, self.loaded.getters["group"], self.reading.name)
        else:
            records_in = ((r, None) for r in records)
        games = 0
        for record, seats in records_in:
            if isinstance(record, LoadProblem):
                yield record
                if record.fatal:
                    return
                continue
            try:
                built = yield from self._game(record, seats)
            except Misfit as misfit:  # a session key or the profile, read outside a field's own try
                yield misfit_problem(self.reading.name, misfit, record.line)
                continue
            except _Unfit as unfit:
                yield self.reading.fail(record.line, f"the mapping {self.loaded.name} does not fit this file: "
                                                     f"{unfit}")
                return
            games += built  # a record that could not be read (H008) says nothing of what the mapping finds
        yield from self._never_found(games)

    def _never_found(self, games: int) -> Iterator[LoadProblem]:
        """H009: an optional expression of the mapping that found nothing in any record of
        the file: the field was read as absent everywhere (a status never cancelled, a
        qualification never audited), which a slip in the expression looks exactly like."""
        if not games:
            return
        getters, found = self.loaded.getters, self._found
        keys = [f"game.{name}" for name, _ in self._game_getters] + ["game.profile"]
        if "seat" in found:  # a file whose games have no seats says nothing of the seats' keys
            keys += [f"seat.{name}" for name in ("player", "returned", "net", "void", "balance", "call", "bonus",
                                                 "wallet")]
        if "bet" in found:
            keys.append("bet.payout")
        hands = [key for key in HAND_KEYS if key in getters]
        if len(hands) == len(HAND_KEYS):  # a shared hand at some tables, own cards at others: alternatives
            keys = [key for key in keys if key not in HAND_KEYS]
            if not any(key in found for key in HAND_KEYS):
                yield LoadProblem(self.reading.name, 1, f"game.player and seat.player ({getters['game.player'].text!r}"
                                  f", {getters['seat.player'].text!r}) found nothing in any of the {games:,} game "
                                  "record(s) of this file: no game has a player hand (a slip in the expressions?)",
                                  code=codes.H009)
        for key in keys:
            if key in getters and key not in found:
                yield LoadProblem(self.reading.name, 1, f"{key}: {getters[key].text!r} found nothing in any of the "
                                  f"{games:,} game record(s) of this file: the field is read as absent in every game "
                                  "(a slip in the expression?)", code=codes.H009)

    # ------------------------------------------------------------------ games
    def _game(self, record: ExportRecord, grouped: list[ExportRecord] | None) -> Generator[Record, None, bool]:
        """The game's records; whether a game record was built (its fields could be read)."""
        try:
            game = self._game_fields(record)
        except Misfit as misfit:
            if not self._fits and missing(misfit):
                raise _Unfit(str(misfit)) from None
            yield misfit_problem(self.reading.name, misfit, record.line)
            return False
        self._fits = True
        seats: list[Any] = []
        places: list[Place | None] = []  # a seat the plan read plain: where it is
        problems: list[LoadProblem] = []
        absent: list[Misfit] = []
        plan = self._plan if game.get("status") != "cancelled" else None
        game_id, wallet, qualified = str(game["game"]), self.wallet, self._qualified
        for line, base, index, data, lines, seat_record in self._seat_records(record, grouped):
            if plan is not None:
                plain = plan.plain(data) if wallet is None else None  # its record made when asked
                if plain is not None:
                    seats.append(plain)
                    places.append((data, line, base, index, lines))
                    continue
                seat = plan.seat(data, line, pointer_of(base, index), lines, qualified, wallet, game_id)
                if seat is not None:
                    seats.append(seat)
                    places.append(None)
                    continue
            if seat_record is None:
                seat_record = ExportRecord(line, pointer_of(base, index), data, lines=lines)
            try:
                seats.append(self._seat(seat_record, game))
                places.append(None)
            except Misfit as misfit:
                if missing(misfit):
                    absent.append(misfit)
                problems.append(misfit_problem(self.reading.name, misfit, seat_record.line))
        if not self._seat_fits:
            if absent and not seats:  # not one seat of the file's first game fits: the mapping is not its
                raise _Unfit(str(absent[0]))
            self._seat_fits = bool(seats)
        opened = self.sessions.opened(record)
        if opened is not None:
            yield opened
        yield imported_record(self.reading.name, record.line, record.pointer, game, seats, places, self._plan,
                              qualified)
        yield from problems
        return True

    def _game_fields(self, record: ExportRecord) -> ExportDict:
        r = self.readers
        data, pointer, line = record.data, record.pointer, record.line
        game = ExportDict()
        game.line = line
        game.notation = r.cards
        self._qualified = None
        value = self._id(data)
        game["game"] = value if type(value) is str else text_id(required(self._id, "game.id", record), self._id,
                                                                "game.id", record)
        game.where["game"] = (self._id, pointer, data, line, record.lines)
        found, lines = self._found, record.lines
        for name, getter, key, read in self._game_plan:
            value = getter(data)
            if value is None:
                continue
            found.add(key)
            if read is not None:
                try:
                    value = read(value)
                except Misfit as misfit:
                    raise field_misfit(getter, key, record, value, str(misfit)) from None
            if name == "board":
                board(game, value, (getter, pointer, data, line, lines))
            elif name == "dealer_qualified":
                self._qualified = value
            else:
                game[name] = value
                game.where[name] = (getter, pointer, data, line, lines)
        return game

    # ------------------------------------------------------------------ seats
    def _seat_records(self, record: ExportRecord,
                      grouped: list[ExportRecord] | None) -> list[tuple[int, str, int, Any, Any, ExportRecord | None]]:
        """Each seat's line, where it is (a base and its index there: :func:`.exported.pointer_of`,
        its pointer made only when something names it), data and lines (and its record
        when it has one: a feed's row); a seat's record is made only when the exact
        builder reads it."""
        if grouped is not None:
            return [(row.line, row.pointer, -1, row.data, row.lines, row) for row in grouped]
        getter = self._seats
        assert getter is not None, "a games mapping without group has seats"
        seats = getter(record.data)
        if seats is None:
            return []
        if not isinstance(seats, list):
            raise field_misfit(getter, "seats", record, seats, "expected the list of the game's seats")
        base, lines = getter.path(record.pointer), record.lines
        if lines is None:  # a record on one line (JSON Lines), or of LineDicts (each knows its line)
            return [(seat.line if isinstance(seat, LineDict) else record.line, base, i, seat, None, None)
                    for i, seat in enumerate(seats)]
        known = lines.known  # the seats' lines, found as the record was read
        return [(known.get(id(seat)) or line_of(seat, record), base, i, seat, lines, None)
                for i, seat in enumerate(seats)]

    def _seat(self, record: ExportRecord, game: ExportDict) -> ExportDict:
        r = self.readers
        data, pointer, line = record.data, record.pointer, record.line
        seat = ExportDict()
        seat.line = line
        where = seat.where
        self._found.add("seat")
        player = self._player(data)
        if type(player) is not str:  # an int is said as text; anything else is not an id
            player = text_id(required(self._player, "seat.player_id", record), self._player, "seat.player_id", record)
        seat["player_id"] = player
        where["player_id"] = (self._player, pointer, data, line, record.lines)
        decision = self._decision(data)
        seat["decision"] = r.decision.word(decision if decision is not None else
                                           required(self._decision, "seat.decision", record))
        where["decision"] = (self._decision, pointer, data, line, record.lines)
        if self._own is not None:
            cards = self._own(data)
            if cards is not None:
                self._found.add("seat.player")
                seat["player"] = r.cards.cards_of(cards)
                where["player"] = (self._own, pointer, data, line, record.lines)
        if self._bets is not None:
            stakes, payouts = self._bet_stakes(record, seat)
        else:
            stakes, payouts = self._plain_stakes(record, seat), None
        recorded = self._recorded(record, game, stakes, payouts)
        if recorded is not None:
            seat["recorded"] = recorded
        if self._moves is not None:
            seat["wallet"] = self._inline_wallet(record)
            where["wallet"] = (self._moves, pointer, data, line, record.lines)
        elif self.wallet is not None:
            seat["wallet"] = self.wallet.take(str(game["game"]), player)
        return seat

    def _inline_wallet(self, record: ExportRecord) -> list[SeatMove]:
        """``seat.wallet``: the seat's moves written inside it (``moves: [{id, type,
        value}]``), each read by the mapping's ``transaction`` keys. No list: no move (the
        stakes were never debited, W001)."""
        getter = self._moves
        assert getter is not None
        moves = getter(record.data)
        if moves is None:
            return []
        self._found.add("seat.wallet")
        if not isinstance(moves, list):
            raise field_misfit(getter, "seat.wallet", record, moves, "expected the list of the seat's wallet moves")
        base = getter.path(record.pointer)
        reader = self._mover
        assert reader is not None
        return [reader.move(ExportRecord(move.line if isinstance(move, LineDict) else record.line, f"{base}[{i}]",
                                         move, lines=record.lines))
                for i, move in enumerate(moves)]

    def _plain_stakes(self, record: ExportRecord, seat: ExportDict) -> dict[str, Amount]:
        """Stakes read one expression a kind (``seat.ante``, ``seat.call``, ``seat.bonus``)."""
        stakes: dict[str, Amount] = {}
        for kind, getter in self._stake_getters:
            value = getter(record.data)
            if value is not None:
                self._found.add(f"seat.{kind}")
                stakes[kind] = seat[kind] = self._amount(getter, f"seat.{kind}", record, value)
                seat.where[kind] = (getter, record.pointer, record.data, record.line, record.lines)
        if "ante" not in stakes:
            getter = self.loaded.getters["seat.ante"]
            raise field_misfit(getter, "seat.ante", record, None, "the seat has no Ante")
        return stakes

    def _bet_stakes(self, record: ExportRecord,
                    seat: ExportDict) -> tuple[dict[str, Amount], dict[str, tuple[Amount, Any]] | None]:
        """The seat's stakes by kind (ante, call, bonus) from its bets and, when each bet
        says what it paid back, the payouts by kind (with where the first one is).

        A bet's code and amounts are looked up in what was read before (a table plays the
        same few codes and stakes): the bet's own record, its normalizers and every word
        of what does not fit are reached only for a value met the first time."""
        bets_getter = self._bets
        assert bets_getter is not None and self._code is not None and self._stake is not None
        bets = bets_getter(record.data)
        if not isinstance(bets, list):
            raise field_misfit(bets_getter, "seat.bets", record, bets, "expected the list of the seat's bets")
        stakes: dict[str, Amount] = {}
        payouts: dict[str, tuple[Amount, Any]] | None = None
        base = bets_getter.path(record.pointer)
        code, stake_of, payout_of, kinds = self._code, self._stake, self._payout, self._kinds
        lines, where = record.lines, seat.where
        if bets:
            self._found.add("bet")
        for i, bet in enumerate(bets):
            said = code(bet)
            kind = kinds.get(said) if type(said) is str else None
            if kind is None:
                kind = self._kind(BetAt(bet, record, base, i))
                if type(said) is str and len(kinds) < 1000:
                    kinds[said] = kind
            if kind == "ignore":
                continue
            amount = self._known_amount(stake_of(bet))
            if amount is None:
                at = BetAt(bet, record, base, i)
                amount = self._amount(stake_of, "bet.stake", at.record, required(stake_of, "bet.stake", at.record))
            if kind in stakes:
                stakes[kind] += amount
            else:
                stakes[kind] = amount
                where[kind] = (stake_of, f"{base}[{i}]", bet, bet.line if isinstance(bet, LineDict) else record.line,
                               lines)
            seat[kind] = stakes[kind]
            if payout_of is not None:
                paid = payout_of(bet)
                if paid is None:
                    paid_amount: Amount = ZERO
                else:
                    self._found.add("bet.payout")
                    known_paid = self._known_amount(paid)
                    paid_amount = known_paid if known_paid is not None else \
                        self._amount(payout_of, "bet.payout", BetAt(bet, record, base, i).record, paid)
                payouts = payouts if payouts is not None else {}
                known = payouts.get(kind)
                payouts[kind] = (paid_amount + known[0], known[1]) if known else \
                    (paid_amount, (payout_of, f"{base}[{i}]", bet, bet.line if isinstance(bet, LineDict) else
                                   record.line, lines))
        if "ante" not in stakes:
            raise field_misfit(bets_getter, "seat.bets", record, bets, "the seat has no Ante bet (words.bet maps the "
                                                                  "codes)")
        return stakes, payouts

    def _kind(self, at: BetAt) -> Any:
        """A bet's kind through ``words.bet``: its code required, a code not mapped said."""
        code = self._code
        assert code is not None
        try:
            return self.readers.bet.word(required(code, "bet.code", at.record))
        except Misfit as misfit:
            raise field_misfit(code, "bet.code", at.record, code(at.record.data), str(misfit)) from None

    def _known_amount(self, value: Any) -> Amount | None:
        """The amount ``value`` was read as before (the money reader's memo), or None."""
        kind = type(value)
        return self._amounts.get((kind, value)) if kind in HASHED else None

    def _recorded(self, record: ExportRecord, game: ExportDict, stakes: dict[str, Amount],
                  payouts: dict[str, tuple[Amount, Any]] | None) -> ExportDict | None:
        """What the table paid, as format 2's ``recorded``: per-bet nets when each bet
        says what it paid back, else the total returned. A cancelled game that paid
        nothing back was refunded by the wallet: nothing recorded."""
        recorded = ExportDict()
        recorded.line = record.line
        where = recorded.where
        returned = None
        cancelled = game.get("status") == "cancelled"
        getter = self._returned
        said = getter(record.data) if getter is not None else None
        if said is not None:
            assert getter is not None
            self._found.add("seat.returned")
            returned = self._amount(getter, "seat.returned", record, said)
            place = (getter, record.pointer, record.data, record.line, record.lines)
            if cancelled:  # a cancelled game that paid: what it made the seat win or lose says so (G003)
                recorded["net"] = returned - sum(stakes.values(), ZERO)
                where["net"] = place
            else:
                recorded["returned"] = returned
                where["returned"] = place
        net = self._net_said(record, recorded) if self._net is not None else None
        void = self._void_said(record, recorded) if self._void is not None else False
        if cancelled and net is None and not void:
            if returned is None and payouts is not None:  # what the bets paid back
                returned = sum((paid for paid, _ in payouts.values()), ZERO)
            if not returned:
                return None
        if payouts is not None:
            # the total is the payouts' sum, not a second record of them: a wrong payout is
            # one finding on its bet, not also one on the total
            for kind, stake in stakes.items():
                paid, place = payouts.get(kind, (ZERO, None))
                recorded[kind] = paid - stake
                if place is not None:
                    where[kind] = place
        if self._qualified is not None and not cancelled:
            recorded["dealer_qualified"] = self._qualified
        getter = self._balance
        if getter is not None:
            value = getter(record.data)
            if value is not None:
                self._found.add("seat.balance")
                recorded["balance"] = self._amount(getter, "seat.balance", record, value)
                where["balance"] = (getter, record.pointer, record.data, record.line, record.lines)
        return recorded

    def _net_said(self, record: ExportRecord, recorded: ExportDict) -> Amount | None:
        """``seat.net``: what the export says the seat won or lost (audited as format 2's
        ``recorded.net``, P004; a cancelled or void game's net is G003 or V001)."""
        getter = self._net
        value = getter(record.data) if getter is not None else None
        if value is None:
            return None
        assert getter is not None
        self._found.add("seat.net")
        recorded["net"] = net = self._amount(getter, "seat.net", record, value)
        recorded.where["net"] = (getter, record.pointer, record.data, record.line, record.lines)
        return net

    def _void_said(self, record: ExportRecord, recorded: ExportDict) -> bool:
        """``seat.void``: the table's own word that the deal was void (format 2's
        ``recorded.void``): a JSON boolean, or ``true``/``false`` as text in any case."""
        getter = self._void
        value = getter(record.data) if getter is not None else None
        if value is None:
            return False
        assert getter is not None
        self._found.add("seat.void")
        said = {"true": True, "false": False}.get(value.strip().lower()) if isinstance(value, str) else value
        if not isinstance(said, bool):
            raise field_misfit(getter, "seat.void", record, value, "expected true or false")
        recorded["void"] = said
        recorded.where["void"] = (getter, record.pointer, record.data, record.line, record.lines)
        return said

    def _amount(self, getter: Getter, key: str, record: ExportRecord, value: Any) -> Amount:
        try:
            return self.readers.money.amount(value)
        except Misfit as misfit:
            raise field_misfit(getter, key, record, value, str(misfit)) from None


class _Unfit(Exception):
    """The first record of a file does not fit the mapping: the mapping is not this file's."""
