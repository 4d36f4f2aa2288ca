"""Faults only a wallet log carries, written into a simulated seamless-wallet log (issue 45).

Why apart from the table's faults: those (``wallet_credit``, ``wallet_debit``,
``cancelled_paid``) are consistent money, wrong only against the game's stakes and the
rules, so a log audited alone (``check --mapping seamless-wallet LOG``) shows none of
them, and a money-only audit of a "faulty" log was clean. These are the faults the log
itself shows: a payout naming a debit it never had (W005), a debit settled twice (W006),
a stake given back after it was paid (W007), a round never closed (W008) and a balance
that does not follow (W009). Each is drawn among the seats no other fault touched, so
one seat carries one fault and the audit's one finding is its own; the manifest says the
code the log alone gives (``alone``) and the code the log joined to its history gives
(``code``; None when the join cannot see it: a missing credit of 0 moves no money, and
the join does not read balances).

Reproducible: one ``random.Random`` seeded from the settings' seed, so the same
arguments give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from random import Random

from .models import codes
from .models.written import WalletMove
from .simulate_table import TableFault, TableSettings

#: Each kind: the code the log read alone gives, and the code the log joined to its
#: history gives (None: only the log's own audit sees it).
LOG_FAULTS: dict[str, tuple[str, str | None]] = {
    "log_orphan_credit": (codes.W005, codes.W002),  # a payout naming a debit the log never had
    "log_settled_twice": (codes.W006, codes.W002),  # a payout written again under another id
    "log_cancel_after_credit": (codes.W007, codes.W003),  # a paid stake given back as well
    "log_round_open": (codes.W008, None),  # a lost round's credit of 0 left out: never closed
    "log_balance": (codes.W009, None),  # one balance after one unit off
}
#: The kinds drawn on a seat that was paid (a credit above 0), and on a lost one.
_PAID = ("log_orphan_credit", "log_settled_twice", "log_cancel_after_credit")
_LOST = ("log_round_open",)
#: Of the seats drawn, the share whose fault is a balance break instead.
_BALANCE_SHARE = 0.25


class LogFaults:
    """The log faults of one run: :meth:`inject` each session's moves (time order), then
    :meth:`unbalance` its lines once their balances are run; :attr:`manifest` after."""

    def __init__(self, settings: TableSettings, touched: set[tuple[str, str | None]]) -> None:
        self.rng = Random(f"wallet-log/{settings.seed}")
        self.rate = settings.faults if settings.log_faults else 0.0
        #: Seats another fault touched: (game, player).
        self.touched = set(touched)
        self.manifest: list[TableFault] = []
        #: Transactions a fault wrote or changed: their balance is not broken as well.
        self._faulty: set[str] = set()
        self._balance: set[tuple[str, str]] = set()

    def inject(self, moves: list[WalletMove], session: str) -> list[WalletMove]:
        """The session's moves with this run's settlement faults written in."""
        if not self.rate:
            return moves
        out: list[WalletMove] = []
        for seat in _seats(moves):
            out.extend(self._seat(seat, session))
        return sorted(out, key=lambda m: m["time"])

    def unbalance(self, lines: list[WalletMove], session: str) -> list[WalletMove]:
        """One balance a unit off on the lines drawn for it (never a player's first line,
        which starts the chain, a line a fault wrote, nor the line after a break)."""
        if not self.rate:
            return lines
        seen: set[str] = set()
        skip: set[str] = set()
        out: list[WalletMove] = []
        for line in lines:
            user, key = line["user"], (line["round"], line["user"])
            first, held = user not in seen, user in skip
            seen.add(user)
            skip.discard(user)
            if line["transaction"] in self._faulty:
                skip.add(user)
            elif not first and not held and key in self._balance and line["balance"] is not None:
                self._balance.discard(key)
                line = WalletMove(**line)
                line["balance"] = str(Decimal(str(line["balance"])) + 1)
                self._note(session, key, "log_balance")
                skip.add(user)
            out.append(line)
        return out

    def _seat(self, moves: list[WalletMove], session: str) -> list[WalletMove]:
        key = (moves[0]["round"], moves[0]["user"])
        if key in self.touched or any(m["action"] == "cancel" for m in moves) or self.rng.random() >= self.rate:
            return moves
        self.touched.add(key)
        if self.rng.random() < _BALANCE_SHARE:
            self._balance.add(key)
            return moves
        credits = [m for m in moves if m["action"] == "credit"]
        paid = [m for m in credits if Decimal(m["amount"])]
        if paid:
            return self._paid(moves, paid[0], self.rng.choice(_PAID), session)
        if credits:
            self._note(session, key, _LOST[0])
            return [m for m in moves if m is not credits[0]]
        return moves

    def _paid(self, moves: list[WalletMove], credit: WalletMove, kind: str, session: str) -> list[WalletMove]:
        """A paid seat's fault: one more transaction right after its credit."""
        tx = credit["transaction"]
        extra = WalletMove(**credit)
        if kind == "log_orphan_credit":
            extra["transaction"], extra["reference"] = f"{tx}/orphan", f"{tx}/no-such-debit"
        elif kind == "log_settled_twice":
            extra["transaction"] = f"{tx}/again"
        else:
            debit = next(m for m in moves if m["transaction"] == credit["reference"])
            extra["action"], extra["transaction"], extra["amount"] = "cancel", f"{tx}/back", debit["amount"]
        self._faulty.add(extra["transaction"])
        self._note(session, (credit["round"], credit["user"]), kind)
        at = moves.index(credit) + 1
        return [*moves[:at], extra, *moves[at:]]

    def _note(self, session: str, key: tuple[str, str], kind: str) -> None:
        alone, joined = LOG_FAULTS[kind]
        self.manifest.append(TableFault(session, key[0], key[1], kind, joined, alone))


def _seats(moves: list[WalletMove]) -> Iterator[list[WalletMove]]:
    """The moves of each seat (a player's round), seats in the order they first appear."""
    seats: dict[tuple[str, str], list[WalletMove]] = {}
    for move in moves:
        seats.setdefault((move["round"], move["user"]), []).append(move)
    yield from seats.values()
