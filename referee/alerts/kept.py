"""Alert groups, their actions and their webhook notifications kept in the store (schema 0007).

Why append-only rows: a group is evidence (what the monitor found, when, from which
alerts), an acknowledgement is evidence (who took it, when, saying what); each row is
digested and linked into its table's chain in the writer's transaction, so a row changed,
removed or moved later is what ``store verify`` and a signed checkpoint find. A group's
state is never written over: it follows from its actions (``open``, ``acknowledged`` once
someone acknowledged it, ``resolved`` once someone resolved it).

Why a group is recorded once while open: a table that pays short alerts on every run,
over windows that move with every new game; an incident that is one cause stays one
group (and one webhook message) until someone resolves it. Its alerts are still kept on
every run (``alerts``, with their inputs): the evidence keeps growing, the group does not.
Once resolved, the next run that finds the same lead again records (and posts) a new group.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..monitor.groups import AlertGroup, GroupedAlert
from ..store import chains, digest, schema

#: The states a group can be in, in the order ``referee alerts list`` shows them.
STATES = ("open", "acknowledged", "resolved")


@dataclass(frozen=True, slots=True)
class KeptAlert:
    """An alert of this run as kept in ``alerts`` (new or recorded before): its id, its
    segment as groups name one (``table T3``), its basis when its figures say one, and the
    SHA-256 of its inputs."""

    id: int
    segment: str
    basis: str | None
    bet: str
    test: str
    window: str
    inputs_digest: str

    @property
    def words(self) -> str:
        """``table T3 ante+call rtp last 1,000 games``: its segment, bet, test and window."""
        return f"{self.segment} {self.bet} {self.test} {self.window}"


@dataclass(frozen=True, slots=True)
class KeptGroup:
    """A group as the store keeps it, with its state and its actions (oldest first)."""

    id: int
    raised_us: int
    host: str
    version: str
    group: AlertGroup
    #: The group as ``monitor --format json`` wrote it (every field it had).
    figures: dict[str, Any]
    band: str
    alerts: tuple[int, ...]
    inputs_digest: str
    actions: tuple[dict[str, Any], ...] = ()
    notifications: tuple[dict[str, Any], ...] = ()

    @property
    def state(self) -> str:
        done = {a["action"] for a in self.actions}
        return "resolved" if "resolve" in done else ("acknowledged" if "ack" in done else "open")


def now_us() -> int:
    return time.time_ns() // 1000


def lock(conn: Any) -> None:
    """The store's lock, as a writer takes it (``store_meta``'s row), in the open transaction."""
    conn.execute(schema.store_meta.update().where(schema.store_meta.c.id == 1).values(
        writer=f"{socket.gethostname()}:{os.getpid()}"))


def _append(conn: Any, name: str, rows: list[dict[str, object]]) -> list[int]:
    """Rows appended to the chained table ``name`` (ids given one after another, each
    digested and linked): their ids. The caller holds the store's lock."""
    import sqlalchemy as sa

    if not rows:
        return []
    table = schema.metadata.tables[name]
    next_id = (conn.execute(sa.select(sa.func.max(table.c.id))).scalar() or 0) + 1
    ids, linked = [], []
    for values in rows:
        values = {"id": next_id, **values}
        values["digest"] = digest.of(tuple(values[c] for c in digest.columns(name)))
        conn.execute(table.insert().values(**values))
        ids.append(next_id)
        linked.append(str(values["digest"]))
        next_id += 1
    chains.link(conn, name, linked)
    return ids


def _open_leads(conn: Any) -> set[tuple[str, str]]:
    """The lead and basis of every group not resolved."""
    import sqlalchemy as sa

    g, a = schema.alert_groups, schema.alert_actions
    resolved = sa.select(a.c.group_id).where(a.c.action == "resolve")
    return {(r.lead, r.basis) for r in conn.execute(sa.select(g.c.lead, g.c.basis).where(g.c.id.not_in(resolved)))}


def members(group: AlertGroup, kept: list[KeptAlert]) -> list[KeptAlert]:
    """The run's alerts a group stands for: those it lists (by segment, bet, test and
    window, and basis where both say one); a group that lists none, those of its segments
    (of its basis, when an alert says one)."""
    listed = getattr(group, "alerts", ())
    if listed:
        wanted = {_key(a.segment, a.bet, a.test, a.window, a.basis) for a in listed}
        return [k for k in kept if _key(k.segment, k.bet, k.test, k.window, k.basis) in wanted]
    names = set(group.segments)
    return [k for k in kept if k.segment in names and (k.basis is None or k.basis == group.basis)]


def _key(segment: str, bet: str, test: str, window: str, basis: str | None) -> tuple[str, str, str, str, str]:
    """An alert as a group lists it and as ``alerts`` keeps it, alike: a paid-basis RTP test
    is ``rtp`` on the ``paid`` basis (kept as the test ``paid rtp``); a deal test has no basis."""
    if test.startswith("paid "):
        test, basis = test.removeprefix("paid "), "paid"
    return segment, bet, test, window, "" if bet == "deal" else (basis or "rules")


def inputs_of(group: AlertGroup, kept: list[KeptAlert]) -> str:
    """The SHA-256 of what the group was computed from: its lead, basis, bet and window,
    then each of its alerts' inputs digest, a line each in order."""
    lines = [group.lead, group.basis, group.bet, group.window]
    lines += sorted(f"{k.words} {k.inputs_digest}" for k in members(group, kept))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def new_groups(conn: Any, groups: list[AlertGroup], kept: list[KeptAlert]) -> list[AlertGroup]:
    """The groups the store does not hold yet: no open group of the same lead and basis,
    none recorded from the same inputs (read-only: what ``--notify`` posts without ``--record``)."""
    import sqlalchemy as sa

    g = schema.alert_groups
    open_leads = _open_leads(conn)
    out = []
    for group in sorted(groups, key=lambda x: -x.severity):
        key = (group.lead, group.basis)
        inputs = inputs_of(group, kept)
        if key in open_leads or conn.execute(sa.select(g.c.id).where(
                g.c.lead == group.lead, g.c.basis == group.basis, g.c.inputs_digest == inputs)).first() is not None:
            continue
        open_leads.add(key)
        out.append(group)
    return out


def record_groups(conn: Any, groups: list[AlertGroup], kept: list[KeptAlert],
                  band: str) -> list[tuple[int, AlertGroup]]:
    """The run's new groups appended (in the open transaction, the lock held): each with
    its id."""
    fresh = new_groups(conn, groups, kept)
    raised, host = now_us(), socket.gethostname()
    rows: list[dict[str, object]] = [{
        "raised_us": raised, "host": host, "version": __version__, "lead": g.lead, "basis": g.basis, "bet": g.bet,
        "window": g.window, "z": None if g.z is None else repr(float(g.z)), "segments": json.dumps(list(g.segments)),
        "band": band, "first_game": g.first_game, "last_game": g.last_game, "since": g.since, "until": g.until,
        "figures": json.dumps(g.to_json(), sort_keys=True, ensure_ascii=False),
        "alert_ids": json.dumps(sorted({k.id for k in members(g, kept)})), "inputs_digest": inputs_of(g, kept)}
        for g in fresh]
    return list(zip(_append(conn, "alert_groups", rows), fresh, strict=True))


def act(conn: Any, group_id: int, action: str, who: str, note: str) -> int:
    """An ``ack`` or ``resolve`` of a group appended (in the open transaction, the lock held): its id."""
    return _append(conn, "alert_actions", [{"group_id": group_id, "action": action, "who": who, "at_us": now_us(),
                                             "note": note, "host": socket.gethostname()}])[0]


class NotActed(Exception):
    """Why an ``ack`` or a ``resolve`` was not recorded: ``why`` is ``missing`` (no such
    group), ``resolved`` (its cause is dealt with; the monitor records a new group if it
    comes back) or ``acknowledged`` (someone has it and ``force`` was not given);
    ``before`` holds the earlier acknowledgements, first first."""

    def __init__(self, why: str, group_id: int, before: list[dict[str, Any]]) -> None:
        super().__init__(f"alert group {group_id}: {why}")
        self.why = why
        self.group_id = group_id
        self.before = before


def act_on(conn: Any, group_id: int, action: str, who: str, note: str, *,
           force: bool = False) -> tuple[KeptGroup, list[dict[str, Any]]]:
    """The one rule for acting on a group, for ``referee alerts`` and the desk alike (in the
    open write transaction): the group after the action and the acknowledgements before it.

    A second acknowledgement is refused unless ``force``: two people each believing they
    are the one on it is what an acknowledgement is there to prevent; with ``force`` both
    are kept and the caller names the first."""
    lock(conn)
    found = groups(conn, [group_id])
    if not found:
        raise NotActed("missing", group_id, [])
    if found[0].state == "resolved":
        raise NotActed("resolved", group_id, [])
    before = [a for a in found[0].actions if a["action"] == "ack"] if action == "ack" else []
    if before and not force:
        raise NotActed("acknowledged", group_id, before)
    act(conn, group_id, action, who, note)
    return groups(conn, [group_id])[0], before


def notified(conn: Any, rows: list[dict[str, object]]) -> list[int]:
    """Webhook notifications appended (in the open transaction, the lock held)."""
    return _append(conn, "alert_notifications", rows)


def _group_of(row: Any, figures: dict[str, Any]) -> AlertGroup:
    """The group as it was recorded: its own columns, and from its figures (the group's JSON
    as the monitor wrote it) its lead test, p, games and alerts, which have no column of
    their own: a group read back says what the run said, not zeros."""
    z = None if row["z"] is None else float(row["z"])
    alerts = tuple(GroupedAlert(segment=a["segment"], bet=a["bet"], test=a["test"], window=a["window"],
                                basis=a["basis"], z=a["z"], p=a["p"]) for a in figures.get("alerts", ()))
    return AlertGroup(lead=row["lead"], basis=row["basis"], segments=tuple(json.loads(row["segments"])), z=z,
                      bet=row["bet"], window=row["window"], first_game=row["first_game"],
                      last_game=row["last_game"], since=row["since"], until=row["until"],
                      test=figures.get("test", "rtp"), p=figures.get("p"), games=int(figures.get("games") or 0),
                      alerts=alerts)


def groups(conn: Any, ids: list[int] | None = None) -> list[KeptGroup]:
    """The kept groups (those of ``ids``, or all), each with its actions and notifications,
    in id order."""
    import sqlalchemy as sa

    g, a, n = schema.alert_groups, schema.alert_actions, schema.alert_notifications
    query = sa.select(g).order_by(g.c.id)
    if ids is not None:
        query = query.where(g.c.id.in_(ids))
    rows = conn.execute(query).mappings().all()
    wanted = [r["id"] for r in rows]
    acts: dict[int, list[dict[str, Any]]] = {}
    sent: dict[int, list[dict[str, Any]]] = {}
    for table, into in ((a, acts), (n, sent)):
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            for r in conn.execute(sa.select(table).where(table.c.group_id.in_(part)).order_by(table.c.id)).mappings():
                into.setdefault(r["group_id"], []).append(dict(r))
    out = []
    for r in rows:
        figures = json.loads(r["figures"])
        out.append(KeptGroup(id=r["id"], raised_us=r["raised_us"], host=r["host"], version=r["version"],
                             group=_group_of(r, figures), figures=figures, band=r["band"],
                             alerts=tuple(json.loads(r["alert_ids"])), inputs_digest=r["inputs_digest"],
                             actions=tuple(acts.get(r["id"], [])), notifications=tuple(sent.get(r["id"], []))))
    return out


def ordered(kept: list[KeptGroup]) -> list[KeptGroup]:
    """Open first (then acknowledged, then resolved), most severe first, newest first."""
    return sorted(kept, key=lambda k: (STATES.index(k.state), -k.group.severity, -k.id))
