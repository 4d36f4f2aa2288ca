"""The desk's questions walk the store's indexes, bounded by the page they show (issue 48's
speed): on both engines, each statement a search (a table's hour, a dealer's, a finding
code's...), a table's games around a time or a game page runs is planned with no full
scan of a table that grows with the store and no sort of all the rows a filter matches
(SQLite's ``EXPLAIN QUERY PLAN``; PostgreSQL's ``EXPLAIN``, with sequential scans and
whole-table joins priced out (:data:`PRICED_OUT`), so that a small test store plans as a
large one: what remains is what no index can serve); and
the walks stop early without losing a game (each answer against the games of the logs
themselves). Timing lives in ``bench/desk_speed.py`` and ``bench/desk_queries.py``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from referee.store.desk import game_detail, search_games, table_around
from referee.store.read import Stored

from .conftest import run
from .store_support import drop_database, new_database, postgres_admin, simulate

#: The tables that grow with the store: none may be scanned whole by a desk question.
GROWING = ("games", "seats", "runs", "run_keys", "findings", "sessions", "sources", "settlements", "chunks", "reads",
           "dealer_games", "game_codes", "?")
#: Two tables, each two logs a fortnight apart (a game about a minute), faults in some games.
LOGS = [("T1", "2026-11-01T18:00:00", 1), ("T2", "2026-11-01T18:00:00", 2), ("T1", "2026-11-15T18:00:00", 3),
        ("T2", "2026-11-15T18:00:00", 4)]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A store of the four logs on each engine, and every game record of them (table,
    id, time, dealer)."""
    folder = tmp_path_factory.mktemp("plans")
    admin = postgres_admin() if request.param == "postgresql" else None
    url = str(folder / "live.db") if admin is None else new_database(admin)
    games: list[dict[str, Any]] = []
    try:
        for table, start, seed in LOGS:
            log = simulate(folder / f"{table}-{seed}.jsonl", "--seats", "3-6", "--rounds", "400", "--faults", "0.03",
                           "--seed", str(seed), "--table", table, "--start", start, "--format", "jsonl")
            for line in Path(log).read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if "game" in record and "seats" in record:
                    games.append({"table": table, "game": record["game"], "time": _at(record["settled"]),
                                  "dealer": record.get("dealer_id")})
            code, out = run("check", "--store", url, log, "--quiet")
            assert code == 1, out
        if admin is not None:  # statistics and visibility, as a server's autovacuum keeps them
            import psycopg

            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")
        yield url, games
    finally:
        if admin is not None:
            drop_database(admin, url)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _plans(url: str, ask: Callable[[Stored], object]) -> list[tuple[str, list[str]]]:
    """Each SELECT ``ask`` ran, with its plan's lines: SQLite's as it words them, each
    PostgreSQL node as ``<node type> on <table>`` (:data:`PRICED_OUT`)."""
    from sqlalchemy import event

    seen: list[tuple[str, Any]] = []
    with Stored(url) as stored:
        def note(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
            seen.append((statement, params))

        event.listen(stored.engine, "before_cursor_execute", note)
        ask(stored)
        event.remove(stored.engine, "before_cursor_execute", note)
        asked = [(s, p) for s, p in dict(seen).items() if s.lstrip().upper().startswith("SELECT")]
        conn = stored.conn
        if stored.engine.dialect.name == "sqlite":
            return [(s, [str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {s}", p)])
                    for s, p in asked]
        for setting in PRICED_OUT:
            conn.exec_driver_sql(f"SET {setting} = off")
        try:
            return [(s, _pg_plan(conn, s, p)) for s, p in asked]
        finally:
            for setting in (*PRICED_OUT, "enable_sort"):
                conn.exec_driver_sql(f"RESET {setting}")


#: What PostgreSQL is told to avoid while a test store's plans are read: a table of a few
#: hundred rows is read whole (or held whole for a join; or an index holding every column
#: asked read whole) more cheaply than looked up, as a store of millions is not; and, in
#: a page's statement (``LIMIT``), sorting what it found rather than walking an index in
#: the page's order. What no index can serve is still planned so (priced, not
#: forbidden), and found by :func:`_bounded`.
PRICED_OUT = ("enable_seqscan", "enable_indexonlyscan", "enable_material", "enable_hashjoin", "enable_mergejoin")


def _pg_plan(conn: Any, statement: str, params: Any) -> list[str]:
    page = " LIMIT " in statement
    conn.exec_driver_sql(f"SET enable_sort = {'off' if page else 'on'}")
    return _nodes(conn.exec_driver_sql(f"EXPLAIN (FORMAT JSON) {statement}", params).scalar()[0]["Plan"], page)


def _nodes(node: dict[str, Any], ordered: bool) -> list[str]:
    """A PostgreSQL plan's nodes, depth first: ``Index Scan on games using ix_games_time``,
    ``Sort``...; a scan of a table with no condition on its index (or only that a column
    is not null) is ``Full <node type> on <table>`` unless it is an index walked in its
    order under the page's ``LIMIT`` (``ordered``: stopped when the page is full)."""
    kind = node["Node Type"]
    line = kind + (f" on {node['Relation Name']}" if "Relation Name" in node else "")
    if "Index Name" in node:
        line += f" using {node['Index Name']}"
    table = node.get("Relation Name")
    if kind in ("Bitmap Index Scan", "Bitmap Heap Scan"):  # the heap's rows are those its index scan found
        table = table or "?"
    condition = re.sub(r"\(\w+\.?\w* IS NOT NULL\)|[() ]|AND", "", node.get("Index Cond", node.get("Recheck Cond", "")))
    walked = ordered and kind in ("Index Scan", "Index Only Scan")
    if kind.endswith("Scan") and kind != "Seq Scan" and not condition and not walked:
        line = f"Full {line}"
    passes = kind in ("Limit", "Incremental Sort", "Result")
    return [line, *(below for at, child in enumerate(node.get("Plans", []))
                    for below in _nodes(child, ordered and (passes or (kind == "Nested Loop" and at == 0))))]


def _bounded(plans: list[tuple[str, list[str]]]) -> None:
    """No full scan of a growing table; in a page's statement (``LIMIT``), no sort of every
    row that matches (SQLite may sort the ties of an index's order, PostgreSQL likewise:
    ``Incremental Sort``)."""
    for statement, plan in plans:
        for line in plan:
            words = line.split()
            scanned = words[1] if line.startswith("SCAN ") else words[3] if line.startswith("Seq Scan on ") else \
                words[words.index("on") + 1] if line.startswith("Full ") and "on" in words else \
                "?" if line.startswith("Full ") else None
            assert scanned not in GROWING, f"a full scan of {scanned}: {statement[:300]}\n{plan}"
            if " LIMIT " in statement:  # a page: walked in order, only ties sorted
                assert line not in ("USE TEMP B-TREE FOR ORDER BY", "Sort"), \
                    f"every match sorted: {statement[:300]}\n{plan}"


def _uses(plans: list[tuple[str, list[str]]], index: str) -> bool:
    """Whether a page's statement walks ``index`` (SQLite: ``SEARCH t USING [COVERING] INDEX
    ix``; PostgreSQL: ``Index [Only] Scan on t using ix``)."""
    return any(" LIMIT " in statement and any(line.split(" (")[0].endswith(f" {index}") for line in plan)
               for statement, plan in plans)


HOUR = timedelta(hours=1)
ASKED: list[tuple[str, dict[str, Any]]] = [
    ("a table's hour", {"table": "T1", "since": datetime(2026, 11, 15, 20, tzinfo=UTC),
                        "until": datetime(2026, 11, 15, 21, tzinfo=UTC)}),
    ("a table's newest", {"table": "T2"}),
    ("the newest", {}),
    ("an hour of every table", {"since": datetime(2026, 11, 1, 22, tzinfo=UTC),
                                "until": datetime(2026, 11, 1, 23, tzinfo=UTC)}),
    ("a dealer's", {"dealer": "d-2"}),
    ("a dealer's oldest", {"dealer": "d-3", "ascending": True}),
    ("a dealer's hour", {"dealer": "d-1", "since": datetime(2026, 11, 15, 19, tzinfo=UTC),
                         "until": datetime(2026, 11, 15, 20, tzinfo=UTC)}),
    ("a dealer's at a table", {"dealer": "d-2", "table": "T2"}),
    ("a player's", {"player": "p-T1-003"}),
]


@pytest.mark.parametrize(("label", "asked"), ASKED, ids=[a[0] for a in ASKED])
def test_a_search_walks_indexes_and_finds_every_game_of_its_page(live: tuple[str, list[dict[str, Any]]], label: str,
                                                                  asked: dict[str, Any]) -> None:
    url, games = live
    ascending = asked.pop("ascending", False)
    plans = _plans(url, lambda s: _search(s, ascending, limit=51, **asked))
    _bounded(plans)
    if "dealer" in asked:  # the dealer's clean games in runs: one walk of their index, not every run unpacked
        assert _uses(plans, "ix_dealer_games_time"), plans
    hits = _search(url, ascending, limit=40, **asked)
    if "player" in asked:  # not read from the logs here: each hit must be theirs
        assert len(hits) == 40
        assert all(asked["player"] in h.players for h in hits)
        times = [h.time for h in hits if h.time is not None]
        assert len(times) == 40 and times == sorted(times, reverse=True)
        return
    expected = [g for g in games if ("table" not in asked or g["table"] == asked["table"])
                and ("dealer" not in asked or g["dealer"] == asked["dealer"])
                and ("since" not in asked or asked["since"] <= g["time"] < asked["until"])]
    expected.sort(key=lambda g: g["time"], reverse=not ascending)
    assert len(hits) == min(40, len(expected)) > 0
    assert [h.time for h in hits] == [g["time"] for g in expected[:len(hits)]]
    assert {h.game for h in hits} <= {g["game"] for g in expected}
    if "dealer" in asked:
        assert {h.dealer for h in hits} == {asked["dealer"]}


def _search(where: Any, ascending: bool, **asked: Any) -> list[Any]:
    """A search newest first, or oldest first (as a table's games after a time are read)."""
    if not ascending:
        return search_games(where, **asked)
    from referee.store.desk_search import Filters, Search, epoch_us

    with Stored(where) if isinstance(where, str) else _kept(where) as stored:
        filters = Filters(dealer=asked.get("dealer"), table=asked.get("table"), since_us=epoch_us(asked.get("since")),
                          until_us=epoch_us(asked.get("until")))
        return list(Search(stored, filters, ascending=True).games(asked.get("limit", 50)))


class _kept:
    """An open store as a context that leaves it open."""

    def __init__(self, stored: Stored) -> None:
        self.stored = stored

    def __enter__(self) -> Stored:
        return self.stored

    def __exit__(self, *_: object) -> None:
        return None


def _coded(url: str) -> dict[str, list[tuple[int, int]]]:
    """Each finding code's game rows (time, id), newest first: a game row has a code when
    a finding of its game in its session has it (read whole here, as no search may)."""
    with Stored(url) as stored:
        rows = stored.conn.exec_driver_sql(
            "SELECT DISTINCT f.code, g.time_us, g.id FROM games g JOIN findings f ON f.game = g.game "
            "AND f.session_id = g.session_id WHERE g.game IS NOT NULL").all()
    out: dict[str, list[tuple[int, int]]] = {}
    for code, time_us, game_id in rows:
        out.setdefault(str(code), []).append((int(time_us), int(game_id)))
    return {code: sorted(found, reverse=True) for code, found in out.items()}


def test_a_codes_search_walks_its_index_and_finds_every_game_of_its_page(
        live: tuple[str, list[dict[str, Any]]]) -> None:
    """Every code found in the store, the rarest too: its games newest first, each page
    walked along the codes' index (not every game row back in time)."""
    url, _ = live
    coded = _coded(url)
    assert len(coded) >= 3 and min(len(found) for found in coded.values()) < 40
    for code, found in coded.items():
        plans = _plans(url, lambda s, c=code: search_games(s, code=c, limit=51))  # type: ignore[misc]
        _bounded(plans)
        assert _uses(plans, "ix_game_codes_time"), plans  # not every game row walked back in time
        hits = search_games(url, code=code, limit=40)
        assert [int(h.time.timestamp() * 1_000_000) for h in hits if h.time] == [t for t, _ in found[:40]]
        assert all(code in h.codes for h in hits)
        table = search_games(url, code=code, table="T1", limit=40)
        assert table == [h for h in search_games(url, code=code, limit=500) if h.table == "T1"][:40]


def test_a_tables_games_around_a_time_and_a_game_page_walk_indexes(live: tuple[str, list[dict[str, Any]]]) -> None:
    url, games = live
    at = datetime(2026, 11, 15, 22, 30, tzinfo=UTC)
    _bounded(_plans(url, lambda s: table_around(s, "T2", at)))
    around = table_around(url, "T2", at)
    # A game written as two records of its log is one game around a time (its first record's).
    mine = sorted({g["game"]: g for g in reversed(games) if g["table"] == "T2"}.values(), key=lambda g: g["time"])
    before = [g["time"] for g in mine if g["time"] <= at][-10:]
    after = [g["time"] for g in mine if g["time"] > at][:10]
    assert [h.time for h in around] == before + after
    game = around[0].game
    _bounded(_plans(url, lambda s: game_detail(s, game)))
