"""A game whole for the desk (:func:`referee.store.desk.game_detail`): its stored seats,
each explained as ``explain --game G --player P`` explains it.

Why not a replay of the stored file (``explain --store``): a replay re-audits the whole
file, seconds for a large one; the desk answers in milliseconds. The seats are rebuilt
from their stored rows by the recall's loader (a row's seat, or a run's seat with its
record read from the kept bytes: :class:`~referee.store.recall_load.Loader`), which gives
each the very audit objects ``explain`` reads (its session, game and seat results), and
explained by :func:`referee.audit.explain_table.explain_seat`: one ruling, however it is
reached (a test compares the words with ``explain --store``'s).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from . import StoreError, schema, tableruns
from .read import Stored
from .recall_load import Loader


def records(stored: Stored, game_id: str) -> list[tuple[int, int, int, list[int]]]:
    """Each stored record of ``game_id``: its source id, its line, its session id and its
    seats' ids, in the store's order (the first stored first)."""
    import sqlalchemy as sa

    g, s, k, r = schema.games, schema.seats, schema.run_keys, schema.runs
    conn = stored.conn
    found: list[tuple[int, int, int, list[int]]] = []
    rows = list(conn.execute(sa.select(g.c.id, g.c.source_id, g.c.line, g.c.session_id).where(g.c.game == game_id)))
    if rows:
        seats: dict[int, list[int]] = {}
        for seat in conn.execute(sa.select(s.c.id, s.c.game_id).where(s.c.game == game_id).order_by(s.c.id)):
            seats.setdefault(int(seat.game_id or 0), []).append(int(seat.id))
        found += [(int(x.source_id), int(x.line), int(x.session_id), seats.get(int(x.id), [])) for x in rows]
    for run in conn.execute(sa.select(r).where(r.c.id.in_(
            sa.select(k.c.run_id).where(k.c.value == game_id, k.c.kind == "game")))):
        packed = tableruns.Packed(run)
        for game in packed.records_of(game_id):
            found.append((packed.source_id, int(packed.lines[game]), packed.session_id,
                          [packed.first_seat + place for place in packed.seats_of(game)]))
    return sorted(found)


def detail(stored: Stored, game_id: str, lang: str, source: str | None, audience: str) -> Any:
    """See :func:`referee.store.desk.game_detail`."""
    from ..i18n import Messages
    from ..profiles import kept_profiles
    from ..recall import SeatDetail
    from .desk_records import GameDetail

    found = records(stored, game_id)
    names = {x.id: x.name for x in stored.sources(ids=[x[0] for x in found])}
    chosen = [x for x in found if source is None or names.get(x[0]) == source]
    if not chosen:
        where = f" in {source}" if source is not None else ""
        raise StoreError(f"store {stored.target.shown}: no game {game_id}{where}")
    source_id, line, _, seat_ids = chosen[0]
    also = tuple(dict.fromkeys(names[x[0]] for x in found if x[0] != source_id))
    loader = Loader(stored)
    views = loader.views(seat_ids)
    details = [v.detail for v in views if isinstance(v.detail, SeatDetail)]
    if not details:
        raise StoreError(f"store {stored.target.shown}: game {game_id} has no seat stored that can be read")
    messages = Messages(lang)
    sources = stored.sources(ids=[source_id])
    with kept_profiles(stored.profiles(sources)):
        seats = tuple(_seat(d, messages, audience) for d in details)
    first = details[0]
    game = first.game
    record = game.record
    when = (record.settled or record.started) if record is not None else None
    return GameDetail(
        game=game_id, table=first.info.table, dealer=record.dealer_id if record is not None else None,
        time=when if when is None or when.tzinfo is not None else when.replace(tzinfo=UTC),
        source=names[source_id], line=line, session=first.info.id, status=game.status,
        cards=_cards(seats), seats=seats, findings=tuple(game.findings), language=messages.language,
        also_in=also, changed=tuple(loader.changed))


def _seat(d: Any, messages: Any, audience: str) -> Any:
    """A seat ruled as ``explain`` rules it (:func:`~referee.audit.explain_table.explain_seat`)."""
    from ..audit.explain import ExplainError
    from ..audit.explain_table import explain_seat
    from ..audit.owed import seat_bottom_line
    from ..report.ruling import RulingText
    from ..report.ruling_json import explanation_json
    from .desk_records import GameSeat

    seat = d.seat
    findings = (*d.game.findings, *seat.findings)
    record = seat.record
    recorded = record.recorded if record is not None else None
    bottom = seat_bottom_line(seat)
    try:
        explained = explain_seat(d.info, d.game, seat)
    except ExplainError as err:
        return GameSeat(seat.player_id, "cancelled" if seat.cancelled else None, None, recorded,
                        None if bottom is None else bottom.paid, None, findings, bottom, None, "", None, str(err))
    ruling = explained.ruling
    return GameSeat(seat.player_id, "cancelled" if ruling.cancelled else ruling.outcome, ruling.net, recorded,
                    explained.bottom.paid, explained.wallet, explained.findings, explained.bottom, explained,
                    RulingText(explained, messages, audience).text(), explanation_json(explained, messages))


def _cards(seats: tuple[Any, ...]) -> dict[str, list[str]] | None:
    """The game's cards by group, as ``explain --format json`` names them (the first ruled
    seat's: a live table's seats share them; with their own two cards each seat's are in
    its ruling)."""
    for seat in seats:
        if seat.json is not None and isinstance(seat.json.get("cards"), dict):
            cards = seat.json["cards"]
            return {group: ([cards[group]] if isinstance(cards[group], str) else list(cards[group] or []))
                    for group in ("player", "flop", "turn", "river", "dealer")}
    return None
