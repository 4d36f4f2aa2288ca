"""Recall, explain, stats and report from the store (issue 30): what the files give, byte
for byte, without the files. Recall reads stored results; the others replay the stored
bytes; each is compared with the same command on the files, on logs of both formats,
clean and faulty, with runs of clean rounds, verbatim copies, void deals and replays."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import SAMPLES, run
from .golden_cases import normalize
from .store_support import drop_database, new_database, postgres_admin, simulate, without_searched


def _timed(tmp: Path) -> list[str]:
    """Format 1 with times, players and game ids (recall --at, --player, --game), and a
    live table with times and dealers (stats --since/--table/--dealer)."""
    clean = yaml.safe_load((SAMPLES / "disputed.yaml").read_text(encoding="utf-8"))
    docs = []
    for day, (sid, player) in enumerate([("t1/a", "alice"), ("t2/b", "bob"), ("t1/c", "alice")]):
        doc = copy.deepcopy(clean)
        doc["session"].update(id=sid, meta={"player": player})
        for r in doc["rounds"]:
            r["time"] = f"2026-11-{27 + day}T20:{r['round']:02d}:00+01:00"
            r["meta"] = {"game": f"G{day}-{r['round']}"}
        docs.append(doc)
    docs[1]["rounds"][4]["meta"]["player"] = "carol"  # a round's own player
    first, second = tmp / "two.yaml", tmp / "three.yaml"
    first.write_text(yaml.safe_dump_all(docs[:2], allow_unicode=True, sort_keys=False), encoding="utf-8")
    second.write_text(yaml.safe_dump(docs[2], allow_unicode=True, sort_keys=False), encoding="utf-8")
    table = yaml.safe_load(Path(simulate(tmp / "t.yaml", "--seats", "2-4", "--rounds", "16", "--seed", "5",
                                         "--faults", "0.2", "--format", "yaml")).read_text(encoding="utf-8"))
    for i, game in enumerate(table["games"]):
        game["settled"] = f"2026-11-29T21:{i:02d}:30Z"
    live = tmp / "live.yaml"
    live.write_text(yaml.safe_dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return [str(first), str(second), str(live)]


def _live_lines(tmp: Path) -> list[str]:
    """Live tables in JSON Lines whose clean games the store keeps in runs: two sessions
    with Bonus stakes, decimal Antes, times (``settled``, or ``started`` alone, in other
    zones) and dealers, their seats inline; and the same games with their keys sorted and
    spaced (``jq -S`` writes so), a second record of each (G002)."""
    log = Path(simulate(tmp / "live-raw.jsonl", "--seats", "2-5", "--rounds", "40", "--sessions", "2", "--seed", "12",
                        "--faults", "0.1", "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1"))
    out = []
    half = False  # the second session's amounts halved: decimals (2.5, 1003.5), its seats read with them
    for i, line in enumerate(log.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        if "session" in record:
            half = record["session"]["id"].endswith("-2")
        if half:
            record = _halved(record)
        if "game" in record and "seat" not in record:
            if i % 3:
                record["settled"] = f"2026-11-29T22:{i % 60:02d}:{i % 7:02d}Z"
            else:
                record["started"] = f"2026-11-29T23:{i % 60:02d}:00+01:00"
            record["dealer_id"] = f"d-{i % 4}"
        out.append(record)
    timed, spaced = tmp / "timed.jsonl", tmp / "spaced.jsonl"
    timed.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    spaced.write_text("".join(json.dumps(r, sort_keys=True, separators=(", ", ": ")) + "\n" for r in out),
                      encoding="utf-8")
    return [str(timed), str(spaced)]


def _halved(record: Any, key: str = "") -> Any:
    """A record of a live table with every amount halved (the rules are linear in the
    stakes: the same findings, on amounts with decimals)."""
    if isinstance(record, dict):
        return {k: _halved(v, k) for k, v in record.items()}
    if isinstance(record, list):
        return [_halved(v, key) for v in record]
    amounts = ("ante", "bonus", "call", "net", "balance", "amount", "returned", "opening_balances")
    if isinstance(record, int) and not isinstance(record, bool) and (key in amounts or key.startswith("p-")):
        return record / 2
    return record


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Many logs, in the order they are stored: made once a module, for both engines (the
    same paths, so that what the files answer is asked once: ``from_files``)."""
    tmp = tmp_path_factory.mktemp("logs")
    return [
        simulate(tmp / "faulty.jsonl", "--sessions", "2", "--rounds", "30", "--seed", "7", "--faults", "0.3",
                 "--format", "jsonl"),
        simulate(tmp / "clean.jsonl", "--sessions", "1", "--rounds", "25", "--seed", "8", "--format", "jsonl"),
        simulate(tmp / "faulty.yaml", "--sessions", "1", "--rounds", "20", "--seed", "9", "--faults", "0.3"),
        simulate(tmp / "seats.jsonl", "--seats", "3-6", "--rounds", "16", "--seed", "10", "--faults", "0.2",
                 "--format", "jsonl", "--seat-lines"),
        simulate(tmp / "own.json", "--seats", "2-3", "--own-cards", "--rounds", "8", "--seed", "11",
                 "--faults", "0.2", "--format", "json"),
        *_timed(tmp),
        *_live_lines(tmp),
        *sorted(str(p) for p in SAMPLES.iterdir() if p.suffix in (".yaml", ".jsonl")),
    ]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stored(request: pytest.FixtureRequest, logs: list[str],
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A store of the logs, and the logs in the order they were stored."""
    admin = None
    if request.param == "sqlite":
        url = str(tmp_path_factory.mktemp("store") / "audit.db")
    else:
        admin = postgres_admin()
        url = new_database(admin)
    try:
        code, out = run("check", "--store", url, "--jobs", "2", *logs)
        assert code in (0, 1), out
        yield url, logs
    finally:
        if admin is not None:
            drop_database(admin, url)


@functools.cache
def from_files(*args: str) -> tuple[int, str]:
    """``run(*args)`` on the files, asked once a module's worker: the files' answer does
    not depend on the engine whose answer it is compared with (the logs are made once a
    module, so both engines' tests ask with the same paths)."""
    return run(*args)


def _sessions(files: list[str]) -> list[dict[str, Any]]:
    _, out = from_files("check", "--format", "json", *files)
    return list(json.loads(out)["sessions"])


def _same(from_files: tuple[int, str], from_store: tuple[int, str]) -> None:
    (code, text), (stored_code, stored_text) = from_files, from_store
    assert stored_code == code, (text, stored_text)
    if code == 2:  # a question without an answer: the same question, the same reason
        assert stored_text.split("(searched")[0] == text.split("(searched")[0]
    else:
        assert without_searched(stored_text) == without_searched(text)


def recall_queries(files: list[str]) -> Iterator[list[str]]:
    for session in _sessions(files):
        sid = session["id"]
        items = session.get("rounds") or session.get("games") or []
        if "rounds" in session:
            numbers = [r["round"] for r in items if isinstance(r["round"], int)]
            for n in sorted({numbers[0], *numbers[len(numbers) // 2:][:2], numbers[-1]}):
                yield ["--session", sid, "--round", str(n)]
            yield ["--session", sid, "--round", str(numbers[len(numbers) // 3]), "--last", "1"]
            yield ["--session", sid, "--last", "25"]
        else:
            games = [g["game"] for g in items if g["game"] is not None]
            players = sorted({s["player_id"] for g in items for s in g["seats"] if s["player_id"]})
            for g in [games[0], games[len(games) // 2]]:
                yield ["--session", sid, "--game", g]
                yield ["--game", g, "--player", players[0], "--last", "3"]
            yield ["--player", players[-1]]
            yield ["--player", players[0], "--last", "12"]
            numbers = [g["round"] for g in items if isinstance(g.get("round"), int)]
            if numbers:
                yield ["--session", sid, "--round", str(numbers[len(numbers) // 2]), "--last", "7"]
    yield ["--player", "alice", "--last", "30"]
    yield ["--player", "carol"]
    yield ["--game", "G1-5"]
    yield ["--player", "alice", "--at", "2026-11-28T20:30"]
    yield ["--at", "2026-11-27T19:15Z", "--session", "t1/a"]
    yield ["--at", "2026-11-29T21:05:30Z", "--player", "p-1-002"]
    # the live tables in JSON Lines: their runs of games by time
    yield ["--at", "2026-11-29T22:30:03Z", "--session", "sim-table-bonus-100-12-1"]
    yield ["--at", "2026-11-29T23:19:00+01:00", "--player", "p-2-003", "--last", "4"]
    yield ["--at", "2026-11-29T22:30:03Z"]  # several sessions: the same reason
    yield ["--round", "3"]  # several sessions: the same reason
    yield ["--player", "nobody"]
    yield ["--session", "t1/a", "--round", "999"]


@pytest.mark.slow
def test_recall_from_the_store_is_recall_from_the_files(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    asked = 0
    for query in recall_queries(files):
        _same(from_files("recall", *files, *query), run("recall", "--store", url, *query))
        asked += 1
    assert asked > 50


def test_recall_as_json_and_as_a_page(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    for query in (["--session", "t1/a", "--round", "10"], ["--game", "T1-10-000005", "--last", "2"]):
        code, out = from_files("recall", "--format", "json", *files, *query)
        stored_code, stored_out = run("recall", "--format", "json", "--store", url, *query)
        assert stored_code == code
        a, b = json.loads(out), json.loads(stored_out)
        assert b["searched"].pop("store") is not None
        a.pop("searched"), b.pop("searched")
        assert a == b
        code, page = from_files("recall", "--format", "html", "--lang", "fr", *files, *query)
        stored_code, stored_page = run("recall", "--format", "html", "--lang", "fr", "--store", url, *query)
        assert stored_code == code
        cut = re.compile(r"<p[^>]*>[^<]*(searched|examin)[^<]*</p>")
        assert cut.sub("", normalize(stored_page)) == cut.sub("", normalize(page))


def test_recall_of_stored_files_named(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    chosen = [files[2], files[0]]
    code, out = run("recall", "--store", url, *chosen, "--session", "sim-vivo-9-1")
    assert code == 1 and "sim-vivo-9-1" in out and "searched the store" in out and "2 files" in out
    code, out = run("recall", "--store", url, "nowhere.yaml", "--round", "1")
    assert code == 2 and "no source stored as 'nowhere.yaml'" in out


def test_explain_from_the_store_is_explain_of_the_file(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    asked = 0
    for file in files:
        for session in _sessions([file]):
            if "rounds" in session:
                numbers = [r["round"] for r in session["rounds"] if isinstance(r["round"], int)]
                for n in numbers[:: max(1, len(numbers) // 2)]:
                    args = ["--round", str(n), "--session", session["id"]]
                    for fmt in ("text", "json"):
                        assert run("explain", "--store", url, file, *args, "--format", fmt) == \
                            from_files("explain", file, *args, "--format", fmt)
                    asked += 1
            else:
                for g in session["games"][:: max(1, len(session["games"]) // 2)]:
                    if g["game"] is None:
                        continue
                    args = ["--game", g["game"], "--session", session["id"]]
                    assert run("explain", "--store", url, file, *args, "--lang", "fr") == \
                        from_files("explain", file, *args, "--lang", "fr")
                    asked += 1
    assert asked > 20


def test_explain_finds_the_file_in_the_store(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    assert run("explain", "--store", url, "--round", "12", "--session", "t2/b") == \
        from_files("explain", files[5], "--round", "12", "--session", "t2/b")
    code, out = run("explain", "--store", url, "--game", "8812347")
    assert code == 2 and "is in several stored files" in out
    code, out = run("explain", "--store", url, "--game", "no-such-game")
    assert code == 2 and "no game no-such-game" in out


@pytest.mark.slow
def test_stats_and_report_from_the_store_are_those_of_the_files(stored: tuple[str, list[str]]) -> None:
    url, files = stored
    for args in ([], ["--table", "T1"], ["--since", "2026-11-28T00:00", "--until", "2026-11-29T21:10"],
                 ["--dealer", "d-2", "--format", "json"]):
        assert run("stats", "--store", url, "--no-decisions", *args) == \
            from_files("stats", "--no-decisions", *files, *args)
    for args in (["--table", "T9"], ["--dealer", "d-22"]):  # no game had it: said, with those they had
        code, out = run("stats", "--store", url, "--no-decisions", *args)
        assert code == 2 and f"{args[0]} {args[1]}: no game of the inputs had it" in out and "the games had" in out
        assert (code, out) == from_files("stats", "--no-decisions", *files, *args)
    code, page = from_files("report", "--lang", "en", "-o", "-", *files)
    stored_code, stored_page = run("report", "--lang", "en", "-o", "-", "--store", url)
    assert stored_code == code and normalize(stored_page) == normalize(page)


def test_the_profiles_come_from_the_store(store_url: str, tmp_path: Path) -> None:
    """A log ruled by a house's own profile (a file beside it): from the store, every
    command works as from the files once the profile file is gone, or changed."""
    folder = tmp_path / "logs"
    folder.mkdir()
    house = folder / "house.yaml"
    house.write_bytes((Path(__file__).parent / "data" / "house.yaml").read_bytes())
    log = yaml.safe_load((SAMPLES / "disputed.yaml").read_text(encoding="utf-8"))
    log["session"]["profile"] = "house.yaml"
    path = folder / "house-log.yaml"
    path.write_text(yaml.safe_dump(log, sort_keys=False), encoding="utf-8")
    commands = [("recall", "--round", "10"), ("explain", "--round", "10"), ("stats", "--no-decisions"),
                ("recall", "--format", "json", "--round", "3")]
    before = [run(c[0], str(path), *c[1:]) for c in commands]
    assert before[1][0] == 1 and "profile house" in before[1][1]
    run("check", "--store", store_url, str(path))
    house.write_text("name: changed\n", encoding="utf-8")  # not the profile it was ruled by any more
    after = [run(c[0], "--store", store_url, *c[1:]) for c in commands]
    for (code, text), (stored_code, stored_text) in zip(before, after, strict=True):
        assert stored_code == code
        assert without_searched(stored_text) == without_searched(text)
    house.unlink()
    assert run("explain", "--store", store_url, "--round", "10") == before[1]


def test_a_profile_option_does_not_go_with_a_store(stored: tuple[str, list[str]]) -> None:
    url, _ = stored
    code, out = run("recall", "--store", url, "--profile", "vivo", "--round", "1")
    assert code == 2 and "--profile does not go with --store" in out
    code, out = run("recall", "--round", "1")
    assert code == 2 and "Missing argument 'FILES...'" in out


def test_a_live_tables_games_are_stored_under_their_own_sessions(store_url: str, tmp_path: Path) -> None:
    """A format-2 file of two sessions: each game and seat is kept under the session it
    came in (the games wait for the store's duplicate look-up, by which time the next
    session may have opened), so recall of a session or a game gives the file's answer."""
    log = simulate(tmp_path / "live.jsonl", "--seats", "2-5", "--rounds", "20", "--sessions", "2", "--seed", "7",
                   "--faults", "0.1", "--format", "jsonl")
    code, _ = run("check", "--store", store_url, "--quiet", log)
    assert code in (0, 1)
    first = "sim-table-vivo-7-1"
    for query in (["--session", first, "--last", "3"], ["--game", "T1-7-000013"]):
        from_file = run("recall", *query, log)
        from_store = run("recall", "--store", store_url, *query)
        assert from_file[0] in (0, 1) and first in from_file[1]
        assert (from_store[0], without_searched(from_store[1])) == (from_file[0], without_searched(from_file[1]))


@pytest.mark.parametrize("fmt", ["yaml", "jsonl"])
def test_the_store_answers_a_question_it_cannot_as_the_file_does(store_url: str, tmp_path: Path, fmt: str) -> None:
    """Issue 43: ``explain --store --round N`` of a live table said only ``no round N``
    where the file names the game numbered N; a recall not found in a store said
    ``searched 1 file``; the hint named a format by number. As JSON Lines the games are
    kept in runs, as YAML in rows: both are searched."""
    log = tmp_path / f"t.{fmt}"
    code, _ = run("simulate", "--seats", "3", "--rounds", "30", "--sessions", "1", "--seed", "7", "--format", fmt,
                  "-o", str(log))
    assert code == 0
    assert run("check", "--quiet", "--store", store_url, str(log))[0] == 0
    session = "sim-table-vivo-7-1"
    code, from_file = run("explain", str(log), "--round", "23", "--session", session)
    assert code == 2 and "game T1-7-000023 of this live table is numbered 23" in from_file
    code, from_store = run("explain", "--store", store_url, "--round", "23", "--session", session)
    assert code == 2 and (f"no round 23 in session {session}; game T1-7-000023 of this live table is numbered 23: "
                          f"referee explain --store ") in from_store, from_store
    assert f"{log} --session {session} --game T1-7-000023" in from_store
    code, out = run("recall", "--store", store_url, "--game", "T1-7-999999")
    assert code == 2 and "searched the store" in out and "searched 1 file" not in out, out
    assert "format 1" not in out and "no game in them has that id" in out
