"""The monitor's side of ``--notify``: send each new group, warn of what failed, keep each
delivery when ``--record`` was given.

Why after the report and the record: the verdict is written (and the alerts kept) before
anything is sent, so a webhook that hangs or refuses can delay the end of a run by at
most ``--notify-timeout`` seconds and change nothing it says; a failed delivery is a
warning on standard error, never another exit status.
"""

from __future__ import annotations

import click

from ..monitor.groups import AlertGroup
from .webhook import Delivery, Sender, row, shown


def notify_groups(store: str, url: str, secret: bytes | None, fmt: str, budget: float,
                  new: list[tuple[int | None, AlertGroup]], record: bool) -> list[Delivery]:
    """Each of ``new`` posted to ``url``; failures said; deliveries kept when ``record``."""
    from ..store.engine import target

    where = target(store).shown
    sender = Sender(url, secret, fmt, budget)
    done = []
    for group_id, group in new:
        delivery = sender.send(group, group_id, where)
        done.append(delivery)
        if not delivery.delivered:
            tries = f"{delivery.attempts} attempt{'s' * (delivery.attempts != 1)}"
            which = "alert group" if group_id is None else f"alert group {group_id}"
            click.echo(f"referee: warning: webhook {shown(url)}: {which} ({group.lead}) not delivered after "
                       f"{tries}: {delivery.outcome}", err=True)
    sent = sum(d.delivered for d in done)
    click.echo(f"referee: webhook {shown(url)}: {sent} of {len(done)} new alert group{'s' * (len(done) != 1)} "
               "delivered", err=True)
    if record:
        _kept(store, [row(d, url, fmt) for d in done if d.group_id is not None])
    return done


def _kept(store: str, rows: list[dict[str, object]]) -> None:
    """The deliveries into the store's ``alert_notifications`` (one transaction, the lock held)."""
    from ..store.appended import writing
    from .kept import lock, notified

    with writing(store, create=False, doing="cannot record the webhook's deliveries") as conn:
        lock(conn)
        notified(conn, rows)
