"""What the arguments name (issue 16, inputs): every argument yields something to audit,
each file is audited once, links and streams are bounded, and the digest is of the
bytes audited, in the same pass; an input that changes during the audit is refused."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.load import inputs, readers
from referee.load.inputs import Source, SourceError, expand
from referee.load.readers import read as read_input
from referee.load.reading import CHANGED, Reading
from referee.load.records import Record

from .conftest import SAMPLES, run

CLEAN = SAMPLES / "clean.yaml"


def invoke(*args: str, input: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def test_a_glob_of_folders_without_logs_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("no log here")
    pattern = str(tmp_path / "*")
    code, out, err = invoke("check", pattern)
    assert code == 2 and pattern in err and "no hand-history file" in err and out == ""


def test_a_glob_of_folders_audits_the_logs_inside(tmp_path: Path) -> None:
    (tmp_path / "day1").mkdir()
    (tmp_path / "day1" / "t.yaml").write_bytes(CLEAN.read_bytes())
    code, out, _ = invoke("check", "--quiet", str(tmp_path / "day*"))
    assert code == 0 and out.startswith("1 file,")


def test_a_folder_without_logs_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("x")
    code, _, err = invoke("check", str(tmp_path))
    assert code == 2 and str(tmp_path) in err


def test_the_same_file_is_audited_once(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "t.yaml"
    log.write_bytes(CLEAN.read_bytes())
    (tmp_path / "link.yaml").symlink_to(log)
    code, out, _ = invoke("check", "--format", "json", str(log), str(folder), str(tmp_path / "link.yaml"), str(log))
    assert code == 0 and [i["file"] for i in json.loads(out)["inputs"]] == [str(log)]
    _, _, err = invoke("check", "--quiet", str(log), str(folder), str(tmp_path / "link.yaml"))
    assert err.count(f"the same file as {log}, audited once") == 2


def test_a_link_loop_is_followed_once(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "t.yaml").write_bytes(CLEAN.read_bytes())
    (folder / "sub" / "loop").symlink_to(folder)  # logs/sub/loop -> logs
    (folder / "again").symlink_to(folder / "sub")
    found = expand([str(folder)])
    assert [s.name for s in found] == [str(folder / "again" / "t.yaml")]


def test_dangling_links(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "t.yaml").write_bytes(CLEAN.read_bytes())
    (folder / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    notes: list[str] = []
    assert [s.name for s in expand([str(folder)], notes.append)] == [str(folder / "t.yaml")]
    assert notes == [f"{folder / 'gone.yaml'}: a dangling link (to {tmp_path / 'nowhere.yaml'}), skipped"]
    with pytest.raises(SourceError, match="dangling link"):
        expand([str(folder / "gone.yaml")])
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    with pytest.raises(SourceError, match="a loop of symbolic links"):
        expand([str(tmp_path / "a.yaml")])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_ends_at_once(device: str) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--quiet", device], capture_output=True,
                          text=True, timeout=30, check=False)
    assert time.monotonic() - started < 20
    assert done.returncode == 2 and "binary data" in done.stdout and "Traceback" not in done.stderr


def test_a_stream_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "MAX_STREAM_BYTES", 10_000)
    data = CLEAN.read_bytes() * 3
    code, out, _ = invoke("check", "--quiet", "-", input=data)
    assert code == 2 and "more than 10,000 bytes from a stream" in out
    monkeypatch.setattr(inputs, "MAX_STREAM_BYTES", 100_000)
    assert invoke("check", "--quiet", "-", input=CLEAN.read_bytes())[0] == 0


def test_stdin_is_not_held_in_memory(tmp_path: Path) -> None:
    """150 MB on standard input (a long line, skipped unread) within the bound of a
    file; the digest is of every byte read."""
    head = b'{"session": {"id": "s"}}\n{"round": 1, "meta": "'
    tail = b'"}\n{"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}\n'
    filler = 150_000_000
    child = subprocess.Popen([sys.executable, "-c", CHILD_RSS, "check", "--jobs", "1", "-"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdin is not None
    sha = hashlib.sha256(head)
    child.stdin.write(head)
    block = b"x" * (1 << 20)
    left = filler
    while left:
        piece = block[: min(left, len(block))]
        child.stdin.write(piece)
        sha.update(piece)
        left -= len(piece)
    child.stdin.write(tail)
    sha.update(tail)
    child.stdin.close()
    assert child.stdout is not None and child.stderr is not None
    out, err = child.stdout.read(), child.stderr.read()
    child.wait(120)
    rss = int(err.decode().strip().splitlines()[-1])
    assert child.returncode == 1 and b"longer than 16 MiB" in out and b"Traceback" not in err
    assert rss / 1024 < 100, f"{rss / 1024:.0f} MB"
    assert sha.hexdigest().encode() in out


CHILD_RSS = ("import runpy, sys; sys.argv = ['referee'] + sys.argv[1:]\n"
             "try:\n    from referee.cli import main; main()\nexcept SystemExit as e:\n"
             "    code = e.code\nelse:\n    code = 0\n"
             "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)\n"
             "sys.exit(code)")


def test_closed_stdin_is_a_clear_error() -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "check", "-"], capture_output=True, text=True,
                          timeout=30, check=False, preexec_fn=lambda: os.close(0))
    assert done.returncode == 2 and "standard input is closed" in done.stderr and "Traceback" not in done.stderr


def test_nothing_audited_is_not_a_pass(write) -> None:  # type: ignore[no-untyped-def]
    empty = write("empty.yaml", "session: {id: e}\nrounds: []\n")
    code, out, err = invoke("check", "--quiet", empty)
    assert code == 2 and "nothing audited" in err and "0 rounds" in out
    code, out, _ = invoke("check", "--format", "json", empty)
    assert code == 2 and json.loads(out)["summary"]["exit_code"] == 2
    code, _, err = invoke("stats", "--no-decisions", empty)
    assert code == 2 and "no round of the inputs was ruled" in err
    code, _, err = invoke("report", "-o", str(Path(empty).with_suffix(".html")), empty)
    assert code == 2 and "nothing audited" in err


def test_stats_with_only_void_rounds_says_so(write) -> None:  # type: ignore[no-untyped-def]
    void = write("void.yaml", "session: {id: v, rounds_agreed: 1}\nrounds:\n"
                 "  - {round: 1, ante: 1, player: [Ah, Ah], flop: [2c, 3c, 4c], decision: fold}\n")
    code, _, err = invoke("stats", "--no-decisions", void)
    assert code == 2 and "nothing to describe" in err


def _records_with(path: Path, action: object) -> list[Record]:
    """The records of ``path``, running ``action`` after the first one is read."""
    out: list[Record] = []
    reading = Reading(Source(str(path), path))
    for record in read_input(reading):
        out.append(record)
        if len(out) == 1:
            action()  # type: ignore[operator]
    return out


def test_digest_is_of_the_bytes_parsed_in_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(CLEAN.read_bytes())
    opened: list[str] = []
    real_open = inputs.open_input

    def counting(source: Source, offset: int = 0) -> inputs.Opened:
        opened.append(source.name)
        return real_open(source, offset)

    monkeypatch.setattr("referee.load.reading.open_input", counting)
    reading = Reading(Source(str(path), path))
    assert not any(getattr(r, "fatal", False) for r in read_input(reading))
    assert opened == [str(path)]  # one opening, one pass
    assert reading.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and reading.size == path.stat().st_size


@pytest.mark.parametrize("kind", ["yaml", "jsonl", "json"])
def test_a_file_that_grows_during_the_audit_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"t.{kind}"
    source = {"yaml": CLEAN, "jsonl": SAMPLES / "log.jsonl", "json": CLEAN}[kind]
    if kind == "json":
        code, _ = run("simulate", "--format", "json", "--output", str(path))
        assert code == 0
    else:
        path.write_bytes(source.read_bytes())
    before = path.read_bytes()

    def grow() -> None:
        with path.open("ab") as fh:
            fh.write(b"\n" * 10)

    records = _records_with(path, grow)
    last = records[-1]
    assert getattr(last, "fatal", False) and CHANGED in last.message  # type: ignore[union-attr]
    reading = Reading(Source(str(path), path))
    list(read_input(reading))  # the file as it is now reads clean
    assert not reading.fatal and reading.size == len(before) + 10


def test_a_file_rewritten_during_the_audit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(CLEAN.read_bytes())
    real = readers.READERS["yaml"]

    def rewriting(reading: Reading, stream: object) -> Iterator[Record]:
        path.write_bytes(CLEAN.read_bytes().replace(b"id: ", b"id: X"))  # a new version, longer
        return real(reading, stream)  # type: ignore[arg-type]

    monkeypatch.setitem(readers.READERS, "yaml", rewriting)
    code, out, _ = invoke("check", "--quiet", str(path))
    assert code == 2 and CHANGED in out and str(path) in out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_pipe_is_read_once(tmp_path: Path, jobs: str) -> None:
    """A named pipe among large inputs: never read by the planning pass, audited whole."""
    import threading

    big = tmp_path / "big.jsonl"
    code, _ = run("simulate", "--sessions", "40", "--rounds", "120", "--format", "jsonl", "--output", str(big))
    assert code == 0 and big.stat().st_size > 1 << 20
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    data = CLEAN.read_bytes()

    def feed() -> None:
        with pipe.open("wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, out, _ = invoke("check", "--format", "json", "--jobs", jobs, str(pipe), str(big))
    writer.join(10)
    report = json.loads(out)
    assert code == 0 and report["inputs"][0] == {"file": str(pipe), "kind": "yaml", "size": len(data),
                                                 "sha256": hashlib.sha256(data).hexdigest(), "readable": True}


NOT_A_HISTORY = ("(a hand history has 'session' and 'rounds', or 'format: 2' with 'games'; a provider's export is "
                 "read with --mapping: referee mappings)")
WORKFLOW = "name: CI\non:\n  push:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n"


@pytest.mark.parametrize(("name", "text", "found"), [
    ("export.json", '{"data": [{"id": 1}], "uuid": "5f0c"}', "its top-level keys are 'data', 'uuid'"),
    ("ci.yml", WORKFLOW, "its top-level keys are 'name', 'True', 'jobs'"),
    ("list.json", "[1, 2]", "its top level is a list"),
    ("empty.yaml", "{}\n", "its top level is an empty mapping"),
    ("notes.yaml", "just a sentence\n", "its top level is text"),
    ("export.jsonl", '{"data": 1, "uuid": 2}\n{"session": {"id": "s"}}\n', "its first line's keys are 'data', 'uuid'"),
    ("numbers.jsonl", "[1, 2]\n", "its first line is a list"),
])
def test_a_file_that_is_not_a_hand_history_is_refused_in_one_line(tmp_path: Path, name: str, text: str,
                                                                   found: str) -> None:
    """Issue 27: a provider's export or a CI workflow was audited as an empty session
    (H002, H001, "S005 0 rounds played, 20 agreed", "a draw", exit 1). It is not a hand
    history: one H000 naming what was found, exit 2, no session."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, _ = invoke("check", "--quiet", str(path))
    lines = out.splitlines()
    assert code == 2 and len(lines) == 2, out
    assert lines[0].startswith(f"{path}:1: H000 [error] not a hand history: {found} (")
    assert NOT_A_HISTORY in lines[0] or "opens with a session line" in lines[0]
    assert "0 sessions" in lines[1] and "1 file unreadable" in lines[1]
    code, report = check_json_of(path)
    assert code == 2 and report["sessions"] == [] and [p["code"] for p in report["problems"]] == ["H000"]
    assert report["inputs"][0]["readable"] is False


def check_json_of(path: Path) -> tuple[int, dict[str, Any]]:
    code, out, _ = invoke("check", "--format", "json", str(path))
    return code, json.loads(out)


@pytest.mark.parametrize(("text", "found"), [
    ("session: {id: s}\n", "H001 [error] the session has no 'rounds' list"),
    ("rounds: []\n", "H001 [error] the document has no 'session' header"),
    ("format: 2\ngames: []\n", "H001 [error] the document has no 'session' header"),
])
def test_a_damaged_hand_history_is_still_audited(tmp_path: Path, text: str, found: str) -> None:
    """A document with one of the keys a hand history has is audited: its faults are findings."""
    path = tmp_path / "log.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, _ = invoke("check", "--quiet", str(path))
    assert code == 1 and found in out and "not a hand history" not in out and "H000" not in out


def test_a_damaged_first_line_of_json_lines_is_still_read(tmp_path: Path) -> None:
    """A first line one edit from a session line is a damaged one (H004, did you mean),
    not a file of another kind; a broken first line is H004 too."""
    path = tmp_path / "log.jsonl"
    round_line = '{"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}\n'
    path.write_text('{"sesion": {"id": "s"}}\n' + round_line, encoding="utf-8")
    _, out, _ = invoke("check", "--quiet", str(path))
    assert "did you mean 'session'?" in out and "not a hand history" not in out
    path.write_text('{"session": {"id": "s"\n' + round_line, encoding="utf-8")
    _, out, _ = invoke("check", "--quiet", str(path))
    assert "unreadable session line" in out and "not a hand history" not in out


def test_a_chunk_of_json_lines_is_not_judged_by_its_first_line() -> None:
    """Under --jobs a chunk starts at a session line inside the file: only the file's own
    first line says whether it is a hand history."""
    from referee.load.readers.jsonl import records

    found = list(records("log", [b'{"data": 1}\n'], 5, have_session=True))
    assert [type(r).__name__ for r in found] == ["LoadProblem"] and not found[0].fatal  # type: ignore[union-attr]
