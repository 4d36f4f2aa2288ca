"""What the desk writes: cases (:mod:`referee.store.cases`) and alert groups' actions
(the same kept rows as ``referee alerts``: :mod:`referee.alerts.kept`), in the API's shapes.

Every write names its author (the logged-in user) and is appended to its table's chain
by the store, so ``store verify`` and a signed checkpoint cover it.
"""

from __future__ import annotations

from typing import Any

from ..alerts import kept
from ..report.rows import when
from ..rules.money import fmt
from .backend import Backend
from .context import Refused, Who
from .shapes import AlertActionOut, AlertOut, AlertsOut, CaseEventOut, CaseIn, CaseOut, CasesOut


def case_out(case: Any) -> CaseOut:
    events = [CaseEventOut(kind=e.kind, at=when(e.at_us), actor=e.by, decision=e.decision,
                           amount=None if e.amount is None else fmt(e.amount), note=e.note) for e in case.events]
    return CaseOut(id=case.id, game=case.game, player=case.player, status=case.status, opened_at=when(case.opened_us),
                   opened_by=case.opened_by, decision=case.decision,
                   amount=None if case.amount is None else fmt(case.amount), note=case.note, events=events)


def cases(backend: Backend, who: Who, status: str | None = None, game: str | None = None,
          player: str | None = None) -> CasesOut:
    """The cases, newest first (a read of each case's player's records, logged)."""
    from ..store import cases as kept

    found = backend.run(lambda where: kept.list_cases(where, status=status, game=game, player=player))
    backend.log(who.name, "cases", [c.player for c in found])
    return CasesOut(cases=[case_out(c) for c in found])


def one(backend: Backend, who: Who, case_id: int) -> CaseOut:
    from ..store import cases as kept

    found = backend.run(lambda where: kept.get_case(where, case_id))
    if found is None:
        raise Refused(404, "no case {case}", case=case_id)
    backend.log(who.name, "case", [found.player])
    return case_out(found)


def seated(backend: Backend, game: str, player: str) -> None:
    """A case is opened on a stored game and one of its seats: 404 otherwise."""
    from ..store.desk import search_games

    with backend.stored() as stored, backend.refusing():
        hits = search_games(stored, game=game, player=player, limit=1)
    if not hits:
        raise Refused(404, "the store has no game {game!r} at which player {player!r} sat", game=game[:80],
                      player=player[:80])


def open_case(backend: Backend, who: Who, game: str, player: str, note: str, force: bool = False) -> CaseOut:
    """A case opened on a stored game's seat (409 when the seat has one: see
    :func:`referee.store.cases.open_case` and its ``force``)."""
    from ..store import cases as kept

    seated(backend, game, player)
    return case_out(backend.run(lambda where: kept.open_case(where, game, player, who.name, note, force)))


def decide(backend: Backend, who: Who, case_id: int, decision: str, amount: Any, note: str) -> CaseOut:
    from ..store import cases as kept

    return case_out(backend.run(lambda where: kept.decide(where, case_id, decision, amount, who.name, note)))


def close(backend: Backend, who: Who, case_id: int, note: str) -> CaseOut:
    from ..store import cases as kept

    return case_out(backend.run(lambda where: kept.close_case(where, case_id, who.name, note)))


def open_and_decide(backend: Backend, who: Who, body: CaseIn) -> CaseOut:
    """``POST /api/cases``: a case opened on the game and seat, its decision recorded."""
    from ..store import cases as kept

    amount = None if body.decision == "stands" else body.amount
    backend.run(lambda where: kept.amount_of(body.decision, amount))  # refused before anything is written
    opened = open_case(backend, who, body.game, body.player, body.note, body.force)
    return decide(backend, who, opened.id, body.decision, amount, body.note)


def export(backend: Backend, who: Who, kind: str, events: bool = False) -> tuple[bytes, str]:
    """The cases for the regulator, as ``referee cases export`` writes them (the same
    columns and cells, byte for byte: one layout whoever exports; a read of each case's
    player's records, logged)."""
    from ..report.rows import cases_export
    from ..store import cases as kept

    found = backend.run(lambda where: kept.list_cases(where))
    backend.log(who.name, "cases", [c.player for c in found])
    media = "application/json" if kind == "json" else "text/csv; charset=utf-8"
    return cases_export(found, kind, events).encode("utf-8"), media


# --- alert groups (referee alerts' records) -------------------------------------------


def alert_out(k: Any) -> AlertOut:
    """A kept group as the desk shows it: ``by`` and ``note`` of the action that holds it
    (the first acknowledgement, or the resolution), as ``referee alerts`` names who has it;
    a forced second acknowledgement is among ``actions``, not in their place."""
    g = k.group
    holding = "resolve" if k.state == "resolved" else "ack"
    held = next((a for a in k.actions if a["action"] == holding), None)
    actions = [AlertActionOut(action=a["action"], by=str(a["who"]), at=when(a["at_us"]), note=str(a["note"] or ""))
               for a in k.actions]
    return AlertOut(id=k.id, lead=g.lead, basis=g.basis, segments=list(g.segments), bet=g.bet, window=g.window,
                    z=g.z, first_game=g.first_game, last_game=g.last_game, since=g.since, until=g.until,
                    status=k.state, state=k.state, note=None if held is None else str(held.get("note") or ""),
                    by=None if held is None else str(held.get("who") or ""), games=g.games or None, actions=actions)


def bands(backend: Backend, ids: list[int]) -> dict[int, str]:
    """The band each of these groups was raised against, as kept (its words)."""
    if not ids:
        return {}

    def read(where: Any) -> dict[int, str]:
        with where.connect() as conn, conn.begin():
            return {k.id: k.band for k in kept.groups(conn, ids)}

    return backend.run(read)


def alerts(backend: Backend) -> AlertsOut:
    def read(where: Any) -> list[Any]:
        with where.connect() as conn, conn.begin():
            return list(kept.ordered(kept.groups(conn)))

    return AlertsOut(alerts=[alert_out(k) for k in backend.run(read)])


def ack(backend: Backend, who: Who, alert_id: int, action: str, note: str, force: bool = False) -> AlertOut:
    """Acknowledge or resolve alert group ``alert_id`` by the rule ``referee alerts``
    follows (:func:`referee.alerts.kept.act_on`): 404 when there is none, 409 when it is
    resolved, or acknowledged already and ``force`` is not given (naming who has it)."""
    def write(where: Any) -> Any:
        with where.connect() as conn:
            conn.info["write"] = True  # SQLite: BEGIN IMMEDIATE, the writers queue
            with conn.begin():
                try:
                    return kept.act_on(conn, alert_id, action, who.name, note, force=force)[0]
                except kept.NotActed as refused:
                    raise _refusal(refused) from None

    return alert_out(backend.run(write))


def _refusal(refused: kept.NotActed) -> Refused:
    """The desk's answer to an action :func:`referee.alerts.kept.act_on` refused."""
    group = refused.group_id
    if refused.why == "missing":
        return Refused(404, "no alert group {group}", group=group)
    if refused.why == "resolved":
        return Refused(409, "alert group {group} is resolved already", group=group)
    first = refused.before[0]
    return Refused(409, "alert group {group} is acknowledged already, by {who} at {at}; the API's force adds "
                        "yours beside it (both kept), as alerts ack --force", group=group, who=str(first["who"]),
                   at=when(first["at_us"]))
