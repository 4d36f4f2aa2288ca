"""An imported game's format-2 record made only when asked (issue 45, speed): a game the
fast lane takes is audited from its structs alone, and its audit is the format-2 audit
of the same games seat for seat.

The structs are made from what the mapping's plan read (``load/exports/exported.py``,
``lazy_game_record``); the record with where each field came from (what a finding
names) is made when the full audit, a finding or ``import`` reads it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from referee.audit.intake_table import TableIntake
from referee.load.exports.exported import PlainExportRecord, lazy_game_record
from referee.load.records import ExportDict

from .conftest import ROOT, check_json, run

SHAPES = ("page", "jsonl", "csv")


def _export(tmp_path: Path, shape: str, faults: str) -> tuple[str, Path]:
    """A simulated export of ``shape`` (JSON Lines: the page's games one a line) and its mapping."""
    what = "datafeed-csv" if shape == "csv" else "evolution-history"
    path = tmp_path / f"export-{shape}"
    code, out = run("simulate", "--seats", "2-6", "--rounds", "120", "--sessions", "2", "--seed", "5", "--profile",
                    "bonus-aa", "--bonus", "1", "--faults", faults, "--export", what, "-o", str(path))
    assert code == 0, out
    if shape != "jsonl":
        return what, path
    page = json.loads(path.read_text(encoding="utf-8"))
    lines = tmp_path / "export.jsonl"
    lines.write_text("".join(json.dumps(game) + "\n" for day in page["data"] for game in day["games"]),
                     encoding="utf-8")
    text = (ROOT / "referee" / "data" / "mappings" / "evolution-history.yaml").read_text(encoding="utf-8")
    mapping = tmp_path / "lines.yaml"
    mapping.write_text(text.replace("input: json\n", "input: jsonl\n").replace("records: data[].games[]\n", ""),
                       encoding="utf-8")
    return str(mapping), lines


def _seats(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every seat's audit, in order: what it was owed and found, not where (the lines of
    an export and of the log written of it differ)."""
    return [(game["game"], game["status"], game["outcome"], seat["player_id"], seat["outcome"], seat["decision"],
             json.dumps(seat["settlement"]), json.dumps(seat["bottom_line"]), seat["balance"],
             seat["recorded_balance"], sorted((f["code"], f["field"]) for f in seat["findings"]))
            for session in report["sessions"] for game in session["games"] for seat in game["seats"]]


@pytest.mark.parametrize("faults", ["0", "0.3"])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_mapped_audit_is_the_format2_audit_of_the_same_games_seat_for_seat(tmp_path: Path, shape: str,
                                                                                faults: str) -> None:
    mapping, path = _export(tmp_path, shape, faults)
    written = tmp_path / "format2.jsonl"
    code, out = run("import", "--mapping", mapping, str(path), "-o", str(written))
    assert code == 0, out
    mapped_code, mapped = check_json("--profile", "bonus-aa", "--mapping", mapping, str(path))
    plain_code, plain = check_json("--profile", "bonus-aa", str(written))
    assert mapped_code == plain_code == (1 if faults != "0" else 0)
    seats = _seats(mapped)
    assert len(seats) > 200
    assert seats == _seats(plain)
    assert sorted(f["code"] for s in mapped["sessions"] for f in s["findings"]) == \
        sorted(f["code"] for s in plain["sessions"] for f in s["findings"])


@pytest.mark.parametrize("shape", SHAPES)
def test_a_game_the_lane_takes_never_makes_its_format2_record(tmp_path: Path, shape: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean export: the games the fast lane audits are audited from their structs; no
    seat's format-2 record (nor where its fields came from) is made for them, to the end
    of the run (the reports included)."""
    mapping, path = _export(tmp_path, shape, "0")
    taken: list[Any] = []
    lane_game = TableIntake.lane_game

    def watched(intake: TableIntake, game: Any, seats: list[Any]) -> Any:
        clean = lane_game(intake, game, seats)
        if clean is not None:
            taken.append(game.record)
        return clean

    monkeypatch.setattr(TableIntake, "lane_game", watched)
    code, report = check_json("--profile", "bonus-aa", "--mapping", mapping, str(path))
    assert code == 0
    lazy = [record for record in taken if isinstance(record, PlainExportRecord) and record.make is not None]
    assert sum(len(record.plain.seats) for record in lazy) > 200
    assert len(lazy) > 0.9 * len(taken)  # the rest: games of the file's first words and amounts (the exact builder)
    games = sum(len(s["games"]) for s in report["sessions"])
    assert len(taken) > 0.9 * games


def _seat(player: str = "p1", stake: Any = 5, net: Any = 5, cards: Any = None) -> dict[str, Any]:
    seat = {"player_id": player, "decision": "call", "ante": stake, "recorded": {"ante": net}}
    if cards is not None:
        seat["player"] = cards
    return seat


def _game(**extra: Any) -> ExportDict:
    game = ExportDict(game="g1", status="settled", flop=["Ah", "Kd", "2c"], turn="3s", river="9h",
                      dealer=["Qs", "Qd"])
    game.update(extra)
    return game


def _never() -> ExportDict:
    raise AssertionError("made")


@pytest.mark.parametrize(("seat", "qualified"), [
    (_seat(stake=10**12 + 1), None),  # beyond the struct's stake
    (_seat(net=10**19), None),  # a net beyond its range
    (_seat(player="x" * 501), None),  # an id longer than the models take
    (_seat(player=""), None),
    (_seat(stake=Decimal("2.5")), None),  # a fraction: the Decimal struct's
    (_seat(), "yes"),  # a qualification that is no boolean
])
def test_what_msgspec_would_refuse_is_left_to_the_exact_record(seat: dict[str, Any], qualified: Any) -> None:
    """Where msgspec does not take the game on the whole-number struct, the lazy record
    is not made: the game goes the way it always went (``game_record``)."""
    assert lazy_game_record("f", 1, _game(player=["Jc", "Tc"]), "[0]", [seat], [3], qualified, _never) is None


def test_a_lazy_record_is_the_struct_msgspec_makes_of_the_record() -> None:
    """The game's hand written on every seat is the game's (as ``parts.shared_hand`` has
    it); the qualification is each seat's recorded one; the record is made when asked."""
    made = _game()
    hand = ["Jc", "Tc"]
    seats = [_seat(cards=list(hand)), _seat("p2", 2, -2, cards=list(hand))]
    record = lazy_game_record("f", 1, _game(), "[0]", seats, [3, 9], False, lambda: made)
    assert isinstance(record, PlainExportRecord) and record.seat_lines == [3, 9]
    assert record.plain.player == hand
    assert [(s.player_id, s.ante, s.player, s.recorded.ante, s.recorded.dealer_qualified)
            for s in record.plain.seats] == [("p1", 5, UNSET, 5, False), ("p2", 2, UNSET, -2, False)]
    assert record.data is made  # made when first asked, once
    assert record.data is made
