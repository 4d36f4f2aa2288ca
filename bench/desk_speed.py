"""The desk under load (issue 48): a game page and a search, many users at once, on a big store.

Run: python bench/desk_speed.py [--seats N] [--users 50] [--seconds 60] [--store URL] [WORKDIR].
Makes (once, with ``referee simulate --seats 7 --start ...`` and ``check --store``) a store
of about N seats (live tables of seven seats, a game every minute or so), one account,
then starts ``referee serve`` on loopback and runs ``--users`` clients at once (threads,
each its own logged-in session, httpx) for ``--seconds``, each asking in turn:

* ``GET /games/{id}``: a game page (every seat ruled as ``explain`` rules it), a random
  stored game;
* ``GET /api/search?table=T&since=...&until=...``: a table's games in an hour.

Prints, for each, the requests served and the 50th and 95th percentile latencies (the
issue's target: at most 100 ms at the 95th), with the store's size and engine. The issue
asks for 10 million seats on both engines: ``--seats 10000000`` (and ``--store
postgresql://...``) does it, given the hours and the disk; the figures in README.md say
what was measured, and on what.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]
PASSWORD = "bench password 1"
SEATS, GAMES_A_LOG = 7, 2_000


def build(store: str, seats: int, folder: Path) -> list[tuple[str, str]]:
    """The store filled to about ``seats`` seats (once: a store already holding them is
    kept): the (table, first game's start) of each log."""
    logs = max(1, seats // (SEATS * GAMES_A_LOG))
    tables = []
    for n in range(logs):
        table, start = f"T{n % 20 + 1}", f"2026-11-{1 + n // 20:02d}T18:00:00Z"
        tables.append((table, start))
        log = folder / f"table-{n:04d}.jsonl"
        if log.exists():
            continue
        subprocess.run([*REFEREE, "simulate", "--seats", str(SEATS), "--rounds", str(GAMES_A_LOG), "--seed", str(n),
                        "--table", table, "--start", start, "--format", "jsonl", "--output", str(log)], check=True)
        done = subprocess.run([*REFEREE, "check", str(log), "--store", store, "--quiet"], capture_output=True,
                              text=True, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr)
    subprocess.run([*REFEREE, "users", "add", "bench", "--role", "viewer", "--store", store], input=PASSWORD + "\n",
                   text=True, capture_output=True, check=False)
    return tables


def game_ids(store: str, most: int = 5_000) -> list[str]:
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    made = engine(target(store), readonly=True)
    try:
        with made.connect() as conn:
            ids = list(conn.execute(sa.text("SELECT value FROM run_keys WHERE kind = 'game' LIMIT :n"),
                                    {"n": most}).scalars())
            ids += list(conn.execute(sa.text("SELECT game FROM games WHERE game IS NOT NULL LIMIT :n"),
                                     {"n": most}).scalars())
    finally:
        made.dispose()
    return [str(g) for g in ids]


def load(base: str, users: int, seconds: float, games: list[str],
         tables: list[tuple[str, str]]) -> dict[str, list[float]]:
    """``users`` clients at once for ``seconds``: each request's latency, by kind."""
    import httpx

    times: dict[str, list[float]] = {"game page": [], "search": []}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(k: int) -> None:
        rng = random.Random(k)
        with httpx.Client(base_url=base, timeout=120) as c:
            assert c.post("/api/login", json={"username": "bench", "password": PASSWORD}).status_code == 200
            while time.monotonic() < stop:
                if rng.random() < 0.5:
                    kind, url = "game page", f"/games/{rng.choice(games)}"
                else:
                    table, start = rng.choice(tables)
                    kind, url = "search", f"/api/search?table={table}&since={start}&until={start[:11]}19:00:00Z"
                began = time.perf_counter()
                answer = c.get(url)
                took = time.perf_counter() - began
                if answer.status_code != 200:
                    raise SystemExit(f"{url}: {answer.status_code}")
                with lock:
                    times[kind].append(took)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workdir", nargs="?", default=None)
    parser.add_argument("--seats", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--store", default=None, help="a postgresql:// URL (default: a SQLite file in WORKDIR)")
    parser.add_argument("--port", type=int, default=8099)
    args = parser.parse_args()
    folder = Path(args.workdir or tempfile.mkdtemp(prefix="desk-speed-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = args.store or str(folder / "desk.db")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(ROOT))
    began = time.monotonic()
    tables = build(store, args.seats, folder)
    print(f"store {'PostgreSQL' if store.startswith('postgres') else 'SQLite'}: {len(tables)} logs of "
          f"{GAMES_A_LOG:,} games, {SEATS} seats a game (about {len(tables) * GAMES_A_LOG * SEATS:,} seats), "
          f"built in {time.monotonic() - began:.0f} s")
    games = game_ids(store)
    server = subprocess.Popen([*REFEREE, "serve", "--store", store, "--port", str(args.port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        import httpx

        for _ in range(100):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        times = load(base, args.users, args.seconds, games, tables)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{args.users} users for {args.seconds:.0f} s on {platform.machine()}, {os.cpu_count()} cores "
          "(the server and the clients on the same machine)")
    for kind, taken in times.items():
        if not taken:
            continue
        cuts = statistics.quantiles(taken, n=100)
        print(f"  {kind:<10} {len(taken):>7,} requests  p50 {cuts[49] * 1000:7.1f} ms  p95 {cuts[94] * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
