"""Card notation (issue 2, item 1)."""

import pytest

from referee import Card, CardError, parse_card
from referee.rules.cards import DECK


@pytest.mark.parametrize("token", ["Ah", "AH", "ah", "A♥", "A♡", "Ah\ufe0f", " Ah "])
def test_ace_of_hearts_spellings(token: str) -> None:
    card = parse_card(token)
    assert card is not None and str(card) == "Ah" and card.symbol == "A♥"


@pytest.mark.parametrize(("token", "canonical"), [
    ("Th", "Th"), ("10h", "Th"), ("10♥", "Th"), ("Vh", "Jh"), ("D♠", "Qs"), ("R♦", "Kd"),
    ("r♢", "Kd"), ("2♧", "2c"), ("9♤", "9s"), ("jc", "Jc"),
])
def test_notations(token: str, canonical: str) -> None:
    assert str(parse_card(token)) == canonical


@pytest.mark.parametrize(("token", "fragment"), [
    ("1c", "'1' is not a rank"), ("Jk", "'k' is not a suit"), ("A", "has no suit"), ("Ax", "'x' is not a suit"),
    ("11h", "'11' is not a rank"), ("", "empty"), ("♥", "has no rank"),
])
def test_bad_tokens_name_the_token_and_the_problem(token: str, fragment: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value) and fragment in str(info.value)


def test_unseen() -> None:
    assert parse_card("??") is None and parse_card(None) is None


def test_non_text_token() -> None:
    with pytest.raises(CardError, match="written as text"):
        parse_card(14)


def test_deck_is_52_distinct_cards() -> None:
    assert len({str(c) for c in DECK}) == 52
    assert all(isinstance(c, Card) and parse_card(str(c)) is c for c in DECK)
