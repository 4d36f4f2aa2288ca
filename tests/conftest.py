from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

Write = Callable[[str, str], str]
"""The ``write`` fixture: writes a text file under the test's tmp_path and returns its path."""


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def check_json(*args: str, input: str | None = None) -> tuple[int, dict[str, Any]]:
    code, out = run("check", "--format", "json", *args, input=input)
    return code, json.loads(out)


def codes(report: dict[str, Any]) -> list[str]:
    found = [f["code"] for s in report["sessions"] for f in s["findings"]]
    return sorted(found + [f["code"] for f in report["problems"]])


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Decision tables built by tests go to a temporary cache, never the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.mktemp("referee-cache")))
    yield
    mp.undo()


@pytest.fixture
def write(tmp_path: Path) -> Write:
    def _write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return _write
