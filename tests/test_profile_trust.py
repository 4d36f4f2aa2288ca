"""Trust by default (issues 43 and 45): a profile file that borrows a built-in's name is
``H010``; a custom profile is named in every report; the default profile is said; an
export whose profile nobody named is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from referee.profiles import resolve_profile
from referee.rules.profile import Profile
from referee.rules.profile_diff import differences, rule_fields

from .conftest import ROOT, SAMPLES, check_json, run

VIVO = (ROOT / "referee" / "data" / "profiles" / "vivo.yaml").read_text(encoding="utf-8")
#: The issue's operator file: Vivo's profile, name and all, with a royal flush paid 1:1.
BORROWED = VIVO.replace("royal_flush: 100", "royal_flush: 1", 1)


def _logs(folder: Path, profile_text: str, count: int = 2, name: str = "vivo.yaml") -> list[str]:
    """``count`` copies of the clean sample, in ``folder``, each naming ``name`` (written
    there with ``profile_text``) as its profile."""
    (folder / name).write_text(profile_text, encoding="utf-8")
    text = (SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace('profile: "vivo"', f'profile: "{name}"', 1)
    paths = []
    for i in range(count):
        path = folder / f"day{i}.yaml"
        path.write_text(text.replace("table-7/2026-11-29/evening", f"day-{i}"), encoding="utf-8")
        paths.append(str(path))
    return paths


def _name_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if line.startswith("name:"))


def test_a_borrowed_name_is_one_h010_at_the_profiles_name_line(tmp_path: Path) -> None:
    """Before: exit 0, no findings, the only trace ``(from logs/vivo.yaml)`` in a header."""
    logs = _logs(tmp_path, BORROWED)
    code, report = check_json(*logs)
    found = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    assert code == 1 and [f["code"] for f in found] == ["H010"]
    [finding] = found
    origin = str(tmp_path / "vivo.yaml")
    assert (finding["file"], finding["line"], finding["session"]) == (origin, _name_line(BORROWED), "day-0")
    assert finding["severity"] == "error" and finding["name"] == "profile-name-borrowed"
    assert "royal_flush 1:1, the built-in vivo pays 100:1" in finding["message"]
    assert report["summary"]["by_code"] == {"H010": 1}


def test_h010_is_the_same_whatever_the_jobs(tmp_path: Path) -> None:
    """Every session the file rules says it where it is audited; the merge keeps the
    first in input order: one process or several, the same report."""
    logs = _logs(tmp_path, BORROWED, count=4)
    outputs = {jobs: run("check", "--format", "json", "--jobs", jobs, *logs) for jobs in ("1", "3")}
    assert outputs["1"] == outputs["3"] and outputs["1"][0] == 1
    assert json.loads(outputs["1"][1])["summary"]["by_code"] == {"H010": 1}


def test_every_difference_is_named() -> None:
    vivo = resolve_profile("vivo").profile
    other = Profile.model_validate({
        **vivo.model_dump(), "name": "vivo", "call_win_odds": 0, "rounds_agreed": None,
        "dealer_qualifier": {"category": "pair", "rank": "5"},
        "ante_paytable": {**vivo.ante_paytable, "straight_flush": 25},
        "bonus": resolve_profile("bonus-aa").profile.bonus})
    assert differences(other, vivo, "vivo") == [
        "straight_flush 25:1, the built-in vivo pays 20:1",
        "call_win_odds returned, the built-in vivo has 1:1",
        "dealer_qualifier pair of 5s or better, the built-in vivo has pair of 4s or better",
        "bonus Bonus AA, the built-in vivo has none",
        "rounds_agreed none, the built-in vivo has 20",
    ]
    assert differences(vivo, vivo, "vivo") == []
    assert "description" not in rule_fields() and "rules" not in rule_fields()


def test_a_file_that_rules_as_the_built_in_is_no_finding_but_still_named(tmp_path: Path) -> None:
    """The template renamed vivo rules as vivo: nothing borrowed, but still a file."""
    logs = _logs(tmp_path, VIVO.replace("# The base game", "# a copy of the base game", 1), count=1)
    code, out = run("check", "--color", "never", *logs)
    assert code == 0 and "H010" not in out
    assert out.splitlines()[-1].endswith(f"no findings; custom profile vivo ({tmp_path / 'vivo.yaml'}, sha256 "
                                         f"{resolve_profile(str(tmp_path / 'vivo.yaml')).sha256})")


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "github", "junit"])
def test_a_custom_profile_is_named_in_every_format(tmp_path: Path, fmt: str) -> None:
    """Before: a report named it ``house-7`` like any built-in (the summaries not at all)."""
    house = VIVO.replace("name: vivo", "name: house-7", 1)
    logs = _logs(tmp_path, house, count=1, name="house.yaml")
    sha = resolve_profile(str(tmp_path / "house.yaml")).sha256
    said = f"custom profile house-7 ({tmp_path / 'house.yaml'}, sha256 {sha})"
    code, out = run("check", "--format", fmt, "--color", "never", *logs)
    assert code == 0
    if fmt in ("json", "jsonl"):
        report = json.loads(out.splitlines()[-1] if fmt == "jsonl" else out)
        assert report["summary"]["custom_profiles"] == [{"name": "house-7", "origin": str(tmp_path / "house.yaml"),
                                                         "sha256": sha}]
        if fmt == "json":
            assert report["sessions"][0]["custom_profile"] == said
    else:
        assert out.count(said) >= 1 + (fmt in ("text", "junit"))  # the summary, and the session's heading


def test_a_custom_profile_is_named_in_the_html_report_and_the_store(tmp_path: Path) -> None:
    logs = _logs(tmp_path, BORROWED, count=2)
    said = f"custom profile vivo ({tmp_path / 'vivo.yaml'}, sha256 "
    code, page = run("report", "--lang", "en", "-o", "-", *logs)
    verdict = page[page.index('id="verdict"'):page.index('id="integrity"')]
    assert code == 1 and said in verdict and "H010" in page
    store = tmp_path / "audit.db"
    assert run("check", "--store", str(store), *logs)[0] == 1
    code, page = run("report", "--lang", "en", "-o", "-", "--store", str(store))
    assert code == 1 and said in page[page.index('id="verdict"'):page.index('id="integrity"')]
    with sqlite3.connect(store) as db:
        kept = db.execute("select code, file, line from findings").fetchall()
        origins = db.execute("select distinct origin from sessions").fetchall()
    assert kept == [("H010", str(tmp_path / "vivo.yaml"), _name_line(BORROWED))]
    assert origins == [(str(tmp_path / "vivo.yaml"),)]


def test_profile_pins_the_profile_of_every_session(tmp_path: Path) -> None:
    """The auditor's safeguard: ``--profile vivo`` rules every session by the built-in,
    whatever profile the sessions name."""
    logs = _logs(tmp_path, BORROWED)
    code, report = check_json("--profile", "vivo", *logs)
    assert code == 0 and {s["profile_origin"] for s in report["sessions"]} == {"builtin:vivo"}
    assert "custom_profiles" not in report["summary"]


def test_the_default_is_said_where_the_profile_is(tmp_path: Path) -> None:
    """Before: a session naming no profile was ``profile vivo``, like one that names it."""
    log = tmp_path / "none.yaml"
    log.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace('  profile: "vivo"\n', "", 1),
                   encoding="utf-8")
    _, out = run("check", "--color", "never", str(log))
    assert "), profile vivo (the default: the session names none)\n" in out
    _, report = check_json(str(log))
    assert report["sessions"][0]["profile_default"] is True
    _, out = run("check", "--format", "junit", str(log))
    assert "profile vivo (the default: the session names none) sha256" in out
    _, page = run("report", "--lang", "en", "-o", "-", str(log))
    assert "profile vivo (the default: the session names none)" in page
    _, out = run("explain", str(log), "--round", "1")
    assert out.count("; the default: the session names none\n") == 1
    for named in (("--profile", "vivo", str(log)), (str(SAMPLES / "clean.yaml"),)):
        _, out = run("check", "--color", "never", *named)
        assert "), profile vivo\n" in out and "the default" not in out
        assert "profile_default" not in check_json(*named)[1]["sessions"][0]


def test_an_export_whose_profile_nobody_named_is_refused(tmp_path: Path) -> None:
    """Before: audited as vivo, silently (a bonus table: thousands of findings)."""
    feed = str(SAMPLES / "exports" / "datafeed.csv")
    for command in ("check", "stats", "report", "explain"):
        extra = ("-o", str(tmp_path / "r.html")) if command == "report" else ("--game", "x") \
            if command == "explain" else ()
        code, out = run(command, "--mapping", "datafeed-csv", *extra, feed)
        assert code == 2 and "--profile" in out and "session.profile" in out and "Traceback" not in out, command
        assert not (tmp_path / "r.html").exists()
    code, report = check_json("--profile", "vivo", "--mapping", "datafeed-csv", feed)
    assert code == 0 and report["sessions"][0]["profile"] == "vivo"
    mapping = tmp_path / "feed.yaml"
    text = run("mappings", "datafeed-csv")[1]
    mapping.write_text(text.replace("session:\n", "session:\n  profile: caribbean\n", 1), encoding="utf-8")
    code, report = check_json("--mapping", str(mapping), feed)
    assert report["sessions"][0]["profile"] == "caribbean" and "profile_default" not in report["sessions"][0]
    code, out = run("check", "--mapping", "seamless-wallet", str(SAMPLES / "exports" / "seamless-wallet.jsonl"))
    assert code == 0  # a wallet log alone rules no game


def test_an_empty_profile_is_not_the_default(tmp_path: Path) -> None:
    """``profile: ""`` names a profile that does not exist (H005), never the default."""
    log = tmp_path / "empty.yaml"
    log.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace('profile: "vivo"', 'profile: ""', 1),
                   encoding="utf-8")
    code, report = check_json(str(log))
    assert code == 1 and {f["code"] for f in report["sessions"][0]["findings"]} == {"H005"}


def test_referee_profiles_file_says_a_borrowed_name_where_the_operator_checks_it(tmp_path: Path) -> None:
    """Found by a newcomer's test: ``referee profiles house.yaml`` accepted a ``name: vivo``
    that pays a royal flush 1:1 with exit 0; only ``check`` said H010."""
    import subprocess
    import sys

    house = tmp_path / "house.yaml"
    house.write_text(BORROWED, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "referee", "profiles", str(house)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 1 and done.stdout.startswith("# ")  # the output is still the profile
    assert f"{house}:{_name_line(BORROWED)}: H010 [error]" in done.stderr
    assert "royal_flush 1:1, the built-in vivo pays 100:1" in done.stderr
    same = tmp_path / "same.yaml"
    same.write_text(VIVO, encoding="utf-8")
    assert run("profiles", str(same))[0] == 0 and run("profiles", "vivo")[0] == 0


def test_explain_names_a_profile_file_as_custom_whatever_it_calls_itself(tmp_path: Path) -> None:
    """Found by a newcomer's test: explain said ``profile vivo (from FILE)``, which a
    floor manager could read as the built-in."""
    [log] = _logs(tmp_path, BORROWED, count=1)
    code, out = run("explain", log, "--round", "1")
    assert f"custom profile vivo ({tmp_path / 'vivo.yaml'}, sha256 " in out, out
    code, out = run("explain", log, "--round", "1", "--lang", "fr", "--for", "player")
    assert "profil personnalisé vivo" in out and "sha256" not in out
    code, out = run("explain", str(SAMPLES / "clean.yaml"), "--round", "1")
    assert code == 0 and "custom profile" not in out and "  profile vivo (" in out
