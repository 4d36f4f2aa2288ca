"""Issue 46: docs/ci.md works as written. The GitHub Actions workflow's ``run:`` steps and
the GitLab job's ``script:`` lines are run here, one by one, as the CI would run them,
on a ``logs/`` folder of samples; the pre-commit configuration is run with
``pre-commit run --all-files`` in a scratch repository of eight logs.

What is replaced, and why: the install line names ``OWNER`` and ``COMMIT`` (where a copy
of referee is published, which commit), so its package is this checkout (a copy of its
files); pre-commit's ``repo`` is a git repository of that copy, its ``rev`` that copy's
commit. What is left out: the workflow's ``uses:`` steps (checkout, setup-python, the
SARIF upload, the test report) are actions, which by nature run only on GitHub; the
test asserts it leaves out exactly those. Both install from PyPI what referee needs, into
a virtual environment of their own: they take a while (marked slow).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import ROOT, SAMPLES, run
from .test_ci_outputs import validate_sarif

DOCS = ROOT / "docs" / "ci.md"
PACKAGE = "git+https://github.com/OWNER/referee@COMMIT"
REMOTE_ACTIONS = {"actions/checkout@v4", "actions/setup-python@v5", "github/codeql-action/upload-sarif@v3",
                  "mikepenz/action-junit-report@v5"}
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]


def documented() -> list[Any]:
    """The YAML blocks of docs/ci.md, parsed."""
    text = DOCS.read_text(encoding="utf-8")
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def workflow() -> dict[str, Any]:
    (found,) = [b for b in documented() if isinstance(b, dict) and "jobs" in b]
    return dict(found)


def gitlab_job() -> dict[str, Any]:
    (found,) = [b["referee"] for b in documented() if isinstance(b, dict) and "script" in b.get("referee", {})]
    return dict(found)


def pre_commit_config() -> dict[str, Any]:
    (found,) = [b for b in documented() if isinstance(b, dict) and "repos" in b]
    return dict(found)


def checkout_copy(target: Path) -> Path:
    """This checkout's files (committed or not, as git lists them) copied to ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def clean_env(**extra: str) -> dict[str, str]:
    """The environment a CI step starts with: none of this test run's own settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "GITHUB_ACTIONS", "VIRTUAL_ENV") and not k.startswith("PYTEST")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def ci(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A machine as a CI job finds it: a Python (a fresh virtual environment, first on
    PATH, as setup-python or the job's image gives) and a workspace with logs/."""
    root = tmp_path_factory.mktemp("ci")
    source = checkout_copy(root / "referee")
    subprocess.run([sys.executable, "-m", "venv", str(root / "python")], check=True)
    path = f"{root / 'python' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return {"root": root, "source": source, "path": path}


def workspace(base: Path) -> Path:
    """A repository's checkout with logs/: two logs, one gzipped, and a settings file."""
    import gzip

    base.mkdir()
    logs = base / "logs"
    logs.mkdir()
    shutil.copy(SAMPLES / "disputed.yaml", logs / "disputed.yaml")
    shutil.copy(SAMPLES / "clean.yaml", logs / "clean.yaml")
    (logs / "table.jsonl.gz").write_bytes(gzip.compress((SAMPLES / "table.jsonl").read_bytes()))
    (logs / "retention.yaml").write_text("keep_days: 400\n", encoding="utf-8")
    return base


def step(command: str, ci: dict[str, Any], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """One step, as the runner runs it (``bash -e``), the package replaced by this checkout."""
    if "pip install" in command:
        assert PACKAGE in command, command
        command = command.replace(PACKAGE, Path(ci["source"]).as_uri())
    return subprocess.run(["bash", "-e", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=900,
                          check=False, env=clean_env(PATH=ci["path"], **env))


def test_the_github_workflow_runs_as_written(ci: dict[str, Any]) -> None:
    (job,) = workflow()["jobs"].values()
    left_out = {s["uses"] for s in job["steps"] if "uses" in s}
    assert left_out == REMOTE_ACTIONS  # actions only: every shell step below is run
    base = workspace(ci["root"] / "github")
    results = [step(s["run"], ci, base, GITHUB_ACTIONS="true", CI="true") for s in job["steps"] if "run" in s]
    install, audit = results
    assert install.returncode == 0, install.stdout + install.stderr
    assert audit.returncode == 1, audit.stdout + audit.stderr  # findings: the job fails, the reports are written
    assert audit.stdout.startswith("::error file=logs/disputed.yaml,line=")
    assert "::error file=logs/table.jsonl.gz,line=" in audit.stdout
    assert "referee: logs/retention.yaml: skipped, not a hand history" in audit.stderr
    sarif = json.loads((base / "referee.sarif").read_text(encoding="utf-8"))
    validate_sarif(sarif)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"logs/disputed.yaml", "logs/table.jsonl.gz"}
    import xmlschema

    xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit-ant.xsd")).validate(str(base / "referee.xml"))
    for s in job["steps"]:
        if "uses" in s and s["uses"] in REMOTE_ACTIONS - {"actions/checkout@v4", "actions/setup-python@v5"}:
            assert s.get("if") == "always()"
            named = s["with"].get("sarif_file") or s["with"].get("report_paths")
            assert (base / named).is_file(), named  # what the action uploads exists


def test_the_gitlab_job_runs_as_written(ci: dict[str, Any]) -> None:
    job = gitlab_job()
    base = workspace(ci["root"] / "gitlab")
    results = [step(line, ci, base, GITLAB_CI="true", CI="true") for line in job["script"]]
    install, audit = results
    assert install.returncode == 0, install.stdout + install.stderr
    assert audit.returncode == 1, audit.stdout + audit.stderr
    reports = job["artifacts"]["reports"]
    issues = json.loads((base / reports["codequality"]).read_text(encoding="utf-8"))
    assert {i["location"]["path"] for i in issues} == {"logs/disputed.yaml", "logs/table.jsonl.gz"}
    assert (base / reports["junit"]).read_text(encoding="utf-8").startswith("<?xml")
    assert job["artifacts"]["when"] == "always" and "findings" in audit.stdout


def test_the_pre_commit_hook_sees_every_staged_log_in_one_run(ci: dict[str, Any]) -> None:
    """Eight logs, one game sent again in a second file: pre-commit split the files among
    processes (require_serial: false), so the repeat could go unseen; it is one run."""
    root = Path(ci["root"])
    hooks = root / "hooks"
    shutil.copytree(ci["source"], hooks)
    env = clean_env(PRE_COMMIT_HOME=str(root / "pre-commit-home"), GIT_AUTHOR_NAME="t",
                    GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
                    GIT_CONFIG_GLOBAL="/dev/null", PATH=os.environ.get("PATH", ""))

    def git(*args: str, cwd: Path) -> str:
        return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q", cwd=hooks)
    git("add", "-A", cwd=hooks)
    git("commit", "-q", "-m", "referee under test", cwd=hooks)
    config = pre_commit_config()
    (repo,) = config["repos"]
    assert repo["repo"] == "https://github.com/OWNER/referee" and repo["rev"] == "COMMIT"
    repo.update(repo=str(hooks), rev=git("rev-parse", "HEAD", cwd=hooks))
    scratch = root / "scratch"
    (scratch / "hand-histories").mkdir(parents=True)
    (scratch / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    logs = []
    for seed in range(1, 9):
        log = scratch / "hand-histories" / f"day-{seed}.jsonl"
        # made in this process: the logs are the hook's input, not what it tests
        made, out = run("simulate", "--seats", "2", "--rounds", "3", "--seed", str(seed), "--output", str(log))
        assert made == 0, out
        logs.append(log)
    resent = logs[0].read_text(encoding="utf-8").splitlines()[2]  # day 1's second game
    assert json.loads(resent)["game"] == "T1-1-000002"
    with logs[7].open("a", encoding="utf-8") as fh:
        fh.write(resent + "\n")
    git("init", "-q", cwd=scratch)
    git("add", "-A", cwd=scratch)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert re.search(r"hand-histories/day-8\.jsonl:\d+: G002 \[error\] game T1-1-000002, player \S+: seated again "
                     r"in a second record of the game \(first at hand-histories/day-1\.jsonl:3\)", out), out
    assert "8 files" in out
    # The hook's own file filter (.pre-commit-hooks.yaml), in the same environment (one
    # install): a good log passes, a workflow and a file with no hand-history name are
    # left alone, a bad log named *.hh.yaml fails (issue 27).
    (scratch / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(SAMPLES / "clean.yaml", scratch / "hand-histories" / "good.yaml")
    (scratch / ".github" / "workflows" / "ci.yml").write_text("name: CI\non: [push]\njobs: {}\n")
    shutil.copy(SAMPLES / "disputed.yaml", scratch / "disputed.yaml")  # no suffix, not under hand-histories/
    shutil.copy(SAMPLES / "disputed.yaml", scratch / "day-2.hh.yaml")
    git("add", "-A", cwd=scratch)
    hook = [sys.executable, "-m", "pre_commit", "run", "referee-check", "--files"]
    good = subprocess.run([*hook, "hand-histories/good.yaml", ".github/workflows/ci.yml", "disputed.yaml"],
                          cwd=scratch, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert good.returncode == 0 and "Passed" in good.stdout, good.stdout + good.stderr
    bad = subprocess.run([*hook, "day-2.hh.yaml"], cwd=scratch, env=env, capture_output=True, text=True,
                         timeout=900, check=False)
    assert bad.returncode == 1 and "P002" in bad.stdout, bad.stdout + bad.stderr
