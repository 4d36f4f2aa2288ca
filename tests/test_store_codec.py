"""The store's fast writers give the very text of the general ones (issue 30: speed).

Why: a stored row's digest is over its text, and ``store verify`` and every reader take
the text as the codec wrote it; a faster writer that wrote one byte otherwise would
make a store that differs from what an older referee wrote for the same file."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.load.table import _DECIMAL, _WHOLE, WHOLE_SEATS
from referee.rules.cards import Card
from referee.rules.settlement import Cards
from referee.store import codec
from referee.store.rows import cards_text

SEAT = (b'{"player_id":"p-1","ante":1,"decision":"call","recorded":{"outcome":"push","dealer_qualified":true,'
        b'"net":0,"balance":1004},"wallet":[{"id":"t-1","kind":"debit","amount":1}]}')


def _general(struct: Any) -> str:
    return codec.dumps(msgspec.to_builtins(struct, builtin_types=(Decimal,)))


def test_every_code_point_is_escaped_as_json_dumps_does() -> None:
    """msgspec's encoder writes text as ``json.dumps(ensure_ascii=False)``: every code
    point but the surrogates (which msgspec's decoder never gives)."""
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert msgspec.json.encode(text).decode() == json.dumps(text, ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(0, 10**12), st.sampled_from(["call", "fold"]))
def test_a_whole_seat_is_written_as_the_codec_writes_it(name: str, ante: int, decision: str) -> None:
    read = msgspec.json.decode(SEAT, type=_WHOLE[0])
    struct = msgspec.structs.replace(read, player_id=name, ante=ante, decision=decision)
    assert type(struct) in WHOLE_SEATS
    assert codec.struct_text(struct, True) == _general(struct)


@settings(max_examples=200, deadline=None)
@given(st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-10**6, max_value=10**6))
def test_a_seat_with_decimals_is_tagged_as_the_codec_tags_them(net: Decimal) -> None:
    struct = msgspec.json.decode(SEAT.replace(b'"net":0', f'"net":{net}'.encode()), type=_DECIMAL[0])
    assert codec.struct_text(struct, False) == _general(struct)


def test_a_lone_surrogate_falls_back_to_the_general_writer() -> None:
    struct = msgspec.json.decode(SEAT, type=_WHOLE[0])
    odd = msgspec.structs.replace(struct, player_id="a\ud800b")
    assert codec.struct_text(odd, True) == _general(odd)


def _spelt(cards: Cards) -> str:
    """The general writer the hand-written one replaced."""
    def ints(group: Any) -> list[int | None]:
        return [None if c is None else int(c) for c in group]

    return json.dumps([ints(cards.player), ints(cards.flop), None if cards.turn is None else int(cards.turn),
                       None if cards.river is None else int(cards.river), ints(cards.dealer)], separators=(",", ":"))


_CARD = st.one_of(st.none(), st.integers(0, 51).map(Card))


@given(st.lists(_CARD, max_size=3), st.lists(_CARD, max_size=3), _CARD, _CARD, st.lists(_CARD, max_size=2))
def test_cards_text_is_the_json_of_the_cards(player: list[Any], flop: list[Any], turn: Any, river: Any,
                                             dealer: list[Any]) -> None:
    cards = Cards(tuple(player), tuple(flop), turn, river, tuple(dealer))
    assert cards_text(cards) == _spelt(cards)
