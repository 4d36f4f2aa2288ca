"""A mapping compiled once into a plan (issue 45, speed): the same records as the exact builder.

The reference is the exact builder (:meth:`GameBuilder._seat`, the plan switched off):
for every export here (the samples, and copies with what the plan hands over: a word or
an amount met the first time, a value of another type, a cancelled game, a seat that
does not fit), the records built with the plan must be the very same: each session,
game, seat and problem, every key in the same order, every field's line and export path
(what a finding says), the keys an H009 counts as found; and the reports of ``check``
and the log ``import`` writes byte for byte.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.load.exports import files, load_mapping
from referee.load.exports.games import GameBuilder
from referee.load.exports.plan import SeatPlan
from referee.load.inputs import Source
from referee.load.reading import Reading, Stream
from referee.load.records import ExportDict, LoadProblem, Record

from .conftest import ROOT, run

SAMPLES = ROOT / "samples" / "exports"
PAGE, FEED, WALLET = SAMPLES / "evolution-history.json", SAMPLES / "datafeed.csv", SAMPLES / "seamless-wallet.jsonl"


def _shown(value: Any) -> Any:
    """A record's value with everything a finding may ask of it: each key in order, and
    of an imported field its line and the export's own path."""
    if isinstance(value, ExportDict):
        return ("export", value.line, [(key, _shown(item), value.line_of(key), value.path_of(key))
                                       for key, item in value.items()])
    if isinstance(value, dict):
        return ("dict", [(key, _shown(item)) for key, item in value.items()])
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return (type(value).__name__, repr(value))


def _built(mapping: str, path: Path, planned: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], set[str], int]:
    """Every record of ``path`` through ``mapping`` (with the plan or without), the keys
    found, and how many seats the plan built."""
    loaded = load_mapping(mapping)
    builders: list[GameBuilder] = []
    planned_seats = [0]
    plain, seat = SeatPlan.plain, SeatPlan.seat

    def counted(plan: SeatPlan, data: Any) -> dict[str, Any] | None:
        found = plain(plan, data)
        planned_seats[0] += found is not None
        return found

    def read(plan: SeatPlan, data: Any, *args: Any) -> ExportDict | None:
        built = seat(plan, data, *args)
        planned_seats[0] += built is not None and id(data) not in plained
        return built

    plained: set[int] = set()  # a seat read plain is read again by seat() when its record is asked for

    def counted_plain(plan: SeatPlan, data: Any) -> dict[str, Any] | None:
        found = counted(plan, data)
        if found is not None:
            plained.add(id(data))
        return found

    with monkeypatch.context() as patch:
        patch.setattr(SeatPlan, "plain", counted_plain)
        patch.setattr(SeatPlan, "seat", read)
        if not planned:
            patch.setattr(SeatPlan, "fits", staticmethod(lambda getters: False))

        def games(reading: Reading, stream: Stream) -> Any:
            builder = GameBuilder(loaded, reading)
            builders.append(builder)
            return builder.build(files.export_records(reading, stream, loaded.mapping, builder.document_complete,
                                                      builder.seats_key))

        reading = Reading(Source(str(path), path))
        reading.streams_json = True
        kind = loaded.mapping.input
        records: list[Record] = list(reading.records({kind: games}, lambda name, head: kind))
    shown: list[Any] = []
    for record in records:
        if isinstance(record, LoadProblem):
            shown.append(("problem", record.line, str(record.code), record.message, record.export_field))
        else:
            shown.append((type(record).__name__, record.line, getattr(record, "pointer", None),
                          _shown(getattr(record, "data", None))))
    return shown, set(builders[0]._found), planned_seats[0]


def _same(mapping: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], int]:
    exact, exact_found, none = _built(mapping, path, False, monkeypatch)
    planned, planned_found, seats = _built(mapping, path, True, monkeypatch)
    assert none == 0
    assert planned == exact
    assert planned_found == exact_found
    return planned, seats


@pytest.mark.parametrize(("mapping", "path"), [("evolution-history", PAGE), ("datafeed-csv", FEED)])
def test_the_samples_are_built_by_the_plan_as_by_the_exact_builder(mapping: str, path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    records, seats = _same(mapping, path, monkeypatch)
    games = [r for r in records if r[0] in ("PlainExportRecord", "ExportGameRecord")]
    assert len(games) >= 10 and seats >= 20  # most of the 33 seats (the first of each word, amount: the builder)


def _odd_page(tmp_path: Path) -> Path:
    """The sample page with what the plan hands over to the exact builder, in later games."""
    page = json.loads(PAGE.read_text(encoding="utf-8"))
    games = page["data"][0]["games"]
    last = games[-1]
    odd = []
    for n, change in enumerate(("code", "stake", "decision", "amount", "cancelled", "nobets", "player", "payout",
                                "ignored", "list", "noante")):
        game = copy.deepcopy(last)
        game["id"] = f"T1-5-9{n:05d}"
        seat = game["participants"][0]
        if change == "code":
            seat["bets"][0]["code"] = "CHE_Anet"  # an unknown code: H008 with a did-you-mean
        elif change == "stake":
            seat["bets"][0]["stake"] = "1.5x"
        elif change == "decision":
            seat["decisions"][-1]["type"] = "CALL"  # a word met the first time
        elif change == "amount":
            seat["bets"][0]["stake"] = "7.25"  # an amount met the first time
            game["participants"][1]["bets"][0]["stake"] = "7.25"  # then known
        elif change == "cancelled":
            game["status"] = "Cancelled"
        elif change == "nobets":
            del seat["bets"]
        elif change == "player":
            seat["playerId"] = 1234
        elif change == "payout":
            del seat["bets"][0]["payout"]
            game["participants"][1]["bets"][-1]["payout"] = True  # no amount: H008
        elif change == "ignored":
            seat["bets"].append({"code": "CHE_Ante", "stake": "1.00", "payout": "2.00"})  # a second Ante, summed
        elif change == "list":
            game["participants"][1]["bets"] = "none"
        else:
            seat["bets"] = [bet for bet in seat["bets"] if bet["code"] != "CHE_Ante"]
        odd.append(game)
    games.extend(odd)
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(page, indent=2), encoding="utf-8")
    return path


def test_what_the_plan_does_not_take_is_the_exact_builders_every_message_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records, seats = _same("evolution-history", _odd_page(tmp_path), monkeypatch)
    messages = " ".join(str(r[3]) for r in records if r[0] == "problem")
    assert "unknown bet code 'CHE_Anet'" in messages and "'1.5x'" in messages and "bet.payout" in messages
    assert seats >= 25


def test_a_mapping_with_an_expression_is_read_by_the_exact_builder(tmp_path: Path) -> None:
    """The plan reads plain paths only: an expression's budget is spent once, by the builder."""
    text = (ROOT / "referee" / "data" / "mappings" / "evolution-history.yaml").read_text(encoding="utf-8")
    mapping = tmp_path / "filtered.yaml"
    mapping.write_text(text.replace("  decision: decisions[-1].type\n", "  decision: decisions[?type][-1].type\n"),
                       encoding="utf-8")
    loaded = load_mapping(str(mapping))
    assert not SeatPlan.fits(loaded.getters)
    assert SeatPlan.fits(load_mapping("evolution-history").getters)


def _reports(monkeypatch: pytest.MonkeyPatch, planned: bool, *args: str) -> tuple[int, str]:
    with monkeypatch.context() as patch:
        if not planned:
            patch.setattr(SeatPlan, "fits", staticmethod(lambda getters: False))
        return run(*args)


@pytest.mark.parametrize("args", [
    ("check", "--profile", "vivo", "--mapping", "evolution-history", str(PAGE), "--wallet", str(WALLET),
     "--format", "json"),
    ("check", "--profile", "vivo", "--mapping", "evolution-history", str(PAGE), "--wallet", str(WALLET)),
    ("check", "--profile", "vivo", "--mapping", "datafeed-csv", str(FEED), "--format", "json"),
])
def test_the_reports_are_the_same_byte_for_byte(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    exact = _reports(monkeypatch, False, *args)
    assert _reports(monkeypatch, True, *args) == exact


def test_the_log_import_writes_is_the_same_byte_for_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    odd = _odd_page(tmp_path)
    written = []
    for planned in (False, True):
        out = tmp_path / f"imported-{planned}.jsonl"
        code, _ = _reports(monkeypatch, planned, "import", "--mapping", "evolution-history", str(odd), "-o", str(out))
        assert code == 1  # the odd records could not all be read
        written.append(out.read_bytes().replace(str(tmp_path).encode(), b""))
    assert written[0] == written[1]


def test_a_key_found_only_in_seats_the_plan_built_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bet.payout written only in the last game, each the amount of a stake read before:
    that game's seats are the plan's, and the file has found the key (no H009)."""
    page = json.loads(PAGE.read_text(encoding="utf-8"))
    games = page["data"][0]["games"]
    for game in games:
        for seat in game["participants"]:
            for bet in seat["bets"]:
                if game is games[-1]:
                    bet["payout"] = bet["stake"]
                else:
                    del bet["payout"]
    path = tmp_path / "late.json"
    path.write_text(json.dumps(page, indent=1), encoding="utf-8")
    records, seats = _same("evolution-history", path, monkeypatch)
    assert seats >= len(games[-1]["participants"])
    assert not any(r[0] == "problem" and "bet.payout" in r[3] for r in records)
