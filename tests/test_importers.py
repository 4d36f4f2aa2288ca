"""The importers (issue 29): mapping files, normalizers, export readers, check --mapping, import."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import jmespath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.load.exports import MappingError, builtin_names, load_mapping
from referee.load.exports.mappings import parse_mapping
from referee.load.exports.normalize import CardReader, Misfit, MoneyReader, TimeReader, WordReader
from referee.load.exports.search import PlainPath, compile_expression
from referee.models.mapping import Cards, Money, Times

from .conftest import ROOT, Write, check_json, run


def _bet(code: str, stake: str, payout: str) -> dict[str, Any]:
    return {"code": code, "stake": stake, "payout": payout, "placedOn": "2026-12-01T10:00:01.000Z",
            "transactionId": f"tx-{code}"}


def _game(gid: str = "g1", river: str = "9C") -> dict[str, Any]:
    """A correct game: AH KH against 2C 7D on QH JH 3S 8D 9C, dealer not qualified (high
    card): the caller's Ante pays 1:1, the Call is returned; the folder loses the Ante."""
    return {
        "id": gid, "startedAt": "2026-12-01T10:00:00.000Z", "settledAt": "2026-12-01T10:00:45.000Z",
        "status": "Resolved", "gameType": "holdem", "table": {"id": "T1", "name": "CHE 1"},
        "dealer": {"uid": "d-1", "name": "Dealer"}, "currency": "EUR",
        "result": {"player": {"cards": ["AH", "KH"]}, "dealer": {"cards": ["2C", "7D"], "qualified": False},
                   "communityCards": ["QH", "JH", "3S", "8D", river]},
        "participants": [
            {"playerId": "p1", "sessionId": "s1", "currency": "EUR",
             "bets": [_bet("CHE_Ante", "1.00", "2.00"), _bet("CHE_Call", "2.00", "2.00")],
             "decisions": [{"type": "Call"}]},
            {"playerId": "p2", "sessionId": "s2", "currency": "EUR",
             "bets": [_bet("CHE_Ante", "1.00", "0.00")], "decisions": [{"type": "Fold"}]},
        ],
    }


def _page(*games: dict[str, Any]) -> str:
    return json.dumps({"data": [{"date": "2026-12-01", "games": list(games)}]}, indent=1)


def _findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [f for s in report["sessions"] for f in s["findings"]]
    return found + list(report["problems"])


# ----------------------------------------------------------------------------- mapping files

MINIMAL = """mapping: 1
input: json
records: data[].games[]
game:
  id: id
seats: participants
seat:
  player_id: playerId
  decision: decisions[-1].type
  bets: bets
bet:
  code: code
  stake: stake
"""


def test_every_builtin_mapping_loads_and_validates_against_the_committed_schema() -> None:
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "schemas" / "mapping.schema.json").read_text(encoding="utf-8"))
    names = builtin_names()
    assert {"evolution-history", "datafeed-csv", "seamless-wallet", "seamless-wallet-minor"} <= set(names)
    for name in names:
        loaded = load_mapping(name)
        assert loaded.builtin and len(loaded.sha256) == 64
        text = (ROOT / "referee" / "data" / "mappings" / f"{name}.yaml").read_text(encoding="utf-8")
        jsonschema.validate(yaml.safe_load(text), schema)


@pytest.mark.parametrize(("text", "said"), [
    (MINIMAL.replace("seats: participants", "seats: participants\nsesion:\n  id: table.id"),
     ["mapping m.yaml is not valid", "m.yaml:7: sesion: unknown key; did you mean 'session'?"]),
    (MINIMAL.replace("  id: id", "  id: id\n  dealr: dealer.uid"),
     ["game.dealr: unknown key; did you mean 'dealer'?"]),
    (MINIMAL.replace("  id: id", "  id: 'result.[cards'"), ["m.yaml:5: game.id: 'result.[cards' is not a JMESPath"]),
    (MINIMAL + "cards:\n  pattern: '(?P<rank>[0-9'\n", ["cards.pattern", "not a regular expression"]),
    (MINIMAL + "cards:\n  pattern: '(?P<r>..)(?P<suit>.)'\n", ["needs the named groups 'rank' and 'suit'"]),
    (MINIMAL + "cards:\n  ranks: {'1': A}\n  suits: {'0h': h}\n", ["reads '10h' two ways: as Th and as Ah"]),
    (MINIMAL + "times:\n  kind: naive\n  zone: Europe/Atlantis\n", ["m.yaml:16: times.zone 'Europe/Atlantis' is not"]),
    (MINIMAL.replace("  bets: bets\n", ""), ["a seat needs its stakes"]),
    (MINIMAL + "words:\n  status: {Resolved: done}\n", ["words.status.Resolved: unknown value 'done' (expected"]),
    (MINIMAL + "words:\n  status: {Resolved: setled}\n",
     ["words.status.Resolved: unknown value 'setled'; did you mean 'settled'?"]),
    (MINIMAL + "money:\n  unit: decimall\n", ["money.unit: unknown value 'decimall'; did you mean 'decimal'?"]),
    (MINIMAL.replace("records: data[].games[]", "records: data[0].games"), ["is not a records path"]),
    ("- just a list\n", ["expected one YAML mapping"]),
])
def test_a_mapping_that_cannot_work_is_refused_whole_with_its_line(text: str, said: list[str]) -> None:
    with pytest.raises(MappingError) as err:
        parse_mapping(text.encode(), "m.yaml")
    for part in said:
        assert part in str(err.value)


def test_check_names_the_mapping_problem_and_exits_2(write: Write) -> None:
    export = write("page.json", _page(_game()))
    code, out = run("check", "--mapping", "evolution-histroy", export)
    assert code == 2 and "did you mean 'evolution-history'?" in out
    bad = write("m.yaml", MINIMAL.replace("seats: participants", "seats: participants\nsesion: {}"))
    code, out = run("check", "--mapping", bad, export)
    assert code == 2 and "sesion: unknown key; did you mean 'session'?" in out and "Traceback" not in out


def test_mappings_lists_the_builtins_and_prints_one_as_a_template() -> None:
    code, out = run("mappings")
    assert code == 0
    for name in builtin_names():
        assert name in out
    code, out = run("mappings", "evolution-history")
    assert code == 0 and out.startswith("#")
    assert parse_mapping(out.encode(), "copy.yaml").mapping == load_mapping("evolution-history").mapping
    code, out = run("mappings", "evolution")
    assert code == 2 and "did you mean 'evolution-history'?" in out


# ----------------------------------------------------------------------------- normalizers

@pytest.mark.parametrize(("cards", "tokens", "read"), [
    (Cards(), ["AH", "TD", "10h", "Ks", "k\u2665", "2c"], ["Ah", "Td", "Th", "Ks", "Kh", "2c"]),
    (Cards(order="suit-rank"), ["HA", "S10", "DT", "c2"], ["Ah", "Ts", "Td", "2c"]),
    (Cards(order="suit-rank", separator="_"), ["S_K", "H_10", "D_A"], ["Ks", "Th", "Ad"]),
    (Cards(ranks={"V": "J", "D": "Q", "R": "K"}), ["Vh", "Dd", "Rs"], ["Jh", "Qd", "Ks"]),
    (Cards(pattern=r"(?P<rank>[AKQJT2-9]|10) of (?P<suit>[shdc])"), ["10 of h", "A of s"], ["Th", "As"]),
])
def test_card_notations(cards: Cards, tokens: list[str], read: list[str]) -> None:
    assert CardReader(cards).cards_of(tokens) == read


def test_an_unreadable_card_is_passed_on_as_written_for_the_audit_to_void() -> None:
    reader = CardReader(Cards())
    assert reader.cards_of(["AH", "XX", "1H"]) == ["Ah", "XX", "1H"]
    assert reader.cards_of("AH TD") == ["Ah", "Td"]


@pytest.mark.parametrize(("cards", "token", "meant"), [
    (Cards(), "AHH", "AH"), (Cards(), "1OS", "10S"), (Cards(), "10hh", "10h"), (Cards(), "QX", None),
    (Cards(order="suit-rank", separator="_"), "S_KK", "S_K"), (Cards(ranks={"V": "J"}), "VHx", "VH"),
])
def test_a_slip_is_suggested_in_the_notations_own_spelling(cards: Cards, token: str, meant: str | None) -> None:
    """The did-you-mean for a token that is no card is searched in the export's notation
    and spelt as the export spells (``AH``), not as format 2 (``Ah``); several cards one
    edit away (``QX``), none."""
    from referee.audit.compare import one_edit_card

    assert one_edit_card(token, set(), CardReader(cards)) == meant
    assert one_edit_card("AHH", set()) == "Ah"  # a format-2 log: format 2's spelling, as before


def test_a_misspelt_card_in_an_export_is_suggested_as_the_export_spells_cards(write: Write) -> None:
    """evolution-history writes AH, TD: a slip ('AHH') is 'a transcription slip for AH?'
    at each seat the deal was settled for, where it said 'Ah', format 2's spelling."""
    game = _game()
    game["result"]["player"]["cards"] = ["AHH", "KH"]
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", write("page.json", _page(game)))
    settled = [f for f in _findings(report) if f["code"] == "V001"]
    assert code == 1 and len(settled) == 2
    assert all("player card 1 'AHH' is not one of the 52 cards (a transcription slip for AH?)" in f["message"]
               for f in settled), settled


def test_money_is_exact_and_never_a_float() -> None:
    money = MoneyReader(Money())
    assert money.amount("1.50") == Decimal("1.50") and money.amount(3) == 3
    assert money.amount(Decimal("0.1")) == Decimal("0.1")
    for bad, said in [(Decimal("0.30000000000000004"), "17 decimal places"), (0.3, "binary float"),
                      (10**400, "beyond any amount"), (Decimal("1e30"), "beyond any amount"),
                      ("1,000", "such as 1.50"), (True, "found True"), (None, "found nothing"),
                      ("1e3", "such as 1.50"), ([1], "found a list")]:
        with pytest.raises(Misfit, match=said):
            money.amount(bad)
    minor = MoneyReader(Money(unit="minor", factor=100_000))
    assert minor.amount(150_000) == Decimal("1.5") and minor.amount("25") == Decimal("0.00025")
    with pytest.raises(Misfit, match="whole number of minor units"):
        minor.amount("1.50")
    with pytest.raises(Misfit, match="beyond any amount"):
        minor.amount("9" * 5000)


def test_times() -> None:
    assert str(TimeReader(Times()).time("2026-12-01T10:00:00.000Z")) == "2026-12-01 10:00:00+00:00"
    assert str(TimeReader(Times(kind="epoch-ms")).time(1764583200123)) == "2025-12-01 10:00:00.123000+00:00"
    assert str(TimeReader(Times(kind="epoch-s")).time("1764583200")) == "2025-12-01 10:00:00+00:00"
    assert str(TimeReader(Times(kind="naive", zone="Europe/Malta")).time("2026-12-01 10:00:00")) == \
        "2026-12-01 10:00:00+01:00"
    naive = TimeReader(Times(kind="naive", format="%d/%m/%Y %H:%M"))
    assert str(naive.time("01/12/2026 10:30")) == "2026-12-01 10:30:00+00:00"
    with pytest.raises(Misfit, match="no UTC offset"):
        TimeReader(Times()).time("2026-12-01T10:00:00")
    with pytest.raises(Misfit, match="ISO 8601"):
        TimeReader(Times()).time("yesterday")


def test_words() -> None:
    status = WordReader({"Resolved": "settled"}, ("settled", "cancelled"), "status", strict=True)
    assert status.word("Resolved") == "settled" and status.word("RESOLVED") == "settled"
    assert status.word("Cancelled") == "cancelled"
    with pytest.raises(Misfit, match="did you mean 'Resolved'"):
        status.word("Resolvd")
    decision = WordReader({}, ("call", "fold"), "decision")
    assert decision.word("FOLD") == "fold" and decision.word("raise") == "raise"  # format 2 quotes it


# ----------------------------------------------------------------------------- expressions

_KEY = st.sampled_from(["a", "b", "c"])
_DOC = st.recursive(st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=2)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEY, inner, max_size=3)),
                    max_leaves=12)
_STEP = st.one_of(_KEY, st.integers(-3, 3).map(lambda i: f"[{i}]"))


@settings(max_examples=300, deadline=None)
@given(_DOC, _KEY, st.lists(_STEP, max_size=4))
def test_a_plain_path_reads_exactly_as_jmespath(doc: Any, first: str, steps: list[str]) -> None:
    text = first + "".join(s if s.startswith("[") else f".{s}" for s in steps)
    getter = compile_expression(text)
    assert isinstance(getter, PlainPath)
    assert getter(doc) == jmespath.search(text, doc)


def test_expressions_beyond_plain_paths_go_through_jmespath() -> None:
    data = {"bets": [{"c": "Ante", "a": "1"}, {"c": "Call", "a": "2"}]}
    getter = compile_expression("bets[?c=='Call'] | length(@)")
    assert not isinstance(getter, PlainPath) and getter(data) == 1
    assert compile_expression("bets[-1].c")(data) == "Call"


# ----------------------------------------------------------------------------- check --mapping

def test_a_correct_export_is_clean(write: Write) -> None:
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", write("page.json", _page(_game())))
    assert code == 0, _findings(report)
    session = report["sessions"][0]
    assert session["table"] == "T1" and session["currency"] == "EUR"
    assert session["games"][0]["pointer"] == "data[0].games[0]"
    assert [s["player_id"] for s in session["games"][0]["seats"]] == ["p1", "p2"]
    origins = [m["origin"] for m in report["summary"]["mappings"]]
    assert origins == ["evolution-history (built-in)"]


def test_a_finding_names_the_export_field_and_its_line(write: Write) -> None:
    game = _game()
    game["participants"][0]["bets"][1]["payout"] = "4.00"
    export = write("page.json", _page(game))
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", export)
    assert code == 1
    [finding] = _findings(report)
    assert finding["code"] == "P002" and finding["player"] == "p1"
    assert finding["export_field"] == "data[0].games[0].participants[0].bets[1].payout"
    lines = Path(export).read_text(encoding="utf-8").splitlines()
    # the line the bet's object opens on (a JSON page's fields are at their object's line)
    assert lines[finding["line"] - 1].strip() == "{" and '"code": "CHE_Call"' in lines[finding["line"]]
    assert '"payout": "4.00"' in "".join(lines[finding["line"]:finding["line"] + 6])


def test_a_seat_that_does_not_fit_is_one_finding_and_the_rest_is_audited(write: Write) -> None:
    game = _game()
    game["participants"][1]["bets"][0]["stake"] = "1,00"
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", write("page.json", _page(game, _game("g2"))))
    assert code == 1
    [finding] = _findings(report)
    assert finding["code"] == "H008"
    assert "bet.stake: 'stake' found '1,00' at data[0].games[0].participants[1].bets[0].stake" in finding["message"]
    assert finding["export_field"] == "data[0].games[0].participants[1].bets[0].stake"
    assert report["summary"]["games"]["games"] == 2 and report["summary"]["games"]["seats"] == 3


def test_an_amount_with_binary_noise_is_a_finding_never_a_rounded_amount(write: Write) -> None:
    game = _game()
    game["participants"][1]["bets"][0]["stake"] = "NOISE"
    text = _page(game).replace('"NOISE"', "0.30000000000000004")
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", write("page.json", text))
    [finding] = _findings(report)
    assert code == 1 and finding["code"] == "H008" and "17 decimal places" in finding["message"]


def test_a_mapping_that_fits_nothing_is_one_error_for_the_file(write: Write) -> None:
    other = write("other.json", json.dumps({"data": [{"games": [{"uuid": 1}, {"uuid": 2}]}]}))
    code, out = run("check", "--profile", "vivo", "--mapping", "evolution-history", other)
    assert code == 2
    assert "the mapping evolution-history does not fit this file: game.id: 'id' found nothing at " \
           "data[0].games[0].id" in out
    assert "the record's keys are 'uuid'" in out and out.count("H000 [error]") == 1 and "Table session" not in out
    code, out = run("check", "--profile", "vivo",
                             "--mapping", "evolution-history", write("noise.json", '{"items": []}'))
    assert code == 2 and "finds no record here: records 'data[].games[]' found nothing" in out


def test_an_export_that_changes_shape_midway_is_a_finding_per_record(write: Write) -> None:
    later = _game("g2")
    del later["id"]
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", write("page.json", _page(_game(), later)))
    [finding] = _findings(report)
    assert code == 1 and finding["code"] == "H008" and "game.id: 'id' found nothing at data[0].games[1]" in \
        finding["message"]


def test_a_game_in_two_pages_with_other_cards_is_g001_and_a_player_twice_g002(write: Write) -> None:
    first = write("page-1.json", _page(_game()))
    other = _game(river="9S")
    other["participants"] = []
    again = _game()
    again["participants"] = again["participants"][:1]
    second = write("page-2.json", _page(other))
    third = write("page-3.json", _page(again))
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", first, second, third)
    assert code == 1
    assert sorted(f["code"] for f in _findings(report)) == ["G001", "G002"]


def test_a_cancelled_game_refunded_is_clean_and_one_paid_is_g003(write: Write) -> None:
    cancelled = _game()
    cancelled["status"] = "Cancelled"
    for p in cancelled["participants"]:
        for bet in p["bets"]:
            bet["payout"] = "0.00"
    paid = _game("g2")
    paid["status"] = "Cancelled"
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", write("page.json", _page(cancelled, paid)))
    found = _findings(report)
    # p2 folded: its bets paid nothing back, as a refunded seat's (the refund is the wallet's):
    # in the history alone the two cannot be told apart, with the wallet they can (W003)
    assert code == 1 and [(f["code"], f["game"], f["player"]) for f in found] == [("G003", "g2", "p1")]


def test_a_folder_of_exports_is_walked_for_json_jsonl_and_csv(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(_page(_game()), encoding="utf-8")
    (tmp_path / "b.json").write_text(_page(_game("g2")), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not an export", encoding="utf-8")
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", str(tmp_path))
    assert code == 0 and [i["file"].rsplit("/", 1)[-1] for i in report["inputs"]] == ["a.json", "b.json"]


@pytest.mark.parametrize("args", [
    ["--wallet", "w.jsonl"], ["--mapping", "seamless-wallet", "--wallet", "w.jsonl"],
    ["--profile", "vivo", "--mapping", "evolution-history", "--cluster", "local:1"],
    ["--profile", "vivo", "--mapping", "evolution-history", "--wallet", "w.jsonl", "--wallet-mapping",
     "evolution-history"],
    ["--profile", "vivo", "--mapping", "evolution-history", "--wallet", "missing.jsonl"],
])
def test_options_that_cannot_work_together_exit_2(args: list[str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "page.json").write_text(_page(_game()), encoding="utf-8")
    code, out = run("check", *args, "page.json")
    assert code == 2 and "Traceback" not in out and ("--wallet" in out or "--mapping" in out or "--cluster" in out)


# ----------------------------------------------------------------------------- CSV

FEED_HEADER = ("playerID,extPlayerID,gameID,playSessionID,parentSessionID,startDate,endDate,status,type,bet,win,"
               "currency,jackpot,roundDetails")


def _row(player: str, game: str, bets: list[tuple[str, str]], decision: str, bet: str, win: str,
         status: str = "completed") -> str:
    import csv
    import io

    details = {"player": ["Ah", "Kh"], "dealer": ["2c", "7d"], "board": ["Qh", "Jh", "3s", "8d", "9c"],
               "qualified": False, "bets": [{"c": c, "a": a} for c, a in bets], "decision": decision}
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([
        player, f"ext-{player}", "casino_holdem", f"{game}/{player}", game, "2026-12-01T10:00:00Z",
        "2026-12-01T10:00:45Z", status, "live", bet, win, "EUR", "0.00", json.dumps(details)])
    return out.getvalue()


def _feed(*rows: str) -> str:
    return "timepoint=2026-12-01T00:00:00Z\n" + FEED_HEADER + "\n" + "".join(rows)


def test_a_data_feed_groups_rows_into_games_and_reads_the_shared_hand(write: Write) -> None:
    feed = _feed(_row("p1", "g1", [("Ante", "1.00"), ("Call", "2.00")], "call", "3.00", "4.00"),
                 _row("p2", "g1", [("Ante", "1.00")], "fold", "1.00", "0.00"),
                 _row("p1", "g2", [("Ante", "1.00")], "fold", "1.00", "0.00"))
    code, report = check_json("--profile", "vivo", "--mapping", "datafeed-csv", write("feed.csv", feed))
    assert code == 0, _findings(report)
    games = report["sessions"][0]["games"]
    assert [(g["game"], len(g["seats"]), g["line"]) for g in games] == [("g1", 2, 3), ("g2", 1, 5)]


def test_a_data_feed_row_paid_wrong_names_its_cell(write: Write) -> None:
    feed = _feed(_row("p1", "g1", [("Ante", "1.00"), ("Call", "2.00")], "call", "3.00", "5.00"),
                 _row("p2", "g1", [("Ante", "1.00")], "fold", "1.00", "0.00"))
    code, report = check_json("--profile", "vivo", "--mapping", "datafeed-csv", write("feed.csv", feed))
    [finding] = _findings(report)
    assert code == 1 and finding["line"] == 3 and finding["export_field"] == "row 1.win"


def test_a_csv_row_with_other_cells_is_a_finding_at_its_row(write: Write) -> None:
    feed = _feed(_row("p1", "g1", [("Ante", "1.00")], "fold", "1.00", "0.00"), "p2,ext-p2,casino_holdem\n",
                 _row("p1", "g2", [("Ante", "1.00")], "fold", "1.00", "0.00"))
    code, report = check_json("--profile", "vivo", "--mapping", "datafeed-csv", write("feed.csv", feed))
    [finding] = _findings(report)
    assert code == 1 and finding["code"] == "H008" and finding["line"] == 4
    assert "row 2 has 3 cells, the header 14" in finding["message"]


# ----------------------------------------------------------------------------- import

def test_import_writes_format_2_that_check_audits_alike(write: Write, tmp_path: Path) -> None:
    bad = _game("g2")
    bad["participants"][0]["bets"][0]["payout"] = "3.00"
    export = write("page.json", _page(_game(), bad))
    out = tmp_path / "session.jsonl"
    code, said = run("import", "--mapping", "evolution-history", export, "-o", str(out))
    assert code == 0, said
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["format"] == 2
    provenance = lines[0]["session"]["meta"]["export"]
    assert provenance["mapping"] == "evolution-history" and len(provenance["sha256"]) == 64
    assert lines[2]["meta"]["export"]["pointer"] == "data[0].games[1]"
    _, direct = check_json("--profile", "vivo", "--mapping", "evolution-history", export)
    _, imported = check_json(str(out))

    def said_of(report: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [(f["code"], f["game"], f["player"]) for f in _findings(report)]

    assert said_of(direct) == said_of(imported) == [("P001", "g2", "p1")]
    assert direct["summary"]["games"] == imported["summary"]["games"]


def test_import_of_a_record_that_does_not_fit_says_it_and_exits_1(write: Write, tmp_path: Path) -> None:
    game = _game("g2")
    game["participants"][0]["decisions"] = []
    out = tmp_path / "session.jsonl"
    code, said = run("import", "--mapping", "evolution-history", write("page.json", _page(_game(), game)), "-o",
                     str(out))
    assert code == 1 and "H008 seat.decision: 'decisions[-1].type' found nothing" in said
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3  # the session, both games (g2 with one seat)


def test_import_refuses_a_mapping_that_fits_nothing_and_writes_nothing(write: Write, tmp_path: Path) -> None:
    out = tmp_path / "session.jsonl"
    code, said = run("import", "--mapping", "datafeed-csv", write("page.json", _page(_game())), "-o", str(out))
    assert code == 2 and not out.exists() and "Traceback" not in said


def test_an_export_copy_is_unchanged_by_an_import(write: Write, tmp_path: Path) -> None:
    export = write("page.json", _page(_game()))
    before = Path(export).read_bytes()
    code, said = run("import", "--mapping", "evolution-history", export, "-o", export)
    assert code == 2 and Path(export).read_bytes() == before and "Traceback" not in said


def test_the_game_builder_keeps_records_it_was_given_unchanged(write: Write) -> None:
    game = _game()
    kept = copy.deepcopy(game)
    code, _ = check_json("--profile", "vivo", "--mapping", "evolution-history", write("page.json", _page(game)))
    assert code == 0 and game == kept


# ----------------------------------------------------------------------------- the page reader

def _same(fast: Any, slow: Any) -> None:
    assert fast == slow and type(fast) is type(slow)
    if isinstance(fast, dict):
        assert fast.line == slow.line  # type: ignore[attr-defined]
        for key in fast:
            _same(fast[key], slow[key])
    elif isinstance(fast, list):
        for a, b in zip(fast, slow, strict=True):
            _same(a, b)


@pytest.mark.parametrize("text", [
    _page(_game(), _game("g2")),
    json.dumps({"data": [{"games": [_game()]}]}, separators=(",", ":")),
    json.dumps({"data": [{"games": [_game()]}]}, indent=4, sort_keys=True),
    '[{"b": "}{", "c": "\\"{"}, {"d": {"e": [{}, {"f": "\\\\"}]}}]',
    '{"a":\n\n {"b": 1.10,\n "c": [\n{"d": "{\\n}"}]}}',
])
def test_the_page_reader_gives_the_values_and_object_lines_of_the_exact_reader(text: str) -> None:
    from referee.load.jsonio import loads_document, loads_export

    _same(loads_export(text), loads_document(text))


def test_the_page_reader_refuses_as_the_exact_reader_does() -> None:
    from referee.load.jsonio import JsonInputError, loads_export

    for text, line, said in [('{"a": 1,\n "a": 2}', 1, "duplicate key 'a'"),
                             ('{"a": [1,\n 2,,]}', 2, "Expecting value"), ('{"a": NaN}', 1, "NaN")]:
        with pytest.raises(JsonInputError) as err:
            loads_export(text)
        assert err.value.line == line and said in err.value.message


# ----------------------------------------------------------------------------- two paths, one answer

def _hostile_page() -> str:
    """Ids JSON escapes, amounts at six places and beyond, odd cards, a long table, a
    cancelled game, a seat twice: every road through the importer and the lane."""
    games = []
    for n in range(12):
        game = _game(f"g-{n}\\\"q\u00e9")
        seat = game["participants"][0]
        seat["playerId"] = ["p\"1", "p\\2", "p\u2028", 7, "p1"][n % 5]
        if n % 3 == 0:
            seat["bets"][0]["stake"] = "1.000000"
            seat["bets"][0]["payout"] = "2.000000"
        if n % 4 == 1:
            seat["bets"][0]["payout"] = "2.0000001"
        if n % 5 == 2:
            game["result"]["communityCards"][4] = "XX"
        if n % 6 == 3:
            game["status"] = "Cancelled"
        if n % 7 == 4:
            game["participants"].append(copy.deepcopy(game["participants"][0]))
        if n == 5:
            game["participants"] = [copy.deepcopy(game["participants"][1]) for _ in range(30)]
            for i, p in enumerate(game["participants"]):
                p["playerId"] = f"s{i}"
        games.append(game)
    return _page(*games)


@pytest.mark.parametrize("shape", ["evolution-history", "datafeed-csv"])
def test_the_lane_and_the_full_path_write_the_same_report(shape: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """REFEREE_FAST=0 (every game through the full audit), 1 and verify (both, compared)
    give byte-identical reports over fault exports and a hostile page."""
    inputs = []
    for seed, rate in ((1, 0.0), (2, 0.3), (3, 0.6)):
        path = tmp_path / f"{seed}.{'json' if shape == 'evolution-history' else 'csv'}"
        code, out = run("simulate", "--seats", "1-7", "--rounds", "40", "--seed", str(seed), "--faults", str(rate),
                        "--export", shape, "-o", str(path))
        assert code == 0, out
        inputs.append(str(path))
    if shape == "evolution-history":
        hostile = tmp_path / "hostile.json"
        hostile.write_text(_hostile_page(), encoding="utf-8")
        inputs.append(str(hostile))
    reports = {}
    for mode in ("0", "1", "verify"):
        monkeypatch.setenv("REFEREE_FAST", mode)
        for fmt in ("json", "text"):
            reports[mode, fmt] = run("check", "--profile", "vivo", "--mapping", shape, "--format", fmt, *inputs)
    for fmt in ("json", "text"):
        assert reports["0", fmt] == reports["1", fmt] == reports["verify", fmt]
    assert reports["1", "json"][0] == 1  # the faults and the hostile page were found


# ----------------------------------------------------------------------------- the wallet joined

def _moves(*lines: tuple[str, str, str, str, str | None, str]) -> str:
    """Wallet lines: (action, user, round, id, reference, amount)."""
    return "".join(json.dumps({"action": a, "user": u, "round": r, "table": "T1", "transaction": t, "reference": ref,
                               "amount": amount, "balance": None, "time": "2026-12-01T10:00:00Z"}) + "\n"
                   for a, u, r, t, ref, amount in lines)


#: The moves of _game()'s two seats: p1 staked 3 and got 4 back, p2 staked 1 and lost it.
CLEAN_MOVES = (("debit", "p1", "g1", "t1", None, "1.00"), ("debit", "p1", "g1", "t2", None, "2.00"),
               ("credit", "p1", "g1", "t3", "t1", "4.00"), ("debit", "p2", "g1", "t4", None, "1.00"),
               ("credit", "p2", "g1", "t5", "t4", "0.00"))


def test_the_wallet_fills_each_seat_and_money_no_seat_shows_is_w010(write: Write) -> None:
    page = write("page.json", _page(_game()))
    clean = write("w.jsonl", _moves(*CLEAN_MOVES))
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", page, "--wallet", clean)
    assert code == 0, _findings(report)
    assert report["summary"]["transactions"] == 5
    stray = (*CLEAN_MOVES, ("debit", "p9", "g1", "t6", None, "5.00"), ("credit", "p9", "g1", "t7", "t6", "0.00"),
             ("debit", "p1", "g7", "t8", None, "1.00"))
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", page, "--wallet", write("w2.jsonl", _moves(*stray)))
    found = [(f["code"], f["game"], f["player"], f["line"]) for f in _findings(report)]
    assert code == 1 and found == [("W010", "g1", "p9", 6), ("W010", "g7", "p1", 8)]
    short = write("w3.jsonl", _moves(*CLEAN_MOVES[:2], *CLEAN_MOVES[3:]))  # p1's credit lost
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", page, "--wallet", short)
    assert code == 1 and [(f["code"], f["player"]) for f in _findings(report)] == [("W002", "p1")]


#: The codes whose cases are here rather than in tests/test_ledger_cases.py (they need
#: a wallet log beside the export).
IMPORT_CODE_CASES = {"W010": test_the_wallet_fills_each_seat_and_money_no_seat_shows_is_w010}


# ----------------------------------------------------------------------------- what a newcomer tripped on

def test_a_bad_value_in_the_first_record_is_a_finding_not_a_mapping_that_does_not_fit(write: Write) -> None:
    first = _game()
    first["status"] = "FINISHED"
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", write("page.json", _page(first, _game("g2"))))
    [finding] = _findings(report)
    assert code == 1 and finding["code"] == "H008" and "unknown status 'FINISHED'" in finding["message"]
    assert report["summary"]["games"]["games"] == 1


@pytest.mark.parametrize("river", ["ZZ", "9C"])
def test_a_game_whose_every_seat_is_unreadable_is_not_counted_and_its_deal_still_ruled(
        write: Write, river: str) -> None:
    """Its only seat an H008: the game was shown "settled, ok" and counted, and its
    malformed deal's V003 was lost. Now: void (V003) when the deal is, else invalid."""
    bad = _game("g2", river=river)
    bad["participants"] = bad["participants"][:1]
    bad["participants"][0]["bets"][0]["stake"] = "1,00"
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", write("page.json", _page(_game(), bad)))
    found = sorted(f["code"] for f in _findings(report))
    games = report["summary"]["games"]
    assert code == 1
    if river == "ZZ":
        assert found == ["H008", "V003"] and (games["counted"], games["void"], games["invalid"]) == (1, 1, 0)
    else:
        assert found == ["H008"] and (games["counted"], games["void"], games["invalid"]) == (1, 0, 1)


def test_a_seat_field_missing_from_every_seat_of_the_first_game_is_a_mapping_that_does_not_fit(
        write: Write) -> None:
    game = _game()
    for p in game["participants"]:
        p["uid"] = p.pop("playerId")
    code, out = run("check", "--profile", "vivo",
                             "--mapping", "evolution-history", write("page.json", _page(game, _game("g2"))))
    assert code == 2 and out.count("H000 [error]") == 1 and "does not fit this file: seat.player_id" in out


def test_a_wallet_log_that_is_not_json_lines_is_one_error(write: Write) -> None:
    feed = write("feed.csv", "action,user\ndebit,p1\ncredit,p1\n")
    code, out = run("check", "--mapping", "seamless-wallet", feed)
    assert code == 2 and out.count("H000 [error]") == 1 and "not JSON Lines, as the mapping reads" in out


def test_an_empty_page_is_read_and_holds_no_game(write: Write) -> None:
    empty = write("empty.json", json.dumps({"data": [{"date": "2026-12-02", "games": []}]}))
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", empty, write("page.json", _page(_game())))
    assert code == 0 and all(i["readable"] for i in report["inputs"])


def test_a_folder_is_searched_for_the_files_the_mapping_reads(tmp_path: Path) -> None:
    (tmp_path / "page.json").write_text(_page(_game()), encoding="utf-8")
    (tmp_path / "wallet.jsonl").write_text(_moves(*CLEAN_MOVES), encoding="utf-8")
    (tmp_path / "feed.csv").write_text("a,b\n", encoding="utf-8")
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", str(tmp_path))
    assert code == 0 and [Path(i["file"]).name for i in report["inputs"]] == ["page.json"]
    code, report = check_json("--mapping", "seamless-wallet", str(tmp_path))
    assert [Path(i["file"]).name for i in report["inputs"]] == ["wallet.jsonl"]


def test_an_optional_expression_that_finds_nothing_anywhere_is_a_warning(write: Write) -> None:
    games = [_game(), _game("g2")]
    for game in games:
        del game["result"]["dealer"]["qualified"]
    page = write("page.json", _page(*games))
    code, report = check_json("--profile", "vivo", "--mapping", "evolution-history", page)
    [finding] = _findings(report)
    assert code == 0 and finding["code"] == "H009" and finding["severity"] == "warning"
    assert "game.dealer_qualified: 'result.dealer.qualified' found nothing in any of the 2" in finding["message"]
    assert check_json("--profile", "vivo", "--mapping", "evolution-history", "--strict", page)[0] == 1


def test_an_unreadable_wallet_line_does_not_break_the_balance_chain(write: Write) -> None:
    lines = [{"action": "debit", "user": "p1", "round": "g1", "transaction": "t1", "reference": None,
              "amount": "1.00", "balance": "99.00"},
             {"action": "debit", "user": "p1", "round": "g2", "transaction": "t2", "reference": None,
              "amount": "1e2", "balance": "98.00"},
             {"action": "credit", "user": "p1", "round": "g1", "transaction": "t3", "reference": "t1",
              "amount": "2.00", "balance": "100.00"}]
    log = write("w.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    code, report = check_json("--mapping", "seamless-wallet", log)
    assert code == 1 and [f["code"] for f in _findings(report)] == ["H008"]
