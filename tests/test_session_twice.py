"""A format-1 session given twice (issue 43, "Trust by default"): the same session again is
one ``S010`` at its own header and is said, counted and stored once; another record under
the same id is one ``S011`` naming both places, both audited. Across files and within one,
in one process or several, as ``G001``/``G002`` are for a live table's games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee import pipeline
from referee.load.inputs import Source
from referee.pipeline import holding, tasks

from .conftest import SAMPLES, check_json, run
from .conftest import codes as found_codes
from .test_store import counts

CLEAN, DISPUTED, LOG = SAMPLES / "clean.yaml", SAMPLES / "disputed.yaml", SAMPLES / "log.jsonl"
FOLD = ('{{"round": {n}, "ante": 1, "player": ["2c", "7d"], "flop": ["Jh", "Qs", "4c"], "decision": "fold", '
        '"recorded": {{"net": -1, "balance": {balance}}}}}\n')


def commented(path: Path, folder: Path, name: str = "b.yaml") -> Path:
    """A copy of ``path`` with one comment line added at its top."""
    copy = folder / name
    copy.write_text("# exported again\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return copy


def session(ident: str, balances: list[int]) -> str:
    """A JSON Lines session of folds, each round recording the balance given."""
    return (json.dumps({"session": {"id": ident, "profile": "vivo", "opening_balance": 0}}) + "\n"
            + "".join(FOLD.format(n=n, balance=b) for n, b in enumerate(balances, start=1)))


def problems(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    every = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    return [f for f in every if f["code"] == code]


# --- the same session again ------------------------------------------------------------------


def test_a_copy_with_a_comment_is_one_session_counted_once(tmp_path: Path) -> None:
    copy = commented(CLEAN, tmp_path)
    alone = check_json(str(CLEAN))[1]
    code, report = check_json(str(CLEAN), str(copy))
    assert code == 0  # a warning: nothing is counted twice
    summary = report["summary"]
    assert (summary["sessions"], summary["rounds"], summary["counted_rounds"]) == (1, 20, 20)
    assert (summary["staked"], summary["returned"]) == (alone["summary"]["staked"], alone["summary"]["returned"])
    assert found_codes(report) == ["S010"]
    (finding,) = problems(report, "S010")
    assert (finding["file"], finding["line"], finding["severity"]) == (str(copy), 2, "warning")
    assert f"{CLEAN}:1" in finding["message"] and "20 rounds" in finding["message"]
    assert [s["file"] for s in report["sessions"]] == [str(CLEAN)]  # its rounds are not said again
    assert run("check", "--strict", str(CLEAN), str(copy))[0] == 1


def test_stats_observes_a_copy_once(tmp_path: Path) -> None:
    copy = commented(CLEAN, tmp_path)
    code, out = run("stats", "--no-decisions", "--format", "json", str(CLEAN), str(copy))
    assert code == 0, out
    alone = json.loads(run("stats", "--no-decisions", "--format", "json", str(CLEAN))[1])
    both = json.loads(out)
    assert both["rounds"] == alone["rounds"] == 20
    assert both["returns"] == alone["returns"]


def test_a_repeated_session_says_its_faults_once(tmp_path: Path) -> None:
    """disputed.yaml has findings of its own: given twice they are said once, with one S010
    (no P-finding, S-finding or count of its rounds again)."""
    copy = commented(DISPUTED, tmp_path)
    alone = check_json(str(DISPUTED))[1]
    code, report = check_json(str(DISPUTED), str(copy))
    assert code == 1
    assert found_codes(report) == sorted([*found_codes(alone), "S010"])
    assert report["summary"]["rounds"] == alone["summary"]["rounds"]
    text = run("check", str(DISPUTED), str(copy))[1]
    assert text.count(str(copy)) == 2  # its S010 and its input line: nothing else names it


def test_the_same_session_in_another_format_is_a_repeat(tmp_path: Path) -> None:
    """Records compared as read, not as bytes: clean.yaml written as a JSON document."""
    other = tmp_path / "clean.json"
    other.write_text(json.dumps(yaml.safe_load(CLEAN.read_text(encoding="utf-8"))), encoding="utf-8")
    code, report = check_json(str(CLEAN), str(other))
    assert code == 0 and found_codes(report) == ["S010"] and report["summary"]["rounds"] == 20


def test_sessions_repeated_within_one_json_lines_file(tmp_path: Path) -> None:
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(LOG.read_bytes() * 2)
    alone = check_json(str(LOG))[1]
    code, report = check_json(str(doubled))
    assert code == 0
    assert report["summary"]["rounds"] == alone["summary"]["rounds"] == 60
    lines = [f["line"] for f in problems(report, "S010")]
    assert lines == [64, 85, 106]  # each repeat at its own session line
    assert all(f["file"] == str(doubled) for f in problems(report, "S010"))


@pytest.mark.parametrize("fast", ["1", "0", "verify"])
def test_a_repeat_is_found_on_the_fast_lane_and_off_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        fast: str) -> None:
    """A round the fast decode read and one read in full digest alike."""
    monkeypatch.setenv("REFEREE_FAST", fast)
    log = tmp_path / "log.jsonl"
    log.write_text(session("s", [-1, -2, -3]) + session("s", [-1, -2, -3]), encoding="utf-8")
    code, report = check_json(str(log))
    assert (code, found_codes(report), report["summary"]["rounds"]) == (0, ["S010"], 3)


def test_a_long_session_is_compared_whole(tmp_path: Path) -> None:
    """Past the digest's first block (64 KiB of records): the last round still counts."""
    balances = [-n for n in range(1, 1201)]
    log = tmp_path / "log.jsonl"
    log.write_text(session("s", balances) + session("s", balances) + session("s", [*balances[:-1], -1199]),
                   encoding="utf-8")
    report = check_json(str(log))[1]
    assert found_codes(report) == ["P005", "S010", "S011"] and report["summary"]["rounds"] == 2400


def test_a_session_without_an_id_is_never_compared(tmp_path: Path) -> None:
    """Named after its file (a.yaml#1): two such files in two folders are two sessions."""
    text = "".join(line for line in CLEAN.read_text(encoding="utf-8").splitlines(keepends=True))
    body = text[text.index("rounds:"):]
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.yaml").write_text(body, encoding="utf-8")
    report = check_json(str(tmp_path / "x" / "a.yaml"), str(tmp_path / "y" / "a.yaml"))[1]
    assert report["summary"]["rounds"] == 40
    assert not problems(report, "S010") and not problems(report, "S011")


# --- another record under the same id -----------------------------------------------------------


@pytest.mark.parametrize("faulty_first", [True, False])
def test_two_records_of_one_session_conflict(tmp_path: Path, faulty_first: bool) -> None:
    """One with a P005, one clean: both audited (the P005 said once, where it is), both
    counted, and one S011 at the second record's header naming the first."""
    clean, faulty = session("s", [-1, -2, -3]), session("s", [-1, -5, -6])
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(faulty if faulty_first else clean, encoding="utf-8")
    second.write_text(clean if faulty_first else faulty, encoding="utf-8")
    code, report = check_json(str(first), str(second))
    assert code == 1
    assert found_codes(report) == ["P005", "S011"]
    assert problems(report, "P005")[0]["file"] == str(first if faulty_first else second)
    (conflict,) = problems(report, "S011")
    assert (conflict["file"], conflict["line"], conflict["severity"]) == (str(second), 1, "error")
    assert f"{first}:1" in conflict["message"]
    assert report["summary"]["sessions"] == 2 and report["summary"]["rounds"] == 6


def test_a_conflict_within_one_file(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(session("s", [-1, -2]) + session("s", [-1, -2, -3]), encoding="utf-8")
    code, report = check_json(str(log))
    (conflict,) = problems(report, "S011")
    assert code == 1 and conflict["line"] == 4 and f"{log}:1" in conflict["message"]
    assert "3 rounds here, 2 rounds there" in conflict["message"]
    assert report["summary"]["rounds"] == 5


def test_a_third_record_is_compared_with_each_before(tmp_path: Path) -> None:
    """a, b (other), a again: one S011 (b), one S010 (the third is the first again)."""
    log = tmp_path / "log.jsonl"
    log.write_text(session("s", [-1]) + session("s", [-1, -2]) + session("s", [-1]), encoding="utf-8")
    report = check_json(str(log))[1]
    assert found_codes(report) == ["S010", "S011"]
    assert problems(report, "S010")[0]["line"] == 6 and report["summary"]["rounds"] == 3


# --- one process or several, held in memory or on disk ---------------------------------------------


def _corpus(tmp_path: Path) -> list[str]:
    """Repeats and conflicts across chunks of one file and across files."""
    code, _ = run("simulate", "--sessions", "12", "--rounds", "40", "--seed", "11", "--faults", "0.1", "--format",
                  "jsonl", "--output", str(tmp_path / "sim.jsonl"))
    assert code == 0
    sim = (tmp_path / "sim.jsonl").read_text(encoding="utf-8")
    big = tmp_path / "big.jsonl"
    changed = sim.replace('"net":1,', '"net":2,', 1)
    big.write_text(sim + changed + session("s", [-1, -2]) + session("s", [-1, -2]), encoding="utf-8")
    return [str(big), str(CLEAN), str(commented(CLEAN, tmp_path)), str(DISPUTED), str(commented(DISPUTED, tmp_path,
                                                                                              "d.yaml"))]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_jobs_give_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    files = _corpus(tmp_path)
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(tasks, "MIN_CHUNK_BYTES", 1)
    assert len(list(pipeline.plan([Source(f, Path(f)) for f in files], pipeline.chunk_sizes(2)))) > len(files)
    one = run("check", "--format", fmt, "--jobs", "1", *files)
    two = run("check", "--format", fmt, "--jobs", "2", *files)
    assert one == two
    assert one[0] == 1 and "S010" in one[1] and "S011" in one[1]
    monkeypatch.setattr(holding, "HOLD_ROUNDS", 3)  # a held session written to disk reads back the same
    assert run("check", "--format", fmt, "--jobs", "1", *files) == one
    assert run("check", "--format", fmt, "--jobs", "2", *files) == one


# --- the store ----------------------------------------------------------------------------------------


def test_a_repeated_session_is_stored_once(store_url: str, tmp_path: Path) -> None:
    copy = commented(CLEAN, tmp_path)
    plain = run("check", "--format", "json", str(CLEAN), str(copy))
    stored = run("check", "--format", "json", "--store", store_url, str(CLEAN), str(copy))
    assert stored[0] == plain[0] == 0
    assert json.loads(_json(stored[1])) == json.loads(_json(plain[1]))  # storing changes nothing in the report
    found = counts(store_url)
    assert (found["sessions"], found["seats"], found["findings"]) == (1, 20, 1)
    code, out = run("stats", "--no-decisions", "--format", "json", "--store", store_url)
    assert code == 0 and json.loads(out)["rounds"] == 20


def _json(out: str) -> str:
    """The report of ``check --store``'s output (its store line is on standard error)."""
    return out[out.index("{"):out.rindex("}") + 1]


def test_a_session_stored_before_is_compared_in_a_later_check(store_url: str, tmp_path: Path) -> None:
    """As G001/G002 are for a game: another day, another run, as if both were in one."""
    copy, other = commented(CLEAN, tmp_path), tmp_path / "other.yaml"
    other.write_text(CLEAN.read_text(encoding="utf-8").replace("      net: 3\n", "      net: 4\n", 1),
                     encoding="utf-8")
    assert run("check", "--store", store_url, str(CLEAN))[0] == 0
    code, out = run("check", "--format", "json", "--store", store_url, str(copy))
    report = json.loads(_json(out))
    assert code == 0 and found_codes(report) == ["S010"] and report["summary"]["rounds"] == 0
    assert f"{CLEAN}:1" in problems(report, "S010")[0]["message"]
    assert counts(store_url) == {"sessions": 1, "games": 0, "seats": 20, "findings": 1, "second_records": 0}
    again = run("check", "--format", "json", "--store", store_url, str(CLEAN))
    assert again[0] == 0 and found_codes(json.loads(_json(again[1]))) == []  # not a repeat of itself
    code, out = run("check", "--format", "json", "--store", store_url, str(other))
    report = json.loads(_json(out))
    assert code == 1 and sorted(set(found_codes(report))) == ["P004", "S011"]
    code, out = run("stats", "--no-decisions", "--format", "json", "--store", store_url)
    assert code == 0 and json.loads(out)["rounds"] == 40  # the first and the other record: not the copy
