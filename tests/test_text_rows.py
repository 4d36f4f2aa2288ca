"""The text report's ledger table (issue 18): every round of a short session; the
flagged rounds of a long one, with a line saying how many are shown; ``--all-rows``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from referee.report.text import HEADERS, LEDGER_ALIGN, SHORT_SESSION, simple_table

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



def test_rows_sent_unformatted_are_the_rows(tmp_path: Path) -> None:
    """A round without findings travels unformatted; formatted, it is ``ledger_row``'s row."""
    from referee.audit.games import GameResult, round_view
    from referee.audit.stream import Options
    from referee.load.inputs import expand
    from referee.pipeline import events
    from referee.report.text import _formatted, _unformatted, ledger_row

    out = tmp_path / "b.jsonl"
    code, _ = run("simulate", "--profile", "bonus-aa", "--sessions", "2", "--rounds", "150", "--seed", "9",
                  "--bonus", "1", "--faults", "0.2", "--policy", "simple", "--format", "jsonl", "--output", str(out))
    assert code == 0
    compared = 0
    for event in events(expand([str(out)]), Options()):
        if isinstance(event, GameResult) and (view := round_view(event)).ruling is not None:
            assert _formatted(_unformatted(view)) == ledger_row(view)
            compared += 1
    assert compared > 250


_CELL = st.one_of(st.none(), st.integers(-10**9, 10**9),
                  st.text(alphabet=st.sampled_from(" abcPSV0123456789-+.é\t"), max_size=14))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_CELL, min_size=len(HEADERS), max_size=len(HEADERS)), min_size=1, max_size=6))
def test_simple_table_is_tabulates(rows: list[list[object]]) -> None:
    """The ledger table's own layout is tabulate's "simple" one, byte for byte (cells
    it would measure otherwise, here ``é`` and tabs, go to tabulate itself)."""
    expected = tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True, colalign=LEDGER_ALIGN)
    assert simple_table(rows, HEADERS, LEDGER_ALIGN) == expected


def test_a_long_table_counts_its_games_once_and_its_second_records_apart(tmp_path: Path) -> None:
    """A live table over 200 records: the line under its table counts games as the
    summary does (a game written twice is one game), says its second records apart, and
    shows only rows with a finding: never a clean second record as ``ok`` (issue 43)."""
    out = tmp_path / "t.yaml"
    code, _ = run("simulate", "--seats", "3", "--rounds", "300", "--sessions", "1", "--seed", "7", "--faults",
                  "0.03", "--output", str(out))
    assert code == 0
    _, doc_text = run("check", "--format", "json", str(out))
    games = json.loads(doc_text)["summary"]["games"]
    assert games["games"] == 300 and games["second_records"] > 1
    _, text = run("check", "--no-progress", str(out))
    (line,) = [line for line in text.splitlines() if "games shown" in line]
    shown = re.fullmatch(r"(\d+) of 300 games shown \(and (\d+) of (\d+) second records of a game\): a session "
                         r"over 200 records shows those with a finding \(--all-rows prints every record\)\.", line)
    assert shown is not None, line
    assert int(shown.group(3)) == games["second_records"]
    lines = text.splitlines()
    head = next(i for i, row in enumerate(lines) if row.startswith("game "))
    rows = lines[head + 2:lines.index(line)]
    assert len(rows) == int(shown.group(1)) + int(shown.group(2))
    assert not any(row.endswith((" ok", "second record")) for row in rows)
    assert "300 games (" in text.splitlines()[-1] and f", {games['second_records']} second records of a game:" in text
    _, everything = run("check", "--no-progress", "--all-rows", str(out))
    assert everything.count("second record\n") + everything.count(" G001\n") >= games["second_records"] - 1
