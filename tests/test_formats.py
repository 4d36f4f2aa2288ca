"""Machine formats of `referee check` (issue 5): github, junit, jsonl (the pre-commit hook: test_ci_workflow.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.report.github import escape_data, escape_property

from .conftest import ROOT, SAMPLES, Write, check_json, run

SAMPLE_FILES = [str(SAMPLES / "disputed.yaml"), str(SAMPLES / "void.yaml")]
ANNOTATION = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def unescape(text: str) -> str:
    for code, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(code, char)
    return text


def json_findings() -> list[dict[str, Any]]:
    _, report = check_json(*SAMPLE_FILES)
    findings: list[dict[str, Any]] = [f for s in report["sessions"] for f in s["findings"]]
    problems: list[dict[str, Any]] = report["problems"]
    return findings + problems


def test_github_annotations_parse_back() -> None:
    code, out = run("check", "--format", "github", *SAMPLE_FILES)
    assert code == 1
    lines = out.splitlines()
    annotations = [ANNOTATION.match(line) for line in lines if line.startswith("::")]
    assert all(annotations)
    parsed = []
    for m in annotations:
        assert m is not None
        props = dict(p.split("=", 1) for p in m["props"].split(","))
        parsed.append((unescape(props["file"]), int(props["line"]), unescape(m["message"])))
    expected = [(f["file"], f["line"], f["message"]) for f in json_findings()]
    assert Counter(parsed) == Counter(expected)
    levels = [line.split(" ", 1)[0] for line in lines if line.startswith("::")]
    order = {"::error": 0, "::warning": 1, "::notice": 2}
    assert [order[x] for x in levels] == sorted(order[x] for x in levels)  # most severe first
    assert lines[-1].startswith("2 files, 2 sessions") and "8 findings" in lines[-1]


def test_github_escaping() -> None:
    assert escape_data("100% sure\r\nnext") == "100%25 sure%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert unescape(escape_property("x:y,z%\n")) == "x:y,z%\n"


def test_github_is_the_default_in_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out = run("check", str(SAMPLES / "disputed.yaml"))
    assert out.startswith("::error file=")
    _, out = run("check", "--format", "text", str(SAMPLES / "disputed.yaml"))
    assert not out.startswith("::")


def test_junit_validates_and_counts_match_json(tmp_path: Path) -> None:
    import xmlschema

    out = tmp_path / "report.xml"
    code, _ = run("check", "--format", "junit", "--output", str(out), *SAMPLE_FILES)
    assert code == 1
    schema = xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit-ant.xsd"))
    schema.validate(str(out))
    from xml.etree import ElementTree

    suites = ElementTree.parse(out).getroot().findall("testsuite")
    sessions = [s for s in suites if s.get("name") != "referee integrity"]
    _, report = check_json(*SAMPLE_FILES)
    assert len(sessions) == report["summary"]["sessions"]
    tests = sum(int(s.get("tests", 0)) for s in sessions)
    assert tests == report["summary"]["rounds"] + report["summary"]["sessions"]
    failing_rounds = sum(1 for s in report["sessions"] for r in s["rounds"]
                         if any(f["severity"] == "error" for f in r["findings"]))
    failing_sessions = sum(1 for s in report["sessions"]
                           if any(f["round"] is None and f["severity"] == "error" for f in s["findings"]))
    assert sum(int(s.get("failures", 0)) for s in sessions) == failing_rounds + failing_sessions
    skipped = sum(1 for s in report["sessions"] for r in s["rounds"]
                  if r["outcome"] == "void" and not any(f["severity"] != "info" for f in r["findings"]))
    assert sum(int(s.get("skipped", 0)) for s in sessions) == skipped == 2
    for suite in sessions:
        cases = suite.findall("testcase")
        assert int(suite.get("tests", 0)) == len(cases)
        assert int(suite.get("failures", 0)) == sum(c.find("failure") is not None for c in cases)
    messages = "".join(f.text or "" for s in sessions for f in s.iter("failure"))
    for finding in json_findings():
        if finding["severity"] != "info":
            assert finding["message"] in messages
    integrity = {p.get("name"): p.get("value") for s in suites if s.get("name") == "referee integrity"
                 for p in s.iter("property")}
    assert integrity["input.0.sha256"] == report["inputs"][0]["sha256"]


def _junit(*args: str) -> tuple[int, Any]:
    from xml.etree import ElementTree

    code, out = run("check", "--format", "junit", *args)
    return code, ElementTree.fromstring(out)


def test_junit_fails_a_warning_only_under_strict_as_the_exit_code_does(write: Write) -> None:
    """Issue 27: a warning alone (S005: the session agreed 21 rounds, played 20) exits 0,
    but JUnit made it a failure, so Jenkins failed a run the tool passed. Now the
    report's failures are the exit code's: the warning goes to the suite's system-out
    and its ``warnings`` property, and is a failure under --strict (exit 1)."""
    import xmlschema

    text = (SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace("rounds_agreed: 20", "rounds_agreed: 21")
    log = write("agreed.yaml", text)
    schema = xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit-ant.xsd"))
    code, root = _junit(log)
    (suite, _) = root.findall("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert code == 0 and suite.get("failures") == "0" and root.find(".//failure") is None
    assert properties["warnings"] == "1"
    out = suite.findtext("system-out") or ""
    assert "1 warning (a failure only with --strict):" in out and "S005 [warning] 20 rounds played, 21 agreed" in out
    schema.validate(run("check", "--format", "junit", log)[1])
    code, root = _junit("--strict", log)
    (suite, _) = root.findall("testsuite")
    failure = root.find(".//testcase[@name='session']/failure")
    assert code == 1 and suite.get("failures") == "1" and failure is not None and failure.get("type") == "S005"
    assert "warning" not in (suite.findtext("system-out") or "")
    assert {p.get("name"): p.get("value") for p in suite.iter("property")}["warnings"] == "0"


def test_jsonl_is_one_finding_a_line() -> None:
    code, out = run("check", "--format", "jsonl", *SAMPLE_FILES)
    assert code == 1
    *lines, integrity = [json.loads(line) for line in out.splitlines()]
    assert "code" not in integrity and integrity["summary"]["findings"] == len(lines)
    assert Counter((f["code"], f["file"], f["line"]) for f in lines) == Counter(
        (f["code"], f["file"], f["line"]) for f in json_findings())


def test_output_file_keeps_the_summary_on_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, terminal = run("check", "--format", "json", "--output", str(out), *SAMPLE_FILES)
    assert code == 1 and json.loads(out.read_text())["summary"]["findings"] == 8
    assert terminal.strip().startswith("2 files, 2 sessions") and "8 findings" in terminal


def test_quiet_prints_only_findings_and_the_summary() -> None:
    _, out = run("check", "--quiet", *SAMPLE_FILES)
    lines = out.splitlines()
    assert all(re.match(r"^\S+:\d+: [A-Z]\d{3} \[", line) for line in lines[:-1])
    assert lines[-1].startswith("2 files")


def test_color_choices_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    disputed = str(SAMPLES / "disputed.yaml")
    _, plain = run("check", "--quiet", disputed)
    assert "\x1b[" not in plain  # not a terminal: auto means no colour
    _, coloured = run("check", "--quiet", "--color", "always", disputed)
    assert "\x1b[" in coloured
    monkeypatch.setenv("NO_COLOR", "1")
    from referee.cli import use_color

    class Tty:
        def isatty(self) -> bool:
            return True

    assert not use_color("auto", Tty())  # type: ignore[arg-type]
    assert use_color("always", Tty())  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    assert use_color("auto", Tty())  # type: ignore[arg-type]
    assert not use_color("never", Tty())  # type: ignore[arg-type]


def test_schema_and_profiles_commands() -> None:
    code, out = run("schema")
    assert code == 0 and json.loads(out) == json.loads((ROOT / "schemas" / "hand-history.schema.json").read_text())
    code, out = run("schema", "profile")
    assert code == 0 and json.loads(out) == json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    code, out = run("profiles")
    assert code == 0
    header = out.splitlines()[0]
    assert all(name in header for name in ("vivo", "caribbean", "bonus-aa", "bonus-100"))
    assert "royal flush" in out and "100:1" in out
    code, out = run("profiles", "caribbean")
    assert code == 0 and "sha256" in out and "ante_when_not_qualified: even_money" in out
    code, out = run("profiles", "nope")
    assert code == 2 and "unknown profile" in out


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "github", "junit"])
def test_every_format_proves_what_it_audited(fmt: str) -> None:
    """Each input's size and SHA-256, the profile's SHA-256 and the referee's version."""
    import hashlib

    from referee import __version__
    from referee.profiles import resolve_profile

    files = [SAMPLES / "disputed.yaml", SAMPLES / "bonus.yaml"]
    _, out = run("check", "--format", fmt, *map(str, files))
    for path in files:
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() in out and str(len(data)) in out
    for name in ("vivo", "bonus-100"):
        assert resolve_profile(name).sha256 in out
    assert __version__ in out


def test_profiles_shows_the_file_then_how_it_was_read(tmp_path: Path) -> None:
    vivo = (ROOT / "referee" / "data" / "profiles" / "vivo.yaml").read_text(encoding="utf-8")
    text = vivo.replace("full_house: 3\n", "full_house: 5:2\n").replace('rank: "4"', "rank: 6").replace(
        "name: vivo\n", "name: house\n", 1)  # a name of its own: with vivo's, it would be H010 (exit 1)
    (tmp_path / "house.yaml").write_text(text, encoding="utf-8")
    code, out = run("profiles", str(tmp_path / "house.yaml"))
    assert code == 0, out
    echo, _, read = out.partition("# as read:\n")
    assert echo.splitlines()[1:] == text.splitlines()  # the file first, as it is
    assert re.search(r"^# full house +2\.5:1$", read, re.M), read
    assert "# dealer qualifies with pair of 6s or better" in read and "# Call: 2 x the Ante" in read
    assert all(line.startswith("# ") for line in read.splitlines())  # the output is still the profile
