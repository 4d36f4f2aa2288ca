"""Exact decision values from the per-situation table (issue 18): the same figures as
the one-by-one count, for situations in any suit arrangement of a class."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from referee import load_profile
from referee.analysis import situations
from referee.analysis.decisions import Valued, value, value_all
from referee.analysis.observe import Observed
from referee.profiles import ProfileOrigin

SUIT_ORDERS = [(0, 1, 2, 3), (1, 0, 3, 2), (3, 2, 1, 0), (2, 3, 0, 1), (1, 2, 3, 0)]


def _permuted(known: tuple[int, ...], perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple((c & ~3) | perm[c & 3] for c in known)


def _one_class(rng: random.Random, n: int) -> list[tuple[int, ...]]:
    """``n`` situations sharing one random flop class: new hole pairs, suits permuted."""
    flop = rng.sample(range(52), 3)
    found = []
    for i in range(n):
        hole = rng.sample([c for c in range(52) if c not in flop], 2)
        found.append(_permuted((*hole, *flop), SUIT_ORDERS[i % len(SUIT_ORDERS)]))
    return found


@pytest.mark.parametrize("name", ["vivo", "bonus-aa"])
def test_table_values_equal_the_one_by_one_count(name: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    origin = ProfileOrigin.of_builtin(name)
    rng = random.Random(str(origin))
    wanted = [(origin, k) for k in _one_class(rng, 4)]
    served = situations.table_values(wanted, jobs=1)
    assert set(served) == set(wanted)
    for s in wanted:
        exact = value(s)
        assert served[s] == (exact.call_value, exact.qualifies, exact.categories), s
    # Stored: a fresh table reads the block from disk; a damaged block is refused and rebuilt.
    profile = load_profile(name)
    table = situations.SituationTable(profile)
    (block,) = table.dir.iterdir()
    index = int(block.stem.split("-")[1])
    assert table.load(index)
    data = bytearray(block.read_bytes())
    data[-1] ^= 1
    block.write_bytes(bytes(data))
    assert not situations.SituationTable(profile).load(index)
    again = situations.table_values(wanted[:2], jobs=1)
    assert again == {s: served[s] for s in wanted[:2]}
    assert situations.SituationTable(profile).load(index)


def test_a_lone_situation_is_counted_by_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    lone = [(ProfileOrigin.of_builtin("vivo"), (48, 44, 51, 26, 9))]
    assert situations.table_values(lone, jobs=1) == {}
    assert not (tmp_path / "situations").exists()


def test_value_all_same_with_and_without_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    rng = random.Random(18)
    knowns = [*_one_class(rng, 3), tuple(rng.sample(range(52), 5))]
    one = Decimal(1)
    rounds = [Observed(session="s", number=i, file="f", line=i, profile=ProfileOrigin.of_builtin("caribbean"), ante=one,
                       main_staked=one, main_net=one, net=one, bonus=one, bonus_stake=one, called=True,
                       cards=(*k, None, None, None, None), player_category=None, dealer_qualified=None)
              for i, k in enumerate(knowns)]
    ticks: list[int] = []
    fast = value_all(rounds, jobs=1, progress=ticks.append)
    assert sum(ticks) == len(knowns)
    slow = value_all(rounds, jobs=1, tables=False)
    assert fast == slow and all(isinstance(v, Valued) for v in fast.values())


def test_the_key_follows_the_payouts() -> None:
    vivo, caribbean = load_profile("vivo"), load_profile("caribbean")
    assert situations.digest(vivo) == situations.digest(load_profile("vivo"))
    assert situations.digest(vivo) != situations.digest(caribbean)
    assert situations.cache_root().name  # REFEREE_CACHE_DIR set by conftest


def test_every_class_and_pair_is_located_once() -> None:
    """The mapping covers the 1,755 classes × 1,176 pairs; suit permutations of a
    situation land in the same class (on the same pair, or on one its flop's own
    symmetry maps it to: the values test above holds them equal)."""
    c = situations.classes()
    assert len(c.flops) == 1755
    rng = random.Random(7)
    for _ in range(200):
        known = tuple(rng.sample(range(52), 5))
        cell = c.locate(known)
        assert all(c.locate(_permuted(known, p))[0] == cell[0] for p in SUIT_ORDERS)
        assert c.locate((known[1], known[0], *known[2:])) == cell
        assert 0 <= cell[1] < situations.PAIRS
