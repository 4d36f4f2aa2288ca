"""An export's records read with plain dicts, lines found when asked (issue 45, speed).

The reference is the exact reader: :func:`loads_line` for a JSON Lines record or a CSV
cell, :func:`loads_document` for a page. Read the fast way, a record must give the same
values, its seats the same lines, every other object the same line when a finding asks
(:class:`RecordLines`), and what the exact reader refuses must still be refused, at the
same line. An imported game's whole amounts are ints, so the lane takes it on the
whole-number struct, as it takes the format-2 log ``import`` writes of it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.load.exports.exported import PlainExportRecord, game_record
from referee.load.exports.normalize import MoneyReader
from referee.load.exports.pages import Page, PageError
from referee.load.jsonio import JsonInputError, RecordLines, loads_document, loads_line
from referee.load.jsonplain import loads_plain
from referee.load.records import ExportDict, LineDict
from referee.models.mapping import Money

from .conftest import ROOT, check_json

SAMPLE = ROOT / "samples" / "exports" / "evolution-history.json"


# ----------------------------------------------------------------------------- a JSON Lines record, a CSV cell


def test_a_plain_line_gives_plain_dicts_and_the_same_value() -> None:
    text = '{"id": "g1", "seats": [{"p": "a", "bets": [{"c": "Ante", "a": 1.50}]}], "n": 3}'
    value = loads_plain(text, 7)
    assert type(value) is dict and type(value["seats"][0]) is dict
    assert value == loads_line(text, 7)
    assert value["seats"][0]["bets"][0]["a"] == Decimal("1.50")


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', '{"s": [{"p": "x", "q": 1, "p": "y"}]}',
                                  '{"a": {"b": {"c": 1, "c": "1"}}}'])
def test_a_key_given_twice_is_refused_as_the_exact_reader_refuses_it(text: str) -> None:
    with pytest.raises(JsonInputError) as exact:
        loads_line(text, 4)
    with pytest.raises(JsonInputError) as plain:
        loads_plain(text, 4)
    assert (plain.value.message, plain.value.line, plain.value.code) == \
           (exact.value.message, exact.value.line, exact.value.code)


def test_a_string_that_may_hold_a_quote_is_read_by_the_exact_reader() -> None:
    """A quote inside a string would make the quote count prove nothing: the hook reads it."""
    for text in ('{"a": "say \\"hi\\"", "b": 1}', '{"a": "\\u0022", "b": 1}'):
        value = loads_plain(text, 2)
        assert isinstance(value, LineDict) and value.line == 2
        assert value == json.loads(text)


@pytest.mark.parametrize("text", [' {"a": 1} ', '\t{"a": [1, 2.5]}\r\n', '{"a": 1} x', '{"a": 1}{"b": 2}', "",
                                  "   ", "[1, 2]", '"s"', "3", '{"a": NaN}', '{"a": 1e999}', '{"a": -Infinity}',
                                  '{"a": 1', '{"a": "x}', "nul", '{"a": 1,}', "\u00a0{}", '{"a": 1}\u00a0',
                                  '{"a": ' + "9" * 5000 + "}"])
def test_a_line_read_plain_gives_what_the_exact_reader_gives(text: str) -> None:
    """The plain read is the C scanner called at the line's first non-blank character:
    what it reads, and every line it refuses (blanks JSON does not count, more after the
    value, a constant, a line cut short), are as :func:`loads_line` has them."""
    try:
        exact: Any = loads_line(text, 5)
    except JsonInputError as err:
        with pytest.raises(JsonInputError) as plain:
            loads_plain(text, 5)
        assert (plain.value.message, plain.value.line, plain.value.code) == (err.message, err.line, err.code)
        return
    value = loads_plain(text, 5)
    assert value == exact and type(value) in (type(exact), dict)


def _typed(value: Any) -> Any:
    """The value with each scalar's type beside it: 1 and Decimal(1) are not the same read."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("text", [
    '{"a": 1.50, "b": -0, "c": -0.0, "d": 1e5, "e": 12345678901234567890123, "f": [true, false, null]}',
    '{"n": ' + "7" * 4000 + "}",  # the longest whole number read as an int
    '{"n": ' + "7" * 4001 + "}",  # one digit more: a Decimal, out of any range
    '{"pad": "' + "x" * 5000 + '", "n": 12}',  # long, its numbers short
    '{"a": "\\ud800"}', '{"a": "caf\\u00e9 \u00e9"}', '[[[[[[1]]]]]]', "[" * 3000 + "]" * 3000])
def test_a_line_read_plain_has_the_exact_reader_s_numbers_and_strings(text: str) -> None:
    """msgspec reads a line (:func:`loads_plain`): each number has the type and value
    the exact reader gives it (a fraction a Decimal of its text, a whole number an int
    up to MAX_DIGITS digits, a Decimal beyond), each string its characters (a lone
    surrogate msgspec refuses is the scanner's); too deep is the exact reader's error."""
    try:
        exact: Any = loads_line(text, 5)
    except JsonInputError as err:
        with pytest.raises(JsonInputError) as plain:
            loads_plain(text, 5)
        assert (plain.value.message, plain.value.line) == (err.message, err.line)
        return
    assert _typed(loads_plain(text, 5)) == _typed(exact)


# ----------------------------------------------------------------------------- a page's records


def _seat(player: str, bets: list[dict[str, Any]], first: str = "playerId") -> dict[str, Any]:
    seat = {first: player, "bets": bets} if first == "playerId" else {first: 1, "playerId": player, "bets": bets}
    return seat


def _page(games: list[dict[str, Any]]) -> str:
    return json.dumps({"data": [{"date": "2026-12-01", "games": games}]}, indent=2)


def _game(n: int, seats: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"id": f"g{n}", "table": {"id": "T1"}, "participants": seats, **more}


def _exact_lines(value: Any, found: dict[str, int], path: str = "") -> dict[str, int]:
    """Every object's line in the exact reader's value, by its path."""
    if isinstance(value, LineDict):
        found[path] = value.line
        for key, item in value.items():
            _exact_lines(item, found, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _exact_lines(item, found, f"{path}[{i}]")
    return found


def _fast_lines(value: Any, lines: RecordLines, line: int, found: dict[str, int], path: str = "") -> dict[str, int]:
    if isinstance(value, dict):
        found[path] = lines.line(value, line)
        for key, item in value.items():
            _fast_lines(item, lines, line, found, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _fast_lines(item, lines, line, found, f"{path}[{i}]")
    return found


GAMES = [
    _game(1, [_seat("a", [{"code": "Ante", "stake": "1.00"}]), _seat("b", [{"code": "Ante", "stake": "2.00"},
                                                                          {"code": "Call", "stake": "4.00"}])]),
    # a seat opening with another key: its start found by walking the record
    _game(2, [_seat("a", []), _seat("b", [], first="seatNo")]),
    # a backslash in the record: walked
    _game(3, [_seat("c\\d", [{"code": "Ante", "stake": "1.00"}])], note="tab\there"),
    # the seats' key also written as a value: walked
    _game(4, [_seat("a", [])], kind="participants"),
    # a nested object opening with the seats' first key
    _game(5, [_seat("a", [{"playerId": "a", "stake": "1"}]), _seat("b", [])]),
    _game(6, []),
]


@pytest.mark.parametrize("block", [1 << 20, 97, 1024])
def test_a_page_read_with_plain_dicts_has_the_exact_values_and_lines(block: int) -> None:
    text = _page(GAMES)
    exact = loads_document(text)["data"][0]["games"]
    records = list(Page(io.BytesIO(text.encode()), "data[].games[]", block, seats="participants").records())
    assert [r.value for r in records] == exact
    fast = [r for r in records if r.lines is not None]
    assert len(fast) >= 4  # most records took the plain way (others the exact reader's, with LineDicts)
    for record, game in zip(records, exact, strict=True):
        assert record.line == game.line
        if record.lines is None:
            assert _exact_lines(record.value, {}) == _exact_lines(game, {})
            continue
        assert type(record.value) is dict
        seats_known = dict(record.lines.known)  # the seats' lines, found as the record was read
        assert sorted(seats_known.values()) == [seat.line for seat in game["participants"]]
        assert _fast_lines(record.value, record.lines, record.line, {}) == _exact_lines(game, {})


def test_a_key_twice_in_a_page_record_is_refused_at_the_exact_line() -> None:
    text = _page([_game(1, [_seat("a", [])]), _game(2, [_seat("b", [{"code": "Ante", "stake": "1"}])])])
    text = text.replace('"stake": "1"', '"stake": "1",\n "code": "Call"')
    with pytest.raises(PageError) as streamed:
        list(Page(io.BytesIO(text.encode()), "data[].games[]", seats="participants").records())
    with pytest.raises(PageError) as exact:  # the page read with a line for every object
        list(Page(io.BytesIO(text.encode()), "data[].games[]").records())
    assert (streamed.value.message, streamed.value.line, streamed.value.code) == \
           (exact.value.message, exact.value.line, exact.value.code) == \
           ("invalid JSON: duplicate key 'code'; a key may appear once", 18, exact.value.code)


def _changed(tmp_path: Path, line: int, old: str, new: str) -> dict[str, Any]:
    """The sample page with one value changed on ``line``, checked (the JSON report)."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    page = tmp_path / "page.json"
    page.write_text("".join(lines), encoding="utf-8")
    return check_json("--profile", "vivo", "--mapping", "evolution-history", str(page))[1]


def test_a_finding_on_a_bet_of_a_page_is_at_the_bet_s_own_line(tmp_path: Path) -> None:
    """A misfit (H008) and an audit finding (a payout) on a bet of a record read with plain
    dicts name the bet's own line (found when asked) and its export path."""
    lines = [line.strip() for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    bets = lines.index('"bets": [') + 1  # the first seat's bets: each opens on its own line
    first, second = bets + 1, lines.index("{", bets + 1) + 1
    assert lines[first - 1] == lines[second - 1] == "{" and lines[first + 1] == '"stake": "5.00",'
    assert lines[second + 2] == '"payout": "0.00",' and second - first > 2
    report = _changed(tmp_path, first + 2, '"5.00"', '"5.x0"')  # an unreadable stake
    assert [(f["line"], f["export_field"]) for s in report["sessions"] for f in s["findings"] if f["code"] == "H008"] \
        == [(first, "data[0].games[0].participants[0].bets[0].stake")]
    report = _changed(tmp_path, second + 3, '"0.00"', '"25.00"')  # the second bet paid back a lost Call
    findings = [(f["line"], f["export_field"]) for s in report["sessions"] for g in s["games"]
                for seat in g["seats"] for f in seat["findings"]]
    assert (second, "data[0].games[0].participants[0].bets[1].payout") in findings


# ----------------------------------------------------------------------------- the game the lane takes


def _imported(amount: Any, player: str = "p1") -> PlainExportRecord:
    seat = ExportDict(player_id=player, decision="call", ante=amount, call=2 * amount)
    seat["recorded"] = ExportDict(returned=0)
    game = ExportDict(game="g1", player=["Ah", "Kd"], flop=["2c", "3c", "4c"], turn="5d", river="9s",
                      dealer=["Qh", "Qs"], seats=[seat])
    record = game_record("export.json", 3, game, "data[0].games[0]")
    assert isinstance(record, PlainExportRecord)
    return record


def test_an_imported_game_with_whole_amounts_is_proven_on_the_whole_number_struct() -> None:
    assert _imported(5).decimals is False
    assert _imported(Decimal("2.50")).decimals is True
    assert _imported(5).escaped is False
    assert _imported(5, 'p"1').escaped is True and _imported(5, "p\\1").escaped is True


def test_a_seat_s_amount_is_read_as_an_int_where_it_is_whole() -> None:
    """A game's seats (whole=True); a wallet's transactions and opening balances keep the
    amount as written, which their findings quote (``"expected": 994.00``)."""
    money = MoneyReader(Money(), whole=True)
    assert [type(money.amount(v)).__name__ for v in ("5.00", 5, Decimal("5.0"), "2.50", "-0.00")] == \
           ["int", "int", "int", "Decimal", "Decimal"]
    assert money.amount("5.00") == 5 and money.amount("2.50") == Decimal("2.50")
    exact = MoneyReader(Money())
    assert repr(exact.amount("994.00")) == "Decimal('994.00')"


def test_a_mapping_of_plain_paths_does_not_import_jmespath() -> None:
    code = ("import sys\nfrom referee.load.exports import load_mapping\n"
            "load_mapping('evolution-history'); load_mapping('datafeed-csv')\n"
            "print(sorted(m for m in sys.modules if m.startswith('jmespath')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"
