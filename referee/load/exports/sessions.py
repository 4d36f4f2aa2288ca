"""The sessions of an export file: which session each game record belongs to.

Why apart from the game builder: a session is what a record says of itself (``session.*``
on the record: its table, currency, id), what the page says once for all its records
(``document.*``: a currency, a session id, opening balances, before or after the records),
and the game's own variant (``game.profile`` through ``words.profile``); a change of any
starts a new session, as format 2's session lines do.
"""

from __future__ import annotations

from typing import Any

from ..records import LineDict, SessionRecord
from .fields import FieldMisfit, field_misfit
from .files import ExportRecord
from .mappings import LoadedMapping
from .normalize import Amount, Misfit, MoneyReader, shown

#: A game whose ``game.profile`` found nothing, in a mapping with no ``session.profile``:
#: its session names this, which no profile is (H005, unless ``--profile`` pins one).
NO_PROFILE = "(game.profile found nothing)"


class SessionMaker:
    """The session records of one export file, in its order (:meth:`opened` at each game)."""

    def __init__(self, loaded: LoadedMapping, name: str, money: MoneyReader, found: set[str]) -> None:
        self.loaded = loaded
        self.name = name
        self.money = money
        #: The builder's keys that found a value (H009 for the rest): ``game.profile`` here.
        self._found = found
        self._session: tuple[Any, ...] | None = None
        self._sessions = 0
        #: The session keys' getters, looked up once (not by name at each record).
        self._keys = [(name, loaded.getters.get(f"session.{name}")) for name in ("id", "table", "currency")]
        self._profile = loaded.getters.get("game.profile")

    def opened(self, record: ExportRecord) -> SessionRecord | None:
        """The session record ``record`` opens, when its session differs from the last
        one's; else None (a function, not a generator: it is asked at every game)."""
        header, data = self.loaded.mapping.session, record.data
        values = []
        for name, getter in self._keys:
            value = getter(data) if getter is not None else None
            if value is None and record.document is not None:  # what the document says once, for all
                value = self._document_value("session" if name == "id" else name, record)
            values.append(None if value is None else str(value))
        profile = (self._profile_of(record) if self._profile is not None else None) or header.profile
        if profile is None and self._profile is not None:  # the game names none, the mapping none for all:
            profile = NO_PROFILE  # never the default; H005 unless --profile pins every session
        key = (values[0], values[1], values[2], profile)
        if key == self._session:
            return None
        self._session = key
        self._sessions += 1
        name = self.name
        session = LineDict()
        session.line = record.line
        session["id"] = values[0] or (name if self._sessions == 1 else f"{name}#{self._sessions}")
        for k, value in (("table", values[1]), ("currency", values[2])):
            if value is not None:
                session[k] = value
        if profile is not None:
            session["profile"] = profile
        if record.document is not None and self.loaded.mapping.document is not None:
            balances = self._opening_balances(record)
            if balances is not None:
                session["opening_balances"] = balances
        session["meta"] = {"export": {"mapping": self.loaded.name, "mapping_sha256": self.loaded.sha256}}
        return SessionRecord(name, record.line, session, self._sessions - 1, format=2)

    def document_complete(self, document: dict[str, Any]) -> bool:
        """Whether ``document`` (a page read so far, its records left out) gives every
        ``document`` expression of the mapping a value: until it does, the records are
        spooled (a page that writes its currency after its records)."""
        return all(getter(document) is not None for key, getter in self.loaded.getters.items()
                   if key.startswith("document.") and not key.endswith((".player", ".amount")))

    def _document_value(self, name: str, record: ExportRecord) -> Any:
        getter = self.loaded.getters.get(f"document.{name}")
        return getter(record.document) if getter is not None else None

    def _opening_balances(self, record: ExportRecord) -> dict[str, Amount] | None:
        """``document.opening_balances``: a map of player to amount, or a list read by
        ``at``/``player``/``amount``; amounts through ``money``. A value that is neither
        is an ``H008`` of the record that opens the session, naming the key."""
        getters = self.loaded.getters
        getter = getters.get("document.opening_balances") or getters.get("document.opening_balances.at")
        if getter is None:
            return None
        found = getter(record.document)
        if found is None:
            return None
        item_player, item_amount = getters.get("document.opening_balances.player"), \
            getters.get("document.opening_balances.amount")
        pairs: list[tuple[Any, Any]]
        if isinstance(found, dict) and item_player is None:
            pairs = list(found.items())
        elif isinstance(found, list) and item_player is not None and item_amount is not None:
            pairs = [(item_player(item), item_amount(item)) for item in found]
        else:
            want = "a list of records (at/player/amount)" if item_player is not None else "a map of player to amount"
            raise FieldMisfit(f"document.opening_balances: {getter.text!r} found {shown(found)} in the document "
                              f"(expected {want})", record.line, path=getter.text)
        balances: dict[str, Amount] = {}
        for player, amount in pairs:
            if isinstance(player, bool) or not isinstance(player, (str, int)):
                raise FieldMisfit(f"document.opening_balances: a player {shown(player)} is not an id",
                                  record.line, path=getter.text)
            try:
                balances[str(player)] = self.money.amount(amount)
            except Misfit as misfit:
                raise FieldMisfit(f"document.opening_balances: {str(player)!r}'s amount {shown(amount)}: {misfit}",
                                  record.line, path=getter.text) from None
        return balances

    def _profile_of(self, record: ExportRecord) -> str | None:
        """``game.profile``: the game's variant, through ``words.profile`` (a word not
        listed is a profile's name or file); None when the mapping has none or the
        record says none (the session's profile then)."""
        getter = self._profile
        value = getter(record.data) if getter is not None else None
        if value is None:
            return None
        assert getter is not None
        self._found.add("game.profile")
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise field_misfit(getter, "game.profile", record, value, "expected a profile's name or a word for one")
        word = str(value)
        return self.loaded.mapping.words.profile.get(word, word)
