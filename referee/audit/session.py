"""The audit of one session: each game ruled, each seat checked, the ledgers kept.

One audit for both formats. A format's reader into the audit (``audit/intake_rounds.py``
for format 1, ``audit/intake_table.py`` for the live table) validates each record and
gives a :class:`GameIn`: the deal (or why it cannot be ruled), its number, its seats,
and the places its findings name; a round of format 1 is a game of one seat with its
own cards. Here every game goes the same way: its place in the sequence
(``audit/sequence.py``), the deal ruled (``audit/seats.py``), its number judged, then
each seat's stakes (``audit/stakes.py``), record (``audit/compare.py``), wallet
(``audit/wallet.py``) and balance (``audit/players.py``), and the ledgers booked. The
fast lane (``audit/lane.py``) takes the games it can prove clean from the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..load.records import SessionRecord, key_line
from ..models import codes
from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..profiles import LoadedProfile, ProfileError, borrowed_name, resolve_profile
from ..rules.profile import Profile
from .compare import Notation, check_cancelled, compare_record, recorded_as_paid, settled_as_valid, void_detail
from .fast import SettleMemo, memo_for
from .games import GameCounts, GameResult, SeatResult, book, seat_book, stakes_of, totals_of
from .ledger import lose_track
from .places import Emitter, Place
from .players import BalanceWork, Player, count_book
from .results import Finding, Ledger, PlayerLedger, SessionInfo, SessionResult
from .seats import Rulings, SeatCards, canonical, cross_seat_duplicates, describe, void_ruling
from .sequence import Numbered, Sequence
from .stakes import check_stakes
from .validation import recorded_void, unruled_nets
from .wallet import check_wallet

ZERO = Decimal(0)


@dataclass(slots=True)
class Options:
    """What the command line can change about an audit."""

    profile: str | None = None
    keep_raw: bool = False
    #: Clean games of the fast lane travel in :class:`~referee.audit.clean.CleanGames`
    #: batches (for the reporters' pipeline); otherwise each becomes a game event.
    batches: bool = False
    #: ``check --mapping``: the inputs are providers' exports read through this mapping
    #: (a built-in's name or a file); ``wallet``: seamless-wallet logs joined to their
    #: games, read through ``wallet_mapping``.
    mapping: str | None = None
    wallet: tuple[str, ...] = ()
    wallet_mapping: str = "seamless-wallet"
    #: The mapping's own bytes, when they are not to be read again from ``mapping`` (a
    #: replay from the store reads the export through the very mapping it was audited
    #: with, built-in or not, whatever this referee ships now).
    mapping_text: bytes | None = None
    mapping_builtin: bool = False
    #: Where each ``wallet`` log is read from, when not from its name (a replay from the
    #: store writes the kept bytes to temporary files: findings still name the log as it
    #: was named, at its own lines); and the wallet mapping's own bytes, as ``mapping_text``.
    wallet_files: tuple[str, ...] = ()
    wallet_mapping_text: bytes | None = None
    wallet_mapping_builtin: bool = False


@dataclass(slots=True)
class Header:
    """What the audit reads of a session's header, whatever its format."""

    id: str
    #: The session's own ``profile``; None when it names none (the default is then said).
    profile: str | None = None
    rounds_agreed: int | None = None
    #: Each player's opening balance, by the key the seats name the player by.
    openings: dict[str, Decimal] = field(default_factory=dict)
    player: str | None = None
    table: str | None = None
    currency: str | None = None


@dataclass(slots=True)
class SeatIn:
    """One seat as its reader gave it: its result to fill, its record as validated (None
    when it could not be), the mapping it was read from, and where its findings go."""

    result: SeatResult
    model: Any
    data: Any
    emit: Emitter
    #: The player's key in the session (format 1: the session's one player).
    key: str | None
    #: The player is seated twice in this record (``G002`` said): not settled.
    twice: bool = False


@dataclass(slots=True)
class GameIn:
    """One game as its reader gave it: its result to fill, its number, its deal (None
    when the game's own record could not be validated), its seats."""

    result: GameResult
    game_id: str | None
    number: int | None
    #: The number is the table's sequence (a round's always; a live table's when recorded).
    counted: bool
    #: The deal: ``player`` (the shared hand, or None), ``flop``, ``turn``, ``river``,
    #: ``dealer``, ``status``; None when the game cannot be ruled.
    deal: Any
    emit: Emitter
    seats: list[SeatIn]
    #: The game's record as validated (format 1: the round), kept on the result when ruled.
    record: Any = None
    #: Format 1: the previous record again (one S003; not ruled or counted again).
    repeated: bool = False
    #: An imported game's card notation (its mapping's), when it is not format 2's: a
    #: did-you-mean for a token that is no card is spelt in it.
    notation: Notation | None = None


def _chosen_by(option: str | None, header: Header | None) -> str:
    """Who chose a session's profile (:attr:`SessionInfo.profile_by`)."""
    if option is not None:
        return "option"
    if header is None:
        return "default-unread"
    return "session" if header.profile is not None else "default"


class SessionAudit:
    """The running state of one session (see the module)."""

    def __init__(self, record: SessionRecord, options: Options, header: Header | None,
                 findings: list[Finding], format: int, players: tuple[str, ...] = ()) -> None:
        self.file = record.source
        self.findings = findings
        self.header = header
        self.format = format
        self.id = header.id if header is not None else f"{Path(record.source).name}#{record.index + 1}"
        for finding in findings:
            finding.session = self.id
        self.loaded = self._load_profile(record, options.profile)
        loaded = self.loaded
        self.info = SessionInfo(
            self.id, self.file, record.line, loaded.profile.name if loaded else None,
            loaded.origin if loaded else None, loaded.sha256 if loaded else None, record.index,
            header.player if header else None, format, header.table if header else None,
            header.currency if header else None, _chosen_by(options.profile, header))
        if loaded is not None:
            self._borrowed(loaded)
        self.openings = dict(header.openings) if header else {}
        self.players: dict[str, Player] = {}
        for key in players:  # format 1: its one player, there from the start
            self.player(key)
        self.ledger = Ledger()
        self.counts = GameCounts()
        self.seq = Sequence(self.findings)
        self.transactions: set[str] = set()
        #: Each game's players in this session, every record of it: a player seated again
        #: in a second record is a copy of a bet, not settled again.
        self.game_players: dict[str, tuple[str, ...]] = {}
        #: A valid deal the table voided (V002): its number, while its replay may come.
        self.table_voided_number: int | None = None
        self.valid_voided = 0
        #: Seats booked (``games.Book``) that the session's ledger has not taken yet.
        self.booked: dict[Any, int] = {}
        from ..load.plain import mode

        self.fast = None if mode() == "off" else mode()
        # The settlement memo is the one audit's, whichever path takes a game.
        self.memo = memo_for(loaded.profile, loaded.origin, loaded.sha256, SettleMemo) if loaded else None
        self.lane: Any = None
        #: The dealer's qualifier in words, for a K003 (worded once a session, not a seat).
        self.qualifier = loaded.profile.dealer_qualifier.words() if loaded else ""
        if self.fast and loaded and not options.keep_raw:
            from .clean import lane_memo_for

            self.lane = lane_memo_for(loaded.profile, loaded.origin, loaded.sha256)

    def _load_profile(self, record: SessionRecord, option: str | None) -> LoadedProfile | None:
        """The option's profile, else the header's, else the default; H005 (worded alike in
        both formats) when it does not load: its first line at the header's ``profile``
        key, then one finding per problem at its own line of the profile file."""
        named = self.header.profile if self.header is not None else None
        name = option or (named if named is not None else DEFAULT_PROFILE)
        try:
            base = Path(record.source).parent if record.source != "-" else None
            return resolve_profile(name, base)
        except ProfileError as err:
            self.add(Finding(codes.H005, str(err).splitlines()[0], self.file,
                             key_line(record.data, "profile", record.line), field="profile"))
            for problem in err.problems:
                self.add(Finding(codes.H005, f"profile: {problem.message}", problem.file, problem.line,
                                 field="profile"))
            return None

    def _borrowed(self, loaded: LoadedProfile) -> None:
        """H010 when a profile file takes a built-in's name and rules otherwise, at the
        file's name line. Every session it rules says it; the merge, which sees the
        sessions in input order whatever ``--jobs``, keeps the first one's
        (:func:`referee.pipeline.merge.once_per_profile`): one finding per profile file."""
        problem = borrowed_name(loaded)
        if problem is not None:
            self.add(Finding(codes.H010, problem.message, problem.file, problem.line, field="profile"))

    @property
    def profile(self) -> Profile | None:
        return self.loaded.profile if self.loaded else None

    def add(self, finding: Finding) -> Finding:
        finding.session = self.id
        self.findings.append(finding)
        return finding

    def player(self, key: str) -> Player:
        player = self.players.get(key)
        if player is None:
            player = self.players[key] = Player(key, self.openings.get(key))
        return player

    @property
    def session_ledger(self) -> Ledger:
        """The session's ledger, with the seats booked by their sums."""
        if self.booked:
            for entry, count in self.booked.items():
                entry.add(self.ledger, count)
            self.booked = {}
        return self.ledger

    # -- a game

    def audit_game(self, g: GameIn) -> list[GameResult]:
        """The results this game releases, in file order (itself unless it is held back)."""
        result = g.result
        numbered = self.seq.begin(result, g.game_id, g.number, g.counted, g.repeated)
        for s in g.seats:
            if s.key is not None:
                self.player(s.key)  # players are made in seat order, whichever path takes the seat
        profile = self.profile
        if g.repeated:
            for s in g.seats:
                s.result.balance = self.player(s.key).balance if s.key is not None else ZERO
            self.seq.number(numbered, result, False, True, g.emit)
        elif g.deal is None or profile is None:
            self._unruled(g, numbered)
        else:
            self._ruled(g, numbered, profile)
        if not g.repeated:
            self._book(g.seats)
            self.counts.add(result.kind, len(result.seats))
        if g.game_id is not None:
            ids = tuple(seat.player_id for seat in result.seats if seat.player_id is not None)
            known = self.game_players.get(g.game_id)
            self.game_players[g.game_id] = ids if known is None else (*known, *ids)
        return self.seq.finish(result)

    def _unruled(self, g: GameIn, numbered: Numbered) -> None:
        """A game that cannot be ruled keeps its number; each seat's readable net and
        balance still feed the table's chain (a readable balance anchors it unchecked)."""
        voided = bool(g.seats) and all(recorded_void(_recorded(s)) for s in g.seats)
        self.seq.number(numbered, g.result, voided, False, g.emit)
        for s in g.seats:
            if s.key is not None and not s.twice:
                self._unreadable_seat(s)

    def _unreadable_seat(self, s: SeatIn) -> None:
        """A seat not ruled: the rules' chain loses its net, the table's keeps a readable
        one, and a readable recorded balance anchors the chain unchecked."""
        assert s.key is not None
        player = self.players[s.key]
        table_net, balance = unruled_nets(s.data.get("recorded") if isinstance(s.data, dict) else _recorded(s))
        self.seq.defer(BalanceWork(player, table_net, None, balance, False, s.emit, len(s.emit.findings),
                                   len(self.findings)))
        s.result.balance = player.balance

    def _ruled(self, g: GameIn, numbered: Numbered, profile: Profile) -> None:
        result, deal = g.result, g.deal
        result.record = g.record
        if g.number is not None:
            result.number = g.number
        cancelled = deal.status == "cancelled"
        result.status = deal.status
        result.cards = canonical((*(deal.player or ()), *(deal.flop or ()), deal.turn, deal.river,
                                  *(deal.dealer or ())))
        per_seat = deal.player is None
        rulings = Rulings(profile, deal, self.memo, self.fast == "verify")
        live = [s for s in g.seats if s.model is not None and not s.twice]
        whole_void = None
        if per_seat and not cancelled and len(live) > 1:
            own = [s for s in live if s.model.player is not None]
            if len(own) > 1:
                whole_void = cross_seat_duplicates(deal, [(f"player {s.result.player_id}", s.model.player)
                                                          for s in own])
        for s in live:
            seat = s.result
            if cancelled:
                seat.cancelled = True
            elif not per_seat and s.model.player is not None:
                continue  # its own cards at a game with a shared hand: H001 below
            elif whole_void is not None:
                call = s.model.ante * profile.call_multiple if s.model.decision == "call" else ZERO
                seat.ruling = void_ruling(whole_void, s.model.ante, call, s.model.bonus)
                seat.totals = totals_of(seat.ruling)
            else:
                seat.ruling, seat.totals = rulings.seat(s.model)
        if cancelled:
            result.outcome = "cancelled"
        else:
            describe(result, whole_void, per_seat)
        ruled = [s.result.ruling for s in live if s.result.ruling is not None]
        if not ruled and not cancelled and not per_seat:
            # not one seat to rule (none listed, or none readable: H008): the shared deal is
            # still the table's, and a malformed one is still void (V003), never "ok"
            unit = rulings.unit("call")
            if unit.outcome == "void":
                result.outcome, result.void_reason = "void", unit.void_reason
        deal_void = result.outcome == "void" if not ruled else all(r.outcome == "void" for r in ruled)
        table_void = bool(live) and all(recorded_void(s.model.recorded) for s in live)
        self._table_voided(g, table_void and bool(ruled) and not deal_void)
        self.seq.number(numbered, result, not cancelled and (deal_void or table_void), False, g.emit)
        game_void = whole_void is not None or (not per_seat and rulings.shared_void)
        for s in g.seats:
            if s.key is None:
                continue
            if s.model is None:
                self._unreadable_seat(s)
            elif not s.twice:
                self._audit_seat(s, deal, profile, game_void, g.notation)
        if result.outcome == "void" and (whole_void is not None or not per_seat):
            reason = result.void_reason or "malformed deal"
            g.emit(codes.V003, f"void deal: {reason}; stakes returned, game not counted (§07)", "", None, None)

    def _table_voided(self, g: GameIn, valid_voided: bool) -> None:
        """A valid deal the table voided (V002) and its replay, for the round count (S005)."""
        if self.table_voided_number is not None and g.number == self.table_voided_number:
            self.ledger.table_voided += 1  # the replay of a valid deal the table voided: counted once
        self.table_voided_number = g.number if valid_voided and g.counted else None
        self.valid_voided += self.table_voided_number is not None

    def _audit_seat(self, s: SeatIn, deal: Any, profile: Profile, game_void: bool,
                    notation: Notation | None = None) -> None:
        """One seat's stakes, record, wallet and balance, in that order; ``notation``:
        how the game's log spells a card, when not as format 2 does (an export's)."""
        seat, model = s.result, s.model
        assert s.key is not None
        player = self.players[s.key]
        recorded = model.recorded
        seat.recorded_balance = recorded.balance if recorded is not None else None
        if seat.copy:  # the bet of an earlier record, written again: ruled, not settled again
            seat.balance = player.balance
            return
        emit = s.emit
        if deal.player is not None and model.player is not None:
            emit(codes.H001, "the seat has its own cards at a game with a shared hand; not ruled", "player",
                 None, None)
            seat.recorded_balance = None
            return
        if game_void:
            emit.drop = (codes.V003,)
        ruling = seat.ruling
        refunded = ruling is None or ruling.outcome == "void"
        place: Place = emit.place
        check_stakes(model, profile, player, refunded, emit, place.stake_owner, place.stake_scope)
        if ruling is None:
            check_cancelled(recorded, emit)
        else:
            detail = None
            if ruling.void is not None:  # the cards are read again only to say why a deal is void
                cards = SeatCards(model.player if model.player is not None else deal.player, deal)
                detail = void_detail(cards, ruling, notation)
            compare_record(model, ruling, emit, self.qualifier, detail, place.noun)
        net, staked, returned = seat.totals or (ZERO, stakes_of(model, profile), ZERO)
        if model.wallet is not None:
            check_wallet(model.wallet, staked, ZERO if refunded else returned, refunded, self.transactions, emit)
        seat.table_void = recorded_void(recorded)
        paid = refunded and (recorded_as_paid(recorded) if ruling is None else settled_as_valid(recorded))
        player.balance += net
        table_net: Decimal | None = net
        if recorded is not None and recorded.net is not None:
            table_net = recorded.net
        elif seat.table_void:
            table_net = ZERO
        elif paid:
            table_net = None  # a void or cancelled deal the table paid, and how much is not recorded
        elif refunded:
            table_net = ZERO
        self.seq.defer(BalanceWork(player, table_net, net, seat.recorded_balance, refunded and table_net != net, emit,
                                   len(emit.findings), len(self.findings)))
        seat.balance = player.balance

    def _book(self, seats: list[SeatIn]) -> None:
        """The seats the full audit took, into the session's ledger and their players'
        (the lane books its own). A seat ruled valid that owes nothing is counted by its
        :class:`~referee.audit.games.Book` (its sums added once the ledger is read)."""
        for s in seats:
            seat = s.result
            if seat.copy:
                continue
            if s.key is not None and seat.record is not None:
                player = self.players[s.key]
                counted = seat_book(seat)
                if counted is None:
                    book(seat, self.ledger, player.ledger)
                    player._ledger.closing_balance = player.balance
                else:
                    recorded = seat.record.recorded
                    count_book(player, self.booked, counted, recorded.balance if recorded is not None else None)
            else:
                book(seat, self.ledger)

    def unreadable(self, number: int, line: int, source: str) -> None:
        """A record that cannot be read but whose number can (a JSON Lines round line):
        present (numbering, the count), its nets unknown."""
        def emit(code: Any, message: str, expected: int) -> None:
            self.add(Finding(code, f"round {number}: {message}", source, line, number, "round", expected, number))

        self.seq.unreadable(number, emit)
        for player in self.players.values():
            player.chain = lose_track(player.chain)
        self.seq.release_swapped()
        self.ledger.invalid_rounds += 1

    # -- the end

    def close(self) -> tuple[list[GameResult], SessionResult]:
        """The games still held back, then the session's ledger and findings."""
        out = self.seq.close()
        ledger = self.session_ledger
        players = [p.ledger for p in self.players.values()]
        ledger.opening_balance = sum((p.opening_balance for p in players), ZERO)
        ledger.closing_balance = sum((p.closing_balance for p in players), ZERO)
        # The table's recorded closing balance is its players' (unknown when one recorded none).
        recorded = [p.recorded_closing_balance for p in players]
        ledger.recorded_closing_balance = (sum((r for r in recorded if r is not None), ZERO)
                                           if recorded and all(r is not None for r in recorded) else None)
        self._check_count(ledger)
        listed = [PlayerLedger(p.id, p.ledger) for p in self.players.values()] if self.format == 2 else []
        return out, SessionResult(self.info, ledger, self.findings, listed, self.counts)

    def _check_count(self, ledger: Ledger) -> None:
        """``S005`` against the agreement the session states (``rounds_agreed``; none
        stated, none checked: docs/ledger.md)."""
        agreed = self.header.rounds_agreed if self.header is not None else None
        if agreed is None or self.profile is None:
            return
        # The rules' count holds every valid deal, the table's leaves out those it voided
        # (V002, their own finding): an agreement either count meets is kept.
        most = ledger.counted_rounds + ledger.invalid_rounds
        least = most - self.valid_voided
        if least <= agreed <= most:
            return
        counted = most if agreed > most else least
        # "played", not "counted": the summary's "counted" are the ruled rounds alone
        unruled = f", {ledger.invalid_rounds} of them not ruled" if ledger.invalid_rounds else ""
        void = ledger.void_rounds
        voided = f" ({_rounds(void, 'void ')} {'does' if void == 1 else 'do'} not count)" if void else ""
        self.add(Finding(codes.S005, f"{_rounds(counted)} played{unruled}, {agreed} agreed{voided}",
                         self.file, self.info.line, expected=agreed, recorded=counted))


def _rounds(n: int, kind: str = "") -> str:
    return f"{n} {kind}round{'s' * (n != 1)}"


def _recorded(s: SeatIn) -> Any:
    """A seat's ``recorded``, validated or as read."""
    if s.model is not None:
        return s.model.recorded
    return s.data.get("recorded") if isinstance(s.data, dict) else None
