"""Issue 46: a folder holds more than logs. A file found there that is not a hand history
(a settings YAML, a profile beside the logs, a provider's feed) is skipped with one notice
naming it and changes no exit status; named on the command line, it is still H000, exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, SAMPLES


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def folder(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    (logs / "feeds").mkdir(parents=True)
    shutil.copy(SAMPLES / "clean.yaml", logs / "clean.yaml")
    shutil.copy(SAMPLES / "log.jsonl", logs / "feeds" / "log.jsonl")
    (logs / "settings.yaml").write_text("retention_days: 30\nowner: ops\n", encoding="utf-8")
    (logs / "house.yaml").write_text("name: house\nbase: vivo\n", encoding="utf-8")  # a profile beside the logs
    (logs / "feeds" / "feed.jsonl").write_text('{"data": [], "uuid": "x"}\n', encoding="utf-8")
    return logs


def test_a_folders_other_files_are_skipped_each_with_one_notice(tmp_path: Path) -> None:
    logs = folder(tmp_path)
    done = referee("check", "--format", "json", "logs", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert [i["file"] for i in report["inputs"]] == ["logs/clean.yaml", "logs/feeds/log.jsonl"]
    assert report["summary"]["files"] == 2 and report["problems"] == []
    notes = done.stderr.splitlines()
    for name in ("logs/settings.yaml", "logs/house.yaml", "logs/feeds/feed.jsonl"):
        assert len([n for n in notes if n.startswith(f"referee: {name}: skipped, not a hand history")]) == 1
    assert len(notes) == 3, done.stderr
    assert "'retention_days', 'owner'" in done.stderr
    assert (logs / "settings.yaml").exists()
    parallel = referee("check", "--format", "json", "-j", "2", "logs", cwd=tmp_path)
    assert parallel.returncode == 0 and json.loads(parallel.stdout)["inputs"] == report["inputs"]
    assert sorted(parallel.stderr.splitlines()) == sorted(notes)


def test_a_file_named_on_the_command_line_is_still_refused(tmp_path: Path) -> None:
    folder(tmp_path)
    done = referee("check", "-q", "logs/settings.yaml", "logs/clean.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "logs/settings.yaml:1: H000 [error] not a hand history: its top-level keys are" in done.stdout


def test_a_folder_of_no_hand_history_audits_nothing(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "settings.yaml").write_text("retention_days: 30\n", encoding="utf-8")
    done = referee("check", "-q", "logs", cwd=tmp_path)
    assert done.returncode == 2 and "nothing audited" in done.stderr and "skipped" in done.stderr
