"""What every route of the desk shares: its state, who is asking, their rights, and the page drawn.

The dependencies here are the door: :func:`viewer` (any logged-in user, for reading),
:func:`holding` (a right: ``cases``, ``alerts``, ``upload``, ``users``) and
:func:`checked` (a state-changing request: the session's CSRF token, from the
``X-CSRF-Token`` header or the form's ``csrf_token`` field).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse

from ..errors import Count, Term, UserError
from .auth import COOKIE, Session, Sessions, Throttle, may, same_token
from .backend import Account, Backend, Unit
from .words import LANG_COOKIE, d_, language, query_link, templates


@dataclass
class DeskState:
    backend: Backend
    sessions: Sessions
    throttle: Throttle
    max_upload: int


class Refused(Exception):
    """A request the desk will not answer: its status and a plain sentence (no trace).

    ``detail`` is a sentence of the catalogue (context ``desk``) filled with ``values``:
    the API answers it in English, a page in its reader's language (:meth:`said`)."""

    def __init__(self, status: int, detail: str, headers: Mapping[str, str] | None = None, /,
                 **values: object) -> None:
        english = detail.format(**values) if values else detail
        super().__init__(english)
        self.status = status
        self.detail = english
        self.words = detail
        self.values = values
        self.headers = dict(headers or {})

    @classmethod
    def of(cls, status: int, err: Exception) -> Refused:
        """``err`` (a store's refusal) as the desk's, in its words when it keeps them
        (:func:`referee.errors.worded`)."""
        if not isinstance(err, UserError) or err.words is None:
            return cls(status, str(err))
        return cls(status, err.words, **err.values)

    def said(self, lang: str) -> str:
        """The refusal in ``lang``."""
        return d_(lang, self.words, **self.values)


@dataclass(frozen=True)
class Who:
    """The user asking, their session and their role as the store says it now."""

    session: Session
    account: Account
    #: The request's one connection and transaction, when it has one (:func:`reader`).
    unit: Unit | None = None

    @property
    def name(self) -> str:
        return self.account.name

    @property
    def role(self) -> str:
        return self.account.role

    def may(self, right: str) -> bool:
        return may(self.role, right)


def state(request: Request) -> DeskState:
    desk: DeskState = request.app.state.desk
    return desk


def lang_of(request: Request) -> str:
    return language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                    request.headers.get("accept-language"))


def viewer(request: Request) -> Who:
    """The logged-in user (401 without a session, or when the account is disabled or gone)."""
    return _who(request, None)


def reader(request: Request) -> Iterator[Who]:
    """The logged-in user of a reading page (a game, a search): as :func:`viewer`, their
    session looked up in the request's one transaction, which the page's reads and its
    read log share (:meth:`Backend.unit`: on PostgreSQL one connection and one
    transaction a page instead of three; the page commits it before it is answered)."""
    with state(request).backend.unit() as unit:
        yield _who(request, unit)


def _who(request: Request, unit: Unit | None) -> Who:
    desk = state(request)
    session = desk.sessions.get(request.cookies.get(COOKIE), None if unit is None else unit.conn)
    if session is None:
        raise Refused(401, "log in first")
    if not session.active:  # disabled since (its sessions were ended with it: one opened meanwhile)
        desk.backend.commit(unit)  # its lookup's transaction ended first: closing the session writes its row
        desk.sessions.close(session.token)
        raise Refused(401, "log in first")
    who = Who(session, Account(session.user, session.role, session.active), unit)
    request.state.who = who
    return who


def holding(right: str) -> Callable[..., Who]:
    """A dependency: the logged-in user, who must hold ``right`` (403 otherwise)."""
    def check(who: Annotated[Who, Depends(viewer)]) -> Who:
        if not who.may(right):
            raise Refused(403, "your role ({role}) may not do this", role=Term(who.role))
        return who

    return check


#: The largest form taken that is not an upload (a note, a password: bytes).
FORM_LIMIT = 1 << 20


async def checked(request: Request, who: Annotated[Who, Depends(viewer)]) -> Who:
    """A state-changing request: it carries the session's CSRF token (403 otherwise)."""
    given = request.headers.get("x-csrf-token")
    kind = request.headers.get("content-type", "")
    if given is None and kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        bounded(request, kind)
        form = await request.form()
        value = form.get("csrf_token")
        given = value if isinstance(value, str) else None
    if not same_token(given, who.session.csrf):
        raise Refused(403, "the CSRF token is missing or wrong: reload the page and try again")
    return who


def bounded(request: Request, kind: str) -> None:
    """A form refused before its body is read (so before an upload is spooled to disk) when
    it does not say its length or says more than it may be: an upload's limit is ``serve
    --max-upload``, any other form's :data:`FORM_LIMIT`."""
    upload = kind.startswith("multipart/")
    limit = state(request).max_upload if upload else FORM_LIMIT
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        raise Refused(411, "the request must say its length (Content-Length); the limit is {limit} bytes",
                      limit=Count(limit))
    if int(length) > limit + (65536 if upload else 0):  # an upload's form fields and boundaries beside the file
        if upload:
            raise Refused(413, "the request is {size} bytes: the limit is {limit} bytes (referee serve --max-upload)",
                          size=Count(int(length)), limit=Count(limit))
        raise Refused(413, "the request is {size} bytes: the limit is {limit} bytes", size=Count(int(length)),
                      limit=Count(limit))


def render_page(request: Request, name: str, values: Mapping[str, Any], status: int = 200,
                headers: Mapping[str, str] | None = None) -> HTMLResponse:
    """A page of the desk in the request's language; ``?lang=`` is remembered in a cookie."""
    lang = lang_of(request)
    who: Who | None = getattr(request.state, "who", None)
    query = request.query_params.multi_items()
    page = templates(lang).get_template(name).render(
        lang=lang, who=who, path=request.url.path, query=request.url.query,
        lang_link=lambda code: query_link(request.url.path, query, lang=code), **values)
    response = HTMLResponse(page, status_code=status, headers=dict(headers or {}))
    asked = request.query_params.get("lang")
    if asked and asked == lang:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax", httponly=True,
                            secure=request.url.scheme == "https")
    return response


def words(request: Request) -> Callable[..., str]:
    """The desk's words in the request's language (for messages made in Python)."""
    lang = lang_of(request)
    return lambda message, **values: d_(lang, message, **values)
