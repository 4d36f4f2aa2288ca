"""What the desk reads, in the shapes its API answers and its pages draw.

Each function asks the store (:mod:`referee.store.desk`: the games found, recalled, and
one game whole as ``explain`` rules it) and logs each player whose records it read
(:mod:`referee.store.access`), then says the answer in the API's shapes
(:mod:`referee.desk.shapes`); the pages draw the same answers (:mod:`referee.desk.drawn`).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field

from ..i18n import Messages
from ..rules.money import fmt, signed
from ..store import StoreError
from .backend import Backend
from .context import Refused, Who
from .shapes import FindingOut, GameOut, GameRow, GamesOut, SeatOut

MAX_ID = 200


class Filters(BaseModel):
    """A search's filters (every one given must match); times are ISO 8601 (UTC when no zone is given)."""

    player: str | None = Field(default=None, max_length=MAX_ID)
    table: str | None = Field(default=None, max_length=MAX_ID)
    dealer: str | None = Field(default=None, max_length=MAX_ID)
    since: datetime | None = None
    until: datetime | None = None
    game: str | None = Field(default=None, max_length=MAX_ID)
    code: str | None = Field(default=None, max_length=16)
    #: At least this much owed (to the player or to the house), an exact decimal.
    min_owed: Decimal | None = Field(default=None, ge=0, max_digits=30, decimal_places=10)
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=1_000_000)

    def given(self) -> bool:
        return any(v not in (None, "") for k, v in self.model_dump().items() if k not in ("limit", "offset"))


def _none_if_blank(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


def search(backend: Backend, who: Who, f: Filters) -> GamesOut:
    """The games matching ``f``, newest first; each player listed is a read logged."""
    from ..store.desk import meant_table, one_a_game, search_games

    table = _none_if_blank(f.table)
    meant: dict[str, str] = {}
    with backend.stored(who.unit) as stored, backend.refusing():
        hits = search_games(stored, player=_none_if_blank(f.player), table=table,
                            dealer=_none_if_blank(f.dealer), since=f.since, until=f.until,
                            game=_none_if_blank(f.game), code=_none_if_blank(f.code), min_owed=f.min_owed,
                            limit=f.limit + 1, offset=f.offset)
        shown = one_a_game(hits[:f.limit])
        marked = _with_cases(stored, [h.game for h in shown])
        if not hits and table is not None and (found := meant_table(stored, table)) is not None:
            meant["table"] = found
    rows = [row(h, h.game in marked) for h in shown]
    backend.log(who.name, "search", [p for r in rows for p in r.players], who.unit)
    return GamesOut(games=rows, more=len(hits) > f.limit, did_you_mean=meant)


def around(backend: Backend, who: Who, table: str, at: datetime) -> GamesOut:
    """A table's games around a time: the ten before (and at) it, then the ten after."""
    from ..store.desk import table_around

    with backend.stored(who.unit) as stored, backend.refusing():
        hits = table_around(stored, table, at)
        marked = _with_cases(stored, [h.game for h in hits])
    rows = [row(h, h.game in marked) for h in hits]
    backend.log(who.name, "table", [p for r in rows for p in r.players], who.unit)
    return GamesOut(games=rows)


def recall(backend: Backend, who: Who, player: str, game: str) -> GamesOut:
    """The regulators' recall: the player's game and the nine before it (oldest first)."""
    from ..recall import RecallError
    from ..store.desk import recall_games

    with backend.stored(who.unit) as stored:
        try:
            found = recall_games(stored, player, game)
        except (RecallError, StoreError) as err:
            raise Refused.of(404, err) from None
        views = [view for match in found.matches for view in match.rows]
        marked = _with_cases(stored, [str(view.game) for view in views if view.game])
    rows = [GameRow(game_id=str(view.game or view.number or "?"), table=None, dealer=None, time=_time(view.time),
                    players=[view.player or player], codes=sorted({f.code for f in view.findings}), owed=_owed(view),
                    cases=bool(view.game) and str(view.game) in marked, decision=view.decision,
                    net=None if view.ruling is None else signed(view.ruling.net), balance=fmt(view.balance))
            for view in views]
    backend.log(who.name, "recall", [player], who.unit)
    return GamesOut(games=rows, recall=True)


def _owed(view: Any) -> str | None:
    """What a recalled seat is owed (the rules' net less what was paid: the wallet's where
    it has one, else the record's); None when it is not ruled, paid as ruled, or unsaid."""
    if view.ruling is None:
        return None
    paid = view.wallet if view.wallet is not None else getattr(view.recorded, "net", None)
    if paid is None or view.ruling.net == paid:
        return None
    return fmt(abs(view.ruling.net - paid))


def row(hit: Any, cases: bool = False) -> GameRow:
    return GameRow(game_id=hit.game, table=hit.table, dealer=hit.dealer, time=_time(hit.time),
                   players=list(hit.players), codes=list(hit.codes), owed=fmt(hit.owed) if hit.owed else None,
                   cases=cases)


def _with_cases(stored: Any, games: list[str]) -> set[str]:
    """Which of ``games`` have a case, read in the page's own transaction (one query, by
    the cases' index ``ix_cases_game``)."""
    from ..store.cases import games_with_cases

    return games_with_cases(stored.conn, games) if games else set()


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def detail(backend: Backend, who: Who, game_id: str, lang: str, audience: str = "auditor") -> Any:
    """Game ``game_id`` whole, as ``explain`` rules each seat (404 when the store has no
    such game); a read of each of its players' records, logged."""
    return detail_and_cases(backend, who, game_id, lang, audience, cases=False)[0]


def detail_and_cases(backend: Backend, who: Who, game_id: str, lang: str, audience: str = "auditor",
                     cases: bool = True) -> tuple[Any, list[Any]]:
    """:func:`detail`, and the cases opened on the game (oldest first), read in the
    page's one transaction (its read logged as the game's)."""
    from ..store.cases import list_cases
    from ..store.desk import game_detail

    with backend.stored(who.unit) as stored:
        try:
            found = game_detail(stored, game_id, lang, audience=audience, memo=backend.rulings)
        except StoreError as err:
            raise Refused.of(404, err) from None
        opened = list(reversed(list_cases(stored.conn, game=found.game))) if cases else []
    backend.log(who.name, "game", [seat.player_id for seat in found.seats], who.unit)
    return found, opened


def game(backend: Backend, who: Who, game_id: str, lang: str) -> GameOut:
    """A game for the API: each seat's player, outcome, nets, wallet, findings and ruling."""
    d = detail(backend, who, game_id, lang)
    m = Messages(d.language)
    return GameOut(game_id=d.game, table=d.table, dealer=d.dealer, time=_time(d.time), source=d.source,
                   lang=d.language, seats=[seat_out(s, m) for s in d.seats],
                   findings=[finding_out(f, m) for f in d.findings])


def seat_out(seat: Any, m: Messages) -> SeatOut:
    recorded = None if seat.recorded is None or seat.recorded.net is None else signed(seat.recorded.net)
    wallet = None
    if seat.wallet is not None:
        wallet = signed(seat.wallet.credits + seat.wallet.refunds - seat.wallet.debits)
    owed = None if seat.bottom is None or seat.bottom.paid is None else signed(seat.bottom.owed)
    return SeatOut(player_id=seat.player_id, outcome=seat.outcome, net=None if seat.net is None else signed(seat.net),
                   recorded=recorded, wallet=wallet, owed=owed, findings=[finding_out(f, m) for f in seat.findings],
                   ruling=seat.text.splitlines() if seat.text else ([seat.problem] if seat.problem else []))


def finding_out(f: Any, m: Messages, player: bool = False) -> FindingOut:
    from ..report.ruling_words import finding_words

    words = finding_words(f.code, f.field, f.recorded, f.expected, f.message, m, player=player)
    return FindingOut(code=f.code, severity=f.severity, message=words)
