"""What a newcomer met at the edges of the command line: every command's output to a
closed pipe (a quiet 141, never 1, the status of findings) and to a full disk (exit 2,
an error about writing the output, not about reading the store); ``stats`` windows no
round falls in, or that end before they begin; the HTML report the same every run but
for its audit time; the exit status table against each command's help; a store path
that is a folder or a file that is not a store; ``monitor --cache`` in a missing folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import click
import pytest

from .conftest import SAMPLES, run

ROOT = Path(__file__).resolve().parent.parent
TABLE = str(SAMPLES / "table.yaml")
DISPUTED = str(SAMPLES / "disputed.yaml")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite store of the disputed and live-table samples (docs/store.md's first steps)."""
    path = tmp_path_factory.mktemp("edges") / "audit.db"
    code, out = run("check", "--store", str(path), DISPUTED, TABLE, "--quiet")
    assert code == 1, out
    return str(path)


def referee(*args: str, stdout: int | IO[Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120, check=False, cwd=ROOT)


def into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """``referee ARGS | head -0``, the reader gone before a byte is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        return referee(*args, stdout=write)
    finally:
        os.close(write)


def into_a_full_disk(*args: str) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return referee(*args, stdout=full)


# --- a closed pipe, a full disk ----------------------------------------------------------------

COMMANDS = [
    ["store", "verify", "{store}"],
    ["store", "info", "{store}"],
    ["store", "upgrade", "{store}"],
    ["stats", "--store", "{store}", "--no-decisions"],
    ["explain", "--store", "{store}", "--game", "8812347"],
    ["recall", "--store", "{store}", "--session", "table-7/2026-11-29/disputed", "--round", "10"],
    ["monitor", "--store", "{store}", "--no-cache"],
    ["report", "--store", "{store}", "-o", "-"],
    ["explain", DISPUTED, "--round", "1"],
    ["schema"],
    ["--help"],
    ["store", "--help"],
]


def _args(template: list[str], store: str) -> list[str]:
    return [a.replace("{store}", store) for a in template]


@pytest.mark.parametrize("template", COMMANDS, ids=lambda t: " ".join(t[:2]))
def test_a_closed_pipe_is_a_quiet_141_never_the_status_of_findings(store: str, template: list[str]) -> None:
    """``referee store verify audit.db | head -0`` said 1 ("a stored record changed") of
    an intact store: click turns a broken pipe into 1; ``store info`` said ``cannot
    read: [Errno 32] Broken pipe``, as if the store were at fault."""
    done = into_a_closed_pipe(*_args(template, store))
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize("template", [COMMANDS[0], COMMANDS[1], COMMANDS[2], COMMANDS[9]],
                         ids=lambda t: " ".join(t[:2]))
def test_a_full_disk_is_a_failed_write_not_a_failed_read(store: str, template: list[str]) -> None:
    done = into_a_full_disk(*_args(template, store))
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "No space left on device" in lines[0] and "cannot write" in lines[0], lines
    assert "cannot read" not in lines[0] and "store" not in lines[0], lines


# --- stats windows -----------------------------------------------------------------------------

def test_a_window_no_stored_round_falls_in_says_so_with_the_times_there_were(store: str) -> None:
    code, out = run("stats", "--store", store, "--since", "2027-01-01", "--no-decisions")
    assert code == 2
    assert "no round of the inputs was ruled" not in out
    assert ("nothing to describe: no stored round or game is in the window given (--since 2027-01-01); of the 24 "
            "read, 4 run from 2026-11-29T20:16:10+00:00 to 2026-11-29T20:22:15+00:00 and 20 have no time") in out


def test_a_window_no_round_of_the_files_falls_in_names_the_window_table_and_dealer() -> None:
    code, out = run("stats", TABLE, "--since", "2027-01-01", "--table", "CH-7", "--dealer", "d-17",
                    "--no-decisions")
    assert code == 2
    assert ("no round or game of the inputs is in the window given (--since 2027-01-01 --table CH-7 --dealer d-17); "
            "the 4 read run from 2026-11-29T20:16:10+00:00 to 2026-11-29T20:22:15+00:00") in out
    code, out = run("stats", DISPUTED, "--until", "2030-01-01", "--no-decisions")  # rounds without a time
    assert code == 2 and "none of the 20 read has a time (a round without a time is in no window)" in out


def test_a_window_of_a_cancelled_game_only_says_none_there_counted() -> None:
    code, out = run("stats", TABLE, "--since", "2026-11-29T20:18:00Z", "--until", "2026-11-29T20:19:00Z",
                    "--no-decisions")
    assert code == 2 and "in the window given (--since 2026-11-29T20:18:00Z --until 2026-11-29T20:19:00Z) was " \
                         "ruled (1 there, none counted: void, cancelled or invalid)" in out


@pytest.mark.parametrize("where", ["store", "files"])
def test_a_window_that_ends_before_it_begins_is_a_usage_error_naming_both(store: str, where: str) -> None:
    inputs = ["--store", store] if where == "store" else [TABLE]
    code, out = run("stats", *inputs, "--since", "2026-12-05", "--until", "2026-12-01", "--no-decisions")
    assert code == 2 and "--since 2026-12-05 is after --until 2026-12-01" in out
    # the same instant in two zones is a window, not an inverted one
    code, out = run("stats", *inputs, "--since", "2026-11-29T21:16:10+01:00", "--until", "2026-11-29T20:16:10Z",
                    "--no-decisions")
    assert "is after" not in out and code in (0, 1), out


# --- the HTML report, the same every run -------------------------------------------------------

AUDITED = re.compile(r"<tr><th>Audited</th><td>[^<]*</td></tr>")


def _page(*args: str) -> str:
    code, page = run("report", "--lang", "en", "-o", "-", *args)
    assert code == 1, page
    page = page[page.index("<!DOCTYPE"):] if "<!DOCTYPE" in page else page
    assert len(AUDITED.findall(page)) == 1
    return AUDITED.sub("(audited)", page)


def test_the_report_is_the_same_every_run_and_from_the_store_but_for_its_audit_time(store: str) -> None:
    """docs/store.md: ``report --store`` is ``report FILES`` byte for byte but the audit
    time; pygal's random chart ids and the day it drew them made two runs differ too."""
    first, second = _page(DISPUTED, TABLE), _page(DISPUTED, TABLE)
    assert first == second
    assert _page("--store", store) == first
    ids = re.findall(r'id="chart-([^"]+)"', first)
    assert len(ids) == 2 and len(set(ids)) == 2  # a chart a session, each its own id
    assert not re.search(r"Generated with pygal[^>]* on \d{4}-\d\d-\d\d", first)


# --- the exit status table ---------------------------------------------------------------------

def _commands() -> list[tuple[str, click.Command]]:
    from referee.cli import main

    found = []
    for name, command in main.commands.items():
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
        else:
            found.append((name, command))
    return found


def _row(doc: str, status: str) -> str:
    text = (ROOT / doc).read_text(encoding="utf-8")
    [row] = [line for line in text.splitlines() if line.startswith(f"| {status} |")]
    return row


def test_every_command_whose_help_says_exit_1_is_in_the_tables_row_1() -> None:
    """README listed no ``recall`` under exit 1, which its --help documents (a recalled
    round that differs from the rules)."""
    helped = [name for name, command in _commands()
              if re.search(r"Exit status[^.]*?\b1 ", " ".join((command.help or "").split()))]
    assert "recall" in helped and "store verify" in helped
    for doc in ("README.md", "docs/limits.md"):
        listed = _row(doc, "1").rsplit("|", 2)[1]
        for name in helped:
            assert f"`{name}`" in listed, (doc, name)
    for status in ("0", "1", "2", "130", "141", "143"):
        assert _row("README.md", status) == _row("docs/limits.md", status)


# --- store paths -------------------------------------------------------------------------------

def test_a_store_that_is_a_directory_is_said_to_be_one(tmp_path: Path) -> None:
    for args in (["check", "--store", str(tmp_path), DISPUTED], ["recall", "--store", str(tmp_path)],
                 ["store", "info", str(tmp_path)], ["store", "upgrade", str(tmp_path)]):
        code, out = run(*args)
        assert code == 2 and f"store {tmp_path}: is a directory, not a store file" in out, (args, out)
        assert "unable to open database file" not in out


@pytest.mark.parametrize("content", [b"x", b"hello, this is a text file\n"])
def test_a_file_that_is_not_sqlite_is_not_a_store_and_is_never_written_over(tmp_path: Path, content: bytes) -> None:
    """A 1-byte text file was taken for an empty database: "empty, nothing stored yet",
    and ``check --store`` wrote a store over it."""
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    for args in (["store", "info", str(path)], ["store", "verify", str(path)],
                 ["check", "--store", str(path), DISPUTED], ["stats", "--store", str(path)]):
        code, out = run(*args)
        assert code == 2 and f"store {path}: not a referee store: not a SQLite database" in out, (args, out)
        assert "nothing stored yet" not in out
    assert path.read_bytes() == content


def test_an_empty_file_is_still_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    path.write_bytes(b"")
    code, out = run("store", "info", str(path))
    assert code == 2 and "empty, nothing stored yet" in out
    code, _ = run("check", "--store", str(path), str(SAMPLES / "clean.yaml"), "--quiet")
    assert code == 0 and path.read_bytes().startswith(b"SQLite format 3\x00")


def test_a_monitor_cache_in_a_missing_folder_is_refused_and_no_folder_made(store: str, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    code, out = run("monitor", "--store", store, "--cache", str(missing / "c.sqlite"))
    assert code == 2 and f"--cache: {missing / 'c.sqlite'}: no folder {missing}" in out
    assert not (tmp_path / "nonexistent").exists()
    code, out = run("monitor", "--store", store, "--cache", str(tmp_path / "c.sqlite"))
    # the samples' store is too small for any test: nothing tested (exit 2), the cache made all the same
    assert code == 2 and "nothing tested" in out and (tmp_path / "c.sqlite").is_file(), out
