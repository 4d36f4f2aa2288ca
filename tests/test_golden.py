"""Byte-identity of every report (issue 17): each output of tests/golden_cases.py is
compared with the one stored in tests/golden/. A meant change of an output is
committed with its regenerated golden files (the failure says how)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .golden_cases import CODES, GOLDEN, REGENERATE, Case, cases, make_inputs, run_case, stored_codes

CASES = cases()


@pytest.fixture(autouse=True)
def _both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case runs with ``REFEREE_FAST=verify``: each game the fast lane takes is
    audited the full way too and the two compared (result, findings, state, report
    lines), so a check the lane does not mirror fails here instead of passing silently
    (issue 44). A test that names a mode sets its own."""
    monkeypatch.setenv("REFEREE_FAST", "verify")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("golden-inputs")
    make_inputs(folder)
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_output_is_byte_identical(case: Case, inputs: Path) -> None:
    code, output = run_case(case, inputs)
    stored = case.stored
    how = (f"`referee {' '.join(case.args)}` differs from tests/golden/{stored.name}. If the change is meant, "
           f"regenerate the golden files with `{REGENERATE}` and commit them with it (read the diff).")
    assert stored.exists(), how
    assert output == stored.read_text(encoding="utf-8"), how
    assert code == stored_codes().get(case.name), f"exit status {code}: {how}"


def test_no_stale_golden_files() -> None:
    names = {c.stored.name for c in CASES} | {CODES.name}
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.name not in names)
    assert not stale, f"golden files no case produces: {stale}; `{REGENERATE}` removes them"
