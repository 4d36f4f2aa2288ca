"""Exact decision values read from the tables of outcome counts (``counts.py``).

A decision's exact figures (the value of calling under any profile, the chance the
dealer qualifies, the chance of each final category of the player's) are its 40
outcome counts over the 1,070,190 completions, which depend on the dealer's
qualifier alone. So:

* for the qualifier of every built-in profile (a pair of 4s) the counts of all
  2,063,880 situations ship with the package (``referee/data/situations.counts``,
  ``python scripts/situation_counts.py`` makes it), in the layout every paytable so
  far pays by (``counts.PAYOUTS``): any decision of any profile with that qualifier
  that the layout fits (``counts.fits``), built-in or not, is a look-up from a cold
  start;
* for another qualifier, or a profile the layout does not fit, the 40 counts of each
  flop class a decision falls in are counted once by the PAR engine
  (``flops.FlopCounter``, NumPy: a fifth of a second a class, in parallel over
  ``--jobs``) and cached under
  ``$XDG_CACHE_HOME/referee/situations/counts-<digest>/`` (``~/.cache`` without it;
  ``REFEREE_CACHE_DIR`` overrides the whole path), one file a class with the SHA-256
  of its content, so that a damaged or foreign file is counted again, never trusted.
  The digest names the qualifier and the format, nothing a payout changes: every
  profile sharing that qualifier shares the cache.

Without NumPy a situation the tables cannot serve is counted one by one
(``decisions.value``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from fractions import Fraction
from importlib import resources
from pathlib import Path

from ..errors import MissingDataError
from ..profiles import ProfileOrigin
from ..rules.strategy import COMPLETIONS, Payoffs
from .counts import (
    DEALERS,
    FULL,
    LAYOUTS,
    PAIRS,
    TURN_RIVER,
    Block,
    Classes,
    DamagedTable,
    Shipped,
    compress,
    decompress,
    encode,
    fits,
)

FORMAT = 1
SHIPPED = "situations.counts"
CallValue = tuple[Fraction, Fraction, tuple[Fraction, ...]]  # call value, P(qualifies), P(category)
Situation = tuple[ProfileOrigin, tuple[int, ...]]

# The share of completions of n turn-and-river pairs out of 1,081: made once, not per situation.
_SHARE = tuple(Fraction(n * DEALERS, COMPLETIONS) for n in range(TURN_RIVER + 1))


def cache_root() -> Path:
    """Where the tables live: ``REFEREE_CACHE_DIR``, else the XDG cache directory."""
    explicit = os.environ.get("REFEREE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "referee"


def digest(qualifier: int) -> str:
    """What a table's counts depend on: the qualifier (and the way they are stored)."""
    return hashlib.sha256(repr(("counts", FORMAT, qualifier)).encode()).hexdigest()[:24]


_SHIPPED: Shipped | None = None


def shipped() -> Shipped:
    """The shipped table, opened once a process (its header read and checked)."""
    global _SHIPPED
    if _SHIPPED is None:
        try:
            stream = resources.files("referee").joinpath("data", SHIPPED).open("rb")
        except OSError:
            raise MissingDataError(f"referee/data/{SHIPPED} is missing from the installation: reinstall referee") \
                from None
        try:
            _SHIPPED = Shipped(stream)
        except DamagedTable as err:
            raise MissingDataError(f"referee/data/{SHIPPED}: {err}: reinstall referee") from None
    return _SHIPPED


_CLASSES: Classes | None = None


def classes() -> Classes:
    """The flop classes, in the shipped table's order (read from its header: no enumeration)."""
    global _CLASSES
    if _CLASSES is None:
        table = shipped()
        _CLASSES = Classes(table.flops, table.places)
    return _CLASSES


class CountTable:
    """The counts of the profiles a table serves, class by class: the shipped table
    (``shipped=True``: its qualifier, profiles it :func:`~counts.fits`), or one
    qualifier's :data:`~counts.FULL` counts in the cache (counted when missing)."""

    def __init__(self, qualifier: int, shipped_table: bool = False, root: Path | None = None) -> None:
        self.qualifier = qualifier
        self.ship = shipped() if shipped_table else None
        self.layout = self.ship.layout if self.ship is not None else FULL
        self.dir = (root or cache_root()) / "situations" / f"counts-{digest(qualifier)}"
        self.blocks: dict[int, Block] = {}

    @classmethod
    def serving(cls, payoffs: Payoffs, qualifier: int) -> tuple[int, bool]:
        """Which table serves a profile: (qualifier, whether the shipped one)."""
        table = shipped()
        return qualifier, table.qualifier == qualifier and fits(table.layout, payoffs)

    def _path(self, index: int) -> Path:
        return self.dir / f"flop-{index:04d}.bin"

    def load(self, index: int) -> bool:
        """Whether class ``index`` is available (in memory, shipped, or sound in the cache)."""
        if index in self.blocks:
            return True
        if self.ship is not None:
            try:
                self.blocks[index] = self.ship.block(index)
            except DamagedTable as err:
                raise MissingDataError(f"referee/data/{SHIPPED}: {err}: reinstall referee") from None
            return True
        try:
            data = self._path(index).read_bytes()
        except OSError:
            return False
        if hashlib.sha256(data[32:]).digest() != data[:32]:
            return False
        try:
            self.blocks[index] = Block(decompress(data[32:]), FULL)
        except DamagedTable:
            return False
        return True

    def store(self, index: int, body: bytes) -> None:
        """Keep a counted class (:data:`~counts.FULL`); written atomically, kept in
        memory alone if the cache directory cannot be written."""
        self.blocks[index] = Block(body, FULL)
        data = compress(body)
        with suppress(OSError):
            self.dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-")
            with os.fdopen(fd, "wb") as out:
                out.write(hashlib.sha256(data).digest() + data)
            os.replace(tmp, self._path(index))


def figures(payoffs: Payoffs, block: Block, pair: int) -> CallValue:
    """A situation's exact figures under a profile, from its counts."""
    value, not_qualified, turns = block.figures(pair, payoffs)
    return (Fraction(value, payoffs.scale * COMPLETIONS), Fraction(COMPLETIONS - not_qualified, COMPLETIONS),
            tuple(_SHARE[n] for n in turns))


def numpy_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - the par extra is missing
        return False
    return True


def table_values(situations: Iterable[Situation], jobs: int, progress: Callable[[int], None] | None = None,
                 counting: Callable[[int], None] | None = None) -> dict[Situation, CallValue]:
    """The situations the tables serve, with their figures: every one whose qualifier is
    shipped, and, with NumPy, every other (their classes counted once, in ``jobs``
    processes, and cached). ``progress`` is told of situations valued (a counted class's
    all at once); ``counting`` of how many classes are to be counted, before they are."""
    c = classes()
    tables: dict[tuple[int, bool], CountTable] = {}
    located: dict[Situation, tuple[CountTable, int, int]] = {}
    payoffs: dict[ProfileOrigin, tuple[Payoffs, CountTable]] = {}
    missing: dict[tuple[int, int], list[Situation]] = {}
    for s in dict.fromkeys(situations):
        origin, known = s
        if origin not in payoffs:
            profile = origin.resolve().profile
            p = Payoffs.of(profile)
            key = CountTable.serving(p, profile.dealer_qualifier.floor())
            if key not in tables:
                tables[key] = CountTable(*key)
            payoffs[origin] = (p, tables[key])
        table = payoffs[origin][1]
        index, pair = c.locate(known)
        located[s] = (table, index, pair)
        if not table.load(index):
            missing.setdefault((table.qualifier, index), []).append(s)
    found: dict[Situation, CallValue] = {}
    if missing and numpy_available():
        if counting:
            counting(len(missing))
        for (q, index), body in _count([(q, i, c.flops[i], FULL.code) for q, i in sorted(missing)], jobs):
            tables[(q, False)].store(index, body)
            wanted = missing.pop((q, index))
            for s in wanted:
                table, _, pair = located.pop(s)
                found[s] = figures(payoffs[s[0]][0], table.blocks[index], pair)
            if progress:
                progress(len(wanted))
    for wanted in missing.values():  # without NumPy: left for the one-by-one count
        for s in wanted:
            del located[s]
    for s, (table, index, pair) in located.items():
        found[s] = figures(payoffs[s[0]][0], table.blocks[index], pair)
        if progress:
            progress(1)
    return found


Work = tuple[int, int, tuple[int, ...], int]  # qualifier, class index, its canonical flop, layout code


def count_class(work: Work) -> tuple[tuple[int, int], bytes]:
    """One flop class's counts under a qualifier, as a block body in a layout."""
    from .flops import FULL_DECK, FlopCounter, shared_tables

    q, index, flop, layout = work
    _, counts, completions = FlopCounter(FULL_DECK, q, shared_tables()).counts(flop)
    assert completions == COMPLETIONS and counts.shape[0] == PAIRS
    return (q, index), encode(counts, LAYOUTS[layout])


def _count(work: list[Work], jobs: int) -> Iterator[tuple[tuple[int, int], bytes]]:
    if jobs <= 1 or len(work) < 2:
        yield from map(count_class, work)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .flops import shared_tables

    shared_tables()  # made once, shared with the forked workers
    with ProcessPoolExecutor(min(jobs, len(work)), mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(count_class, work, chunksize=1)
