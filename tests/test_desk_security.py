"""The desk's door (issue 48): logins, the role matrix route by route, CSRF, the cookie's
flags, failed logins held back, no trace or secret in an answer, markup shown as text,
every read of a player's records logged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .desk_support import GAME, MARKUP, PASSWORD, PLAYER, ROLES, TABLE, client, login, make_store

pytest.importorskip("fastapi", reason="the desk needs the serve extra")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("desk")
    return make_store(str(folder / "desk.db"), folder)


@pytest.fixture
def desk(store: str) -> Iterator[Any]:
    with client(store) as c:
        yield c


READS = ["/find", f"/find?mode=search&table={TABLE}", f"/find?mode=recall&player={PLAYER}&game={GAME}",
         f"/games/{GAME}", f"/games/{GAME}/sheet?player={PLAYER}", "/cases", "/cases/export.csv", "/cases/export.json",
         "/watch", "/api/session", f"/api/games/{GAME}", f"/api/search?table={TABLE}",
         f"/api/recall?player={PLAYER}&game={GAME}", "/api/cases", "/openapi.json"]
#: The pages only one role may open.
OWN_PAGES = {"/upload": "auditor", "/users": "admin"}
CASE = {"game": GAME, "player": PLAYER, "decision": "owed_to_player", "amount": "160", "note": "paid 44"}
#: Each state-changing route: how its body is sent, the body, the roles that may.
WRITES: list[tuple[str, str, dict[str, Any], tuple[str, ...]]] = [
    ("/api/cases", "json", CASE, ("floor",)),
    ("/cases", "form", CASE, ("floor",)),
    ("/cases/1/decide", "form", {"decision": "stands"}, ("floor",)),
    ("/cases/1/close", "form", {"note": "settled"}, ("floor",)),
    ("/api/alerts/1/ack", "json", {"note": "looking"}, ("risk",)),
    ("/watch/1", "form", {"action": "ack", "note": "looking"}, ("risk",)),
    ("/watch/verify", "form", {}, ("risk", "auditor")),
    ("/upload", "multipart", {}, ("auditor",)),
    ("/users", "form", {"name": "viewer2", "role": "viewer", "password": PASSWORD}, ("admin",)),
    ("/users/viewer2/password", "form", {"password": PASSWORD + "!"}, ("admin",)),
    ("/users/viewer2/disable", "form", {}, ("admin",)),
]


def send(c: Any, path: str, kind: str, body: dict[str, Any], token: str | None) -> Any:
    headers = {"X-CSRF-Token": token} if token is not None and kind == "json" else {}
    if kind == "json":
        return c.post(path, json=body, headers=headers, follow_redirects=False)
    data = {**body, **({"csrf_token": token} if token is not None else {})}
    if kind == "multipart":
        return c.post(path, data=data, files={"file": ("log.yaml", b"sessions: []\n")}, follow_redirects=False)
    return c.post(path, data=data, follow_redirects=False)


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads(desk: Any, role: str) -> None:
    login(desk, role)
    for path in READS:
        answer = desk.get(path, follow_redirects=False)
        assert answer.status_code == 200, (role, path, answer.status_code, answer.text[:300])
    for path, owner in OWN_PAGES.items():
        assert desk.get(path).status_code == (200 if role == owner else 403), (role, path)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("path", "kind", "body", "allowed"), WRITES, ids=[w[0] for w in WRITES])
def test_each_write_is_its_roles_only(store: str, role: str, path: str, kind: str, body: dict[str, Any],
                                      allowed: tuple[str, ...]) -> None:
    with client(store) as c:
        token = login(c, role)
        answer = send(c, path, kind, body, token)
    if role in allowed:
        assert answer.status_code not in (401, 403) and answer.status_code < 500, (role, path, answer.text[:300])
    else:
        assert answer.status_code == 403, (role, path, answer.status_code, answer.text[:300])


def test_nothing_without_a_login_but_the_login_health_and_static(desk: Any) -> None:
    from fastapi.routing import APIRoute

    from referee.desk import api, pages, work

    open_paths = {"/login", "/api/login", "/healthz"}
    seen = 0
    for route in [*api.router.routes, *pages.router.routes, *work.router.routes, *desk.app.routes]:
        if not isinstance(route, APIRoute) or route.path in open_paths:
            continue
        path = (route.path.replace("{game_id}", GAME).replace("{case_id}", "1").replace("{alert_id}", "1")
                .replace("{name}", "viewer").replace("{kind}", "csv"))
        for method in route.methods or ():
            answer = desk.request(method, path, follow_redirects=False)
            seen += 1
            if path.startswith("/api/") or path == "/openapi.json":
                assert answer.status_code == 401, (method, path, answer.status_code)
            else:
                assert answer.status_code == 303 and answer.headers["location"].startswith("/login"), (method, path)
    assert seen >= 25
    assert desk.get("/healthz").json() == {"status": "ok"}
    assert desk.get("/static/desk.css").status_code == 200
    assert desk.get("/login").status_code == 200


def test_login_answers_200_with_the_cookie_or_401(desk: Any) -> None:
    wrong = desk.post("/api/login", json={"username": "floor", "password": "not it at all"})
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    unknown = desk.post("/api/login", json={"username": "nobody", "password": PASSWORD})
    assert unknown.status_code == 401 and unknown.json() == wrong.json()  # no hint whether the user exists
    right = desk.post("/api/login", json={"username": "floor", "password": PASSWORD})
    assert right.status_code == 200
    assert right.json()["user"] == "floor" and right.json()["role"] == "floor" and len(right.json()["csrf_token"]) > 30
    assert desk.get("/api/session").json() == right.json()


def test_the_session_cookie_is_httponly_samesite_and_secure_over_tls(store: str) -> None:
    with client(store) as c:
        cookie = c.post("/api/login", json={"username": "viewer", "password": PASSWORD}).headers["set-cookie"]
    flags = [f.strip().lower() for f in cookie.split(";")]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags and "secure" not in flags
    assert len(cookie.split(";")[0].split("=", 1)[1]) >= 43  # 256 random bits, nothing else
    from fastapi.testclient import TestClient

    from referee.desk.app import create_app

    with TestClient(create_app(store), base_url="https://desk.example") as tls:
        cookie = tls.post("/api/login", json={"username": "viewer", "password": PASSWORD}).headers["set-cookie"]
    assert "secure" in [f.strip().lower() for f in cookie.split(";")]


def test_logging_out_ends_the_session_for_good(desk: Any) -> None:
    token = login(desk, "viewer")
    cookie = desk.cookies.get("referee_session")
    assert desk.post("/api/logout", headers={"X-CSRF-Token": token}).status_code == 204
    desk.cookies.set("referee_session", cookie)  # the old cookie kept and sent again
    assert desk.get("/api/session").status_code == 401


def test_a_state_change_needs_the_sessions_csrf_token(tmp_path: Path) -> None:
    """On a store of its own: the module's store may hold the case the route-by-route test opened."""
    store = make_store(str(tmp_path / "desk.db"), tmp_path)
    with client(store) as c, client(store) as other:
        token = login(c, "floor")
        theirs = login(other, "floor")
        for given in (None, "", "x" * 43, theirs):
            headers = {} if given is None else {"X-CSRF-Token": given}
            answer = c.post("/api/cases", json=CASE, headers=headers)
            assert answer.status_code == 403 and "CSRF" in answer.json()["detail"], given
            form = c.post("/cases", data={**CASE, **({} if given is None else {"csrf_token": given})})
            assert form.status_code == 403, given
        assert c.get("/api/cases").json()["cases"] == [] or all(
            case["opened_by"] != "floor" or case["note"] != "csrf" for case in c.get("/api/cases").json()["cases"])
        answer = c.post("/api/cases", json={**CASE, "note": "with the token"}, headers={"X-CSRF-Token": token})
        assert answer.status_code == 201, answer.text


def test_the_login_form_needs_its_own_token(store: str) -> None:
    with client(store) as c:
        refused = c.post("/login", data={"username": "viewer", "password": PASSWORD, "csrf_token": "forged"},
                         follow_redirects=False)
        assert refused.status_code == 403 and "referee_session" not in refused.headers.get("set-cookie", "")
        page = c.get("/login")
        token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        done = c.post("/login", data={"username": "viewer", "password": PASSWORD, "csrf_token": token,
                                      "next": "https://evil.example/"}, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == "/find"  # never to another site
        assert "referee_session=" in done.headers["set-cookie"]


@pytest.mark.slow
def test_failed_logins_are_held_back_per_user_and_per_address(store: str) -> None:
    from referee.desk.auth import Throttle

    now = [1000.0]
    throttle = Throttle(clock=lambda: now[0])
    with client(store, throttle=throttle) as c:
        for _ in range(5):
            assert c.post("/api/login", json={"username": "risk", "password": "guess guess"}).status_code == 401
        held = c.post("/api/login", json={"username": "risk", "password": PASSWORD})
        assert held.status_code == 429 and int(held.headers["retry-after"]) > 0  # even the right password
        page = c.post("/login", data={"username": "risk", "password": PASSWORD,
                                      "csrf_token": c.get("/login").cookies.get("referee_login") or
                                      c.cookies.get("referee_login")})
        assert page.status_code == 429 and "Too many failed logins" in page.text
        now[0] += 15 * 60 + 1
        assert c.post("/api/login", json={"username": "risk", "password": PASSWORD}).status_code == 200
    other = Throttle(clock=lambda: now[0])
    with client(store, throttle=other) as c:
        for _ in range(5):  # one person mistyping: their name is held back, not the others at that address
            assert c.post("/api/login", json={"username": "risk", "password": "guess guess"}).status_code == 401
        assert c.post("/api/login", json={"username": "risk", "password": PASSWORD}).status_code == 429
        assert c.post("/api/login", json={"username": "auditor", "password": PASSWORD}).status_code == 200
        for n in range(15):  # one address trying many names: held back for every name at 20 failures
            assert c.post("/api/login", json={"username": f"a{n}", "password": "guess guess"}).status_code == 401
        assert c.post("/api/login", json={"username": "floor", "password": PASSWORD}).status_code == 429


def test_the_throttle_counts_pairs_addresses_and_names() -> None:
    from referee.desk.auth import Throttle

    now = [0.0]
    t = Throttle(clock=lambda: now[0])
    for _ in range(5):
        t.failed("alice", "10.0.0.1")
    assert t.wait("alice", "10.0.0.1") == 15 * 60 + 1 and t.wait("bob", "10.0.0.1") == 0
    assert t.wait("alice", "10.0.0.2") == 0  # alice herself, from her own desk
    for n in range(15):  # one name guessed from many addresses: held back everywhere at 20
        t.failed("alice", f"192.0.2.{n}")
    assert t.wait("alice", "10.0.0.9") > 0 and t.wait("bob", "192.0.2.1") == 0
    now[0] += 15 * 60 + 1
    assert t.wait("alice", "10.0.0.1") == 0 == t.wait("alice", "10.0.0.9")
    t.failed("carol", "10.0.0.3")
    t.succeeded("carol", "10.0.0.3")
    assert t.wait("carol", "10.0.0.3") == 0


def test_a_disabled_account_is_logged_out_at_once(tmp_path: Path) -> None:
    from .conftest import run

    url = make_store(str(tmp_path / "d.db"), tmp_path)
    with client(url) as c:
        login(c, "viewer")
        assert c.get("/api/session").status_code == 200
        assert run("users", "disable", "viewer", "--store", url)[0] == 0
        assert c.get("/api/session").status_code == 401


def test_no_trace_or_secret_in_any_answer(desk: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    login(desk, "viewer")
    backend = desk.app.state.desk.backend

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("password=hunter2 at /srv/secret/path.py line 7")

    monkeypatch.setattr(backend, "stored", broken)
    for path in (f"/games/{GAME}", f"/api/games/{GAME}"):
        answer = desk.get(path)
        assert answer.status_code == 500
        for leak in ("Traceback", "hunter2", "RuntimeError", "secret", ".py"):
            assert leak not in answer.text, (path, leak)
    refused = desk.post("/api/login", json={"username": 5, "password": "hunter2-unique-pw"})
    assert refused.status_code == 422 and "hunter2" not in refused.text
    long = desk.post("/api/login", json={"username": "viewer", "password": "hunter2" * 200})
    assert long.status_code == 422 and "hunter2" not in long.text


def test_a_player_id_with_markup_is_shown_as_text(desk: Any) -> None:
    login(desk, "viewer")
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for path in ("/games/9912344", "/find?mode=search&table=CH-9", "/games/9912344/sheet",
                 "/find?mode=search&player=" + MARKUP):
        page = desk.get(path)
        assert page.status_code == 200, path
        assert MARKUP not in page.text and escaped in page.text, path
    api = desk.get("/api/games/9912344")
    assert api.headers["content-type"].startswith("application/json")
    assert MARKUP in [s["player_id"] for s in api.json()["seats"]]
    assert desk.get("/find").headers["content-security-policy"].startswith("default-src 'self'")


def test_every_read_of_a_players_records_is_logged(store: str) -> None:
    from referee.store.access import list_reads

    before = len(list_reads(store, subject=PLAYER, user="auditor"))
    with client(store) as c:
        login(c, "auditor")
        c.get(f"/games/{GAME}")
        c.get(f"/api/games/{GAME}")
        c.get(f"/api/recall?player={PLAYER}&game={GAME}")
        c.get(f"/api/search?player={PLAYER}")
    reads = list_reads(store, subject=PLAYER, user="auditor")[before:]
    assert [r.what for r in reads] == ["game", "game", "recall", "search"]


def test_a_player_id_too_long_for_the_read_log_is_logged_by_its_start_and_digest() -> None:
    from referee.desk.backend import _subject
    from referee.store.access import MAX_TEXT

    short = "p-1002"
    assert _subject(short) == short
    long_a, long_b = "p" * 300 + "a", "p" * 300 + "b"
    assert len(_subject(long_a)) <= MAX_TEXT and _subject(long_a) != _subject(long_b)
    assert _subject(long_a).startswith("p" * 100)
