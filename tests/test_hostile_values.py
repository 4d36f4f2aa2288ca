"""Where a hostile value leaked (issue 43): a huge id or number echoed whole, invisible
characters printed raw, and messages that misled (a folder said to be no file, a null
round said ``None``, an unopened input said to be ``0 bytes``, a store that could not be
written losing the report). Each test here fails on the code before the fix."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.escape import clipped, name, printable, quoted, visible

from .conftest import SAMPLES, run

REFEREE = [sys.executable, "-m", "referee"]
FORMATS = ("text", "json", "jsonl", "github", "junit")
#: A 2 MB player id: the issue's 60 MB one, small enough for a unit test.
HUGE_ID = "p-1-00" + "x" * 2_000_000
DIGITS = "9" * 100_000


def _table(tmp_path: Path, old: str, new: str, name: str = "t.jsonl") -> Path:
    """``samples/table.jsonl`` with its first ``old`` written as ``new``."""
    text = (SAMPLES / "table.jsonl").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


# -- bounded quotes -----------------------------------------------------------------------

def test_quoted_is_a_bounded_prefix_and_the_length() -> None:
    assert quoted("p-1-003") == "'p-1-003'"
    assert quoted("x" * 61) == f"'{'x' * 60}…' (61 characters)"
    assert quoted(Decimal(DIGITS)) == f"'{'9' * 60}…' (100,000 characters)"
    assert quoted(10**5000) == f"'1{'0' * 59}…' (5,001 characters)"  # beyond str(int)'s 4,300 digits
    assert quoted(None) == "null" and quoted(True) == "true"
    assert clipped("a" * 70) == f"{'a' * 60}… (70 characters)"
    assert name("y" * 500) == "y" * 500 and name("y" * 501) == f"{'y' * 60}… (501 characters)"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_huge_player_id_is_not_copied_into_the_report(tmp_path: Path, fmt: str) -> None:
    path = _table(tmp_path, '"player_id":"p-1002"', json.dumps({"player_id": HUGE_ID})[1:-1])
    code, out = run("check", "--format", fmt, str(path))
    assert code == 1
    assert len(out) < 20_000, len(out)  # was 10 MB (text) and 12 MB (JSON) for a 2 MB id
    assert "(2,000,006 characters)" in out and "x" * 61 not in out


def test_a_huge_player_id_in_an_export_is_bounded_in_every_field(tmp_path: Path) -> None:
    page = json.loads((SAMPLES / "exports" / "evolution-history.json").read_text(encoding="utf-8"))
    page["data"][0]["games"][0]["participants"][0]["playerId"] = HUGE_ID
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    code, out = run("check", "--format", "json", "--profile", "vivo", "--mapping", "evolution-history", str(path))
    assert code == 1 and len(out) < 40_000, len(out)
    report = json.loads(out)
    said = f"{HUGE_ID[:60]}… (2,000,006 characters)"
    finding = next(f for s in report["sessions"] for g in s["games"] for seat in g["seats"]
                   for f in seat["findings"] if f["code"] == "H001")
    assert finding["player"] == said and said in finding["message"]
    assert finding["recorded"] == said
    assert said in [p["player_id"] for s in report["sessions"] for p in s["players"]]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_huge_number_is_quoted_bounded_once(tmp_path: Path, fmt: str) -> None:
    path = _table(tmp_path, '"ante":2,', f'"ante":{DIGITS},')
    code, out = run("check", "--format", fmt, str(path))
    assert code == 1
    assert len(out) < 20_000, len(out)  # was 200 KB: the digits in the message and in `recorded`
    assert "'" + "9" * 60 + "…' (100,000 characters)" in out and "9" * 61 not in out
    if fmt == "json":
        finding = next(f for s in json.loads(out)["sessions"] for g in s["games"] for seat in g["seats"]
                       for f in seat["findings"] if f["field"] == "ante")
        assert finding["recorded"] == "9" * 60 + "… (100,000 characters)"


def test_a_huge_number_in_yaml_is_quoted_bounded(tmp_path: Path) -> None:
    path = tmp_path / "n.yaml"
    path.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace("ante: 1\n", f"ante: {DIGITS}\n",
                                                                                  1), encoding="utf-8")
    code, out = run("check", str(path))
    assert code == 1 and len(out) < 20_000 and "(100,000 characters)" in out


def test_a_huge_unknown_key_is_named_bounded(tmp_path: Path) -> None:
    key = "k" * 1_000_000
    path = _table(tmp_path, '"ante":2,', f'"{key}":1,"ante":2,')
    code, out = run("check", "--format", "json", str(path))
    assert code == 1 and len(out) < 20_000 and "(1,000,000 characters)" in out


# -- invisible characters -----------------------------------------------------------------

BIDI, ZWSP = "\u202e", "\u200b"


@pytest.fixture
def invisible(tmp_path: Path) -> Path:
    """The table sample with a U+202E in its session id and a U+200B after a player id."""
    path = _table(tmp_path, "CH-7/2026-11-29/evening", f"CH-7/{BIDI}2026")
    text = path.read_text(encoding="utf-8").replace('"player_id":"p-1003","ante":1',
                                                    f'"player_id":"p-1003{ZWSP}","ante":1.5', 1)
    path.write_text(text, encoding="utf-8")
    return path


def test_printable_escapes_bidirectional_controls_and_zero_width_characters() -> None:
    assert printable(f"p-1-003{ZWSP}") == "p-1-003\\u200b"
    assert printable(f"a{BIDI}b\u2066c\u00ad") == "a\\u202eb\\u2066c\\xad"
    assert printable("A♥ é 漢") == "A♥ é 漢"  # what a person reads as it is stays
    assert visible(f"x\n{ZWSP}") == "x\n\\u200b"


@pytest.mark.parametrize("fmt", ["text", "github", "junit"])
def test_invisible_characters_are_escaped_where_a_person_reads_names(invisible: Path, fmt: str) -> None:
    code, out = run("check", "--format", fmt, str(invisible))
    assert code == 1
    assert BIDI not in out and ZWSP not in out
    assert "p-1003\\u200b" in out
    assert "\\u202e2026" in out or fmt == "github"  # the annotations name findings, not sessions


def test_invisible_characters_stay_exact_in_json(invisible: Path) -> None:
    code, out = run("check", "--format", "json", str(invisible))
    assert code == 1
    report = json.loads(out)
    assert report["sessions"][0]["id"] == f"CH-7/{BIDI}2026"
    assert f"p-1003{ZWSP}" in [p["player_id"] for p in report["sessions"][0]["players"]]


def test_invisible_characters_are_escaped_in_the_html_report(invisible: Path, tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    code, _ = run("report", str(invisible), "-o", str(page))
    text = page.read_text(encoding="utf-8")
    assert code == 1 and BIDI not in text and ZWSP not in text and "p-1003\\u200b" in text


def test_invisible_characters_are_escaped_in_explain_and_recall(invisible: Path) -> None:
    code, out = run("explain", str(invisible), "--game", "8812344", "--player", f"p-1003{ZWSP}")
    assert code == 1 and BIDI not in out and ZWSP not in out
    assert out.startswith(f"Game 8812344, player p-1003\\u200b, session CH-7/\\u202e2026 ({invisible}, line 5)")
    code, out = run("recall", str(invisible), "--game", "8812344")
    assert BIDI not in out and ZWSP not in out and "p-1003\\u200b" in out


# -- messages that misled -----------------------------------------------------------------

@pytest.mark.parametrize(("given", "said"), [("folder", "a folder, not a file"), ("/dev/null", "a device, not a file")])
def test_a_mapping_that_is_no_file_is_said_so(tmp_path: Path, given: str, said: str) -> None:
    mapping = str(tmp_path) if given == "folder" else given
    code, out = run("check", "--mapping", mapping, str(SAMPLES / "exports" / "evolution-history.json"))
    assert code == 2 and f"mapping {mapping}: {said}" in out and "no such file" not in out


def test_a_profile_that_is_a_folder_is_said_so(tmp_path: Path) -> None:
    code, out = run("check", "--profile", str(tmp_path), str(SAMPLES / "clean.yaml"))
    assert code == 2 and "a folder, not a file" in out and "no such file" not in out


def test_an_output_in_proc_is_not_a_writable_file() -> None:
    done = subprocess.run([*REFEREE, "check", str(SAMPLES / "clean.yaml"), "-o", "/proc/version"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == "referee: cannot write /proc/version: not a writable file (the folder /proc takes no new " \
                          "file)\n"


def test_a_null_game_id_and_a_null_round_are_not_none(tmp_path: Path) -> None:
    path = _table(tmp_path, '"game":"8812344","round":1', '"game":null,"round":1')
    text = path.read_text(encoding="utf-8").replace('{"game":"8812344","seat"', '{"game":null,"seat"')
    path.write_text(text, encoding="utf-8")
    code, out = run("check", "--format", "junit", str(path))
    assert code == 1 and "None" not in out
    assert "a game with no id (line 2)" in out and "a seat line with no game id" in out and "got null" in out
    rounds = tmp_path / "r.yaml"
    rounds.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace("- round: 1\n", "- round: null\n",
                                                                                     1), encoding="utf-8")
    code, out = run("check", "--format", "junit", str(rounds))
    assert code == 1 and "None" not in out and "a round with no number (line 7)" in out


def _unopened(monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    """``which`` cannot be opened (as a file without read permission, which root reads anyway)."""
    import referee.load.reading as reading
    from referee.load.inputs import open_input as real

    def refusing(source: Any, offset: int = 0) -> Any:
        if source.name == which:
            raise PermissionError(13, "Permission denied")
        return real(source, offset)

    monkeypatch.setattr(reading, "open_input", refusing)


@pytest.mark.parametrize("fmt", ["text", "github", "json", "junit"])
def test_an_input_that_could_not_be_opened_has_no_size_or_digest(monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    unread, read = str(SAMPLES / "clean.yaml"), str(SAMPLES / "void.yaml")
    _unopened(monkeypatch, unread)
    code, out = run("check", "--format", fmt, unread, read)
    assert code == 2
    assert "0 bytes" not in out and "sha256 \n" not in out
    if fmt == "json":
        inputs = json.loads(out)["inputs"]
        assert inputs[0] == {"file": unread, "kind": "", "size": None, "sha256": None, "readable": False}
        assert inputs[1]["size"] == (SAMPLES / "void.yaml").stat().st_size
    elif fmt == "junit":
        assert 'name="input.0.read" value="no: it could not be opened"' in out
        assert 'name="input.0.sha256"' not in out and 'name="input.1.sha256"' in out
    else:
        assert f"input {unread}: not read (it could not be opened: no size, no SHA-256)" in out


def test_a_store_that_cannot_be_written_keeps_the_report(tmp_path: Path) -> None:
    """A full disk (a file size limit, as in test_store_faults) while storing: the report
    is printed whole, then the store's error, exit 2; nothing half-stored."""
    url = str(tmp_path / "audit.db")
    assert run("check", "--store", url, str(SAMPLES / "void.yaml"))[0] == 1
    # SQLite's shared-memory file takes 32 KiB; the write-ahead log may not grow past 8 more
    limit = 40 * 1024
    assert (tmp_path / "audit.db").stat().st_size > limit  # the store itself is only read and rewritten

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    log = str(SAMPLES / "disputed.yaml")
    done = subprocess.run([*REFEREE, "check", "--store", url, log], capture_output=True, text=True,
                          preexec_fn=small_disk, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == run("check", log)[1]  # the same report as without the store
    assert done.stderr.startswith(f"referee: store {url}: cannot write: "), done.stderr
    assert done.stderr.rstrip().endswith("the report is written, but nothing was stored, and the games after the "
                                         "failure were not compared with those stored before")
    assert "Traceback" not in done.stderr
    code, out = run("store", "verify", url)
    assert code == 0 and "1 source" in out


def test_a_huge_user_in_a_wallet_log_is_refused_bounded(tmp_path: Path) -> None:
    lines = (SAMPLES / "exports" / "seamless-wallet.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["user"] = "u" + "z" * 2_000_000
    lines[1] = json.dumps(record)
    path = tmp_path / "wallet.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run("check", "--format", "json", "--mapping", "seamless-wallet", str(path))
    assert code == 1 and len(out) < 20_000, len(out)  # was 6 MB: the user in each of its findings
    problem = next(f for f in json.loads(out)["problems"] if f["line"] == 2)
    assert problem["code"] == "H008"
    assert "(an id is at most 500 characters, this one has 2,000,001)" in problem["message"]
