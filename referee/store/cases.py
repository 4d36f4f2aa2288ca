"""The desk's cases: a dispute opened on a game and a seat (its player), the decision
taken, and its closing, each change an event appended to the store with who, when and a
note.

Why events and not a row changed in place: a case is evidence, kept for the regulator as
the games are; its rows (``cases``, the opening, and ``case_events``) are appended and
chained (:mod:`referee.store.chains`), so ``store verify`` and a signed checkpoint find
one changed, removed or moved. What a case is now (open or closed, its decision and the
amount) is read from its events, the last decision standing.

Each function takes ``where`` (a store URL or path, an engine, or a connection outside any
transaction: :mod:`referee.store.appended`); ``by`` is the account's name as the desk
knows it (kept as text: an account disabled later still names who did what).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import Count, Term, worded
from . import StoreError, schema
from .appended import Where, append, lock, now_us, reading, writing

#: A decision: the table's payment stands, or an amount is owed to the player or the house.
DECISIONS = ("stands", "owed_to_player", "owed_to_house")
#: What a case's status may be.
STATUSES = ("open", "decided", "closed")
#: The longest note kept (a note is words, not a file).
MAX_NOTE = 10_000
#: The longest game or player id taken (a record's ids are far shorter).
MAX_ID = 200


class CaseError(StoreError):
    """A case refused: no such case, a closed one changed, a decision or amount that is
    not one (exit 2)."""


class CaseTaken(CaseError):
    """A case refused because its seat has one already (the desk answers 409): one not
    closed is decided there, never beside it; one closed is opened again only when the
    person says so (``force``): a second case could pay the seat twice."""


@dataclass(frozen=True, slots=True)
class CaseEvent:
    """A change of a case: ``opened``, ``decided`` or ``closed``, by whom, when, the note."""

    id: int
    case_id: int
    at_us: int
    by: str
    kind: str
    decision: str | None
    amount: Decimal | None
    note: str


@dataclass(frozen=True, slots=True)
class Case:
    """A case as it is now: its opening, its status, the last decision and amount taken
    (None before one is), and every event in order."""

    id: int
    game: str
    player: str
    opened_us: int
    opened_by: str
    note: str
    status: str
    decision: str | None
    amount: Decimal | None
    events: tuple[CaseEvent, ...]


def _checked_id(what: str, value: str) -> str:
    if not value or len(value) > MAX_ID or not value.isprintable():
        raise worded(CaseError, "a case needs a {what} id (printable, 1 to {most} characters)", what=Term(what),
                     most=MAX_ID)
    return value


def _checked_note(note: str) -> str:
    if len(note) > MAX_NOTE:
        raise worded(CaseError, "a note has {most} characters at most", most=Count(MAX_NOTE))
    return note


def _checked_by(by: str) -> str:
    if not by or len(by) > 64:
        raise CaseError("a case's change names who made it (an account name)")
    return by


def amount_of(decision: str, amount: Decimal | str | None) -> Decimal | None:
    """The exact amount a ``decision`` takes: none when the payment stands, a number over 0
    when an amount is owed; a CaseError saying why otherwise."""
    if decision not in DECISIONS:
        from ..spelling import did_you_mean

        raise worded(CaseError, "{decision!r} is not a decision (one of {decisions}){hint}", decision=decision[:40],
                     decisions=", ".join(DECISIONS), hint=did_you_mean(decision, DECISIONS))
    if decision == "stands":
        if amount not in (None, "") and _amount(amount) != 0:
            raise worded(CaseError, "the table's payment stands: no amount is owed (leave the amount out)")
        return None
    if amount is None or str(amount).strip() == "":
        raise worded(CaseError, "a decision {decision} needs the amount owed",
                     decision=Term(decision.replace("_", " ")))
    value = _amount(amount)
    if not value.is_finite() or value <= 0 or int(value.as_tuple().exponent) < -6:
        raise worded(CaseError, "an amount {decision} is a number over 0 (at most 6 decimals)",
                     decision=Term(decision.replace("_", " ")))
    return value


#: An amount as a person writes one: digits, a point and decimals (``1e3``, ``Infinity``
#: or ``0x10`` are not amounts anyone decides).
_AMOUNT = re.compile(r"[0-9]+(\.[0-9]+)?")


def _amount(amount: Decimal | str) -> Decimal:
    """``amount`` exactly, from a Decimal or its plain decimal text; a CaseError otherwise."""
    text = str(amount).strip()
    if isinstance(amount, Decimal) and amount.is_finite() and int(amount.as_tuple().exponent) <= 0:
        return amount
    if not _AMOUNT.fullmatch(text):
        from ..escape import printable

        raise worded(CaseError, "{amount!r} is not an amount (a decimal number, such as 4 or 12.50)",
                     amount=printable(text[:40]))
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise CaseError(f"{text[:40]!r} is not an amount") from None


def open_case(where: Where, game: str, player: str, by: str, note: str = "", force: bool = False) -> Case:
    """A new case on ``game`` and the seat of ``player``, opened by ``by`` with ``note``.
    The game need not be in the store (a dispute may come before its export): the desk
    checks that before offering to open one. A seat with a case already is refused
    (:class:`CaseTaken`, naming it): always while that case is not closed, and when it is
    closed unless ``force`` (a seat's dispute settled once is not paid again by mistake)."""
    game, player = _checked_id("game", game), _checked_id("player", player)
    values = {"game": game, "player": player, "opened_us": now_us(), "actor": _checked_by(by),
              "note": _checked_note(note)}
    with writing(where) as conn:
        lock(conn, ("case_events", "cases"))
        _none_open(conn, game, player, force)
        row = append(conn, "cases", values)
        _event(conn, row["id"], by, "opened", None, None, note, row["opened_us"])
        return _case(conn, row["id"])


def decide(where: Where, case_id: int, decision: str, amount: Decimal | str | None, by: str,
           note: str = "") -> Case:
    """The decision on case ``case_id``: ``stands`` (the table's payment stands; no
    amount), ``owed_to_player`` or ``owed_to_house`` with the exact ``amount`` owed. A
    later decision replaces an earlier one (both kept); a closed case is not decided."""
    value = amount_of(decision, amount)
    _checked_note(note)
    with writing(where) as conn:
        lock(conn, ("case_events", "cases"))
        found = _case(conn, case_id)
        if found.status == "closed":
            raise worded(CaseError, "case {case} is closed", case=case_id)
        _event(conn, case_id, _checked_by(by), "decided", decision, value, note)
        return _case(conn, case_id)


def close_case(where: Where, case_id: int, by: str, note: str = "") -> Case:
    """Case ``case_id`` closed (decided or not: a case may be withdrawn) by ``by``."""
    _checked_note(note)
    with writing(where) as conn:
        lock(conn, ("case_events", "cases"))
        found = _case(conn, case_id)
        if found.status == "closed":
            raise worded(CaseError, "case {case} is closed already", case=case_id)
        _event(conn, case_id, _checked_by(by), "closed", None, None, note)
        return _case(conn, case_id)


def get_case(where: Where, case_id: int) -> Case | None:
    """Case ``case_id`` as it is now, or None."""
    with reading(where) as conn:
        try:
            return _case(conn, case_id)
        except CaseError:
            return None


def list_cases(where: Where, status: str | None = None, game: str | None = None,
               player: str | None = None) -> list[Case]:
    """Every case (only those whose status is ``status``, on ``game``, of ``player``, when
    given), the newest first."""
    import sqlalchemy as sa

    if status is not None and status not in STATUSES:
        raise CaseError(f"{status[:40]!r} is not a case's status (one of {', '.join(STATUSES)})")
    c, e = schema.cases, schema.case_events
    with reading(where) as conn:
        query = sa.select(c).order_by(c.c.id.desc())
        if game is not None:
            query = query.where(c.c.game == game)
        if player is not None:
            query = query.where(c.c.player == player)
        opened = list(conn.execute(query))
        events: dict[int, list[Any]] = {}
        ids = [row.id for row in opened]
        for start in range(0, len(ids), 500):
            for row in conn.execute(sa.select(e).where(e.c.case_id.in_(ids[start:start + 500])).order_by(e.c.id)):
                events.setdefault(row.case_id, []).append(row)
    found = [_made(row, events.get(row.id, [])) for row in opened]
    return [x for x in found if status is None or x.status == status]


def games_with_cases(where: Where, games: Iterable[str]) -> set[str]:
    """Which of ``games`` have a case, whatever its status (by ``ix_cases_game``)."""
    import sqlalchemy as sa

    c = schema.cases
    wanted = list(dict.fromkeys(games))
    found: set[str] = set()
    with reading(where) as conn:
        for start in range(0, len(wanted), 500):
            found.update(str(x) for x in conn.execute(
                sa.select(c.c.game).where(c.c.game.in_(wanted[start:start + 500])).distinct()).scalars())
    return found


def _none_open(conn: Any, game: str, player: str, force: bool) -> None:
    """Refuse a second case on a seat while one is not closed: one dispute, one case (two
    open cases on one seat could be decided two ways); and, unless ``force``, beside one
    closed (its decision may have been paid: a second could pay the seat twice)."""
    import sqlalchemy as sa

    c = schema.cases
    earlier = [_case(conn, int(row.id)) for row in
               conn.execute(sa.select(c.c.id).where(c.c.game == game, c.c.player == player).order_by(c.c.id))]
    for found in earlier:
        if found.status != "closed":
            raise worded(CaseTaken, "case {case} is already {status}{decided} on this game and seat: decide or close "
                         "it there", case=found.id, status=Term(found.status), decided=_decided(found))
    if earlier and not force:
        last = earlier[-1]
        raise worded(CaseTaken, "case {case} on this game and seat is closed{decided}: a second case could pay the "
                     "seat twice; open one anyway only if it is another dispute (force)", case=last.id,
                     decided=_decided(last))


def _decided(case: Case) -> str:
    """A case's decision as a refusal names it: `` (owed_to_player 4)``."""
    if case.decision is None:
        return ""
    return f" ({case.decision}{'' if case.amount is None else f' {case.amount}'})"


def _event(conn: Any, case_id: int, by: str, kind: str, decision: str | None, amount: Decimal | None, note: str,
           at_us: int | None = None) -> None:
    append(conn, "case_events", {"case_id": case_id, "at_us": now_us() if at_us is None else at_us, "actor": by,
                                 "kind": kind, "decision": decision, "amount": None if amount is None else str(amount),
                                 "note": note})


def _case(conn: Any, case_id: int) -> Case:
    import sqlalchemy as sa

    c, e = schema.cases, schema.case_events
    row = conn.execute(sa.select(c).where(c.c.id == case_id)).first()
    if row is None:
        raise worded(CaseError, "no case {case}", case=case_id)
    return _made(row, conn.execute(sa.select(e).where(e.c.case_id == case_id).order_by(e.c.id)))


def _made(row: Any, rows: Iterable[Any]) -> Case:
    events = tuple(CaseEvent(int(r.id), int(r.case_id), int(r.at_us), str(r.actor), str(r.kind), r.decision,
                             None if r.amount is None else Decimal(r.amount), str(r.note)) for r in rows)
    status, decision, amount = "open", None, None
    for event in events:
        if event.kind == "decided":
            status, decision, amount = "decided", event.decision, event.amount
        elif event.kind == "closed":
            status = "closed"
    return Case(int(row.id), str(row.game), str(row.player), int(row.opened_us), str(row.actor), str(row.note),
                status, decision, amount, events)
