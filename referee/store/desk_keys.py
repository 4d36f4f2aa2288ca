"""The desk's two derived indexes (schema 0010): a run's clean games by dealer and time
(``dealer_games``), and a game row's finding codes with its time (``game_codes``).

Why kept beside the rows rather than asked of them: the desk's search by dealer walked
every run of the times asked and unpacked each to find the dealer's games (a run holds
several dealers' games, and the walk back could stop only once no run, however long,
could reach the page: 150 runs on the bench's store of 10 million seats), and its search
by code walked every game row back in time until its page was full (a rare code: all of
them). With these, each is one walk of an index in the answer's order, stopped when the
page is full, as a table's or a dealer's game rows are (``ix_games_tbl_time``,
``ix_games_dealer_time``). Both are written in the source's transaction
(:mod:`referee.store.source`), filled for an existing store by the migration (0010), and
compared by ``store verify`` with what the runs and rows they are derived from give (a
row removed from them would hide a game from a search): they are not evidence of their
own, neither digested nor chained.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import schema, tableruns


def codes_select(first_game: int = 0, first_finding: int = 0) -> Any:
    """The ``game_codes`` rows of the game rows from id ``first_game`` on, with the
    findings from id ``first_finding`` on (a source's: both its own ids): a game row's
    codes are those of the findings of its game in its session (the game's own and its
    seats'), once each, as the search by code has always matched them."""
    import sqlalchemy as sa

    g, fi = schema.games, schema.findings
    return (sa.select(g.c.id, fi.c.code, g.c.time_us).distinct()
            .select_from(g.join(fi, sa.and_(fi.c.game == g.c.game, fi.c.session_id == g.c.session_id)))
            .where(g.c.id >= first_game, fi.c.id >= first_finding, g.c.game.is_not(None)))


def codes_from(first_game: int, first_finding: int) -> Any:
    """The INSERT of a source's ``game_codes`` (:func:`codes_select`), run after its rows."""
    return schema.game_codes.insert().from_select(["game_id", "code", "time_us"],
                                                  codes_select(first_game, first_finding))


def unfound(conn: Any, source_id: int) -> Iterator[str]:
    """What of a source's rows and runs the desk's indexes no longer find as stored (a
    row of them removed, changed or added after it was stored), in words for ``store
    verify``."""
    import sqlalchemy as sa

    g, c, r, d = schema.games, schema.game_codes, schema.runs, schema.dealer_games
    first = conn.execute(sa.select(sa.func.min(g.c.id)).where(g.c.source_id == source_id)).scalar()
    if first is not None:
        last = conn.execute(sa.select(sa.func.max(g.c.id)).where(g.c.source_id == source_id)).scalar()
        wanted = {tuple(row) for row in conn.execute(codes_select(int(first)).where(g.c.id <= last, g.c.source_id
                                                                                    == source_id))}
        held = {tuple(row) for row in conn.execute(sa.select(c.c.game_id, c.c.code, c.c.time_us)
                                                   .where(c.c.game_id >= first, c.c.game_id <= last))}
        if wanted != held:
            games = sorted({int(row[0]) for row in wanted ^ held})
            many = len(games) > 1
            yield (f"game row{'s' * many} {', '.join(map(str, games[:5]))}{' ...' if len(games) > 5 else ''} "
                   f"{'are' if many else 'is'} not found by {'their' if many else 'its'} findings' codes as stored "
                   "(game_codes changed after it was stored)")
    query = (sa.select(r.c.id, r.c.games, r.c.names, r.c.layout)
             .where(r.c.source_id == source_id, r.c.games.is_not(None)).order_by(r.c.id))
    for run in conn.execute(query):
        wanted_games = set(tableruns.stored_dealt(run))
        held_games = {tuple(row) for row in conn.execute(sa.select(d.c.run_id, d.c.place, d.c.dealer, d.c.time_us)
                                                         .where(d.c.run_id == run.id))}
        if wanted_games != held_games:
            yield (f"run of clean games row {run.id} is not found by its games' dealers as stored (dealer_games "
                   "changed after it was stored)")
