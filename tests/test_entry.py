"""The ``referee`` command's entry (``referee.cli.entry``): it leaves without the
interpreter's teardown, so what must happen before it leaves is checked here: the
status is the command's, every byte of the report is out, the exit handlers ran (that
nothing of the workers' is left in TMPDIR is checked in ``test_spill`` and
``test_pipeline``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def referee(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, timeout=120,
                          check=False, env=env)


@pytest.mark.parametrize(("args", "status"), [
    (["check", str(SAMPLES / "clean.yaml")], 0),
    (["check", str(SAMPLES / "disputed.yaml")], 1),
    (["check", "no-such-file.jsonl"], 2),
    (["check", "--format", "nonsense", str(SAMPLES / "log.jsonl")], 2),
])
def test_the_status_is_the_commands(args: list[str], status: int) -> None:
    assert referee(*args).returncode == status


def test_a_report_through_a_pipe_is_whole() -> None:
    """Standard output is a pipe: flushed before the process leaves."""
    from click.testing import CliRunner

    from referee.cli import main

    inside = CliRunner().invoke(main, ["check", "--format", "json", str(SAMPLES / "log.jsonl")])
    done = referee("check", "--format", "json", str(SAMPLES / "log.jsonl"))
    assert done.stdout.decode() == inside.stdout and done.stdout.endswith(b"}\n")


def test_exit_handlers_run(tmp_path: Path) -> None:
    """An exit handler registered during the command still runs (here, through a
    ``sitecustomize`` that registers one), though the teardown is skipped."""
    marker = tmp_path / "ran"
    (tmp_path / "sitecustomize.py").write_text(
        f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    assert referee("check", str(SAMPLES / "clean.yaml"), env=env).returncode == 0
    assert marker.read_text() == "yes"


def test_a_ctrl_c_while_the_command_line_is_imported_is_an_interrupt(tmp_path: Path) -> None:
    """Importing the command line takes a fifth of a second: a Ctrl-C then (here, raised
    by the import of ``referee.cli`` through a ``sitecustomize``) is "interrupted" and
    130, as later, not a traceback and the interpreter's own status."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'referee.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = referee("check", str(SAMPLES / "clean.yaml"), env=env)
    assert (done.returncode, done.stdout, done.stderr) == (130, b"", b"referee: interrupted\n")


@pytest.mark.parametrize(("closed", "args"), [
    (1, ["check", "--format", "json", str(SAMPLES / "log.jsonl")]),
    (2, ["check", "no-such-file.jsonl"]),
])
def test_a_closed_standard_stream_is_no_traceback(closed: int, args: list[str]) -> None:
    """``referee ... >&-`` or ``2>&-``: the interpreter has no such stream (None); the
    entry flushes the streams there are, and the status is the command's (2)."""
    done = subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, timeout=120, check=False,
                          stdout=subprocess.DEVNULL if closed == 2 else None, stderr=subprocess.PIPE if closed == 1
                          else None, preexec_fn=lambda: os.close(closed))
    assert done.returncode == 2 and b"Traceback" not in (done.stderr or b"")


def test_a_report_to_a_closed_standard_output_says_so() -> None:
    """``referee check ... >&-``: the report cannot be written, as for any tool: the
    message says why (it was an internal error about ``isatty``), status 2."""
    done = subprocess.run([sys.executable, "-m", "referee", "check", str(SAMPLES / "clean.yaml")], cwd=ROOT,
                          timeout=120, check=False, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "referee: cannot write standard output: Bad file descriptor"
