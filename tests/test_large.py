"""Large logs (issue 6): parallel audits give the one-process report; progress; chunks."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.load.inputs import expand
from referee.pipeline import plan
from referee.report.progress import Progress

from .conftest import SAMPLES, run


def simulate(path: Path, fmt: str, sessions: int, rounds: int, faults: str = "0", seed: str = "8") -> str:
    code, _ = run("simulate", "--sessions", str(sessions), "--rounds", str(rounds), "--seed", seed, "--faults",
                  faults, "--format", fmt, "--output", str(path))
    assert code == 0
    return str(path)


def test_jobs_give_the_same_report(tmp_path: Path) -> None:
    big = simulate(tmp_path / "big.jsonl", "jsonl", 40, 120, "0.05")  # about 1.4 MB: cut in chunks
    small = simulate(tmp_path / "small.yaml", "yaml", 2, 30, "0.1")
    args = [big, str(SAMPLES / "disputed.yaml"), small]
    assert len(list(plan(expand([big]), 256 * 1024))) > 2
    for fmt in ("json", "text", "junit", "github"):
        one = run("check", "--format", fmt, "--jobs", "1", *args)
        two = run("check", "--format", fmt, "--jobs", "2", *args)
        assert one[0] == two[0] == 1
        if fmt == "junit":  # the timestamp is the time of the audit
            one = (one[0], re.sub(r'(timestamp|time)="[^"]*"', "", one[1]))
            two = (two[0], re.sub(r'(timestamp|time)="[^"]*"', "", two[1]))
        assert one == two, fmt


def test_chunks_start_at_session_lines(tmp_path: Path) -> None:
    big = simulate(tmp_path / "big.jsonl", "jsonl", 40, 120)
    source = expand([big])[0]
    lines = Path(big).read_bytes().splitlines(keepends=True)
    tasks = list(plan([source], 256 * 1024))
    assert tasks[0].chunk is not None and tasks[0].chunk.span.start == 0
    offset = 0
    starts = {}
    for number, raw in enumerate(lines, start=1):
        starts[offset] = (number, raw)
        offset += len(raw)
    for task in tasks:
        assert task.chunk is not None
        number, raw = starts[task.chunk.span.start]
        assert task.chunk.span.first_line == number and raw.startswith(b'{"session"')
    assert tasks[-1].chunk is not None and tasks[-1].chunk.span.end == offset and tasks[-1].plan is not None
    assert tasks[-1].plan.size == offset and all(t.plan is None for t in tasks[:-1])


def test_no_progress_off_a_terminal_or_in_machine_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = simulate(tmp_path / "s.jsonl", "jsonl", 6, 1000)
    monkeypatch.setattr(Progress, "INTERVAL", 0.0)  # drawn at every chance: the audit takes well under 0.2 s
    result = CliRunner().invoke(main, ["check", "--jobs", "1", log])
    assert result.stderr == ""
    result = CliRunner().invoke(main, ["check", "--jobs", "1", "--progress", log])
    assert "rounds/s" in result.stderr and result.stderr.endswith("\r")


def test_progress_line() -> None:
    now = [0.0]
    out = io.StringIO()
    done = [0]
    meter = Progress(out, 1000, lambda: done[0], clock=lambda: now[0])
    for _ in range(512):
        meter.tick()
    assert out.getvalue() == ""  # not yet time to draw
    now[0] = 2.0
    done[0] = 250
    for _ in range(256):
        meter.tick()
    line = out.getvalue()
    assert "768 rounds, 384 rounds/s, 25%, ETA 0:00:06" in line
    meter.close()
    assert out.getvalue().endswith("\r")


def test_globs_and_directories(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    simulate(tmp_path / "logs" / "a.jsonl", "jsonl", 1, 5)
    simulate(tmp_path / "logs" / "b.yaml", "yaml", 1, 5, seed="9")  # another session (the same one again: S010)
    (tmp_path / "logs" / "notes.txt").write_text("not a log")
    code, out = run("check", "--quiet", str(tmp_path / "logs"))
    assert code == 0 and out.startswith("2 files")
    code, out = run("check", "--quiet", str(tmp_path / "logs" / "*.jsonl"))
    assert code == 0 and out.startswith("1 file,")
