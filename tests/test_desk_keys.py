"""The desk's indexes of a run's games by dealer and of a game row's finding codes (schema
0010, issue 48: ``referee.store.desk_keys``): written with each source, filled by the
migration for a store made before it exactly as a check writes them, and compared by
``store verify`` (a row of them removed would hide a game from a search)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from referee.store import migrate
from referee.store.engine import engine, target

from .conftest import run
from .store_support import simulate


def _stored(url: str, folder: Path) -> None:
    """Two simulated tables, faults in some games (rows with findings) and the rest clean (runs)."""
    for table, seed in (("T1", 1), ("T2", 2)):
        log = simulate(folder / f"{table}.jsonl", "--seats", "2-5", "--rounds", "300", "--faults", "0.04", "--seed",
                       str(seed), "--table", table, "--start", "2026-11-01T18:00:00", "--format", "jsonl")
        code, out = run("check", "--store", url, log, "--quiet")
        assert code == 1, out


def _keys(url: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    made = engine(target(url))
    try:
        with made.connect() as conn:
            dealt = [tuple(r) for r in conn.execute(sa.text(
                "SELECT run_id, place, dealer, time_us FROM dealer_games ORDER BY run_id, place"))]
            coded = [tuple(r) for r in conn.execute(sa.text(
                "SELECT game_id, code, time_us FROM game_codes ORDER BY game_id, code"))]
    finally:
        made.dispose()
    return dealt, coded


def _sql(url: str, statement: str) -> None:
    made = engine(target(url))
    with made.begin() as conn:
        conn.execute(sa.text(statement))
    made.dispose()


def test_each_clean_game_and_each_code_of_a_game_row_is_kept(store_url: str, tmp_path: Path) -> None:
    _stored(store_url, tmp_path)
    dealt, coded = _keys(store_url)
    made = engine(target(store_url))
    with made.connect() as conn:
        games = int(conn.execute(sa.text("SELECT sum(games) FROM runs WHERE games IS NOT NULL")).scalar() or 0)
        rows = {int(r[0]) for r in conn.execute(sa.text(
            "SELECT DISTINCT g.id FROM games g JOIN findings f ON f.game = g.game AND f.session_id = g.session_id"))}
    made.dispose()
    assert len(dealt) == games > 500  # every simulated game has a dealer
    assert {str(d) for _, _, d, _ in dealt} >= {"d-1", "d-2"}
    assert {int(str(g)) for g, _, _ in coded} == rows and len(rows) > 10


def test_the_migration_fills_them_as_a_check_writes_them(store_url: str, tmp_path: Path) -> None:
    """A store of 0009 with games in it (made here by going back one step: the tables
    dropped) is upgraded to hold exactly the rows a check writes, and verifies intact."""
    from alembic import command

    _stored(store_url, tmp_path)
    written = _keys(store_url)
    made = engine(target(store_url))
    with made.begin() as conn:
        conn.info["write"] = True
        command.downgrade(migrate._config(conn), "0009")
    with made.connect() as conn:
        assert migrate.current(conn) == "0009" and not sa.inspect(conn).has_table("dealer_games")
    with made.begin() as conn:
        conn.info["write"] = True
        assert migrate.upgrade(conn) == ["0010"]
    made.dispose()
    assert _keys(store_url) == written
    code, out = run("store", "verify", store_url)
    assert code == 0 and "intact" in out, out


def test_verify_names_what_they_no_longer_find(store_url: str, tmp_path: Path) -> None:
    _stored(store_url, tmp_path)
    dealt, coded = _keys(store_url)
    run_id, place = dealt[0][:2]
    _sql(store_url, f"DELETE FROM dealer_games WHERE run_id = {run_id} AND place = {place}")
    game_id, code_ = coded[-1][:2]
    _sql(store_url, f"DELETE FROM game_codes WHERE game_id = {game_id} AND code = '{code_}'")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "2 problems;" in out, out
    assert f"run of clean games row {run_id} is not found by its games' dealers as stored" in out
    assert f"game row {game_id} is not found by its findings' codes as stored" in out
