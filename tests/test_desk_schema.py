"""The desk's API fuzzed by schemathesis against ``referee serve`` on loopback (issue 48):
no answer a 5xx, every answer matching the OpenAPI description (its status, its content
type, its body), for a logged-in floor manager (the CSRF token sent with each call)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .desk_support import PASSWORD, make_store, serve

pytest.importorskip("fastapi", reason="the desk needs the serve extra")
SCHEMATHESIS = shutil.which("schemathesis") or str(Path(sys.executable).with_name("schemathesis"))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, tuple[str, str]]]]:
    """The server and a session of each role fuzzed, opened before any fuzzing (the fuzzed
    logins hold this address's back)."""
    import httpx

    folder = tmp_path_factory.mktemp("desk")
    for base in serve(make_store(str(folder / "desk.db"), folder)):
        sessions = {}
        for role in ("floor", "risk"):
            login = httpx.post(f"{base}/api/login", json={"username": role, "password": PASSWORD})
            assert login.status_code == 200
            sessions[role] = (login.cookies["referee_session"], login.json()["csrf_token"])
        yield base, sessions


@pytest.mark.slow
@pytest.mark.parametrize("role", ["floor", "risk"])
def test_the_api_answers_as_its_schema_says_and_never_5xx(live: tuple[str, dict[str, tuple[str, str]]], role: str,
                                                          tmp_path: Path) -> None:
    import httpx

    base, sessions = live
    cookie, token = sessions[role]
    assert httpx.get(f"{base}/openapi.json").status_code == 401  # the description too is behind the login
    done = subprocess.run(
        [SCHEMATHESIS, "run", f"{base}/openapi.json", "-H", f"Cookie: referee_session={cookie}",
         "-H", f"X-CSRF-Token: {token}",
         "--checks", "not_a_server_error,response_schema_conformance,status_code_conformance,"
                     "content_type_conformance",
         "--max-examples", "25", "--seed", "48", "--exclude-path", "/api/logout",
         "--phases", "examples,coverage,fuzzing", "--generation-database", "none"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    counted = re.search(r"(\d+) generated, (\d+) passed", done.stdout)
    assert counted is not None and counted[1] == counted[2] and int(counted[1]) > 200, done.stdout[-2000:]
