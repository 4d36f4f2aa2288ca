"""The monitor's per-game sums, shared across segment kinds, against the kind-by-kind
original (``tests/monitor_reference.py``): the same games, in the same order, with the
same sums, on seat lists of every shape (games of many seats split across players and
stake bands, seats without a segment or a valuation, games whose seats are not together,
orders out of turn)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.monitor import randomness
from referee.monitor.cells import Games
from referee.monitor.columns import games
from referee.monitor.facts import Seat
from referee.monitor.packed import pack, unpack
from referee.monitor.randomness import Deals
from referee.monitor.valuing import value
from referee.rules.hands import evaluate

from . import monitor_reference

PROFILES = ("builtin:vivo", "builtin:bonus-100")


def _seats(seed: int, n: int, shuffle: bool) -> list[Seat]:
    rng = random.Random(seed)
    out: list[Seat] = []
    game = 0
    while len(out) < n:
        game += 1
        cards = rng.sample(range(52), 9)
        profile = rng.choice(PROFILES)
        table = rng.choice(("T1", "T2", None))
        dealer = rng.choice(("d-1", "d-2", None))
        time_us = rng.choice((None, game * 60_000_000))
        for k in range(rng.choice((1, 1, 2, 4))):
            own = cards[:5] if rng.random() < 0.7 else [*rng.sample([c for c in range(52) if c not in cards], 2),
                                                         *cards[2:5]]
            called = rng.random() < 0.7
            ante = rng.choice((1, 2, 5, 30)) * 1_000_000
            bonus = ante if profile.endswith("bonus-100") and rng.random() < 0.5 else 0
            known = None if rng.random() < 0.05 else tuple(own)
            out.append(Seat(
                order=game, game=("game", table, game), time_us=time_us, table=table, dealer=dealer, profile=profile,
                player=rng.choice(("p-1", "p-2", "p-3", None)), ante_u=ante, staked_u=ante * (3 if called else 1),
                net_u=(net := rng.choice((-3, -1, 1, 2, 3)) * ante), bonus_u=bonus, called=called, known=known,
                bonus_value=evaluate(list(known)).value if bonus and known else None, deal=k == 0,
                player_value=evaluate([*own, *cards[5:7]]).value if rng.random() < 0.95 else None,
                dealer_value=evaluate([*cards[2:7], *cards[7:9]]).value, row=len(out) + 1,
                paid_u=rng.choice((None, net, net - ante, net + ante))))
    if shuffle:  # a game's seats apart, orders out of turn: the grouping must still agree
        rng.shuffle(out)
    return out


def _flat(found: Games) -> list[tuple[object, ...]]:
    return [(key, p.game, p.time_us, sorted((bet, repr(s)) for bet, s in p.bets.items()))
            for key, played in found.items() for p in played]


def _deals(found: Deals) -> list[tuple[object, ...]]:
    return [(key, t, d.numbers()) for key, items in found.items() for t, d in items]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 120), shuffle=st.booleans())
def test_shared_sums_are_the_kind_by_kind_sums(seed: int, n: int, shuffle: bool) -> None:
    seats = _seats(seed, n, shuffle)
    v = value(seats)
    assert _flat(games(seats, v)) == _flat(monitor_reference.games(seats, v))
    assert _deals(randomness.deals(seats)) == _deals(monitor_reference.deals(seats))


def test_a_seat_alone_is_summed_once_for_every_kind() -> None:
    seats = [s for s in _seats(3, 50, False) if s.table and s.dealer and s.player]
    found = games(seats, value(seats))
    by_game: dict[object, set[int]] = {}
    for played in found.values():
        for p in played:
            by_game.setdefault(p.game, set()).add(id(p))
    single = {s.game for s in seats if sum(t.game == s.game for t in seats) == 1}
    assert single and all(len(by_game[g]) == 1 for g in single)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60))
def test_a_games_sums_pack_and_unpack_exactly(seed: int, n: int) -> None:
    """The cache keeps a game's sums packed: they come back equal, whole numbers and the
    cross terms' floats alike (a sum taken out of a band must be the sum put in)."""
    seats = _seats(seed, n, False)
    found = games(seats, value(seats))
    for played in found.values():
        for p in played:
            assert unpack(pack(p.bets)) == p.bets
    for items in randomness.deals(seats).values():
        for _, d in items:
            assert unpack(pack(d)) == d
