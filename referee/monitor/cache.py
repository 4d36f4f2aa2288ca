"""The monitor's cache: the banded sums of every segment kept between runs, so that a run
reads only the seats stored since the last one (``docs/monitor.md``, "The cache").

Why it can: a window is a sum over bands (``cells``), a band a sum of games, and every
sum is exact (whole numbers; the floats of the cross terms as dyadic whole numbers,
``cells.dyadic``), so a game can be taken out of one band and put into another without
a trace. What a run does:

* the store's sources against the cache's: the same chain up to the sources it has seen
  (else the store is not the one it was made from, or was changed: it starts again);
* the seats stored since (``reading.seats`` after the cache's marks), valued and summed
  by game and segment (``columns.games``, ``randomness.deals``), appended to each segment's
  games (a game's place among its segment's games is fixed when it is added: newer
  games come after it);
* the games that newer ones push across a count window's edge (the 1,000th, the
  10,000th, the 100,000th newest of their segment) or that a newer game's time in their
  segment pushes out of a day, a week or a month (a segment's calendar windows end at its
  own newest game: each segment's newest time is kept), moved from band to band;
* a game past every window (older than the 100,000 newest of its segment and than a
  month) is dropped: no window will hold it again.

A game stored again later (its id on its table seen before) joins its earlier seats, and
a seat stored before one already seen would change the places of others: either makes the
cache start again, from the whole store. Its answer is the answer from the whole store:
tests compare the two, report for report. The cache is SQLite (the standard library's),
one transaction a run, one file a store: ``cache_root()/monitor``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from math import lcm
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from .cells import CALENDAR_WINDOWS, COUNT_WINDOWS, Banded, Games, Sums, count_band, last_time, time_band
from .packed import MARSHAL, Payload, pack, unpack
from .randomness import DealBanded, Deals, DealSums
from .valuing import Valuation

if TYPE_CHECKING:
    from ..store.engine import Target

#: What a cache made by another layout or another version holds is not trusted: started again.
FORMAT = f"6 {__version__} marshal {MARSHAL}"
FAR = (len(COUNT_WINDOWS), len(CALENDAR_WINDOWS))  # the band no window holds
_DEALS = "deal "  # a deal sequence's name: "deal table"; a cell sequence's is its kind

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batches (id INTEGER PRIMARY KEY, scales TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS segments (id INTEGER PRIMARY KEY, seq TEXT NOT NULL, segment TEXT NOT NULL,
    n INTEGER NOT NULL, newest INTEGER, UNIQUE (seq, segment));
CREATE TABLE IF NOT EXISTS payloads (id INTEGER PRIMARY KEY, batch INTEGER NOT NULL, refs INTEGER NOT NULL,
    data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS games (sid INTEGER, ordinal INTEGER, time_us INTEGER, cband INTEGER NOT NULL,
    tband INTEGER NOT NULL, payload INTEGER NOT NULL, PRIMARY KEY (sid, ordinal)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ix_games_time ON games (sid, time_us) WHERE time_us IS NOT NULL;
CREATE TABLE IF NOT EXISTS bands (sid INTEGER, bet TEXT, cband INTEGER, tband INTEGER, sums TEXT NOT NULL,
    jumps TEXT NOT NULL, PRIMARY KEY (sid, bet, cband, tband)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keys (game TEXT PRIMARY KEY) WITHOUT ROWID;
"""
_TABLES = ("meta", "batches", "segments", "payloads", "games", "bands", "keys")

Scales = tuple[int, int, int]
BandKey = tuple[int, str, int, int]  # segment id, bet, count band, time band


def default_path(where: Target) -> Path:
    """The cache of the store at ``where``: named by a digest of its absolute path (a
    SQLite file: ``audit.db`` typed in two folders is two stores) or of its URL without
    the password."""
    from ..analysis.situations import cache_root

    name = str(where.path.resolve()) if where.path is not None else where.shown
    return cache_root() / "monitor" / f"{hashlib.sha256(name.encode()).hexdigest()[:24]}.sqlite"


@dataclass(slots=True)
class State:
    """What the cache has seen: the store's first ``sources`` sources (the last one's
    chain hash), its seats and runs up to ``marks``, the newest game's time, and counts."""

    sources: int = 0
    chain: str | None = None
    marks: tuple[int, int] = (0, 0)
    newest: int | None = None
    order: int = 0
    seats: int = 0
    games: int = 0
    scales: Scales = (1, 1, 1)
    #: Counted seats with no record of what they were paid (the paid basis leaves them out).
    paid_unknown: int = 0


@dataclass(slots=True)
class Batch:
    """The seats stored since the cache's state, summed: what ``Cache.add`` adds."""

    sources: int
    chain: str | None
    marks: tuple[int, int]
    newest: int | None
    order: int
    seats: int
    keys: set[str]
    others: int  # games told apart by their row (no id on a table): new by construction
    scales: Scales
    games: Games
    deals: Deals = field(default_factory=dict)
    paid_unknown: int = 0


class Cache:
    """One store's cache file, opened for one run."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # a step of a long catch-up holds the lock for a minute or so: another run waits
        self.db = sqlite3.connect(path, timeout=600, isolation_level=None)
        # write-ahead: a run that finds the cache up to date reads it while another writes
        self.db.execute("PRAGMA journal_mode = WAL")
        if self._made_by() not in (None, FORMAT):
            self._remake()
        self.db.executescript(_SCHEMA)

    def _made_by(self) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.OperationalError:  # no meta table: a new file
            return None
        return None if row is None else str(row[0])

    def _remake(self) -> None:
        """A cache of another layout (another version): its tables dropped and made again
        (emptying them would keep the old columns)."""
        with self.transaction():
            if self._made_by() in (None, FORMAT):
                return  # another run remade it first
            names = [r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for name in names:
                self.db.execute(f'DROP TABLE "{name}"')
            for statement in _SCHEMA.split(";"):  # not executescript: it would commit first
                if statement.strip():
                    self.db.execute(statement)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[None]:
        """One writer at a time (``BEGIN IMMEDIATE``), all of it or nothing; or a
        consistent read (``write`` False) beside a writer."""
        self.db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def state(self) -> State | None:
        """What the cache has seen (None: empty, or made by another version)."""
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT or "state" not in meta:
            return None
        d = json.loads(meta["state"])
        a, b, c = d["scales"]
        return State(d["sources"], d["chain"], (d["marks"][0], d["marks"][1]), d["newest"], d["order"], d["seats"],
                     d["games"], (a, b, c), d["paid_unknown"])

    def reset(self) -> None:
        """Everything forgotten (inside a transaction)."""
        for table in _TABLES:
            self.db.execute(f"DELETE FROM {table}")

    def returning(self, keys: set[str]) -> bool:
        """Whether any of these games was seen before."""
        wanted = sorted(keys)
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            marks = ",".join("?" * len(part))
            if self.db.execute(f"SELECT 1 FROM keys WHERE game IN ({marks}) LIMIT 1", part).fetchone():
                return True
        return False

    def add(self, state: State, batch: Batch) -> State:
        """``batch`` into the bands, older games moved between them (inside a transaction)."""
        scales = _lcm(state.scales, batch.scales)
        bands = _Bands(self.db, scales)
        if scales != state.scales:
            bands.rescale(state.scales)
        batch_id = self.db.execute("INSERT INTO batches (scales) VALUES (?)", (json.dumps(batch.scales),)).lastrowid
        assert batch_id is not None
        newest = max((t for t in (state.newest, batch.newest) if t is not None), default=None)
        added: dict[tuple[str, str], list[tuple[int | None, Payload]]] = {}
        for (kind, segment), played in batch.games.items():
            added[(kind, segment)] = [(p.time_us, p.bets) for p in played]
        for (kind, segment), found in batch.deals.items():
            added[(_DEALS + kind, segment)] = list(found)
        ids = {(seq, segment): sid for sid, seq, segment in self.db.execute("SELECT id, seq, segment FROM segments")}
        counts = dict(self.db.execute("SELECT id, n FROM segments"))
        lasts: dict[int, int | None] = dict(self.db.execute("SELECT id, newest FROM segments"))
        for key in sorted(added.keys() - ids.keys()):
            made = self.db.execute("INSERT INTO segments (seq, segment, n) VALUES (?, ?, 0)", key).lastrowid
            assert made is not None
            ids[key] = made
        grown = {ids[key]: counts.get(ids[key], 0) + len(items) for key, items in added.items()}
        # each segment's calendar windows end at its own newest game
        later = {ids[key]: last_time([lasts.get(ids[key]), *(t for t, _ in items)]) for key, items in added.items()}
        _move(self.db, bands, counts, grown, lasts, later)
        rows, payloads = [], _Payloads(self.db, batch_id)
        for key, items in added.items():
            sid, n = ids[key], grown[ids[key]]
            for i, (time_us, sums) in enumerate(items):
                band = (count_band(i), time_band(time_us, later[sid]))
                bands.put(sid, sums, band, batch.scales, +1)
                if band != FAR:
                    rows.append((sid, n - 1 - i, time_us, band[0], band[1], payloads.id(sums)))
        payloads.write()
        self.db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)", rows)
        self.db.executemany("UPDATE segments SET n = ?, newest = ? WHERE id = ?",
                            [(n, later[sid], sid) for sid, n in grown.items()])
        self.db.executemany("INSERT INTO keys VALUES (?)", [(k,) for k in batch.keys])
        bands.write()
        new = State(batch.sources, batch.chain, batch.marks, newest, max(state.order, batch.order),
                    state.seats + batch.seats, state.games + len(batch.keys) + batch.others, scales,
                    state.paid_unknown + batch.paid_unknown)
        self.keep(new)
        return new

    def keep(self, state: State) -> None:
        d = {"sources": state.sources, "chain": state.chain, "marks": list(state.marks), "newest": state.newest,
             "order": state.order, "seats": state.seats, "games": state.games, "scales": list(state.scales),
             "paid_unknown": state.paid_unknown}
        self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                            [("format", FORMAT), ("state", json.dumps(d))])

    def banded(self, state: State) -> tuple[Banded, DealBanded, Valuation]:
        """The bands as the monitor sums windows from them, over the cache's denominators."""
        cells: Banded = defaultdict(lambda: defaultdict(Sums))
        deals: DealBanded = defaultdict(lambda: defaultdict(DealSums))
        for seq, segment, bet, cband, tband, sums, jumps in self.db.execute(
                "SELECT seq, segment, bet, cband, tband, sums, jumps FROM bands JOIN segments ON segments.id = sid"):
            values = json.loads(sums)
            if seq.startswith(_DEALS):
                deals[(seq.removeprefix(_DEALS), segment)][(cband, tband)] = DealSums.of(values)
            else:
                s = _sums(values)
                s.jump = max((float(k) for k, n in json.loads(jumps).items() if n), default=0.0)
                cells[(seq, segment, bet)][(cband, tband)] = s
        scale, scale2, scale3 = state.scales
        return cells, deals, Valuation(scale, scale2, scale3)


class _Payloads:
    """A batch's packed game sums, each kept once however many segments hold it (a game's
    sums are the same for its table, dealer, profile and all; its deal for three; and
    games alike, as folds of one stake, pack alike), with how many rows refer to it: a
    payload goes with its last row."""

    def __init__(self, db: sqlite3.Connection, batch: int) -> None:
        self.db = db
        self.batch = batch
        self.next = (db.execute("SELECT max(id) FROM payloads").fetchone()[0] or 0) + 1
        #: Packed bytes -> [id, rows]; and a sums object's id -> its packed bytes (the
        #: same object for the segments that share it: packed once).
        self.made: dict[bytes, list[int]] = {}
        self.packed: dict[int, tuple[Payload, bytes]] = {}

    def id(self, sums: Payload) -> int:
        found = self.packed.get(id(sums))
        if found is None:  # the object is kept beside its id: its id is not reused meanwhile
            found = self.packed[id(sums)] = (sums, pack(sums))
        row = self.made.get(found[1])
        if row is None:
            row = self.made[found[1]] = [self.next, 0]
            self.next += 1
        row[1] += 1
        return row[0]

    def write(self) -> None:
        self.db.executemany("INSERT INTO payloads VALUES (?, ?, ?, ?)",
                            [(i, self.batch, refs, data) for data, (i, refs) in self.made.items()])


class _Bands:
    """The bands a run changes, read when first touched and written back at the end.

    A game's sums are not added to a band one by one: they are summed first, per band,
    per sign and per the denominators they come over (``changes``), and the totals then
    scaled and added once (``write``): the same whole numbers (addition is exact and
    scaling linear), at a band's cost instead of a game's."""

    def __init__(self, db: sqlite3.Connection, scales: Scales) -> None:
        self.db = db
        self.scales = scales
        #: A band's sums (None: not stored yet) and its games' jumps (how many games each).
        self.held: dict[BandKey, tuple[list[int] | None, dict[str, int]]] = {}
        #: What the run adds (sign 1) to and takes (-1) from each band, per denominators.
        self.changes: dict[tuple[BandKey, Scales, int], Sums] = {}
        self.deal_changes: dict[tuple[BandKey, int], DealSums] = {}
        self.jumps: dict[BandKey, dict[float, int]] = defaultdict(lambda: defaultdict(int))

    def rescale(self, old: Scales) -> None:
        """Every stored cell band from the old denominators to the new (deal bands have none)."""
        factors = _factors(self.scales, old)
        for sid, bet, cband, tband in list(self.db.execute("SELECT sid, bet, cband, tband FROM bands")):
            if bet != "deal":
                values, _ = self._get((sid, bet, cband, tband))
                assert values is not None
                values[:] = _scaled(values, bet, factors)

    def _get(self, key: BandKey) -> tuple[list[int] | None, dict[str, int]]:
        found = self.held.get(key)
        if found is None:
            row = self.db.execute("SELECT sums, jumps FROM bands WHERE sid = ? AND bet = ? AND cband = ? AND tband = ?",
                                  key).fetchone()
            found = (json.loads(row[0]), json.loads(row[1])) if row else (None, {})
            self.held[key] = found
        return found

    def put(self, sid: int, sums: Payload, band: tuple[int, int], scales: Scales, sign: int) -> None:
        """A game's sums (its batch's denominators) added to (sign 1) or taken from (-1) a band."""
        if band == FAR:
            return
        if isinstance(sums, DealSums):
            dealt = (sid, "deal", band[0], band[1]), sign
            deals = self.deal_changes.get(dealt)
            if deals is None:
                deals = self.deal_changes[dealt] = DealSums()
            deals.add(sums)
            return
        for bet, one in sums.items():
            key = (sid, bet, band[0], band[1])
            change = key, scales, sign
            total = self.changes.get(change)
            if total is None:
                total = self.changes[change] = Sums()
            total.add(one)
            self.jumps[key][one.jump] += sign

    def _apply(self) -> None:
        """The changes into the bands they change."""
        changes = [(key, sign, _scaled(_sums_list(total), key[1], _factors(self.scales, scales)))
                   for (key, scales, sign), total in self.changes.items()]
        changes += [(key, sign, deals.numbers()) for (key, sign), deals in self.deal_changes.items()]
        for key, sign, values in changes:
            held, jumps = self._get(key)
            if held is None:
                held = [0] * len(values)
                self.held[key] = (held, jumps)
            held[:] = [a + sign * b for a, b in zip(held, values, strict=True)]
        for key, counts in self.jumps.items():
            _, jumps = self._get(key)
            for jump, n in counts.items():
                k = repr(jump)
                jumps[k] = jumps.get(k, 0) + n
                if not jumps[k]:
                    del jumps[k]
        self.changes.clear()
        self.deal_changes.clear()
        self.jumps.clear()

    def write(self) -> None:
        self._apply()
        gone: list[BandKey] = []
        kept: list[tuple[object, ...]] = []
        for key, (values, jumps) in self.held.items():
            if values is None:
                continue
            if not any(values):
                gone.append(key)
            else:
                kept.append((*key, json.dumps(values), json.dumps(jumps)))
        self.db.executemany("DELETE FROM bands WHERE sid = ? AND bet = ? AND cband = ? AND tband = ?", gone)
        self.db.executemany("INSERT OR REPLACE INTO bands VALUES (?, ?, ?, ?, ?, ?)", kept)


def _move(db: sqlite3.Connection, bands: _Bands, counts: dict[int, int], grown: dict[int, int],
          lasts: dict[int, int | None], later: dict[int, int | None]) -> None:
    """The stored games whose band the new games change: pushed past a count window's
    edge in their segment, or out of a calendar window by a newer time in their segment
    (``lasts``: each segment's newest game's time before, ``later``: after)."""
    wanted: set[tuple[int, int]] = set()
    for sid, n in grown.items():
        before = counts.get(sid, 0)
        for edge in COUNT_WINDOWS:
            low, high = max(before - edge, 0), min(n - edge, before)  # ordinals whose rank crosses the edge
            if low < high:
                wanted.update((sid, o) for o in range(low, high))
    found: dict[tuple[int, int], tuple[int | None, int, int, int]] = {}
    select = "SELECT sid, ordinal, time_us, cband, tband, payload FROM games"
    for sid, newest in later.items():
        old_newest = lasts.get(sid)
        if old_newest is None or newest is None or newest <= old_newest:
            continue
        for _, span in CALENDAR_WINDOWS:
            for _, o, t, cb, tb, payload in db.execute(f"{select} WHERE sid = ? AND time_us > ? AND time_us <= ?",
                                                       (sid, old_newest - span, newest - span)):
                found[(sid, o)] = (t, cb, tb, payload)
    for sid, o in wanted - found.keys():
        row = db.execute(f"{select} WHERE sid = ? AND ordinal = ?", (sid, o)).fetchone()
        if row is not None:  # a game past every window was dropped already
            found[(sid, o)] = (row[2], row[3], row[4], row[5])
    scales: dict[int, Scales] = {}
    for i, text in db.execute("SELECT id, scales FROM batches"):
        a, b, c = json.loads(text)
        scales[i] = (a, b, c)
    moved: list[tuple[int, int, int, int]] = []
    dropped: list[tuple[int, int]] = []
    gone: dict[int, int] = defaultdict(int)
    payloads: dict[int, tuple[Payload, Scales]] = {}
    for (sid, o), (t, cb, tb, payload) in found.items():
        n = grown.get(sid, counts.get(sid, 0))
        band = (count_band(n - 1 - o), time_band(t, later.get(sid, lasts.get(sid))))
        if band == (cb, tb):
            continue
        if payload not in payloads:
            batch, data = db.execute("SELECT batch, data FROM payloads WHERE id = ?", (payload,)).fetchone()
            payloads[payload] = (unpack(data), scales[batch])
        game, game_scales = payloads[payload]
        bands.put(sid, game, (cb, tb), game_scales, -1)
        bands.put(sid, game, band, game_scales, +1)
        if band == FAR:
            dropped.append((sid, o))
            gone[payload] += 1
        else:
            moved.append((band[0], band[1], sid, o))
    db.executemany("UPDATE games SET cband = ?, tband = ? WHERE sid = ? AND ordinal = ?", moved)
    db.executemany("DELETE FROM games WHERE sid = ? AND ordinal = ?", dropped)
    db.executemany("UPDATE payloads SET refs = refs - ? WHERE id = ?", [(n, i) for i, n in gone.items()])
    db.executemany("DELETE FROM payloads WHERE id = ? AND refs = 0", [(i,) for i in gone])


_CELL_FIELDS = ("games", "seats", "staked", "observed", "expected", "variance", "cross", "third", "cross3", "terms",
                "owed_player", "owed_house", "paid_unknown")


def _lcm(a: Scales, b: Scales) -> Scales:
    return lcm(a[0], b[0]), lcm(a[1], b[1]), lcm(a[2], b[2])


def _factors(new: Scales, old: Scales) -> Scales:
    """What turns sums over ``old``'s denominators into sums over ``new``'s (multiples of them)."""
    return new[0] // old[0], new[1] // old[1], new[2] // old[2]


def _sums_list(s: Sums) -> list[int]:
    return [getattr(s, name) for name in _CELL_FIELDS]


def _sums(values: list[int]) -> Sums:
    return Sums(**dict(zip(_CELL_FIELDS, values, strict=True)))


def _scaled(values: list[int], bet: str, factors: Scales) -> list[int]:
    """Cell sums from one set of denominators to a multiple of it: the expected net over
    ``scale``, the observed too for the Bonus (the main bet's is in millionths), the
    variance over ``scale2``, the third cumulant over ``scale3``."""
    f1, f2, f3 = factors
    g, n, staked, observed, expected, variance, cross, third, cross3, terms, *money = values
    return [g, n, staked, observed * (f1 if bet == "bonus" else 1), expected * f1, variance * f2, cross, third * f3,
            cross3, terms, *money]
