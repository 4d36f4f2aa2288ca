"""What every report says of format 2: games, their seats, players' ledgers.

One place for the shapes so that JSON, JSON Lines, text, GitHub and JUnit name games
and players alike (``docs/format.md`` documents the JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from msgspec import UNSET

from ..audit.clean import CleanGame, CleanSeat, LaneSeat, describe
from ..audit.fast import MEMO_LIMIT, SHARED_LINES, FastPathMismatch
from ..audit.games import GameCounts, GameResult, SeatResult
from ..audit.results import Ledger, PlayerLedger, SessionResult
from ..load.plain import mode as fast_mode
from ..rules.money import plain
from .shapes import (
    GameHeadJSON,
    GameJSON,
    MoneyJSON,
    PlayerJSON,
    PlayerLedgerJSON,
    SeatJSON,
    SessionTailJSON,
    TableLedgerJSON,
)

if TYPE_CHECKING:
    from ..i18n import Messages


def seat_decision(seat: SeatResult) -> str | None:
    """The seat's decision (None when the seat is not valid), without building the model
    of a seat the fast path audited."""
    if type(seat) is LaneSeat:
        decision: str = seat.plain.decision
        return decision
    return seat.record.decision if seat.record is not None else None


def seat_dict(seat: SeatResult) -> SeatJSON:
    from ..audit.owed import seat_bottom_line
    from .base import bottom_json, finding_dict

    settlement = seat.settlement()
    bottom = None if seat.copy else seat_bottom_line(seat)  # seated twice: settled once, at the first seat
    return {
        "player_id": seat.player_id, "line": seat.line, "outcome": seat.outcome,
        "decision": seat_decision(seat),
        "settlement": None if settlement is None else {k: plain(v) for k, v in settlement.items()},
        "bottom_line": None if bottom is None else bottom_json(bottom),
        "balance": plain(seat.balance), "recorded_balance": plain(seat.recorded_balance),
        "findings": [finding_dict(f) for f in seat.findings],
    }


def _game_head(game: GameResult) -> GameHeadJSON:
    head: GameHeadJSON = {
        "game": game.game, "line": game.line, "round": game.number, "status": game.status,
        "outcome": game.outcome, "void_reason": game.void_reason,
        "player_hand": game.player_hand.category if game.player_hand else None,
        "dealer_hand": game.dealer_hand.category if game.dealer_hand else None,
        "dealer_qualified": game.dealer_qualified,
    }
    if game.pointer is not None:  # an imported game: its record's place in the export
        head["pointer"] = game.pointer
    return head


def game_dict(game: GameResult) -> GameJSON:
    from .base import finding_dict

    return {**_game_head(game), "seats": [seat_dict(s) for s in game.seats],
            "findings": [finding_dict(f) for f in game.findings]}


def game_json(game: GameResult, dump: Callable[[Any], str]) -> str:
    """``dump(game_dict(game))``, the JSON report's game, written faster: a seat the fast
    path audited without findings is written from its memo entry's template (the seats
    that share an entry differ only in player id, line and balances). Under
    ``REFEREE_FAST=verify`` both are written and compared; the tests compare byte for byte."""
    from .base import finding_dict

    head = dump(_game_head(game))
    seats = ",".join([_seat_json(s, dump) for s in game.seats])
    text = f'{head[:-1]},"seats":[{seats}],"findings":{dump([finding_dict(f) for f in game.findings])}}}'
    if fast_mode() == "verify":
        full = dump(game_dict(game))
        if full != text:
            raise FastPathMismatch(f"templated game {text!r} differs from {full!r}")
    return text


def _seat_json(seat: SeatResult, dump: Callable[[Any], str]) -> str:
    """``dump(seat_dict(seat))``; for a seat the fast lane took, its settlement's text
    (made once, kept on the shared entry) between its own fields."""
    if type(seat) is not LaneSeat or seat.entry is None or seat.findings:
        ruling = seat.ruling
        if (ruling is not None and not seat.findings and not seat.copy and not seat.cancelled
                and SHARED_LINES.get(id(ruling.lines)) is ruling.lines):
            return _ruled_seat(seat, ruling, dump)
        return dump(seat_dict(seat))
    return _templated(seat.entry, seat.player_id, seat.line, seat.source, seat.balance, seat.recorded_balance, dump,
                      seat.plain)


def _ruled_seat(seat: SeatResult, ruling: Any, dump: Callable[[Any], str]) -> str:
    """``dump(seat_dict(seat))`` for a seat without findings whose settlement is a memo's
    (``SHARED_LINES``): what it says between its own id, line and balances is a function
    of the settlement's lines, its decision and its bottom line's figures (no finding:
    no balance off), written once for each."""
    from ..audit.owed import recorded_paid, seat_bottom_line, wallet_net
    from .base import bottom_json

    decision = seat_decision(seat)
    # what seat_bottom_line reads besides the lines (no finding: no balance off)
    paid = (recorded_paid(seat.record.recorded if seat.record is not None else None, ruling), wallet_net(seat))
    key = (id(ruling.lines), ruling.outcome, decision, paid, dump)
    middle = _RULED.get(key)
    if middle is None:
        bottom = seat_bottom_line(seat)
        assert bottom is not None  # a seat ruled
        settlement = seat.settlement()
        assert settlement is not None
        middle = dump({"outcome": ruling.outcome, "decision": decision,
                       "settlement": {k: plain(v) for k, v in settlement.items()},
                       "bottom_line": bottom_json(bottom)})[1:-1]
        if len(_RULED) < MEMO_LIMIT:
            _RULED[key] = middle
    recorded = seat.recorded_balance
    kept = "null" if recorded is None else _number(recorded)
    player = seat.player_id
    # an id JSON writes as it is (printable ASCII, no quote or backslash to escape), else as dump writes it
    if player is not None and player.isascii() and player.isprintable() and '"' not in player and "\\" not in player:
        named = f'"{player}"'
    else:
        named = dump(player)
    return (f'{{"player_id":{named},"line":{seat.line},{middle},"balance":{_number(seat.balance)},'
            f'"recorded_balance":{kept},"findings":[]}}')


#: What :func:`_ruled_seat` writes of a settlement (amounts by value: ``plain`` writes
#: equal amounts alike), by its key.
_RULED: dict[tuple[Any, ...], str] = {}


def _templated(entry: Any, player_id: str | None, line: int, source: Any, balance: Decimal,
               recorded: Decimal | None, dump: Callable[[Any], str], fast: Any) -> str:
    """A clean seat's JSON: its entry's settlement text between its own id, line and
    balances (a line without a backslash has no string JSON escapes, load/table.py: its
    ids are written as they are). Of its bottom line only whether the table's payment
    is known is the seat's own (a wallet, or a recorded net, return or every wager's
    result): the lane proved that what it says equals the rules."""
    recorded_known, wallet_known = _paid_known(fast, entry)
    view = f"json-seat-{int(recorded_known)}{int(wallet_known)}"
    middle = entry.views.get(view)
    if middle is None:
        r = entry.ruling
        settlement = {"ante": r.ante, "call": r.call, "bonus": r.bonus, "net": r.net, "returned": r.returned,
                      "staked": r.staked}
        net = plain(r.net)
        bottom = {"paid": net if recorded_known or wallet_known else None, "recorded": net if recorded_known else None,
                  "wallet": net if wallet_known else None, "rules": net, "owed": 0, "owed_to": None, "balance": None}
        middle = entry.views[view] = dump({"outcome": entry.outcome, "decision": entry.decision,
                                           "settlement": {k: plain(v) for k, v in settlement.items()},
                                           "bottom_line": bottom})[1:-1]
    player = dump(player_id) if source.escaped else f'"{player_id}"'
    kept = "null" if recorded is None else _number(recorded)
    shown = kept if balance == recorded else _number(balance)
    return (f'{{"player_id":{player},"line":{line},{middle},"balance":{shown},'
            f'"recorded_balance":{kept},"findings":[]}}')


def clean_game_json(game: CleanGame, dump: Callable[[Any], str]) -> str:
    """``dump(game_dict(game.result()))`` for a game the fast lane took whole, from its
    seats' entries (compared with it under ``REFEREE_FAST=verify``)."""
    outcome, player_hand, dealer_hand, qualified = describe(game)
    fields = {"game": game.game, "line": game.line, "round": game.number, "status": "settled",
              "outcome": outcome, "void_reason": None,
              "player_hand": player_hand.category if player_hand else None,
              "dealer_hand": dealer_hand.category if dealer_hand else None, "dealer_qualified": qualified}
    pointer = getattr(game.record, "pointer", None)
    if pointer is not None:  # an imported game, as _game_head writes it
        fields["pointer"] = pointer
    head = dump(fields)
    seats = ",".join([_clean_seat(seat, dump) for seat in game.seats])
    text = f'{head[:-1]},"seats":[{seats}],"findings":[]}}'
    if fast_mode() == "verify":
        full = dump(game_dict(game.result()))
        if full != text:
            raise FastPathMismatch(f"templated game {text!r} differs from {full!r}")
    return text


def _clean_seat(seat: CleanSeat, dump: Callable[[Any], str]) -> str:
    return _templated(seat.entry, seat.player_id, seat.line, seat.source, seat.balance, seat.recorded_balance, dump,
                      seat.fast)


def _paid_known(fast: Any, entry: Any) -> tuple[bool, bool]:
    """Whether a lane seat's record says what the table paid and whether its wallet
    does, as :func:`~referee.audit.owed.seat_bottom_line` reads them (the record by
    :func:`~referee.audit.owed.paid_by_lines` itself; a wallet, whatever it moved)."""
    from ..audit.owed import paid_by_lines

    recorded = fast.recorded
    said = recorded is not UNSET and paid_by_lines(recorded, entry.lines, UNSET) is not None
    return said, getattr(fast, "wallet", UNSET) is not UNSET


def _number(amount: Decimal) -> str:
    """An amount as ``dump(plain(amount))`` writes it."""
    text = str(amount)
    if "." not in text and "E" not in text and text != "-0":
        return text  # a whole number, written in full
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def _money(ledger: Ledger) -> MoneyJSON:
    return {
        "staked": plain(ledger.staked), "returned": plain(ledger.returned), "net": plain(ledger.net),
        "rtp": None if ledger.rtp is None else round(ledger.rtp, 6), "verdict": ledger.verdict,
        "opening_balance": plain(ledger.opening_balance), "closing_balance": plain(ledger.closing_balance),
        "recorded_closing_balance": plain(ledger.recorded_closing_balance),
        "recorded_net": plain(ledger.recorded_net) if ledger.recorded_nets else None,
        "owed_to_player": plain(ledger.owed_player), "owed_to_house": plain(ledger.owed_house),
    }


def player_ledger_dict(ledger: Ledger) -> PlayerLedgerJSON:
    """A player's games (a seat each) and money; ``verdict`` is the player's result."""
    cancelled = ledger.outcomes.get("cancelled", 0)
    return {
        "games": ledger.counted_rounds + ledger.void_rounds + ledger.invalid_rounds,
        "counted_games": ledger.counted_rounds, "void_games": ledger.void_rounds - cancelled,
        "cancelled_games": cancelled, "invalid_games": ledger.invalid_rounds, **_money(ledger),
    }


def table_ledger_dict(ledger: Ledger, counts: GameCounts, players: int) -> TableLedgerJSON:
    """The session's games and seats, and the money over every seat."""
    cancelled = ledger.outcomes.get("cancelled", 0)
    return {
        "games": counts.games, "counted_games": counts.counted, "void_games": counts.void,
        "cancelled_games": counts.cancelled, "invalid_games": counts.invalid, "second_records": counts.second_records,
        "players": players,
        "seats": counts.seats, "counted_seats": ledger.counted_rounds, "void_seats": ledger.void_rounds - cancelled,
        "cancelled_seats": cancelled, "invalid_seats": ledger.invalid_rounds, **_money(ledger),
    }


def players_list(players: list[PlayerLedger]) -> list[PlayerJSON]:
    return [{"player_id": p.player_id, "ledger": player_ledger_dict(p.ledger)} for p in players]


def session_tail(result: SessionResult) -> SessionTailJSON:
    return {"players": players_list(result.players),
            "ledger": table_ledger_dict(result.ledger, result.games, len(result.players))}


# ----------------------------------------------------------------------------- text

#: The three nets of a game, each labelled by who says it: the rules, the records, the
#: wallets (the wallet's column left out of a table where no seat has a wallet).
GAME_HEADERS = ("game", "round", "status", "player", "dealer", "qualified", "seats", "calls", "staked",
                "net (rules)", "net (recorded)", "net (wallet)", "findings")
PLAYER_HEADERS = ("player", "games", "counted", "void", "cancelled", "invalid", "staked", "returned", "net", "rtp",
                  "balance", "bal. rec.", "verdict")


def _short(category: str | None) -> str:
    return category.replace("_", " ") if category else ""


def game_row(game: GameResult) -> list[Any]:
    """One line of the text report per game: the deal's facts once, the seats summed."""
    from ..rules.money import fmt, signed

    staked = net = Decimal(0)
    for s in game.seats:  # each settled seat's ``settlement()`` staked and net, without making its dict
        if s.ruling is not None:
            staked += s.ruling.staked
            net += s.ruling.net
        elif s.cancelled:
            staked += s.staked
    codes = sorted({f.code for f in game.findings} | {f.code for s in game.seats for f in s.findings})
    qualified = "" if game.dealer_qualified is None else ("yes" if game.dealer_qualified else "no")
    status = game.status or "invalid"
    if game.outcome == "void":
        status = "void"
    elif game.kind == "invalid":
        status = "invalid"  # not one seat ruled: not "settled", whatever the record says
    from ..escape import printable

    return [printable(game.game or "?"), "" if game.number is None else game.number, status,
            _short(game.player_hand.category if game.player_hand else None),
            _short(game.dealer_hand.category if game.dealer_hand else None), qualified, len(game.seats),
            sum(1 for s in game.seats if seat_decision(s) == "call"),
            fmt(staked), signed(net), *paid_nets(game), " ".join(codes) or "ok"]


def paid_nets(game: GameResult) -> tuple[str, str]:
    """What the game's records say the table paid its seats, and what their wallets
    moved, each summed over the seats that say (the bottom lines':
    :func:`~referee.audit.owed.seat_bottom_line`); blank when not one seat says."""
    from ..audit.owed import seat_bottom_line
    from ..rules.money import signed

    lines = [line for seat in game.seats if not seat.copy  # seated twice: paid once
             if (line := seat_bottom_line(seat)) is not None]
    recorded = [line.recorded for line in lines if line.recorded is not None]
    wallet = [line.wallet for line in lines if line.wallet is not None]
    return (signed(sum(recorded, Decimal(0))) if recorded else "", signed(sum(wallet, Decimal(0))) if wallet else "")


def player_rows(result: SessionResult) -> list[list[Any]]:
    from ..escape import printable
    from ..rules.money import fmt, signed

    rows = []
    for p in result.players:
        d = player_ledger_dict(p.ledger)
        rec = p.ledger.recorded_closing_balance
        rows.append([printable(p.player_id), d["games"], d["counted_games"], d["void_games"], d["cancelled_games"],
                     d["invalid_games"], fmt(p.ledger.staked), fmt(p.ledger.returned), signed(p.ledger.net),
                     f"{p.ledger.rtp:.2%}" if p.ledger.rtp is not None else "n/a", fmt(p.ledger.closing_balance),
                     fmt(rec) if rec is not None else "", p.ledger.verdict])
    return rows


#: The session line of a table (a catalogue message: the HTML report says it in French).
TOTALS = ("Games {games} ({counted}, {void}, {cancelled}, {invalid}), {seats}, {players}; staked {staked}, "
          "returned {returned}, net {net} for the players, return to player {rtp}.")
#: The counts of :data:`TOTALS`, each a plural message ("1 seat", "2 seats"; French
#: "1 place", "0 comptée", "2 comptées"): no "1 seats" (issue 27).
COUNT_WORDS = {"counted": ("{n} counted",) * 2, "void": ("{n} void",) * 2, "cancelled": ("{n} cancelled",) * 2,
               "invalid": ("{n} invalid",) * 2, "seats": ("{n} seat", "{n} seats"),
               "players": ("{n} player", "{n} players")}


def table_totals(result: SessionResult, m: Messages | None = None) -> str:
    """The session's games and money in one sentence, in the reader's language when
    ``m`` is given (else English), every count with its noun in the right number."""
    from ..i18n import Messages as Words
    from ..rules.money import fmt, signed

    words = m if m is not None else Words("en")
    ledger, g = result.ledger, result.games
    rtp = f"{ledger.rtp:.2%}" if ledger.rtp is not None else "n/a"
    counts = {"counted": g.counted, "void": g.void, "cancelled": g.cancelled, "invalid": g.invalid,
              "seats": g.seats, "players": len(result.players)}
    said = {key: words.plural(*COUNT_WORDS[key], n).format(n=n) for key, n in counts.items()}
    return words(TOTALS).format(games=g.games, staked=fmt(ledger.staked), returned=fmt(ledger.returned),
                                net=signed(ledger.net), rtp=rtp, **said)


def seat_owed(seat: SeatResult) -> Decimal:
    """What the rules give the seat minus what the table paid it (positive: owed to the
    player; negative: to the house): the seat's bottom line (audit/owed.py), 0 when it
    was not ruled or nothing says what was paid."""
    from ..audit.owed import seat_bottom_line

    bottom = seat_bottom_line(seat)
    return Decimal(0) if bottom is None else bottom.owed
