"""Alerts grouped by cause: one group a root cause, led by the segment that explains the rest.

Why groups: a table that pays short moves its own cells, its players', its stake bands',
its dealer's and ``all``; read flat, that is dozens of alerts sorted by name, the table
near the end. A group names the lead (the table), lists the others under it, and says
which games are behind it, so whoever reads it knows where to look first.

This module holds the shape every reader of a group shares (``monitor``'s JSON, text and
HTML, ``monitor --record``, ``referee alerts``, ``monitor --notify`` and the desk).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..analysis.distributions import NORMAL
from . import randomness
from .cells import KEYS
from .facts import Seat, when
from .run import Judged, Verdict
from .series import members, running


@dataclass(frozen=True, slots=True)
class GroupedAlert:
    """One alert of a group: its segment (``table T3``), bet (``deal`` for a deal test),
    test, window, basis and figures."""

    segment: str
    bet: str
    test: str
    window: str
    basis: str
    z: float | None
    p: float | None

    @property
    def severity(self) -> float:
        return abs(self.z) if self.test == "rtp" and self.z is not None else _z_of(self.p)

    def to_json(self) -> dict[str, object]:
        return {"segment": self.segment, "bet": self.bet, "test": self.test, "window": self.window,
                "basis": self.basis, "z": self.z, "p": self.p}


@dataclass(frozen=True, slots=True)
class AlertGroup:
    """One cause: its lead segment first in ``segments``, the games behind it.

    ``lead`` and each of ``segments`` are a segment as the monitor names it (``table T3``,
    ``player p-3-004``, ``all all``); ``basis`` is ``rules`` or ``paid``; ``z`` is the lead
    cell's standardised excess (the most extreme sign kept); ``first_game`` and
    ``last_game`` are the ids of the earliest and latest game behind the group (None when
    the store keeps no id); ``since`` and ``until`` their times (ISO 8601, UTC) when games
    have times."""

    lead: str
    basis: str
    segments: tuple[str, ...]
    z: float | None
    bet: str
    window: str
    first_game: str | None = None
    last_game: str | None = None
    since: str | None = None
    until: str | None = None
    #: The lead alert's test: ``rtp`` for a cell, else the deal test's name (``bet`` is then
    #: ``deal`` and ``basis`` ``deal``: what was dealt, whatever was paid); its p-value.
    test: str = "rtp"
    p: float | None = None
    #: How many games are behind the group (the lead segment's, in the group's alerts).
    games: int = 0
    #: Every alert of the group, the lead's first (each test once, as ``alerts`` counts them).
    alerts: tuple[GroupedAlert, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """The group as ``monitor --format json`` writes it in ``alert_groups``."""
        out: dict[str, object] = {
            "lead": self.lead, "basis": self.basis, "segments": list(self.segments), "z": self.z,
            "bet": self.bet, "window": self.window, "first_game": self.first_game,
            "last_game": self.last_game}
        if self.since is not None or self.until is not None:
            out["since"] = self.since
            out["until"] = self.until
        out.update({"test": self.test, "p": self.p, "games": self.games,
                    "alerts": [a.to_json() for a in self.alerts]})
        return out

    @property
    def severity(self) -> float:
        """How far out the group is, its lead's |z| or its most extreme alert's (a deal
        test's p as the normal's |z| of the same tail): groups are listed most severe first."""
        return max([abs(self.z) if self.z is not None else 0.0, *(a.severity for a in self.alerts)])


#: An alert's seats outside a candidate lead show "no excess" when their z (in the alert's
#: direction) stays below this: a one-sided 0.5% test, a plain one (not the family band's
#: 3.7), so that a segment is said explained only when what is left of it looks fair.
#: Why a single test's level: what is checked is whether the excess is *elsewhere*, and a
#: fair remainder passes it 99.5% of the time; a band as strict as the alerts' would call
#: a remainder of a few hundred rigged games fair and pull an unrelated segment in.
EXCESS_Z = 2.576
EXCESS_P = 0.01
#: Segment kinds a deal can be taken out by: a game's (every seat of a game shares them).
#: A player or a stake band is a seat's, and says nothing about which deals were dealt.
GAME_KINDS = ("all", "table", "dealer", "profile")
#: Which kind leads when two segments explain each other equally (same seats, same z).
ORDER = ("table", "dealer", "profile", "stake", "player", "all")
#: A p-value too small for a float's normal quantile: read as this many standard deviations.
FAR = 40.0


@dataclass(slots=True)
class _Alert:
    """One alert being grouped: its segment, what it tested, its seats (oldest first)."""

    kind: str
    value: str
    bet: str
    test: str
    window: str
    basis: str
    z: float | None
    p: float | None
    seats: list[Seat]
    #: The bet as the sums keep it (``paid``: the main game on the paid basis, ``cells.Cell.summed_as``).
    summed: str = ""
    #: False: not an alert, the cell of a table that leads its alerting players (``_tables_behind``).
    alert: bool = True

    @property
    def severity(self) -> float:
        """Its |z|: a deal test's from its p-value (the normal quantile of the same tail)."""
        if self.z is not None and self.test == "rtp":
            return abs(self.z)
        return _z_of(self.p)

    @property
    def segment(self) -> tuple[str, str]:
        return (self.kind, self.value)

    def grouped(self) -> GroupedAlert:
        return GroupedAlert(f"{self.kind} {self.value}", self.bet, self.test, self.window, self.basis, self.z, self.p)


def _z_of(p: float | None) -> float:
    if p is None:
        return 0.0
    if p <= 0.0:
        return FAR
    if p >= 1.0:
        return 0.0
    return min(FAR, -NORMAL.inv_cdf(p / 2))  # the lower tail: exact for the smallest p


def _alerts(verdict: Verdict, seats: list[Seat]) -> list[_Alert]:
    out: list[_Alert] = []
    for j in verdict.every_alert:
        if isinstance(j, Judged):
            c = j.cell
            out.append(_Alert(c.kind, c.segment, c.bet, "rtp", c.window, c.basis, c.z, j.p,
                              members(seats, c.kind, c.segment, c.summed_as, c.window, verdict.newest_us),
                              c.summed_as))
        else:
            t = j.test
            z = t.statistic if t.dof is None else _z_of(t.p)
            out.append(_Alert(t.kind, t.segment, "deal", t.test, t.window, "deal", z, t.p,
                              members(seats, t.kind, t.segment, "deal", t.window, verdict.newest_us)))
    return out


class _Grouper:
    """Which alerting segment explains which: segment A explains segment B when every
    alert of B, with A's seats taken out, shows no excess (its seats elsewhere look fair)."""

    def __init__(self, alerts: list[_Alert], verdict: Verdict) -> None:
        self.verdict = verdict
        self.by_segment: dict[tuple[str, str], list[_Alert]] = {}
        for a in alerts:
            self.by_segment.setdefault(a.segment, []).append(a)
        self.size = {k: len({id(s) for a in v for s in a.seats}) for k, v in self.by_segment.items()}
        self.severity = {k: max(a.severity for a in v) for k, v in self.by_segment.items()}
        self._explains: dict[tuple[tuple[str, str], tuple[str, str]], bool] = {}
        self._present: dict[tuple[int, str], set[str | None]] = {}

    def overlaps(self, a: _Alert, segment: tuple[str, str]) -> bool:
        """Whether any of ``a``'s seats is in ``segment`` (the values of its kind among
        them, worked out once: most pairs of segments share no seat)."""
        key = (id(a), segment[0])
        found = self._present.get(key)
        if found is None:
            of = KEYS[segment[0]]
            found = self._present[key] = {of(s) for s in a.seats}
        return segment[1] in found

    def explains(self, lead: tuple[str, str], other: tuple[str, str]) -> bool:
        key = (lead, other)
        if key not in self._explains:
            alerts = self.by_segment[other]
            self._explains[key] = (all(self.overlaps(a, lead) for a in alerts)
                                   and all(not self.excess(a, [lead]) for a in alerts))
        return self._explains[key]

    def excess(self, a: _Alert, outside: Iterable[tuple[str, str]]) -> bool:
        """Whether alert ``a``'s seats outside the segments ``outside`` still show its excess."""
        taken = [(KEYS[kind], value) for kind, value in outside]
        if a.bet == "deal" and any(kind not in GAME_KINDS for kind, _ in outside):
            return True  # a seat's segment cannot take a deal out
        rest = [s for s in a.seats if not any(key(s) == value for key, value in taken)]
        if len(rest) == len(a.seats):
            return True  # nothing taken out: the alert itself
        if not rest:
            return False
        if a.bet == "deal":
            return _deal_excess(a, rest)
        points = running(rest, a.summed or a.bet, self.verdict.scale, self.verdict.scale2, points=1)
        last = points[-1]
        if last.sd <= 0 or a.z is None:
            return False
        return (last.observed - last.expected) / last.sd * math.copysign(1.0, a.z) > EXCESS_Z

    def points_to(self, a: tuple[str, str], b: tuple[str, str]) -> bool:
        """Whether ``a``'s excess is ``b``'s: ``b`` explains ``a`` and, when ``a`` explains
        ``b`` too, ``b`` is the more extreme (then the fewer seats, then the kind first in
        :data:`ORDER`)."""
        if not self.explains(b, a):
            return False
        if not self.explains(a, b):
            return True
        return self._rank(b) < self._rank(a)

    def _rank(self, k: tuple[str, str]) -> tuple[float, int, int, str]:
        return (-round(self.severity[k], 9), self.size[k], ORDER.index(k[0]) if k[0] in ORDER else len(ORDER), k[1])


def _deal_excess(a: _Alert, rest: list[Seat]) -> bool:
    """Whether the deals ``rest`` (those of a deal test's alert outside a lead) still fail
    its test at the plain level :data:`EXCESS_P` (in its direction, for a z)."""
    from .deal_columns import banded  # NumPy, imported when a group is judged

    found = [t for t in randomness.tests(banded(rest, ["all"]))
             if t.test == a.test and t.p is not None]
    if not found:
        return False  # too few deals left to test: nothing to show an excess
    t = max(found, key=lambda t: t.deals)
    assert t.p is not None
    same_side = t.dof is not None or a.z is None or t.statistic is None or (t.statistic > 0) == (a.z > 0)
    return t.p < EXCESS_P and same_side


def group_alerts(verdict: Verdict, seats: list[Seat]) -> list[AlertGroup]:
    """The verdict's alerts (each test once, deal tests too) in groups by cause, most
    severe first; ``seats``: the store's seats as the verdict was made from (valued).

    Each alerting segment points to the one that explains it (:meth:`_Grouper.points_to`);
    a segment that points to none leads a group, and every segment joins the group its
    pointers lead to. A lead that the other leads explain together (``all``, when two
    tables pay short) joins the one it shares most seats with."""
    alerts = _alerts(verdict, seats)
    if not alerts:
        return []
    g = _Grouper(alerts, verdict)
    segments = sorted(g.by_segment, key=g._rank)
    target: dict[tuple[str, str], tuple[str, str] | None] = {}
    for a in segments:
        found = [b for b in segments if b != a and g.points_to(a, b)]
        target[a] = min(found, key=g._rank) if found else None
    leads = {a: _root(a, target) for a in segments}
    _merge_joint(g, leads)
    _tables_behind(g, leads, verdict, seats)
    out = [_group(g, lead, [s for s in [*segments, lead] if leads.get(s) == lead], verdict)
           for lead in dict.fromkeys(leads[s] for s in segments)]
    return sorted(out, key=lambda x: (-x.severity, ORDER.index(x.lead.split(" ", 1)[0]) if x.lead.split(" ", 1)[0]
                                      in ORDER else len(ORDER), x.lead))


def _root(a: tuple[str, str], target: dict[tuple[str, str], tuple[str, str] | None]) -> tuple[str, str]:
    """Where ``a``'s pointers lead (a cycle, which noise may make: its first segment met again)."""
    seen = [a]
    while (b := target[seen[-1]]) is not None and b not in seen:
        seen.append(b)
    return seen[-1]


def _merge_joint(g: _Grouper, leads: dict[tuple[str, str], tuple[str, str]]) -> None:
    """A lead explained by the other leads together joins the one whose seats it shares most."""
    roots = list(dict.fromkeys(leads.values()))
    for r in sorted(roots, key=g._rank, reverse=True):  # the least severe first
        others = [o for o in dict.fromkeys(leads.values()) if o != r]
        if len(others) < 2 or any(g.excess(a, others) for a in g.by_segment[r]):
            continue
        key = {o: KEYS[o[0]] for o in others}
        shared = {o: sum(1 for a in g.by_segment[r] for s in a.seats if key[o](s) == o[1]) for o in others}
        best = max(others, key=lambda o: (shared[o], -g._rank(o)[0]))
        for s, lead in leads.items():
            if lead == r:
                leads[s] = best


def _tables_behind(g: _Grouper, leads: dict[tuple[str, str], tuple[str, str]], verdict: Verdict,
                   seats: list[Seat]) -> None:
    """A table whose own cells are inside the band but out at a single test's level
    (:data:`EXCESS_Z`) the same way leads the groups it is behind: players who alert apart,
    all at that table (:func:`_players_behind`), and a broad lead (a stake band, a profile,
    ``all``) whose players are all at it and which, the table's seats taken out, shows no
    excess (:func:`_broad_behind`).

    Why: a table that pays every winner a little short moves each player's cells more than
    its own (a table's games share one hand, so its sum varies far more than a player's
    share of it), and the stake band its small players share adds those players' shortfalls
    without the table's other hands: its players, or their stake band, may alert while the
    table does not. Read apart they look like players' disputes or a stake level's return;
    together they are the table's."""
    _broad_behind(g, leads, verdict, seats)
    _players_behind(g, leads, verdict, seats)


def _players_behind(g: _Grouper, leads: dict[tuple[str, str], tuple[str, str]], verdict: Verdict,
                    seats: list[Seat]) -> None:
    """Players who lead groups of their own, two or more at one table whose cell is out at a
    single test's level the same way: the table leads them. A table that leads a group
    already without alerting itself (a broad lead it is behind) takes in each such player
    alone too, when the player's excess is on the table's basis and side."""
    by_table: dict[str, list[tuple[str, str]]] = {}
    for lead in dict.fromkeys(leads.values()):
        if lead[0] != "player":
            continue
        table = _one_table(g, [lead])
        if table is not None:
            by_table.setdefault(table, []).append(lead)
    for table, players in by_table.items():
        at = ("table", table)
        held = g.by_segment.get(at)
        if held is not None:  # the table is in a group: only as the lead a broad lead gave it
            if held[0].alert or at not in leads.values():
                continue
            players = [p for p in players if _same_way(g, p, held[0])]
        elif len(players) < 2 or not _table_behind(g, table, players, verdict, seats):
            continue
        for s, lead in leads.items():
            if lead in players:
                leads[s] = at


def _same_way(g: _Grouper, segment: tuple[str, str], head: _Alert) -> bool:
    """Whether ``segment``'s most severe alert is a return on ``head``'s basis and bet, on its side."""
    first = max(g.by_segment[segment], key=lambda a: a.severity)
    return (first.test == "rtp" and first.basis == head.basis and first.bet == head.bet and first.z is not None
            and head.z is not None and (first.z > 0) == (head.z > 0))


#: Leads broad enough to hold a whole table's players among others': a table explains them
#: only when what is left of them without it is fair (a dealer is a game's own segment, left
#: as it leads).
BROAD = ("all", "profile", "stake")


def _broad_behind(g: _Grouper, leads: dict[tuple[str, str], tuple[str, str]], verdict: Verdict,
                  seats: list[Seat]) -> None:
    """A broad lead (:data:`BROAD`) whose group's players are all at one table, whose every
    alert (its own and those under it) shows no excess with that table's seats taken out,
    and the table's cell out at a single test's level the same way: the table leads it.

    Why: a table paying every winner 1 short moves its Ante-1 players most (1 is their whole
    Ante); their stake band adds them up without the table's larger stakes and other hands,
    and may alert while the table's own cell, its games sharing one hand, stays inside the
    band (issue 47: ``stake ante <= 1`` at z -4.26 led three of T3's players, T3 at -3.66).
    With no player under it, the table is the one all its seats were at, else the one whose
    removal alone clears it (:func:`_only_table_out`); a table that alerts itself and was put
    under this very lead leads it too (a risk analyst's trial: a table paying 2 short, its
    cell at z -4.71, under ``stake ante <= 1`` at -11.55)."""
    for lead in list(dict.fromkeys(leads.values())):
        if lead[0] not in BROAD:
            continue
        joined = [s for s, to in leads.items() if to == lead and s != lead]
        players = [s for s in joined if s[0] == "player"]
        every = [lead, *joined]
        table = _one_table(g, players) if players else (_one_table(g, every) or _only_table_out(g, every))
        if table is None:
            continue
        at = ("table", table)
        if at in g.by_segment and leads.get(at) not in (at, lead):
            continue  # the table alerts, and joined a group of another lead: grouping has spoken
        out = [at]
        if any(g.excess(a, out) for s in [lead, *joined] for a in g.by_segment[s]):
            continue
        level = EXCESS_Z if players else 0.0  # no player to point at it: the removal test decides
        if at not in g.by_segment and not _table_behind(g, table, [lead, *joined], verdict, seats, level):
            continue
        for s, to in leads.items():
            if to == lead:
                leads[s] = at


def _only_table_out(g: _Grouper, segments: list[tuple[str, str]]) -> str | None:
    """The one table whose seats taken out leave every alert of ``segments`` without excess,
    when taking out any other table leaves one with it; else None.

    Why: a stake band's alert whose players are too few games each to be tested names no
    player; the table is then found by what explains the excess (issue 47: at four tables of
    1,500 games, ``stake ante <= 1`` at z -4.43, T3 paying every winner 1 short at -2.41,
    no player tested). Two tables paying short leave excess whichever is taken out: no one
    table, the broad lead stands."""
    alerts = [a for k in segments for a in g.by_segment[k]]
    tables = sorted({str(s.table) for a in alerts for s in a.seats if s.table is not None})
    if len(tables) < 2:
        return None
    clear: list[str] = []
    for t in tables:  # each table's removal tested until a second one clears: then none is the one
        if not any(g.excess(a, [("table", t)]) for a in alerts):
            clear.append(t)
            if len(clear) > 1:
                return None
    return clear[0] if clear else None


def _one_table(g: _Grouper, segments: list[tuple[str, str]]) -> str | None:
    """The one table every seat of these segments' alerts was at, else None."""
    tables = {s.table for k in segments for a in g.by_segment[k] for s in a.seats}
    if len(tables) == 1 and None not in tables:
        return str(next(iter(tables)))
    return None


def _table_behind(g: _Grouper, table: str, behind: list[tuple[str, str]], verdict: Verdict,
                  seats: list[Seat], level: float = EXCESS_Z) -> bool:
    """Whether ``table``'s most extreme cell on the basis and bet of the most severe alert of
    ``behind`` is beyond ``level`` (a single test's, :data:`EXCESS_Z`, unless the removal
    test has named the table) the same way; if so, it is put among the grouped segments
    (not an alert: the group's headline) and True."""
    first = max((a for k in behind for a in g.by_segment[k]), key=lambda a: a.severity)
    if first.z is None or first.test != "rtp":
        return False
    side = math.copysign(1.0, first.z)
    cells = [j for j in verdict.cells if (j.cell.kind, j.cell.segment) == ("table", table)
             and j.cell.basis == first.basis and j.cell.bet == first.bet and j.cell.z is not None]
    if not cells:
        return False
    judged = max(cells, key=lambda j: (j.cell.z or 0.0) * side)
    cell = judged.cell
    if cell.z is None or cell.z * side <= level:
        return False
    held = members(seats, "table", table, cell.summed_as, cell.window, verdict.newest_us)
    g.by_segment[("table", table)] = [_Alert("table", table, cell.bet, "rtp", cell.window, cell.basis, cell.z,
                                             judged.p, held, cell.summed_as, alert=False)]
    return True


def _group(g: _Grouper, lead: tuple[str, str], joined: list[tuple[str, str]], verdict: Verdict) -> AlertGroup:
    """The group led by ``lead``: its most severe alert's figures, the games behind it."""

    own = g.by_segment[lead]
    # its headline: the lead's most extreme return (a z on the basis that alerted), else its deal test
    first = max(own, key=lambda a: (a.test == "rtp", a.severity))
    behind = {id(s): s for a in own for s in a.seats}.values()
    oldest = min(behind, key=lambda s: s.order, default=None)
    newest = max(behind, key=lambda s: s.order, default=None)
    times = [s.time_us for s in behind if s.time_us is not None]
    alerts = [first, *(a for a in own if a is not first),
              *sorted((a for s in joined if s != lead for a in g.by_segment[s]), key=lambda a: -a.severity)]
    names = dict.fromkeys(f"{a.kind} {a.value}" for a in alerts)
    alerts = [a for a in alerts if a.alert]  # a table that leads its players: its cell is no alert
    return AlertGroup(
        lead=f"{lead[0]} {lead[1]}", basis=first.basis, segments=tuple(names), z=first.z, bet=first.bet,
        window=first.window, first_game=_game_id(oldest), last_game=_game_id(newest),
        since=when(min(times)) if times else None, until=when(max(times)) if times else None,
        test=first.test, p=first.p, games=len({s.game for s in behind}),
        alerts=tuple(a.grouped() for a in alerts))


def _game_id(seat: Seat | None) -> str | None:
    """A game's id as the logs give it (``recall --game ID``); None for a round of format 1."""
    if seat is None or not isinstance(seat.game, tuple) or seat.game[0] != "game":
        return None
    return str(seat.game[2])
