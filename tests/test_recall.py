"""`referee recall` (issue 20): a round and the ones before it, from many files."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.recall import Query, RoundView, Selector

from .conftest import SAMPLES, check_json, run


def recall_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out = run("recall", "--format", "json", *args)
    return code, json.loads(out) if code != 2 else {"error": out}


def rounds_of(doc: dict[str, Any], index: int = 0) -> list[dict[str, Any]]:
    return list(doc["recalls"][index]["rounds"])


@pytest.fixture
def tables(tmp_path: Path) -> tuple[str, str]:
    """Three sessions in two files: alice plays t1/a and t1/c, bob t2/b; every round has a
    time and a game id (format 1: meta.player on the session, meta.game on the round)."""
    clean = yaml.safe_load((SAMPLES / "clean.yaml").read_text(encoding="utf-8"))
    docs = []
    for day, (sid, player) in enumerate([("t1/a", "alice"), ("t2/b", "bob"), ("t1/c", "alice")]):
        doc = copy.deepcopy(clean)
        doc["session"].update(id=sid, meta={"player": player})
        for r in doc["rounds"]:
            r["time"] = f"2026-11-{27 + day}T20:{r['round']:02d}:00"
            r["meta"] = {"game": f"G{day}-{r['round']}"}
        docs.append(doc)
    first, second = tmp_path / "two.yaml", tmp_path / "three.yaml"
    first.write_text(yaml.safe_dump_all(docs[:2], allow_unicode=True, sort_keys=False), encoding="utf-8")
    second.write_text(yaml.safe_dump(docs[2], allow_unicode=True, sort_keys=False), encoding="utf-8")
    return str(first), str(second)


def test_a_round_and_the_nine_before_it() -> None:
    code, doc = recall_json(str(SAMPLES / "disputed.yaml"), "--round", "12")
    rows = rounds_of(doc)
    assert [r["round"] for r in rows] == list(range(3, 13))
    assert [r["target"] for r in rows] == [False] * 9 + [True]
    assert code == 1  # rounds 5, 10 and 11 of the window have findings
    _, report = check_json(str(SAMPLES / "disputed.yaml"))
    audited = {r["round"]: r for r in report["sessions"][0]["rounds"]}
    for r in rows:  # the audit's balances and outcomes, not a second reading of the log
        assert r["balance"] == audited[r["round"]]["balance"]
        assert r["recorded_balance"] == audited[r["round"]]["recorded_balance"]
        assert r["outcome"] == audited[r["round"]]["outcome"]
    assert rows[-1]["stakes"] == {"ante": 1, "call": 2, "bonus": 0}
    assert [x["round"] for x in doc["recalls"][0]["rulings"]] == [12]
    assert doc["searched"] == {"files": 1, "skipped_files": 0, "unneeded_files": 0, "sessions": 1, "rounds": 20}


def test_default_is_the_last_round_and_the_nine_before_it() -> None:
    _, doc = recall_json(str(SAMPLES / "clean.yaml"))
    assert [r["round"] for r in rounds_of(doc)] == list(range(11, 21))


def test_a_void_deal_and_its_replay_are_both_recalled() -> None:
    code, doc = recall_json(str(SAMPLES / "void.yaml"), "--round", "15", "--last", "4")
    rows = rounds_of(doc)
    assert [(r["round"], r["outcome"], r["target"]) for r in rows] == [
        (13, "lose", False), (14, "win", False), (15, "void", True), (15, "fold", True)]
    assert rows[2]["status"] == "V001" and code == 1
    assert len(doc["recalls"][0]["rulings"]) == 2


def test_text_shows_the_window_the_bottom_line_and_the_ruling() -> None:
    _, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "1", "--last", "3")
    lines = out.splitlines()
    assert lines[0].startswith("Recall of round 1: round 1, session table-7/2026-11-29/disputed")
    assert any(line.split()[:2] == [">", "1"] and line.split()[-2:] == ["P002", "P004"] for line in lines)
    assert "The table paid +2; the rules give +3; 1 is owed to the player." in out
    assert "Cards as dealt" in out and out.rstrip().endswith("searched 1 file: 1 session, 20 rounds")


def test_a_balance_put_off_earlier_is_not_ok() -> None:
    _, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "4", "--last", "3")
    row = next(line for line in out.splitlines() if line.split()[:2] == [">", "4"])
    assert row.split()[-7:] == ["6", "bal.", "off", "-1", "since", "round", "1"]  # computed 7, recorded 6
    _, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "10", "--last", "1")
    assert ("The table paid -3, as the rules give. The recorded balance 8 does not follow from the last recorded "
            "balance: that balance plus the rules' nets since gives 4; the difference of 4 favours the player.") in out


def test_sessions_players_games_and_times(tables: tuple[str, str]) -> None:
    files = list(tables)
    code, out = run("recall", *files, "--round", "3")
    assert code == 2 and "several sessions (t1/a, t1/c, t2/b)" in out and "--session" in out
    _, doc = recall_json(*files, "--session", "t2/b", "--round", "3", "--last", "2")
    assert [(r["session"], r["round"], r["game"], r["player"]) for r in rounds_of(doc)] == [
        ("t2/b", 2, "G1-2", "bob"), ("t2/b", 3, "G1-3", "bob")]
    # A player's rounds run on across sessions and files.
    _, doc = recall_json(*files, "--player", "alice", "--last", "3")
    assert [r["round"] for r in rounds_of(doc)] == [18, 19, 20]  # the last file held them: the first is not read
    assert doc["searched"]["unneeded_files"] == 1 and doc["searched"]["rounds"] == 20
    _, doc = recall_json(*files, "--player", "alice", "--last", "22")
    assert doc["searched"]["unneeded_files"] == 0 and doc["searched"]["rounds"] == 60
    rows = rounds_of(doc)
    assert [(r["session"], r["round"]) for r in rows[:3]] == [("t1/a", 19), ("t1/a", 20), ("t1/c", 1)]
    assert rows[-1]["round"] == 20 and rows[-1]["session"] == "t1/c"
    code, doc = recall_json(*files, "--player", "alice", "--round", "3")
    assert code == 2 and "several sessions (t1/a, t1/c)" in doc["error"]
    _, doc = recall_json(*files, "--game", "G1-7", "--last", "1")
    assert [(r["session"], r["round"]) for r in rounds_of(doc)] == [("t2/b", 7)]
    # --at: the latest round at or before the time (a time between two rounds).
    _, doc = recall_json(*files, "--player", "alice", "--at", "2026-11-27T20:03:30", "--last", "2")
    assert [(r["session"], r["round"]) for r in rounds_of(doc)] == [("t1/a", 2), ("t1/a", 3)]
    _, doc = recall_json(*files, "--player", "alice", "--at", "2026-11-28T23:00Z", "--last", "1")
    assert [(r["session"], r["round"]) for r in rounds_of(doc)] == [("t1/a", 20)]


def test_not_found_says_what_was_searched(tables: tuple[str, str]) -> None:
    code, out = run("recall", *tables, "--session", "t2/b", "--round", "99")
    assert code == 2
    assert "round 99 in session t2/b: not found (searched 2 files, 1 not mentioning 't2/b': 2 sessions, 40 rounds)" \
        in " ".join(out.split())
    code, out = run("recall", *tables, "--player", "carol")
    assert code == 2 and "no player in them has that id (a live table writes it as player_id" in out
    code, out = run("recall", *tables, "--player", "alice", "--at", "2020-01-01")
    assert code == 2 and "not found" in out
    code, out = run("recall", *tables, "--at", "yesterday")
    assert code == 2 and "is not a time" in out
    code, out = run("recall", *tables, "--round", "2", "--game", "G1-1")
    assert code == 2 and "choose one of" in out


def test_files_that_never_mention_the_session_are_skipped(tables: tuple[str, str]) -> None:
    _, with_skip = recall_json(*tables, "--session", "t1/c", "--round", "5")
    assert with_skip["searched"]["skipped_files"] == 1 and with_skip["searched"]["sessions"] == 1
    _, alone = recall_json(tables[1], "--round", "5")
    assert rounds_of(with_skip) == rounds_of(alone)


def _view(n: int) -> RoundView:
    return RoundView("s", 1, n, None, None, None, "fold", None, None, Decimal(-n), None, "ok", "f", n)


def test_the_selector_keeps_a_window_not_the_log() -> None:
    selector = Selector(Query(round=5_000, last=10))
    for n in range(1, 20_001):
        selector.feed(_view(n))
        assert len(selector.window) <= 10
    [match] = selector.finish()
    assert [v.number for v in match.rows] == list(range(4_991, 5_001))


def test_html_page(tmp_path: Path) -> None:
    page = tmp_path / "recall.html"
    code, _ = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "1", "--last", "2", "--format", "html",
                  "-o", str(page), "--lang", "fr")
    html = page.read_text(encoding="utf-8")
    assert code == 1 and '<html lang="fr">' in html and '<tr class="target">' in html
    assert html.count('<svg class="card') == 9  # the nine cards of the round, as pictures
    assert '<svg class="card red"' in html and "1 est dû au joueur" in html and "<th>manche</th>" in html
    assert "Rappel de la manche 1 : la manche 1, session table-7/2026-11-29/disputed" in html
    assert "examiné : 1 fichier ; 1 session, 20 manches" in html


def test_format_2_a_view_per_seat_and_last_counts_games() -> None:
    """A live table (format 2): each seat of a game is a row, and ``--last`` counts games,
    not seats (AGCO 13.1.1: the last game and the nine before it). ``--game`` recalls every
    seat of the game and of the games before it, never a game cut partway; ``--player`` a
    player's seats game after game, each with its own balance (a newcomer's test found
    ``--last 1`` showing one seat of a game of three, the default ten seats of four games)."""
    table = str(SAMPLES / "table.yaml")
    _, doc = recall_json(table, "--game", "8812345", "--last", "1")
    rows = rounds_of(doc)
    assert [(r["game"], r["player"], r["target"]) for r in rows] == [
        ("8812345", "p-1001", True), ("8812345", "p-1002", True), ("8812345", "p-1003", True)]
    assert doc["recalls"][0]["games"] == 1 and ": round 2 (3 seats), session" in doc["recalls"][0]["heading"]
    _, doc = recall_json(table, "--game", "8812345", "--last", "4")  # one game before it, that is all
    rows = rounds_of(doc)
    assert [(r["game"], r["player"], r["target"]) for r in rows] == [
        ("8812344", "p-1001", False), ("8812344", "p-1002", False), ("8812344", "p-1003", False),
        ("8812345", "p-1001", True), ("8812345", "p-1002", True), ("8812345", "p-1003", True)]
    assert rows[4]["status"] == "W002" and rows[4]["time"] == "2026-11-29T20:17:52+00:00"
    assert doc["recalls"][0]["games"] == 2 and ": 2 games (6 seats), 1 to 2, session" in doc["recalls"][0]["heading"]
    # the last game (every seat of it the target) and the one before it; --at alike
    for args in ([], ["--at", "2026-11-29T20:30Z"]):
        _, doc = recall_json(table, "--last", "2", *args)
        assert [(r["game"], r["target"]) for r in rounds_of(doc)] == [("8812346", False)] * 2 + [("8812347", True)] * 2
    _, doc = recall_json(table, "--at", "2026-11-29T20:20Z", "--last", "2")  # game 8812346 (cancelled)
    assert [(r["game"], r["target"]) for r in rounds_of(doc)] == [("8812345", False)] * 3 + [("8812346", True)] * 2
    _, doc = recall_json(table, "--player", "p-1002", "--last", "3")
    rows = rounds_of(doc)
    assert [r["game"] for r in rows] == ["8812344", "8812345", "8812347"]
    assert [r["balance"] for r in rows] == [206, 208, 412] and rows[-1]["recorded_balance"] == 252
    assert doc["recalls"][0]["games"] == 3 and ": 3 games (3 seats), 1 to 4, session" in doc["recalls"][0]["heading"]
    _, out = run("recall", table, "--game", "8812345", "--last", "2", "--lang", "fr")
    assert out.startswith("Rappel de la partie 8812345 : 2 parties (6 places), de 1 à 2, session")


def test_a_player_holding_two_seats_of_a_game_has_them_as_one_game(tmp_path: Path, store_url: str) -> None:
    """A player seated twice in one game (a fault the audit reports) recalls both seats, as
    one of the player's games; from a store alike."""
    doc = yaml.safe_load((SAMPLES / "table.yaml").read_text(encoding="utf-8"))
    last = doc["games"][-1]
    last["seats"].append(copy.deepcopy(last["seats"][0]))  # p-1001 first and last, p-1002 between
    path = tmp_path / "twice.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    _, doc = recall_json(str(path), "--player", "p-1001", "--last", "2")
    rows = rounds_of(doc)
    assert [(r["game"], r["target"]) for r in rows] == [("8812346", False), ("8812347", True), ("8812347", True)]
    assert doc["recalls"][0]["games"] == 2 and "2 games (3 seats), 3 to 4" in doc["recalls"][0]["heading"]
    assert run("check", "--store", store_url, "--quiet", str(path))[0] == 1
    for query in (["--player", "p-1001", "--last", "2"], ["--game", "8812347", "--last", "1"]):
        from_file, from_store = run("recall", str(path), *query), run("recall", "--store", store_url, *query)
        assert from_file[0] == from_store[0] == 1
        assert from_file[1].splitlines()[:-1] == from_store[1].splitlines()[:-1]


def test_the_two_balances_say_their_chain() -> None:
    """Issue 27: "balance 5, bal. rec. 8" above "the rules give 4" read as a contradiction.
    The table's columns say which chain each is (the rules' from the start, the table's
    record), and the bottom line says its 4 is the last recorded balance plus the rules' nets,
    in English and in French."""
    code, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "10")
    assert code == 1
    header = next(line for line in out.splitlines() if line.lstrip().startswith("round"))
    assert "balance (rules)" in header and "balance (recorded)" in header and "bal. rec." not in header
    assert ("The recorded balance 8 does not follow from the last recorded balance: that balance plus the rules' "
            "nets since gives 4; the difference of 4 favours the player.") in out
    code, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "10", "--lang", "fr")
    header = next(line for line in out.splitlines() if line.lstrip().startswith("manche"))
    assert code == 1 and "solde (règles)" in header and "solde (enregistré)" in header
    assert ("Le solde enregistré 8 ne découle pas du dernier solde enregistré : ce solde plus les nets des règles "
            "depuis donne 4 ; l'écart de 4 favorise le joueur.") in out


def test_recall_of_an_imported_export_names_games_and_shows_the_recorded_net(tmp_path: Path) -> None:
    """Games imported from an export have no round numbers and record each bet's result,
    not a net: the heading names the games (never "None to None") and the recorded net
    column is the bets' results summed (found by a newcomer's trial)."""
    log = tmp_path / "imported.jsonl"
    code, said = run("import", "--mapping", "evolution-history", str(SAMPLES / "exports/evolution-history.json"),
                     "-o", str(log))
    assert code == 0, said
    for lang in ("en", "fr"):
        code, out = run("recall", "--game", "T1-5-000002", "--last", "3", "--lang", lang, str(log))
        heading, header = out.splitlines()[0], out.splitlines()[1]
        assert code in (0, 1) and "None" not in out and "T1-5-000001 to T1-5-000002" in heading.replace(" à ", " to ")
        if lang == "en":
            rows = [line for line in out.splitlines()[3:] if "T1-5-000002" in line]
            column = header.index("net (recorded)")
            assert len(rows) == 4 and all(row[column:column + 8].strip() for row in rows), out
    code, out = run("recall", "--game", "T1-5-000002", "--last", "1", str(log))
    assert code in (0, 1) and out.startswith("Recall of game T1-5-000002: game T1-5-000002 (4 seats), session")


def _drifting(tmp_path: Path, suffix: str = ".json") -> Path:
    """Twelve games of two players; p1's game g3 paid +1 where the rules give +3, its
    balance following the record from there on (so -2 off the rules' chain)."""
    deal = {"player": ["A♥", "K♦"], "flop": ["A♠", "7♦", "4♣"], "turn": "9♥", "river": "2♠", "dealer": ["Q♠", "Q♣"]}
    games, balance = [], 100
    for n in range(1, 13):
        net = 1 if n == 3 else 3
        balance += net
        games.append({"game": f"g{n}", "round": n, **deal, "seats": [
            {"player_id": "p1", "ante": 1, "decision": "call", "recorded": {"net": net, "balance": balance}},
            {"player_id": "p2", "ante": 1, "decision": "call", "recorded": {"net": 3, "balance": 100 + 3 * n}}]})
    session = {"id": "T", "profile": "vivo", "opening_balances": {"p1": 100, "p2": 100}}
    path = tmp_path / f"drift{suffix}"
    if suffix == ".jsonl":
        lines = [json.dumps({"session": session, "format": 2}), *(json.dumps(g, ensure_ascii=False) for g in games)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        path.write_text(json.dumps({"format": 2, "session": session, "games": games}, ensure_ascii=False),
                        encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_balance_off_names_the_game_where_it_left_the_rules_chain(tmp_path: Path, store_url: str,
                                                                      suffix: str) -> None:
    """Issue 43: a window of games after the one that put a player's balance off showed
    ``bal. off -2`` on every row, named no game, and exited 0. Each such row, and a line
    under the table, name the game where the recorded balance left the rules' chain; the
    recall exits 1 (the rows differ from the rules); the store answers as the file does."""
    path = _drifting(tmp_path, suffix)
    assert run("check", "--store", store_url, "--quiet", str(path))[0] == 1
    said = "The recorded balance of player p1 left the rules' chain at game g3: it is off by -2 since."
    for source in ([str(path)], ["--store", store_url]):
        code, out = run("recall", *source, "--player", "p1", "--last", "4")
        assert code == 1, out
        rows = [line for line in out.splitlines() if " g9 " in line or " g12 " in line]
        assert len(rows) == 2 and all(row.rstrip().endswith("bal. off -2 since game g3") for row in rows), out
        assert said in out.splitlines()
        code, text = run("recall", *source, "--player", "p1", "--last", "2", "--format", "json")
        recalled = json.loads(text)["recalls"][0]
        assert [r["balance_off_since"] for r in recalled["rounds"]] == [{"round": 3, "game": "g3"}] * 2
        assert recalled["balance_off"] == [said]
        code, out = run("recall", *source, "--player", "p2", "--last", "2")
        assert code == 0 and "since" not in out and "left the rules' chain" not in out
    code, out = run("recall", str(path), "--player", "p1", "--game", "g3", "--last", "2")
    assert "since game" not in out, out  # the game that departed says so by its own finding


def test_a_balance_off_in_format_1_names_its_round() -> None:
    code, out = run("recall", str(SAMPLES / "disputed.yaml"), "--round", "9", "--last", "2")
    assert code == 1
    rows = out.splitlines()[3:5]
    assert all(row.rstrip().endswith("bal. off -1 since round 1") for row in rows), out
    assert "The recorded balance left the rules' chain at round 1: it is off by -1 since." in out
