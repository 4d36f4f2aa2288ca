"""The desk's questions walk the store's indexes, bounded by the page they show (issue 48's
speed): on SQLite, each statement a search or a game page runs is planned (``EXPLAIN
QUERY PLAN``) with no full scan of a table that grows with the store and no sort of all
the rows a filter matches; and the walks stop early without losing a game (each answer
against the games of the logs themselves). Timing lives in ``bench/desk_speed.py``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from referee.store.desk import game_detail, search_games, table_around
from referee.store.read import Stored

from .conftest import run
from .store_support import simulate

#: The tables that grow with the store: none may be scanned whole by a desk question.
GROWING = ("games", "seats", "runs", "run_keys", "findings", "sessions", "sources", "settlements", "chunks", "reads")
#: Two tables, each two logs a fortnight apart (a game about a minute), faults in some games.
LOGS = [("T1", "2026-11-01T18:00:00", 1), ("T2", "2026-11-01T18:00:00", 2), ("T1", "2026-11-15T18:00:00", 3),
        ("T2", "2026-11-15T18:00:00", 4)]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A SQLite store of the four logs, and every game record of them (table, id, time)."""
    folder = tmp_path_factory.mktemp("plans")
    url = str(folder / "live.db")
    games: list[dict[str, Any]] = []
    for table, start, seed in LOGS:
        log = simulate(folder / f"{table}-{seed}.jsonl", "--seats", "3-6", "--rounds", "400", "--faults", "0.03",
                       "--seed", str(seed), "--table", table, "--start", start, "--format", "jsonl")
        for line in Path(log).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "game" in record and "seats" in record:
                games.append({"table": table, "game": record["game"], "time": _at(record["settled"])})
        code, out = run("check", "--store", url, log, "--quiet")
        assert code == 1, out
    yield url, games


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _plans(url: str, ask: Callable[[Stored], object]) -> list[tuple[str, list[str]]]:
    """Each SELECT ``ask`` ran, with its plan's lines."""
    from sqlalchemy import event

    seen: list[tuple[str, Any]] = []
    with Stored(url) as stored:
        def note(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
            seen.append((statement, params))

        event.listen(stored.engine, "before_cursor_execute", note)
        ask(stored)
        event.remove(stored.engine, "before_cursor_execute", note)
        return [(statement, [str(row[-1]) for row in stored.conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}",
                                                                                    params)])
                for statement, params in dict(seen).items() if statement.lstrip().upper().startswith("SELECT")]


def _bounded(plans: list[tuple[str, list[str]]]) -> None:
    for statement, plan in plans:
        for line in plan:
            scanned = line.split()[1] if line.startswith("SCAN ") else None
            assert scanned not in GROWING, f"a full scan of {scanned}: {statement[:300]}\n{plan}"
            if " LIMIT " in statement:  # a page: walked in order, only ties sorted
                assert line != "USE TEMP B-TREE FOR ORDER BY", f"every match sorted: {statement[:300]}\n{plan}"


HOUR = timedelta(hours=1)
ASKED: list[tuple[str, dict[str, Any]]] = [
    ("a table's hour", {"table": "T1", "since": datetime(2026, 11, 15, 20, tzinfo=UTC),
                        "until": datetime(2026, 11, 15, 21, tzinfo=UTC)}),
    ("a table's newest", {"table": "T2"}),
    ("the newest", {}),
    ("an hour of every table", {"since": datetime(2026, 11, 1, 22, tzinfo=UTC),
                                "until": datetime(2026, 11, 1, 23, tzinfo=UTC)}),
    ("a dealer's", {"dealer": "d-2"}),
    ("a player's", {"player": "p-T1-003"}),
]


@pytest.mark.parametrize(("label", "asked"), ASKED, ids=[a[0] for a in ASKED])
def test_a_search_walks_indexes_and_finds_every_game_of_its_page(live: tuple[str, list[dict[str, Any]]], label: str,
                                                                  asked: dict[str, Any]) -> None:
    url, games = live
    plans = _plans(url, lambda s: search_games(s, limit=51, **asked))
    _bounded(plans)
    hits = search_games(url, limit=40, **asked)
    if "dealer" in asked or "player" in asked:  # not read from the logs here: each hit must be theirs
        assert len(hits) == 40
        assert all(h.dealer == asked["dealer"] if "dealer" in asked else asked["player"] in h.players for h in hits)
        times = [h.time for h in hits if h.time is not None]
        assert len(times) == 40 and times == sorted(times, reverse=True)
        return
    expected = [g for g in games if ("table" not in asked or g["table"] == asked["table"])
                and ("since" not in asked or asked["since"] <= g["time"] < asked["until"])]
    expected.sort(key=lambda g: g["time"], reverse=True)
    assert len(hits) == min(40, len(expected)) > 0
    assert [h.time for h in hits] == [g["time"] for g in expected[:len(hits)]]
    assert {h.game for h in hits} <= {g["game"] for g in expected}


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
