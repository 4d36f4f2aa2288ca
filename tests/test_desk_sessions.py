"""The desk's sessions kept in the store (issue 48, schema 0009): any worker process of
``referee serve --workers N`` honours a login another made, a restart logs no one out,
the store keeps the token's hash only, and logging out, disabling an account or setting
its password ends them everywhere."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import run
from .desk_support import PASSWORD, client, login, make_store, serve

pytest.importorskip("fastapi", reason="the desk needs the serve extra")


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> Iterator[str]:
    yield make_store(store_url, tmp_path)


def _cookie(c: Any) -> str:
    from referee.desk.auth import COOKIE

    value: str = c.cookies[COOKIE]
    return value


def test_a_session_made_through_one_worker_is_honoured_by_another(store: str) -> None:
    """Two desks over one store (two worker processes' apps): a login through the first
    is the same session, CSRF token and all, through the second; logging out through the
    second ends it for the first."""
    from referee.desk.auth import COOKIE

    with client(store) as first, client(store) as second:
        csrf = login(first, "floor")
        second.cookies.set(COOKIE, _cookie(first))
        answer = second.get("/api/session")
        assert answer.status_code == 200 and answer.json() == {"user": "floor", "role": "floor", "csrf_token": csrf}
        made = second.post("/api/cases", json={"game": "8812347", "player": "p-1002", "decision": "stands",
                                               "note": "through the other worker"}, headers={"X-CSRF-Token": csrf})
        assert made.status_code == 201, made.text
        assert second.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
        assert first.get("/api/session").status_code == 401


def test_a_restart_logs_no_one_out(store: str) -> None:
    from referee.desk.auth import COOKIE

    with client(store) as before:
        csrf = login(before, "viewer")
        token = _cookie(before)
    with client(store) as after:
        after.cookies.set(COOKIE, token)
        answer = after.get("/api/session")
        assert answer.status_code == 200 and answer.json()["csrf_token"] == csrf


def test_the_store_keeps_the_tokens_hash_not_the_token(store: str) -> None:
    import sqlalchemy as sa

    from referee.store import schema
    from referee.store.appended import reading

    with client(store) as c:
        login(c, "viewer")
        token = _cookie(c)
    with reading(store) as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.select(schema.desk_sessions))]
    assert [r["user"] for r in rows] == ["viewer"]
    assert rows[0]["token"] == hashlib.sha256(token.encode()).hexdigest()
    assert all(token not in str(value) for row in rows for value in row.values())


@pytest.mark.parametrize("command", [["disable", "viewer"], ["passwd", "viewer"]])
def test_users_disable_and_passwd_end_the_sessions_at_once(store: str, command: list[str]) -> None:
    """``referee users disable|passwd`` (not through the desk) ends the user's sessions in
    every worker: a new password must not leave a stolen session open."""
    with client(store) as c:
        login(c, "viewer")
        assert c.get("/api/session").status_code == 200
        code, out = run("users", *command, "--store", store, input=PASSWORD + " new\n")
        assert code == 0, out
        assert c.get("/api/session").status_code == 401


def test_an_idle_or_old_session_ends_and_seen_is_written_once_a_minute(tmp_path: Path) -> None:
    import sqlalchemy as sa

    from referee.desk.auth import IDLE_SECONDS, MAX_SECONDS, Sessions
    from referee.desk.backend import Backend
    from referee.store import schema
    from referee.store.appended import reading

    url = make_store(str(tmp_path / "d.db"), tmp_path)
    now = [1_800_000_000.0]
    backend = Backend(url)
    try:
        sessions = Sessions(backend, clock=lambda: now[0])
        made = sessions.open("viewer")

        def seen() -> int:
            with reading(url) as conn:
                return int(conn.execute(sa.select(schema.desk_sessions.c.seen_us)).scalar_one())

        now[0] += 30
        assert sessions.get(made.token) is not None and seen() == int(1_800_000_000 * 1e6)
        now[0] += 31
        found = sessions.get(made.token)
        assert found is not None and found.csrf == made.csrf and seen() == int(now[0] * 1e6)
        now[0] += IDLE_SECONDS + 1
        assert sessions.get(made.token) is None
        with reading(url) as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(schema.desk_sessions)).scalar() == 0
        kept = sessions.open("viewer")
        for _ in range(int(MAX_SECONDS // (IDLE_SECONDS / 2)) + 1):  # seen often, but open too long
            now[0] += IDLE_SECONDS / 2
            sessions.get(kept.token)
        assert sessions.get(kept.token) is None
    finally:
        backend.close()


@pytest.mark.slow
def test_serve_with_two_workers_answers_one_session_throughout(tmp_path: Path) -> None:
    """``referee serve --workers 2`` on loopback (real uvicorn, two processes): one login
    holds for every request, whichever process answers it."""
    import httpx

    url = make_store(str(tmp_path / "d.db"), tmp_path)
    for base in serve(url, "--workers", "2"):
        with httpx.Client(base_url=base, timeout=30) as c:
            answer = c.post("/api/login", json={"username": "viewer", "password": PASSWORD})
            assert answer.status_code == 200
            csrf = answer.json()["csrf_token"]
            for _ in range(20):
                again = c.get("/api/session")
                assert again.status_code == 200 and again.json()["csrf_token"] == csrf
