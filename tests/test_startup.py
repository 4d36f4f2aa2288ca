"""Start-up: what a command imports before its first line of work.

Why a test: the start-up of ``referee check`` is serial, so it bounds what ``--jobs``
can gain (issue 18), and an eager import is easy to add back without any output
changing. Each case runs in a fresh interpreter, where ``sys.modules`` says exactly
what was imported.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "log.jsonl"

#: What a clean JSON Lines check in JSON needs none of: the other formats' reporters and
#: what they pull in (the JUnit one: xml.sax, urllib, http.client and ssl; the text
#: one: tabulate), the simulator, and the did-you-mean of problems (difflib).
NOT_FOR_A_JSON_CHECK = (
    "referee.report.junit", "referee.report.text", "referee.report.html", "xml.sax", "urllib.request",
    "http.client", "ssl", "tabulate", "jinja2", "referee.simulate", "referee.rules.strategy", "difflib",
)


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = f"{code}\nimport sys\nsys.stderr.write('\\n'.join(sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                          timeout=120)
    return set(done.stderr.splitlines())


def test_importing_the_command_line_imports_no_reporter_of_another_format() -> None:
    loaded = modules_after("import referee.cli")
    assert "referee.cli" in loaded and "click" in loaded
    assert sorted(loaded.intersection(NOT_FOR_A_JSON_CHECK)) == []


def test_a_json_check_imports_only_its_own_reporter() -> None:
    loaded = modules_after(
        "import sys\nfrom referee.cli import main\n"
        f"sys.argv = ['referee', 'check', {str(SAMPLE)!r}, '--format', 'json', '--output', '/dev/null']\n"
        "try:\n    main()\nexcept SystemExit as stop:\n    assert stop.code == 0, stop.code\n")
    assert "referee.report.json" in loaded
    assert sorted(loaded.intersection(NOT_FOR_A_JSON_CHECK)) == []


@pytest.mark.parametrize(("fmt", "module", "heavy"), [
    ("text", "referee.report.text", "tabulate"),
    ("junit", "referee.report.junit", "xml.sax.saxutils"),
])
def test_a_format_imports_its_reporter_when_chosen(fmt: str, module: str, heavy: str) -> None:
    loaded = modules_after(
        "import sys\nfrom referee.cli import main\n"
        f"sys.argv = ['referee', 'check', {str(SAMPLE)!r}, '--format', {fmt!r}, '--output', '/dev/null']\n"
        "try:\n    main()\nexcept SystemExit as stop:\n    assert stop.code == 0, stop.code\n")
    assert module in loaded and heavy in loaded


def test_a_json_lines_check_builds_only_the_models_it_validates_with() -> None:
    """The hand-history models are built on first use (``defer_build``): a JSON Lines
    check of format 1 builds the session header's validator, none of the documents'
    nor any of format 2's."""
    done = subprocess.run([sys.executable, "-c", (
        "import sys\nfrom pydantic import BaseModel\nfrom referee.cli import main\n"
        "from referee.models import common, rounds, table\n"
        f"sys.argv = ['referee', 'check', {str(SAMPLE)!r}, '--format', 'json', '--output', '/dev/null']\n"
        "try:\n    main()\nexcept SystemExit as stop:\n    assert stop.code == 0, stop.code\n"
        "built = [m.__name__ for module in (common, rounds, table) for m in vars(module).values()\n"
        "         if isinstance(m, type) and issubclass(m, BaseModel) and m.__pydantic_complete__]\n"
        "sys.stderr.write(' '.join(built))\n")], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120)
    assert done.stderr.split() == ["Session"]


def test_importing_the_package_imports_none_of_it() -> None:
    """``import referee`` is light (its names are imported when first asked for), so the
    command's entry point decides when the command line is imported."""
    loaded = modules_after("import referee\nassert referee.__version__")
    assert sorted(m for m in loaded if m.startswith("referee.")) == []
    assert "pydantic" not in loaded and "yaml" not in loaded


def test_the_public_names_are_there_when_asked_for() -> None:
    import referee

    for name in referee.__all__:
        assert getattr(referee, name) is not None, name
    assert referee.evaluate is referee.rules.hands.evaluate and "settle" in dir(referee)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        referee.nothing  # noqa: B018


def test_the_command_imports_its_command_line_with_the_collector_paused() -> None:
    """The command's start imports the command line with the collector paused, then
    freezes what was imported and collects as before; importing ``referee.cli`` alone
    leaves the collector as it was."""
    probe = "import gc, sys\ndef probe():\n    sys.stderr.write(f'{gc.get_freeze_count()} {gc.isenabled()}')\n" \
            "    sys.stderr.flush()\n"
    started = subprocess.run([sys.executable, "-c", (
        f"{probe}import atexit\natexit.register(probe)\nsys.argv = ['referee', '--version']\n"
        "from referee.start import main\nmain()\n")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    frozen, enabled = started.stderr.split()
    assert started.returncode == 0 and started.stdout.startswith("referee, version")
    assert int(frozen) > 50_000 and enabled == "True"
    alone = subprocess.run([sys.executable, "-c", f"{probe}import referee.cli\nprobe()\n"], cwd=ROOT,
                           capture_output=True, text=True, check=True, timeout=120)
    assert alone.stderr.split() == ["0", "True"]


def test_the_builtins_read_are_fresh_and_equal_to_their_yaml() -> None:
    """``referee/data/builtin_profiles.json`` is what reading each built-in's YAML gives
    (else: ``python -m referee.profiles``), and a built-in loaded from it is the profile
    read from its files, to the digits of every amount."""
    from referee import profiles

    committed = (ROOT / "referee" / "data" / profiles.BUILTIN_READ).read_text(encoding="utf-8")
    assert committed == profiles.builtins_read_text(), "stale: run python -m referee.profiles"
    for name in profiles.BUILTIN:
        data, rules = profiles.builtin_text(name), profiles.builtin_rules(name)
        from_yaml = profiles.read_builtin(name, data, rules)
        shipped = profiles._builtin(name, data, hashlib.sha256(data).hexdigest())
        assert shipped == from_yaml and repr(shipped.model_dump()) == repr(from_yaml.model_dump())
        assert shipped.rules and shipped.name == name


def test_a_builtin_whose_files_changed_is_read_from_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A built-in's YAML edited without writing the JSON again: its own bytes rule."""
    from referee import profiles

    edited = profiles.builtin_text("vivo").replace(b"call_win_odds: 1", b"call_win_odds: 2")
    assert edited != profiles.builtin_text("vivo")
    monkeypatch.setattr(profiles, "_cache", {})
    monkeypatch.setattr(profiles, "builtin_text", lambda name: edited)
    loaded = profiles.resolve_profile("vivo")
    assert loaded.profile.call_win_odds == 2 and loaded.sha256 == hashlib.sha256(edited).hexdigest()


def test_a_check_with_a_builtin_profile_reads_no_yaml() -> None:
    loaded = modules_after(
        "import sys\nfrom referee.cli import main\n"
        f"sys.argv = ['referee', 'check', {str(SAMPLE)!r}, '--format', 'json', '--output', '/dev/null']\n"
        "try:\n    main()\nexcept SystemExit as stop:\n    assert stop.code == 0, stop.code\n")
    assert "yaml" not in loaded and "referee.load.yamlio" not in loaded
