"""Packaging (issue 16): the wheel holds every file the package reads, and a missing
data file is an error, never a silent fall-back to a slower path."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import referee.analysis.sheet as sheet
from referee.errors import MissingDataError

from .conftest import run

ROOT = Path(__file__).resolve().parent.parent
DATA_FOLDERS = ("data", "locale", "templates", "store/migrations", "desk/static")


@pytest.mark.slow
def test_the_wheel_holds_every_data_file(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "referee", source / "referee", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
                           str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    [wheel] = (tmp_path / "dist").glob("referee-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(ROOT).as_posix() for folder in DATA_FOLDERS
                for p in (ROOT / "referee" / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert expected, "no data files found"
    assert {"referee/data/par/vivo.decisions", "referee/data/profiles/vivo.yaml",
            "referee/templates/report.html.j2", "referee/store/migrations/env.py",
            "referee/store/migrations/versions/0001_first_schema.py", "referee/templates/desk/game.html.j2",
            "referee/desk/static/desk.css"} <= expected
    assert expected - names == set()


@pytest.fixture
def no_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An installation without its data folder, and nothing of it kept by this process
    (a simulation of optimal play earlier in the same worker keeps the table it chose)."""
    empty = tmp_path / "referee"
    empty.mkdir()
    monkeypatch.setattr(sheet, "shipped_folder", lambda: empty)
    monkeypatch.setattr(sheet, "_DECISIONS", {})
    monkeypatch.setattr(sheet, "_TABLE_FOR", {})


@pytest.mark.usefixtures("no_data")
def test_a_missing_decision_table_is_an_error_not_a_slow_path() -> None:
    with pytest.raises(MissingDataError, match=r"vivo\.decisions.*reinstall"):
        sheet.stored_decisions("vivo")
    assert sheet.stored_decisions("my-house-rules") is None  # not built in: nothing is shipped
    code, out = run("simulate", "--rounds", "2", "--policy", "optimal")
    assert code == 2 and "vivo.decisions" in out and "reinstall" in out


@pytest.mark.usefixtures("no_data")
def test_a_missing_par_sheet_is_an_error() -> None:
    code, out = run("par", "--stored", "--profile", "caribbean")
    assert code == 2 and "caribbean.json" in out and "Traceback" not in out


def test_the_serve_extra_holds_what_the_desk_draws_with() -> None:
    """The desk's pages are Jinja2 templates and Watch draws the monitor's control chart
    with pygal (``monitor.html.cell_chart``, imported when a chart is drawn): an install
    of ``referee[serve]`` alone answered Watch with a 500 while pygal was only in
    ``report``. Every requirement of ``report`` and ``store`` is in ``serve``."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(extras["report"]) <= set(extras["serve"]) and set(extras["store"]) <= set(extras["serve"])
