"""Names and recorded strings from untrusted files (issue 16): escaped in the text and
GitHub formats so they cannot forge a finding line or a workflow command; the JSON
writer keeps every string a string and every Decimal exact."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

from referee.report.base import printable
from referee.rules.money import dumps

from .conftest import SAMPLES, run

FORGED = "x.yaml\n::error file=forged.yaml,line=1::forged\nforged.yaml:1: P001 [error] forged"


def test_the_json_writer_never_turns_a_string_into_a_number() -> None:
    doc = {"id": "\u0000decimal:42", "ids": ["\x00decimal:-1.5"], "stake": Decimal("0.1"), "big": Decimal("1E+2")}
    text = dumps(doc, ensure_ascii=False, separators=(",", ":"))
    assert json.loads(text, parse_float=Decimal) == {"id": "\x00decimal:42", "ids": ["\x00decimal:-1.5"],
                                                     "stake": Decimal("0.1"), "big": 100}
    assert '"stake":0.1' in text and '"big":100' in text


def test_the_json_writer_writes_what_json_writes_around_the_decimals() -> None:
    plain = {"a": [1, 2.5, None, True, "é\n"], "b": {"c": {}}, "d": []}
    for options in ({}, {"indent": 1}, {"indent": 2, "ensure_ascii": False}, {"separators": (",", ":")}):
        assert dumps({**plain, "m": Decimal("0.25")}, **options) == \
            json.dumps({**plain, "m": 0.25}, **options)
        assert dumps(plain, **options) == json.dumps(plain, **options)


def test_a_session_id_that_looks_like_a_marker_stays_a_string(tmp_path: Path) -> None:
    text = (SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace(
        'id: "table-7/2026-11-29/evening"', 'id: "\\0decimal:42"', 1)
    path = tmp_path / "marker.yaml"
    path.write_text(text, encoding="utf-8")
    code, out = run("check", "--format", "json", str(path))
    assert code == 0
    assert json.loads(out)["sessions"][0]["id"] == "\x00decimal:42"


def test_printable_escapes_line_breaks_and_controls_only() -> None:
    assert printable("samples/clean.yaml") == "samples/clean.yaml"
    assert printable("a\nb\r\tc\x1b[31m\u2028é") == "a\\nb\\r\\tc\\x1b[31m\\u2028é"


def _findings_in_disputed() -> int:
    _, out = run("check", "--format", "json", str(SAMPLES / "disputed.yaml"))
    return int(json.loads(out)["summary"]["findings"])


def _forged_input(tmp_path: Path) -> Path:
    path = tmp_path / FORGED
    shutil.copy(SAMPLES / "disputed.yaml", path)
    return path


def test_a_file_name_cannot_forge_a_workflow_command(tmp_path: Path) -> None:
    path = _forged_input(tmp_path)
    code, out = run("check", "--format", "github", str(path))
    assert code == 1
    lines = out.splitlines()
    assert not any(line.startswith("::error file=forged") for line in lines)
    annotations = [line for line in lines if line.startswith("::")]
    assert len(annotations) == _findings_in_disputed() and all("%0A" in a for a in annotations)
    assert not any(line.startswith("forged") for line in lines)


def test_a_file_name_cannot_forge_a_finding_line(tmp_path: Path) -> None:
    path = _forged_input(tmp_path)
    code, out = run("check", "--color", "never", str(path))
    assert code == 1
    lines = out.splitlines()
    assert not any(line.startswith(("forged", "::")) for line in lines)
    findings = [line for line in lines if line.startswith(printable(str(path)) + ":")]
    assert len(findings) == _findings_in_disputed() and all("\\n::error" in line for line in findings)
    assert any(line.startswith("input ") and "\\n::error" in line for line in lines)


def test_a_player_id_with_control_characters_reaches_no_ci_log_raw(tmp_path: Path) -> None:
    """A player id holding ESC and NUL (JSON ``\\u001b``, ``\\u0000``), named by a finding
    (G002: the table recorded twice): the GitHub format writes it as the text format
    does (``\\x1b``), not as a terminal escape sequence and a NUL in the CI log."""
    text = (SAMPLES / "table.jsonl").read_text(encoding="utf-8").replace('"p-1001"', '"p\\u001b[2J\\u0000"')
    path = tmp_path / "twice.jsonl"
    path.write_text(text + text, encoding="utf-8")
    outs = {fmt: run("check", "--format", fmt, "--color", "never", str(path)) for fmt in ("github", "text")}
    for code, out in outs.values():
        assert code == 1 and "player p\\x1b[2J\\x00: seated again" in out
        assert not [c for c in out if c != "\n" and not c.isprintable()]


def test_a_file_name_cannot_forge_a_line_on_standard_error(tmp_path: Path) -> None:
    """Standard error is in the CI log too (the Actions runner reads workflow commands
    there): a note naming a file (given twice, or found twice in a folder, or a link's
    missing target) and a usage error naming a folder (with no log in it) write the name
    escaped, each on its one line."""
    import subprocess
    import sys

    path = _forged_input(tmp_path)
    folder = tmp_path / "d\n::error file=forged.yaml::forged"
    folder.mkdir()
    linked = tmp_path / "linked"  # a folder with the forged file and a link to it: a duplicate
    linked.mkdir()
    shutil.copy(path, linked / "x\n::error file=forged.yaml::forged.yaml")  # found: it ends in .yaml
    (linked / "a.yaml").symlink_to(linked / "x\n::error file=forged.yaml::forged.yaml")
    dangling = tmp_path / "dangling"  # a link whose target's name is forged, and a log
    dangling.mkdir()
    shutil.copy(SAMPLES / "disputed.yaml", dangling / "b.yaml")
    (dangling / "a.yaml").symlink_to(tmp_path / "gone" / FORGED)
    for args, status in (([str(path), str(path)], 1), ([str(folder)], 2), ([str(linked)], 1), ([str(dangling)], 1)):
        done = subprocess.run([sys.executable, "-m", "referee", "check", "--format", "github", *args],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == status
        notes = [line for line in done.stderr.splitlines() if line.startswith(("referee:", "Error:"))]
        assert len(notes) == 1 and "\\n::error file=forged.yaml" in notes[0]
        assert not any(line.startswith(("::", "forged")) for line in done.stderr.splitlines())


def test_a_character_xml_cannot_hold_leaves_the_junit_report_well_formed(tmp_path: Path) -> None:
    """XML 1.0 has no way to write most control characters, U+FFFE or U+FFFF, not even
    as a character reference: a session id or a player id holding one (JSON's
    ``\\u0001``) made the whole report unreadable to a CI's JUnit parser. They are
    written as the text format writes them (``\\x01``, ``\\uffff``)."""
    import xml.etree.ElementTree as ET

    text = (SAMPLES / "table.jsonl").read_text(encoding="utf-8")
    text = text.replace('"CH-7/2026-11-29/evening"', '"s\\u0001\\uffff"').replace('"p-1002"', '"p\\u0000\\ufffe"')
    path = tmp_path / "controls.jsonl"
    path.write_text(text, encoding="utf-8")
    code, out = run("check", "--format", "junit", str(path))
    assert code == 1
    root = ET.fromstring(out)
    assert root.find("testsuite").get("name") == "s\\x01\\uffff"  # type: ignore[union-attr]
    assert "p\\x00\\ufffe" in out
