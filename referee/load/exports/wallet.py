"""A seamless-wallet log read through its mapping: one :class:`Transaction` a record.

Two readers take the transactions: the join (:func:`wallet_index`), which fills each
imported seat's ``wallet`` by game and player, and the money-only audit of a log read
alone (``referee.audit.wallet_log``). A transaction that does not fit the mapping is
one ``H008`` at its own line; the rest of the log is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...escape import NAME_LIMIT, digits
from ...models import codes
from ...models.transaction import ACTIONS, SeatMove, Transaction, WalletIndex
from ..reading import Reading, Stream
from ..records import LoadProblem, Record
from .files import ExportRecord, export_records
from .mappings import LoadedMapping
from .normalize import Misfit, MoneyReader, TimeReader, WordReader, shown

__all__ = ["TransactionReader", "WalletIndex", "WalletJoin", "add_move", "read_transactions"]


#: What a wallet log's record says; what a move of a seat's inline wallet says.
LOG_FIELDS = ("action", "user", "round", "id", "amount", "reference", "table", "balance", "time")
MOVE_FIELDS = ("action", "id", "amount", "reference")


class TransactionReader:
    """Reads one record of a wallet log into a :class:`Transaction`."""

    def __init__(self, loaded: LoadedMapping, name: str) -> None:
        mapping = loaded.mapping
        self.loaded = loaded
        self.name = name
        self.money = MoneyReader(mapping.money)
        self.times = TimeReader(mapping.times)
        self.action = WordReader(mapping.words.action, ACTIONS, "wallet action", strict=True)

    def read(self, record: ExportRecord) -> Transaction:
        """The transaction, or :class:`Misfit` naming the key, the expression and what was found."""
        return Transaction(self.name, record.line, record.pointer, **self.values(record, LOG_FIELDS))

    def move(self, record: ExportRecord) -> SeatMove:
        """One move of a seat's inline wallet (``seat.wallet``): its player and game are the
        seat's and the game's, so only what the move itself says is read."""
        values = self.values(record, MOVE_FIELDS)
        move: SeatMove = {"id": values["id"], "kind": values["action"], "amount": values["amount"]}
        if values.get("reference") is not None:
            move["reference"] = values["reference"]
        return move

    def values(self, record: ExportRecord, fields: tuple[str, ...]) -> dict[str, Any]:
        """The ``fields`` of one record, each read through its normalizer."""
        values: dict[str, Any] = {}
        for field in fields:
            getter = self.loaded.get(f"transaction.{field}")
            if getter is None:
                continue
            value = getter(record.data)
            try:
                values[field] = None if value is None else self._value(field, value)
            except Misfit as misfit:
                raise Misfit(f"transaction.{field}: {getter.text!r} found {shown(value)} at "
                             f"{getter.path(record.pointer)} ({misfit})") from None
            if value is None and field in ("action", "user", "id", "amount"):
                raise Misfit(f"transaction.{field}: {getter.text!r} found nothing at {getter.path(record.pointer)} "
                             "(a required field)")
        return values

    def _value(self, field: str, value: Any) -> Any:
        if field == "action":
            return self.action.word(value)
        if field in ("amount", "balance"):
            return self.money.amount(value)
        if field == "time":
            return self.times.time(value)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise Misfit("expected an id (text or a whole number)")
        text = value if isinstance(value, str) else digits(value)
        if len(text) > NAME_LIMIT:  # as the models bound a game's or a player's id: never copied into findings
            raise Misfit(f"an id is at most {NAME_LIMIT} characters, this one has {len(text):,}")
        return text


def read_transactions(reading: Reading, loaded: LoadedMapping) -> Iterator[Transaction | Record]:
    """Every transaction of one wallet log (problems as records), in its order."""
    kind = loaded.mapping.input

    def transactions(reading: Reading, stream: Stream) -> Iterator[Any]:
        reader = TransactionReader(loaded, reading.name)
        fits = False
        for record in export_records(reading, stream, loaded.mapping):
            if isinstance(record, LoadProblem):
                yield record
                continue
            try:
                yield reader.read(record)
                fits = True
            except Misfit as misfit:
                if not fits:
                    yield reading.fail(record.line, f"the mapping {loaded.name} does not fit this file: {misfit}")
                    return
                yield LoadProblem(reading.name, record.line, str(misfit), code=codes.H008)

    return reading.records({kind: transactions}, lambda name, head: kind)


def add_move(index: WalletIndex, tx: Transaction) -> None:
    """The transaction as a move of its seat's wallet (joined by round and user)."""
    move: SeatMove = {"id": tx.id, "kind": tx.action, "amount": tx.amount}
    if tx.reference is not None:
        move["reference"] = tx.reference
    index.setdefault((tx.round or "", tx.user), []).append(move)


class WalletJoin:
    """Wallet logs joined to the exported games by (game id, player): each seat takes
    its moves; what no seat took is money the history does not show (W010)."""

    def __init__(self) -> None:
        self.moves: WalletIndex = {}
        self.first: dict[tuple[str, str], Transaction] = {}
        self.used: set[tuple[str, str]] = set()
        self.count = 0

    def read(self, reading: Reading, loaded: LoadedMapping) -> Iterator[LoadProblem]:
        """One wallet log's transactions into the join (its problems as they come)."""
        for item in read_transactions(reading, loaded):
            if isinstance(item, Transaction):
                self.add(item)
            elif isinstance(item, LoadProblem):
                yield item

    def add(self, tx: Transaction) -> None:
        add_move(self.moves, tx)
        self.first.setdefault((tx.round or "", tx.user), tx)
        self.count += 1

    def take(self, game: str, player: str) -> list[SeatMove]:
        """The moves of a seat (none: its stakes were never debited, W001)."""
        key = (game, player)
        self.used.add(key)
        return self.moves.get(key, [])

    def unmatched(self) -> list[Transaction]:
        """The first transaction of each (game, player) no seat took, in the log's order."""
        return [self.first[key] for key in self.moves if key not in self.used]
