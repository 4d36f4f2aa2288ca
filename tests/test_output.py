"""Outputs (issue 16): never over an input, written atomically, ``-`` is standard output,
write errors and closed pipes are one line (or none), and one exit-status table."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.output import OutputError, open_output

from .conftest import HAND_HISTORIES, SAMPLES, run

CLEAN = SAMPLES / "clean.yaml"


def referee(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=cwd)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(CLEAN, folder / "clean.yaml")
    return folder


# --- never write over an input -----------------------------------------------------------

def _same(logs: Path) -> tuple[list[str], str]:
    return [str(logs / "clean.yaml")], str(logs / "clean.yaml")


def _symlink(logs: Path) -> tuple[list[str], str]:
    (logs.parent / "link.json").symlink_to(logs / "clean.yaml")
    return [str(logs / "clean.yaml")], str(logs.parent / "link.json")


def _hard_link(logs: Path) -> tuple[list[str], str]:
    os.link(logs / "clean.yaml", logs.parent / "hard.txt")
    return [str(logs / "clean.yaml")], str(logs.parent / "hard.txt")


def _in_folder(logs: Path) -> tuple[list[str], str]:
    return [str(logs)], str(logs / "sub" / "report.json")


def _glob(logs: Path) -> tuple[list[str], str]:
    return [str(logs / "*.yaml")], str(logs / "report.yaml")


@pytest.mark.parametrize("case", [_same, _symlink, _hard_link, _in_folder, _glob])
@pytest.mark.parametrize("command", ["check", "report"])
def test_an_output_that_is_an_input_is_refused(logs: Path, case, command: str) -> None:  # type: ignore[no-untyped-def]
    inputs, output = case(logs)
    before = (logs / "clean.yaml").read_bytes()
    code, out = run(command, *inputs, "--output", output)
    assert code == 2, out
    assert out.startswith(f"referee: --output {output} ") and "input" in out
    assert (logs / "clean.yaml").read_bytes() == before
    assert not (logs / "sub").exists() and not (logs / "report.yaml").exists()


def test_an_output_beside_the_inputs_that_the_audit_would_not_read_is_allowed(logs: Path) -> None:
    code, out = run("check", str(logs), "--quiet", "--output", str(logs / "report.txt"))
    assert code == 0, out
    assert "no findings" in (logs / "report.txt").read_text()


def test_simulate_never_writes_over_its_profile_or_one_output_over_the_other(tmp_path: Path) -> None:
    profile = tmp_path / "house.yaml"
    profile.write_bytes((Path(__file__).resolve().parent.parent / "referee/data/profiles/vivo.yaml").read_bytes())
    before = profile.read_bytes()
    code, out = run("simulate", "--profile", str(profile), "--output", str(profile))
    assert code == 2 and profile.read_bytes() == before
    code, out = run("simulate", "--faults", "0.5", "--output", str(tmp_path / "a.yaml"),
                    "--faults-manifest", str(tmp_path / "a.yaml"))
    assert code == 2 and "same file" in out and not (tmp_path / "a.yaml").exists()
    code, out = run("simulate", "--faults", "0.5", "--output", "-", "--faults-manifest", "-")
    assert code == 2 and "standard output" in out


# --- '-' is standard output ----------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["check", str(CLEAN), "--format", "json", "-o", "-"],
    ["report", str(CLEAN), "-o", "-"],
    ["simulate", "--rounds", "3", "-o", "-"],
    ["simulate", "--rounds", "3", "--faults", "1", "-o", "log.yaml", "--faults-manifest", "-"],
])
def test_dash_is_standard_output(tmp_path: Path, args: list[str]) -> None:
    done = referee(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    assert done.stdout.strip()
    if args[0] == "check":
        assert json.loads(done.stdout)["summary"]["findings"] == 0
    if args[0] == "report":
        assert done.stdout.lstrip().startswith("<!DOCTYPE html>") and "no findings" in done.stderr
    if "--faults-manifest" in args:
        assert len(json.loads(done.stdout)) >= 1 and (tmp_path / "log.yaml").exists()


# --- atomic writes ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_leaves_the_previous_output(tmp_path: Path, sig: signal.Signals, status: int) -> None:
    target = tmp_path / "big.jsonl"
    target.write_text("the previous log\n")
    child = subprocess.Popen([sys.executable, "-m", "referee", "simulate", "--sessions", "2000", "--rounds", "1000",
                              "--format", "jsonl", "--output", str(target)], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) or (tmp_path / leftovers(tmp_path)[0]).stat().st_size < 100_000:
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.05)
    child.send_signal(sig)
    _, err = child.communicate(timeout=60)
    assert child.returncode == status
    assert "Traceback" not in err
    assert target.read_text() == "the previous log\n"
    assert leftovers(tmp_path) == []


@pytest.mark.slow
def test_two_runs_writing_one_path_leave_one_whole_report(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    children = [subprocess.Popen([sys.executable, "-m", "referee", "check", "--format", "json", "--output",
                                  str(target), *map(str, HAND_HISTORIES)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
                for _ in range(2)]
    for child in children:
        child.communicate(timeout=120)
        assert child.returncode == 1  # the samples hold findings
    report = json.loads(target.read_text())
    assert report["summary"]["files"] == len(HAND_HISTORIES)
    assert leftovers(tmp_path) == []


def test_a_failed_write_leaves_no_temporary_file_and_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), open_output(str(target)) as out:
        out.write("new, half written")
        raise RuntimeError("the audit failed")
    assert target.read_text() == "old" and leftovers(tmp_path) == []
    with open_output(str(target)) as out:
        out.write("new")
    assert target.read_text() == "new" and leftovers(tmp_path) == []
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_an_output_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="directory"), open_output(str(tmp_path)):
        pass


# --- write errors, closed pipes --------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("args, to_stdout", [
    (["check", str(CLEAN)], True),
    (["check", str(CLEAN), "--format", "json", "--output", "/dev/full"], False),
    (["report", str(CLEAN), "--output", "/dev/full"], False),
    (["simulate", "--rounds", "500", "--output", "/dev/full"], False),
    (["simulate", "--rounds", "500"], True),
    (["schema"], True),
    (["stats", str(CLEAN), "--no-decisions"], True),
    (["par", "--stored"], True),
])
def test_a_full_disk_is_one_line_and_exit_2(args: list[str], to_stdout: bool) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "referee", *args], stdout=full if to_stdout else subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert "/dev/full" in lines[0] or "standard output" in lines[0] or "the output" in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["simulate", "--sessions", "500", "--rounds", "100", "--format", "jsonl"],
    ["check", "--format", "json", *map(str, HAND_HISTORIES)],
])
def test_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    """``referee ... | head -1``: no message, status 141 (as a process ended by SIGPIPE).
    Each output is larger than a pipe holds (64 KiB) and what one ``readline`` takes
    from it: the command is still writing when the pipe closes, whatever the load (the
    text report of samples/, 35 KB, could be written whole before the close, exit 1);
    the hand histories named, not the folder, whose export is skipped with a notice."""
    child = subprocess.Popen([sys.executable, "-m", "referee", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline()
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(timeout=120) == 141
    assert err == b""


# --- exit statuses -----------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["check", str(CLEAN)], ["stats", str(CLEAN), "--no-decisions"], ["report", str(CLEAN), "-o", "r.html"],
    ["explain", str(CLEAN), "--round", "1"], ["simulate"], ["par", "--stored"],
])
def test_an_unknown_profile_is_a_usage_error_for_every_command(tmp_path: Path, args: list[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run(*args, "--profile", "no-such-profile")
    assert code == 2
    assert "--profile" in out and "no-such-profile" in out and "H005" not in out
    assert not (tmp_path / "r.html").exists()


def test_a_crash_is_one_line_and_exit_2_not_1(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.cli.check

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug\nsecond line")

    monkeypatch.setattr(referee.cli.check, "dispatch", broken)
    result = CliRunner().invoke(main, ["check", str(CLEAN)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "referee: internal error: ZeroDivisionError: a bug (set REFEREE_DEBUG=1 for the traceback)")
    monkeypatch.setenv("REFEREE_DEBUG", "1")
    result = CliRunner().invoke(main, ["check", str(CLEAN)])
    assert isinstance(result.exception, ZeroDivisionError)


def test_the_exit_status_table_is_documented_once_and_alike() -> None:
    root = Path(__file__).resolve().parent.parent
    for doc in ("README.md", "docs/limits.md"):
        text = (root / doc).read_text(encoding="utf-8")
        for status in ("| 0 |", "| 1 |", "| 2 |", "| 130 |", "| 141 |", "| 143 |"):
            assert status in text, (doc, status)


def test_reading_standard_input_never_writes_over_the_file_redirected_to_it(tmp_path: Path) -> None:
    """``check - -o FILE < FILE``: standard input is that file (same device and inode)."""
    log = tmp_path / "s1copy.yaml"
    shutil.copy(CLEAN, log)
    os.link(log, tmp_path / "hard.yaml")
    before = log.read_bytes()
    for output in ("s1copy.yaml", "hard.yaml"):
        with log.open("rb") as stdin:
            done = subprocess.run([sys.executable, "-m", "referee", "check", "-", "-o", output], stdin=stdin,
                                  capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "standard input" in done.stderr and "left untouched" in done.stderr
        assert log.read_bytes() == before
    with log.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "referee", "check", "-", "-o", "other.txt"], stdin=stdin,
                              capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no findings" in (tmp_path / "other.txt").read_text()


@pytest.mark.parametrize("args", [["report", str(CLEAN), "-o", "out.html"],
                                  ["recall", str(CLEAN), "--format", "html"]])
def test_a_missing_report_extra_says_how_to_install_it_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                            args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 now fails as without the extra
    code, out = run(*args)
    assert code == 2, out
    assert out.count("pip install 'referee[report]'") == 1, out
    assert not (tmp_path / "out.html").exists()


# --- text the report's encoding cannot write ----------------------------------------------

#: A lone surrogate (JSON's "\ud800") as a session id, a player id and a dealer id.
SURROGATES = {
    "session.jsonl": '{"session": {"id": "a\\ud800b"}}\n'
                     '{"round": 1, "ante": 1, "player": ["Ah","Kd"], "flop": ["2c","3c","4c"], "decision": "fold"}\n',
    "player.jsonl": (SAMPLES / "table.jsonl").read_text().replace("p-1001", "p-10\\ud80001"),
    "dealer.jsonl": (SAMPLES / "table.jsonl").read_text().replace('"dealer_id":"d-17"', '"dealer_id":"d-\\udc17"'),
}


@pytest.mark.parametrize("name", sorted(SURROGATES))
@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "github", "junit"])
def test_a_lone_surrogate_is_written_escaped(tmp_path: Path, name: str, fmt: str) -> None:
    """It was an internal error and no report (UTF-8 cannot write a lone surrogate): now
    written as ``\\ud800``, in a JSON string the escape that reads back as the same
    string; to standard output and to a file alike."""
    log = tmp_path / name
    log.write_text(SURROGATES[name])
    command = [sys.executable, "-m", "referee", "check", "--format", fmt, str(log)]
    out = subprocess.run(command, capture_output=True, timeout=120, check=False)
    to_file = subprocess.run([*command, "--output", str(tmp_path / "r")], capture_output=True, timeout=120,
                             check=False)
    assert out.returncode == to_file.returncode == 1, out.stderr
    assert b"internal error" not in out.stderr + to_file.stderr
    def strip(report: bytes) -> bytes:  # JUnit's timestamps and times differ from run to run
        return re.sub(rb'(timestamp|time)="[^"]*"', b"", report)

    assert strip(out.stdout) == strip((tmp_path / "r").read_bytes())
    out.stdout.decode("utf-8")  # valid UTF-8
    if fmt == "json":
        text = json.dumps(json.loads(out.stdout), ensure_ascii=False)
        assert "\ud800" in text or "\udc17" in text  # read back, the very string of the input


def test_the_html_report_writes_a_lone_surrogate_escaped(tmp_path: Path) -> None:
    log = tmp_path / "player.jsonl"
    log.write_text(SURROGATES["player.jsonl"])
    done = subprocess.run([sys.executable, "-m", "referee", "report", str(log), "-o", str(tmp_path / "r.html")],
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 1 and b"internal error" not in done.stderr
    assert "p-10\\ud80001" in (tmp_path / "r.html").read_text()


def test_a_character_standard_output_cannot_write_is_said(tmp_path: Path) -> None:
    """Standard output in ASCII (PYTHONIOENCODING=ascii) and a report with an 'é': a
    clear error, status 2 (it was an internal error)."""
    log = tmp_path / "cafe.jsonl"
    log.write_text(SURROGATES["session.jsonl"].replace("a\\ud800b", "café"))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--format", "json", str(log)],
                          capture_output=True, timeout=120, check=False, env=env)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert b"cannot write standard output: its encoding (ascii) has no '\\xe9'" in done.stderr
