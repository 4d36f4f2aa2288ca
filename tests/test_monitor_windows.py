"""The monitor's calendar windows (issue 47): a segment's day, week and month end at that
segment's own newest game, not the store's; ``--since``/``--until`` read the games of a
span. Timed tables: simulated format-2 records given a time a game."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from referee.monitor import cached
from referee.monitor.cache import Cache, State
from referee.monitor.facts import Seat
from referee.monitor.run import Summed, decide, judge

from .conftest import run
from .store_support import simulate

START = datetime(2026, 1, 1, tzinfo=UTC)
HOUR_US = 3_600_000_000


def _fold(i: int, table: str, time_us: int) -> Seat:
    return Seat(order=i, game=("game", table, i), time_us=time_us, table=table, dealer=None, profile="builtin:vivo",
                player=None, ante_u=1_000_000, staked_u=1_000_000, net_u=-1_000_000, bonus_u=0, called=False,
                known=None, paid_u=-1_000_000)


def _two_tables() -> list[Seat]:
    """T1 dealt a game an hour for 40 days and closed; T2 a game an hour for 40 days more."""
    t0 = int(START.timestamp()) * 1_000_000
    seats = [_fold(i, "T1", t0 + i * HOUR_US) for i in range(40 * 24)]
    seats += [_fold(len(seats) + i, "T2", t0 + (40 * 24 + i) * HOUR_US) for i in range(40 * 24)]
    return seats


def test_a_segments_calendar_windows_end_at_its_own_newest_game() -> None:
    verdict = judge(_two_tables(), kinds=("all", "table"))
    games = {(j.cell.kind, j.cell.segment, j.cell.window): j.cell.games for j in verdict.cells
             if j.cell.basis == "rules"}
    # T1 closed 40 days before the store's newest game: still its last day, week and month
    assert games[("table", "T1", "day")] == 24 and games[("table", "T1", "week")] == 7 * 24
    assert games[("table", "T1", "month")] == 30 * 24
    assert games[("table", "T2", "day")] == 24 and games[("all", "all", "day")] == 24
    assert games[("all", "all", "month")] == 30 * 24  # all's newest is T2's


def test_the_cache_keeps_each_segments_windows_as_the_whole_store_does(tmp_path: Path) -> None:
    """Fed in batches (T1's last games in the first, T2's in later ones): each table's
    windows end at its own newest game, through the cache as over the whole store."""
    seats = _two_tables()
    cache = Cache(tmp_path / "c.sqlite")
    state = State()
    done: list[Seat] = []
    for i, cut in enumerate((700, 1_000, 1_001, 1_500, len(seats))):
        part = seats[len(done):cut]
        done += part
        keys, others = cached.keys_of(part)
        with cache.transaction():
            state = cache.add(state, cached.batch_of(part, keys, others, i + 1, f"c{i}", (len(done), 0)))
            banded, deals, scales = cache.banded(state)
        from_cache = decide(Summed(banded, deals, scales, state.seats, state.games, state.newest, state.paid_unknown),
                            kinds=("all", "table"))
        whole = judge(list(done), kinds=("all", "table"))
        assert [j.cell for j in from_cache.cells] == [j.cell for j in whole.cells], f"after batch {i}"
    cache.close()


def _timed(src: Path, dst: Path) -> dict[str, datetime]:
    """Simulated live tables' log with a time a game, one a minute: T1 from ``START``, T2
    from three days later; each table's last game's time."""
    out = []
    at, table, last = START, "", {}
    for line in src.read_text().splitlines():
        data: dict[str, Any] = json.loads(line)
        if "session" in data:
            table = data["session"]["table"]
            at = START + timedelta(days=3 * (table != "T1"))
        elif "seats" in data:
            data["settled"] = at.isoformat().replace("+00:00", "Z")
            last[table] = at
            at += timedelta(minutes=1)
        out.append(json.dumps(data))
    dst.write_text("\n".join(out) + "\n")
    return last


@pytest.fixture(scope="module")
def timed_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, datetime]]:
    """A store of two timed live tables, and each table's last game's time."""
    where = tmp_path_factory.mktemp("timed")
    log = Path(simulate(where / "t.jsonl", "--seats", "2-3", "--rounds", "1500", "--sessions", "2", "--seed", "5",
                        "--format", "jsonl"))
    last = _timed(log, where / "timed.jsonl")
    url = str(where / "timed.db")
    code, out = run("check", "--store", url, str(where / "timed.jsonl"), "--quiet")
    assert code == 0, out
    return url, last


def _json(url: str, *args: str) -> dict[str, Any]:
    code, out = run("monitor", "--store", url, "--format", "json", "--segment", "all", "--segment", "table", *args)
    assert code in (0, 1), out
    doc: dict[str, Any] = json.loads(out[:out.rindex("}") + 1])
    return doc


def _rules(doc: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(c["segment"], c["value"], c["window"]): c for c in doc["cells"]
            if c["basis"] == "rules" and c["bet"] == "ante+call"}


@pytest.mark.slow
def test_since_and_until_read_the_games_of_a_span(timed_store: tuple[str, dict[str, datetime]]) -> None:
    url, last = timed_store
    whole = _json(url)
    assert whole["since"] is None and whole["until"] is None
    assert datetime.fromisoformat(whole["newest"]) == last["T2"] > last["T1"] + timedelta(days=2)
    until = _json(url, "--until", "2026-01-01T12:00:00Z")
    assert until["newest"] == "2026-01-01T12:00:00Z" == until["until"]  # both ends included
    since = _json(url, "--since", "2026-01-01 12:00:01")  # UTC: it names no offset
    assert since["since"] == "2026-01-01T12:00:01Z" and since["newest"] == whole["newest"]
    assert since["games"] + until["games"] == whole["games"] and since["seats"] + until["seats"] == whole["seats"]
    # T1's day is the games of the day before its own newest game (two days before the
    # store's): what --since reads of T1 from then
    cells = _rules(whole)
    day = _rules(_json(url, "--since", (last["T1"] - timedelta(hours=24) + timedelta(minutes=1)).isoformat()))
    assert cells[("table", "T1", "day")]["games"] == day[("table", "T1", "last 10,000 games")]["games"] > 1000
    assert cells[("table", "T1", "week")]["games"] == cells[("table", "T1", "last 10,000 games")]["games"]
    _, text = run("monitor", "--store", url, "--until", "2026-01-01T12:00:00+01:00", "--segment", "all")
    assert "the games from the first to 2026-01-01T11:00:00Z" in text, text


@pytest.mark.parametrize("args, said", [
    (("--since", "yesterday"), "'yesterday' is not a time (expected ISO 8601"),
    (("--since", "2026-02-01", "--until", "2026-01-01"), "2026-01-01 is before --since 2026-02-01"),
])
def test_a_time_that_is_not_one_is_a_usage_error(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    code, out = run("monitor", "--store", str(tmp_path / "none.db"), *args)
    assert code == 2 and said in out, out
