"""Runs of a live table's clean games (schema 0005): the seats a run keeps read back as the
rows the full audit's results made of them, for every reader of the store.

Why two stores of the same logs: one written as ``check --store`` writes it (the fast
lane's games of JSON Lines logs in runs), one with every game as rows (as before 0005,
the writer told to take the lane's games from their full results); whatever a reader
gets from the first it must get from the second: recall's answers, the monitor's seat
facts, the games a later check compares with, the verdict of ``store verify``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from referee.audit.clean import CleanGame, CleanSeat
from referee.models.common import dump
from referee.report.base import Reporter
from referee.store import codec, migrate, packing, rows, schema
from referee.store.engine import engine, target
from referee.store.read import Stored
from referee.store.writer import StoreSink

from .conftest import SAMPLES, run
from .store_support import drop_database, new_database, postgres_admin, simulate, without_searched
from .test_store import both
from .test_store_read import _live_lines


def _logs(tmp: Path) -> list[str]:
    """Live tables in JSON Lines: seats inline and as seat lines, faults, a bonus profile,
    decimal amounts, times and dealers, keys sorted and spaced; and a format-1 log."""
    return [
        simulate(tmp / "seats.jsonl", "--seats", "3-6", "--rounds", "30", "--seed", "10", "--faults", "0.2",
                 "--format", "jsonl", "--seat-lines", "--sessions", "2"),
        simulate(tmp / "inline.jsonl", "--seats", "1-8", "--rounds", "60", "--seed", "13", "--format", "jsonl"),
        # four a game: a game's seats are written on two lines now and then, a second record of
        # the game that the full audit takes (and a run keeps), and games cancelled (rows)
        simulate(tmp / "four.jsonl", "--seats", "4", "--rounds", "400", "--seed", "19", "--format", "jsonl"),
        simulate(tmp / "four-lines.jsonl", "--seats", "4", "--rounds", "300", "--seed", "21", "--format", "jsonl",
                 "--seat-lines"),
        *_live_lines(tmp),
        simulate(tmp / "rounds.jsonl", "--sessions", "2", "--rounds", "30", "--seed", "14", "--faults", "0.2",
                 "--format", "jsonl"),
        str(SAMPLES / "table.jsonl"),
    ]


def _url(engine_name: str, tmp: Path, name: str, made: list[str]) -> str:
    if engine_name == "sqlite":
        return str(tmp / f"{name}.db")
    url = new_database(postgres_admin())
    made.append(url)
    return url


def _check(url: str, logs: list[str], *args: str, as_rows: bool = False) -> None:
    with pytest.MonkeyPatch.context() as mp:
        if as_rows:  # every game as rows, from its full result: what 0003's writer kept
            mp.setattr(StoreSink, "clean_games_payload", Reporter.clean_games_payload)
            mp.setattr(StoreSink, "game_payload", lambda _, result: rows.game_payload(result))
        code, out = run("check", "--store", url, "--quiet", *args, *logs)
    assert code in (0, 1), out


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stores(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[tuple[str, str, list[str]]]:
    """The same logs in a store as written (runs) and in one of rows only, and the logs."""
    tmp = tmp_path_factory.mktemp("tableruns")
    logs = _logs(tmp)
    made: list[str] = []
    packed, plain = _url(request.param, tmp, "runs", made), _url(request.param, tmp, "rows", made)
    try:
        _check(packed, logs)
        _check(plain, logs, as_rows=True)
        yield packed, plain, logs
    finally:
        for url in made:
            drop_database(postgres_admin(), url)


def _count(url: str, query: Any) -> int:
    made = engine(target(url))
    try:
        with made.connect() as conn:
            return int(conn.execute(query).scalar() or 0)
    finally:
        made.dispose()


def test_the_lanes_games_are_kept_in_runs(stores: tuple[str, str, list[str]]) -> None:
    packed, plain, _ = stores
    r, g, s = schema.runs, schema.games, schema.seats
    in_runs = _count(packed, sa.select(sa.func.sum(r.c.rounds)).where(r.c.games.is_not(None)))
    assert in_runs > 2000
    # second records of games the full audit took are in runs too (all but those with a finding)
    second = sa.select(sa.func.count()).where(g.c.second == 1)
    assert _count(plain, second) > 5 and _count(packed, second) < _count(plain, second) / 2
    assert _count(plain, sa.select(sa.func.count()).where(r.c.games.is_not(None))) == 0
    # every seat is there, in rows or runs, as in the store of rows
    for url in (packed, plain):
        seats = _count(url, sa.select(sa.func.count()).select_from(s)) + _count(
            url, sa.select(sa.func.sum(r.c.rounds)).select_from(r))
        assert seats == _count(url, sa.select(sa.func.sum(schema.sources.c.seats)))
    assert _count(packed, sa.select(sa.func.count()).select_from(g)) < _count(
        plain, sa.select(sa.func.count()).select_from(g))
    assert run("store", "info", packed)[1].splitlines()[1] == run("store", "info", plain)[1].splitlines()[1]


def test_the_monitor_reads_the_same_seats(stores: tuple[str, str, list[str]]) -> None:
    """Every seat fact ``referee monitor`` reads (time, table, dealer, player, stakes,
    nets, the five cards known, the hands, the game and whether its deal is new), seat for
    seat and in the same order; only the stored row it came from differs."""
    from referee.monitor import reading

    packed, plain, _ = stores
    found = []
    for url in (packed, plain):
        with Stored(url) as stored:
            found.append([dataclasses.replace(seat, row=0) for seat in reading.seats(stored.conn)])
    assert len(found[0]) > 1000 and found[0] == found[1]
    assert any(s.time_us is not None and s.dealer is not None and s.bonus_value is not None for s in found[0])
    reports = [run("monitor", "--store", url, "--format", "json", "--no-cache") for url in (packed, plain)]
    assert [code for code, _ in reports] == [0, 0]
    first, second = ({k: v for k, v in json.loads(out).items() if k != "store"} for _, out in reports)
    assert first == second and first["seats"] == len(found[0])


def test_the_monitor_reads_a_store_in_steps_as_a_whole(stores: tuple[str, str, list[str]]) -> None:
    """Its cache reads the seats stored after a mark and up to another (seat rows and runs
    by id): in steps, the seats of the whole read (each game's place and whether its deal
    is new are the cache's to join across steps)."""
    from referee.monitor import reading

    packed, _, _ = stores
    with Stored(packed) as stored:
        whole = reading.seats(stored.conn)
        r, s = schema.runs, schema.seats
        last = (stored.conn.execute(sa.select(sa.func.max(s.c.id))).scalar() or 0,
                stored.conn.execute(sa.select(sa.func.max(r.c.id))).scalar() or 0)
        middle = (last[0] // 2, last[1] // 2)
        steps = reading.seats(stored.conn, (0, 0), middle) + reading.seats(stored.conn, middle, last)
    def facts(seats: list[Any]) -> list[str]:
        return sorted(repr(dataclasses.replace(seat, order=0, deal=False)) for seat in seats)

    assert len(whole) > 1000 and facts(steps) == facts(whole)


def test_a_bounded_read_is_the_newest_games_of_the_whole(store_url: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The desk's Watch reads a segment's newest seats only (``reading.read``'s ``newest``):
    the SQL starts at the cut (the rows from there, the runs that reach it), so it unpacks
    far fewer seats than the table holds; and what it gives is the whole read's newest
    games of the table, each whole, seat for seat (placed and deal-tested alike)."""
    from referee.monitor import reading, window

    logs = [simulate(tmp_path / f"w{seed}.jsonl", "--seats", "7", "--rounds", "60", "--seed", str(seed), "--faults",
                     "0.1", "--table", "W1", "--format", "jsonl") for seed in (31, 32, 33)]
    _check(store_url, [*logs, simulate(tmp_path / "other.jsonl", "--seats", "5", "--rounds", "30", "--table", "W2",
                                       "--format", "jsonl")])
    unpacked = [0]

    def counted(real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            out = real(*args, **kwargs)
            unpacked[0] += len(out)
            return out
        return call

    with Stored(store_url) as stored:
        whole = reading.seats(stored.conn)
        mine = [s for s in whole if s.table == "W1"]
        games = list(dict.fromkeys(s.game for s in mine))
        assert len(games) > 150 and stored.conn.execute(sa.select(sa.func.count()).select_from(schema.runs)).scalar()
        monkeypatch.setattr(reading, "_rows", counted(reading._rows))
        monkeypatch.setattr(reading, "_runs", counted(reading._runs))
        for newest in (40, 300):
            unpacked[0] = 0
            cut = window.newest(stored.conn, ("table", "W1"), newest)
            found, start = cut.seats, cut.start
            assert start > 0 and len(found) >= newest - 7  # the newest seats, less a game cut
            newer = list(dict.fromkeys(s.game for s in found))
            assert newer == games[-len(newer):]  # the newest games, each whole
            assert found == [s for s in mine if s.game in set(newer)]
            assert unpacked[0] < len(mine) / 2, (newest, unpacked[0], len(mine))
        assert window.newest(stored.conn, ("table", "W1"), len(mine)).start == 0  # not cut


def _recalls(logs: list[str]) -> Iterator[list[str]]:
    yield ["--game", "T1-19-000043", "--last", "6"]  # a game on two lines: both records
    yield ["--session", "sim-table-vivo-19-1", "--round", "44", "--last", "9"]
    yield ["--session", "sim-table-vivo-21-1", "--last", "60"]  # seat lines, games on two records among them
    yield ["--game", "T1-13-000031", "--last", "4"]
    yield ["--session", "sim-table-vivo-13-1", "--round", "44", "--last", "9"]
    yield ["--player", "p-1-004", "--last", "30"]
    yield ["--session", "sim-table-vivo-10-2", "--last", "20"]
    yield ["--game", "T2-12-000017", "--format", "json"]
    yield ["--player", "p-2-005", "--at", "2026-11-29T22:40Z", "--last", "6"]
    yield ["--game", "8812344"]
    # games of 3 to 6 seats (seat lines) and of 1 to 8: counted as games, every seat of each
    yield ["--game", "T1-10-000015", "--last", "3"]
    yield ["--session", "sim-table-vivo-13-1", "--player", "p-1-002", "--last", "4"]
    yield ["--session", "sim-table-vivo-13-1", "--round", "30", "--last", "1"]


def test_recall_is_the_same(stores: tuple[str, str, list[str]]) -> None:
    packed, plain, logs = stores
    for query in _recalls(logs):
        from_runs = run("recall", "--store", packed, *query)
        assert from_runs[0] in (0, 1) and "Recall of" in from_runs[1], (query, from_runs)
        for other in (run("recall", "--store", plain, *query), run("recall", *logs, *query)):
            assert (other[0], without_searched(other[1])) == (from_runs[0], without_searched(from_runs[1]))


def test_store_verify_says_intact_of_both(stores: tuple[str, str, list[str]]) -> None:
    packed, plain, _ = stores
    for url in (packed, plain):
        code, out = run("store", "verify", url)
        assert code == 0 and ": intact; chain head " in out, out


def test_a_later_check_finds_the_games_a_run_keeps(store_url: str, tmp_path: Path) -> None:
    """A game kept in a run is compared with its record in a later file (G001, G002, the
    game counts) as if both files were checked in one run."""
    first, second = _live_lines(tmp_path)
    together = json.loads(run("check", "--format", "json", first, second)[1])
    _check(store_url, [first])
    code, out, _ = both("check", "--format", "json", "--store", store_url, second)
    later = [s for s in json.loads(out)["sessions"] if s["file"] == second]
    assert code == 1 and later == [s for s in together["sessions"] if s["file"] == second]
    assert {f["code"] for s in later for f in s["findings"]} >= {"G002"}


def test_one_process_and_workers_keep_the_same_rows(tmp_path: Path) -> None:
    """``--jobs 2`` sends each batch's payload from a worker: the rows (their digests,
    over every value) are those one process writes."""
    logs = _logs(tmp_path)
    digests = []
    for jobs in ("1", "2"):
        url = str(tmp_path / f"jobs{jobs}.db")
        _check(url, logs, "--jobs", jobs)
        made = engine(target(url))
        with made.connect() as conn:
            digests.append(conn.execute(sa.select(schema.sources.c.rows_digest).order_by(schema.sources.c.id))
                           .scalars().all())
        made.dispose()
    assert digests[0] == digests[1]


def test_a_store_written_before_runs_of_games_is_upgraded_and_reads_the_same(tmp_path: Path) -> None:
    """A store at schema 0003 (its games as rows, its runs of rounds digested over the
    columns they had) is upgraded by ``store upgrade``, verified intact, and read as
    before; what is stored after is kept in runs."""
    logs = _logs(tmp_path)
    old = str(tmp_path / "old.db")
    _check(old, logs[:2] + logs[4:], as_rows=True)
    made = engine(target(old))
    with made.begin() as conn:
        from alembic import command

        command.downgrade(migrate._config(conn), "0003")
    made.dispose()
    code, out = run("store", "upgrade", old)
    assert code == 0 and "upgraded from schema version 0003 to" in out, out
    code, out = run("store", "verify", old)
    assert code == 0 and "intact" in out, out
    query = ["--player", "p-1-004", "--last", "30"]
    assert without_searched(run("recall", "--store", old, *query)[1]) == without_searched(
        run("recall", *logs[:2], *logs[4:], *query)[1])
    _check(old, logs[2:4])
    assert _count(old, sa.select(sa.func.count()).where(schema.runs.c.games.is_not(None))) > 0
    assert run("store", "verify", old)[0] == 0


def test_a_clean_game_and_seat_are_the_tuples_the_store_reads() -> None:
    """packing.py reads a clean game's and seat's fields by position (one C call a column)."""
    assert CleanGame._fields[:12] == ("number", "line", "file", "session", "game", "fast", "seats", "dealer",
                                      "shared", "format", "table", "record")
    assert CleanSeat._fields[:10] == ("entry", "player_id", "line", "balance", "recorded_balance", "fast",
                                      "player", "bonus_hand", "source", "place")
    assert packing._GAME_ID((0, 1, 2, 3, "g")) == "g"


def _models(logs: list[str]) -> Iterator[Any]:
    from referee.load.readers.jsonl import records
    from referee.load.records import GameRecord, RoundRecord, SeatRecord
    from referee.models.decode import convert
    from referee.models.rounds import Round
    from referee.models.table import Game, Seat

    for log in logs:
        with open(log, "rb") as fh:
            for record in records(log, fh):
                data = getattr(record, "data", None)
                if isinstance(record, GameRecord) and isinstance(data, dict):
                    seats = data.get("seats") or []
                    yield convert({k: v for k, v in data.items() if k != "seats"}, Game)
                    yield from (convert(seat, Seat) for seat in seats)
                elif isinstance(record, SeatRecord) and isinstance(data, dict):
                    yield convert(data["seat"], Seat)
                elif isinstance(record, RoundRecord):
                    yield convert(data, Round)


@pytest.mark.parametrize("meta", [None, {"shoe": (1, 2)}, {"x": 1.5, "\x00d": "1"}])
def test_a_record_is_written_as_the_codec_writes_it(tmp_path: Path, meta: Any) -> None:
    """codec.model_text: the very text of codec.dumps, for every record's dump of the logs (and
    with free-form data the C encoder would write otherwise)."""
    logs = [*_logs(tmp_path), *(str(p) for p in SAMPLES.glob("*.jsonl"))]
    seen = 0
    for model in _models(logs):
        data = dump(model)
        if meta is not None:
            data["meta"] = meta
            if "wallet" in data:
                data["wallet"][0]["meta"] = meta
        assert codec.model_text(data) == codec.dumps(data)
        seen += 1
    assert seen > 500
    with pytest.raises(TypeError):
        codec.model_text({"amount": Decimal("1"), "odd": object()})


def test_the_migration_is_shipped_and_the_head_known() -> None:
    assert "0005" in {script.revision for script in migrate.scripts().walk_revisions()}
    assert migrate.head() == migrate.HEAD


def _played(log: str, session: str) -> list[tuple[str, list[str | None]]]:
    """A live table's games as ``check`` reports them, in order, each with its seats'
    players (a game's second record, next to its first, is the same game)."""
    doc = json.loads(run("check", "--format", "json", log)[1])
    games: list[tuple[str, list[str | None]]] = []
    for game in next(s for s in doc["sessions"] if s["id"] == session)["games"]:
        players = [seat["player_id"] for seat in game["seats"]]
        if games and games[-1][0] == game["game"]:
            games[-1][1].extend(players)
        else:
            games.append((game["game"], players))
    return games


def _recalled(query: list[str], logs: list[str], *stores: str) -> dict[str, Any]:
    """A recall as JSON, the same (but what was searched) from the files and each store."""
    answers = [run("recall", "--format", "json", *query, *logs),
               *(run("recall", "--format", "json", "--store", url, *query) for url in stores)]
    assert answers[0][0] in (0, 1), (query, answers[0])
    assert len({(code, without_searched(out)) for code, out in answers}) == 1, query
    return dict(json.loads(answers[0][1]))


def test_recall_counts_a_live_tables_games(stores: tuple[str, str, list[str]]) -> None:
    """``--last N`` at a live table is N games, every seat of each: the game asked for
    whole and the N-1 games before it in its session, from the files, a store of runs and a
    store of rows alike (a newcomer's test found it counting seats, cutting games partway);
    a player's last N games are the player's seats in them, one a game."""
    packed, plain, logs = stores
    for log, session in ((logs[0], "sim-table-vivo-10-1"), (logs[1], "sim-table-vivo-13-1")):
        played = _played(log, session)
        assert len(played) >= 30 and max(len(players) for _, players in played) >= 5
        for at, last in ((len(played) // 2, 1), (len(played) // 2, 3), (len(played) - 1, 10), (2, 10)):
            game = played[at][0]
            for query in (["--session", session, "--game", game, "--last", str(last)],
                          ["--session", session, "--game", game] if last == 10 else None):
                if query is None:
                    continue
                [recalled] = _recalled(query, logs, packed, plain)["recalls"]
                window = played[max(at - last + 1, 0):at + 1]
                assert recalled["games"] == len(window) == min(last, at + 1)
                assert [(r["game"], r["player"]) for r in recalled["rounds"]] == [
                    (g, p) for g, players in window for p in players]
                assert [r["player"] for r in recalled["rounds"] if r["target"]] == played[at][1]
        # the last games of the session, the last one the target; a player's last games
        [recalled] = _recalled(["--session", session, "--last", "4"], logs, packed, plain)["recalls"]
        assert [r["game"] for r in recalled["rounds"]] == [g for g, players in played[-4:] for _ in players]
        assert [r["player"] for r in recalled["rounds"] if r["target"]] == played[-1][1]
        player = max({p for _, players in played for p in players if p},
                     key=lambda p: sum(p in players for _, players in played))
        query = ["--session", session, "--player", player, "--last", "6"]
        [recalled] = _recalled(query, logs, packed, plain)["recalls"]
        theirs = [(g, players.count(player)) for g, players in played if player in players][-6:]
        assert recalled["games"] == 6 and [r["game"] for r in recalled["rounds"]] == [
            g for g, seats in theirs for _ in range(seats)]
        assert [r["target"] for r in recalled["rounds"]].count(True) == theirs[-1][1]


def test_recall_of_a_live_table_from_the_store_counts_games_too(store_url: str, tmp_path: Path) -> None:
    """The newcomer's table (2 to 6 seats a game, two sessions, a Bonus): ``--last 1`` is
    every seat of the game, ``--last 2`` two games, the default ten, never a game cut
    partway, as the file gives them; the heading counts games and seats."""
    log = simulate(tmp_path / "a.jsonl", "--seats", "2-6", "--rounds", "300", "--sessions", "2", "--profile",
                   "bonus-100", "--bonus", "1", "--format", "jsonl")
    assert run("check", "--store", store_url, "--quiet", log)[0] in (0, 1)
    session = "sim-table-bonus-100-0-1"
    played = _played(log, session)
    at = next(i for i, (game, _) in enumerate(played) if game.endswith("-000150"))
    for last in (1, 2, 10):
        query = ["--game", played[at][0], "--last", str(last)]
        [recalled] = _recalled(query, [log], store_url)["recalls"]
        window = played[at - last + 1:at + 1]
        seats = sum(len(players) for _, players in window)
        assert recalled["games"] == last and len(recalled["rounds"]) == seats
        assert [r["player"] for r in recalled["rounds"] if r["target"]] == played[at][1]
        text = run("recall", *query, log)[1]
        assert without_searched(text) == without_searched(run("recall", "--store", store_url, *query)[1])
        assert text.startswith(f"Recall of game {played[at][0]}: "
                               + (f"round 150 ({seats} seats)" if last == 1 else f"{last} games ({seats} seats), "))
