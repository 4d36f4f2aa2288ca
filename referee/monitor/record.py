"""``monitor --record``: the alerts kept in the store, with a digest of their inputs.

Why a digest of the inputs: an alert is evidence (the UKGC asks that it be kept). It
names its segment, bet, window and band, its figures as the JSON report gives them, and
the SHA-256 of the digests of the stored rows it was computed from (each seat's row, or
the run of clean rounds a round is packed in), one a line in store order: whoever
checks the alert later recomputes it from the store and compares. An alert already
recorded with the same inputs is not recorded again. Writing takes the store's lock as a
check does (``store_meta``'s row; SQLite ``BEGIN IMMEDIATE``) and is one transaction;
each alert is linked into the alerts' chain (``referee.store.chains``) in it, so that one
removed, changed or moved later is found by ``store verify`` and by a checkpoint.

Since schema 0007 the run's alert groups are kept beside its alerts, in the same
transaction (``referee.alerts.kept``): each with the ids of its alerts, recorded once
while it is open.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..store import chains, digest, schema
from .facts import Seat
from .groups import AlertGroup
from .output import band_words, cell_json, deal_json
from .run import Verdict
from .series import members


def inputs_digest(conn: Any, covered: list[Seat]) -> tuple[int, str]:
    """How many stored rows ``covered`` are, and the SHA-256 of their digests in store order."""
    import sqlalchemy as sa

    rows = list(dict.fromkeys(s.row for s in covered))
    found: dict[int, str] = {}
    seats = [r for r in rows if r > 0]
    runs = [-r for r in rows if r < 0]
    for table, ids, sign in ((schema.seats, seats, 1), (schema.runs, runs, -1)):
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            for row in conn.execute(sa.select(table.c.id, table.c.digest).where(table.c.id.in_(part))):
                found[sign * row.id] = row.digest
    text = "\n".join(found[r] for r in rows)
    return len(rows), hashlib.sha256(text.encode()).hexdigest()


@dataclass(slots=True)
class Recorded:
    """What ``--record`` kept: how many alerts were new, and the new groups with their ids."""

    alerts: int = 0
    groups: list[tuple[int, AlertGroup]] = field(default_factory=list)


def record(conn: Any, verdict: Verdict, seats: list[Seat], groups: Sequence[AlertGroup] = ()) -> Recorded:
    """Store ``verdict``'s alerts and ``groups`` (a connection opened for writing): what was new."""
    import sqlalchemy as sa

    from ..alerts.kept import KeptAlert, record_groups

    a = schema.alerts
    conn.info["write"] = True
    made = 0
    with conn.begin():
        conn.execute(schema.store_meta.update().where(schema.store_meta.c.id == 1).values(
            writer=f"{socket.gethostname()}:{os.getpid()}"))
        next_id = (conn.execute(sa.select(sa.func.max(a.c.id))).scalar() or 0) + 1
        linked: list[str] = []
        band = band_words(verdict.band)
        wanted: list[tuple[str, str, str, str, str, int, int, dict[str, object]]] = [
            (j.cell.kind, j.cell.segment, j.cell.bet, "rtp", j.cell.window, j.cell.games, j.cell.seats,
             cell_json(j)) for j in verdict.alerts]
        wanted += [(d.test.kind, d.test.segment, "deal", d.test.test, d.test.window, d.test.deals, d.test.deals,
                    deal_json(d)) for d in verdict.deal_alerts]
        kept = []
        for kind, value, bet, test, window, games, n, figures in wanted:
            covered = members(seats, kind, value, bet, window, verdict.newest_us)
            count, inputs = inputs_digest(conn, covered)
            basis = figures.get("basis")
            seen = conn.execute(sa.select(a.c.id).where(a.c.inputs_digest == inputs, a.c.segment == kind,
                                                        a.c.value == value, a.c.bet == bet, a.c.test == test,
                                                        a.c.window == window)).first()
            kept.append(KeptAlert(next_id if seen is None else int(seen.id), f"{kind} {value}",
                                  basis if isinstance(basis, str) else None, bet, test, window, inputs))
            if seen is not None:
                continue
            values: dict[str, object] = {
                "id": next_id, "raised_us": _now_us(), "host": socket.gethostname(), "version": __version__,
                "segment": kind, "value": value, "bet": bet, "test": test, "window": window, "band": band,
                "games": games, "seats": n, "figures": json.dumps(figures, sort_keys=True), "inputs": count,
                "inputs_digest": inputs}
            values["digest"] = digest.of(tuple(values[c] for c in digest.columns("alerts")))
            conn.execute(a.insert().values(**values))
            linked.append(str(values["digest"]))
            next_id += 1
            made += 1
        chains.link(conn, "alerts", linked)
        new = record_groups(conn, list(groups), kept, band)
    return Recorded(made, new)


def _now_us() -> int:
    import time

    return time.time_ns() // 1000
