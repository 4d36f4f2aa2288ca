"""The desk under load (issue 48): a game page and a search, many users at once, on a big store.

Run: python bench/desk_speed.py STORE [--users 50] [--seconds 60] [--think 0] [--workers 1].
STORE is a store made by ``bench/desk_store.py`` (live tables stored by ``check --store``;
``bench/desk_copy.py`` copies one into PostgreSQL). Adds an account ``bench`` (viewer),
starts ``referee serve`` on loopback (``--workers`` processes) and runs ``--users``
clients at once, each its own logged-in session (one asyncio process, httpx: the load
tool), for ``--seconds``, each asking in turn, half and half at random:

* ``GET /games/{id}``: a game's page (every seat ruled as ``explain`` rules it), a game
  drawn at random from the whole store (a clean game of a run or a game with findings);
* ``GET /api/search?table=T&since=...&until=...``: a table's games in an hour, the hour
  around a game drawn at random from the whole store (old hours as well as new ones).

``--think S``: each user waits a random time (exponential, mean S seconds) between two
requests, as a person reading a page does; 0 (the default): a closed loop, each user asks
again as soon as answered. Prints the store's size, then, for each kind, the requests
served and their 50th, 95th and 99th percentile latencies (the issue's target: at most
100 ms at the 95th), the logins and the first 5 seconds left out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]
PASSWORD = "bench password 1"
WARM_SECONDS = 5.0
HOUR_US = 3_600_000_000
KEEP_ALIVE_SECONDS = 4.0
#: Requests asked again once after a connection failed under them (said with the figures).
RETRIED = {"connection": 0}


def sample(store: str, count: int = 2_000) -> tuple[int, list[str], list[tuple[str, str, str]]]:
    """The store's seats, ``count`` game ids drawn from the whole store, and as many
    (table, since, until) hours around a game drawn the same way."""
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    rng = random.Random(48)
    made = engine(target(store), readonly=True)
    try:
        with made.connect() as conn:
            seats = int(conn.execute(sa.text("SELECT COALESCE(SUM(seats), 0) FROM sources")).scalar() or 0)
            top = int(conn.execute(sa.text("SELECT MAX(id) FROM runs")).scalar() or 0)
            picks = sorted({rng.randint(1, top) for _ in range(count)})
            runs = list(conn.execute(sa.text(
                "SELECT r.id, r.time_min_us, r.time_max_us, s.tbl FROM runs r JOIN sessions s ON s.id = r.session_id "
                "WHERE r.games IS NOT NULL AND r.id IN :ids").bindparams(sa.bindparam("ids", expanding=True)),
                {"ids": picks}))
            games = list(conn.execute(sa.text(
                "SELECT value FROM run_keys WHERE kind = 'game' AND run_id IN :ids").bindparams(
                sa.bindparam("ids", expanding=True)), {"ids": [r.id for r in runs]}).scalars())
            games = rng.sample(games, min(len(games), count * 9 // 10))
            top_game = int(conn.execute(sa.text("SELECT MAX(id) FROM games")).scalar() or 0)
            rows = {rng.randint(1, top_game) for _ in range(count // 10)} if top_game else set()
            if rows:
                games += list(conn.execute(sa.text("SELECT game FROM games WHERE game IS NOT NULL AND id IN :ids")
                                           .bindparams(sa.bindparam("ids", expanding=True)),
                                           {"ids": sorted(rows)}).scalars())
    finally:
        made.dispose()

    def iso(us: int) -> str:
        from datetime import UTC, datetime

        return datetime.fromtimestamp(us / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    hours = []
    for run in runs:
        middle = rng.randint(int(run.time_min_us), int(run.time_max_us))
        hours.append((str(run.tbl), iso(middle - HOUR_US // 2), iso(middle + HOUR_US // 2)))
    return seats, [str(g) for g in games], hours


async def user(k: int, c: Any, stop: float, think: float, games: list[str], hours: list[tuple[str, str, str]],
               times: dict[str, list[float]], counted_from: float) -> None:
    import httpx

    rng = random.Random(k)
    while time.monotonic() < stop:
        if rng.random() < 0.5:
            kind, url = "game page", f"/games/{rng.choice(games)}"
        else:
            table, since, until = rng.choice(hours)
            kind, url = "search", f"/api/search?table={table}&since={since}&until={until}"
        began = time.perf_counter()
        try:
            answer = await c.get(url)
        except httpx.TransportError:  # a connection the server closed as it was reused: asked again, as a browser does
            RETRIED["connection"] += 1
            answer = await c.get(url)
        took = time.perf_counter() - began
        if answer.status_code != 200:
            raise SystemExit(f"{url}: {answer.status_code} {answer.text[:200]}")
        if time.monotonic() >= counted_from:
            times[kind].append(took)
        if think > 0:
            await asyncio.sleep(rng.expovariate(1 / think))


async def load(base: str, users: int, seconds: float, think: float, games: list[str],
               hours: list[tuple[str, str, str]]) -> dict[str, list[float]]:
    """Every user logged in first (a login is an Argon2id hash, 64 MiB and tens of
    milliseconds of CPU by design: 50 at once are seconds of work that no page asks for),
    then the clock: the first 5 seconds not counted, then ``seconds`` measured."""
    import httpx

    times: dict[str, list[float]] = {"game page": [], "search": []}
    async with contextlib.AsyncExitStack() as stack:
        # A connection idle for 4 s is closed by the client, before uvicorn closes it (its
        # keep-alive is 5 s): a request sent on one the server is closing would fail.
        limits = httpx.Limits(keepalive_expiry=KEEP_ALIVE_SECONDS)
        clients = [await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=300, limits=limits))
                   for _ in range(users)]
        for c in clients:
            answer = await c.post("/api/login", json={"username": "bench", "password": PASSWORD})
            if answer.status_code != 200:
                raise SystemExit(f"login: {answer.status_code} {answer.text[:200]}")
        began = time.monotonic()
        stop, counted_from = began + WARM_SECONDS + seconds, began + WARM_SECONDS
        await asyncio.gather(*(user(k, c, stop, think, games, hours, times, counted_from)
                               for k, c in enumerate(clients)))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=0.0, help="mean think time between requests (s)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--port", type=int, default=8099)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(ROOT))
    import httpx

    subprocess.run([*REFEREE, "users", "add", "bench", "--role", "viewer", "--store", args.store],
                   input=PASSWORD + "\n", text=True, capture_output=True, check=False)
    seats, games, hours = sample(args.store)
    engine = "PostgreSQL" if args.store.startswith("postgres") else "SQLite"
    print(f"store {engine}: {seats:,} seats; {len(games):,} games and {len(hours):,} hours drawn")
    server = subprocess.Popen([*REFEREE, "serve", "--store", args.store, "--port", str(args.port),
                               "--workers", str(args.workers)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        times = asyncio.run(load(base, args.users, args.seconds, args.think, games, hours))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{args.users} users, think time {args.think:g} s, {args.workers} worker(s), {args.seconds:.0f} s measured "
          f"on {platform.machine()}, {os.cpu_count()} cores (server and load tool on the same machine), load average "
          f"{os.getloadavg()[0]:.1f}")
    if RETRIED["connection"]:
        print(f"  {RETRIED['connection']} request(s) asked again after their connection failed (timed from "
              "the first try)")
    for kind, taken in times.items():
        if len(taken) < 2:
            continue
        cuts = statistics.quantiles(taken, n=100)
        print(f"  {kind:<10} {len(taken):>7,} requests ({len(taken) / args.seconds:5.1f}/s)"
              f"  p50 {cuts[49] * 1000:7.1f} ms  p95 {cuts[94] * 1000:7.1f} ms  p99 {cuts[98] * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
