"""The monitor's sums column by column (``referee.monitor.columns`` and ``deal_columns``,
issue 47's fast first run) against the seat-by-seat sums (``tests/monitor_reference.py``:
each game's seats summed one by one, kind by kind, each deal's counts, then added to
their bands): the same cells and deal counts, sum for sum,
on seats of every shape, on timed seats that cross every window's edge, and on a store
of simulated live tables; and the exact wide arithmetic the sums are made with."""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.monitor import cells, reading, wide
from referee.monitor.cells import Banded, Sums, count_band, last_time, time_band
from referee.monitor.columns import banded
from referee.monitor.deal_columns import banded as deal_banded
from referee.monitor.facts import Seat
from referee.monitor.randomness import DealBanded, DealSums
from referee.monitor.valuing import Valuation, value
from referee.profiles import kept_profiles
from referee.store.read import Stored

from . import monitor_reference
from .conftest import run
from .store_support import simulate
from .test_monitor_cache import _seats as timed_seats
from .test_monitor_games import _seats as seats_of_every_shape


def seat_by_seat(seats: list[Seat], v: Valuation) -> Banded:
    """The bands as first written: each game's sums made seat by seat, added band by band."""
    out: Banded = defaultdict(lambda: defaultdict(Sums))
    for (kind, segment), played in monitor_reference.games(seats, v).items():
        last = last_time(p.time_us for p in played)
        for rank, p in enumerate(played):
            band = (count_band(rank), time_band(p.time_us, last))
            for bet, sums in p.bets.items():
                out[(kind, segment, bet)][band].add(sums)
    return out


def _flat(found: Banded) -> dict[tuple[str, str, str], dict[tuple[int, int], str]]:
    """Every band's sums, exactly (repr: the whole numbers and the floats' every digit)."""
    return {key: {band: repr(s) for band, s in bands.items()} for key, bands in found.items()}


def deal_by_deal(seats: list[Seat]) -> DealBanded:
    """The deals' bands as first written: each deal's counts added to its band."""
    out: DealBanded = defaultdict(lambda: defaultdict(DealSums))
    for key, found in monitor_reference.deals(seats).items():
        last = last_time(t for t, _ in found)
        for rank, (time_us, d) in enumerate(found):
            out[key][(count_band(rank), time_band(time_us, last))].add(d)
    return out


def _same(seats: list[Seat]) -> Valuation:
    v = value(seats)
    assert _flat(banded(seats, v)) == _flat(seat_by_seat(seats, v))
    assert _deals(deal_banded(seats)) == _deals(deal_by_deal(seats))
    return v


def _deals(found: DealBanded) -> dict[tuple[str, str], dict[tuple[int, int], list[int]]]:
    return {key: {band: d.numbers() for band, d in bands.items()} for key, bands in found.items()}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 160), shuffle=st.booleans())
def test_columns_sum_seats_of_every_shape_as_seat_by_seat(seed: int, n: int, shuffle: bool) -> None:
    """Games of many seats split across players and stake bands, seats dealt their own
    cards (the cross terms), seats without a segment or a valuation, games whose seats are
    not together, what was paid said or not."""
    _same(seats_of_every_shape(seed, n, shuffle))


def test_columns_cross_every_window_edge_as_seat_by_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count windows made small (10, 50, 200 games) over 900 games across 60 days (a tenth
    without a time): games in every count band and every time band of every segment."""
    monkeypatch.setattr(cells, "COUNT_WINDOWS", (10, 50, 200))
    seats = timed_seats(900, seed=5)
    v = _same(seats)
    bands = {band for bs in banded(seats, v).values() for band in bs}
    assert {c for c, _ in bands} == {t for _, t in bands} == {0, 1, 2, 3}  # every count and time band met


def test_columns_and_seat_by_seat_give_the_same_cells_on_a_store(tmp_path: Path) -> None:
    """A store of simulated live tables (1,300 games of 2 to 4 seats, a Bonus stake, faults
    that leave some seats' pay unsaid or short): the monitor's cells, both bases, equal."""
    log = simulate(tmp_path / "t.jsonl", "--seats", "2-4", "--rounds", "650", "--sessions", "2", "--seed", "31",
                   "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1", "--faults", "0.02")
    store = str(tmp_path / "s.db")
    code, out = run("check", "--store", store, log, "--quiet")
    assert code in (0, 1), out
    with Stored(store) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        profiles = stored.profiles(stored.sources())
    with kept_profiles(profiles):
        v = _same(seats)
        found = cells.cells(banded(seats, v), v)
        assert found == cells.cells(seat_by_seat(seats, v), v)
    assert any(c.tested for c in found) and {c.basis for c in found} == {"rules", "paid"}


def test_wide_numbers_are_exact() -> None:
    """Numbers of any width and sign, as limbs: multiplied and summed by key, the exact sums."""
    rng = random.Random(3)
    n = 2_000
    big = [rng.choice((-1, 1)) * rng.getrandbits(rng.choice((1, 40, 110, 180))) for _ in range(n)]
    small = [rng.randrange(0, 1 << 31) for _ in range(n)]
    keys = [rng.randrange(7) for _ in range(n)]
    x = wide.of_int64(np.array(small, np.int64))
    product = wide.mul(wide.mul(x, x), wide.of_ints(big))
    found = wide.total(wide.grouped(np.array(keys), product, 7))
    expected = [0] * 7
    for k, a, b in zip(keys, small, big, strict=True):
        expected[k] += a * a * b
    assert found == expected
    assert wide.total(wide.of_ints(big)) == big


def test_wide_products_in_pairs_are_the_exact_products_in_limbs() -> None:
    """``wide.mul`` takes one side's limbs two at a time: every product of numbers of 16 to
    144 bits, at the extremes of their signed range too, is the exact one, in as many limbs
    as before (the two sides' together), each under 2^16 but the signed top one."""
    rng = random.Random(8)
    for la in range(1, 10):
        for lb in range(1, 10):
            low, high = -(1 << (16 * la - 1)), (1 << (16 * la - 1)) - 1
            xs = [low, high, low, -1, 0, *(rng.randint(low, high) for _ in range(20))]
            lo2, hi2 = -(1 << (16 * lb - 1)), (1 << (16 * lb - 1)) - 1
            ys = [lo2, lo2, hi2, hi2, lo2, *(rng.randint(lo2, hi2) for _ in range(20))]
            a, b = wide.of_ints(xs), wide.of_ints(ys)
            product = wide.mul(a, b)
            assert product.shape[0] == a.shape[0] + b.shape[0]
            assert ((product[:-1] >= 0) & (product[:-1] <= wide.MASK)).all()
            assert wide.total(product) == [x * y for x, y in zip(xs, ys, strict=True)]


def test_wide_sums_do_not_overflow_where_int64_would() -> None:
    """A million stakes of 2^31 - 1 squared: 2^81 and more, past int64's 2^63."""
    x = np.full(1_000_000, (1 << 31) - 1, np.int64)
    limbs = wide.of_int64(x)
    square = wide.mul(limbs, limbs)
    assert wide.total(wide.grouped(np.zeros(x.size, np.int64), square, 1)) == [1_000_000 * ((1 << 31) - 1) ** 2]
    assert wide.grouped_int64(np.zeros(x.size, np.int64), x * x, 1) == [1_000_000 * ((1 << 31) - 1) ** 2]
    assert wide.grouped_int64(np.array([0, 1, 0]), np.array([-5, 7, 2], np.int64), 2) == [-3, 7]  # int64 alone


def test_the_monitor_without_numpy_says_which_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = simulate(tmp_path / "t.jsonl", "--rounds", "20", "--seed", "3", "--format", "jsonl")
    store = str(tmp_path / "s.db")
    assert run("check", "--store", store, log, "--quiet")[0] in (0, 1)
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now fails as without the extra
    code, out = run("monitor", "--store", store)
    assert code == 2 and "referee monitor needs NumPy: pip install 'referee[store]'" in out


def test_whole_games_are_summed_once_for_every_kind_that_holds_them(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47's first run: the games of the kinds that hold them whole (all, a table, a
    dealer, a profile) are summed once a bet (``bets.per_game``), a stake band's and a
    player's apart (players at one game stake apart); the paid basis of seats that all
    say their pay is the rules' sums but for what was observed. The cells are the
    seat-by-seat reference's all the same."""
    from referee.monitor import bets, seat_columns

    log = simulate(tmp_path / "t.jsonl", "--seats", "2-4", "--rounds", "300", "--sessions", "2", "--seed", "8",
                   "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1")
    store = str(tmp_path / "s.db")
    assert run("check", "--store", store, log, "--quiet")[0] == 0
    with Stored(store) as stored, stored.reading():
        seats = reading.seats(stored.conn)
        profiles = stored.profiles(stored.sources())
    assert all(s.paid_u is not None for s in seats) and len({s.ante_u for s in seats}) > 1
    made: list[tuple[str, int, bool]] = []
    reused: list[bool] = []
    per_game = bets.per_game

    def counted(c: seat_columns.Columns, v: Valuation, bet: str, o: np.ndarray, pid: np.ndarray, alone: np.ndarray,
                rules: bets.Games | None = None, key: np.ndarray | None = None, groups: int = 0
                ) -> bets.Games | None:
        found = per_game(c, v, bet, o, pid, alone, rules, key, groups)
        made.append((bet, o.size, rules is not None))
        if bet == "paid":
            reused.append(found is not None and rules is not None and found.jump is rules.jump)
        return found

    monkeypatch.setattr(bets, "per_game", counted)
    with kept_profiles(profiles):
        _same(seats)
    # the whole games' once, the stake bands' once, the players' once (not six times: a kind each)
    assert [n for bet, n, _ in made if bet == "ante+call"] == [len(seats)] * 3
    assert reused == [True] * 3


def test_a_games_deal_seat_shares_its_figures_with_the_seats_alike() -> None:
    """Issue 47's first run: a game's deal is valued apart from its seats' figures
    (``Seat.deal_figures``, one a distinct deal), so that the deal's seat shares one
    ``Figures`` with its game's other seats alike (one key a game, not two); folded seats
    of a profile, dealt or not, share one. The sums and deal tests are as before."""
    from referee.rules.hands import evaluate

    cards = [0, 13, 26, 39, 5, 18, 31, 44, 7]
    known = tuple(cards[:5])
    game = [Seat(order=1, game=("game", "T1", 1), time_us=None, table="T1", dealer="d", profile="builtin:vivo",
                 player=f"p-{k}", ante_u=1_000_000, staked_u=3_000_000 if called else 1_000_000, net_u=-1_000_000,
                 bonus_u=0, called=called, known=known, deal=k == 0, player_value=evaluate(cards[:7]).value,
                 dealer_value=evaluate(cards[2:9]).value, row=k + 1, paid_u=-1_000_000)
            for k, called in enumerate((True, True, False))]
    folded = [Seat(order=1, game=("game", "T1", 2), time_us=None, table="T1", dealer="d", profile="builtin:vivo",
                   player="p-9", ante_u=1_000_000, staked_u=1_000_000, net_u=-1_000_000, bonus_u=0, called=False,
                   known=(1, 2, 3, 4, 6), deal=True, player_value=None, dealer_value=None, row=9)]
    seats = [*game, *folded]
    _same(seats)
    assert game[0].situation is game[1].situation  # the deal's seat and the other caller: one Figures
    assert game[2].situation is folded[0].situation  # folds, dealt or not
    assert game[0].deal_figures is not None and folded[0].deal_figures is not None
    assert game[1].deal_figures is None and game[2].deal_figures is None


def test_a_deals_figures_are_its_five_cards_counts_read_when_asked() -> None:
    """A deal's expectations are read from its five cards' counts (``DealFigures``: nothing
    made a deal), the very fractions ``exact.call_moments`` gives; two games dealing the
    same five cards share them."""
    from fractions import Fraction

    from referee.monitor import exact
    from referee.profiles import ProfileOrigin
    from referee.rules.strategy import COMPLETIONS

    knowns = [(0, 13, 26, 39, 5), (51, 50, 49, 48, 47), (0, 13, 26, 39, 5)]
    seats = [Seat(order=i, game=("game", "T1", i), time_us=None, table="T1", dealer="d", profile="builtin:vivo",
                  player="p", ante_u=1_000_000, staked_u=1_000_000, net_u=-1_000_000, bonus_u=0, called=False,
                  known=known, deal=True, row=i) for i, known in enumerate(knowns)]
    value(seats)
    assert seats[0].deal_figures is seats[2].deal_figures
    moments = exact.call_moments(ProfileOrigin.of_builtin("vivo"), knowns)
    for s in seats:
        m, d = moments[cast_known(s)], s.deal_figures
        assert isinstance(d, exact.Counted)
        assert Fraction(d.qualifies, COMPLETIONS) == m.qualifies
        assert d.deal_variance == d.qualifies * (COMPLETIONS - d.qualifies)
        assert tuple(Fraction(c, COMPLETIONS) for c in d.categories) == m.categories


def cast_known(s: Seat) -> tuple[int, ...]:
    assert s.known is not None
    return s.known


def test_a_runs_hands_valued_at_once_are_evaluates_one_by_one() -> None:
    """A live table's run's hands valued at once (``reading._hand_values``, NumPy): the
    player's seven cards, the dealer's and the five known, each ``evaluate``'s value; a
    run with a card past 51 or a game holding a card twice is left to ``evaluate`` one
    by one (None), so that a damaged run is refused in its words, as before."""
    from referee.rules.hands import evaluate, evaluate_indexes

    rng = random.Random(11)
    games = 3_000
    cards = bytes(c for _ in range(games) for c in rng.sample(range(52), 9))
    found = reading._hand_values(cards, games)
    assert found is not None
    for g in range(games):
        c = cards[9 * g:9 * g + 9]
        assert found[0][g] == evaluate(tuple(c[:7])).value
        assert found[1][g] == evaluate((c[7], c[8], *c[2:7])).value
        assert found[2][g] == evaluate_indexes(c[:5]).value
    assert reading._hand_values(cards[:9] + bytes([1, 2, 3, 4, 5, 6, 7, 8, 1]), 2) is None  # a card twice
    assert reading._hand_values(bytes([1, 2, 3, 4, 5, 6, 7, 8, 60]), 1) is None  # past 51
    assert reading._hand_values(b"", 0) is None


def test_a_games_seats_placed_at_its_first_as_one_by_one(tmp_path: Path) -> None:
    """``reading.read`` places a game's seats at its first seat read (its deal there),
    taking a run's next seat of a game as its neighbour's and sorting only when a game
    was met again apart: the seats of a store with faults (games recorded again, seat
    rows beside runs) are those of placing every seat by looking its game up."""
    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "200", "--sessions", "2", "--seed", "5",
                   "--format", "jsonl", "--faults", "0.05")
    store = str(tmp_path / "s.db")
    assert run("check", "--store", store, log, "--quiet")[0] == 1
    with Stored(store) as stored, stored.reading():
        found = reading.seats(stored.conn)
        raw = reading._rows(stored.conn) + reading._runs(stored.conn)
    raw.sort(key=lambda s: s.order)
    first: dict[object, int] = {}
    for seat in raw:
        if seat.game[0] == "seat":
            continue
        if seat.game in first:
            seat.order, seat.deal = first[seat.game], False
        else:
            first[seat.game] = seat.order
    raw.sort(key=lambda s: s.order)
    assert any(s.game[0] == "game" and s.row > 0 for s in found)  # seat rows of games beside the runs
    assert [(s.order, s.game, s.deal, s.row) for s in found] == [(s.order, s.game, s.deal, s.row) for s in raw]


def test_seats_sharing_their_cards_object_under_two_profiles_are_each_valued() -> None:
    """``value`` looks a game's cards up once (its seats, one after the other, share one
    tuple), but seat rows share one tuple a stored value across sessions: a seat of
    another profile with the very same object is valued under its own profile."""
    known = (0, 13, 26, 39, 5)
    seats = [Seat(order=i, game=("seat", i), time_us=None, table=None, dealer=None, profile=profile, player="p",
                  ante_u=1_000_000, staked_u=3_000_000, net_u=-3_000_000, bonus_u=0, called=True, known=known,
                  deal=True, row=i)
             for i, profile in enumerate(("builtin:vivo", "builtin:bonus-100", "builtin:vivo"))]
    v = value(seats)
    means = [getattr(s.situation, "mean", None) for s in seats]
    assert None not in means and means[0] == means[2] != means[1]
    assert all(s.deal_figures is not None for s in seats)
    assert _flat(banded(seats, v)) == _flat(seat_by_seat(seats, v))


def test_every_runs_hands_valued_at_once_are_each_runs() -> None:
    """``reading._every_hand``: the live tables' runs' hands at once, one run after the
    other, each run's as valued alone; None (every game then evaluated one by one) when a
    run's cards are not its games' or do not read, or the games are too few to be worth it."""
    from types import SimpleNamespace

    rng = random.Random(12)
    runs = [SimpleNamespace(games=g, cards=bytes(c for _ in range(g) for c in rng.sample(range(52), 9)))
            for g in (3, 1, 5)]
    runs.insert(1, SimpleNamespace(games=None, cards=b""))  # a run of format-1 rounds: not a table's
    found = reading._every_hand(runs, 0)
    assert found is not None
    alone = [reading._hand_values(r.cards, r.games) for r in runs if r.games is not None]
    assert all(a is not None for a in alone)
    assert found == tuple([v for a in alone if a is not None for v in a[k]] for k in range(3))
    assert reading._every_hand([SimpleNamespace(games=2, cards=bytes(9))], 0) is None  # 9 cards, not 18
    assert reading._every_hand([SimpleNamespace(games=1, cards=None)], 0) is None
    assert reading._every_hand(runs) is None  # fewer games than a batch is worth


def test_numbering_by_a_sort_is_numbering_by_a_dict() -> None:
    """The columns number the seats' situations (by their objects' ids) by a sort
    (``numbered_ints``), in the order first met, as ``numbered``'s dict does: the figures'
    table keeps its order."""
    from referee.monitor.columns import numbered, numbered_ints

    rng = random.Random(2)
    for _ in range(100):
        ids = np.array([rng.randint(0, 40) for _ in range(rng.randint(0, 100))], np.int64)
        number, first = numbered_ints(ids)
        assert number.tolist() == numbered(ids.tolist())[0].tolist()
        assert ids[first].tolist() == numbered(ids.tolist())[1]
