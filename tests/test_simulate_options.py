"""`referee simulate` never ignores an option silently: a combination it cannot honour is a usage error (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import run


def _refused(*args: str) -> str:
    """The one ``Error:`` line of a run that must exit 2 and write no log."""
    code, out = run("simulate", "--rounds", "2", *args)
    assert code == 2, out
    errors = [line for line in out.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, out
    return errors[0]


@pytest.mark.parametrize("profile", ["vivo", "caribbean"])
@pytest.mark.parametrize("seats", [(), ("--seats", "3")])
def test_bonus_under_a_profile_without_one(profile: str, seats: tuple[str, ...]) -> None:
    line = _refused("--profile", profile, "--bonus", "1", *seats)
    assert "--bonus" in line and f"profile {profile} has no bonus bet" in line and "drop --bonus" in line


@pytest.mark.parametrize(("args", "missing"), [
    ((), "--seats and --format jsonl"),
    (("--format", "jsonl"), "--seats"),
    (("--seats", "3"), "--format jsonl"),
    (("--seats", "3", "--format", "yaml"), "--format jsonl"),
    (("--seats", "3", "--format", "json"), "--format jsonl"),
])
def test_seat_lines_without_a_live_table_in_json_lines(args: tuple[str, ...], missing: str) -> None:
    line = _refused("--seat-lines", *args)
    assert f"--seat-lines needs {missing} " in line and "drop --seat-lines" in line


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl"])
def test_own_cards_without_seats(fmt: str) -> None:
    line = _refused("--own-cards", "--format", fmt)
    assert "--own-cards needs --seats" in line and "drop --own-cards" in line


@pytest.mark.parametrize("ante", ["1", "2"])
def test_ante_with_seats(ante: str) -> None:
    """A live table's players stake their own Antes: even the default's value, given, is refused."""
    line = _refused("--seats", "3", "--ante", ante)
    assert "--ante does not apply with --seats" in line and "drop --ante" in line


def test_refused_runs_write_nothing(tmp_path: Path) -> None:
    log, manifest = tmp_path / "log.jsonl", tmp_path / "m.json"
    _refused("--own-cards", "--faults", "0.5", "--faults-manifest", str(manifest), "--output", str(log))
    _refused("--profile", "vivo", "--bonus", "1", "--faults-manifest", str(manifest), "--output", str(log))
    assert not log.exists() and not manifest.exists()


@pytest.mark.parametrize("args", [
    ("--profile", "vivo", "--bonus", "0"),  # no bonus staked: what was asked for
    ("--profile", "bonus-aa", "--bonus", "1"),
    ("--profile", "bonus-aa", "--bonus", "1", "--seats", "2-4", "--own-cards", "--seat-lines", "--format", "jsonl"),
    ("--seats", "3", "--policy", "simple"),
    ("--faults-manifest", "m.json"),  # without --faults: a valid, empty manifest
])
def test_combinations_that_mean_something_still_run(tmp_path: Path, args: tuple[str, ...]) -> None:
    args = tuple(str(tmp_path / a) if a == "m.json" else a for a in args)
    code, out = run("simulate", "--rounds", "2", *args, "--output", str(tmp_path / "log"))
    assert code == 0, out
    if "--faults-manifest" in args:
        assert (tmp_path / "m.json").read_text() == "[]\n"


@pytest.mark.parametrize(("name", "first"), [("log.jsonl", '{"session"'), ("log.ndjson", '{"session"'),
                                             ("log.json", "{"), ("log.yaml", "session:"), ("log.txt", "session:")])
def test_format_follows_the_output_extension(tmp_path: Path, name: str, first: str) -> None:
    """``-o log.jsonl`` without ``--format`` is JSON Lines (it was YAML: every line then failed)."""
    path = tmp_path / name
    code, out = run("simulate", "--rounds", "2", "-o", str(path))
    assert code == 0, out
    assert path.read_text(encoding="utf-8").startswith(first)
    code, out = run("check", str(path), "--quiet") if name != "log.txt" else (0, "")
    assert code == 0, out


def test_an_explicit_format_wins_over_the_extension(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    code, out = run("simulate", "--rounds", "2", "--format", "yaml", "-o", str(path))
    assert code == 0, out
    assert path.read_text(encoding="utf-8").startswith("session:")
