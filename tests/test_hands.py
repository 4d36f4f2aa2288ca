"""Hand evaluation and the order of rule §04 (issue 2, item 2)."""

import hashlib
from collections import Counter
from itertools import combinations

import pytest

from referee import CATEGORIES, HandError, HandValue, evaluate
from referee.rules.cards import DECK, parse_cards


def ev(text: str) -> HandValue:
    return evaluate(text.split())


def test_worked_example_hands() -> None:
    player = ev("Ah Kd As 7d 4c 9h 2s")
    dealer = ev("Qs Qc As 7d 4c 9h 2s")
    assert player.category == "pair" and player.description == "pair of aces, kickers K 9 7"
    assert [str(c) for c in player.best_five_of("Ah Kd As 7d 4c 9h 2s".split())] == ["Ah", "As", "Kd", "9h", "7d"]  # noqa: SIM905
    assert dealer.description == "pair of queens, kickers A 9 7"
    assert player > dealer


def test_board_plays_for_both_is_a_tie() -> None:
    board = "Ts Js Qd Kc Ah"
    assert ev(f"2c 3d {board}") == ev(f"4h 5h {board}")


def test_wheel_is_the_lowest_straight() -> None:
    wheel = ev("Ah 2d 3s 4c 5h 9d Kc")
    six = ev("2d 3s 4c 5h 6d Kc Jh")
    assert wheel.category == six.category == "straight"
    assert wheel < six
    assert [str(c) for c in wheel.best_five_of("Ah 2d 3s 4c 5h 9d Kc".split())] == ["5h", "4c", "3s", "2d", "Ah"]  # noqa: SIM905
    assert wheel > ev("Ah Kd Qs Js 9c 2d 3h")  # any straight beats trips or less


def test_no_wraparound() -> None:
    assert ev("Qh Kd Ac 2s 3h 8c 9d").category == "high_card"


def test_pair_of_threes_and_fours_and_two_pair_for_qualification() -> None:
    from referee import load_profile

    vivo = load_profile("vivo")
    assert not vivo.dealer_qualifies(ev("3h 3d Ac Ks 9h 7c 2d").value)
    assert vivo.dealer_qualifies(ev("4h 4d 2c 6s 9h 7c Jd").value)
    assert vivo.dealer_qualifies(ev("2h 2d 3c 3s 9h 7c Jd").value)  # any two pair
    assert vivo.dealer_qualifies(ev("2h 7d 9c 9s Kh Jc 3d").value)  # a board pair counts
    assert not vivo.dealer_qualifies(ev("Ah Kd 9c 7s 5h 3c 2d").value)


def test_kicker_from_a_third_pair() -> None:
    hand = ev("Kh Kd 9c 9s 5h 5c 2d")
    assert hand.category == "two_pair" and hand.description == "two pair, kings and nines, kicker 5"
    assert hand > ev("Kh Kd 9c 9s 4h 4c 2d")


def test_full_house_from_two_triples() -> None:
    hand = ev("7c 7d 7h 4s 4c 4d 2s")
    assert hand.category == "full_house" and hand.description == "full house, sevens full of fours"
    assert hand == ev("7c 7d 7h 4s 4c Kd 2s")


def test_six_card_flush_plays_the_top_five() -> None:
    hand = ev("Ah 9h 7h 5h 3h 2h Kd")
    assert hand.category == "flush"
    assert [str(c) for c in hand.best_five_of("Ah 9h 7h 5h 3h 2h Kd".split())] == ["Ah", "9h", "7h", "5h", "3h"]  # noqa: SIM905
    assert hand == ev("Ah 9h 7h 5h 3h 4c Kd")  # the sixth flush card never counts


def test_straight_flush_over_a_higher_straight() -> None:
    hand = ev("5s 6s 7s 8s 9s Ts Jd")
    assert hand.category == "straight_flush" and hand.description == "straight flush, ten high"
    assert ev("5s 6s 7s 8s 9s Jd 2c").category == "straight_flush"


def test_royal_flush() -> None:
    assert ev("Ah Kh Qh Jh Th 2c 3d").category == "royal_flush"
    assert ev("Ah Kh Qh Jh Th 9h 3d").category == "royal_flush"


def test_suits_never_rank() -> None:
    assert ev("Ah Kh Qh Jh 9d 2c 3d") == ev("As Ks Qs Js 9c 2d 3h")


def test_sixth_and_seventh_cards_never_count() -> None:
    assert ev("Ah Ad Kc Qs Jh 3c 2d") == ev("Ah Ad Kc Qs Jh 4c 3d")


def test_four_of_a_kind_kicker() -> None:
    assert ev("9h 9d 9c 9s Ah 2c 3d") > ev("9h 9d 9c 9s Kh Qc Jd")


def test_five_and_six_cards() -> None:
    assert ev("Ah Kh Qh Jh Th").category == "royal_flush"
    assert ev("2h 2d 5c 7s 9h Jc").category == "pair"


def test_errors() -> None:
    with pytest.raises(HandError, match="twice"):
        ev("Ah Ah Kc Qs Jh 3c 2d")
    with pytest.raises(HandError, match="5, 6 or 7"):
        ev("Ah Kd")
    from referee import CardError

    with pytest.raises(CardError):
        ev("Ah Xx Kc Qs Jh 3c 2d")


def test_all_five_card_hands_give_the_published_counts() -> None:
    """All 2,598,960 five-card hands (RULES.md reference figures)."""
    from referee.rules.evaluator import KEYS, category_of, tables, value_of_key

    t = tables()
    keys = KEYS
    counts: Counter[int] = Counter()
    for combo in combinations(range(52), 5):
        a, b, c, d, e = combo
        counts[category_of(value_of_key(keys[a] + keys[b] + keys[c] + keys[d] + keys[e], 5, t))] += 1
    expected = {
        "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3744, "flush": 5108,
        "straight": 10200, "three_of_a_kind": 54912, "two_pair": 123552, "pair": 1098240, "high_card": 1302540,
    }
    assert {CATEGORIES[k]: v for k, v in counts.items()} == expected


def test_distinct_five_card_values() -> None:
    """7,462 distinct hand values among five-card hands: the order has no gaps or merges."""
    from referee.rules.evaluator import tables

    values = set()
    for table in tables().ranks[5].values():
        values.add(table)
    values.update(v for k, v in tables().suited.items() if bin(k).count("1") == 5)
    assert len(values) == 7462


def test_parse_cards_rejects_unseen() -> None:
    from referee import CardError

    with pytest.raises(CardError):
        parse_cards(["Ah", "??"])
    assert len(parse_cards(str(c) for c in DECK)) == 52


def test_bulk_path_agrees_with_evaluate() -> None:
    """``rank7`` (small keys, flush found from the suit nibbles) against ``evaluate``,
    on random hands and on hands forced to hold five or more of one suit."""
    import random

    from referee.rules.evaluator import rank7

    rng = random.Random(3)
    hands = [rng.sample(range(52), 7) for _ in range(20_000)]
    for _ in range(5_000):
        suit = rng.randrange(4)
        suited = rng.sample([r * 4 + suit for r in range(13)], rng.choice((5, 6, 7)))
        others = rng.sample([c for c in range(52) if c not in suited], 7 - len(suited))
        hands.append(suited + others)
    for hand in hands:
        assert rank7(*hand) == evaluate([DECK[c] for c in hand]).value


def test_one_shared_immutable_value_per_hand_value() -> None:
    from referee import HandValue

    first, second = ev("Ah Kd As 7d 4c 9h 2s"), ev("Ac Kh Ad 7s 4h 9c 2d")
    assert first is second and first is HandValue.of(first.value)
    assert first.ranks == (12, 11, 7, 5) and first.category == "pair"
    with pytest.raises(AttributeError):
        first.value = 0
    assert first.description is first.description  # computed once
    import pickle

    assert pickle.loads(pickle.dumps(first)) is first


def test_evaluate_deal_agrees_with_evaluate() -> None:
    import random

    from referee import evaluate_deal

    rng = random.Random(18)
    for _ in range(20_000):
        cards = rng.sample(DECK, 9)
        if rng.random() < 0.3:  # force flushes on the board
            suit = rng.randrange(4)
            cards = rng.sample([c for c in DECK if c.suit == suit], 5) + cards
            cards = list(dict.fromkeys(cards))[:9]
        player, dealer, board = cards[:2], cards[2:4], cards[4:]
        spelled = [str(c) for c in player]
        mine, theirs = evaluate_deal(spelled, dealer, board)
        assert mine is evaluate([*player, *board]) and theirs is evaluate([*dealer, *board])
    with pytest.raises(HandError, match="twice"):
        evaluate_deal(["Ah", "Kd"], ["ah", "2c"], ["3c", "4d", "5h", "9s", "Jc"])  # Ah in two hands
    with pytest.raises(HandError, match="twice"):
        evaluate_deal(["Ah", "Kd"], ["Qs", "2c"], ["3c", "4d", "5h", "9s", "Kd"])
    with pytest.raises(HandError, match="2 \\+ 2"):
        evaluate_deal(["Ah"], ["Qs", "2c"], ["3c", "4d", "5h", "9s", "Kd"])
    assert evaluate_deal(["A♥", "10h"], ["Qs", "2c"], ["3c", "4d", "5h", "9s", "Kd"])[0] is ev("Ah Th 3c 4d 5h 9s Kd")


def test_batch_agrees_with_evaluate_for_every_size() -> None:
    import random

    import numpy as np

    from referee import evaluate_batch

    rng = random.Random(40)
    for size in (5, 6, 7):
        rows = [rng.sample(range(52), size) for _ in range(20_000)]
        for _ in range(5_000):
            suit = rng.randrange(4)
            suited = rng.sample([r * 4 + suit for r in range(13)], rng.randrange(5, size + 1))
            others = rng.sample([c for c in range(52) if c not in suited], size - len(suited))
            rows.append(suited + others)
        values = evaluate_batch(np.array(rows, dtype=np.int8))
        assert values.tolist() == [evaluate(r).value for r in rows]
    with pytest.raises(HandError, match="twice"):
        evaluate_batch(np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 5]]))
    with pytest.raises(HandError, match="outside"):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(HandError, match="rows of 5, 6 or 7"):
        evaluate_batch(np.array([[0, 1, 2, 3]]))


def test_all_five_card_hands_in_one_batch() -> None:
    """All 2,598,960 five-card hands through the NumPy form: RULES.md's counts."""
    import numpy as np

    from referee import evaluate_batch

    hands = np.array(list(combinations(range(52), 5)), dtype=np.int8)
    counts = np.bincount(evaluate_batch(hands, check=False) >> 20, minlength=10).tolist()
    assert counts == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]


def test_shipped_tables_are_the_built_ones() -> None:
    """The evaluator tables shipped as package data (the rank tables and the flush
    table) equal a fresh build, and a damaged file is refused (the tables are then built)."""
    from referee.rules import evaluator

    data = evaluator._shipped_bytes()
    assert data is not None
    shipped = evaluator.read_tables(data)
    assert shipped is not None
    built = evaluator.Tables()
    assert shipped.ranks == built.ranks and shipped.flushes == built.flushes and len(built.flushes) == 4719
    read = evaluator.Tables(shipped)
    assert read.ranks is shipped.ranks and read.flushes == built.flushes and read.flush_suit == built.flush_suit
    assert evaluator.dump_tables(read) == data
    damaged = data[:-40] + bytes(40)
    assert evaluator.read_tables(damaged) is None
    assert evaluator.read_tables(b"not the tables") is None
    assert evaluator.read_tables(data.replace(b"tables-5", b"tables-4")) is None  # an older file: built instead
    for cut in (10, 1000, 400_000, len(data) - len(evaluator._MAGIC) - 40):  # a whole digest, a short payload
        payload = data[len(evaluator._MAGIC) + 32:][:cut]
        assert evaluator.read_tables(evaluator._MAGIC + hashlib.sha256(payload).digest() + payload) is None


def test_the_suited_table_is_every_suit_of_the_flush_table() -> None:
    """``Tables.suited`` (by the cards' own bits, made on first use) holds each flush
    table entry once a suit, and agrees with a direct evaluation of its cards."""
    from itertools import combinations

    from referee.rules.evaluator import SUIT_MASKS, Tables, best_value_of_suited, tables

    t = tables()
    assert len(t.suited) == 4 * 4719 and t.suited is t.suited
    for suit, mask in enumerate(SUIT_MASKS):
        for ranks in combinations(range(13), 6):
            cards = sum(1 << (4 * r + suit) for r in ranks)
            assert cards & mask == cards and t.suited[cards] == best_value_of_suited(list(ranks))
            assert t.flushes[cards >> suit] == t.suited[cards]
    assert Tables().suited == t.suited


def test_shipped_rank_tables_read_as_a_mapping() -> None:
    """The shipped tables are made per size on first use, yet read as a whole mapping:
    membership, ``get``, and equality both ways, before any size was made."""
    from referee.rules import evaluator

    first, second = evaluator.read_tables(evaluator._shipped_bytes()), evaluator.read_tables(evaluator._shipped_bytes())
    assert first is not None and second is not None
    a, b = first.ranks, second.ranks
    assert 7 in a and 9 not in a and a.get(9) is None and a.get(5) == evaluator.Tables().ranks[5]
    fresh = evaluator.read_tables(evaluator._shipped_bytes())
    assert fresh is not None
    assert a == b and b == a and (a != b) is False and fresh.ranks == evaluator.Tables().ranks


def test_ranks_of_reads_back_what_pack_packed() -> None:
    """Every value of the tables: its ranks, packed again with its category, give the value."""
    from referee.rules.evaluator import category_of, pack, ranks_of, tables

    t = tables()
    values = set(t.ranks[7].values()) | set(t.ranks[5].values()) | set(t.suited.values())
    assert len(values) > 7000
    for value in values:
        assert pack(category_of(value), ranks_of(value)) == value


def test_evaluate_indexes_is_evaluate_on_card_indexes() -> None:
    """``evaluate_indexes`` (the monitor's reading: a stored game's cards are bytes) gives
    ``evaluate``'s value for 5, 6 and 7 cards, and refuses what ``evaluate`` refuses."""
    import random

    from referee.rules.hands import evaluate_indexes

    rng = random.Random(47)
    for n in (5, 6, 7):
        for _ in range(2_000):
            cards = rng.sample(range(52), n)
            assert evaluate_indexes(cards) == evaluate(cards)
            assert evaluate_indexes(bytes(cards)).value == evaluate(cards).value
    with pytest.raises(HandError, match="a card is given twice in 2c 2c 2d 2h 2s"):
        evaluate_indexes([0, 0, 1, 2, 3])  # a card given twice (a HandError: the monitor says a stored hand is none)
    with pytest.raises(HandError):
        evaluate_indexes([0, 1, 2, 3])  # too few
    with pytest.raises(HandError):
        evaluate_indexes([-1, 1, 2, 3, 4])  # not a card (an index from the end otherwise)
    with pytest.raises(IndexError):
        evaluate_indexes([52, 1, 2, 3, 4])  # past the deck: a damaged store's byte


def test_a_deal_given_as_indexes_that_repeats_a_card_is_a_hand_error_naming_the_cards() -> None:
    """A store packs cards as indexes 0 to 51: a damaged run that repeats one must be
    read as a hand that repeats a card (the readers' damage message), not fail while
    the message names the card (a CardError: 'an int is not a card')."""
    from referee.rules.hands import evaluate_deal

    with pytest.raises(HandError, match="a card is given twice in 2c 2c 2h 2s 3c 3d 3h 3s 4c"):
        evaluate_deal([0, 0], [2, 3], [4, 5, 6, 7, 8])
