"""A JSON page streamed a record at a time (issue 29: a 1 GB export in bounded memory).

The reference is the exact reader (:func:`referee.load.jsonio.loads_document`) over the
whole text, walked along the records path: the streamed page must give the same
records, with the same object lines, and refuse what it refuses at the same line,
whatever the block size (so every value is somewhere cut by a block's end).
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.load import reading
from referee.load.exports.pages import Page, PageError, _Text
from referee.load.jsonio import JsonInputError, loads_document

from .conftest import ROOT, Write, check_json, run


def _records(text: str | bytes, where: str = "data[].games[]", block: int = 1 << 20) -> list[tuple[str, int, Any]]:
    raw = text.encode() if isinstance(text, str) else text
    return [(r.pointer, r.line, r.value) for r in Page(io.BytesIO(raw), where, block).records()]


def _walk(node: Any, steps: list[str], pointer: str = "") -> list[tuple[str, Any]]:
    """The plain records path read over a whole document: the reference."""
    if not steps:
        return [(pointer, node)]
    key, each = steps[0].removesuffix("[]"), steps[0].endswith("[]")
    if key:
        if not isinstance(node, dict) or key not in node:
            return []
        node, pointer = node[key], f"{pointer}.{key}" if pointer else key
    if not each:
        return _walk(node, steps[1:], pointer)
    if not isinstance(node, list):
        return []
    return [found for i, item in enumerate(node) for found in _walk(item, steps[1:], f"{pointer}[{i}]")]


def _lines(value: Any) -> Any:
    """A value with every object's line beside it, to compare lines as well as values."""
    if isinstance(value, dict):
        return ("line", value.line, {k: _lines(v) for k, v in value.items()})  # type: ignore[attr-defined]
    if isinstance(value, list):
        return [_lines(v) for v in value]
    return (type(value).__name__, value)


def _same_as_exact(text: str, where: str = "data[].games[]", block: int = 1 << 20) -> None:
    exact = _walk(loads_document(text), where.split("."))
    streamed = _records(text, where, block)
    assert [(p, _lines(v)) for p, _, v in streamed] == [(p, _lines(v)) for p, v in exact]


def test_records_are_found_with_their_pointers() -> None:
    doc = {"data": [{"games": [1, 2]}, {"games": []}, {"games": [3]}]}
    found = _records(json.dumps(doc))
    assert [(p, v) for p, _, v in found] == [("data[0].games[0]", 1), ("data[0].games[1]", 2),
                                             ("data[2].games[0]", 3)]
    assert [(p, v) for p, _, v in _records("[5, 6]", "@")] == [("[0]", 5), ("[1]", 6)]
    assert [(p, v) for p, _, v in _records('{"a": 1}', "@")] == [("", {"a": 1})]


_STRINGS = st.text(alphabet=st.sampled_from('ab{}[]",:\\ \u00e9\u2028\n'), max_size=6)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _STRINGS,
                     st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-10**4, max_value=10**4))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(_STRINGS, inner, max_size=3)), max_leaves=12)
_GAMES = st.lists(st.dictionaries(_STRINGS, _VALUES, max_size=4), max_size=4)
_DAYS = st.lists(st.fixed_dictionaries({"date": _STRINGS, "games": _GAMES}, optional={"more": _VALUES}), max_size=3)


@settings(max_examples=120, deadline=None)
@given(_DAYS, st.sampled_from([None, 0, 1, 4]), st.booleans(), st.integers(1, 40))
def test_a_streamed_page_gives_the_exact_readers_records_and_lines(days: list[dict[str, Any]], indent: int | None,
                                                                   sort: bool, block: int) -> None:
    text = json.dumps({"paging": {"next": None}, "data": days}, indent=indent, sort_keys=sort, default=str,
                      ensure_ascii=False)
    _same_as_exact(text, block=block)


@pytest.mark.parametrize("block", [1, 3, 7, 64, 1 << 20])
def test_the_shipped_page_streams_as_the_exact_reader_reads_it(block: int) -> None:
    text = (ROOT / "samples/exports/evolution-history.json").read_text(encoding="utf-8")
    _same_as_exact(text, block=block)


@pytest.mark.parametrize(("text", "said", "code"), [
    ('{"data": [{"games": [{"a": 1,\n "a": 2}]}]}', "duplicate key 'a'", "H003"),
    ('{"data": [],\n "data": []}', "duplicate key 'data'", "H003"),  # at the key's line (the exact reader: 1)
    ('{"data": [{"games": [{"a": [1,\n 2,,]}]}]}', "Expecting value", "H000"),
    ('{"data": [{"games": [{"a": NaN}]}]}', "NaN", "H000"),
    ('{"data": [{"games":\n [{"a": 1}]}]}\n{"x": 1}', "nothing after the document", "H000"),
    ('{"data": [{"games": [{"a": 1}\n', "expected", "H000"),
    ('{"data": [{"games": [{"a": "cut', "Unterminated string", "H000"),
    ('{"data"\n 1}', "':' after the key", "H000"),
    ('{"date": tru, "data": []}', "Expecting value", "H000"),
    ("  ", "expected a JSON document", "H000"),
])
@pytest.mark.parametrize("block", [2, 1 << 20])
def test_a_bad_page_is_refused_at_its_line(text: str, said: str, code: str, block: int) -> None:
    with pytest.raises(PageError) as err:
        _records(text, block=block)
    assert said in err.value.message and str(err.value.code) == code
    if said == "duplicate key 'data'":
        assert err.value.line == 2
        return
    try:
        loads_document(text)
    except JsonInputError as exact:
        assert err.value.line == exact.line  # the line the exact reader names, whatever the wording
    else:  # pragma: no cover (every text above is bad JSON)
        pytest.fail("the exact reader took it")


def test_a_page_that_is_not_utf8_is_refused_at_its_line() -> None:
    raw = b'{"data": [{"games": [\n{"a": "\xff"}]}]}'
    with pytest.raises(PageError) as err:
        _records(raw, block=4)
    assert err.value.line == 2 and "not UTF-8" in err.value.message


def test_a_page_is_held_a_record_and_a_block_at_a_time() -> None:
    """Bounded memory: the text held never exceeds a few blocks and the largest record,
    however many records the page has."""
    game = {"id": "g", "bets": [{"code": "CHE_Ante", "stake": "1.00"}] * 5, "cards": ["AH", "KD"]}
    text = json.dumps({"data": [{"date": "d", "games": [dict(game, id=f"g{i}") for i in range(3000)]}]})
    page = Page(io.BytesIO(text.encode()), "data[].games[]", block=4096)
    held = 0
    count = 0
    for _ in page.records():
        held = max(held, len(page._text.text))
        count += 1
    assert count == 3000 and len(text) > 100 * 4096 and held < 3 * 4096


def test_a_page_above_the_hand_history_cap_is_read(write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand history in JSON is read whole, so one above the cap is refused; an export's
    page is streamed, so it is not (the cap made small here to show it)."""
    monkeypatch.setattr(reading, "MAX_DOCUMENT_BYTES", 1000)
    code, report = check_json("--profile", "vivo",
                              "--mapping", "evolution-history", str(ROOT / "samples/exports/evolution-history.json"))
    assert code in (0, 1) and not report["problems"] and report["summary"]["games"]["games"] > 0  # findings: 1
    big = write("big.json", json.dumps({"session": {"id": "s", "profile": "vivo"}, "rounds": [{"round": 1}] * 100}))
    code, said = run("check", big)
    assert code == 2 and "not read at once" in said


def test_amounts_in_a_streamed_page_stay_exact() -> None:
    ((_, _, value),) = _records('{"data": [{"games": [{"stake": 0.30000000000000004, "n": 10}]}]}')
    assert value == {"stake": Decimal("0.30000000000000004"), "n": 10}


def test_a_record_s_seat_lines_counted_in_one_loop_are_line_at_s() -> None:
    """``_Text.lines_at`` (a page record's seats) gives what ``line_at`` gives of each
    position, from wherever the last count stopped, a position before it included."""
    source = "a\nb\n\nccc\nd\n" * 40
    positions = [3, 4, 9, 9, 30, 2, 100, 101, 250]

    def one_by_one() -> list[int]:
        text = _Text(io.BytesIO(source.encode()), 1 << 20)
        text.more()
        text.line_at(5)
        return [text.line_at(pos) for pos in positions]

    text = _Text(io.BytesIO(source.encode()), 1 << 20)
    text.more()
    text.line_at(5)
    assert text.lines_at(positions) == one_by_one() == [source.count("\n", 0, pos) + 1 for pos in positions]
    assert text.line_at(260) == source.count("\n", 0, 260) + 1  # the count goes on from where it stopped
