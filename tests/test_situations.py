"""Exact decision values from the tables of outcome counts (issue 27): the same figures
as the one-by-one count (``rules/strategy.py``), for situations in any suit arrangement,
under every built-in profile, a custom profile sharing their qualifier (served by the
shipped table, nothing counted) and one with its own qualifier (counted once, cached)."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import yaml

from referee import load_profile
from referee.analysis import counts, situations
from referee.analysis.decisions import Valued, value, value_all
from referee.analysis.observe import Observed
from referee.errors import MissingDataError
from referee.profiles import BUILTIN, ProfileOrigin
from referee.rules.strategy import COMPLETIONS, Payoffs

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


def _profile_file(tmp_path: Path, name: str, **changes: object) -> ProfileOrigin:
    """A custom profile: vivo's with some fields changed, written as a file."""
    data = yaml.safe_load((Path(situations.__file__).parent.parent / "data" / "profiles" / "vivo.yaml").read_text())
    data.update(name=name, **changes)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return ProfileOrigin("file", str(path))


def _check(wanted: list[tuple[ProfileOrigin, tuple[int, ...]]]) -> None:
    served = situations.table_values(wanted, jobs=1)
    assert set(served) == set(wanted)
    for s in wanted:
        exact = value(s)
        assert served[s] == (exact.call_value, exact.qualifies, exact.categories), s


@pytest.mark.parametrize("name", BUILTIN)
def test_shipped_counts_equal_the_one_by_one_count(name: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    origin = ProfileOrigin.of_builtin(name)
    rng = random.Random(name)
    _check([(origin, k) for k in [*_one_class(rng, 2), tuple(rng.sample(range(52), 5))]])
    assert not (tmp_path / "situations").exists()  # nothing counted, nothing cached


def test_a_custom_paytable_with_the_same_qualifier_is_a_look_up(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    paytable = {"royal_flush": 250, "straight_flush": 40, "four_of_a_kind": 12, "full_house": 4, "flush": 3,
                "straight": 1, "three_of_a_kind": 1, "two_pair": 1, "pair": 1, "high_card": 1}
    origin = _profile_file(tmp_path, "house", ante_paytable=paytable, call_win_odds="1.5",
                           ante_when_not_qualified="even_money")
    rng = random.Random(5)
    _check([(origin, tuple(rng.sample(range(52), 5))) for _ in range(3)])
    assert not (tmp_path / "cache").exists()


@pytest.mark.slow
def test_a_paytable_the_shipped_layout_does_not_fit_is_counted(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A straight paid 2:1 (high card to straight no longer alike): the shipped table,
    which keeps those categories together, cannot serve it; its classes are counted."""
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    paytable = {"royal_flush": 100, "straight_flush": 20, "four_of_a_kind": 10, "full_house": 3, "flush": 2,
                "straight": 2, "three_of_a_kind": 1, "two_pair": 1, "pair": 1, "high_card": 1}
    origin = _profile_file(tmp_path, "straights", ante_paytable=paytable)
    assert not counts.fits(counts.PAYOUTS, Payoffs.of(origin.resolve().profile))
    rng = random.Random(6)
    _check([(origin, k) for k in _one_class(rng, 2)])
    assert len(list((tmp_path / "cache" / "situations").iterdir())) == 1


@pytest.mark.slow
def test_another_qualifier_is_counted_once_and_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    origin = _profile_file(tmp_path, "strict", dealer_qualifier={"category": "pair", "rank": "8"})
    q = origin.resolve().profile.dealer_qualifier.floor()
    wanted = [(origin, k) for k in _one_class(random.Random(8), 3)]
    announced: list[int] = []
    served = situations.table_values(wanted, jobs=1, counting=announced.append)
    assert announced == [1]
    for s in wanted:
        exact = value(s)
        assert served[s] == (exact.call_value, exact.qualifies, exact.categories), s
    # Cached: a fresh table reads the class from disk; a damaged file is refused and counted again.
    (block,) = situations.CountTable(q).dir.iterdir()
    index = int(block.stem.split("-")[1])
    assert situations.CountTable(q).load(index)
    data = bytearray(block.read_bytes())
    data[-1] ^= 1
    block.write_bytes(bytes(data))
    assert not situations.CountTable(q).load(index)
    again: list[int] = []
    assert situations.table_values(wanted[:2], jobs=1, counting=again.append) == {s: served[s] for s in wanted[:2]}
    assert again == [1] and situations.CountTable(q).load(index)
    assert situations.table_values(wanted, jobs=1, counting=again.append) == served and again == [1]


def test_value_all_same_with_and_without_tables() -> None:
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


def test_the_cache_key_is_the_qualifier_alone() -> None:
    vivo, caribbean, bonus = (load_profile(n).dealer_qualifier.floor() for n in ("vivo", "caribbean", "bonus-100"))
    assert situations.digest(vivo) == situations.digest(caribbean) == situations.digest(bonus)
    assert situations.digest(vivo) != situations.digest(vivo + 1)
    assert situations.cache_root().name  # REFEREE_CACHE_DIR set by conftest


def test_every_class_and_pair_is_located_once() -> None:
    """The mapping covers the 1,755 classes × 1,176 pairs; suit permutations of a
    situation land in the same class (on the same pair, or on one its flop's own
    symmetry maps it to: the values tests above hold them equal)."""
    c = situations.classes()
    assert len(c.flops) == 1755
    rng = random.Random(7)
    for _ in range(500):
        known = tuple(rng.sample(range(52), 5))
        cell = c.locate(known)
        assert all(c.locate(_permuted(known, p))[0] == cell[0] for p in SUIT_ORDERS)
        assert c.locate((known[1], known[0], *known[2:])) == cell
        assert 0 <= cell[1] < counts.PAIRS
    flop = c.flops[100]
    rest = [x for x in range(52) if x not in flop]
    assert sorted(c.locate((a, b, *flop))[1] for i, a in enumerate(rest) for b in rest[i + 1:]) == list(
        range(counts.PAIRS))


def test_a_block_round_trips() -> None:
    rng = random.Random(3)
    rows = []
    for _ in range(counts.PAIRS):  # the 1,081 turn-and-river pairs shared among a few categories
        cuts = sorted(rng.sample(range(1, counts.TURN_RIVER), 3))
        shares = dict(zip(rng.sample(range(10), 4), np.diff([0, *cuts, counts.TURN_RIVER]).tolist(), strict=True))
        row = []
        for category in range(10):
            total = shares.get(category, 0) * counts.DEALERS
            nq = rng.randint(0, total)
            win = rng.randint(0, total - nq)
            tie = rng.randint(0, total - nq - win)
            row.append((nq, win, tie, total - nq - win - tie))
        rows.append(tuple(row))
    block = counts.Block(counts.decompress(counts.compress(counts.encode(rows))))
    assert [block.row(p) for p in range(counts.PAIRS)] == rows
    with pytest.raises(ValueError, match="whole turn-and-river"):
        counts.encode([[(1, 0, 0, 0)] * 10])
    # The shipped layout gives the same figures as the 40 counts for a profile it fits.
    payouts = counts.Block(counts.encode(rows, counts.PAYOUTS), counts.PAYOUTS)
    for name in BUILTIN:
        p = Payoffs.of(load_profile(name))
        assert counts.fits(counts.PAYOUTS, p) and counts.fits(counts.FULL, p)
        for pair in rng.sample(range(counts.PAIRS), 50):
            assert payouts.figures(pair, p) == block.figures(pair, p)
            value, nq, ends = block.figures(pair, p)
            assert value == p.value(rows[pair]) and nq == sum(r[0] for r in rows[pair])
            assert ends == [sum(r) // counts.DEALERS for r in rows[pair]]


def test_the_shipped_table_is_whole_and_checked(tmp_path: Path) -> None:
    table = situations.shipped()
    assert table.qualifier == load_profile("vivo").dealer_qualifier.floor()
    assert len(table.flops) == len(table.digests) == 1755
    assert table.layout is counts.PAYOUTS
    _, nq, turns = table.block(0).figures(0, Payoffs.of(load_profile("vivo")))
    assert sum(turns) * counts.DEALERS == COMPLETIONS and 0 <= nq < COMPLETIONS
    raw = (Path(situations.__file__).parent.parent / "data" / situations.SHIPPED).read_bytes()
    damaged = bytearray(raw)
    damaged[-1] ^= 1  # the last block
    copy = tmp_path / "copy"
    copy.write_bytes(bytes(damaged))
    with copy.open("rb") as stream:
        broken = counts.Shipped(stream)
        broken.block(0)
        with pytest.raises(counts.DamagedTable, match="block 1754"):
            broken.block(1754)
    damaged = bytearray(raw)
    damaged[len(counts.MAGIC) + 10] ^= 1  # the header
    copy.write_bytes(bytes(damaged))
    with copy.open("rb") as stream, pytest.raises(counts.DamagedTable, match="header"):
        counts.Shipped(stream)


def test_a_missing_shipped_table_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(situations, "_SHIPPED", None)
    monkeypatch.setattr(situations, "SHIPPED", "no-such.counts")
    with pytest.raises(MissingDataError, match="reinstall"):
        situations.shipped()


def test_a_shipped_class_equals_the_engine_on_every_pair() -> None:
    """One random class recounted by the PAR engine (itself checked against a brute force
    and strategy.py in test_par): all 1,176 pairs equal the shipped rows."""
    table = situations.shipped()
    index = random.Random().randrange(len(table.flops))
    _, body = situations.count_class((table.qualifier, index, table.flops[index], table.layout.code))
    assert body == counts.decompress(table.block_bytes(index)), index
