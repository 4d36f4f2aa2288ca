"""Format 2, the live table (issue 19): one deal per game, many seats, the wallet."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.audit.games import GameFingerprint

from .conftest import check_json, run

DEAL = {"player": ["A♥", "K♦"], "flop": ["A♠", "7♦", "4♣"], "turn": "9♥", "river": "2♠", "dealer": ["Q♠", "Q♣"]}


def seat(who: str, ante: int = 1, decision: str = "call", **extra: Any) -> dict[str, Any]:
    return {"player_id": who, "ante": ante, "decision": decision, **extra}


def doc(games: list[dict[str, Any]], **session: Any) -> str:
    return json.dumps({"format": 2, "session": {"id": "T", "profile": "vivo", **session}, "games": games},
                      ensure_ascii=False)


def jsonl(games: list[dict[str, Any]], inline: bool = True, **session: Any) -> str:
    lines = [json.dumps({"session": {"id": "T", "profile": "vivo", **session}})]
    for game in games:
        seats = game.get("seats", [])
        head = game if inline else {k: v for k, v in game.items() if k != "seats"}
        lines.append(json.dumps(head, ensure_ascii=False))
        if not inline:
            lines += [json.dumps({"game": game["game"], "seat": s}) for s in seats]
    return "\n".join(lines) + "\n"


def put(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def findings(report: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    found = [(f["code"], f.get("game"), f.get("player")) for s in report["sessions"] for f in s["findings"]]
    return sorted(found + [(f["code"], f.get("game"), f.get("player")) for f in report["problems"]],
                  key=lambda x: (x[0], str(x[1]), str(x[2])))


def test_one_shared_deal_settles_every_seat_by_its_own_stakes(tmp_path: Path) -> None:
    games = [{"game": "g1", "round": 1, **DEAL, "seats": [
        seat("p1", recorded={"net": 3, "returned": 6, "balance": 103}),
        seat("p2", ante=2, recorded={"ante": 2, "call": 4, "net": 6}),
        seat("p3", decision="fold", recorded={"net": -1, "outcome": "fold"}),
    ]}]
    code, report = check_json(put(tmp_path, "t.yaml", doc(games, opening_balances={"p1": 100})))
    assert code == 0, findings(report)
    game = report["sessions"][0]["games"][0]
    assert (game["game"], game["outcome"], game["player_hand"], game["dealer_hand"], game["dealer_qualified"]) == \
        ("g1", "win", "pair", "pair", True)
    by_player = {s["player_id"]: s for s in game["seats"]}
    assert by_player["p2"]["settlement"] == {"ante": 2, "call": 4, "bonus": 0, "net": 6, "returned": 12,
                                             "staked": 6}
    assert by_player["p3"]["outcome"] == "fold" and by_player["p3"]["settlement"]["net"] == -1
    players = {p["player_id"]: p["ledger"] for p in report["sessions"][0]["players"]}
    assert players["p1"]["closing_balance"] == 103 and players["p1"]["verdict"] == "player"
    assert players["p3"]["verdict"] == "bank"
    ledger = report["sessions"][0]["ledger"]
    assert (ledger["games"], ledger["seats"], ledger["net"], ledger["players"]) == (1, 3, 8, 3)
    assert report["summary"]["games"]["seats"] == 3


def test_the_deal_is_evaluated_once_per_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.audit import fast
    from referee.audit import seats as seating
    from referee.rules.settlement import settle as real  # what seats.settle and fast.settle are

    calls = []

    def counting(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(seating, "settle", counting)
    monkeypatch.setattr(fast, "settle", counting)  # the fast path's memo settles a deal it has not seen
    monkeypatch.setattr(fast, "_MEMOS", {})
    seats = [seat(f"p{i}", ante=1 + i % 5, decision="call" if i % 3 else "fold", bonus=0) for i in range(60)]
    code, report = check_json(put(tmp_path, "t.json", doc([{"game": "g", **DEAL, "seats": seats}])))
    assert code == 0 and len(report["sessions"][0]["games"][0]["seats"]) == 60
    assert len(calls) == 2  # once for the callers, once for the folders


def test_seat_lines_audit_as_inline_seats(tmp_path: Path) -> None:
    games = [{"game": str(n), "round": n, **DEAL, "seats": [
        seat("a", recorded={"net": 3}), seat("b", ante=2, recorded={"net": 5})]} for n in (1, 2)]
    _, inline = check_json(put(tmp_path, "a.jsonl", jsonl(games)))
    _, lines = check_json(put(tmp_path, "b.jsonl", jsonl(games, inline=False)))
    assert findings(inline) == findings(lines) == [("P004", "1", "b"), ("P004", "2", "b")]
    assert [s["line"] for g in lines["sessions"][0]["games"] for s in g["seats"]] == [3, 4, 6, 7]
    assert [g["line"] for g in lines["sessions"][0]["games"]] == [2, 5]


def test_a_seat_line_after_another_game_is_an_orphan(tmp_path: Path) -> None:
    text = jsonl([{"game": "1", **DEAL}, {"game": "2", **DEAL}], inline=False)
    text += json.dumps({"game": "1", "seat": seat("a")}) + "\n"
    code, report = check_json(put(tmp_path, "o.jsonl", text))
    assert code == 1 and findings(report) == [("H007", "1", None)]


def test_cancelled_game_refunds_every_stake(tmp_path: Path) -> None:
    refund = [{"id": "t1", "kind": "debit", "amount": 3}, {"id": "t2", "kind": "refund", "amount": 3}]
    good = {"game": "c1", "status": "cancelled", **DEAL, "seats": [seat("a", recorded={"net": 0}, wallet=refund)]}
    code, report = check_json(put(tmp_path, "c.yaml", doc([good])))
    assert code == 0 and report["sessions"][0]["games"][0]["seats"][0]["outcome"] == "cancelled"
    assert report["sessions"][0]["ledger"]["cancelled_games"] == 1
    paid = {"game": "c2", "status": "cancelled", **DEAL, "seats": [
        seat("a", recorded={"outcome": "win", "net": 3},
             wallet=[{"id": "t1", "kind": "debit", "amount": 3}, {"id": "t2", "kind": "credit", "amount": 6}])]}
    _, report = check_json(put(tmp_path, "p.yaml", doc([paid])))
    assert findings(report) == [("G003", "c2", "a"), ("W002", "c2", "a"), ("W003", "c2", "a")]


def test_per_seat_cards_share_one_deck(tmp_path: Path) -> None:
    board = {k: v for k, v in DEAL.items() if k != "player"}
    ok = {"game": "s1", **board, "seats": [seat("a", player=["A♥", "K♦"], recorded={"net": 3}),
                                           seat("b", player=["2♣", "3♣"], recorded={"outcome": "lose"})]}
    code, report = check_json(put(tmp_path, "s.yaml", doc([ok])))
    assert code == 0 and report["sessions"][0]["games"][0]["dealer_hand"] == "pair"
    twice = {"game": "s2", **board, "seats": [seat("a", player=["A♥", "K♦"]), seat("b", player=["A♥", "3♣"])]}
    code, report = check_json(put(tmp_path, "d.yaml", doc([twice])))
    game = report["sessions"][0]["games"][0]
    assert game["outcome"] == "void" and "dealt twice" in game["void_reason"]
    assert all(s["outcome"] == "void" and s["settlement"]["net"] == 0 for s in game["seats"])
    assert findings(report) == [("V003", "s2", None)]


def test_wallet_mismatches_name_expected_and_recorded(tmp_path: Path) -> None:
    wallet = [{"id": "t1", "kind": "debit", "amount": 1}, {"id": "t2", "kind": "credit", "amount": 5},
              {"id": "t2", "kind": "refund", "amount": 1}]
    game = {"game": "w", **DEAL, "seats": [seat("a", wallet=wallet)]}
    code, report = check_json(put(tmp_path, "w.yaml", doc([game])))
    assert code == 1
    found = {f["code"]: f for f in report["sessions"][0]["findings"]}
    assert sorted(found) == ["W001", "W002", "W003", "W004"]
    assert (found["W001"]["expected"], found["W001"]["recorded"]) == (3, 1)
    assert (found["W002"]["expected"], found["W002"]["recorded"]) == (6, 5)
    assert (found["W003"]["expected"], found["W003"]["recorded"]) == (0, 1)
    assert found["W001"]["game"] == "w" and found["W001"]["player"] == "a"


def test_two_records_of_a_game_must_agree(tmp_path: Path) -> None:
    first = put(tmp_path, "a.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("a")]}]))
    same = put(tmp_path, "b.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("b")]}]))
    code, report = check_json(first, same)
    assert code == 0, findings(report)
    other = put(tmp_path, "c.jsonl", jsonl([{"game": "g", **DEAL, "river": "3♠", "seats": [seat("a")]}]))
    _, report = check_json(first, other)
    assert findings(report) == [("G001", "g", None), ("G002", "g", "a")]
    twice = put(tmp_path, "d.yaml", doc([{"game": "g", **DEAL, "seats": [seat("a"), seat("a")]}]))
    _, report = check_json(twice)
    assert findings(report) == [("G002", "g", "a")] and report["sessions"][0]["ledger"]["invalid_seats"] == 1


def test_balance_chain_per_player(tmp_path: Path) -> None:
    games = [{"game": str(n), "round": n, **DEAL, "seats": [
        seat("a", recorded={"balance": 3 * n}), seat("b", decision="fold", recorded={"balance": -n - (n > 1)})]}
        for n in (1, 2, 3)]
    _, report = check_json(put(tmp_path, "b.yaml", doc(games)))
    assert findings(report) == [("P005", "2", "b")]
    players = {p["player_id"]: p["ledger"] for p in report["sessions"][0]["players"]}
    assert players["a"]["closing_balance"] == 9 and players["b"]["recorded_closing_balance"] == -4


def test_a_balance_break_names_the_game_whose_balance_it_follows(tmp_path: Path) -> None:
    """A seat's P005 said 'does not follow from the opening balance -1', where -1 was
    the balance recorded at game 1 (a game id is no round number, and was dropped)."""
    games: list[dict[str, Any]] = [{"game": f"g{n}", "round": n, **DEAL, "seats": [
        seat("a", recorded={"balance": 3 * n}), seat("b", decision="fold", recorded={"balance": -n - (n > 1)})]}
        for n in (1, 2, 3)]
    for fmt, text in (("yaml", doc(games)), ("jsonl", jsonl(games)), ("seats.jsonl", jsonl(games, inline=False))):
        _, report = check_json(put(tmp_path, f"b.{fmt}", text))
        (p005,) = [f for f in report["sessions"][0]["findings"] if f["code"] == "P005"]
        assert p005["message"] == ("game g2, player b: balance -3 does not follow from game g1's recorded balance -1: "
                                   "by the rules and by the nets the table recorded -1 - 1 = -2 (1 less)"), fmt
    games[0]["seats"][1]["recorded"] = {}  # no balance at game 1: the opening balance is the anchor
    _, report = check_json(put(tmp_path, "o.yaml", doc(games, opening_balances={"b": 0})))
    (p005,) = [f for f in report["sessions"][0]["findings"] if f["code"] == "P005"]
    assert "does not follow from the opening balance 0: by the rules and by the nets the table recorded 0 - 2 = -2" \
        in p005["message"]


def test_the_tables_recorded_closing_balance_is_its_players(tmp_path: Path) -> None:
    """The session's recorded closing balance was the last seat's recorded balance
    (here b's -2, beside a closing balance of 6 - 2 + 0 = 4); it is the players' sum,
    and unknown while a player recorded none."""
    games: list[dict[str, Any]] = [{"game": str(n), "round": n, **DEAL, "seats": [
        seat("a", recorded={"balance": 3 * n}), seat("b", decision="fold", recorded={"balance": -n})]}
        for n in (1, 2)]
    for fmt, text in (("yaml", doc(games)), ("jsonl", jsonl(games)), ("seats.jsonl", jsonl(games, inline=False))):
        _, report = check_json(put(tmp_path, f"c.{fmt}", text), "--jobs", "1")
        assert report["sessions"][0]["ledger"]["closing_balance"] == 4
        assert report["sessions"][0]["ledger"]["recorded_closing_balance"] == 4, fmt
    games[1]["seats"].append(seat("c", decision="fold"))  # c records no balance
    _, report = check_json(put(tmp_path, "d.yaml", doc(games)))
    assert report["sessions"][0]["ledger"]["closing_balance"] == 3
    assert report["sessions"][0]["ledger"]["recorded_closing_balance"] is None


def test_numbering_and_stakes_of_a_table(tmp_path: Path) -> None:
    games = [{"game": str(n), "round": n, **DEAL, "seats": [seat("a", ante=1 if n < 3 else 2)]} for n in (1, 2, 3, 5)]
    _, report = check_json(put(tmp_path, "n.yaml", doc(games)))
    # a stake change that lasts is one S002, at the change (issue 27)
    assert findings(report) == [("S002", "3", "a"), ("S004", "5", None)]


def test_every_format_names_game_and_player(tmp_path: Path) -> None:
    path = put(tmp_path, "f.yaml", doc([{"game": "g7", **DEAL, "seats": [seat("p9", recorded={"net": 2})]}]))
    for fmt in ("text", "github", "jsonl", "junit"):
        code, out = run("check", "--format", fmt, path)
        assert code == 1 and "game g7" in out and "player p9" in out, fmt


def test_schema_command_prints_the_table_schema() -> None:
    code, out = run("schema", "table-history")
    assert code == 0 and json.loads(out)["title"] == "referee table history, format version 2"


def test_text_and_junit_reports_of_a_table(tmp_path: Path) -> None:
    games = [{"game": "g1", **DEAL, "seats": [seat("a", recorded={"net": 2}), seat("b", decision="fold")]},
             {"game": "g2", "status": "cancelled", **DEAL, "seats": [seat("a")]}]
    path = put(tmp_path, "r.yaml", doc(games))
    code, out = run("check", path)
    assert code == 1
    assert "Games 2 (1 counted, 0 void, 1 cancelled, 0 invalid), 3 seats, 2 players" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("g1 ", "g2 ", "a ", "b "))]
    assert rows[0][:2] == ["g1", "settled"] and rows[0][-1] == "P004"
    assert rows[1][:2] == ["g2", "cancelled"]
    assert rows[2][0] == "a" and rows[2][-1] == "player" and rows[3][-1] == "bank"
    _, xml = run("check", "--format", "junit", path)
    assert 'name="game g1 (line' in xml and xml.count("P004 [error] game g1, player a") == 1
    assert 'tests="3" failures="1" errors="0" skipped="1"' in xml


def _simulate(tmp_path: Path, name: str, *args: str) -> str:
    out = tmp_path / name
    code, _ = run("simulate", *args, "--output", str(out))
    assert code == 0
    return str(out)


@pytest.mark.parametrize("profile", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
def test_simulated_tables_are_clean(tmp_path: Path, profile: str) -> None:
    bonus = ("--bonus", "1") if profile.startswith("bonus") else ()
    for fmt, extra in (("yaml", ()), ("jsonl", ()), ("jsonl", ("--seat-lines",)), ("yaml", ("--own-cards",))):
        log = _simulate(tmp_path, f"t.{fmt}", "--seats", "1-9", "--rounds", "40", "--sessions", "2", "--seed", "3",
                        "--profile", profile, *bonus, "--format", fmt, *extra)
        code, report = check_json(log)
        assert code == 0, (fmt, extra, findings(report)[:5])
        games = report["summary"]["games"]
        assert games["counted"] + games["cancelled"] >= 80 and games["seats"] >= 80


def test_table_faults_are_found_exactly_as_the_manifest_says(tmp_path: Path) -> None:
    from collections import Counter

    manifest = tmp_path / "m.json"
    for extra in ((), ("--seat-lines",)):
        log = _simulate(tmp_path, "f.jsonl", "--seats", "2-12", "--rounds", "150", "--sessions", "3", "--seed", "8",
                        "--profile", "bonus-aa", "--bonus", "1", "--faults", "0.15", "--format", "jsonl",
                        "--faults-manifest", str(manifest), *extra)
        injected = json.loads(manifest.read_text())
        assert {i["kind"] for i in injected} == {"cards_differ", "wallet_credit", "wallet_debit", "player_twice",
                                                 "cancelled_paid", "swapped_games"}
        _, report = check_json(log)
        found = Counter((s["id"], f["game"], f["player"], f["code"]) for s in report["sessions"]
                        for f in s["findings"])
        expected = Counter((i["session"], i["game"], i["player"], i["code"]) for i in injected)
        assert found == expected


@pytest.mark.slow
def test_jobs_keep_games_whole_and_reports_identical(tmp_path: Path) -> None:
    log = _simulate(tmp_path, "big.jsonl", "--seats", "20-40", "--rounds", "60", "--sessions", "8", "--seed", "2",
                    "--faults", "0.1", "--format", "jsonl", "--seat-lines")
    assert Path(log).stat().st_size > 2 << 20
    outputs = [run("check", "--format", "json", "--jobs", jobs, log) for jobs in ("1", "2")]
    assert outputs[0] == outputs[1] and outputs[0][0] == 1


def test_simulated_tables_are_reproducible(tmp_path: Path) -> None:
    a = _simulate(tmp_path, "a.yaml", "--seats", "5", "--rounds", "10", "--seed", "9", "--faults", "0.3")
    b = _simulate(tmp_path, "b.yaml", "--seats", "5", "--rounds", "10", "--seed", "9", "--faults", "0.3")
    assert Path(a).read_bytes() == Path(b).read_bytes()
    code, out = run("simulate", "--seats", "30", "--own-cards")
    assert code == 2 and "at most 22" in out


def test_the_table_samples_and_the_docs_agree() -> None:
    from .conftest import ROOT, SAMPLES

    code, out = run("check", "--quiet", str(SAMPLES / "table.yaml"))
    shown = out.replace(str(SAMPLES / "table.yaml"), "samples/table.yaml")
    assert code == 1 and shown in (ROOT / "docs" / "live-tables.md").read_text(encoding="utf-8")


def test_the_jsonl_sample_is_the_yaml_sample_as_json_lines() -> None:
    """samples/table.jsonl is samples/table.yaml with a line per seat (scripts/table_jsonl.py
    writes it): the same findings, the same lines but for their numbers."""
    import re

    from scripts.table_jsonl import SAMPLES, lines

    yaml_code, yaml_out = run("check", "--quiet", str(SAMPLES / "table.yaml"))
    jsonl_code, jsonl_out = run("check", "--quiet", str(SAMPLES / "table.jsonl"))

    def unplaced(out: str, name: str) -> list[str]:
        return [re.sub(rf"^.*{re.escape(name)}:\d+: ", "", line) for line in out.splitlines()]

    assert yaml_code == jsonl_code == 1
    assert unplaced(yaml_out, "table.yaml") == unplaced(jsonl_out, "table.jsonl")
    import yaml

    document = yaml.safe_load((SAMPLES / "table.yaml").read_text(encoding="utf-8"))
    assert (SAMPLES / "table.jsonl").read_text(encoding="utf-8").splitlines() == lines(document)


def test_explain_a_seat_of_a_game() -> None:
    from .conftest import SAMPLES

    table = str(SAMPLES / "table.yaml")
    code, out = run("explain", table, "--game", "8812347", "--player", "p-1002")
    assert code == 1 and out.startswith("Game 8812347, player p-1002, session CH-7/2026-11-29/evening")
    assert "royal flush" in out and "W002" in out and "P001" in out
    code, out = run("explain", table, "--game", "8812344", "--format", "json")
    explained = json.loads(out)["explanations"]
    assert code == 0 and [e["player_id"] for e in explained] == ["p-1001", "p-1002", "p-1003"]
    assert {e["game"] for e in explained} == {"8812344"}
    for args in (("--game", "nope"), ("--game", "8812344", "--player", "p-9"),
                 ("--round", "1", "--game", "8812344"), ("--player", "p-1001", "--round", "1")):
        code, _ = run("explain", table, *args)
        assert code == 2, args


def test_explain_a_game_recorded_twice_says_the_records_differ(tmp_path: Path) -> None:
    """explain --game said a seat 'agrees with the ruling' (exit 0) when the game was
    recorded again with another river (G001) or the player seated in both records
    (G002): check makes those findings in the parent, which explain never ran."""
    other = {**DEAL, "river": "3d"}
    log = put(tmp_path, "twice.yaml", doc([{"game": "g", **DEAL, "seats": [seat("a"), seat("b", decision="fold")]},
                                           {"game": "g", **other, "seats": [seat("c", decision="fold"), seat("a")]},
                                           {"game": "h", **DEAL, "seats": [seat("a")]}]))
    code, out = run("explain", log, "--game", "g", "--player", "c")
    assert code == 1 and "G001 game-cards-differ (game g: recorded again with other cards" in out
    code, out = run("explain", log, "--game", "g", "--format", "json")
    explained = [(e["player_id"], sorted(f["code"] for f in e["findings"])) for e in json.loads(out)["explanations"]]
    both = ["G001", "G002"]
    assert code == 1 and explained == [("a", both), ("b", ["G001"]), ("c", ["G001"]), ("a", both)]
    code, out = run("explain", log, "--game", "h")
    assert code == 0 and "G00" not in out  # another game's records are not its


def test_stats_test_each_deal_once_and_group_by_player_table_dealer(tmp_path: Path) -> None:
    log = _simulate(tmp_path, "s.jsonl", "--seats", "30", "--rounds", "40", "--seed", "5", "--format", "jsonl")
    _, report = check_json(log)
    seats = sum(len(g["seats"]) for g in report["sessions"][0]["games"] if g["status"] == "settled")
    games = len({g["game"] for g in report["sessions"][0]["games"] if g["status"] == "settled"})  # a deal once
    assert games == report["summary"]["games"]["counted"] < len(report["sessions"][0]["games"])  # 2 written twice
    assert report["sessions"][0]["table"] == "T1" and report["sessions"][0]["currency"] == "EUR"
    _, out = run("stats", "--no-decisions", "--format", "json", log)
    stats = json.loads(out)
    assert stats["rounds"] == seats and stats["games"] == games
    assert all(p["n"] == games for p in stats["fairness"]["positions"])
    assert sum(g["rounds"] for g in stats["returns_by_player"]) == seats
    assert [g["table"] for g in stats["returns_by_table"]] == ["T1"]
    assert {g["dealer"] for g in stats["returns_by_dealer"]} == {"d-1", "d-2", "d-3"}
    _, text = run("stats", "--no-decisions", log)
    assert f"Live tables: {games} games" in text and "By dealer" in text


def test_explain_names_the_game_or_player_meant_by_one_edit(tmp_path: Path) -> None:
    """A game id or player id with a slip said only 'no game G2' or 'has no seat of
    player carl'."""
    log = put(tmp_path, "t.yaml", doc([{"game": "g1", **DEAL, "seats": [seat("carol")]},
                                       {"game": "g2", **DEAL, "seats": [seat("carol"), seat("bob")]}]))
    for args, said in ((("--game", "G2"), "no game G2; did you mean 'g2'?"),
                       (("--game", "g3"), "no game g3\n"),  # g1 and g2 are both one edit away: no guess
                       (("--game", "g2", "--player", "carl"), "no seat of player carl; did you mean 'carol'?"),
                       (("--game", "g2", "--player", "dave"), "game g2 has no seat of player dave\n"),
                       (("--game", "g2", "--session", "t"), "no session t; did you mean 'T'?")):
        code, out = run("explain", log, *args)
        assert code == 2 and said in out, (args, out)


def test_stats_test_a_deal_recorded_twice_once() -> None:
    """samples/table.jsonl records the games of samples/table.yaml again (check: G002 a
    seat): stats counted each deal twice in the fairness tests and said '6 games'."""
    from .conftest import SAMPLES

    runs = [json.loads(run("stats", "--no-decisions", "--format", "json", *files)[1])
            for files in ([str(SAMPLES / "table.yaml")], [str(SAMPLES / "table.yaml"), str(SAMPLES / "table.jsonl")])]
    once, twice = runs
    assert once["games"] == twice["games"] == 3  # the cancelled game deals nothing
    assert [p["n"] for p in twice["fairness"]["positions"]] == [p["n"] for p in once["fairness"]["positions"]]
    assert twice["rounds"] == 2 * once["rounds"]  # every seat of both records still counts for the returns


def test_stats_by_player_table_and_dealer_head_their_column_and_say_when_none(tmp_path: Path) -> None:
    """The group tables' first column was headed 'profile' (the title said it named the
    player); a log without dealer_id printed an empty 'By dealer' table."""
    _, out = run("stats", "--no-decisions", put(tmp_path, "t.yaml", doc([{"game": "g", **DEAL, "seats": [seat("a")]}])))
    assert "By player\nplayer    rounds" in out and "By table\ntable    rounds" in out
    assert "By dealer: no game names its dealer (dealer_id)." in out and "By dealer\n" not in out


def test_html_report_has_the_players_of_a_table(tmp_path: Path) -> None:
    from .conftest import SAMPLES

    out = tmp_path / "r.html"
    code, _ = run("report", str(SAMPLES / "table.yaml"), "-o", str(out))
    html = out.read_text(encoding="utf-8")
    assert code == 1 and "<h3>Players</h3>" in html and "Games 4 (3 counted, 0 void, 1 cancelled" in html
    assert html.count("<td>p-100") == 3


def test_html_findings_of_a_table_name_their_game(tmp_path: Path) -> None:
    """A table's findings table had a 'Round' column left empty (findings name a game)."""
    from .conftest import SAMPLES

    for lang, header in (("en", "<th>Game</th><th>Line</th>"), ("fr", "<th>Partie</th><th>Ligne</th>")):
        out = tmp_path / f"r-{lang}.html"
        run("report", str(SAMPLES / "table.yaml"), "-o", str(out), "--lang", lang)
        html = out.read_text(encoding="utf-8")
        cells = re.findall(r'<tr class="finding"><td>(?:<a href="#[^"]+">)?([^<]*)(?:</a>)?</td>', html)
        assert header in html and cells == ["8812345", "8812347", "8812347", "8812347"], (lang, cells)


def test_explain_says_what_the_wallet_paid(tmp_path: Path) -> None:
    """With a wallet, what the table paid is what the wallet moved (credits and refunds
    less debits), so a short credit is owed to the player even when the record's net agrees."""
    from .conftest import SAMPLES

    code, out = run("explain", str(SAMPLES / "table.yaml"), "--game", "8812345", "--player", "p-1002")
    assert code == 1 and ("The table paid +1 EUR by the wallet (recorded +2 EUR); the rules give +2 EUR; 1 EUR is "
                          "owed to the player.") in out
    wallet = [{"id": "t1", "kind": "debit", "amount": 1}, {"id": "t2", "kind": "debit", "amount": 2},
              {"id": "t3", "kind": "credit", "amount": 5}]
    recorded = {"net": 3}
    log = put(tmp_path, "w.yaml", doc([{"game": "w", **DEAL, "seats": [seat("a", wallet=wallet, recorded=recorded)]}]))
    code, out = run("explain", log, "--game", "w", "--player", "a")
    assert code == 1 and ("The table paid +2 by the wallet (recorded +3); the rules give +3; 1 is owed to the "
                          "player.") in out
    log = put(tmp_path, "r.yaml", doc([{"game": "w", **DEAL, "seats": [seat("a", wallet=wallet)]}]))
    code, out = run("explain", log, "--game", "w", "--player", "a")
    assert code == 1 and "The table paid +2; the rules give +3; 1 is owed to the player." in out
    log = put(tmp_path, "n.yaml", doc([{"game": "w", **DEAL, "seats": [seat("a", recorded=recorded)]}]))
    code, out = run("explain", log, "--game", "w", "--player", "a")
    assert code == 0 and "The table paid +3; the rules give +3; nobody is owed anything." in out


def test_a_game_id_is_unique_at_its_table(tmp_path: Path) -> None:
    """Two records of one game are matched by (table, game): other tables never clash;
    sessions with no table are matched across files as before."""
    first = put(tmp_path, "a.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("a")]}], table="T1"))
    other = put(tmp_path, "b.jsonl", jsonl([{"game": "g", **DEAL, "river": "3♠", "seats": [seat("a")]}],
                                           table="T2"))
    code, report = check_json(first, other)
    assert code == 0, findings(report)
    same = put(tmp_path, "c.jsonl", jsonl([{"game": "g", **DEAL, "river": "3♠", "seats": [seat("a")]}],
                                          table="T1"))
    _, report = check_json(first, same)
    assert findings(report) == [("G001", "g", None), ("G002", "g", "a")]


def test_independent_simulated_tables_checked_together_are_clean(tmp_path: Path) -> None:
    live = _simulate(tmp_path, "live.yaml", "--seats", "3", "--rounds", "5", "--seed", "7")
    lines = _simulate(tmp_path, "lt.jsonl", "--seats", "3", "--seat-lines", "--format", "jsonl", "--rounds", "4",
                      "--seed", "9")
    code, report = check_json(live, lines)
    assert code == 0, findings(report)


def _page(tmp_path: Path, log: str, *args: str) -> str:
    out = tmp_path / "r.html"
    run("report", log, "-o", str(out), *args)
    return out.read_text(encoding="utf-8")


def test_html_report_of_a_table_owes_counts_and_draws_per_player(tmp_path: Path) -> None:
    """What is owed is summed over seats (the wallet is what was paid: +160 on P004, +1 on
    the short credit); games and seats are counted; a balance line per player."""
    from .conftest import SAMPLES

    page = _page(tmp_path, str(SAMPLES / "table.yaml"))
    assert "Owed to the player: 161; owed to the house: 0" in page
    rows = dict(re.findall(r"<tr><th>([^<]*)</th><td class=\"n\">([^<]*)</td></tr>", page))
    assert (rows["Games"], rows["Counted games"], rows["Cancelled games"], rows["Seats"]) == ("4", "3", "1", "10")
    assert "Counted rounds" not in rows and rows["Net per Ante"] != "n/a"
    chart = page[page.index("Running balance"):page.index("<h3>Findings")]
    assert "<svg" in chart and "class=\"no_data\"" not in chart
    assert len(set(re.findall(r'class="series serie-(\d+)', chart))) == 3
    assert all(f">{p}<" in chart for p in ("p-1001", "p-1002", "p-1003"))
    players = page[page.index('<table class="players">'):page.index("</table>", page.index('<table class="players">'))]
    owed = {row[0]: row[-2:] for row in (re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in players.split("<tr>")) if row}
    assert owed == {"p-1001": ["0", "0"], "p-1002": ["161", "0"], "p-1003": ["0", "0"]}


def test_html_report_of_a_table_in_french(tmp_path: Path) -> None:
    from .conftest import SAMPLES

    page = _page(tmp_path, str(SAMPLES / "table.yaml"), "--lang", "fr")
    assert "Parties 4 (3 comptées, 0 annulée, 1 révoquée, 0 invalide), 10 places, 3 joueurs" in page
    players = page[page.index('<table class="players">'):page.index("</table>", page.index('<table class="players">'))]
    headers = re.findall(r"<th>([^<]*)</th>", players)
    assert "parties" in headers and "misé" in headers and not {"games", "staked", "player", "verdict"} - {
        "verdict"} & set(headers)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", players)
    assert "joueur" in cells and "banque" in cells and not {"player", "bank", "draw"} & set(cells)
    assert "Parties comptées" in page and "Games" not in re.findall(r"<th>([^<]*)</th>", page)


def test_html_report_of_a_crowded_table_says_why_it_has_no_chart(tmp_path: Path) -> None:
    log = _simulate(tmp_path, "many.yaml", "--seats", "20", "--rounds", "3", "--seed", "4")
    page = _page(tmp_path, log)
    chart = page[page.index("Running balance"):page.index("<h3>Findings")]
    assert "<svg" not in chart and "too many for one chart (at most 12)" in chart


def test_a_second_record_of_a_game_is_not_another_game(tmp_path: Path) -> None:
    """Two records of one game (two files, or two lines of one file) count one game; their
    seats are all counted (each a bet)."""
    first = put(tmp_path, "a.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("a")]}]))
    second = put(tmp_path, "b.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("b")]},
                                             {"game": "h", **DEAL, "seats": [seat("b")]}]))
    code, report = check_json(first, second)
    assert code == 0, findings(report)
    assert report["summary"]["games"]["games"] == 2 and report["summary"]["games"]["counted"] == 2
    assert report["summary"]["games"]["seats"] == 3
    assert [s["ledger"]["games"] for s in report["sessions"]] == [1, 1]
    both = put(tmp_path, "c.jsonl", jsonl([{"game": "g", **DEAL, "seats": [seat("a")]},
                                           {"game": "g", **DEAL, "status": "cancelled", "seats": [seat("b")]}]))
    _, report = check_json(both)
    ledger = report["sessions"][0]["ledger"]
    assert (ledger["games"], ledger["counted_games"], ledger["cancelled_games"], ledger["seats"]) == (1, 1, 0, 2)


def test_a_profile_that_does_not_load_is_worded_as_in_format_1(tmp_path: Path) -> None:
    vivo = (Path(__file__).parents[1] / "referee" / "data" / "profiles" / "vivo.yaml").read_text(encoding="utf-8")
    bad = vivo.replace("call_multiple: 2", "call_multiple: -2").replace("fixed_stakes: true", "fixed_stake: true")
    put(tmp_path, "house.yaml", bad)
    round1 = {"round": 1, "ante": 1, "decision": "fold", **DEAL}
    one = put(tmp_path, "one.json", json.dumps({"session": {"id": "S", "profile": "house.yaml"}, "rounds": [round1]},
                                                ensure_ascii=False))
    two = put(tmp_path, "two.json", doc([{"game": "g1", **DEAL, "seats": [seat("p1")]}], profile="house.yaml"))

    def h005(path: str) -> list[tuple[str, str, int]]:
        _, report = check_json(path)
        return [(f["message"], Path(f["file"]).name, f["line"]) for s in report["sessions"] for f in s["findings"]
                if f["code"] == "H005"]

    format1, format2 = h005(one), h005(two)
    assert len(format1) == 3 and format1[0][0].endswith("house.yaml is not valid (2 problems):")
    assert [m for m, *_ in format2] == [m for m, *_ in format1]
    assert format2[1:] == format1[1:] and {f for _, f, _ in format2[1:]} == {"house.yaml"}
    assert format2[0][1] == "two.json"


def test_one_mistyped_game_number_is_one_finding_as_in_format_1(tmp_path: Path) -> None:
    def games(numbers: list[int]) -> list[dict[str, Any]]:
        return [{"game": f"g{i}", "round": n, **DEAL, "seats": [seat("p1")]} for i, n in enumerate(numbers, 1)]

    _, report = check_json(put(tmp_path, "m.yaml", doc(games([1, 2, 7, 4, 5]))))
    session = report["sessions"][0]
    assert [(f["code"], f["game"], f["message"]) for f in session["findings"]] == [
        ("S009", "g3", "game g3: round number 7 where 3 was expected (round 4 follows)")]
    assert [g["game"] for g in session["games"]] == ["g1", "g2", "g3", "g4", "g5"]  # the held game keeps its place
    # a real gap (the next number goes on from the odd one) and a skip at the end keep their own verdicts
    _, report = check_json(put(tmp_path, "g.jsonl", jsonl(games([1, 2, 5, 6, 9]))))
    assert [(f["code"], f["game"]) for f in report["sessions"][0]["findings"]] == [("S004", "g3"), ("S004", "g5")]


_IDS = st.lists(st.text(st.sampled_from("a\x00é"), max_size=4) | st.text(max_size=6), max_size=5).map(tuple)


@settings(max_examples=300, deadline=None)
@given(_IDS, st.none() | st.lists(st.text(max_size=3), max_size=3).map(tuple))
def test_a_game_fingerprint_travels_whole(players: tuple[str, ...], cards: tuple[str, ...] | None) -> None:
    """Under --jobs a fingerprint is pickled with its player ids joined (GameFingerprint.
    __reduce__): any ids, the separator among them, none, or one empty id come back as
    they were, in order."""
    fp = GameFingerprint("g", "s", "f.jsonl", 3, cards, players, None, "void")
    back = pickle.loads(pickle.dumps(fp))
    assert back == fp
    assert type(back.players) is tuple


@pytest.mark.parametrize("games", [3, 205])
def test_text_row_of_a_second_record_shows_its_finding(tmp_path: Path, games: int) -> None:
    """A record of a game already seen is compared with the first once both are in (the
    finding is the session's, found after the row was made): its row in the text table
    shows the code, not "ok", and in a session too long to print every row it is kept."""
    other = {**DEAL, "river": "3♠"}
    log = [{"game": f"g{n}", **DEAL, "seats": [seat("a")]} for n in range(games)]
    log.append({"game": "g1", **other, "seats": [seat("b")]})  # other cards: G001
    log.append({"game": "g2", **DEAL, "seats": [seat("a")]})  # a player again: G002
    path = put(tmp_path, "t.jsonl", jsonl(log))
    for jobs in ("1", "2"):
        code, out = run("check", "--jobs", jobs, path)
        rows = [line.split() for line in out.splitlines() if line.startswith("g1 ") or line.startswith("g2 ")]
        first = [("g1", "ok"), ("g2", "ok")] if games < 200 else []  # a long session prints the flagged rows
        assert code == 1 and [(r[0], r[-1]) for r in rows] == [*first, ("g1", "G001"), ("g2", "G002")], out


def test_a_player_seated_again_in_a_second_record_is_one_g002(tmp_path: Path) -> None:
    """A player seated in two records of one game (two bet rows of one bet) is one G002:
    the second seat is a copy, not settled again, so neither a P005 on its balance nor a
    second game in the player's ledger."""
    log = [{"game": "g1", **DEAL, "seats": [seat("a", recorded={"balance": 3})]},
           {"game": "g1", **DEAL, "seats": [seat("b", recorded={"balance": 3}), seat("a", recorded={"balance": 3})]},
           {"game": "g2", **DEAL, "seats": [seat("a", recorded={"balance": 6})]}]
    for text in (doc(log, opening_balances={"a": 0, "b": 0}), jsonl(log, opening_balances={"a": 0, "b": 0}),
                 jsonl(log, inline=False, opening_balances={"a": 0, "b": 0})):
        name = "t.json" if text.startswith("{\"format") else "t.jsonl"
        code, report = check_json(put(tmp_path, name, text))
        assert code == 1 and findings(report) == [("G002", "g1", "a")]
        (a,) = [p for p in report["sessions"][0]["players"] if p["player_id"] == "a"]
        assert (a["ledger"]["games"], a["ledger"]["staked"]) == (2, 6)


def test_a_game_with_no_seat_is_not_counted_and_a_malformed_deal_is_still_void(tmp_path: Path) -> None:
    """``seats: []``: nothing to rule, so not "counted"; its deal is the table's, so a
    malformed one is still a V003, not an "ok" game."""
    game = ("  - game: '{gid}'\n    status: settled\n    player: [AH, KD]\n    flop: [AS, {card}, 4C]\n"
            "    turn: 9H\n    river: 2S\n    dealer: [QS, QC]\n    seats: []\n")
    log = tmp_path / "empty-games.yaml"
    log.write_text("format: 2\nsession: {id: S, profile: vivo, table: T}\ngames:\n"
                   + game.format(gid="1", card="ZZ") + game.format(gid="2", card="7D"), encoding="utf-8")
    code, out = run("check", str(log), "--quiet")
    assert code == 0, out  # V003 is information: a void deal correctly handled
    assert "V003" in out and "2 games (0 counted, 1 void, 0 cancelled, 1 invalid)" in out


def test_what_was_paid_is_said_alike_by_every_command_each_figure_labelled() -> None:
    """Game 8812345 of the sample: p-1002's record says +2, the wallet moved +1, the rules
    give +2. ``check``, ``recall`` and ``explain`` each show both, labelled, in text and
    JSON (issue 43: recall said the record, explain the wallet, and neither said which)."""
    from .conftest import SAMPLES

    log = str(SAMPLES / "table.yaml")
    _, text = run("check", log)
    header = next(line for line in text.splitlines() if line.startswith("game "))
    assert header.split()[9:15] == ["net", "(rules)", "net", "(recorded)", "net", "(wallet)"]
    row = next(line for line in text.splitlines() if line.startswith("8812345"))
    assert row.split()[-4:] == ["+2", "+2", "+1", "W002"]
    _, recall = run("recall", log, "--player", "p-1002")
    row = next(line for line in recall.splitlines() if "8812345" in line)
    cells = recall.splitlines()[1].split("  ")
    assert [c.strip() for c in cells if c.strip().startswith("net")] == ["net (rules)", "net (recorded)",
                                                                          "net (wallet)"]
    assert "+2             +2                +1" in row
    _, doc_text = run("recall", log, "--player", "p-1002", "--game", "8812345", "--last", "1", "--format", "json")
    (view,) = [v for v in json.loads(doc_text)["recalls"][0]["rounds"] if v["player"] == "p-1002"]
    assert view["net"] == {"rules": 2, "recorded": 2, "wallet": 1}
    _, doc_text = run("explain", log, "--game", "8812345", "--player", "p-1002", "--format", "json")
    bottom = json.loads(doc_text)["explanations"][0]["bottom_line"]
    assert (bottom["paid"], bottom["recorded"], bottom["wallet"], bottom["rules"], bottom["owed"]) == (1, 2, 1, 2, 1)
    _, report = check_json(log)
    (seat_line,) = [s["bottom_line"] for s in report["sessions"][0]["games"][1]["seats"] if s["player_id"] == "p-1002"]
    assert {k: seat_line[k] for k in ("paid", "recorded", "wallet")} == {"paid": 1, "recorded": 2, "wallet": 1}
