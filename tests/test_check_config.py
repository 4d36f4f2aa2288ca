"""`check` in CI like a linter (issue 46, first half): the configuration file found as
ruff finds its own, findings selected and ignored (a view: the audit and the store keep
everything), and a baseline of accepted findings."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee import pipeline
from referee.cli import main
from referee.pipeline import tasks

from .conftest import SAMPLES

#: The codes only a baseline gives (tests/test_ledger_cases.py counts them among the codes emitted).
BASELINE_CODES = ["B001"]
#: The codes of samples/disputed.yaml.
DISPUTED = ["K001", "K003", "P002", "P004", "P005"]


def both(*args: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error, apart."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def report(*args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = both("check", "--format", "json", *args)
    return code, json.loads(out), err


def shown(found: dict[str, Any]) -> list[str]:
    codes = [f["code"] for s in found["sessions"] for f in s["findings"]]
    return sorted(codes + [f["code"] for f in found["problems"]])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with logs in ``logs/`` (disputed) and ``logs/old/`` (void), worked in
    from its subfolder ``sub/``."""
    (tmp_path / "logs" / "old").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    shutil.copy(SAMPLES / "disputed.yaml", tmp_path / "logs" / "disputed.yaml")
    shutil.copy(SAMPLES / "void.yaml", tmp_path / "logs" / "old" / "void.yaml")
    monkeypatch.chdir(tmp_path / "sub")
    return tmp_path


# The configuration file.


def test_the_configuration_is_found_upward_and_said(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.referee]\nignore = ["K"]\n')
    code, found, _ = report("../logs/disputed.yaml")
    assert code == 1 and shown(found) == ["P002", "P004", "P005"]
    digest = hashlib.sha256((project / "pyproject.toml").read_bytes()).hexdigest()
    assert found["summary"]["configuration"] == {"path": "../pyproject.toml", "sha256": digest, "sets": ["ignore"]}
    assert found["summary"]["ignored"] == {"../pyproject.toml": 2}
    code, out, _ = both("check", "--quiet", "../logs/disputed.yaml")
    assert out.splitlines()[-1].endswith("P002×1 P004×1 P005×1; 2 ignored by ../pyproject.toml")
    code, out, _ = both("check", "../logs/disputed.yaml")
    assert f"configuration ../pyproject.toml: sha256 {digest} (sets ignore)" in out


def test_the_nearest_file_wins_and_a_pyproject_without_the_table_is_passed_over(project: Path) -> None:
    (project / "referee.toml").write_text('ignore = ["P"]\n')
    (project / "sub" / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.referee]: passed over
    assert shown(report("../logs/disputed.yaml")[1]) == ["K001", "K003"]
    (project / "sub" / ".referee.toml").write_text('ignore = ["K"]\n')  # nearer
    assert shown(report("../logs/disputed.yaml")[1]) == ["P002", "P004", "P005"]
    (project / "sub" / "referee.toml").write_text('ignore = ["P002"]\n')  # same folder: .referee.toml first
    assert shown(report("../logs/disputed.yaml")[1]) == ["P002", "P004", "P005"]


def test_config_names_the_file_and_isolated_reads_none(project: Path) -> None:
    (project / "referee.toml").write_text('ignore = ["P"]\n')
    (project / "other.toml").write_text('select = ["P005"]\n')
    assert shown(report("--config", "../other.toml", "../logs/disputed.yaml")[1]) == ["P005"]
    code, found, _ = report("--isolated", "../logs/disputed.yaml")
    assert shown(found) == DISPUTED and "configuration" not in found["summary"] and "ignored" not in found["summary"]
    code, _, err = both("check", "--isolated", "--config", "../other.toml", "../logs/disputed.yaml")
    assert code == 2 and "--config and --isolated" in err
    code, _, err = both("check", "--config", "../none.toml", "../logs/disputed.yaml")
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize(("text", "said"), [
    ('ignroe = ["P"]\n', "unknown key ignroe; did you mean 'ignore'?"),
    ('[tool.referee]\nselct = ["P"]\n', "unknown key tool.referee.selct; did you mean 'select'?"),
    ('ignore = ["P05"]\n', "'P05' is no finding code nor the start of one; did you mean 'P005'?"),
    ('ignore = "P005"\n', "ignore: expected a list of strings"),
    ('strict = "yes"\n', "strict: expected true or false"),
    ('format = "jsno"\n', "format: 'jsno' is not a report format"),
    ('ignore = [\n', "not valid TOML"),
])
def test_a_bad_configuration_is_refused(project: Path, text: str, said: str) -> None:
    name = "pyproject.toml" if text.startswith("[tool") else "referee.toml"
    (project / name).write_text(text)
    code, out, err = both("check", "../logs/disputed.yaml")
    assert code == 2 and out == "" and said in err and "Traceback" not in err


def test_profile_strict_and_format_from_the_configuration(project: Path) -> None:
    # a session that agreed one round more than it has: S005, a warning, fails only under strict
    text = (SAMPLES / "clean.yaml").read_text()
    (project / "logs" / "short.yaml").write_text(text.replace("rounds_agreed: 20", "rounds_agreed: 21"))
    assert both("check", "../logs/short.yaml")[0] == 0
    (project / "referee.toml").write_text('format = "jsonl"\nstrict = true\n')
    code, out, _ = both("check", "../logs/short.yaml")
    last = json.loads(out.splitlines()[-1])  # jsonl: the integrity record last
    assert code == 1 and last["summary"]["by_code"] == {"S005": 1}
    assert last["summary"]["configuration"]["sets"] == ["format", "strict"]
    (project / "referee.toml").write_text('format = "jsonl"\nprofile = "caribbean"\n')  # pinned for every session
    last = json.loads(both("check", "../logs/short.yaml")[1].splitlines()[-1])
    assert last["summary"]["profiles"][0]["origin"] == "builtin:caribbean"
    (project / "profiles").mkdir()
    shutil.copy(Path(__file__).parent / "data" / "house.yaml", project / "profiles" / "house.yaml")
    (project / "referee.toml").write_text('format = "jsonl"\nprofile = "profiles/house.yaml"\n')  # its folder's
    last = json.loads(both("check", "../logs/short.yaml")[1].splitlines()[-1])
    assert last["summary"]["profiles"][0]["origin"] == str(project / "profiles" / "house.yaml")
    (project / "referee.toml").write_text('strict = true\nprofile = "caribbean"\n')
    code, out, _ = both("check", "--format", "json", "--profile", "vivo", "--no-strict", "../logs/short.yaml")
    assert code == 0 and json.loads(out)["summary"]["profiles"][0]["origin"] == "builtin:vivo"  # the command line wins


# Choosing findings.


@pytest.mark.parametrize(("args", "kept", "ignored"), [
    (["--select", "P"], ["P002", "P004", "P005"], {"--select": 2}),
    (["--select", "K,P005"], ["K001", "K003", "P005"], {"--select": 2}),
    (["--ignore", "P00"], ["K001", "K003"], {"--ignore": 3}),
    (["--ignore", "P", "--select", "P005"], ["P005"], {"--select": 2, "--ignore": 2}),
    (["--select", "P", "--ignore", "P005"], ["P002", "P004"], {"--select": 2, "--ignore": 1}),
    (["--select", "K001", "--extend-select", "p002"], ["K001", "P002"], {"--select": 3}),
    (["--ignore", "K", "--extend-select", "K003"], ["K003", "P002", "P004", "P005"], {"--ignore": 1}),
])
def test_select_and_ignore_by_code_and_prefix(args: list[str], kept: list[str], ignored: dict[str, int]) -> None:
    code, found, _ = report(*args, str(SAMPLES / "disputed.yaml"))
    assert code == 1 and shown(found) == kept and found["summary"]["ignored"] == ignored
    assert found["summary"]["by_code"] == {c: 1 for c in kept}


def test_an_unknown_code_on_the_command_line_is_a_usage_error() -> None:
    code, _, err = both("check", "--ignore", "Q1", str(SAMPLES / "disputed.yaml"))
    assert code == 2 and "'Q1' is no finding code" in err and "--ignore" in err
    code, _, err = both("check", "--select", "K01", str(SAMPLES / "disputed.yaml"))
    assert code == 2 and "did you mean 'K001'?" in err


def test_the_command_line_goes_over_the_configuration(project: Path) -> None:
    (project / "referee.toml").write_text('select = ["K"]\nignore = ["K001"]\n')
    assert shown(report("../logs/disputed.yaml")[1]) == ["K003"]
    assert shown(report("--select", "P005", "../logs/disputed.yaml")[1]) == ["P005"]  # replaces select
    assert shown(report("--select", "K001", "../logs/disputed.yaml")[1]) == ["K001"]  # later, as specific
    assert shown(report("--ignore", "K003", "../logs/disputed.yaml")[1]) == []  # on top of the file's


def test_ignored_findings_change_nothing_the_audit_computes() -> None:
    _, whole, _ = report(str(SAMPLES / "disputed.yaml"))
    _, some, _ = report("--ignore", "P005,P004", str(SAMPLES / "disputed.yaml"))
    for a, b in zip(whole["sessions"], some["sessions"], strict=True):
        assert a["ledger"] == b["ledger"]
        assert [(r["balance"], r["settlement"]) for r in a["rounds"]] == [(r["balance"], r["settlement"])
                                                                          for r in b["rounds"]]
    round_10 = some["sessions"][0]["rounds"][9]
    assert round_10["round"] == 10 and round_10["findings"] == []  # hidden in the round too


def test_per_file_ignores_by_glob(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.referee.per-file-ignores]\n"logs/old/*" = ["V"]\n'
                                            '"disputed.yaml" = ["K001"]\n')
    code, found, _ = report("../logs")
    assert code == 1 and shown(found) == ["K003", "P002", "P004", "P005"]
    assert found["summary"]["ignored"] == {"../pyproject.toml": 4}
    # the same codes elsewhere are shown
    shutil.copy(SAMPLES / "void.yaml", project / "logs" / "void.yaml")
    assert shown(report("../logs/void.yaml")[1]) == ["V001", "V003", "V003"]


def test_exclude_leaves_out_files_found_in_folders_and_says_so(project: Path) -> None:
    code, found, err = report("--exclude", "old", "../logs")
    assert [i["file"] for i in found["inputs"]] == ["../logs/disputed.yaml"]
    assert "1 file found in the folders given left out by --exclude" in err
    code, found, _ = report("--exclude", "old", "../logs", "../logs/old/void.yaml")  # named: always audited
    assert len(found["inputs"]) == 2
    (project / "referee.toml").write_text('exclude = ["logs/old/*.yaml"]\n')
    code, found, err = report("../logs")
    assert [i["file"] for i in found["inputs"]] == ["../logs/disputed.yaml"] and "by ../referee.toml" in err
    code, _, err = both("check", "--exclude", "*.yaml", "../logs")
    assert code == 2 and "nothing audited" in err  # never a pass


def test_exit_zero_shows_the_findings_and_exits_0(tmp_path: Path) -> None:
    code, out, _ = both("check", "--exit-zero", str(SAMPLES / "disputed.yaml"))
    assert code == 0 and "P005 [error]" in out
    code, found, _ = report("--exit-zero", str(SAMPLES / "disputed.yaml"))
    assert code == 0 and found["summary"]["exit_code"] == 0 and found["summary"]["findings"] == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("session: {id: x}\nrounds: [\n")
    assert both("check", "--exit-zero", str(bad))[0] == 2  # an input not read still fails


def test_an_unreadable_input_is_never_hidden(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("session: {id: x}\nrounds: [\n")
    code, found, _ = report("--select", "P", str(bad), str(SAMPLES / "disputed.yaml"))
    assert code == 2 and "H000" in shown(found)


def test_the_store_keeps_the_ignored_findings(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "audit.db"
    code, found, _ = report("--store", str(db), "--ignore", "P", str(SAMPLES / "disputed.yaml"))
    assert code == 1 and shown(found) == ["K001", "K003"]
    with sqlite3.connect(db) as con:
        stored = sorted(row[0] for row in con.execute("select code from findings"))
    assert stored == DISPUTED


def test_selection_is_the_same_under_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "sim.jsonl"
    assert both("simulate", "--sessions", "6", "--rounds", "80", "--seed", "4", "--faults", "0.1", "--format",
                "jsonl", "--output", str(log))[0] == 0
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(tasks, "MIN_CHUNK_BYTES", 1)
    for fmt in ("json", "text", "junit"):
        one = both("check", "--format", fmt, "--jobs", "1", "--ignore", "P", str(log))
        two = both("check", "--format", fmt, "--jobs", "2", "--ignore", "P", str(log))
        times = r'(timestamp|time)="[^"]*"'  # JUnit says when and how long: the audit's own
        assert one[0] == two[0] and re.sub(times, "", one[1]) == re.sub(times, "", two[1])
    found = json.loads(both("check", "--format", "json", "--jobs", "2", "--ignore", "P", str(log))[1])
    assert found["summary"]["ignored"]["--ignore"] > 0 and not [c for c in shown(found) if c.startswith("P")]
    in_rounds = [f["code"] for s in found["sessions"] for r in s["rounds"] for f in r["findings"]]
    assert in_rounds and not [c for c in in_rounds if c.startswith("P")]  # made in the workers, through the view
    _, out, _ = both("check", "--format", "github", "--jobs", "2", "--ignore", "P", str(log))
    assert "title=P" not in out and "::error" in out


def test_a_selected_reporter_travels_to_a_cluster_worker() -> None:
    import io

    from referee.pipeline.remote import Detached
    from referee.report.json import JsonReporter
    from referee.report.view import Rule, Selected, View

    selected = Selected(JsonReporter(io.StringIO()), View((Rule("", True, "default"), Rule("P", False, "--ignore"))))
    made = Detached.of(selected).make()
    assert isinstance(made, Selected) and isinstance(made.inner, JsonReporter) and made.view.rules[1].prefix == "P"


# Accepted findings: a baseline.


def baseline_of(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(path.read_text())["findings"]
    return entries


def test_a_baseline_written_then_read_hides_exactly_those(project: Path) -> None:
    code, out, err = both("check", "--write-baseline", "../accepted.json", "../logs")
    assert code == 0 and "V001 [error]" in out  # today's report as usual, then exit 0
    assert report("--write-baseline", "../accepted.json", "../logs")[1]["summary"]["exit_code"] == 0
    assert "wrote 8 accepted findings to ../accepted.json" in err
    entries = baseline_of(project / "accepted.json")
    assert sorted(e["code"] for e in entries) == sorted([*DISPUTED, "V001", "V003", "V003"])
    p005 = next(e for e in entries if e["code"] == "P005")
    assert p005 == {"code": "P005", "file": "logs/disputed.yaml", "session": "table-7/2026-11-29/disputed",
                    "round": 10, "fingerprint": p005["fingerprint"], "reason": ""}
    code, found, _ = report("--baseline", "../accepted.json", "../logs")
    assert code == 0 and shown(found) == [] and found["summary"]["ignored"] == {"baseline ../accepted.json": 8}
    digest = hashlib.sha256((project / "accepted.json").read_bytes()).hexdigest()
    assert found["summary"]["baseline"] == {"path": "../accepted.json", "sha256": digest}
    _, out, _ = both("check", "--baseline", "../accepted.json", "../logs")
    assert f"baseline ../accepted.json: sha256 {digest}" in out
    assert out.splitlines()[-1].endswith("no findings; 8 ignored by baseline ../accepted.json")
    # an entry taken out shows its finding again, and only it
    kept = [e for e in entries if e["code"] != "K001"]
    (project / "fewer.json").write_text(json.dumps({"referee_baseline": 1, "findings": kept}))
    assert shown(report("--baseline", "../fewer.json", "../logs")[1]) == ["K001"]


def test_a_baseline_holds_across_reformatting_and_moved_lines(project: Path) -> None:
    import yaml

    data = yaml.safe_load((project / "logs" / "disputed.yaml").read_text())
    log = project / "logs" / "log.json"
    log.write_text(json.dumps(data, ensure_ascii=False))
    assert both("check", "--write-baseline", "../b.json", "../logs/log.json")[0] == 0
    assert len(baseline_of(project / "b.json")) == 5

    def reordered(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: reordered(value[k]) for k in reversed(list(value))}
        return [reordered(v) for v in value] if isinstance(value, list) else value

    log.write_text(json.dumps(reordered(data), ensure_ascii=False, indent=7))  # keys reordered, spaced
    code, found, _ = report("--baseline", "../b.json", "../logs/log.json")
    assert code == 0 and shown(found) == [] and found["summary"]["ignored"] == {"baseline ../b.json": 5}
    yaml_log = project / "logs" / "disputed.yaml"
    assert both("check", "--write-baseline", "../y.json", "../logs/disputed.yaml")[0] == 0
    text = yaml_log.read_text()
    moved = text.replace("  - round: 10\n", "  # late\n\n  - round: 10\n")
    yaml_log.write_text("# checked by the pit boss\n\n" + moved)
    code, found, _ = report("--baseline", "../y.json", "../logs/disputed.yaml")
    assert code == 0 and shown(found) == []
    # from another folder, the baseline names the same files
    code, found, _ = report("--baseline", str(project / "y.json"), str(yaml_log))
    assert code == 0 and shown(found) == []


def test_a_finding_in_another_file_or_game_is_not_hidden(project: Path) -> None:
    assert both("check", "--write-baseline", "../b.json", "../logs/disputed.yaml")[0] == 0
    # the same rounds under another session id (the same id again would be one S010, not audited twice)
    original = (project / "logs" / "disputed.yaml").read_text()
    assert "table-7/2026-11-29/disputed" in original
    (project / "logs" / "copy.yaml").write_text(original.replace("table-7/2026-11-29/disputed", "table-7/copy"))
    code, found, _ = report("--baseline", "../b.json", "../logs/disputed.yaml", "../logs/copy.yaml")
    assert code == 1 and shown(found) == DISPUTED and found["summary"]["ignored"] == {"baseline ../b.json": 5}
    assert {f["file"] for s in found["sessions"] for f in s["findings"]} == {"../logs/copy.yaml"}
    # format 2: the same slip in another game is its own finding
    deal = {"player": ["A♥", "K♦"], "flop": ["A♠", "7♦", "4♣"], "turn": "9♥", "river": "2♠", "dealer": ["Q♠", "Q♣"]}
    wrong = {"player_id": "p1", "ante": 1, "decision": "call", "recorded": {"net": 2}}

    def table(games: int) -> str:
        return json.dumps({"format": 2, "session": {"id": "T", "profile": "vivo"},
                           "games": [{"game": f"g{n}", "round": n, **deal, "seats": [wrong]}
                                     for n in range(1, games + 1)]}, ensure_ascii=False)

    (project / "logs" / "table.json").write_text(table(1))
    assert both("check", "--write-baseline", "../t.json", "../logs/table.json")[0] == 0
    assert [(e["code"], e["game"], e["player"]) for e in baseline_of(project / "t.json")] == [("P004", "g1", "p1")]
    (project / "logs" / "table.json").write_text(table(2))
    code, found, _ = report("--baseline", "../t.json", "../logs/table.json")
    assert code == 1 and [(f["code"], f["game"]) for f in found["sessions"][0]["findings"]] == [("P004", "g2")]


def test_an_entry_that_no_longer_matches_is_said_as_info(project: Path) -> None:
    assert both("check", "--write-baseline", "../b.json", "../logs")[0] == 0
    log = project / "logs" / "disputed.yaml"
    fixed = log.read_text().replace("      net: -3\n      balance: 8\n", "      net: -3\n      balance: 4\n")
    assert fixed != log.read_text()
    log.write_text(fixed)
    code, found, _ = report("--baseline", "../b.json", "../logs")
    assert code == 0 and shown(found) == BASELINE_CODES
    stale = found["problems"][0]
    line = next(n for n, text in enumerate((project / "b.json").read_text().splitlines(), 1) if '"P005"' in text)
    assert (stale["severity"], stale["file"], stale["line"]) == ("info", "../b.json", line)
    assert "P005 in logs/disputed.yaml, session table-7/2026-11-29/disputed, round 10" in stale["message"]
    _, out, _ = both("check", "--quiet", "--baseline", "../b.json", "../logs")
    assert f"../b.json:{line}: B001 [info] baseline entry P005" in out
    # entries of files not audited now are not judged
    code, found, _ = report("--baseline", "../b.json", "../logs/old/void.yaml")
    assert code == 0 and shown(found) == []


def test_writing_a_baseline_again_keeps_the_reasons_given(project: Path) -> None:
    both("check", "--write-baseline", "../b.json", "../logs/disputed.yaml")
    entries = baseline_of(project / "b.json")
    for e in entries:
        e["reason"] = "table 7 corrected by hand, ticket 42" if e["code"] == "P005" else ""
    (project / "b.json").write_text(json.dumps({"referee_baseline": 1, "findings": entries}))
    code, _, err = both("check", "--write-baseline", "../b.json", "../logs/disputed.yaml")
    assert code == 0 and "(1 with the reason already given)" in err
    again = {e["code"]: e["reason"] for e in baseline_of(project / "b.json")}
    assert again["P005"] == "table 7 corrected by hand, ticket 42" and again["K001"] == ""


def test_the_configuration_names_the_baseline(project: Path) -> None:
    both("check", "--write-baseline", "../b.json", "../logs/disputed.yaml")
    (project / "referee.toml").write_text('baseline = "b.json"\n')
    code, found, _ = report("../logs/disputed.yaml")
    assert code == 0 and found["summary"]["baseline"]["path"] == "../b.json"
    assert found["summary"]["configuration"]["sets"] == ["baseline"]


@pytest.mark.parametrize(("text", "said"), [
    ("[1, 2]", "not a referee baseline"),
    ("{", "not a JSON document"),
    ('{"referee_baseline": 1, "findings": [{"code": "P005", "fingerprnt": "x"}]}',
     "unknown key 'fingerprnt'; did you mean 'fingerprint'?"),
    ('{"referee_baseline": 1, "findings": [{"code": "P005"}]}', "needs a code and a fingerprint"),
])
def test_a_bad_baseline_is_refused(tmp_path: Path, text: str, said: str) -> None:
    (tmp_path / "b.json").write_text(text)
    code, out, err = both("check", "--baseline", str(tmp_path / "b.json"), str(SAMPLES / "disputed.yaml"))
    assert code == 2 and out == "" and said in err


def test_baseline_and_write_baseline_are_one_or_the_other(tmp_path: Path) -> None:
    code, _, err = both("check", "--baseline", "a.json", "--write-baseline", "b.json", str(SAMPLES / "clean.yaml"))
    assert code == 2 and "give one" in err
    code, _, err = both("check", "--write-baseline", str(SAMPLES / "clean.yaml"), str(SAMPLES / "clean.yaml"))
    assert code == 2 and "the input is left untouched" in err
