"""Exact decision values served from a per-situation table, built once and cached.

Valuing one decision exactly (``rules/strategy.py``) costs about a third of a second.
The PAR engine (``analysis/par.py``) already counts, for each of the 1,755 flop
classes, every one of its 1,176 hole pairs: 2,063,880 situations, all of them up to a
suit permutation. One class takes about a second in NumPy, and gives each of its
situations the same figures as the one-by-one count:

* the numerator of the exact value of calling (``Payoffs``' integer scale, over
  ``scale × 1,070,190``): it depends on the profile's payouts, so the table is kept
  per payout digest;
* how many of the 1,070,190 completions the dealer does not qualify in (the
  qualifier is in the digest too);
* how many of the 1,081 turn-and-river pairs end in each final category of the
  player (each stands for 990 completions).

Blocks are written a class at a time to ``$XDG_CACHE_HOME/referee/situations/<digest>/``
(``~/.cache`` without it; ``REFEREE_CACHE_DIR`` overrides the whole path), each with a
SHA-256 of its content, so that a damaged or foreign block is rebuilt, never trusted.
A class is built the first time at least two of the situations asked for fall in it
(one situation is cheaper to value by itself); once built, a situation costs a few
microseconds. Without NumPy, everything is valued one by one as before.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

from ..profiles import ProfileOrigin
from ..rules.profile import Profile
from ..rules.strategy import COMPLETIONS, NOT_QUALIFIED, Payoffs

PAIRS = 1176  # C(49, 2) hole pairs a flop
TURN_RIVER = 1081  # C(47, 2)
DEALERS = 990  # C(45, 2)
FORMAT = 1
_BLOCK = PAIRS * (8 + 4 + 2 * 10)
MIN_SITUATIONS_TO_BUILD = 2
CallValue = tuple[Fraction, Fraction, tuple[Fraction, ...]]  # call value, P(qualifies), P(category)


def cache_root() -> Path:
    """Where the tables live: ``REFEREE_CACHE_DIR``, else the XDG cache directory."""
    explicit = os.environ.get("REFEREE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "referee"


def digest(profile: Profile) -> str:
    """What a table's figures depend on: the payouts (as exact integers) and the qualifier."""
    p = Payoffs.of(profile)
    text = repr((FORMAT, p.scale, p.table, p.fold, profile.dealer_qualifier.floor()))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class _Classes:
    """The 1,755 flop classes, and how a situation maps to a class and a hole pair."""

    def __init__(self) -> None:
        from .par import FULL_DECK, flop_classes

        classes = flop_classes(FULL_DECK)
        self.flops = [flop for flop, _ in classes]
        self.index = {flop: i for i, flop in enumerate(self.flops)}
        self.perms = list(permutations(range(4)))
        self.canonical: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self.pairs: dict[tuple[int, ...], dict[tuple[int, int], int]] = {}

    def locate(self, known: Sequence[int]) -> tuple[int, int]:
        """(class index, hole-pair index) of two private cards and a flop."""
        flop = tuple(sorted(known[2:5]))
        found = self.canonical.get(flop)
        if found is None:
            found = min((tuple(sorted((c & ~3) | q[c & 3] for c in flop)), q) for q in self.perms)
            self.canonical[flop] = found
        canon, perm = found
        a, b = sorted((c & ~3) | perm[c & 3] for c in known[:2])
        pairs = self.pairs.get(canon)
        if pairs is None:
            rest = [c for c in range(52) if c not in canon]
            pairs = {(rest[i], rest[j]): k for k, (i, j) in enumerate(combinations(range(49), 2))}
            self.pairs[canon] = pairs
        return self.index[canon], pairs[(a, b)]


_CLASSES: _Classes | None = None


def classes() -> _Classes:
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = _Classes()
    return _CLASSES


def build_block(profile: Profile, flop: tuple[int, ...]) -> bytes:
    """One class's figures, by the PAR engine's count (NumPy), as stored."""
    import numpy as np

    from .par import FULL_DECK, FlopSolver, _tables

    p = Payoffs.of(profile)
    solver = FlopSolver(FULL_DECK, p, profile.dealer_qualifier.floor(), _tables())
    _, counts, completions = solver.flop_counts(flop)
    assert completions == COMPLETIONS and counts.shape == (PAIRS, 10, 4)
    exact = [p.value(pair) for pair in counts.tolist()]
    numerators = np.array(exact, dtype=np.int64)
    if numerators.tolist() != exact:  # pragma: no cover - payouts beyond 64 bits
        raise OverflowError("call values beyond 64 bits")
    nq = counts[:, :, NOT_QUALIFIED].sum(axis=1).astype(np.int32)
    by_category = counts.sum(axis=2)
    if (by_category % DEALERS).any():  # pragma: no cover - a category is a turn-and-river fact
        raise AssertionError("category counts not a multiple of the dealer pairs")
    cats = (by_category // DEALERS).astype(np.uint16)
    body: bytes = numerators.tobytes() + nq.tobytes() + cats.tobytes()
    return hashlib.sha256(body).digest() + body


Block = tuple[Any, Any, Any]  # numerators, not-qualified counts, category counts (NumPy)


def _read_block(data: bytes) -> Block | None:
    """A stored block's columns, or ``None`` if it is damaged or of another size."""
    import numpy as np

    digest_, body = data[:32], data[32:]
    if len(body) != _BLOCK or hashlib.sha256(body).digest() != digest_:
        return None
    numerators = np.frombuffer(body, dtype=np.int64, count=PAIRS)
    nq = np.frombuffer(body, dtype=np.int32, count=PAIRS, offset=8 * PAIRS)
    cats = np.frombuffer(body, dtype=np.uint16, offset=12 * PAIRS).reshape(PAIRS, 10)
    return numerators, nq, cats


class SituationTable:
    """The cached figures of one profile's situations, block by block."""

    def __init__(self, profile: Profile, root: Path | None = None) -> None:
        self.profile = profile
        self.scale = Payoffs.of(profile).scale
        self.dir = (root or cache_root()) / "situations" / digest(profile)
        self.blocks: dict[int, Block] = {}

    def _path(self, index: int) -> Path:
        return self.dir / f"flop-{index:04d}.bin"

    def load(self, index: int) -> bool:
        """Whether class ``index`` is available (in memory or a sound block on disk)."""
        if index in self.blocks:
            return True
        try:
            data = self._path(index).read_bytes()
        except OSError:
            return False
        block = _read_block(data)
        if block is None:
            return False
        self.blocks[index] = block
        return True

    def store(self, index: int, data: bytes) -> None:
        """Keep a built block; written atomically, and kept in memory if the cache
        directory cannot be written."""
        block = _read_block(data)
        assert block is not None
        self.blocks[index] = block
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, self._path(index))
        except OSError:
            pass

    def value(self, index: int, pair: int) -> CallValue:
        numerators, nq, cats = self.blocks[index]
        return (Fraction(int(numerators[pair]), self.scale * COMPLETIONS),
                Fraction(COMPLETIONS - int(nq[pair]), COMPLETIONS),
                tuple(map(_SHARE.__getitem__, cats[pair].tolist())))


# The share of completions of n turn-and-river pairs out of 1,081: made once, not per situation.
_SHARE = tuple(Fraction(n * DEALERS, COMPLETIONS) for n in range(TURN_RIVER + 1))


def _numpy_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - the par extra is missing
        return False
    return True


def _build(args: tuple[ProfileOrigin, int]) -> tuple[ProfileOrigin, int, bytes]:
    origin, index = args
    profile = origin.resolve().profile
    return origin, index, build_block(profile, classes().flops[index])


def table_values(
    situations: Iterable[tuple[ProfileOrigin, tuple[int, ...]]], jobs: int,
    progress: Callable[[int], None] | None = None,
) -> dict[tuple[ProfileOrigin, tuple[int, ...]], CallValue]:
    """The situations the tables can serve (building the classes worth building), with
    their figures; the others are left for the one-by-one count."""
    if not _numpy_available():
        return {}
    c = classes()
    tables: dict[ProfileOrigin, SituationTable] = {}
    located: dict[tuple[ProfileOrigin, tuple[int, ...]], tuple[int, int]] = {}
    wanted: dict[tuple[ProfileOrigin, int], int] = {}
    for origin, known in situations:
        table = tables.get(origin)
        if table is None:
            table = tables[origin] = SituationTable(origin.resolve().profile)
        index, pair = c.locate(known)
        located[(origin, known)] = (index, pair)
        if not table.load(index):
            wanted[(origin, index)] = wanted.get((origin, index), 0) + 1
    build = sorted(k for k, n in wanted.items() if n >= MIN_SITUATIONS_TO_BUILD)
    for origin, index, data in _map(build, jobs):
        tables[origin].store(index, data)
        if progress:
            progress(wanted[(origin, index)])
    found = {}
    for (origin, known), (index, pair) in located.items():
        table = tables[origin]
        if index in table.blocks:
            found[(origin, known)] = table.value(index, pair)
            if progress and (origin, index) not in wanted:
                progress(1)
    return found


def _map(work: list[tuple[ProfileOrigin, int]], jobs: int) -> Iterable[tuple[ProfileOrigin, int, bytes]]:
    if jobs <= 1 or len(work) < 2:
        yield from map(_build, work)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .par import _tables

    _tables()  # built once, shared with the forked workers
    classes()
    with ProcessPoolExecutor(min(jobs, len(work)), mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(_build, work, chunksize=1)


def build_all(
    profile: Profile, origin: ProfileOrigin, jobs: int, progress: Callable[[int], None] | None = None
) -> Path:
    """Fill the whole table of a profile (every class not yet cached); its directory."""
    table = SituationTable(profile)
    missing = [(origin, i) for i in range(len(classes().flops)) if not table.load(i)]
    for _, index, data in _map(missing, jobs):
        table.store(index, data)
        if progress:
            progress(1)
    return table.dir

