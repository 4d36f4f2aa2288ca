"""The desk's application: FastAPI, its pages and API, and the door (login, roles, CSRF).

:func:`create_app` makes the application over one store; ``referee serve`` runs it on
uvicorn. Every page and API answer needs a login except ``/login``, ``/api/login``,
``/healthz`` and the static files; a page asked without one leads to ``/login``, an API
call gets 401. Every state-changing request carries the session's CSRF token (the
``X-CSRF-Token`` header for the API, the ``csrf_token`` field for a form). No answer
holds a stack trace or a secret: an unexpected error is a generic 500 page (or JSON),
and a request's fields are never echoed back in a refusal.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from .auth import Sessions, Throttle
from .backend import Backend, Unacceptable, Unavailable
from .context import DeskState, Refused, Who, lang_of, render_page, viewer
from .shapes import Health
from .words import d_, problem_words

log = logging.getLogger("referee.desk")
STATIC = Path(__file__).with_name("static")

#: Headers on every answer: no framing, no sniffing, scripts and styles only from the
#: desk itself (the shared page style is inline), no referrer to another site.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                               "script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}


def create_app(store: str, *, throttle: Throttle | None = None, max_upload: int | None = None) -> FastAPI:
    """The desk over the store at ``store`` (a SQLite path or a ``postgresql://`` URL)."""
    from . import api, pages, work

    backend = Backend(store)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        backend.close()

    app = FastAPI(title="referee desk", version=__version__, docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan,
                  description="Disputes settled and tables watched over a referee audit store (issue 48).")
    app.state.desk = DeskState(backend=backend, sessions=Sessions(backend), throttle=throttle or Throttle(),
                               max_upload=max_upload or work.MAX_UPLOAD)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(work.router)

    @app.get("/healthz", include_in_schema=True, tags=["health"])
    def healthz() -> Health:
        """Alive and its store reachable (no login: for a load balancer)."""
        backend.ping()
        return Health(status="ok")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(who: Annotated[Who, Depends(viewer)]) -> JSONResponse:
        """The API's description (behind the login, like every answer but /login and /healthz)."""
        return JSONResponse(app.openapi())

    _handlers(app)

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if not request.url.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app


#: How ``referee serve --workers N`` tells each worker process its store and upload limit.
STORE_ENV = "REFEREE_DESK_STORE"
UPLOAD_ENV = "REFEREE_DESK_MAX_UPLOAD"


def from_environment() -> FastAPI:
    """The desk of a worker process of ``referee serve --workers N`` (uvicorn's factory:
    the store and the upload limit from :data:`STORE_ENV` and :data:`UPLOAD_ENV`)."""
    limit = os.environ.get(UPLOAD_ENV)
    return create_app(os.environ[STORE_ENV], max_upload=int(limit) if limit else None)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path == "/openapi.json"


def _handlers(app: FastAPI) -> None:
    """Refusals as their page or JSON, never with a trace or the request echoed back."""

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> Response:
        if _is_api(request):
            return JSONResponse({"detail": err.detail}, status_code=err.status, headers=err.headers)
        if err.status == 401:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            from urllib.parse import quote

            return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        return render_page(request, "desk/error.html.j2", {"status": err.status, "message": err.said(lang_of(request))},
                           status=err.status, headers=err.headers)

    @app.exception_handler(Unavailable)
    async def unavailable(request: Request, err: Unavailable) -> Response:
        log.error("store: %s", err)
        return await refused(request, Refused(503, "the store cannot be reached now: try again later"))

    @app.exception_handler(Unacceptable)
    async def unacceptable(request: Request, err: Unacceptable) -> Response:
        return await refused(request, Refused.of(err.status, err.error))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> Response:
        # FastAPI's own answer quotes each field's input: a password among them.
        problems = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))[:200]}
                    for e in err.errors()[:20]]
        if _is_api(request):
            return JSONResponse({"detail": problems}, status_code=422)
        message = problem_words(lang_of(request), err.errors()[:20])
        return render_page(request, "desk/error.html.j2", {"status": 422, "message": message}, status=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        detail = err.detail if isinstance(err.detail, str) else "refused"
        if _is_api(request):
            return JSONResponse({"detail": detail}, status_code=err.status_code)
        message = d_(lang_of(request), detail)  # Starlette's own ("Not Found") in the page's language
        return render_page(request, "desk/error.html.j2", {"status": err.status_code, "message": message},
                           status=err.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception) -> Response:
        log.error("unexpected error on %s %s: %s", request.method, request.url.path, type(err).__name__)
        if _is_api(request):
            return JSONResponse({"detail": "internal error"}, status_code=500)
        return HTMLResponse(ERROR_500, status_code=500)


#: The page of an unexpected error: fixed text, nothing from the request or the error.
ERROR_500 = ("<!doctype html><html><head><meta charset='utf-8'><title>referee desk: error</title></head>"
             "<body><h1>Something went wrong</h1><p>The desk could not answer this request. It has been logged; "
             "try again, or tell whoever runs the desk.</p><p><a href='/'>Back to the desk</a></p></body></html>")
