"""``referee alerts list|show|ack|resolve --store URL``: the alert groups the monitor kept,
and who acknowledged or resolved them (docs/monitor.md)."""

from __future__ import annotations

import getpass
import json
import shlex
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from ..escape import printable
from .app import main

if TYPE_CHECKING:
    from ..alerts.kept import KeptGroup

STORE_OPTION = click.option("--store", "store", metavar="URL", required=True,
                            help="The audit store (a SQLite file or postgresql://...).")


@main.group()
def alerts() -> None:
    """The alert groups `monitor --record` kept: list them, show one, acknowledge or resolve it.

    Exit status of list: 0 no open group listed, 1 an open group listed (nobody has
    acknowledged or resolved it), 2 no store or a usage problem. Of show, ack and resolve:
    0 done, 2 no such group, a group already resolved, a group acknowledged already (ack
    without --force), no store or a usage problem.
    """


def _when(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _read(store: str, ids: list[int] | None) -> tuple[str, list[KeptGroup]]:
    """The store's kept groups (those of ``ids``, or all), read-only; a row that no
    longer decodes is a changed store (exit 2, naming store verify)."""
    from ..alerts.kept import groups
    from ..store import DAMAGED, StoreError
    from ..store.read import Stored

    with Stored(store) as stored, stored.reading():
        shown = stored.target.shown
        try:
            return shown, groups(stored.conn, ids)
        except DAMAGED as err:
            raise StoreError(f"store {shown}: a kept alert group cannot be read ({type(err).__name__}); referee "
                             f"store verify {shown} names the changed rows") from None


def _json(k: KeptGroup, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": k.id, "state": k.state, "raised": _when(k.raised_us), "host": k.host,
                           "version": k.version, **k.figures, **k.group.to_json(), "band": k.band,
                           "alert_ids": list(k.alerts)}
    if full:
        out["inputs_digest"] = k.inputs_digest
        out["actions"] = [{"action": a["action"], "by": a["who"], "at": _when(a["at_us"]), "note": a["note"],
                           "host": a["host"]} for a in k.actions]
        out["notifications"] = [{"url": n["url"], "format": n["format"], "attempts": n["attempts"],
                                 "status": n["status"], "outcome": n["outcome"], "delivered": bool(n["delivered"]),
                                 "at": _when(n["first_us"]), "last": _when(n["last_us"])} for n in k.notifications]
    return out


def _games(k: KeptGroup) -> str:
    g = k.group
    if g.first_game is None and g.last_game is None:
        return ""
    games = printable(f"{g.first_game} to {g.last_game}" if g.first_game != g.last_game else f"{g.first_game}")
    return games + (f" ({g.since} to {g.until})" if g.since or g.until else "")


@alerts.command("list")
@STORE_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--open", "only_open", is_flag=True,
              help="Only the open groups (nobody has acknowledged or resolved them): --state open.")
@click.option("--unresolved", is_flag=True, help="Only the groups not resolved (open or acknowledged).")
@click.option("--state", "states", multiple=True, type=click.Choice(["open", "acknowledged", "resolved"]),
              help="Only the groups in this state (repeat the option).")
@click.option("--lead", "lead", metavar="SEGMENT", help="Only the groups led by this segment ('table T3').")
@click.option("--basis", type=click.Choice(["rules", "paid"]), help="Only the groups on this basis.")
def list_(store: str, fmt: str, only_open: bool, unresolved: bool, states: tuple[str, ...], lead: str | None,
          basis: str | None) -> None:
    """The kept alert groups: open first, then acknowledged, then resolved; the most severe first.

    Open means nobody has acknowledged or resolved it, in the state column, the footer, the
    JSON's "open" and --open alike; --unresolved adds the acknowledged ones.

    Exit status: 0 no open group listed, 1 an open group listed (one nobody has
    acknowledged or resolved: what needs someone), 2 no store or a usage problem.
    """
    from ..alerts.kept import ordered

    shown, kept = _read(store, None)
    wanted = set(states) | ({"open"} if only_open else set()) | ({"open", "acknowledged"} if unresolved else set())
    chosen = [k for k in ordered(kept) if (not wanted or k.state in wanted)
              and (lead is None or k.group.lead == lead) and (basis is None or k.group.basis == basis)]
    waiting = sum(k.state == "open" for k in chosen)
    if lead is not None and not any(k.group.lead == lead for k in kept):
        _did_you_mean_lead(lead, kept)
    if fmt == "json":
        click.echo(json.dumps({"store": shown, "groups": [_json(k, False) for k in chosen], "open": waiting},
                              indent=2, ensure_ascii=False))
    else:
        click.echo(_table(shown, chosen, waiting), nl=False)
    sys.exit(1 if waiting else 0)


def _table(shown: str, chosen: list[KeptGroup], waiting: int) -> str:
    from tabulate import tabulate

    if not chosen:
        return f"alert groups of store {shown}: none\n"
    rows = [[k.id, k.state, _when(k.raised_us), *(printable(x) for x in (k.group.lead, k.group.basis, k.group.bet,
                                                                            k.group.window)),
             "" if k.group.z is None else f"{k.group.z:+.2f}", len(k.group.segments), _games(k)] for k in chosen]
    headers = ["id", "state", "raised", "lead", "basis", "bet", "window", "z", "segments", "games"]
    table = tabulate(rows, headers=headers, disable_numparse=True)
    return (f"alert groups of store {shown}:\n{table}\n{len(chosen)} group{'s' * (len(chosen) != 1)}, "
            f"{waiting} open (not acknowledged)\n")


@alerts.command()
@STORE_OPTION
@click.argument("group_id", metavar="ID", type=click.IntRange(1))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def show(store: str, group_id: int, fmt: str) -> None:
    """One alert group: its segments, the games behind it, its alerts, what was done about it."""
    shown, kept = _read(store, [group_id])
    if not kept:
        _missing(shown, group_id)
    k = kept[0]
    if fmt == "json":
        click.echo(json.dumps({"store": shown, **_json(k, True)}, indent=2, ensure_ascii=False))
        return
    g = k.group
    z = "" if g.z is None else f", z {g.z:+.2f}"
    lines = [f"alert group {k.id} of store {shown}: {k.state}",
             f"  lead      {printable(g.lead)} ({g.basis} basis{z}), {g.bet}, {g.window}",
             f"  raised    {_when(k.raised_us)} on {printable(k.host)} by referee {k.version}; band {k.band}"]
    if _games(k):
        lines.append(f"  games     {_games(k)}")
    lines.append("  segments  " + "; ".join(printable(s) for s in g.segments))
    lines.append(f"  alerts    {', '.join(str(a) for a in k.alerts) or 'none'} (rows of the store's alerts table)")
    for a in k.actions:
        note = f": {printable(a['note'])}" if a["note"] else ""
        lines.append(f"  {'acknowledged' if a['action'] == 'ack' else 'resolved':<12} {_when(a['at_us'])} by "
                     f"{printable(a['who'])}{note}")
    for n in k.notifications:
        lines.append(f"  webhook   {n['url']} ({n['format']}): {n['outcome']}, {n['attempts']} attempt"
                     f"{'s' * (n['attempts'] != 1)}, {_when(n['first_us'])}")
    click.echo("\n".join(printable(line) for line in lines))  # every value read from the store: escaped


def _missing(shown: str, group_id: int) -> None:
    from ..store import StoreError

    raise StoreError(f"store {shown}: no alert group {group_id} (referee alerts list --store {shown} lists them)")


def _act(store: str, group_id: int, action: str, who: str | None, note: str, force: bool = False) -> None:
    """An acknowledgement or a resolution appended, chained, in one transaction (the store's
    lock held), by the rule the desk follows too (:func:`referee.alerts.kept.act_on`)."""
    from ..alerts.kept import NotActed, act_on
    from ..store import StoreError
    from ..store.appended import writing
    from ..store.engine import target

    by = who if who is not None else _os_user()
    if not by.strip():
        raise click.BadParameter("cannot be empty", param_hint="--by")
    shown = target(store).shown
    try:
        with writing(store, create=False, doing=f"cannot record the {action}") as conn:
            before = act_on(conn, group_id, action, by, note, force=force)[1]
    except NotActed as refused:
        if refused.why == "missing":
            _missing(shown, group_id)
        if refused.why == "resolved":
            raise StoreError(f"store {shown}: alert group {group_id} is resolved already (the next "
                             "monitor --record that finds its cause again records a new group)") from None
        raise StoreError(f"store {shown}: alert group {group_id} is acknowledged already, "
                         f"{_acked(refused.before)}; referee alerts ack {group_id} --store {shlex.quote(shown)} "
                         "--force adds yours beside it (both kept)") from None
    done = "acknowledged" if action == "ack" else "resolved"
    also = f" (also {_acked(before)})" if before else ""
    click.echo(f"store {shown}: alert group {group_id} {done} by {printable(by)}{also}")


def _did_you_mean_lead(lead: str, kept: list[KeptGroup]) -> None:
    """--lead names a segment whole (``table T3``): a value alone (``T3``) matches none, so
    the leads whose value it is are named on stderr, not left to a silent 'none'."""
    near = sorted({k.group.lead for k in kept if k.group.lead.split(" ", 1)[-1] == lead.strip()})
    if near:
        click.echo(f"referee: no group is led by {printable(repr(lead))}; --lead names a segment whole: did you "
                   f"mean {' or '.join(printable(repr(n)) for n in near)}?", err=True)


def _acked(actions: list[dict[str, Any]]) -> str:
    """Who acknowledged a group first, and when, and how many others since."""
    first = actions[0]
    more = len(actions) - 1
    return (f"by {printable(first['who'])} at {_when(first['at_us'])}"
            + (f" and {more} other{'s' * (more != 1)} since" if more else ""))


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for the process's uid (a container)
        return "unknown"


BY = click.option("--by", "who", metavar="NAME", help="Who [default: the operating system's user].")
NOTE = click.option("--note", "note", metavar="TEXT", default="", help="What was found or done.")


@alerts.command()
@STORE_OPTION
@click.argument("group_id", metavar="ID", type=click.IntRange(1))
@BY
@NOTE
@click.option("--force", is_flag=True, help="Acknowledge a group someone acknowledged already (both are kept).")
def ack(store: str, group_id: int, who: str | None, note: str, force: bool) -> None:
    """Acknowledge alert group ID: someone is looking at it (until it is resolved).

    A group acknowledged already is refused (exit 2, naming who has it) unless --force.
    """
    _act(store, group_id, "ack", who, note, force)


@alerts.command()
@STORE_OPTION
@click.argument("group_id", metavar="ID", type=click.IntRange(1))
@BY
@NOTE
def resolve(store: str, group_id: int, who: str | None, note: str) -> None:
    """Resolve alert group ID: its cause is dealt with (the monitor records a new group if it comes back)."""
    _act(store, group_id, "resolve", who, note)
