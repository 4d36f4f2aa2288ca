"""The desk's questions of a store (issue 48, ``referee.store.desk``): how long each takes.

Run: python bench/desk_queries.py [STORE_URL [--build]] [--games N]. Without a URL, a SQLite
file in a temporary folder. Makes (without a URL, or with ``--build``) a live table of N games
(default 30,000, about 105,000 seats; 2 to 5 seats a game, faults in 2% of them, a game a
minute from 2026-12-02) with ``referee simulate`` and stores it with ``check --store``;
then times, in this process, each question the desk asks on a page (best of 5 wall-clock
runs, the store opened once, as a request of ``referee serve`` opens it):

* ``search_games``: the newest 50; by player; by table, page 21 (offset 1,000); by finding
  code; by amount owed (at least 5: every game with a finding is ruled until 50 are found);
  by dealer; by game id;
* ``table_around`` (10 games either side of a time), ``game_detail`` of a clean game (packed
  in a run) and of a game with findings (a row of its own), ``recall_games`` (the player's
  game and the nine before it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]


def timed_log(folder: Path, games: int) -> Path:
    """A simulated live table, each game given a time (a minute apart)."""
    raw, log = folder / "raw.jsonl", folder / "table.jsonl"
    subprocess.run([*REFEREE, "simulate", "--seats", "2-5", "--rounds", str(games), "--faults", "0.02", "--seed", "5",
                    "--format", "jsonl", "-o", str(raw)], check=True)
    start = datetime(2026, 12, 2, tzinfo=UTC)
    with raw.open(encoding="utf-8") as source, log.open("w", encoding="utf-8") as out:
        for line in source:
            record = json.loads(line)
            number = str(record.get("game", "")).rsplit("-", 1)[-1]
            if number.isdigit():
                record["settled"] = (start + timedelta(minutes=int(number))).isoformat().replace("+00:00", "Z")
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
    return log


def best(label: str, call: Callable[[], object], runs: int = 5) -> object:
    fastest, answer = float("inf"), None
    for _ in range(runs):
        began = time.perf_counter()
        answer = call()
        fastest = min(fastest, time.perf_counter() - began)
    print(f"{label:44s} {fastest * 1000:8.1f} ms")
    return answer


def main() -> None:
    from referee.store import desk
    from referee.store.read import Stored

    args = sys.argv[1:]
    games = int(args[args.index("--games") + 1]) if "--games" in args else 30_000
    urls = [a for a in args if not a.startswith("--") and not a.isdigit()]
    with tempfile.TemporaryDirectory() as folder:
        url = urls[0] if urls else str(Path(folder) / "desk.db")
        if not urls or "--build" in args:
            subprocess.run([*REFEREE, "check", "--store", url, str(timed_log(Path(folder), games)), "--quiet"],
                           stdout=subprocess.DEVNULL)
        with Stored(url) as stored:
            hits = desk.search_games(stored, table="T1", limit=500)
            clean = next(h for h in hits if not h.codes)
            found = desk.search_games(stored, code="W002", limit=1)
            best("search_games: newest 50", lambda: desk.search_games(stored))
            best("search_games: player", lambda: desk.search_games(stored, player=clean.players[0]))
            best("search_games: table, offset 1,000", lambda: desk.search_games(stored, table="T1", offset=1000))
            best("search_games: code W002", lambda: desk.search_games(stored, code="W002"))
            best("search_games: owed at least 5", lambda: desk.search_games(stored, min_owed=Decimal(5)))
            best("search_games: dealer", lambda: desk.search_games(stored, dealer=clean.dealer))
            best("search_games: game id", lambda: desk.search_games(stored, game=clean.game))
            assert clean.time is not None
            best("table_around: 10 either side", lambda: desk.table_around(stored, "T1", clean.time))
            best("game_detail: a clean game (a run's)", lambda: desk.game_detail(stored, clean.game))
            if found:
                best("game_detail: a game with findings (a row)", lambda: desk.game_detail(stored, found[0].game))
            best("recall_games: the game and the nine before",
                 lambda: desk.recall_games(stored, clean.players[0], clean.game))


if __name__ == "__main__":
    main()
