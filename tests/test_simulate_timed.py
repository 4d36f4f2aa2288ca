"""``referee simulate --seats ... --start TIME --table NAME`` (issue 47): live tables with
times and a table's name, so that the monitor's calendar windows can be tested."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from referee.simulate_table import GAME_SECONDS, GAP_SECONDS, PAUSE_SECONDS, SHIFT_BREAK

from .conftest import run
from .store_support import simulate


def _lines(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _when(text: str) -> datetime:
    assert text.endswith("Z")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_timed_games_follow_each_other_at_a_plausible_pace_and_deal_the_same_cards(tmp_path: Path) -> None:
    args = ("--seats", "3-5", "--rounds", "150", "--sessions", "2", "--seed", "4", "--format", "jsonl")
    timed = _lines(simulate(tmp_path / "timed.jsonl", *args, "--start", "2026-12-01T18:00:00Z"))
    plain = _lines(simulate(tmp_path / "plain.jsonl", *args))
    # the times come from a generator of their own: without them the log is byte for byte the old one
    assert [{k: v for k, v in r.items() if k not in ("started", "settled")} for r in timed] == plain
    games: dict[str, list[dict[str, Any]]] = {}
    table = ""
    for record in timed:
        if "session" in record:
            table = record["session"]["table"]
            games[table] = []
        else:
            games[table].append(record)
    assert sorted(games) == ["T1", "T2"]  # tables side by side, each from the start
    for played in games.values():
        assert played[0]["started"] == "2026-12-01T18:00:00Z"
        by_round = sorted((g for g in played if "round" in g), key=lambda g: g["round"])  # a second record: no round
        for before, after in itertools.pairwise(by_round):
            lasted = _when(before["settled"]) - _when(before["started"])
            gap = _when(after["started"]) - _when(before["settled"])
            assert timedelta(seconds=GAME_SECONDS[0]) <= lasted <= timedelta(seconds=GAME_SECONDS[1])
            assert timedelta(seconds=GAP_SECONDS[0]) <= gap <= timedelta(seconds=GAP_SECONDS[1] + PAUSE_SECONDS[1])
    code, out = run("check", str(tmp_path / "timed.jsonl"), "--quiet")
    assert code == 0, out  # times are part of a correct log


def test_a_named_tables_sessions_are_its_shifts_one_after_the_other(tmp_path: Path) -> None:
    records = _lines(simulate(tmp_path / "t3.jsonl", "--seats", "2-4", "--rounds", "40", "--sessions", "3",
                              "--seed", "9", "--format", "jsonl", "--start", "2026-12-01T18:00:00",
                              "--table", "T3"))
    headers = [r["session"] for r in records if "session" in r]
    games = [r for r in records if "session" not in r]
    assert [h["table"] for h in headers] == ["T3"] * 3
    assert len({h["id"] for h in headers}) == 3 and all("T3" in h["id"] for h in headers)
    firsts = [g for g in games if "round" in g]
    assert len({g["game"] for g in firsts}) == len(firsts)  # ids unique across shifts
    players = {p for h in headers for p in h["opening_balances"]}
    assert all(p.startswith("p-T3-") for p in players)  # a named table's regulars: apart from another's
    assert games[0]["started"] == "2026-12-01T18:00:00Z"  # no zone: UTC
    shifts = [i for i, r in enumerate(records) if "session" in r]
    for at in shifts[1:]:  # the last game of a shift, then the next shift's first
        last, first = records[at - 1], records[at + 1]
        assert _when(first["started"]) - _when(last["settled"]) >= SHIFT_BREAK


def test_a_timed_store_fills_the_calendar_windows(tmp_path: Path) -> None:
    """~70 s a game: 1,500 games are more than a day, so the day's window holds fewer."""
    url = str(tmp_path / "m.db")
    for name, seed in (("T1", "1"), ("T2", "2")):
        log = simulate(tmp_path / f"{name}.jsonl", "--seats", "2-3", "--rounds", "1500", "--seed", seed,
                       "--format", "jsonl", "--start", "2026-12-01T00:00:00Z", "--table", name)
        code, out = run("check", "--store", url, log, "--quiet")
        assert code == 0, out
    code, out = run("monitor", "--store", url, "--segment", "table", "--format", "json", "--no-cache")
    assert code in (0, 1), out
    doc = json.loads(out)
    assert doc["newest"] is not None and doc["newest"].startswith("2026-12-02")
    cells = {(c["value"], c["bet"], c["window"]): c["games"] for c in doc["cells"]}
    for table in ("T1", "T2"):
        every = cells[(table, "ante+call", "last 10,000 games")]  # the counted games (1% are cancelled)
        assert 1450 < every <= 1500
        assert 1000 < cells[(table, "ante+call", "day")] < every == cells[(table, "ante+call", "week")]


@pytest.mark.parametrize(("args", "said"), [
    (("--start", "2026-12-01T18:00:00Z"), "--start needs --seats"),
    (("--table", "T3"), "--table needs --seats"),
    (("--seats", "3", "--start", "2026-12-01T18:00:00Z", "--export", "datafeed-csv"), "--start does not apply"),
    (("--seats", "3", "--start", "tomorrow"), "expected an ISO 8601 time"),
    (("--seats", "3", "--table", ""), "expected a table's name"),
])
def test_start_and_table_are_refused_where_they_cannot_apply(args: tuple[str, ...], said: str) -> None:
    code, out = run("simulate", "--rounds", "2", *args)
    assert code == 2 and said in out, out
