"""Simulated live tables written as the providers export them (issue 29).

Why: operators' real logs are not format 2 but a provider's exports: a game history
(one JSON document of games and their participants' bets), a data feed (a CSV row a
player a game, totals only) and a seamless wallet's log (a line a debit, credit or
cancel, with the balance after). The importers read those shapes back into format 2;
to test them, this module writes the very tables :func:`simulate_tables` deals, faults
included, in each shape, so that a test can check the importers' findings against the
fault manifest.

A shape carries only some of the faults: a wallet fault is invisible without the
wallet's log, a second record of a game without its participants is not a data-feed
row, and no export has a round number for ``swapped_games`` (never drawn here). The
manifest of an export run keeps what that shape, read alone (the wallet: joined with
the game's stakes), must give: :data:`CARRIED`. docs/simulate.md has the table.

Every amount is derived from the rules (:func:`referee.rules.settlement.settle` re-rules
each seat from its record), every time from the session and game numbers, so the same
settings give the same bytes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TextIO, cast

from .models import codes
from .models.written import GameLine, HistoryBet, HistoryGame, HistoryParticipant, SeatLine, TableLine, WalletMove
from .rules.cards import SPELLINGS, SUITS, rank_char
from .rules.hands import evaluate
from .rules.payout import Wager
from .rules.profile import Profile
from .rules.settlement import ZERO, Deal, Decision, Ruling, settle
from .simulate_log import LogFaults
from .simulate_table import OWN_CARDS_MAX_SEATS, TABLE_FAULTS, TableFault, TableSettings, simulate_tables

EXPORTS = ("evolution-history", "datafeed-csv", "seamless-wallet")
#: The kinds an export run draws: no export numbers its games, so none can hold two swapped.
EXPORT_KINDS = tuple(kind for kind in TABLE_FAULTS if kind != "swapped_games")
#: Per shape, the fault kinds it carries and the codes each must give there. A
#: cancelled game paid gives G003 only on a seat its record shows paid (:func:`_shows_paid`);
#: W002 only where the seat was credited (as injected).
CARRIED: dict[str, dict[str, frozenset[str]]] = {
    "evolution-history": {"cards_differ": frozenset({codes.G001}), "player_twice": frozenset({codes.G002}),
                          "cancelled_paid": frozenset({codes.G003})},
    "datafeed-csv": {"player_twice": frozenset({codes.G002}), "cancelled_paid": frozenset({codes.G003})},
    "seamless-wallet": {"wallet_credit": frozenset({codes.W002}), "wallet_debit": frozenset({codes.W001}),
                        "cancelled_paid": frozenset({codes.W003, codes.W002})},
}
WALLET_COLUMNS = ("action", "user", "round", "table", "transaction", "reference", "amount", "balance", "time",
                  "currency")
FEED_COLUMNS = ("playerID", "extPlayerID", "gameID", "playSessionID", "parentSessionID", "startDate", "endDate",
                "status", "type", "bet", "win", "currency", "jackpot", "roundDetails")
FEED_TIMEPOINT = "timepoint=2026-12-01T00:00:00Z"
EPOCH = datetime(2026, 12, 1, tzinfo=UTC)
CALL_AFTER = timedelta(seconds=30)  # the Call is placed after the flop
SETTLE_AFTER = timedelta(seconds=45)
_BET_NAMES = {Wager.ANTE: "Ante", Wager.CALL: "Call", Wager.BONUS: "Bonus"}
_CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class _Record:
    """One game record of a session, with what every shape reads off it."""

    session: int
    number: int
    header: TableLine
    game: GameLine

    @property
    def started(self) -> datetime:
        return EPOCH + timedelta(days=self.session, minutes=self.number)

    @property
    def cancelled(self) -> bool:
        return self.game["status"] == "cancelled"


@dataclass(frozen=True, slots=True)
class _Seat:
    """A seat and its ruling under the rules; ``refunded``: its stakes came back (a
    cancelled game, correctly handled), so no bet paid anything."""

    seat: SeatLine
    ruling: Ruling
    refunded: bool

    def payouts(self) -> list[tuple[Wager, Decimal, Decimal]]:
        """Each bet's wager, stake and what it paid back, stake included."""
        return [(line.wager, line.stake, ZERO if self.refunded else line.stake + line.result)
                for line in self.ruling.lines]

    @property
    def returned(self) -> Decimal:
        return ZERO if self.refunded else self.ruling.returned


def write_export(settings: TableSettings, shape: str, out: TextIO, wallet_csv: bool = False) -> None:
    """Deal the tables of ``settings`` and write them to ``out`` as ``shape`` (one of
    :data:`EXPORTS`); ``wallet_csv``: the seamless wallet as CSV rather than JSON Lines.
    Leaves in ``settings.manifest`` the faults that shape carries (:data:`CARRIED`)."""
    if shape not in EXPORTS:
        raise ValueError(f"{shape!r}: an export is one of {', '.join(EXPORTS)}")
    if settings.own_cards and settings.seats[1] > OWN_CARDS_MAX_SEATS:
        raise ValueError(f"with a hand per seat a deck deals at most {OWN_CARDS_MAX_SEATS} seats")
    if settings.own_cards and shape == "evolution-history":
        raise ValueError("an evolution-history game has one player hand: no --own-cards")
    settings.kinds = tuple(kind for kind in settings.kinds if kind in EXPORT_KINDS)
    if settings.faults and not settings.kinds:
        raise ValueError("no fault kind left to draw for an export")
    sessions = simulate_tables(settings)
    records = list(_records(sessions))
    if shape == "evolution-history":
        _write_history(settings.profile, records, out)
    elif shape == "datafeed-csv":
        _write_feed(settings.profile, records, out)
    else:
        carried = _carried(settings.profile, shape, settings.manifest, records)
        settings.manifest[:] = carried + _write_wallet(sessions, records, out, wallet_csv, settings)
        return
    settings.manifest[:] = _carried(settings.profile, shape, settings.manifest, records)


def _carried(profile: Profile, shape: str, manifest: list[TableFault], records: list[_Record]) -> list[TableFault]:
    """The entries of ``manifest`` that ``shape`` carries, in their order."""
    kinds = CARRIED[shape]
    paid = {(r.header["id"], r.game["game"], s.seat["player_id"]) for r in records if r.cancelled
            for s in _seats(profile, r) if _shows_paid(shape, s)}
    alone = shape != "seamless-wallet"  # the wallet's are consistent money: the log alone shows none
    return [TableFault(f.session, f.game, f.player, f.kind, f.code, f.code if alone else None) for f in manifest
            if f.code in kinds.get(f.kind, ()) and (f.code != codes.G003 or (f.session, f.game, f.player) in paid)]


def _shows_paid(shape: str, seat: _Seat) -> bool:
    """Whether a cancelled game's seat, as ``shape`` writes it, shows a payout a refund
    would not give: nothing back reads as stakes refunded by the wallet; in the history
    every bet paying back its own stake (a push), in the feed a total equal to the stakes,
    read as the refund itself."""
    if not seat.returned:
        return False
    if shape == "datafeed-csv":
        return seat.returned != seat.ruling.staked
    return any(payout != stake for _, stake, payout in seat.payouts())


def _records(sessions: list[tuple[TableLine, list[GameLine]]]) -> Iterator[_Record]:
    """Every game record with its session index and game number (a later record of a
    game has no round: it follows its first)."""
    for index, (header, games) in enumerate(sessions):
        number = 0
        for game in games:
            number = game.get("round", number)
            yield _Record(index, number, header, game)


def _seats(profile: Profile, record: _Record) -> list[_Seat]:
    game = record.game
    out = []
    for seat in game.get("seats", []):
        deal = Deal(_decimal(seat["ante"]), seat.get("player") or game["player"], game["flop"],
                    cast(Decision, seat["decision"]), game["turn"], game["river"], game["dealer"],
                    _decimal(seat.get("bonus", 0)))
        out.append(_Seat(seat, settle(profile, deal), seat["recorded"].get("outcome") == "void"))
    return out


def _qualified(profile: Profile, game: GameLine) -> bool:
    """Whether the dealer qualifies on this record's cards (the same for every seat)."""
    hand = evaluate([*game["dealer"], *game["flop"], game["turn"], game["river"]])
    return profile.dealer_qualifies(hand.value)


def _board(game: GameLine) -> list[str]:
    return [*game["flop"], game["turn"], game["river"]]


# evolution-history ---------------------------------------------------------------


def _write_history(profile: Profile, records: list[_Record], out: TextIO) -> None:
    days: dict[int, list[HistoryGame]] = {}
    for record in records:
        days.setdefault(record.session, []).append(_history_game(profile, record))
    data = [{"date": (EPOCH + timedelta(days=day)).date().isoformat(), "games": games} for day, games in days.items()]
    out.write(json.dumps({"data": data}, ensure_ascii=False, indent=1) + "\n")


def _history_game(profile: Profile, record: _Record) -> HistoryGame:
    game, header, start = record.game, record.header, record.started
    dealer = game["dealer_id"]
    return {
        "id": game["game"], "startedAt": _iso(start), "settledAt": _iso(start + SETTLE_AFTER),
        "status": "Cancelled" if record.cancelled else "Resolved", "gameType": "holdem",
        "table": {"id": header["table"], "name": f"Casino Hold'em {header['table']}"},
        "dealer": {"uid": dealer, "name": f"Dealer {dealer}"}, "currency": header["currency"],
        "result": {"player": {"cards": [_upper(c) for c in game["player"]]},
                   "dealer": {"cards": [_upper(c) for c in game["dealer"]], "qualified": _qualified(profile, game)},
                   "communityCards": [_upper(c) for c in _board(game)]},
        "participants": [_participant(record, seat) for seat in _seats(profile, record)],
    }


def _participant(record: _Record, seat: _Seat) -> HistoryParticipant:
    debits = seat.seat["_debits"]
    bets: list[HistoryBet] = []
    for wager, stake, payout in seat.payouts():
        late = wager is Wager.CALL
        bets.append({"code": f"CHE_{_BET_NAMES[wager]}", "stake": _money(stake), "payout": _money(payout),
                     "placedOn": _iso(record.started + (CALL_AFTER if late else timedelta())),
                     "transactionId": debits[1 if late else 0]})
    return {"playerId": seat.seat["player_id"], "sessionId": record.header["id"], "currency": record.header["currency"],
            "bets": bets, "decisions": [{"type": seat.seat["decision"].capitalize()}]}


# datafeed-csv --------------------------------------------------------------------


def _write_feed(profile: Profile, records: list[_Record], out: TextIO) -> None:
    out.write(FEED_TIMEPOINT + "\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FEED_COLUMNS)
    for record in records:
        qualified = _qualified(profile, record.game)
        for seat in _seats(profile, record):
            writer.writerow(_feed_row(record, seat, qualified))


def _feed_row(record: _Record, seat: _Seat, qualified: bool) -> list[str]:
    game, start, player = record.game, record.started, seat.seat["player_id"]
    details = {"player": [_feed_card(c) for c in seat.seat.get("player") or game["player"]],
               "dealer": [_feed_card(c) for c in game["dealer"]], "board": [_feed_card(c) for c in _board(game)],
               "qualified": qualified,
               "bets": [{"c": _BET_NAMES[w], "a": _money(stake)} for w, stake, _ in seat.payouts()],
               "decision": seat.seat["decision"]}
    return [player, f"ext-{player}", "casino_holdem", f"{game['game']}/{player}", game["game"], _iso(start),
            _iso(start + SETTLE_AFTER), "cancelled" if record.cancelled else "completed", "live",
            _money(seat.ruling.staked), _money(seat.returned), record.header["currency"], "0.00",
            json.dumps(details, ensure_ascii=False, separators=(",", ":"))]


# seamless-wallet -----------------------------------------------------------------


def _write_wallet(sessions: list[tuple[TableLine, list[GameLine]]], records: list[_Record], out: TextIO,
                  as_csv: bool, settings: TableSettings) -> list[TableFault]:
    """The log, with the faults only a log carries (:data:`LOG_FAULTS`) drawn among the
    seats no other fault touched; gives their manifest."""
    lines: list[WalletMove] = []
    faults = LogFaults(settings, {(f.game, f.player) for f in settings.manifest})
    for index, (header, _) in enumerate(sessions):
        moves = sorted(_session_moves([r for r in records if r.session == index]), key=lambda m: m["time"])
        moves = faults.inject(moves, str(header["id"]))
        lines.extend(faults.unbalance(list(_balanced(moves, header)), str(header["id"])))
    _write_lines(lines, out, as_csv)
    return faults.manifest


def _write_lines(lines: list[WalletMove], out: TextIO, as_csv: bool) -> None:
    if as_csv:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(WALLET_COLUMNS)
        rows: list[Mapping[str, object]] = list(lines)
        writer.writerows([["" if row[k] is None else row[k] for k in WALLET_COLUMNS] for row in rows])
        return
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _session_moves(records: list[_Record]) -> Iterator[WalletMove]:
    """Each transaction of the session once, in the records' order (not yet in time order)."""
    seen: set[str] = set()
    for record in records:
        for seat in record.game.get("seats", []):
            for move in _seat_moves(record, seat):
                if move["transaction"] not in seen:
                    seen.add(move["transaction"])
                    yield move


def _seat_moves(record: _Record, seat: SeatLine) -> Iterator[WalletMove]:
    """A seat's wallet moves as transactions: debits, then its credits or cancels (a
    seat paid nothing and not refunded: a credit of 0, which closes the round). A seat
    whose every debit was lost has no transaction: the log alone stays consistent, the
    join finds the stakes never debited."""
    wallet, order = seat["wallet"], seat["_debits"]
    debits = [m for m in wallet if m["kind"] == "debit"]
    first = debits[0]["id"] if debits else None
    settled = record.started + SETTLE_AFTER
    for move in debits:
        late = move["id"] in order[1:]  # the Call's debit
        yield _move(record, seat, "debit", move["id"], None, move["amount"],
                    record.started + (CALL_AFTER if late else timedelta()))
    refunds = [m for m in wallet if m["kind"] == "refund"]
    for refund in refunds:
        for n, debit in enumerate(debits, start=1):
            yield _move(record, seat, "cancel", f"{refund['id']}-{n}", debit["id"], debit["amount"], settled)
    credits = [m for m in wallet if m["kind"] == "credit"]
    for credit in credits:
        yield _move(record, seat, "credit", credit["id"], first, credit["amount"], settled)
    if not credits and not refunds and first is not None:  # no debit left (wallet_debit): nothing to close
        closing = f"{record.game['game']}/{seat['player_id']}/close"
        yield _move(record, seat, "credit", closing, first, 0, settled)


def _move(record: _Record, seat: SeatLine, action: str, tx: str, reference: str | None, amount: object,
          time: datetime) -> WalletMove:
    return {"action": action, "user": seat["player_id"], "round": record.game["game"],
            "table": record.header["table"], "transaction": tx, "reference": reference,
            "amount": _money(_decimal(amount)), "balance": None, "time": _iso(time),
            "currency": record.header["currency"]}


def _balanced(moves: list[WalletMove], header: TableLine) -> Iterator[WalletMove]:
    """``moves`` with each player's balance after it, from the session's opening
    balances and the amounts as written (the log alone cannot know what the rules pay)."""
    balances = {player: _decimal(v) for player, v in header["opening_balances"].items()}
    for move in moves:
        amount = Decimal(move["amount"])
        balances[move["user"]] += -amount if move["action"] == "debit" else amount
        yield {**move, "balance": _money(balances[move["user"]])}


# spellings -----------------------------------------------------------------------


def _iso(t: datetime) -> str:
    """``2026-12-01T10:00:00.000Z``."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _money(amount: Decimal) -> str:
    """Two places (``3.00``), more only when the amount has them."""
    cents = amount.quantize(_CENT)
    return str(cents) if cents == amount else format(amount.normalize(), "f")


def _decimal(value: object) -> Decimal:
    return Decimal(str(value))


def _upper(token: str) -> str:
    """``Td`` as the history writes it: ``TD`` (the simulator writes canonical tokens)."""
    return token.upper()


def _feed_card(token: str) -> str:
    """``Td`` as the data feed writes it: ``10d``; ``Ks`` stays ``Ks``."""
    card = SPELLINGS[token]
    return rank_char(card.rank) + SUITS[card.suit]


__all__ = ["CARRIED", "EXPORTS", "EXPORT_KINDS", "write_export"]
