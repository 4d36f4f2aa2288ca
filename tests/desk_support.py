"""What the desk's tests share: a store with games and one account a role, a client logged in.

The store holds ``samples/table.yaml`` (table CH-7: game 8812347 owes p-1002 160 EUR) and
the same log with player p-1003 renamed ``<script>alert(1)</script>`` (a player id with
markup, which every page must show as text), checked as ``check --store`` does.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .conftest import ROOT, SAMPLES, run

PASSWORD = "correct horse 42"
ROLES = ("viewer", "floor", "risk", "auditor", "admin")
MARKUP = "<script>alert(1)</script>"
#: The disputed game of samples/table.yaml and its short-paid player.
GAME, PLAYER, TABLE = "8812347", "p-1002", "CH-7"


def make_store(url: str, folder: Path) -> str:
    """``url`` made a store with the two logs and an account for each role (named as the role)."""
    marked = folder / "marked.yaml"
    text = (SAMPLES / "table.yaml").read_text(encoding="utf-8").replace("p-1003", f'"{MARKUP}"')
    marked.write_text(text.replace("8812344", "9912344").replace("8812345", "9912345").replace(
        "8812346", "9912346").replace("8812347", "9912347").replace("CH-7", "CH-9"), encoding="utf-8")
    for log in (str(SAMPLES / "table.yaml"), str(marked)):
        code, out = run("check", log, "--store", url, "--quiet")
        assert code == 1, out
    groups(url)
    for role in ROLES:
        code, out = run("users", "add", role, "--role", role, "--store", url, input=PASSWORD + "\n")
        assert code == 0, out
    return url


def split_log(folder: Path) -> Path:
    """``samples/table.yaml`` with game 8812347's second seat (p-1002's, owed 160) in a
    second record of the game, as format 2 allows (and the simulator writes now and then)."""
    text = (SAMPLES / "table.yaml").read_text(encoding="utf-8")
    seat = text.rindex("      - player_id: p-1002\n        ante: 2\n        decision: call\n")
    again = ('  - game: "8812347"\n    settled: 2026-11-29T20:22:15Z\n    dealer_id: d-4\n    player: [10♠, J♠]\n'
             "    flop: [Q♠, K♠, 3♦]\n    turn: 2♣\n    river: A♠\n    dealer: [8♥, 8♦]\n    seats:\n")
    log = folder / "split.yaml"
    log.write_text(text[:seat] + again + text[seat:], encoding="utf-8")
    return log


def split_store(url: str, folder: Path) -> str:
    """``url`` made a store of :func:`split_log` alone, with an account for each role."""
    code, out = run("check", str(split_log(folder)), "--store", url, "--quiet")
    assert code == 1, out
    for role in ROLES:
        code, out = run("users", "add", role, "--role", role, "--store", url, input=PASSWORD + "\n")
        assert code == 0, out
    return url


def groups(url: str) -> list[int]:
    """Two alert groups kept as ``monitor --record`` keeps them (table CH-7 paying short,
    a dealer's deal): their ids."""
    from referee.alerts import kept
    from referee.monitor.groups import AlertGroup
    from referee.store.engine import engine, target

    table = AlertGroup(lead=f"table {TABLE}", basis="paid", segments=(f"table {TABLE}", f"player {PLAYER}"), z=-7.25,
                       bet="ante+call", window="last 1,000 games", first_game="8812345", last_game=GAME,
                       since="2026-11-29T20:17:52Z", until="2026-11-29T20:22:15Z")
    dealer = AlertGroup(lead="dealer d-4", basis="rules", segments=("dealer d-4",), z=4.1, bet="deal",
                        window="day", first_game=GAME, last_game=GAME)
    made = engine(target(url))
    try:
        with made.connect() as conn:
            conn.info["write"] = True
            with conn.begin():
                kept.lock(conn)
                return [i for i, _ in kept.record_groups(conn, [table, dealer], [], "99% family band")]
    finally:
        made.dispose()


def client(url: str, **options: Any) -> Any:
    """A TestClient of the desk over ``url`` (server errors answered, as a browser sees them)."""
    from fastapi.testclient import TestClient

    from referee.desk.app import create_app

    return TestClient(create_app(url, **options), raise_server_exceptions=False)


def login(c: Any, name: str, password: str = PASSWORD) -> str:
    """Log ``c`` in as ``name``: its CSRF token."""
    answer = c.post("/api/login", json={"username": name, "password": password})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["csrf_token"]
    return token


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(url: str, *options: str) -> Iterator[str]:
    """``referee serve --store URL`` on a free loopback port, until the test ends: its base URL."""
    import httpx

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "referee", "serve", "--store", url, "--port", str(port), *options],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None:
                raise AssertionError(server.stderr.read().decode() if server.stderr else "serve ended")
            time.sleep(0.1)
        else:
            raise AssertionError("referee serve did not answer /healthz within 30 s")
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
