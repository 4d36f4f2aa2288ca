"""A first run's columns (``referee.monitor.stored_columns``, ``valued_columns``: issue 47's
fast first run) against the seats ``reading.seats`` reads and ``valuing.value`` values, one
store a layout: a live table's clean games (format-2 runs), format-1 rounds (their runs),
the games with findings kept as seat rows, and all three in one store with games recorded
again. Seat by seat: every field, every seat's figures and its deal's counts, and the
verdict (``run.judge_table`` against ``run.judge``), so that a seat dropped, moved or
misvalued fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.monitor import output, reading
from referee.monitor.exact import Counted
from referee.monitor.facts import Seat
from referee.monitor.run import judge, judge_table
from referee.monitor.stored_columns import NO, SeatTable, read_table, unpacked
from referee.monitor.valued_columns import value_table
from referee.monitor.valuing import Figures, value
from referee.profiles import kept_profiles
from referee.rules.hands import evaluate
from referee.store.read import Stored

from .conftest import run
from .store_support import simulate


def _checked(url: str, *logs: str) -> None:
    code, out = run("check", "--store", url, *logs, "--quiet")
    assert code in (0, 1), out


def _live(tmp_path: Path, name: str, *more: str) -> str:
    return simulate(tmp_path / f"{name}.jsonl", "--seats", "2-4", "--rounds", "300", "--sessions", "2", "--seed", "21",
                    "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1", *more)


def _rounds(tmp_path: Path, name: str, *more: str) -> str:
    return simulate(tmp_path / f"{name}.jsonl", "--rounds", "400", "--sessions", "2", "--seed", "22", "--format",
                    "jsonl", *more)


def _seat_of(t: SeatTable, i: int, game: dict[int, int]) -> dict[str, Any]:
    """Seat ``i`` of the columns as ``_as_read`` reads a ``Seat``."""
    def name(kind: str) -> str | None:
        at = int(getattr(t, kind)[i])
        return None if at == NO else t.names[kind][at]

    def some(column: str) -> int | None:
        x = int(getattr(t, column)[i])
        return None if x == NO else x

    known = int(t.known[i])
    return {"order": int(t.order[i]), "game": game.setdefault(int(t.game[i]), len(game)),
            "time": int(t.time[i]) if t.timed[i] else None, "table": name("table"), "dealer": name("dealer"),
            "profile": name("profile"), "player": name("player"), "ante": int(t.ante[i]),
            "staked": int(t.staked[i]), "net": int(t.net[i]), "bonus": int(t.bonus[i]), "called": bool(t.called[i]),
            "known": None if known == NO else tuple(unpacked(np.array([known]))[0].tolist()),
            "bonus_value": some("bonus_value"), "deal": bool(t.deal[i]), "player_value": some("player_value"),
            "dealer_value": some("dealer_value"), "paid": int(t.paid[i]) if t.paid_known[i] else None}


def _as_read(s: Seat, game: dict[object, int]) -> dict[str, Any]:
    return {"order": s.order, "game": game.setdefault(s.game, len(game)), "time": s.time_us, "table": s.table,
            "dealer": s.dealer, "profile": s.profile, "player": s.player, "ante": s.ante_u, "staked": s.staked_u,
            "net": s.net_u, "bonus": s.bonus_u, "called": s.called, "known": s.known, "bonus_value": s.bonus_value,
            "deal": s.deal, "player_value": s.player_value, "dealer_value": s.dealer_value, "paid": s.paid_u}


def _same_as_seats(url: str) -> tuple[list[Seat], SeatTable]:
    """The store's columns are its seats, seat by seat and valued alike; the verdicts equal."""
    with Stored(url) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        table = read_table(stored.conn)
        profiles = stored.profiles(stored.sources())
    assert table is not None and len(table) == len(seats)
    games: dict[int, int] = {}
    keys: dict[object, int] = {}
    assert [_seat_of(table, i, games) for i in range(len(table))] == [_as_read(s, keys) for s in seats]
    for i, five in enumerate(table.five.tolist()):  # a Bonus hand read with the cards is theirs
        if five != NO:
            assert five == evaluate(list(seats[i].known or ())).value
    with kept_profiles(profiles):
        value(seats)
        valued = value_table(table)
        for i, s in enumerate(seats):  # each seat's figures, and its deal's counts
            at = int(valued.sit[i])
            assert (None if at < 0 else valued.figures[at]) == s.situation
            assert isinstance(s.situation, Figures | None)
            if isinstance(s.deal_figures, Counted):
                situation = int(valued.situation[i])
                assert situation >= 0 and s.deal
                assert valued.turns[situation].tolist() == list(s.deal_figures.turns)
                assert int(valued.not_qualified[situation]) == s.deal_figures.not_qualified
            else:
                assert s.deal_figures is None
        assert output.to_json(judge_table(table), url, []) == output.to_json(judge(seats), url, [])
    return seats, table


def test_live_tables_runs_read_as_columns_are_the_seats(store_url: str, tmp_path: Path) -> None:
    """Format 2, every game clean (kept in runs): the columns are the seats read one by one."""
    _checked(store_url, _live(tmp_path, "live"))
    seats, _ = _same_as_seats(store_url)
    assert seats and all(s.row < 0 and s.time_us is None for s in seats)  # all in runs


def test_timed_live_tables_read_as_columns_are_the_seats(tmp_path: Path) -> None:
    """Format 2 with times and a table name (the calendar windows' input), one table paying short."""
    url = str(tmp_path / "s.db")
    _checked(url, _live(tmp_path, "a", "--start", "2026-01-01T00:00:00", "--table", "T1"),
             _live(tmp_path, "b", "--start", "2026-02-01T00:00:00", "--table", "T2", "--pay-short", "T2=1"))
    seats, table = _same_as_seats(url)
    assert bool(table.timed.all()) and {s.table for s in seats} == {"T1", "T2"}


def test_format_1_runs_read_as_columns_are_the_seats(tmp_path: Path) -> None:
    """Format-1 rounds kept in runs: a seat a round, no table, dealer or time."""
    url = str(tmp_path / "s.db")
    _checked(url, _rounds(tmp_path, "r", "--profile", "bonus-100", "--bonus", "1"))
    seats, _ = _same_as_seats(url)
    assert seats and all(s.row < 0 and s.dealer is None for s in seats)


def test_seat_rows_and_games_recorded_again_read_as_columns_are_the_seats(tmp_path: Path) -> None:
    """Games with findings kept as seat rows beside runs, of both formats, some recorded
    again (placed at their first seat, their deal tested there only), some seats' pay unsaid."""
    url = str(tmp_path / "s.db")
    _checked(url, _live(tmp_path, "live", "--faults", "0.08"), _rounds(tmp_path, "r", "--faults", "0.08"))
    seats, table = _same_as_seats(url)
    assert any(s.row > 0 for s in seats) and any(s.row < 0 for s in seats)  # rows and runs
    assert any(s.paid_u is None for s in seats)
    orders = table.order.tolist()
    assert orders == sorted(orders)


def test_a_run_whose_cards_cannot_be_valued_at_once_is_read_seat_by_seat(tmp_path: Path) -> None:
    """A run's card changed past 51 after it was stored: no columns (the monitor then reads
    seat by seat, and ``reading`` refuses it in its own words)."""
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    url = str(tmp_path / "s.db")
    _checked(url, _live(tmp_path, "live"))
    made = engine(target(url))
    with made.begin() as conn:
        stored_cards = conn.execute(sa.text("SELECT cards FROM runs ORDER BY id LIMIT 1")).scalar()
        assert stored_cards is not None
        cards = bytearray(stored_cards)
        cards[0] = 60
        conn.execute(sa.text("UPDATE runs SET cards = :c WHERE id = (SELECT MIN(id) FROM runs)"), {"c": bytes(cards)})
    made.dispose()
    with Stored(url) as stored, stored.reading():
        assert read_table(stored.conn) is None
    code, out = run("monitor", "--store", url, "--no-cache")
    assert code == 2 and "store verify" in out


@pytest.mark.parametrize("missing", ["dropped", "misvalued"])
def test_a_seat_dropped_from_the_columns_changes_the_verdict(tmp_path: Path, missing: str) -> None:
    """The comparison above is one that fails: a seat taken out of the columns, or its net
    changed by a millionth, is not the seats' verdict."""
    url = str(tmp_path / "s.db")
    _checked(url, _live(tmp_path, "live"))
    with Stored(url) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        table = read_table(stored.conn)
        profiles = stored.profiles(stored.sources())
    assert table is not None
    if missing == "dropped":
        table = table.take(np.arange(1, len(table)))
    else:
        table.net = table.net.copy()
        table.net[len(table) // 2] += 1
    with kept_profiles(profiles):
        assert output.to_json(judge_table(table), url, []) != output.to_json(judge(seats), url, [])


def test_a_game_met_again_apart_is_placed_at_its_first_seat() -> None:
    """``place`` as ``reading.placed``: seats sorted by their own ids, a game's later seats
    (met again after another game's) placed at its first seat, in their order, and only
    that first seat's deal tested; a game's seats in one run stay together."""
    from referee.monitor.stored_columns import _Builder, place

    b = _Builder()
    games = [b.game(("game", "T1", g)) for g in ("a", "b", "a", "c", "b", "a")]
    n = len(games)
    zeros, ones = np.zeros(n, np.int64), np.ones(n, bool)
    b.add(order=np.array([10, 20, 30, 40, 50, 60]), game=np.array(games), time=zeros, timed=~ones, table=zeros,
          dealer=zeros, profile=zeros, player=np.arange(n), ante=zeros, staked=zeros, net=np.arange(n), bonus=zeros,
          called=ones, known=zeros, bonus_value=zeros, five=zeros, deal=ones, player_value=zeros,
          dealer_value=zeros, paid=zeros, paid_known=ones)
    placed = place(b.table())
    assert placed.net.tolist() == [0, 2, 5, 1, 4, 3]  # a's three seats at 10, b's two at 20, c at 40
    assert placed.order.tolist() == [10, 10, 10, 20, 20, 40]
    assert placed.deal.tolist() == [True, False, False, True, False, True]
