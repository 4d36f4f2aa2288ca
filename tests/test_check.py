"""`referee check` (issue 3): findings, voids, ledger, exit codes, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import HAND_HISTORIES, SAMPLES, Write, check_json, codes, run

HEAD = "session:\n  id: t\n  profile: vivo\n  rounds_agreed: 1\nrounds:\n"
WORKED = ("  - round: 1\n    ante: 1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
          "    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n")


def one(write: Write, recorded: str = "", round_text: str = WORKED, head: str = HEAD) -> tuple[int, dict[str, Any]]:
    text = head + round_text + (f"    recorded: {{{recorded}}}\n" if recorded else "")
    return check_json(write("s.yaml", text))


def test_clean_sample_exit_0() -> None:
    code, report = check_json(str(SAMPLES / "clean.yaml"))
    assert code == 0 and codes(report) == []
    session = report["sessions"][0]
    first = session["rounds"][0]
    assert first["outcome"] == "win" and first["player_hand"] == "pair" and first["dealer_qualified"] is True
    assert first["settlement"] == {"ante": 1, "call": 2, "bonus": 0, "net": 3, "returned": 6, "staked": 3}
    assert session["ledger"]["counted_rounds"] == 20 and session["ledger"]["verdict"] in ("player", "bank", "draw")
    assert report["inputs"][0]["sha256"] and report["summary"]["exit_code"] == 0


def test_disputed_sample() -> None:
    code, report = check_json(str(SAMPLES / "disputed.yaml"))
    assert code == 1
    # Round 10's balance is a one-off slip the table corrected in round 11: one P005.
    assert codes(report) == ["K001", "K003", "P002", "P004", "P005"]
    first = next(f for f in report["sessions"][0]["findings"] if f["code"] == "P004")
    assert (first["expected"], first["recorded"], first["round"]) == (3, 2, 1)
    assert first["line"] == 23


def test_void_sample() -> None:
    code, report = check_json(str(SAMPLES / "void.yaml"))
    assert code == 1 and codes(report) == ["V001", "V003", "V003"]
    ledger = report["sessions"][0]["ledger"]
    assert (ledger["counted_rounds"], ledger["void_rounds"]) == (20, 3)
    voids = [r for r in report["sessions"][0]["rounds"] if r["outcome"] == "void"]
    assert all(r["void_reason"] for r in voids) and all(r["settlement"]["net"] == 0 for r in voids)


def test_every_sample_other_than_disputed_and_void_is_clean() -> None:
    for name in ("clean.yaml", "caribbean.yaml", "bonus.yaml", "log.jsonl"):
        code, report = check_json(str(SAMPLES / name))
        assert code == 0, (name, codes(report))


@pytest.mark.parametrize(("recorded", "code"), [
    ("player_hand: two_pair", "K001"),
    ("dealer_hand: high_card", "K002"),
    ("dealer_qualified: false", "K003"),
    ("ante: 2", "P001"),
    ("call: 1", "P002"),
    ("net: 2", "P004"),
    ("net: 3, balance: 4", "P005"),
    ("outcome: lose", "P006"),
    ("returned: 5", "P007"),
    ("void: true", "V002"),
])
def test_record_findings(write: Write, recorded: str, code: str) -> None:
    head = HEAD.replace("rounds_agreed: 1\n", "rounds_agreed: 1\n  opening_balance: 0\n")
    exit_code, report = one(write, recorded, head=head)
    assert exit_code == 1 and codes(report) == [code]


def test_bonus_result_and_bonus_not_offered(write: Write) -> None:
    bonus_round = WORKED.replace("    ante: 1\n", "    ante: 1\n    bonus: 1\n")
    _, report = one(write, "bonus: 6", bonus_round, HEAD.replace("vivo", "bonus-100"))
    assert codes(report) == ["P003"]
    _, report = one(write, "", bonus_round)
    assert codes(report) == ["S006"]


def test_void_settled_as_valid(write: Write) -> None:
    _, report = one(write, "net: 3", WORKED.replace("2♠", "A♥"))
    assert codes(report) == ["S005", "V001"]


def test_stakes(write: Write) -> None:
    _, report = one(write, "", WORKED.replace("    ante: 1\n", "    ante: 1\n    call: 1\n"))
    assert codes(report) == ["S001"]
    _, report = one(write, "", WORKED.replace("    ante: 1\n", "    ante: 0.001\n"))
    assert codes(report) == ["S008"]
    two = WORKED + WORKED.replace("round: 1", "round: 2").replace("ante: 1", "ante: 2")
    _, report = one(write, "", two, HEAD.replace("rounds_agreed: 1", "rounds_agreed: 2"))
    assert codes(report) == ["S002"]


@pytest.mark.parametrize(("numbers", "expected"), [
    ((1, 2, 2), ["S003"]), ((1, 3, 4), ["S004"]), ((2, 1, 3), ["S009"]), ((1, 3, 4, 2), ["S004", "S009"]),
    ((1, 2, 3), []),
])
def test_numbering(write: Write, numbers: tuple[int, ...], expected: list[str]) -> None:
    rounds = "".join(WORKED.replace("round: 1", f"round: {n}") for n in numbers)
    # A verbatim repeated record is not a round played: the distinct rounds are agreed.
    _, report = one(write, "", rounds, HEAD.replace("rounds_agreed: 1", f"rounds_agreed: {len(set(numbers))}"))
    assert codes(report) == expected


def test_round_count_is_a_warning_and_strict_fails(write: Write) -> None:
    path = write("s.yaml", HEAD.replace("rounds_agreed: 1", "rounds_agreed: 2") + WORKED)
    code, report = check_json(path)
    assert code == 0 and codes(report) == ["S005"]
    code, _ = check_json("--strict", path)
    assert code == 1


def test_funds_under_caribbean(write: Write) -> None:
    head = HEAD.replace("vivo", "caribbean") + ""
    head = head.replace("rounds_agreed: 1\n", "rounds_agreed: 1\n  opening_balance: 2\n")
    _, report = one(write, "", WORKED, head)
    assert codes(report) == ["S007"]


def test_profile_override_and_unknown_profile(write: Write) -> None:
    path = write("s.yaml", HEAD + WORKED.replace("Q♠, Q♣", "2♥, 3♣"))
    _code, report = check_json("--profile", "caribbean", path)
    assert report["sessions"][0]["profile"] == "caribbean"
    _, report = one(write, "", WORKED, HEAD.replace("vivo", "vivo2"))
    assert codes(report) == ["H005"]


BAD_INPUT = [
    ("bad.yaml", "session: [unclosed\n", "H000", 2),
    ("bad.json", '{"session": {"id": "x"}, "rounds": [}', "H000", 2),
    ("bad.yaml", HEAD + WORKED.replace("ante: 1", "ante: abc"), "H001", 1),
    ("bad.yaml", HEAD + WORKED.replace("player: [A♥, K♦]", "player: [14, K♦]"), "H001", 1),
    ("bad.yaml", HEAD + WORKED.replace("dealer:", "dealr:"), "H002", 1),
    ("bad.yaml", HEAD + WORKED.replace("    ante: 1\n", "    ante: 1\n    ante: 2\n"), "H003", 2),
    ("bad.json", '{"session": {"id": "x", "id": "y"}, "rounds": []}', "H003", 2),
    ("bad.jsonl", '{"session": {"id": "x"}}\n{"round": 1, "round": 2}\n', "H003", 1),
    ("bad.yaml", "a: &x [1, 2]\nb: *x\n", "H000", 2),
    ("bad.yaml", "session: {id: x}\nrounds: [\x00]\n", "H000", 2),
    ("bad.yaml", HEAD + WORKED.replace("decision: call", ""), "H001", 1),
    ("bad.jsonl", '{"session": {"id": "x"}}\n{"round": 1, "ante": \n', "H004", 1),
    ("bad.jsonl", '{"round": 1}\n', "H006", 1),
    ("empty.yaml", "", "H000", 2),
]


@pytest.mark.parametrize(("name", "text", "code", "exit_code"), BAD_INPUT)
def test_bad_input_is_a_finding_never_a_traceback(write: Write, name: str, text: str, code: str,
                                                  exit_code: int) -> None:
    got, report = check_json(write(name, text))
    assert got == exit_code and code in codes(report)
    all_findings = report["problems"] + [f for s in report["sessions"] for f in s["findings"]]
    assert all(f["file"].endswith(name) and f["message"] for f in all_findings)


def test_did_you_mean(write: Write) -> None:
    _, report = check_json(write("s.yaml", HEAD + WORKED.replace("dealer:", "dealr:")))
    message = next(f for f in report["sessions"][0]["findings"] if f["code"] == "H002")["message"]
    assert "did you mean 'dealer'" in message


def test_a_json_lines_record_key_one_edit_away_is_named(write: Write) -> None:
    """A line with no record key said only what a record is; a key one edit from one
    ('sesion') is named, and a merely similar one ('decision', 'version') is not."""
    lines = ['{"sesion": {"id": "x"}}', '{"rond": 1}', '{"decision": "fold", "version": 1}', '{"Round": 1}']
    _, report = check_json(write("k.jsonl", "\n".join(lines) + "\n"))
    messages = [f["message"] for f in report["problems"] if f["code"] == "H004"]
    assert len(messages) == 4 and all("object with a 'session', 'round', 'game' or 'seat' key" in m for m in messages)
    assert [m.partition("; ")[2] for m in messages] == [
        "unknown key 'sesion': did you mean 'session'?", "unknown key 'rond': did you mean 'round'?", "",
        "unknown key 'Round': did you mean 'round'?"]


def test_a_value_of_the_wrong_kind_says_what_is_expected_in_words(write: Write) -> None:
    """Hand histories said pydantic's 'Input should be a valid decimal', where a
    profile's problems say 'expected a number' (and never 'Input should')."""
    bad = WORKED.replace("ante: 1", "ante: one").replace("decision: call", "decision: call\n    recorded: {void: yess}")
    _, report = check_json(write("s.yaml", HEAD + bad))
    messages = [f["message"] for f in report["sessions"][0]["findings"] if f["code"] == "H001"]
    assert messages == ["round 1: ante: expected a number, got 'one'",
                        "round 1: recorded.void: expected true or false, got 'yess'"]


def test_one_bad_round_does_not_stop_the_others(write: Write) -> None:
    two = WORKED.replace("ante: 1", "ante: abc") + WORKED.replace("round: 1", "round: 2")
    _, report = check_json(write("s.yaml", HEAD.replace("rounds_agreed: 1", "rounds_agreed: 1") + two))
    rounds = report["sessions"][0]["rounds"]
    assert rounds[0]["outcome"] is None and rounds[1]["outcome"] == "win"


def test_stdin_and_text_format() -> None:
    text = (SAMPLES / "disputed.yaml").read_text(encoding="utf-8")
    code, out = run("check", "-", input=text)
    assert code == 1 and "-:23: P004 [error] round 1" in out and "Session result" in out


def test_json_input_has_field_lines(write: Write) -> None:
    text = ('{"session": {"id": "j"},\n "rounds": [\n  {"round": 1, "ante": 1, "player": ["Ah", "Kd"],\n'
            '   "flop": ["As", "7d", "4c"], "decision": "call", "turn": "9h", "river": "2s",\n'
            '   "dealer": ["Qs", "Qc"],\n   "recorded": {\n    "net": 2}}]}\n')
    _, report = check_json(write("s.json", text))
    finding = next(f for f in report["sessions"][0]["findings"] if f["code"] == "P004")
    assert finding["line"] == 7


def test_usage_errors_exit_2() -> None:
    code, out = run("check", "no/such/file.yaml")
    assert code == 2 and "no such file" in out
    code, _ = run("check", "--format", "nope", str(SAMPLES / "clean.yaml"))
    assert code == 2


def test_directory_and_output(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for sample in HAND_HISTORIES:
        (folder / sample.name).write_bytes(sample.read_bytes())
    out = tmp_path / "report.json"
    code, text = run("check", "--format", "json", "--output", str(out), str(folder))
    assert code == 1 and "files" in text and out.read_text().startswith('{"referee"')


def test_a_folder_holding_exports_says_they_are_read_with_a_mapping() -> None:
    """Found in a folder, an export is skipped (issue 46), with a notice saying how it is read."""
    code, out = run("check", "--quiet", str(SAMPLES))
    assert code == 1 and f"referee: {SAMPLES}/exports/evolution-history.json: skipped, not a hand history" in out
    assert "a provider's export is read with --mapping" in out


def test_non_utf8_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"session": {"id": "x"},\n "rounds": [], "n": "caf\xe9"}\n')
    code, report = check_json(str(path))
    problem = report["problems"][0]
    assert code == 2 and problem["line"] == 2 and "column 25" in problem["message"]


def _swapped_log(tmp_path: Path, slip: int = 0) -> tuple[Path, list[str]]:
    """A clean simulated log with rounds 3 and 4 written in each other's place (each
    balance still the one after it in play); ``slip`` added to round 4's balance only."""
    log = tmp_path / "log.jsonl"
    status, out = run("simulate", "--rounds", "8", "--seed", "5", "--format", "jsonl", "--output", str(log))
    assert status == 0, out
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[3].startswith('{"round":3,') and lines[4].startswith('{"round":4,')
    record = json.loads(lines[4])
    record["recorded"]["balance"] += slip
    lines[3], lines[4] = json.dumps(record, separators=(",", ":")), lines[3]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log, lines


def test_two_swapped_rounds_are_one_finding(tmp_path: Path) -> None:
    """Rounds 1, 2, 4, 3, 5...: one S009 on the late round 3, at its line; round 4's number
    and both balances are right (each follows the round before it in play)."""
    log, _ = _swapped_log(tmp_path)
    code, report = check_json(str(log))
    found = [(f["code"], f["round"], f["line"]) for s in report["sessions"] for f in s["findings"]]
    assert code == 1 and found == [("S009", 3, 5)]


def test_a_wrong_balance_in_a_swap_is_still_found(tmp_path: Path) -> None:
    log, _ = _swapped_log(tmp_path, slip=7)
    code, report = check_json(str(log))
    found = [(f["code"], f["round"], f["line"]) for s in report["sessions"] for f in s["findings"]]
    assert code == 1 and found == [("P005", 4, 4), ("S009", 3, 5)]


def test_a_misspelt_required_key_is_one_finding(write: Write) -> None:
    """'desicion' for 'decision': one slip, one finding (the unknown key's, naming the
    field it leaves missing), not also 'decision: required field is missing'."""
    _, report = check_json(write("s.yaml", HEAD + WORKED.replace("decision: call", "desicion: call")))
    found = [(f["code"], f["message"]) for f in report["sessions"][0]["findings"] if f["code"] != "S005"]
    assert found == [("H002", "round 1: unknown field 'desicion'; did you mean 'decision'? "
                              "(without it, 'decision' is missing)")]
    _, report = check_json(write("t.yaml", HEAD + WORKED.replace("decision: call", "decision: call\n    desicion: x")))
    found = [(f["code"], f["message"]) for f in report["sessions"][0]["findings"] if f["code"] != "S005"]
    assert found == [("H002", "round 1: unknown field 'desicion'; did you mean 'decision'?")]
