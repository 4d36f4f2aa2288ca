"""The readers a mapping is compiled into (issue 45's speed) read exactly what the
general ones read: a path of a key, an index and a key as JMESPath reads it, an ISO
8601 time in one step as :meth:`TimeReader.time` reads it (or refuses it, in its words)."""

from __future__ import annotations

from typing import Any

import jmespath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.load.exports.normalize import Misfit, TimeReader
from referee.load.exports.search import PickedPath, ThreeKeysPath, compile_expression
from referee.models.mapping import Times

_KEY = st.sampled_from(["a", "b"])
_DOC = st.recursive(st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=2)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEY, inner, max_size=3)),
                    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_DOC, _KEY, st.integers(-3, 3), _KEY)
def test_a_key_an_index_and_a_key_read_exactly_as_jmespath(doc: Any, first: str, index: int, second: str) -> None:
    text = f"{first}[{index}].{second}"
    getter = compile_expression(text)
    assert isinstance(getter, PickedPath)
    assert getter(doc) == jmespath.search(text, doc)
    assert getter.path("data[0]") == f"data[0].{text}"


@pytest.mark.parametrize("value", ["2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000+01:00", " 2026-12-01T10:00:00Z ",
                                   "2026-12-01T10:00:00", "yesterday", "", 1764583200, None, ["2026-12-01"]])
def test_an_iso_time_read_in_one_step_is_what_the_time_reader_reads(value: Any) -> None:
    reader = TimeReader(Times())
    assert reader.reader() == reader.iso
    try:
        expected: Any = reader.time(value)
    except Misfit as misfit:
        with pytest.raises(Misfit) as raised:
            reader.iso(value)
        assert str(raised.value) == str(misfit)
        return
    assert reader.iso(value) == expected and reader.iso(value).tzinfo == expected.tzinfo


def test_other_times_are_read_by_the_time_reader_itself() -> None:
    reader = TimeReader(Times(kind="epoch-ms"))
    assert reader.reader() == reader.time


@settings(max_examples=300, deadline=None)
@given(_DOC, _KEY, _KEY, _KEY)
def test_three_keys_read_exactly_as_jmespath(doc: Any, first: str, second: str, third: str) -> None:
    text = f"{first}.{second}.{third}"
    getter = compile_expression(text)
    assert isinstance(getter, ThreeKeysPath)
    assert getter(doc) == jmespath.search(text, doc)
