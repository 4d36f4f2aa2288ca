"""Hostile and broken input (issue 10): a clear finding naming the file, never a
traceback, within the bounds stated in docs/limits.md (checked here as limits on a
child process, not as timings)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SAMPLES, Write, check_json

# Runs `referee ARGS` in a child and prints the peak RSS (KiB) of it or of any of its
# worker processes, whichever is larger, as the last stderr line.
CHILD = ("import resource, runpy, sys; sys.argv = ['referee'] + sys.argv[1:]\n"
         "try:\n    from referee.cli import main; main()\nexcept SystemExit as e:\n"
         "    code = e.code\nelse:\n    code = 0\n"
         "peak = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
         "peak = peak[0] if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
         "print(max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), file=sys.stderr)\n"
         "sys.exit(code)")
ROUND = "  - {round: 1, ante: 1, player: [Ah, Kd], flop: [2c, 3c, 4c], decision: fold}\n"


@pytest.fixture(params=["1", "2"])
def jobs(request: pytest.FixtureRequest) -> str:
    """Every bound holds in one process and with workers."""
    return str(request.param)


def bounded(path: Path, seconds: float, megabytes: int, jobs: str) -> tuple[int, str]:
    """Run ``referee check --quiet --jobs JOBS PATH``; assert the bounds and no traceback."""
    done = subprocess.run([sys.executable, "-c", CHILD, "check", "--quiet", "--jobs", jobs, str(path)],
                          capture_output=True, text=True, timeout=seconds, check=False)
    *_, rss = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    assert int(rss) / 1024 < megabytes, f"{int(rss) / 1024:.0f} MB"
    assert done.returncode in (1, 2)
    assert str(path) in done.stdout
    return done.returncode, done.stdout


def test_alias_bomb(tmp_path: Path, jobs: str) -> None:
    lines = ['  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = tmp_path / "bomb.yaml"
    path.write_text("session:\n  id: x\n  meta:\n" + "\n".join("  " + line for line in lines) + "\nrounds: []\n")
    code, out = bounded(path, 5, 100, jobs)
    assert code == 2 and "YAML aliases" in out and ":5: H000" in out


@pytest.mark.parametrize("name, text", [
    ("deep.yaml", "session: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    ("deep2.yaml", "session:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200)) + "  " * 200 + "v: 1\n"),
    ("deep.json", '{"session": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ("deep.jsonl", '{"session": ' + "[" * 100_000 + "]" * 100_000 + "}\n"),
])
def test_deep_nesting(tmp_path: Path, name: str, text: str, jobs: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    _, out = bounded(path, 10, 150, jobs)
    assert "nest" in out


def test_a_100_mb_line_in_json_lines(tmp_path: Path, jobs: str) -> None:
    path = tmp_path / "long.jsonl"
    with path.open("w") as fh:
        fh.write('{"session": {"id": "s"}}\n{"round": 1, "meta": "' + "x" * 100_000_000 + '"}\n')
        fh.write('{"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}\n')
        fh.write('{"session": {"id": "t"}}\n')  # a second chunk: with --jobs 2, two workers read the file
    code, out = bounded(path, 30, 150, jobs)
    assert code == 1 and ":2: H004" in out and "longer than 16 MiB" in out
    assert "2 rounds" not in out and "1 round (1 counted" in out  # the next line is still audited


@pytest.mark.parametrize("kind", ["json", "yaml"])
def test_a_20_mb_line_in_a_document_is_read(tmp_path: Path, kind: str, jobs: str) -> None:
    path = tmp_path / f"long.{kind}"
    ident = "x" * 20_000_000
    if kind == "json":
        path.write_text('{"session": {"id": "' + ident + '"}, "rounds": []}')
    else:
        path.write_text('session: {id: "' + ident + '"}\nrounds: []\n')
    code, out = bounded(path, 30, 300, jobs)
    assert code == 1 and "session.id" in out and "at most 500 characters" in out


@pytest.mark.parametrize("kind", ["json", "yaml"])
def test_a_million_items_where_a_card_is_expected(tmp_path: Path, kind: str, jobs: str) -> None:
    path = tmp_path / f"million.{kind}"
    if kind == "json":
        path.write_text('{"session": {"id": "m"}, "rounds": [{"round": 1, "ante": 1, "player": ['
                        + ",".join(['"Ah"'] * 1_000_000) + '], "flop": ["2c","3c","4c"], "decision": "fold"}]}')
    else:
        path.write_text("session: {id: m}\nrounds:\n  - round: 1\n    ante: 1\n    player: ["
                        + ",".join(["Ah"] * 1_000_000) + "]\n    flop: [2c, 3c, 4c]\n    decision: fold\n")
    code, out = bounded(path, 30, 200, jobs)
    assert code == 1 and "player" in out and ("1,000,000 items" in out or "1000000" in out)


@pytest.mark.parametrize("kind", ["yaml", "jsonl"])
def test_enormous_and_special_numbers(tmp_path: Path, kind: str, jobs: str) -> None:
    rounds = [("1e400", "less than or equal to 1E+12"), ("9" * 5000, "round 2: ante: Input should be less than"),
              ("-0", "more than 0")]
    if kind == "yaml":
        rounds.append((".nan", "finite number"))
        body = "session: {id: n, rounds_agreed: 1}\nrounds:\n" + "".join(
            f"  - {{round: {i}, ante: {v}, player: [Ah, Kd], flop: [2c, 3c, 4c], decision: fold}}\n"
            for i, (v, _) in enumerate(rounds, start=1))
    else:
        rounds.append(("NaN", "NaN is not a number"))
        body = '{"session": {"id": "n", "rounds_agreed": 1}}\n' + "".join(
            f'{{"round": {i}, "ante": {v}, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}}\n'
            for i, (v, _) in enumerate(rounds, start=1))
    path = tmp_path / f"numbers.{kind}"
    path.write_text(body)
    code, out = bounded(path, 10, 150, jobs)
    assert code == 1  # one bad round never stops the others
    for _, expected in rounds:
        assert expected in out, expected


def test_money_is_exact(write: Write) -> None:
    rounds = "".join(f"  - {{round: {i}, ante: 0.1, player: [2c, 7d], flop: [Jh, Qs, 4c], decision: fold, "
                     f"recorded: {{net: -0.1, balance: {-0.1 * i:.1f}}}}}\n" for i in range(1, 4))
    path = write("cents.yaml", "session: {id: c, rounds_agreed: 3}\nrounds:\n" + rounds)
    code, report = check_json(path)
    ledger = report["sessions"][0]["ledger"]
    assert code == 0 and str(ledger["staked"]) == "0.3" and str(ledger["net"]) == "-0.3"
    assert '"staked":0.3' in json.dumps(ledger, separators=(",", ":"))
    big = write("big.yaml", "session: {id: b, rounds_agreed: 1}\nrounds:\n  - {round: 1, ante: 999999999999.123456, "
                "player: [2c, 7d], flop: [Jh, Qs, 4c], decision: fold}\n")
    from .conftest import run

    _, text = run("check", "--format", "json", big)
    assert '"net":-999999999999.123456' in text  # written exactly, never through a float
    frac = write("frac.yaml", "session: {id: f, rounds_agreed: 1}\nrounds:\n"  # half a cent
                 "  - {round: 1, ante: 0.005, player: [2c, 7d], flop: [Jh, Qs, 4c], decision: fold}\n")
    _, report = check_json(frac)
    assert any(f["code"] == "S008" and "stake increment" in f["message"] for f in report["sessions"][0]["findings"])


@pytest.mark.parametrize("name, data, expected, code", [
    ("latin1.yaml", "session: {id: café}\nrounds: []\n".encode("latin-1"), ":1: H000", 2),
    ("bom.yaml", b"\xef\xbb\xbf" + (SAMPLES / "clean.yaml").read_bytes(), "no findings", 0),
    ("crlf.yaml", (SAMPLES / "clean.yaml").read_bytes().replace(b"\n", b"\r\n"), "no findings", 0),
    ("bom.jsonl", b"\xef\xbb\xbf" + (SAMPLES / "log.jsonl").read_bytes(), "no findings", 0),
    ("crlf.jsonl", (SAMPLES / "log.jsonl").read_bytes().replace(b"\n", b"\r\n"), "no findings", 0),
    ("nul.yaml", b"session: {id: x}\x00\nrounds: []\n", "NUL", 2),
    ("binary.yaml", bytes(range(256)) * 20, "binary", 2),
    ("empty.yaml", b"", "empty", 2),
])
def test_encodings_and_binary(tmp_path: Path, name: str, data: bytes, expected: str, code: int) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--quiet", str(path)], capture_output=True,
                          text=True, timeout=30, check=False)
    assert "Traceback" not in done.stderr
    assert done.returncode == code and expected in done.stdout, done.stdout
    if code:
        assert str(path) in done.stdout


def test_latin1_names_line_and_column(tmp_path: Path, jobs: str) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("session:\n  id: café\nrounds: []\n".encode("latin-1"))
    code, out = bounded(path, 10, 100, jobs)
    assert code == 2 and ":2: H000" in out and "byte 0xe9 at column 10" in out


@pytest.mark.slow
def test_a_directory_of_10000_files(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    text = "session: {id: sNUMBER, rounds_agreed: 1}\nrounds:\n" + ROUND
    for i in range(10_000):
        (folder / f"f{i:05d}.yaml").write_text(text.replace("NUMBER", str(i)))
    (folder / "f00042.yaml").write_text("session: {id: bad}\nrounds: [\n")
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--quiet", str(folder)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2 and "f00042.yaml" in done.stdout and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[-1].startswith("10000 files, 9999 sessions")


def test_unreadable_file_is_not_a_traceback(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        path = tmp_path / "dir.yaml"
        path.mkdir()  # root can read any file; a directory named like a log cannot be read as one
        args = [str(path / "*.yaml"), str(SAMPLES / "clean.yaml")]
    else:
        path = tmp_path / "locked.yaml"
        path.write_text("session: {id: x}\nrounds: []\n")
        path.chmod(0)
        args = [str(path), str(SAMPLES / "clean.yaml")]
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--quiet", *args], capture_output=True,
                          text=True, timeout=30, check=False)
    assert "Traceback" not in done.stderr and done.returncode == 2


@pytest.mark.parametrize("args", [
    ["check", str(SAMPLES / "clean.yaml"), "--output", "/nonexistent/dir/r.json"],
    ["report", str(SAMPLES / "clean.yaml"), "--output", "/nonexistent/dir/r.html"],
    ["simulate", "--output", "/nonexistent/dir/s.yaml"],
    ["simulate", "--output", "-", "--faults", "0.1", "--faults-manifest", "/nonexistent/dir/m.json"],
])
def test_an_output_that_cannot_be_written(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "/nonexistent/dir/" in done.stderr and "No such file or directory" in done.stderr


@pytest.mark.parametrize("ending", ["\n", "", "\r\n"])
def test_a_syntax_error_at_the_end_of_the_stream_is_on_the_last_line(write: Write, ending: str) -> None:
    """libyaml places an unclosed list at the end of the stream, one line past the file."""
    text = "session: {id: s1, player: p, profile: vivo}\nrounds:\n  - id: 1\n    ante: 5\n    player: [AS, KS"
    path = write("broken.yaml", (text + ending).replace("\n", ending or "\n"))
    code, report = check_json(path)
    assert code == 2
    [problem] = report["problems"]
    assert problem["line"] == 5, problem
    assert problem["message"].endswith("nothing in the file was audited")


@pytest.mark.parametrize("padding", [0, 20_000])
def test_a_broken_document_hides_neither_the_documents_after_it_nor_what_was_skipped(write: Write,
                                                                                    padding: int) -> None:
    """The audit resumes at the next document marker (``---`` at column 0), even past the
    64 KiB of input kept (``padding`` comment lines, 120 KB); the file is still unreadable."""
    clean = (SAMPLES / "clean.yaml").read_text()
    lines = clean.count("\n")
    pad = "# pad\n" * padding
    later = clean.replace("table-7/2026-11-29/evening", "table-7/2026-11-29/later")  # not a repeat (S010)
    path = write("multi.yaml", f"{clean}---\nsession: {{id: bad\n{pad}---\n{later}")
    code, report = check_json(path)
    assert code == 2
    assert report["summary"]["unreadable_files"] == 1
    marker = lines + 3 + padding
    assert [s["line"] for s in report["sessions"]] == [1, marker + 1]  # the third document is audited
    assert all(not s["findings"] for s in report["sessions"])
    [problem] = report["problems"]
    assert problem["line"] == marker, problem  # libyaml sees the unclosed mapping end at the marker
    assert problem["message"].endswith(f"lines {lines + 1} to {marker - 1} were not audited; the audit resumes "
                                       f"at the document marker (---) on line {marker}")


def test_a_broken_last_document_is_reported_to_the_end(write: Write) -> None:
    path = write("two.yaml", "--- {a: ]\n--- {b: ]\n")
    code, report = check_json(path)
    assert code == 2
    assert [(p["line"], p["message"].split("; ", 1)[1]) for p in report["problems"]] == [
        (1, "line 1 was not audited; the audit resumes at the document marker (---) on line 2"),
        (2, "its last line 2 was not audited")]
