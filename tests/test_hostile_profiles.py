"""Hostile profiles (issue 16): odds, multiples and increments are money (at most 6
decimal places, bounded), refused with the field and the line; no decimal error is a
crash; a custom profile that takes a built-in's name shows where it comes from; and a
log simulated under a profile file is audited by check as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.profiles import ProfileError, parse_profile

from .conftest import SAMPLES, run

ROOT = Path(__file__).resolve().parent.parent
VIVO = (ROOT / "referee" / "data" / "profiles" / "vivo.yaml").read_text(encoding="utf-8")


def with_line(key: str, value: str) -> tuple[str, int]:
    """Vivo's profile with ``  key: ...`` (or ``key: ...``) set to ``value``; and its line."""
    lines = VIVO.splitlines()
    for index, line in enumerate(lines):
        if line.split(":")[0].strip() == key:
            indent = line[: len(line) - len(line.lstrip())]
            lines[index] = f"{indent}{key}: {value}"
            return "\n".join(lines) + "\n", index + 1
    raise AssertionError(key)


@pytest.mark.parametrize("key, value, words", [
    ("high_card", "1e-999999", "at most 6 decimal places"),
    ("royal_flush", "0.1234567", "at most 6 decimal places"),
    ("royal_flush", "1e999999", "at most 1000000"),
    ("royal_flush", "'9999999999999999999999999999999999999999999999999999999999999999999999:7'", "out of range"),
    ("royal_flush", "'1:1000000000'", "at most 6 decimal places"),
    ("royal_flush", ".nan", "finite"),
    ("call_win_odds", "1e-999999", "at most 6 decimal places"),
    ("call_multiple", "2.0000001", "at most 6 decimal places"),
    ("stake_increment", "1e-30", "at most 6 decimal places"),
    ("stake_increment", "1e30", "at most 1000000"),
])
def test_money_in_a_profile_is_bounded(key: str, value: str, words: str) -> None:
    text, line = with_line(key, value)
    with pytest.raises(ProfileError) as caught:
        parse_profile(text.encode(), "house.yaml")
    message = str(caught.value)
    assert f"house.yaml:{line}:" in message and key in message and words in message, message


def test_six_places_are_money_enough() -> None:
    text, _ = with_line("stake_increment", "0.000001")
    assert str(parse_profile(text.encode(), "house.yaml").stake_increment) == "0.000001"


@pytest.mark.parametrize("key, value", [("high_card", "1e-999999"), ("stake_increment", "1e-30")])
def test_a_hostile_profile_named_by_a_log_is_one_finding(tmp_path: Path, key: str, value: str) -> None:
    """Before: ``1e-999999`` odds made a 287 KB log a 1.47 GB report; ``1e-30`` crashed."""
    text, line = with_line(key, value)
    (tmp_path / "house.yaml").write_text(text, encoding="utf-8")
    log = tmp_path / "log.yaml"
    log.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace(
        'profile: "vivo"', 'profile: "house.yaml"', 1), encoding="utf-8")
    code, out = run("check", "--format", "json", str(log))
    assert code == 1 and len(out) < 100_000
    findings = json.loads(out)["sessions"][0]["findings"]
    assert {f["code"] for f in findings} == {"H005"} and len(findings) <= 2
    assert any(f["file"].endswith("house.yaml") and f["line"] == line and key in f["message"] for f in findings)


def test_a_custom_profile_named_like_a_built_in_shows_its_origin(tmp_path: Path) -> None:
    text, _ = with_line("pair", "2")
    (tmp_path / "house.yaml").write_text(text, encoding="utf-8")  # still "name: vivo"
    log = tmp_path / "log.yaml"
    log.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace(
        'profile: "vivo"', 'profile: "house.yaml"', 1), encoding="utf-8")
    origin = str(tmp_path / "house.yaml")
    _, out = run("check", "--color", "never", str(log))
    assert f"custom profile vivo ({origin}, sha256 " in out
    _, out = run("explain", str(log), "--round", "1")
    assert f"custom profile vivo ({origin}, sha256 " in out  # as every report names it
    _, out = run("check", "--format", "junit", str(log))
    assert f"custom profile vivo ({origin}, sha256 " in out
    _, out = run("check", "--color", "never", str(SAMPLES / "clean.yaml"))
    assert "), profile vivo\n" in out and "(from" not in out  # the built-in itself: its name alone


@pytest.mark.parametrize("to_stdout, seats", [(False, ()), (True, ()), (False, ("--seats", "3"))])
def test_a_log_simulated_under_a_profile_file_is_audited_as_is(tmp_path: Path, to_stdout: bool,
                                                               seats: tuple[str, ...],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    text, _ = with_line("pair", "2")  # pays a pair 2:1: the built-in would find errors
    text = text.replace("name: vivo", "name: house", 1)  # its own name: no H010 (test_profile_trust.py)
    (tmp_path / "profiles").mkdir()
    (tmp_path / "logs").mkdir()
    (tmp_path / "profiles" / "house.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "logs" / "sim.yaml"
    if to_stdout:
        code, out = run("simulate", "--profile", "profiles/house.yaml", "--rounds", "40", "--seed", "3")
        log.write_text(out, encoding="utf-8")
    else:
        code, _ = run("simulate", "--profile", "profiles/house.yaml", "--rounds", "40", "--seed", "3",
                      "--output", str(log), *seats)
    assert code == 0
    [header] = [line for line in log.read_text(encoding="utf-8").splitlines()[:5] if "profile:" in line]
    assert header.endswith('/house.yaml"') and ("../profiles/" in header) != to_stdout
    monkeypatch.chdir(ROOT)
    code, out = run("check", "--format", "json", str(log))
    report = json.loads(out)
    assert code == 0 and report["summary"]["findings"] == 0
    assert report["sessions"][0]["profile_origin"].endswith("house.yaml")
