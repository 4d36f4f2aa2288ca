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

import threading
from dataclasses import replace
from datetime import UTC
from typing import Any, NamedTuple

from ..errors import worded
from . import StoreError, schema, tableruns
from .read import Stored
from .recall_load import Loader


class Found(NamedTuple):
    """A stored record of a game: where (its source, line and session), its seats' ids,
    and the row its digest covers (``kind``: ``games``, its seats' digests beside it;
    ``runs``: the run of clean games that packs it)."""

    source_id: int
    line: int
    session_id: int
    seats: tuple[int, ...]
    kind: str
    row: Any
    seat_digests: tuple[str, ...] = ()

    def place(self) -> tuple[int, int, int, tuple[int, ...]]:
        """Its place in the store: what orders a game's records (the first stored first)."""
        return self.source_id, self.line, self.session_id, self.seats


def records(stored: Stored, game_id: str) -> list[Found]:
    """Each stored record of ``game_id``, in the store's order (the first stored first)."""
    import sqlalchemy as sa

    g, s, k, r = schema.games, schema.seats, schema.run_keys, schema.runs
    conn = stored.conn
    found: list[Found] = []
    rows = list(conn.execute(sa.select(g).where(g.c.game == game_id)))
    if rows:
        seats: dict[int, list[tuple[int, str]]] = {}
        for seat in conn.execute(sa.select(s.c.id, s.c.game_id, s.c.digest).where(s.c.game == game_id)
                                 .order_by(s.c.id)):
            seats.setdefault(int(seat.game_id or 0), []).append((int(seat.id), str(seat.digest)))
        for x in rows:
            own = seats.get(int(x.id), [])
            found.append(Found(int(x.source_id), int(x.line), int(x.session_id), tuple(i for i, _ in own), "games",
                               x, tuple(d for _, d in own)))
    for run in conn.execute(sa.select(r).where(r.c.id.in_(
            sa.select(k.c.run_id).where(k.c.value == game_id, k.c.kind == "game")))):
        packed = tableruns.Packed(run)
        for game in packed.records_of(game_id):
            found.append(Found(packed.source_id, int(packed.lines[game]), packed.session_id,
                               tuple(packed.first_seat + place for place in packed.seats_of(game)), "runs", run))
    return sorted(found, key=Found.place)


class Rulings:
    """Games whole as :func:`detail` made them, kept for the next reader (the desk keeps
    one for its server's life): a floor manager opens a disputed game, its sheet, the
    sheet in the player's language, the API's answer, and again as the case is decided.

    Why it may be kept: a game's page is a pure function of stored records that are
    never changed once stored (each row has its digest and is chained: ``store verify``
    finds a change), the profile they were ruled by (kept with their source), the
    language and the audience; the key holds all of them: the game, each of its
    records' place and its row's digest (a record of the game stored since is another
    key: it is named among the files that also hold it), each source's SHA-256, the
    language, the audience and the file asked for. A page whose records did not match
    their digests when it was made is not kept (it says so each time it is read); one
    kept is given only after its records' rows (a game's row and its seats' digests, or
    its run's row: those read to find it) are checked against their digests again, so a
    row changed since is said. The settlements and the stored bytes it was ruled from
    are not read again (``store verify`` checks them).

    Bounded: the ``size`` pages read last are kept (a game of seven seats in one
    language and view is about 80 KiB, measured: the default, 500, about 40 MiB at most a
    server process; a shift's disputed games are a few dozen)."""

    def __init__(self, size: int = 500) -> None:
        from collections import OrderedDict

        self.size = size
        self.kept: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.lock = threading.Lock()
        #: Pages given from the memo, and made (for the bench and the tests).
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...]) -> Any:
        with self.lock:
            found = self.kept.get(key)
            if found is None:
                self.misses += 1
                return None
            self.kept.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        with self.lock:
            self.kept[key] = value
            self.kept.move_to_end(key)
            while len(self.kept) > self.size:
                self.kept.popitem(last=False)


def detail(stored: Stored, game_id: str, lang: str, source: str | None, audience: str,
           memo: Rulings | None = None) -> Any:
    """See :func:`referee.store.desk.game_detail`."""
    found = records(stored, game_id)
    sources = {x.id: x for x in stored.sources(ids=[x.source_id for x in found])}
    chosen = [x for x in found if source is None or sources[x.source_id].name == source]
    if not chosen:
        if source is not None:
            raise worded(StoreError, "no game {game} in {source}", f"store {stored.target.shown}: ", game=game_id[:80],
                         source=source)
        raise worded(StoreError, "no game {game}", f"store {stored.target.shown}: ", game=game_id[:80])
    # Every record of the game in the file it is read from, as explain --store --game
    # reads that file: a game's seats may come in two records of a log (format 2).
    chosen = [x for x in chosen if x.source_id == chosen[0].source_id]
    if memo is None:
        return _made(stored, game_id, lang, audience, found, chosen, sources)
    key = (game_id, source, lang, audience, tuple((*x.place(), x.row.digest) for x in found),
           tuple(sorted((x.id, x.sha256) for x in sources.values())))
    kept = memo.get(key)
    if kept is not None and _intact(stored, found):
        return kept
    made = _made(stored, game_id, lang, audience, found, chosen, sources)
    if not made.changed:
        memo.put(key, made)
    return made


def _intact(stored: Stored, found: list[Found]) -> bool:
    """Whether each record's row (a game's with its seats' digests, or its run's) still
    matches its digest."""
    loader = Loader(stored)
    for x in found:
        loader.intact(x.kind, x.row, x.seat_digests if x.kind == "games" else None)
    return not loader.changed


def _made(stored: Stored, game_id: str, lang: str, audience: str, found: list[Found], chosen: list[Found],
          sources: dict[int, Any]) -> Any:
    """The game whole, its seats ruled (:func:`detail` without the memo): the seats of
    every record ``chosen`` (those of one file, the first stored first), as ``explain
    --store --game`` rules every seat of every record of the game in the file it reads."""
    from ..i18n import Messages
    from ..profiles import kept_profiles
    from ..recall import SeatDetail
    from .desk_records import GameDetail

    first = chosen[0]
    also = tuple(dict.fromkeys(sources[x.source_id].name for x in found if x.source_id != first.source_id))
    loader = Loader(stored)
    views = loader.views([seat for x in chosen for seat in x.seats])
    details = [v.detail for v in views if isinstance(v.detail, SeatDetail)]
    if not details:
        raise worded(StoreError, "game {game} has no seat stored that can be read", f"store {stored.target.shown}: ",
                     game=game_id)
    messages = Messages(lang)
    across = _across(stored, game_id, first.source_id)
    with kept_profiles(stored.profiles([sources[first.source_id]])):
        seats = tuple(_seat(d, messages, audience, tuple(f for f in across if f.session == d.info.id
                                                          and f.player in (None, d.seat.player_id)))
                      for d in details)
    head = details[0]
    game = head.game
    record = game.record
    when = (record.settled or record.started) if record is not None else None
    return GameDetail(
        game=game_id, table=head.info.table, dealer=record.dealer_id if record is not None else None,
        time=when if when is None or when.tzinfo is not None else when.replace(tzinfo=UTC),
        source=sources[first.source_id].name, line=first.line, session=head.info.id, status=game.status,
        cards=_cards(seats), seats=seats, findings=tuple(game.findings), language=messages.language,
        also_in=also, changed=tuple(loader.changed))


def _across(stored: Stored, game_id: str, source_id: int) -> list[Any]:
    """The findings that compare two records of the game in its file (``G001`` other
    cards, ``G002`` a player seated in both), as ``explain --game`` joins them to each
    seat they concern: no record's own findings carry them (``check`` makes them from
    every game it sees); the store keeps them among its file's findings, by game
    (``ix_findings_game``)."""
    import sqlalchemy as sa

    from ..audit.results import Finding
    from ..models import codes

    f = schema.findings
    rows = stored.conn.execute(sa.select(f).where(f.c.game == game_id, f.c.code.in_((codes.G001, codes.G002)),
                                                  f.c.source_id == source_id).order_by(f.c.id))
    return [Finding(x.code, f"{x.message}, at line {x.line}", x.file, int(x.line), x.round, x.field, None, None,
                    x.session, game=x.game, player=x.player) for x in rows]


def _seat(d: Any, messages: Any, audience: str, across: tuple[Any, ...] = ()) -> Any:
    """A seat ruled as ``explain`` rules it (:func:`~referee.audit.explain_table.explain_seat`),
    with the findings comparing two records of its game that concern it (``across``)."""
    from ..audit.explain import ExplainError
    from ..audit.explain_table import explain_seat
    from ..audit.owed import seat_bottom_line
    from ..report.ruling import RulingText
    from .desk_records import GameSeat

    seat = d.seat
    findings = (*d.game.findings, *seat.findings, *across)
    record = seat.record
    recorded = record.recorded if record is not None else None
    bottom = seat_bottom_line(seat)
    try:
        explained = explain_seat(d.info, d.game, seat)
    except ExplainError as err:
        return GameSeat(seat.player_id, "cancelled" if seat.cancelled else None, None, recorded,
                        None if bottom is None else bottom.paid, None, findings, bottom, None, "", str(err),
                        messages.language)
    if across:
        explained = replace(explained, findings=explained.findings + across)
    ruling = explained.ruling
    return GameSeat(seat.player_id, "cancelled" if ruling.cancelled else ruling.outcome, ruling.net, recorded,
                    explained.bottom.paid, explained.wallet, explained.findings, explained.bottom, explained,
                    RulingText(explained, messages, audience).text(), None, messages.language)


def _cards(seats: tuple[Any, ...]) -> dict[str, list[str]] | None:
    """The game's cards by group, as ``explain --format json`` names them (the first ruled
    seat's: a live table's seats share them; with their own two cards each seat's are in
    its ruling); None when no seat was ruled but void."""
    for seat in seats:
        if seat.explanation is None or seat.explanation.ruling.outcome == "void":
            continue
        c = seat.explanation.ruling.cards

        def names(group: Any) -> list[str]:
            return [str(x) if x is not None else "??" for x in group]

        return {"player": names(c.player), "flop": names(c.flop), "turn": [] if c.turn is None else [str(c.turn)],
                "river": [] if c.river is None else [str(c.river)], "dealer": names(c.dealer)}
    return None
