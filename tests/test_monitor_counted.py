"""A class's situations valued column by column (``referee.monitor.counted``, issue 47's
fast first run) against ``counts.Block.figures_under``, pair by pair: the same values
under the payout table, its squares and its cubes, the same counts, on every pair of
blocks of the shipped table and of a FULL-layout block (ties by category)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.analysis.counts import FULL, PAIRS, Block, DamagedTable, encode
from referee.analysis.situations import CountTable
from referee.monitor import exact
from referee.monitor.counted import figures, served
from referee.monitor.valuing import origin_of
from referee.rules.strategy import Payoffs


def _tables(profile: str) -> tuple[Payoffs, Payoffs, Payoffs]:
    p = Payoffs.of(origin_of(profile).resolve().profile)
    return p, exact._squared(p), exact._cubed(p)


def _shipped(profile: str) -> CountTable:
    """The shipped table (the built-ins' qualifier), a fresh one: its blocks are the test's."""
    resolved = origin_of(profile).resolve().profile
    qualifier, shipped = CountTable.serving(Payoffs.of(resolved), resolved.dealer_qualifier.floor())
    assert shipped
    return CountTable(qualifier, shipped)


def _one_by_one(block: Block, pairs: list[int], tables: tuple[Payoffs, ...]
                ) -> tuple[list[list[int]], list[int], list[list[int]]]:
    values: list[list[int]] = [[] for _ in tables]
    not_qualified: list[int] = []
    turns: list[list[int]] = []
    for pair in pairs:
        found, nq, turned = block.figures_under(pair, tables)
        for t, v in enumerate(found):
            values[t].append(v)
        not_qualified.append(nq)
        turns.append(turned)
    return values, not_qualified, turns


@pytest.mark.parametrize("profile", ["builtin:vivo", "builtin:bonus-100"])
def test_shipped_blocks_pair_by_pair(profile: str) -> None:
    tables = _tables(profile)
    assert served(tables)
    table = _shipped(profile)
    for index in (0, 1, 400, 1754):
        assert table.load(index)
        block = table.blocks[index]
        pairs = list(range(PAIRS))
        assert figures(block, pairs, tables) == _one_by_one(block, pairs, tables)
        some = random.Random(index).sample(pairs, 50)  # any pairs, in any order, repeated
        some += some[:5]
        assert figures(block, some, tables) == _one_by_one(block, some, tables)


def test_full_layout_block() -> None:
    """A FULL block (ties by category, as the cache keeps another qualifier's counts)."""
    rng = np.random.default_rng(5)
    counts = np.zeros((PAIRS, 10, 4), np.int64)
    for pair in range(PAIRS):  # each pair ends in a few categories, whole turn-and-river pairs each
        for category in rng.choice(10, size=3, replace=False):
            split = rng.integers(0, 990, size=3)
            n = int(rng.integers(1, 40))
            a, b, c = (int(x) for x in np.sort(split))
            counts[pair, category] = (a * n, (b - a) * n, (c - b) * n, (990 - c) * n)
    block = Block(encode(counts, FULL), FULL)
    tables = _tables("builtin:vivo")
    pairs = list(range(PAIRS))
    assert figures(block, pairs, tables) == _one_by_one(block, pairs, tables)


def test_a_block_whose_entries_do_not_match_its_masks() -> None:
    table = _shipped("builtin:vivo")
    assert table.load(3)
    block = table.blocks[3]
    block.turns = block.turns[:-1]
    with pytest.raises(DamagedTable):
        figures(block, [0], _tables("builtin:vivo"))


def test_large_payouts_are_not_served() -> None:
    p = _tables("builtin:vivo")[0]
    from dataclasses import replace

    big = replace(p, table=((1 << 40, 3, 0, -3), *p.table[1:]))
    assert served((p,)) and not served((big,))


def test_call_counted_many_equals_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``exact.call_counted``: a block with more situations than ``exact._FEW`` valued
    column by column, the others one by one; the same figures as one situation at a time,
    in the order asked."""
    from referee.monitor import counted

    rng = random.Random(47)
    flop = (7, 20, 33)
    others = [c for c in range(52) if c not in flop]
    knowns = [(*rng.sample(others, 2), *flop) for _ in range(100)]  # one flop: one class, many pairs
    knowns += [tuple(rng.sample(range(52), 5)) for _ in range(50)]
    blocks: list[int] = []
    column_by_column = counted.figures

    def spied(block: Block, pairs: list[int], tables: tuple[Payoffs, ...]
              ) -> tuple[list[list[int]], list[int], list[list[int]]]:
        blocks.append(len(pairs))
        return column_by_column(block, pairs, tables)

    monkeypatch.setattr(counted, "figures", spied)
    origin = origin_of("builtin:bonus-100")
    many = exact.call_counted(origin, knowns)
    assert list(many) == list(dict.fromkeys(knowns))
    assert len(blocks) == 1 and blocks[0] > exact._FEW  # the flop's class alone, column by column
    one = {known: exact.call_counted(origin, [known])[known] for known in knowns}
    assert many == one
    assert len(blocks) == 1


def test_situations_located_at_once_are_located_one_by_one() -> None:
    """Issue 47's first run locates its situations at once (``counted.located``): each
    one's flop class and hole pair as ``Classes.locate`` gives it; knowns it does not take
    (a card past 51 or given twice) are left to ``locate`` one by one (None)."""
    from referee.analysis.situations import classes
    from referee.monitor.counted import located

    rng = random.Random(4)
    knowns = [tuple(rng.sample(range(52), 5)) for _ in range(5_000)]
    assert located(classes(), knowns) == [classes().locate(k) for k in knowns]
    assert located(classes(), [(1, 2, 3, 4, 60)]) is None
    assert located(classes(), [(1, 2, 3, 4, 1)]) is None
