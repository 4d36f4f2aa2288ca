"""The monitor's cache gives the report the whole store gives (``monitor.cache``): fed the
same seats in batches, at every step, whatever the batches; and through the command, on a
store that grows source by source, on both engines."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.monitor import cached, output
from referee.monitor.cache import Cache, State
from referee.monitor.cells import DAY_US
from referee.monitor.facts import Seat
from referee.monitor.run import Summed, decide, judge
from referee.rules.hands import evaluate

from .conftest import run
from .store_support import simulate

KNOWNS = ((48, 49, 20, 29, 50), (0, 5, 20, 29, 50), (12, 13, 40, 41, 7), (3, 17, 22, 35, 44))
PROFILES = ("builtin:vivo", "builtin:bonus-100")


def _seats(games: int, seed: int) -> list[Seat]:
    """``games`` games of one to three seats: two tables, three dealers, five players, two
    profiles, Antes of 1 and 10, folds and calls in four situations, Bonus stakes, every
    first seat's deal, times over 60 days (a tenth of the games without one), and what each seat was paid (the
    rules' net, an Ante short, or nothing said: the paid basis)."""
    rng = random.Random(seed)
    paying = random.Random(seed + 1)  # what each seat was paid: none said, the rules' net, or an Ante short
    out: list[Seat] = []
    start = 1_700_000_000_000_000
    for g in range(games):
        table, profile = rng.choice(("T1", "T2")), rng.choice(PROFILES)
        time_us = None if rng.random() < 0.1 else start + g * (60 * DAY_US // games)
        dealer = rng.choice(("d1", "d2", "d3"))
        for k in range(rng.randint(1, 3)):
            known = rng.choice(KNOWNS)
            called = rng.random() < 0.7
            ante = rng.choice((1_000_000, 10_000_000))
            net = rng.choice((-3, -1, 1, 2, 3, 7)) * ante if called else -ante
            bonus = ante if profile.endswith("bonus-100") and rng.random() < 0.5 else 0
            cards = [*known, *rng.sample([c for c in range(52) if c not in known], 4)]
            out.append(Seat(
                order=len(out) + 1, game=("game", table, f"g{g}"), time_us=time_us, table=table, dealer=dealer,
                profile=profile, player=f"p{rng.randint(1, 5)}", ante_u=ante,
                staked_u=ante * (3 if called else 1) + bonus, net_u=net, bonus_u=bonus, called=called, known=known,
                bonus_value=evaluate(list(known)).value if bonus else None, deal=k == 0,
                player_value=evaluate(cards[:7]).value, dealer_value=evaluate([*cards[2:5], *cards[5:9]]).value,
                row=len(out) + 1, paid_u=paying.choice((None, net, net, net - ante if net > 0 else net))))
    return out


def _split(seats: list[Seat], cuts: list[int]) -> list[list[Seat]]:
    """``seats`` in batches ending at the games ``cuts`` (a game is never split)."""
    out, start = [], 0
    games = [i for i, s in enumerate(seats) if i == 0 or s.game != seats[i - 1].game]
    for cut in [*cuts, len(games)]:
        end = games[cut] if cut < len(games) else len(seats)
        out.append(seats[start:end])
        start = end
    return [b for b in out if b]


def _report(summed: Summed) -> str:
    return output.to_json(decide(summed), "store")


@pytest.mark.slow
def test_the_cache_fed_in_batches_gives_the_whole_stores_report_at_every_step(tmp_path: Path) -> None:
    seats = _seats(12_500, seed=3)  # past the 10,000-game edge of 'all' and of each table
    cache = Cache(tmp_path / "c.sqlite")
    state = State()
    done: list[Seat] = []
    # a first batch past the 1,000-game edge, small ones moving games one by one, a large one
    for i, part in enumerate(_split(seats, [1_200, 1_201, 1_260, 2_000, 11_000, 11_003])):
        done += part
        keys, others = cached.keys_of(part)
        with cache.transaction():
            state = cache.add(state, cached.batch_of(part, keys, others, i + 1, f"c{i}", (len(done), 0)))
            banded, deals, scales = cache.banded(state)
        from_cache = _report(Summed(banded, deals, scales, state.seats, state.games, state.newest, state.paid_unknown))
        whole = output.to_json(judge(list(done)), "store")
        assert from_cache == whole, f"after batch {i}"
    doc = json.loads(whole)
    windows = {(c["segment"], c["value"], c["window"]): c["games"] for c in doc["cells"]
               if c["bet"] == "ante+call" and c["basis"] == "rules"}
    assert windows[("all", "all", "last 10,000 games")] == 10_000 and windows[("all", "all", "day")] < 300
    assert any(c["z"] is not None for c in doc["cells"]) and any(t["p"] is not None for t in doc["deal_tests"])
    cache.close()


def test_games_past_every_window_are_dropped_and_the_bands_stay_whole(tmp_path: Path) -> None:
    seats = _seats(2_500, seed=8)
    cache = Cache(tmp_path / "c.sqlite")
    state = State()
    for i, part in enumerate(_split(seats, [1_000, 2_400])):
        keys, others = cached.keys_of(part)
        with cache.transaction():
            state = cache.add(state, cached.batch_of(part, keys, others, i + 1, f"c{i}", (0, 0)))
    kept = cache.db.execute("SELECT count(*) FROM games JOIN segments ON id = sid WHERE seq = 'all'").fetchone()[0]
    # every game is among the 100,000 newest: none dropped; their count is the segment's
    assert kept == cache.db.execute("SELECT n FROM segments WHERE seq = 'all'").fetchone()[0] == 2_500
    with cache.transaction():
        banded, deals, scales = cache.banded(state)
    assert _report(Summed(banded, deals, scales, state.seats, state.games, state.newest,
                          state.paid_unknown)) == output.to_json(judge(seats), "store")
    cache.close()


def _grow(url: str, tmp_path: Path, seed: int) -> None:
    log = simulate(tmp_path / f"t{seed}.jsonl", "--seats", "2-4", "--rounds", "700", "--sessions", "2", "--seed",
                   str(seed), "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1")
    code, out = run("check", "--store", url, log, "--quiet")
    assert code == 0, out


@pytest.mark.slow
def test_monitor_through_its_cache_reports_what_the_whole_store_does(store_url: str, tmp_path: Path) -> None:
    cache = str(tmp_path / "monitor.sqlite")
    for seed in (1, 2, 3):
        _grow(store_url, tmp_path, seed)
        for fmt in ("json", "text", "github"):
            fast = run("monitor", "--store", store_url, "--cache", cache, "--format", fmt)
            whole = run("monitor", "--store", store_url, "--no-cache", "--format", fmt)
            assert fast == whole, (seed, fmt)
    assert json.loads(fast_json(store_url, cache))["games"] > 4_000


def fast_json(url: str, cache: str) -> str:
    code, out = run("monitor", "--store", url, "--cache", cache, "--format", "json")
    assert code in (0, 1), out
    return out


@pytest.mark.slow
def test_a_cache_of_another_store_or_of_a_game_stored_again_starts_again(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    cache = str(tmp_path / "monitor.sqlite")
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    _grow(a, tmp_path, 4)
    _grow(b, tmp_path, 5)
    assert fast_json(a, cache) == run("monitor", "--store", a, "--no-cache", "--format", "json")[1]
    assert fast_json(b, cache) == run("monitor", "--store", b, "--no-cache", "--format", "json")[1]
    # the same games again in a second file: their ids seen before, the cache reads all again
    log = tmp_path / "t4.jsonl"
    again = tmp_path / "again.jsonl"
    again.write_bytes(log.read_bytes() + b"\n")
    code, _ = run("check", "--store", a, str(again), "--quiet")
    assert code in (0, 1)
    whole = run("monitor", "--store", a, "--no-cache", "--format", "json")[1]
    assert fast_json(a, cache) == whole
    # a new cache read a source a step: the second source's games come again, and the
    # cache reads the whole store at once (not step after step, for ever)
    monkeypatch.setattr(cached, "STEP_SEATS", 1)
    assert fast_json(a, str(tmp_path / "new.sqlite")) == whole


def test_an_unusable_cache_is_said_and_the_report_is_the_same(tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    _grow(store, tmp_path, 6)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, out = run("monitor", "--store", store, "--cache", str(folder), "--no-cache")
    assert code == 2 and "--cache FILE and --no-cache: give one of them" in out
    code, out = run("monitor", "--store", store, "--cache", str(folder), "--format", "json")
    assert code in (0, 1)
    assert f"monitor cache {folder}" in out and "reading the whole store" in out
    whole = run("monitor", "--store", store, "--no-cache", "--format", "json")[1]
    assert out.endswith(whole)


@pytest.mark.slow
def test_a_first_run_reads_the_store_in_steps_of_whole_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, cache = str(tmp_path / "s.db"), tmp_path / "monitor.sqlite"
    for seed in (7, 8, 9):
        _grow(store, tmp_path, seed)
    monkeypatch.setattr(cached, "STEP_SEATS", 1)  # a source a step
    steps: list[tuple[int, int]] = []
    from referee.store.read import Stored

    with Stored(store) as stored:
        summed = cached.summed(stored, cache, lambda done, total: steps.append((done, total)))
    assert len(steps) == 2 and steps[0][0] < steps[1][0] < steps[0][1]  # told after the first two of three
    assert output.to_json(decide(summed), store) == run("monitor", "--store", store, "--no-cache", "--format",
                                                         "json")[1]
    state = Cache(cache).state()
    assert state is not None and state.sources == 3 and state.seats == summed.seats


def test_games_pushed_past_every_window_leave_the_cache_with_their_sums(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.monitor import cache as cache_module
    from referee.monitor import cells

    small = (10, 50, 200)  # the count windows made small, so that 600 games pass the widest
    monkeypatch.setattr(cells, "COUNT_WINDOWS", small)
    monkeypatch.setattr(cache_module, "COUNT_WINDOWS", small)
    seats = _seats(700, seed=11)  # over 60 days: games older than a month, some without a time
    cache = Cache(tmp_path / "c.sqlite")
    state = State()
    done: list[Seat] = []
    for i, part in enumerate(_split(seats, [150, 151, 400, 420, 690])):
        done += part
        keys, others = cached.keys_of(part)
        with cache.transaction():
            state = cache.add(state, cached.batch_of(part, keys, others, i + 1, f"c{i}", (0, 0)))
            banded, deals, scales = cache.banded(state)
        assert _report(Summed(banded, deals, scales, state.seats, state.games, state.newest,
                              state.paid_unknown)) == _report(_whole_sums(done)), f"after batch {i}"
    n = cache.db.execute("SELECT n FROM segments WHERE seq = 'all'").fetchone()[0]
    kept = cache.db.execute("SELECT count(*) FROM games JOIN segments ON id = sid WHERE seq = 'all'").fetchone()[0]
    assert n == len({s.game for s in seats}) and kept < n  # games past every window dropped
    referred = cache.db.execute("SELECT count(DISTINCT payload) FROM games").fetchone()[0]
    assert cache.db.execute("SELECT count(*), sum(refs) FROM payloads").fetchone() == (
        referred, cache.db.execute("SELECT count(*) FROM games").fetchone()[0])
    cache.close()


def _whole_sums(seats: list[Seat]) -> Summed:
    from referee.monitor.cells import newest_of
    from referee.monitor.columns import banded
    from referee.monitor.deal_columns import banded as dealt
    from referee.monitor.valuing import value

    valuation = value(seats)
    newest = newest_of(seats)
    return Summed(banded(seats, valuation), dealt(seats), valuation, len(seats), len({s.game for s in seats}),
                  newest, sum(1 for s in seats if s.paid_u is None))


@pytest.mark.parametrize("shape", [("--seats", "2-4"), ("--sessions", "3")], ids=["live-table", "rounds"])
def test_the_cache_and_the_whole_store_agree_on_logs_with_faults(tmp_path: Path, shape: tuple[str, str]) -> None:
    """Void deals, wrong payouts, bad balances, missing cards, duplicated games: the
    simulator's faults, three files stored one at a time, a monitor run after each."""
    store, cache = str(tmp_path / "s.db"), str(tmp_path / "monitor.sqlite")
    for seed in (21, 22, 23):
        log = simulate(tmp_path / f"f{seed}.jsonl", *shape, "--rounds", "400", "--seed", str(seed), "--faults", "0.08",
                       "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1")
        code, out = run("check", "--store", store, log, "--quiet")
        assert code == 1, out  # the faults found
        for fmt in ("json", "text"):
            assert run("monitor", "--store", store, "--cache", cache, "--format", fmt) == run(
                "monitor", "--store", store, "--no-cache", "--format", fmt), (seed, fmt)


@pytest.mark.slow
def test_a_cache_whose_disk_fills_keeps_its_last_step_and_the_report_is_whole(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    store, cache = str(tmp_path / "s.db"), tmp_path / "monitor.sqlite"
    _grow(store, tmp_path, 31)
    fast_json(store, str(cache))
    before = Cache(cache).state()
    _grow(store, tmp_path, 32)
    real = Cache.add

    def full(self: Cache, state: State, batch: cached.Batch) -> State:
        real(self, state, batch)  # written, then the disk fills before the commit
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Cache, "add", full)
    code, out = run("monitor", "--store", store, "--cache", str(cache), "--format", "json")
    assert code == 0 and "database or disk is full; reading the whole store" in out
    assert out.endswith(run("monitor", "--store", store, "--no-cache", "--format", "json")[1])
    assert Cache(cache).state() == before  # the step rolled back whole: the cache as it was
    monkeypatch.setattr(Cache, "add", real)
    assert fast_json(store, str(cache)) == run("monitor", "--store", store, "--no-cache", "--format", "json")[1]


@pytest.mark.slow
def test_two_monitors_on_one_cache_at_once_take_turns(tmp_path: Path) -> None:
    import subprocess
    import sys

    store, cache = str(tmp_path / "s.db"), str(tmp_path / "monitor.sqlite")
    for seed in (41, 42):
        _grow(store, tmp_path, seed)
    command = [sys.executable, "-m", "referee", "monitor", "--store", store, "--cache", cache, "--format", "json"]
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in both]
    whole = run("monitor", "--store", store, "--no-cache", "--format", "json")[1]
    assert [o for o, _ in outs] == [whole, whole] and [e for _, e in outs] == ["", ""]
    state = Cache(Path(cache)).state()
    assert state is not None and state.sources == 2 and state.seats == json.loads(whole)["seats"]


@pytest.mark.slow
def test_a_run_reports_the_bands_of_the_state_it_read_whatever_another_run_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.store.read import Stored

    store, cache = str(tmp_path / "s.db"), tmp_path / "monitor.sqlite"
    for seed in (51, 52):
        _grow(store, tmp_path, seed)
    real = Cache.transaction
    calls: list[bool] = []

    def racing(self: Cache, write: bool = True) -> object:
        calls.append(write)
        if len(calls) == 2:  # between this run's look and its step: another source, another run
            monkeypatch.setattr(Cache, "transaction", real)
            _grow(store, tmp_path, 53)
            with Stored(store) as other:
                cached.summed(other, cache)
        return real(self, write)

    monkeypatch.setattr(Cache, "transaction", racing)
    with Stored(store) as stored:
        summed = cached.summed(stored, cache)
    assert output.to_json(decide(summed), store) == run("monitor", "--store", store, "--no-cache", "--format",
                                                         "json")[1]


def test_the_default_cache_is_one_a_store_whatever_the_folder_it_is_named_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.monitor.cache import default_path
    from referee.store.engine import target

    for name in ("r1", "r2"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        _grow("s.db", tmp_path / name, 61 if name == "r1" else 62)
    monkeypatch.chdir(tmp_path / "r1")
    here = default_path(target("s.db"))
    assert here == default_path(target(str(tmp_path / "r1" / "s.db")))
    monkeypatch.chdir(tmp_path / "r2")
    assert default_path(target("s.db")) != here
    assert default_path(target("postgresql://u:secret@h/db")) == default_path(target("postgresql://u:other@h/db"))


def test_a_cache_of_another_layout_is_made_again_not_used_nor_warned_about(tmp_path: Path) -> None:
    import sqlite3

    store, cache = str(tmp_path / "s.db"), tmp_path / "monitor.sqlite"
    _grow(store, tmp_path, 71)
    old = sqlite3.connect(cache)  # an earlier layout: other columns, another format
    old.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                      "INSERT INTO meta VALUES ('format', '0 0.0.1');"
                      "CREATE TABLE games (seq TEXT, segment TEXT, ordinal INTEGER, sums TEXT);"
                      "CREATE TABLE bands (seq TEXT, segment TEXT, bet TEXT, sums TEXT);")
    old.close()
    code, out = run("monitor", "--store", store, "--cache", str(cache), "--format", "json")
    assert code in (0, 1) and out == run("monitor", "--store", store, "--no-cache", "--format", "json")[1]
    state = Cache(cache).state()
    assert state is not None and state.sources == 1
