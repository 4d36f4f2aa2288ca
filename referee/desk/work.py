"""The desk's working pages: Cases (floor), Watch (risk), Upload (auditor), Users (admin).

Each form posts the session's CSRF token; each action needs its role's right
(:data:`referee.desk.auth.RIGHTS`); after an action the browser is sent to the page
that shows its result (post, redirect, get).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import RedirectResponse, Response

from ..errors import Term
from ..profiles import BUILTIN
from ..report.rows import when
from . import charts as charts_
from . import records, upload
from .context import Refused, Who, checked, holding, lang_of, render_page, state, viewer
from .words import d_, decimal_text

router = APIRouter(include_in_schema=False)
MAX_UPLOAD = upload.MAX_UPLOAD
Note = Annotated[str, Form(max_length=4000)]
#: The alert groups Watch draws a chart of (the first, open and most severe first).
CHARTS = 10


@router.get("/cases")
def cases(request: Request, who: Annotated[Who, Depends(viewer)],
          status: Annotated[str | None, Query(pattern="^(open|decided|closed)?$")] = None) -> Response:
    found = records.cases(state(request).backend, who, status or None)
    return render_page(request, "desk/cases.html.j2", {"cases": found.cases, "status": status or ""})


@router.get("/cases/export.{kind}")
def export(kind: str, request: Request, who: Annotated[Who, Depends(viewer)], events: bool = False) -> Response:
    """Every case for the regulator, as CSV or JSON (a download), as ``referee cases
    export`` writes them; ``?events=1``: one row a change of a case."""
    if kind not in ("csv", "json"):
        raise Refused(404, "export as cases.csv or cases.json")
    body, media = records.export(state(request).backend, who, kind, events)
    name = f"case-events.{kind}" if events else f"cases.{kind}"
    return Response(body, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _amount(text: str, lang: str) -> str | None:
    """The form's amount as written (:func:`referee.desk.words.decimal_text`: a decimal
    comma read as a point); the store's rule (:func:`referee.store.cases.amount_of`) says
    whether it is one."""
    return decimal_text(text, lang) or None


@router.post("/cases")
def open_case(request: Request, who: Annotated[Who, Depends(checked)],
              _: Annotated[Who, Depends(holding("cases"))], game: Annotated[str, Form(max_length=200)],
              player: Annotated[str, Form(max_length=200)], decision: Annotated[str, Form(max_length=20)] = "",
              amount: Annotated[str, Form(max_length=40)] = "", note: Note = "",
              force: Annotated[str, Form(max_length=8)] = "") -> Response:
    """A case opened on a game and seat; its decision recorded when one is chosen (409
    when the seat has a case already, unless ``force`` and that case is closed)."""
    backend = state(request).backend
    value = _amount(amount, lang_of(request))
    if decision:
        backend.run(lambda where: _checked_amount(decision, value))
    opened = records.open_case(backend, who, game, player, note, force=bool(force))
    if decision:
        records.decide(backend, who, opened.id, decision, value, note)
    return RedirectResponse(f"/cases/{opened.id}", status_code=303)


def _checked_amount(decision: str, value: str | None) -> None:
    from ..store.cases import amount_of

    amount_of(decision, value)


@router.get("/cases/{case_id}")
def case(case_id: int, request: Request, who: Annotated[Who, Depends(viewer)]) -> Response:
    found = records.one(state(request).backend, who, case_id)
    return render_page(request, "desk/case.html.j2", {"case": found})


@router.post("/cases/{case_id}/decide")
def decide(case_id: int, request: Request, who: Annotated[Who, Depends(checked)],
           _: Annotated[Who, Depends(holding("cases"))], decision: Annotated[str, Form(max_length=20)],
           amount: Annotated[str, Form(max_length=40)] = "", note: Note = "") -> Response:
    records.decide(state(request).backend, who, case_id, decision, _amount(amount, lang_of(request)), note)
    return RedirectResponse(f"/cases/{case_id}", status_code=303)


@router.post("/cases/{case_id}/close")
def close(case_id: int, request: Request, who: Annotated[Who, Depends(checked)],
          _: Annotated[Who, Depends(holding("cases"))], note: Note = "") -> Response:
    records.close(state(request).backend, who, case_id, note)
    return RedirectResponse(f"/cases/{case_id}", status_code=303)


@router.get("/watch")
def watch(request: Request, who: Annotated[Who, Depends(viewer)]) -> Response:
    """The alert groups (open first), and the stored sources with the store's last verification."""
    backend = state(request).backend
    try:
        groups = records.alerts(backend).alerts
        missing = None
    except Refused as err:
        groups, missing = [], err.detail
    bands = records.bands(backend, [a.id for a in groups[:CHARTS]])
    lang = lang_of(request)
    charts = {a.id: charts_.group_chart(backend, who.name, a, bands.get(a.id), lambda w: d_(lang, w))
              for a in groups[:CHARTS]}
    sources = upload.sources(backend)
    checked_ = backend.checked
    return render_page(request, "desk/watch.html.j2", {
        "groups": groups, "missing": missing, "charts": charts, "seats_read": charts_.WATCH_SEATS,
        "sources": sources, "checked": checked_,
        "checked_at": None if checked_ is None else when(int(checked_.at * 1e6)),
        "problems_of": lambda source: upload.problems_of(checked_, source)})


@router.post("/watch/verify")
def verify(request: Request, who: Annotated[Who, Depends(checked)]) -> Response:
    """Verify the store now (as ``store verify``): risk and auditors."""
    if not (who.may("alerts") or who.may("codes")):
        raise Refused(403, "your role ({role}) may not do this", role=Term(who.role))
    state(request).backend.verify()
    return RedirectResponse("/watch", status_code=303)


@router.post("/watch/{alert_id}")
def act(alert_id: int, request: Request, who: Annotated[Who, Depends(checked)],
        _: Annotated[Who, Depends(holding("alerts"))], action: Annotated[str, Form(pattern="^(ack|resolve)$")],
        note: Note = "") -> Response:
    records.ack(state(request).backend, who, alert_id, action, note)
    return RedirectResponse("/watch", status_code=303)


@router.get("/upload")
def upload_page(request: Request, who: Annotated[Who, Depends(holding("upload"))]) -> Response:
    return render_page(request, "desk/upload.html.j2", _upload_values(None, state(request).max_upload))


def _upload_values(result: upload.Outcome | None, limit: int, lang: str = "en") -> dict[str, object]:
    refused = None
    if result is not None and result.refused:
        refused = d_(lang, result.words, **result.values) if result.words else result.refused
    return {"result": result, "refused": refused, "limit": limit, "mappings": upload.builtin_mappings(),
            "profiles": BUILTIN}


@router.post("/upload")
async def upload_file(request: Request, who: Annotated[Who, Depends(checked)],
                      _: Annotated[Who, Depends(holding("upload"))]) -> Response:
    """A log or an export (with its mapping) checked and stored as ``check --store`` does."""
    desk = state(request)
    result = await upload.receive(request, desk.backend, desk.max_upload)
    return render_page(request, "desk/upload.html.j2", _upload_values(result, desk.max_upload, lang_of(request)),
                       status=400 if result.refused else 200)


@router.get("/users")
def users(request: Request, who: Annotated[Who, Depends(holding("users"))]) -> Response:
    return render_page(request, "desk/users.html.j2", {"users": state(request).backend.accounts()})


@router.post("/users")
def add_user(request: Request, who: Annotated[Who, Depends(checked)], _: Annotated[Who, Depends(holding("users"))],
             name: Annotated[str, Form(max_length=64)], role: Annotated[str, Form(max_length=20)],
             password: Annotated[str, Form(max_length=1024)]) -> Response:
    state(request).backend.add_account(name, role, password)
    return RedirectResponse("/users", status_code=303)


@router.post("/users/{name}/disable")
def disable_user(name: str, request: Request, who: Annotated[Who, Depends(checked)],
                 _: Annotated[Who, Depends(holding("users"))]) -> Response:
    desk = state(request)
    desk.backend.disable_account(name)  # the store ends the account's sessions with it
    return RedirectResponse("/users", status_code=303)


@router.post("/users/{name}/password")
def set_password(name: str, request: Request, who: Annotated[Who, Depends(checked)],
                 _: Annotated[Who, Depends(holding("users"))],
                 password: Annotated[str, Form(max_length=1024)]) -> Response:
    desk = state(request)
    desk.backend.set_password(name, password)  # the store ends the account's sessions with it
    return RedirectResponse("/users", status_code=303)
