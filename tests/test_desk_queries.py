"""The desk's questions of a store (issue 48, ``referee.store.desk``): search, the regulators'
recall, a table around a time and a game whole, on SQLite and PostgreSQL, over a store
``check --store`` built from samples/table.yaml, two providers' exports and a simulated
live table (whose clean games are packed in runs). The answers are those of ``explain
--store`` and ``recall --store``, compared word for word."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from referee.i18n import Messages
from referee.recall import RecallError
from referee.report.recall import render_json
from referee.rules.money import dumps
from referee.store import StoreError
from referee.store.desk import game_detail, one_a_game, recall_games, search_games, table_around
from referee.store.desk_records import GameHit
from referee.store.engine import engine, target
from referee.store.read import Stored

from .conftest import SAMPLES, run
from .store_support import a_store, simulate

TABLE = str(SAMPLES / "table.yaml")
EXPORTS = [("evolution-history", str(SAMPLES / "exports" / "evolution-history.json")),
           ("datafeed-csv", str(SAMPLES / "exports" / "datafeed.csv"))]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def desk_store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One store a module and engine: the sample table, two exports, a simulated table."""
    folder = tmp_path_factory.mktemp("desk")
    for url in a_store(request.param, folder):
        assert run("check", "--store", url, TABLE, "--quiet")[0] == 1
        for mapping, export in EXPORTS:
            code, out = run("check", "--store", url, "--profile", "vivo", "--mapping", mapping, export, "--quiet")
            assert code in (0, 1), out
        log = _timed(simulate(folder / "live.jsonl", "--seats", "2-5", "--rounds", "300", "--faults", "0.05",
                              "--seed", "3", "--format", "jsonl"))
        code, out = run("check", "--store", url, log, "--quiet")
        assert code == 1, out
        yield url


def _timed(log: str) -> str:
    """The simulated log with a time for each game (a minute apart by its number, so
    that a game written twice keeps its time), as a live table's log has."""
    lines = []
    for line in Path(log).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        number = str(record.get("game", "")).rsplit("-", 1)[-1]
        if number.isdigit():  # T1-3-000042: the 42nd game
            start = datetime(2026, 12, 2, 18, 0, tzinfo=UTC) + timedelta(minutes=int(number))
            record["settled"] = start.isoformat().replace("+00:00", "Z")
        lines.append(json.dumps(record, separators=(",", ":")))
    Path(log).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def _clean_game(url: str) -> tuple[str, str]:
    """A clean game of the simulated table (packed in a run) and one of its players."""
    from referee.store.tableruns import Packed

    made = engine(target(url), readonly=True)
    with made.connect() as conn:
        run_row = conn.execute(sa.text("SELECT * FROM runs WHERE games IS NOT NULL ORDER BY id LIMIT 1")).first()
    made.dispose()
    assert run_row is not None
    packed = Packed(run_row._mapping)
    return packed.games[3], packed.seat(packed.seats_of(3)[0], 3).player


def test_search_by_player_finding_and_amount_owed(desk_store: str) -> None:
    hits = search_games(desk_store, player="p-1002")
    assert [h.game for h in hits] == ["8812347", "8812345", "8812344"]  # newest first
    assert hits[0].table == "CH-7" and hits[0].dealer == "d-4" and hits[0].players == ("p-1001", "p-1002")
    assert hits[0].codes == ("P001", "P004", "W002") and hits[0].source.endswith("table.yaml")
    assert (hits[0].owed, hits[0].owed_to_player, hits[0].owed_to_house) == (Decimal(160), Decimal(160), Decimal(0))
    assert hits[2].codes == () and hits[2].owed == 0
    owed = search_games(desk_store, min_owed=Decimal(100))
    assert [h.game for h in owed] == ["8812347"]
    coded = search_games(desk_store, code="W002", limit=500)
    assert "8812347" in [h.game for h in coded] and all("W002" in h.codes for h in coded)
    assert search_games(desk_store, code="W002", player="p-1002", dealer="d-17")[0].game == "8812345"


def test_search_by_table_dealer_time_and_pages(desk_store: str) -> None:
    every = search_games(desk_store, table="T1", limit=500)
    assert len(every) > 300 and all(h.table == "T1" for h in every)
    times = [h.time for h in every if h.time is not None]
    assert times == sorted(times, reverse=True)
    pages = [h for offset in range(0, 60, 20) for h in search_games(desk_store, table="T1", limit=20, offset=offset)]
    assert pages == every[:60]
    assert all(h.dealer == "d-2" for h in search_games(desk_store, dealer="d-2", limit=500))
    since, until = times[40], times[10]
    window = search_games(desk_store, table="T1", since=since, until=until, limit=500)
    assert window and all(since <= h.time < until for h in window if h.time is not None)
    assert search_games(desk_store, table="T1", since=since.replace(tzinfo=None), until=until.replace(tzinfo=None),
                        limit=500) == window  # no zone: UTC


def test_a_clean_game_in_a_run_is_found(desk_store: str) -> None:
    game, player = _clean_game(desk_store)
    [hit] = search_games(desk_store, game=game)
    assert hit.codes == () and hit.owed == 0 and player in hit.players and hit.table == "T1"
    assert game in [h.game for h in search_games(desk_store, player=player, limit=500)]
    assert search_games(desk_store, game=game, code="W002") == []


def test_the_game_page_rules_as_explain_does(desk_store: str) -> None:
    detail = game_detail(desk_store, "8812347", lang="fr")
    assert (detail.table, detail.dealer, detail.status, detail.language) == ("CH-7", "d-4", "settled", "fr")
    assert detail.cards == {"player": ["Ts", "Js"], "flop": ["Qs", "Ks", "3d"], "turn": ["2c"], "river": ["As"],
                            "dealer": ["8h", "8d"]}
    seat = detail.seats[1]
    assert (seat.player_id, seat.outcome, seat.net, seat.paid) == ("p-1002", "win", Decimal(204), Decimal(44))
    assert seat.bottom is not None and seat.bottom.owed == 160 and seat.wallet is not None
    assert [f.code for f in seat.findings] == ["P001", "P004", "W002"]
    code, text = run("explain", "--store", desk_store, "--game", "8812347", "--player", "p-1002", "--lang", "fr")
    assert code == 1 and seat.text == text
    code, out = run("explain", "--store", desk_store, "--game", "8812347", "--format", "json", "--lang", "fr")
    assert [json.loads(dumps(s.json)) for s in detail.seats] == json.loads(out)["explanations"]
    player = game_detail(desk_store, "8812347", lang="en", audience="player").seats[1].text
    assert "P001" not in player and "owed to the player" in player


def test_a_clean_game_is_ruled_as_explain_does(desk_store: str) -> None:
    game, player = _clean_game(desk_store)
    detail = game_detail(desk_store, game)
    seat = next(s for s in detail.seats if s.player_id == player)
    code, text = run("explain", "--store", desk_store, "--game", game, "--player", player)
    assert code == 0 and seat.text == text and seat.findings == ()


def test_a_game_in_two_files(desk_store: str) -> None:
    first = game_detail(desk_store, "T1-5-000003")
    assert first.source.endswith("evolution-history.json") and first.also_in[0].endswith("datafeed.csv")
    other = game_detail(desk_store, "T1-5-000003", source=first.also_in[0])
    assert other.source == first.also_in[0] and [s.net for s in other.seats] == [s.net for s in first.seats]
    with pytest.raises(StoreError, match="no game nope"):
        game_detail(desk_store, "nope")


def test_the_regulators_recall(desk_store: str) -> None:
    game, player = _clean_game(desk_store)
    found = recall_games(desk_store, player, game)
    rows = found.matches[0].rows
    assert rows[-1].game == game and all(v.player == player for v in rows)
    _, out = run("recall", "--store", desk_store, "--player", player, "--game", game, "--format", "json")
    assert json.loads(dumps(render_json(found, Messages("en")))) == json.loads(out)
    with pytest.raises(RecallError):
        recall_games(desk_store, "nobody", game)


def test_a_table_around_a_time(desk_store: str) -> None:
    at = search_games(desk_store, table="T1", limit=500)[100]
    assert at.time is not None
    around = table_around(desk_store, "T1", at.time, count=5)
    times = [h.time for h in around if h.time is not None]
    assert len(around) == len(times) == 10 and times == sorted(times)
    assert sum(1 for t in times if t <= at.time) == 5
    assert at in around
    timed = [h for h in search_games(desk_store, table="T1", limit=500) if h.time is not None]
    oldest = one_a_game(timed[::-1])[:3]  # T1-5-000002 is two records of one file: one game
    assert [h.game for h in oldest] == ["T1-5-000001", "T1-5-000002", "T1-5-000003"]
    assert table_around(desk_store, "T1", datetime(2000, 1, 1, tzinfo=UTC), 3) == oldest


def test_an_open_store_is_reused(desk_store: str) -> None:
    with Stored(desk_store) as stored:
        assert search_games(stored, player="p-1002") == search_games(desk_store, player="p-1002")
        assert game_detail(stored, "8812345").seats[1].player_id == "p-1002"
        assert not stored.conn.closed


def test_a_game_whole_is_kept_for_its_next_reader(desk_store: str) -> None:
    from referee.store.desk_detail import Rulings

    game, _ = _clean_game(desk_store)
    memo = Rulings(size=2)
    with Stored(desk_store) as stored:
        first = game_detail(stored, game, memo=memo)
        assert game_detail(stored, game, memo=memo) is first and (memo.hits, memo.misses) == (1, 1)
        assert first == game_detail(stored, game)  # what the memo gives is what is made without it
        french = game_detail(stored, game, lang="fr", memo=memo)
        assert french is not first and french.language == "fr" and french == game_detail(stored, game, lang="fr")
        row = game_detail(stored, "8812347", memo=memo)  # a game with findings: a row, kept the same way
        assert game_detail(stored, "8812347", memo=memo) is row
        assert len(memo.kept) == 2 and game_detail(stored, game, memo=memo) is not first  # the oldest let go
        two = game_detail(stored, "T1-5-000003", source=None, memo=memo)
        other = game_detail(stored, "T1-5-000003", source=two.also_in[0], memo=memo)
        assert other.source == two.also_in[0] != two.source  # the file asked for is in the key


def test_a_kept_game_whose_record_changed_since_says_so(desk_store: str) -> None:
    """A record changed after it was stored (by hand, in the database) is said on the next
    read of a kept game, and a game that says so is not kept."""
    from referee.store.desk_detail import Rulings

    game, _ = _clean_game(desk_store)
    memo = Rulings()
    kept = game_detail(desk_store, game, memo=memo)
    assert kept.changed == () and game_detail(desk_store, game, memo=memo) is kept
    made = engine(target(desk_store))
    run_id = kept_run = None
    try:
        with made.begin() as conn:
            run_id = conn.execute(sa.text("SELECT run_id FROM run_keys WHERE kind = 'game' AND value = :g"),
                                  {"g": game}).scalar()
            kept_run = conn.execute(sa.text("SELECT time_max_us FROM runs WHERE id = :r"), {"r": run_id}).scalar()
            conn.execute(sa.text("UPDATE runs SET time_max_us = time_max_us + 1 WHERE id = :r"), {"r": run_id})
        again = game_detail(desk_store, game, memo=memo)
        assert again is not kept and any("changed after it was stored" in said for said in again.changed)
        assert game_detail(desk_store, game, memo=memo) is not again  # not kept: said each time
    finally:
        with made.begin() as conn:
            conn.execute(sa.text("UPDATE runs SET time_max_us = :t WHERE id = :r"), {"t": kept_run, "r": run_id})
        made.dispose()
    assert game_detail(desk_store, game, memo=memo).changed == ()


def _split_games(url: str) -> dict[str, list[GameHit]]:
    """The simulated table's games written as two records of its log (the simulator
    writes a game's seats in two records now and then): each game's records, as found."""
    found: dict[str, list[GameHit]] = {}
    for hit in search_games(url, table="T1", limit=500):
        if hit.source.endswith("live.jsonl"):
            found.setdefault(hit.game, []).append(hit)
    return {game: hits for game, hits in found.items() if len(hits) > 1 and all(h.players for h in hits)}


def test_a_game_written_as_two_records_has_every_seat_of_both(desk_store: str) -> None:
    """A game's seats in two records of a log: the game is every seat of both, ruled as
    ``explain --store --game`` rules them (the page gave the first record's seats only)."""
    split = _split_games(desk_store)
    assert len(split) >= 2
    for game, hits in split.items():
        detail = game_detail(desk_store, game)
        assert sorted(s.player_id for s in detail.seats) == sorted(p for h in hits for p in h.players)
        code, out = run("explain", "--store", desk_store, "--game", game, "--format", "json")
        assert code in (0, 1), out
        assert [json.loads(dumps(s.json)) for s in detail.seats] == json.loads(out)["explanations"]


def test_a_game_recorded_again_with_other_cards_says_so_on_each_seat(desk_store: str) -> None:
    """G001 (a second record of the game with other cards; G002, a player seated in both,
    likewise) compares two records: no record's own findings carry it, and ``explain
    --game`` joins it to each seat it concerns; the game's page says it as explain does."""
    [hit, *_] = search_games(desk_store, code="G001", limit=500)  # T1-5-000002 of an export: in two files
    _, out = run("explain", "--store", desk_store, hit.source, "--game", hit.game, "--format", "json")
    detail = game_detail(desk_store, hit.game, source=hit.source)
    assert any(f.code == "G001" for s in detail.seats for f in s.findings), hit
    assert [json.loads(dumps(s.json)) for s in detail.seats] == json.loads(out)["explanations"]
    _, text = run("explain", "--store", desk_store, hit.source, "--game", hit.game)
    assert "\n".join(s.text for s in detail.seats) == text


def test_a_table_around_a_time_lists_a_game_of_two_records_once(desk_store: str) -> None:
    game, hits = next(iter(_split_games(desk_store).items()))
    assert hits[0].time is not None
    around = table_around(desk_store, "T1", hits[0].time, count=5)
    [one] = [h for h in around if h.game == game]
    assert sorted(one.players) == sorted(p for h in hits for p in h.players) and not one.second
    assert len({h.game for h in around}) == len(around) == 10
