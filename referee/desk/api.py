"""The desk's JSON API (``/api/...``), described by ``/openapi.json``.

The same rights as the pages (:mod:`referee.desk.context`); a state-changing call
carries ``X-CSRF-Token`` (the ``csrf_token`` of ``GET /api/session``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from . import records, views
from .auth import COOKIE, Session
from .context import Refused, Who, checked, holding, lang_of, reader, state, viewer
from .shapes import AckIn, AlertOut, AlertsOut, CaseIn, CaseOut, CasesOut, GameOut, GamesOut, Login, Problem, SessionOut

REFUSALS: dict[int | str, dict[str, object]] = {
    400: {"model": Problem, "description": "the store refused it (an amount a decision needs, a closed case)"},
    401: {"model": Problem, "description": "not logged in"},
    403: {"model": Problem, "description": "not this role's right, or the CSRF token is wrong"},
    404: {"model": Problem, "description": "no such record"},
    409: {"model": Problem, "description": "already done (an alert group resolved, a case on the seat already)"},
    422: {"description": "a field is missing or wrong"},
    503: {"model": Problem, "description": "the store cannot be reached"},
}

router = APIRouter(prefix="/api", tags=["api"], responses=REFUSALS)


def log_in(request: Request, username: str, password: str) -> Session:
    """A login attempt, held back after too many failures (429): see :class:`~.auth.Throttle`."""
    desk = state(request)
    address = request.client.host if request.client else "?"
    wait = desk.throttle.wait(username, address)
    if wait:
        raise Refused(429, f"too many failed logins: try again in {wait} seconds", {"Retry-After": str(wait)})
    account = desk.backend.authenticate(username, password)
    if account is None or not account.active:
        desk.throttle.failed(username, address)
        raise Refused(401, "wrong user name or password")
    desk.throttle.succeeded(username, address)
    return desk.sessions.open(account.name)


def set_session(request: Request, response: Response, session: Session) -> None:
    """The session cookie: HttpOnly, SameSite=Lax, Secure when the request came over TLS
    (or through a trusted proxy that says so: uvicorn's ``--forwarded-allow-ips``)."""
    response.set_cookie(COOKIE, session.token, httponly=True, samesite="lax", path="/",
                        secure=request.url.scheme == "https")


@router.post("/login", response_model=SessionOut, responses={429: {"model": Problem}})
def login(body: Login, request: Request, response: Response) -> SessionOut:
    """Log in: 200 with the session cookie, 401 for a wrong user name or password."""
    session = log_in(request, body.username, body.password)
    set_session(request, response, session)
    account = state(request).backend.account(session.user)
    return SessionOut(user=session.user, role=account.role if account else "", csrf_token=session.csrf)


@router.post("/logout", status_code=204, response_class=Response)
def logout(request: Request, who: Annotated[Who, Depends(checked)]) -> Response:
    """End this session."""
    state(request).sessions.close(who.session.token)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/session", response_model=SessionOut)
def session(who: Annotated[Who, Depends(viewer)]) -> SessionOut:
    """Who is logged in, their role and the CSRF token their calls carry."""
    return SessionOut(user=who.name, role=who.role, csrf_token=who.session.csrf)


@router.get("/games/{game_id}", response_model=GameOut)
def game(game_id: str, request: Request, who: Annotated[Who, Depends(reader)],
         lang: Annotated[str | None, Query(pattern="^(en|fr)$")] = None) -> GameOut:
    """A game: each seat's player, outcome and net by the rules, what was recorded, its
    wallet, its findings and its ruling (logged as a read of each player's records)."""
    return views.game(state(request).backend, who, game_id, lang or lang_of(request))


@router.get("/search", response_model=GamesOut)
def search(request: Request, who: Annotated[Who, Depends(reader)],
           filters: Annotated[views.Filters, Query()]) -> GamesOut:
    """Games by player, table, dealer, time range, game id, finding code or amount owed."""
    return views.search(state(request).backend, who, filters)


@router.get("/recall", response_model=GamesOut)
def recall(request: Request, who: Annotated[Who, Depends(reader)],
           player: Annotated[str, Query(min_length=1, max_length=200)],
           game: Annotated[str, Query(min_length=1, max_length=200)]) -> GamesOut:
    """The regulators' recall: the player's game and the nine before it."""
    return views.recall(state(request).backend, who, player, game)


@router.get("/cases", response_model=CasesOut)
def cases(request: Request, who: Annotated[Who, Depends(viewer)],
          status: Annotated[str | None, Query(pattern="^(open|decided|closed)$")] = None) -> CasesOut:
    """The cases, newest first."""
    return records.cases(state(request).backend, who, status)


@router.post("/cases", response_model=CaseOut, status_code=201)
def open_case(body: CaseIn, request: Request, who: Annotated[Who, Depends(checked)],
              _: Annotated[Who, Depends(holding("cases"))]) -> CaseOut:
    """Open a case on a game and seat and record its decision (floor)."""
    return records.open_and_decide(state(request).backend, who, body)


@router.get("/alerts", response_model=AlertsOut)
def alerts(request: Request, who: Annotated[Who, Depends(viewer)]) -> AlertsOut:
    """The monitor's alert groups, open ones first."""
    return records.alerts(state(request).backend)


@router.post("/alerts/{alert_id}/ack", response_model=AlertOut)
def ack(alert_id: int, request: Request, who: Annotated[Who, Depends(checked)],
        _: Annotated[Who, Depends(holding("alerts"))], body: AckIn | None = None) -> AlertOut:
    """Acknowledge (or resolve) an alert group, with a note (risk)."""
    body = body or AckIn()
    return records.ack(state(request).backend, who, alert_id, body.action, body.note, body.force)
