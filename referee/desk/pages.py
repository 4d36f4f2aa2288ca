"""The desk's reading pages: logging in and out, Find, a game and its dispute sheet.

Drawn on the server (no script needed to read); the state-changing forms carry the
session's CSRF token in a hidden field. The login form, before any session, carries a
token of its own, also set in a cookie (double submit): a page of another site cannot
log a browser in under someone else's name.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from . import drawn, views
from .api import log_in, set_session
from .auth import COOKIE, same_token
from .context import Refused, Who, checked, lang_of, reader, render_page, state, viewer, words
from .words import decimal_text, problem_words, query_link

router = APIRouter(include_in_schema=False)
LOGIN_COOKIE = "referee_login"


def _local(target: str | None) -> str:
    """Where to go after logging in: a path of the desk only (never another site)."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")) or "\\" in target:
        return "/find"
    return target


@router.get("/")
def home(who: Annotated[Who, Depends(viewer)]) -> Response:
    return RedirectResponse("/find", status_code=303)


@router.get("/login")
def login_page(request: Request, next: str | None = None, message: str | None = None) -> Response:
    token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(32)
    response = render_page(request, "desk/login.html.j2", {"login_token": token, "next": _local(next),
                                                           "message": None})
    response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login",
                        secure=request.url.scheme == "https")
    return response


@router.post("/login")
def login_form(request: Request, username: Annotated[str, Form(max_length=200)],
               password: Annotated[str, Form(max_length=1024)], csrf_token: Annotated[str, Form(max_length=100)] = "",
               next: Annotated[str, Form(max_length=2000)] = "/find") -> Response:
    said = words(request)
    expected = request.cookies.get(LOGIN_COOKIE)
    token = expected or secrets.token_urlsafe(32)
    if not expected or not same_token(csrf_token, expected):
        return _login_again(request, token, next, said("The login form expired: try again."), 403)
    try:
        session = log_in(request, username, password)
    except Refused as err:
        message = (said("Too many failed logins: try again in {seconds} seconds.", seconds=err.headers["Retry-After"])
                   if err.status == 429 else said("Wrong user name or password."))
        return _login_again(request, token, next, message, err.status, err.headers)
    response = RedirectResponse(_local(next), status_code=303)
    set_session(request, response, session)
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


def _login_again(request: Request, token: str, next: str, message: str, status: int,
                 headers: dict[str, str] | None = None) -> Response:
    response = render_page(request, "desk/login.html.j2", {"login_token": token, "next": _local(next),
                                                           "message": message}, status=status, headers=headers)
    response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login",
                        secure=request.url.scheme == "https")
    return response


@router.post("/logout")
def logout(request: Request, who: Annotated[Who, Depends(checked)]) -> Response:
    state(request).sessions.close(who.session.token)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/find")
def find(request: Request, who: Annotated[Who, Depends(reader)], mode: str = "search",
         at: Annotated[str | None, Query(max_length=64)] = None) -> Response:
    """Find: a search (any filter), a player's recall, or a table's games around a time."""
    said = words(request)
    asked = {k: v for k, v in request.query_params.items() if v != ""}
    games = None
    problem = None
    pages: dict[str, str | None] = {}
    try:
        if mode == "recall" and asked.get("player") and asked.get("game"):
            games = views.recall(state(request).backend, who, asked["player"][:200], asked["game"][:200])
        elif mode == "recall" and (asked.get("player") or asked.get("game")):
            problem = said(
                "A recall needs the player and one of their games: that game and the nine before it are shown.")
        elif mode == "table" and asked.get("table") and at:
            games = views.around(state(request).backend, who, asked["table"][:200], _time(at))
        elif mode == "search":
            given = {k: v for k, v in asked.items() if k in views.Filters.model_fields}
            if "min_owed" in given:  # "4,00" as the case forms read it: one parser
                given["min_owed"] = decimal_text(given["min_owed"], lang_of(request))
            filters = views.Filters.model_validate(given)
            if filters.given():
                games = views.search(state(request).backend, who, filters)
                pages = _pages(request, filters, games.more, games.did_you_mean.get("table"))
    except ValidationError as err:
        problem = problem_words(lang_of(request), err.errors()[:5])
    except Refused as err:
        if err.status != 404:
            raise
        problem = err.said(lang_of(request))
    except ValueError:
        problem = said("The time is not a date and time (for example 2026-12-06T21:30).")
    return render_page(request, "desk/find.html.j2", {"mode": mode, "asked": asked, "games": games, "pages": pages,
                                                      "problem": problem}, status=200 if problem is None else 400)


def _pages(request: Request, filters: views.Filters, more: bool, meant: str | None = None) -> dict[str, str | None]:
    """A search's next and previous pages (the same query, its offset moved by its limit),
    with where this page starts: a search of more games than a page pages through them;
    and the same search at the table ``meant`` (a search that found nothing at a table
    no game was stored at: ``t7`` for T7)."""
    query = request.query_params.multi_items()
    before = max(filters.offset - filters.limit, 0)
    return {"next": query_link("/find", query, offset=str(filters.offset + filters.limit)) if more else None,
            "meant": None if meant is None else query_link("/find", query, table=meant, offset=None),
            "previous": query_link("/find", query, offset=str(before) if before else None) if filters.offset else None,
            "first": str(filters.offset + 1)}


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.strip())


@router.get("/games/{game_id}")
def game(game_id: str, request: Request, who: Annotated[Who, Depends(reader)],
         player: Annotated[str | None, Query(max_length=200)] = None) -> Response:
    """A game: the bottom line first, the cases opened on it, the cards, each seat's
    ruling card by card; the case form for ``player``'s seat (see :func:`drawn.case_form`).
    The auditor's view names each finding's code and the digests; every other role's says
    the same findings and ruling in words (as ``explain --for player``)."""
    lang = lang_of(request)
    codes = who.may("codes")
    d, found = views.detail_and_cases(state(request).backend, who, game_id, lang,
                                      audience="auditor" if codes else "player")
    g = drawn.game(d, player=not codes)
    return render_page(request, "desk/game.html.j2", {"g": g, "codes": codes, "cases": drawn.cases(g, found),
                                                      "form": drawn.case_form(g, found, player)})


@router.get("/games/{game_id}/sheet")
def sheet(game_id: str, request: Request, who: Annotated[Who, Depends(reader)],
          player: Annotated[str | None, Query(max_length=200)] = None, view: str = "player") -> Response:
    """The dispute sheet to print: one page, in the player's language (``?lang=``), its
    seat's ruling without codes or digests; the auditor's view (``?view=auditor``) keeps them.
    Without ``player=``, no sheet: the game's players, each linked to its sheet."""
    auditor = view == "auditor" and who.may("codes")
    lang = lang_of(request)
    d = views.detail(state(request).backend, who, game_id, lang, audience="auditor" if auditor else "player")
    if not player:  # a sheet is one seat: every seat's would be every player's balance on one paper
        return render_page(request, "desk/sheet_players.html.j2",
                           {"game": d.game, "players": [s.player_id for s in d.seats],
                            "view": "auditor" if auditor else None})
    g = drawn.game(d, player=not auditor, only=player)
    if player is not None and not g["seats"]:
        raise Refused(404, "player {player!r} did not sit at game {game!r}", player=player[:80], game=game_id[:80])
    return render_page(request, "desk/sheet.html.j2", {"g": g, "auditor": auditor, "player": player})
