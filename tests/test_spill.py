"""Workers' report text written to spill files (``referee.report.spill``): the report is
byte-identical whether the text is copied in the kernel, read back, or sent through the
pipe; nothing is left behind; a text that cannot be spilled travels back as it is."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee import pipeline
from referee.audit.stream import Options
from referee.load.inputs import Source
from referee.output import GuardedWriter, open_output
from referee.report.base import Reporter
from referee.report.json import JsonReporter
from referee.report.spill import SPILL_MIN_CHARS, Spilled, SpillFile, nameless_file, write_text

from .test_pipeline import simulate


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Long sessions (their batches of clean rounds are long texts) with some faults."""
    return simulate(tmp_path_factory.mktemp("spill") / "log.jsonl", "jsonl", 12, 400, 8, "0.02")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A live table (format 2): each game's JSON text is long (100 seats)."""
    from .conftest import run

    path = tmp_path_factory.mktemp("spill-table") / "table.jsonl"
    code, _ = run("simulate", "--seats", "100", "--rounds", "30", "--sessions", "10", "--seed", "19",
                  "--format", "jsonl", "--output", str(path))
    assert code == 0
    return path


def check(log: Path, jobs: int, out: Path | None, tmp: Path) -> tuple[bytes, list[str]]:
    """``referee check --format json`` as a command, its report (a file, or standard
    output through a pipe) and what is left in its temporary folder."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    args = [sys.executable, "-m", "referee", "check", "--format", "json", "--jobs", str(jobs), "--no-progress",
            str(log)]
    done = subprocess.run([*args, "--output", str(out)] if out else args, capture_output=True, env=env, timeout=300,
                          check=False)
    assert done.returncode in (0, 1), done.stderr
    return (out.read_bytes() if out else done.stdout), sorted(os.listdir(tmp))


@pytest.mark.parametrize("to_file", [True, False])
@pytest.mark.parametrize("kind", ["rounds", "games"])
def test_spilled_text_makes_the_same_report(log: Path, table: Path, tmp_path: Path, to_file: bool, kind: str) -> None:
    log = log if kind == "rounds" else table
    assert log.stat().st_size > pipeline.PARALLEL_MIN_BYTES  # the command audits it in processes
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    one, _ = check(log, 1, tmp_path / "one.json" if to_file else None, tmp)
    two, left = check(log, 2, tmp_path / "two.json" if to_file else None, tmp)
    assert one == two and one.count(b'"round":' if kind == "rounds" else b'"game":') > 250
    assert left == []  # nothing left in TMPDIR (the spill files have no name)


@pytest.mark.parametrize("kind", ["rounds", "games"])
def test_the_parent_copies_spilled_text_in_the_kernel(log: Path, table: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """In process, with workers: the report is written through ``copy_from`` and equals
    the one-process report, for batches of clean rounds and for format-2 games."""
    log = log if kind == "rounds" else table
    copied: list[int] = []
    real = GuardedWriter.copy_from

    def spy(self: GuardedWriter, source: int, offset: int, size: int) -> bool:
        done = real(self, source, offset, size)
        copied.append(size if done else 0)
        return done

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(GuardedWriter, "copy_from", spy)
    reports = []
    for jobs in (1, 2):
        target = tmp_path / f"r{jobs}.json"
        with open_output(str(target)) as out:
            reporters: list[Reporter] = [JsonReporter(out)]
            stream = pipeline.audit_stream([Source(str(log), log)], Options(), reporters, jobs)
            pipeline.dispatch(stream.events, reporters)
        reports.append(target.read_bytes())
    assert reports[0] == reports[1]
    assert copied and all(copied) and sum(copied) > len(reports[0]) // 3


@pytest.fixture
def spill_fd() -> Iterator[int]:
    fd = nameless_file()
    yield fd
    os.close(fd)


def test_a_spill_file_has_no_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing to leave behind, even if the parent is killed: the file is gone with its
    last descriptor (a test in test_pipeline kills the parent and finds TMPDIR empty)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fd = nameless_file()
    try:
        assert os.listdir(tmp_path) == [] and os.fstat(fd).st_nlink == 0
    finally:
        os.close(fd)


def test_a_stream_without_a_file_reads_the_text_back(spill_fd: int) -> None:
    text = "é" + "x" * SPILL_MIN_CHARS
    spilled = SpillFile(spill_fd).put(text)
    assert isinstance(spilled, Spilled) and spilled.size == len(text.encode())
    written: list[str] = []
    for inner in (io.StringIO(), io.StringIO()):
        out = inner if not written else GuardedWriter(inner, "-")
        out.write("<")
        write_text(out, spilled)  # type: ignore[arg-type]
        written.append(inner.getvalue())
    assert written == ["<" + text] * 2


def test_another_encoding_is_written_as_text(spill_fd: int) -> None:
    """A report stream that is not UTF-8 takes no raw bytes: the text is decoded and
    written, as the stream would have written it."""
    spilled = SpillFile(spill_fd).put("y" * SPILL_MIN_CHARS)
    assert isinstance(spilled, Spilled)
    raw = io.BytesIO()
    inner = io.TextIOWrapper(raw, encoding="latin-1")
    writer = GuardedWriter(inner, "-")
    assert not writer.copy_from(spilled.fd, spilled.offset, spilled.size)
    write_text(writer, spilled)  # type: ignore[arg-type]
    writer.flush()
    assert raw.getvalue() == b"y" * SPILL_MIN_CHARS


def test_what_cannot_be_spilled_travels_back(spill_fd: int) -> None:
    spill = SpillFile(spill_fd)
    assert spill.put("short") == "short"
    lone = "\ud800" + "z" * SPILL_MIN_CHARS  # does not encode: the parent must fail on it as in one process
    assert spill.put(lone) == lone and os.fstat(spill_fd).st_size == 0
    read_only = os.open(os.devnull, os.O_RDONLY)  # cannot be written (a full disk alike)
    try:
        broken = SpillFile(read_only)
        long = "w" * SPILL_MIN_CHARS
        assert broken.put(long) == long and broken.put(long) == long
    finally:
        os.close(read_only)


def test_a_spill_file_keeps_its_texts_in_order(spill_fd: int) -> None:
    """From its start, written over by the next task (the parent has copied the last's)."""
    for letters in ("abc", "de"):
        spill = SpillFile(spill_fd)
        texts = [c * (SPILL_MIN_CHARS + i) for i, c in enumerate(letters)]
        spilled = [spill.put(t) for t in texts]
        assert [s.read() for s in spilled if isinstance(s, Spilled)] == texts
        assert [s.offset for s in spilled if isinstance(s, Spilled)] == [sum(map(len, texts[:i]))
                                                                         for i in range(len(texts))]


def test_a_report_appended_to_a_file_is_whole(log: Path, tmp_path: Path) -> None:
    """``referee check ... >> report``: standard output is opened with O_APPEND, which
    ``sendfile`` refuses (EINVAL); the text is then written as it is, not an error."""
    reports = []
    for jobs in (1, 2):
        target = tmp_path / f"r{jobs}.json"
        target.write_bytes(b"before\n")
        with target.open("ab") as out:
            done = subprocess.run([sys.executable, "-m", "referee", "check", "--format", "json", "--jobs", str(jobs),
                                   "--no-progress", str(log)], stdout=out, stderr=subprocess.PIPE, timeout=300,
                                  check=False)
        assert done.returncode == 1, done.stderr
        reports.append(target.read_bytes())
    assert reports[0] == reports[1] and reports[0].startswith(b"before\n{") and reports[0].endswith(b"}\n")


def test_games_whose_text_does_not_encode_read_as_in_one_process(table: Path, tmp_path: Path) -> None:
    """A player id with a lone surrogate (``\\ud800`` in the log) cannot be written as
    UTF-8 as it is: written escaped (docs/limits.md), and the same way whether its run of
    games travels as one text or game by game (a joined run is never spilled then: the
    worker's UTF-8 refuses it, and the parent's stream escapes it, as in one process)."""
    data = table.read_bytes()
    at = data.index(b'{"session"', len(data) // 2)
    player = data[data.index(b'"player_id":"', at) + 13:].split(b'"', 1)[0]
    log = tmp_path / "lone.jsonl"
    log.write_bytes(data[:at] + data[at:].replace(b'"' + player + b'"', b'"' + player + b'\\ud800"'))
    runs = [subprocess.run([sys.executable, "-m", "referee", "check", "--format", "json", "--jobs", str(jobs),
                            "--no-progress", str(log)], capture_output=True, timeout=300, check=False)
            for jobs in (1, 2)]
    assert runs[0].returncode in (0, 1) and player + b"\\ud800" in runs[0].stdout
    assert [(r.returncode, r.stdout, r.stderr) for r in runs[1:]] == [(runs[0].returncode, runs[0].stdout,
                                                                        runs[0].stderr)]


def test_a_run_of_texts_is_spilled_as_their_join(spill_fd: int) -> None:
    """``put_joined`` writes ``sep.join(texts)`` text by text, after what is spilled
    already; short runs, runs that do not encode and runs a broken file cannot take
    travel back joined."""
    spill = SpillFile(spill_fd)
    first = spill.put("a" * SPILL_MIN_CHARS)
    texts = ["é" * 700, "", "b" * 9000, "c" * 8000, ""]
    spilled = spill.put_joined(texts, ",\n")
    assert isinstance(first, Spilled) and isinstance(spilled, Spilled)
    assert spilled.offset == first.size and spilled.read() == ",\n".join(texts)
    assert spill.put_joined(["x", "y"], ",\n") == "x,\ny"
    lone = ["z" * SPILL_MIN_CHARS, "\ud800"]
    assert spill.put_joined(lone, ",\n") == ",\n".join(lone)
    assert os.fstat(spill_fd).st_size == first.size + spilled.size
    read_only = os.open(os.devnull, os.O_RDONLY)
    try:
        broken = SpillFile(read_only)
        assert broken.put_joined(texts, "|") == "|".join(texts)
    finally:
        os.close(read_only)


def test_a_short_write_leaves_no_gap(spill_fd: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write may take fewer bytes than given (a signal, a nearly full disk): the rest
    follows at the right offset, inside a buffer as between two."""
    pwritev = os.pwritev
    calls: list[int] = []

    def short(fd: int, buffers: list[bytes], at: int) -> int:
        calls.append(len(buffers))
        return pwritev(fd, [memoryview(buffers[0])[:1000]], at)

    monkeypatch.setattr(os, "pwritev", short)
    texts = [chr(ord("a") + i) * (3000 + i) for i in range(8)]
    spilled = SpillFile(spill_fd).put_joined(texts, ";")
    assert isinstance(spilled, Spilled) and spilled.read() == ";".join(texts) and len(calls) > len(texts)


def test_a_file_that_takes_nothing_is_broken(spill_fd: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "pwritev", lambda fd, buffers, at: 0)
    spill = SpillFile(spill_fd)
    texts = ["q" * SPILL_MIN_CHARS, "r"]
    assert spill.put_joined(texts, ",") == ",".join(texts) and spill.put("s" * SPILL_MIN_CHARS) == "s" * SPILL_MIN_CHARS
    alone = SpillFile(spill_fd)  # put alone, on a fresh file: the same loop, no endless retry
    assert alone.put("t" * SPILL_MIN_CHARS) == "t" * SPILL_MIN_CHARS


def test_a_run_longer_than_one_pwritev_is_written_whole(spill_fd: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of thousands of small games is more buffers than one ``pwritev`` takes (the
    system's IOV_MAX, 1024 on Linux: more is EINVAL): written batch after batch, each
    batch possibly short, the join reads back whole."""
    pwritev = os.pwritev
    sizes: list[int] = []

    def half(fd: int, buffers: list[bytes | memoryview], at: int) -> int:
        assert len(buffers) <= 1024
        sizes.append(len(buffers))
        data = b"".join(buffers)
        return pwritev(fd, [data[:max(1, len(data) // 2)]], at)

    monkeypatch.setattr(os, "pwritev", half)
    texts = [f"{i}:" + "g" * (i % 7) for i in range(3000)]
    texts[0] += "h" * SPILL_MIN_CHARS
    spilled = SpillFile(spill_fd).put_joined(texts, ",\n")
    assert isinstance(spilled, Spilled) and spilled.read() == ",\n".join(texts)
    assert max(sizes) == 1024 and len(sizes) > 5


def test_a_disk_that_fills_up_midway_breaks_the_file(spill_fd: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC after part of a run is written: the run travels back as its text, what was
    spilled before still reads, and nothing more is spilled (the pipe still works)."""
    spill = SpillFile(spill_fd)
    before = spill.put("k" * SPILL_MIN_CHARS)
    pwritev = os.pwritev
    calls: list[int] = []

    def full(fd: int, buffers: list[bytes], at: int) -> int:
        calls.append(at)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return pwritev(fd, [buffers[0]], at)

    monkeypatch.setattr(os, "pwritev", full)
    texts = ["m" * SPILL_MIN_CHARS, "n" * 100]
    assert spill.put_joined(texts, ",\n") == ",\n".join(texts) and len(calls) == 2
    assert isinstance(before, Spilled) and before.read() == "k" * SPILL_MIN_CHARS
    assert spill.put_joined(texts, ";") == ";".join(texts) and len(calls) == 2


def test_a_game_repeated_across_chunks_names_players_whole(table: Path, tmp_path: Path) -> None:
    """Player ids holding NUL (JSON ``\\u0000``, the separator GameFingerprint.__reduce__
    joins ids with) in a game recorded again in a session a --jobs worker audits apart:
    the parent's game index finds each player seated twice, by its whole id, as in one
    process."""
    data = table.read_bytes()
    head_end = data.index(b"\n") + 1
    game_end = data.index(b"\n", head_end) + 1
    seated = [s["player_id"] for s in json.loads(data[head_end:game_end])["seats"]]
    first = data[:game_end]
    for old, new in zip(seated, ["a\\u0000b", "\\u0000", "c\\u0000"], strict=False):
        first = first.replace(f'"{old}"'.encode(), f'"{new}"'.encode())
    again = first.replace(b'"sim-table-vivo-19-1"', b'"again"', 1)
    log = tmp_path / "again.jsonl"
    log.write_bytes(first + data[game_end:] + again)
    runs = [subprocess.run([sys.executable, "-m", "referee", "check", "--format", "jsonl", "--jobs", str(jobs),
                            "--no-progress", str(log)], capture_output=True, timeout=300, check=False)
            for jobs in (1, 2)]
    assert [(r.returncode, r.stdout, r.stderr) for r in runs[1:]] == [(runs[0].returncode, runs[0].stdout,
                                                                        runs[0].stderr)]
    findings = [json.loads(line) for line in runs[0].stdout.splitlines()]
    twice = [f["player"] for f in findings if f.get("code") == "G002"]
    assert len(twice) == 100 and {"a\x00b", "\x00", "c\x00"} <= set(twice)
