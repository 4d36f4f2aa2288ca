"""The text report's ledger table (issue 18): every round of a short session; the
flagged rounds of a long one, with a line saying how many are shown; ``--all-rows``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee.report.text import SHORT_SESSION

from .conftest import run


def _log(tmp_path: Path, rounds: int, faults: str) -> str:
    out = tmp_path / f"s{rounds}.jsonl"
    code, _ = run("simulate", "--sessions", "2", "--rounds", str(rounds), "--seed", "18", "--faults", faults,
                  "--format", "jsonl", "--output", str(out))
    assert code == 0
    return str(out)


ROW = re.compile(r"^\s+\d+  ")  # a table row: right-aligned round number, then the columns


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if ROW.match(line)]


def test_long_sessions_show_their_flagged_rounds(tmp_path: Path) -> None:
    log = _log(tmp_path, SHORT_SESSION + 50, "0.05")
    _, text = run("check", "--no-progress", log)
    _, doc_text = run("check", "--format", "json", log)
    doc = json.loads(doc_text)
    flagged = [{r["round"] for r in s["rounds"] if r["findings"]} for s in doc["sessions"]]
    totals = [len(s["rounds"]) for s in doc["sessions"]]
    shown = _rows(text)
    assert len(shown) == sum(len(f) for f in flagged) > 0
    assert all(int(line.split()[0]) in flagged[0] | flagged[1] for line in shown)
    for f, total in zip(flagged, totals, strict=True):
        assert f"{len(f)} of {total} rounds shown" in text
    _, everything = run("check", "--no-progress", "--all-rows", log)
    assert len(_rows(everything)) == sum(totals)
    assert "rounds shown" not in everything


def test_short_sessions_show_every_round(tmp_path: Path) -> None:
    log = _log(tmp_path, 30, "0.1")
    _, text = run("check", "--no-progress", log)
    _, with_flag = run("check", "--no-progress", "--all-rows", log)
    assert text == with_flag and "rounds shown" not in text
    assert len(_rows(text)) >= 60



@pytest.mark.slow  # about 12 s on one core
def test_rows_sent_unformatted_are_the_rows(tmp_path: Path) -> None:
    """A round without findings travels unformatted; formatted, it is ``ledger_row``'s row."""
    from referee.audit.checker import Options
    from referee.audit.results import RoundResult
    from referee.load.inputs import expand
    from referee.pipeline import events
    from referee.report.text import _formatted, _unformatted, ledger_row

    out = tmp_path / "b.jsonl"
    code, _ = run("simulate", "--profile", "bonus-aa", "--sessions", "2", "--rounds", "150", "--seed", "9",
                  "--bonus", "1", "--faults", "0.2", "--policy", "optimal", "--format", "jsonl", "--output", str(out))
    assert code == 0
    compared = 0
    for event in events(expand([str(out)]), Options()):
        if isinstance(event, RoundResult) and event.ruling is not None:
            assert _formatted(_unformatted(event)) == ledger_row(event)
            compared += 1
    assert compared > 250
