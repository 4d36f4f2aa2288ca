"""The desk's questions of a store: find games, recall a player's, a table's around a
time, and one game whole (``referee serve`` answers its pages and API with these).

Why here and read-only: the answers are the store's, as ``recall --store`` and ``explain``
give them. Nothing is ruled again here: a game's seats are rebuilt from the stored rows by
the recall's loader (:mod:`referee.store.recall_load`) and explained by ``explain``'s own
functions (:func:`referee.audit.explain_table.explain_seat`, the ruling's words by
:class:`referee.report.ruling.RulingText`); what is owed is the bottom line every reader
states (:mod:`referee.audit.owed`). The searches use the store's indexes (games by id,
table, dealer and time; seats by player; findings by code; runs by time and through
``run_keys``), and read only the games they return.

What is searched: a live table's games (format 2: a ``games`` row, or a game of a run of
clean games). A format-1 round is no game of a table: ``recall --store`` finds those.

Each function takes ``stored``, a :class:`~referee.store.read.Stored` the caller keeps
open (the desk opens one a request: a read transaction held open would see the store as
it was) or a store URL or path, opened for the call and closed after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from ..recall import Recall
from .desk_records import GameDetail, GameHit
from .read import Stored

if TYPE_CHECKING:
    from .desk_detail import Rulings

ZERO = Decimal(0)
#: The most games one search returns.
MAX_LIMIT = 500


@contextmanager
def opened(stored: Stored | str) -> Iterator[Stored]:
    """``stored`` as it is, or the store it names opened for the block."""
    if isinstance(stored, Stored):
        yield stored
        return
    with Stored(stored) as made:
        yield made


def search_games(stored: Stored | str, player: str | None = None, table: str | None = None,
                 dealer: str | None = None, since: datetime | None = None, until: datetime | None = None,
                 game: str | None = None, code: str | None = None, min_owed: Decimal | None = None,
                 limit: int = 50, offset: int = 0) -> list[GameHit]:
    """The games that match every filter given, the newest first (a game without a time
    last): ``player`` sat at it, at ``table``, dealt by ``dealer``, settled at or after
    ``since`` and before ``until`` (a time without zone is UTC), its id ``game``, a finding
    ``code`` in it, at least ``min_owed`` owed (``GameHit.owed``); ``limit`` of them (at
    most :data:`MAX_LIMIT`) after the first ``offset``."""
    from .desk_search import Filters, Search, epoch_us

    filters = Filters(player, table, dealer, epoch_us(since), epoch_us(until), game, code, min_owed)
    limit, offset = max(0, min(limit, MAX_LIMIT)), max(0, offset)
    with opened(stored) as s, s.reading():
        return Search(s, filters).games(offset + limit, offset)


def meant_table(stored: Stored | str, table: str) -> str | None:
    """The stored table ``table`` was meant to be when no table has that name: the one
    that differs only in case, or else by one slip of the hand (``t7``, ``T 7``: T7);
    None when the store has ``table`` itself, or none or several such."""
    import sqlalchemy as sa

    from ..spelling import closest
    from . import schema

    se = schema.sessions
    with opened(stored) as s, s.reading():
        names = [str(n) for n in s.conn.execute(sa.select(se.c.tbl).where(se.c.tbl.is_not(None)).distinct()).scalars()]
    if table in names:
        return None
    return closest(table, names)


def recall_games(stored: Stored | str, player: str, game: str, last: int = 10) -> Recall:
    """The regulators' recall: the player's game ``game`` and the nine (``last - 1``)
    before it, across sessions, as ``recall --store --player P --game G`` gives it (the
    same :class:`~referee.recall.Recall`, rendered by :mod:`referee.report.recall`). A
    RecallError when the player has no such game."""
    from ..recall import Query
    from .recall import recall

    with opened(stored) as s:
        return recall(s, Query(player=player, game=game, last=last))


def table_around(stored: Stored | str, table: str, at: datetime, count: int = 10) -> list[GameHit]:
    """A table's games around ``at``: the ``count`` last at or before it, then the
    ``count`` first after it, in time order."""
    from datetime import timedelta

    from .desk_search import Filters, Search, epoch_us

    count = max(0, min(count, MAX_LIMIT))
    end = epoch_us(at + timedelta(microseconds=1))
    with opened(stored) as s, s.reading():
        # Twice as many records as games asked for: a game written as two records is one game.
        before = one_a_game(Search(s, Filters(table=table, until_us=end)).games(2 * count))[:count]
        after = one_a_game(Search(s, Filters(table=table, since_us=end), ascending=True).games(2 * count))[:count]
    return [*reversed([hit for hit in before if hit.time is not None]), *[hit for hit in after if hit.time is not None]]


def one_a_game(hits: list[GameHit]) -> list[GameHit]:
    """``hits`` with the records of one game in one file made one hit, where its first
    is: a game's seats may come in two records of a log (format 2), and the game is one
    (its page rules every seat of both, as ``explain --store --game`` does). Its players
    are every record's, its codes theirs, its amounts owed their sums; a game stored in
    another file as well stays a hit of its own (its page names that file)."""
    from dataclasses import replace

    merged: dict[tuple[str, str], GameHit] = {}
    for hit in hits:
        key = (hit.game, hit.source)
        kept = merged.get(key)
        if kept is None:
            merged[key] = hit
            continue
        first, then = (kept, hit) if (kept.second, kept.line) <= (hit.second, hit.line) else (hit, kept)
        merged[key] = replace(first, players=tuple(dict.fromkeys((*first.players, *then.players))),
                              codes=tuple(sorted({*first.codes, *then.codes})), owed=first.owed + then.owed,
                              owed_to_player=first.owed_to_player + then.owed_to_player,
                              owed_to_house=first.owed_to_house + then.owed_to_house)
    return list(merged.values())


def game_detail(stored: Stored | str, game_id: str, lang: str = "en", source: str | None = None,
                audience: str = "auditor", memo: Rulings | None = None) -> GameDetail:
    """Game ``game_id`` whole, each seat ruled as ``explain --store --game`` rules it, in
    ``lang`` (``en``, ``fr``), for ``audience`` (``auditor``: codes and digests kept;
    ``player``: the same ruling without them). A game stored in several files: the first
    stored (its first record), or the one named ``source``. A StoreError when the store
    has no such game; a ValueError for a language or an audience that is none of these.
    ``memo``: games whole already made, kept for the next reader (:class:`~referee.store.desk_detail.Rulings`:
    what it keys them by, why they may be kept)."""
    from ..i18n import LANGUAGES
    from .desk_detail import detail

    if lang not in LANGUAGES:
        raise ValueError(f"no language {lang!r}: one of {', '.join(LANGUAGES)}")
    if audience not in ("auditor", "player"):
        raise ValueError(f"no audience {audience!r}: auditor or player")
    with opened(stored) as s, s.reading():
        found: GameDetail = detail(s, game_id, lang, source, audience, memo)
    return found
