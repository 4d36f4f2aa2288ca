"""The audit store's figures (issue 30), each measured in this run.

Run: python bench/store_speed.py [WORKDIR] [--seats N] [--skip-write] [--skip-recall] [--live].

1. What storing adds to ``check --jobs 1 --format json`` on 200,000 rounds (the log
   ``bench/check_speed.py`` uses: ``referee simulate --sessions 200 --rounds 1000 --seed
   18``, clean), against the same check without ``--store`` (a new SQLite file each time),
   runs interleaved, best of ``REPEAT`` (default 3): wall and CPU seconds (user + system,
   the compressing thread included), the ratio; target: at most 1.30 (wall). For scale,
   also: a 10%-faulty log (rounds of their own rows), the same clean rounds each with a
   time (no fast lane: a row a round) and a live table of 200,000 seats. ``--live``: only
   live tables of 200,000 seats (their clean games kept in runs, schema 0005), as users'
   logs come: 4 seats a game inline, the same as seat lines, the same with every line's
   keys sorted and spaced (``jq -S`` writes so), and 200 seats a game.
2. ``recall --store`` of any game among ``--seats`` (default 10,000,000) stored seats,
   from a generated store: a real store of 10,000 seats (a live table of about 1,400
   games and a JSON Lines log of 2,000 clean rounds, checked with ``--store``) copied in
   SQL until it holds that many seats, every copy its own sources, sessions, game ids
   and settlements (why: auditing 10 million seats takes the audit's time, some 10 minutes
   of CPU here; copying rows takes a minute, and what recall reads, the indexes and the
   rows, is the same). Times a recall by game, by player, and of a round of a run, each
   in a child process (start-up included, as a user waits for it) and in this process
   (the recall itself); target: at most 0.2 s.

This machine is shared: the figures are the best of the runs, and the load average is
printed beside them.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
REPEAT = int(os.environ.get("REPEAT", "3"))


def referee(*args: str) -> None:
    done = subprocess.run([*REFEREE, *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"referee {' '.join(args)}: {done.stderr}")


def simulate(path: Path, *args: str) -> Path:
    if not path.exists():
        referee("simulate", *args, "--output", str(path))
    return path


def timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, its threads included) of one child run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: {done.stderr}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


# --- 1. what storing adds to check ------------------------------------------------------


def timed_rounds(clean: Path, folder: Path) -> Path:
    """The clean log, each round with a time (a real table's log has them): no fast lane."""
    path = folder / "timed-200k.jsonl"
    if not path.exists():
        with clean.open() as src, path.open("w") as out:
            for i, line in enumerate(src):
                if line.startswith('{"round":'):
                    minute, second = divmod(i % 3600, 60)
                    line = f'{{"time":"2026-11-29T{i // 3600 % 24:02d}:{minute:02d}:{second:02d}Z",' + line[1:]
                out.write(line)
    return path


def spaced(log: Path, folder: Path) -> Path:
    """The log with every line's keys sorted and spaced, as ``jq -S`` writes JSON."""
    path = folder / f"{log.stem}-spaced.jsonl"
    if not path.exists():
        with log.open(encoding="utf-8") as src, path.open("w", encoding="utf-8") as out:
            for line in src:
                out.write(json.dumps(json.loads(line), sort_keys=True, indent=None, separators=(", ", ": ")) + "\n")
    return path


def live_logs(folder: Path) -> dict[str, Path]:
    """Live tables of 200,000 seats as users' logs come (see the module's docstring)."""
    four = simulate(folder / "table4-200k.jsonl", "--seats", "4", "--rounds", "50000", "--seed", "19",
                    "--format", "jsonl")
    return {
        "200k seats, 4 a game inline": four,
        "200k seats, 4 a game as seat lines": simulate(folder / "table4-lines-200k.jsonl", "--seats", "4", "--rounds",
                                                       "50000", "--seed", "19", "--format", "jsonl", "--seat-lines"),
        "200k seats, 4 a game, keys sorted and spaced": spaced(four, folder),
        "200k seats, 200 a game inline": simulate(folder / "table-200k.jsonl", "--seats", "200", "--rounds", "1000",
                                                  "--seed", "19", "--format", "jsonl"),
    }


def write_figures(folder: Path, live: bool = False) -> None:
    if live:
        logs = live_logs(folder)
    else:
        logs = {
            "200k clean rounds": simulate(folder / "clean-200k.jsonl", "--sessions", "200", "--rounds", "1000",
                                          "--seed", "18", "--format", "jsonl"),
            "200k rounds, 10% faulty": simulate(folder / "faulty-200k.jsonl", "--sessions", "200", "--rounds", "1000",
                                                "--seed", "18", "--faults", "0.1", "--format", "jsonl"),
            "200k seats (live table)": simulate(folder / "table-200k.jsonl", "--seats", "200", "--rounds", "1000",
                                                "--seed", "19", "--format", "jsonl"),
        }
        logs["200k clean rounds with times"] = timed_rounds(logs["200k clean rounds"], folder)
    print(f"1. check --jobs 1 --format json, with and without --store (SQLite); {load()}")
    for name, log in logs.items():
        plain: list[tuple[float, float]] = []
        stored: list[tuple[float, float]] = []
        for _ in range(REPEAT):
            plain.append(timed([*REFEREE, "check", "--jobs", "1", "--format", "json", "-o", os.devnull, str(log)]))
            db = folder / "write.db"
            for extra in ("", "-wal", "-shm"):
                Path(f"{db}{extra}").unlink(missing_ok=True)
            stored.append(timed([*REFEREE, "check", "--jobs", "1", "--format", "json", "-o", os.devnull,
                                 "--store", str(db), str(log)]))
        (pw, pc), (sw, sc) = min(plain), min(stored)
        size = sum(Path(f"{folder / 'write.db'}{x}").stat().st_size for x in ("", "-wal")
                   if Path(f"{folder / 'write.db'}{x}").exists())
        target = " (target <= 1.30x wall)" if name == "200k clean rounds" or live else ""
        print(f"   {name}: check {pw:.2f} s ({pc:.2f} s CPU), with --store {sw:.2f} s ({sc:.2f} s CPU): "
              f"{sw / pw:.2f}x wall, {sc / pc:.2f}x CPU; store {size / 1e6:.1f} MB for a "
              f"{log.stat().st_size / 1e6:.0f} MB log{target}")


# --- 2. recall among millions ---------------------------------------------------------------------


#: The tables copied, with the id columns that move with each copy (table -> column -> the
#: table whose ids it holds).
COPIED = {
    "sources": {"id": "sources"},
    "chunks": {"source_id": "sources"},
    "profiles": {},
    "sessions": {"id": "sessions", "source_id": "sources"},
    "settlements": {"id": "settlements", "source_id": "sources"},
    "games": {"id": "games", "source_id": "sources", "session_id": "sessions"},
    "seats": {"id": "seats", "source_id": "sources", "session_id": "sessions", "game_id": "games",
              "settlement_id": "settlements"},
    "runs": {"id": "runs", "source_id": "sources", "session_id": "sessions", "first_seat": "seats"},
    "run_keys": {"run_id": "runs"},
    "findings": {"id": "findings", "source_id": "sources", "session_id": "sessions"},
}
#: Text columns that must differ from copy to copy (a copy is another day's table).
RENAMED = {"sources": ("sha256", "name"), "sessions": ("ident",), "games": ("game",), "seats": ("game",)}
#: The same for the game ids a run of clean games keeps (in its names, and as its keys).
RENAMED_SQL = {
    ("runs", "names"): "CASE WHEN names IS NULL THEN NULL ELSE json_set(names, '$.games', "
                       "(SELECT json_group_array(value || '#{k}') FROM json_each(names, '$.games'))) END",
    ("run_keys", "value"): "CASE WHEN kind = 'game' THEN value || '#{k}' ELSE value END",
}


def generate(path: Path, seats: int, folder: Path) -> dict[str, str]:
    """A store of at least ``seats`` seats (see the module's docstring); returns what to ask."""
    base = folder / "base.db"
    if not base.exists():
        table = simulate(folder / "base-table.jsonl", "--seats", "4-10", "--rounds", "1150", "--seed", "40",
                         "--format", "jsonl")
        rounds = simulate(folder / "base-rounds.jsonl", "--sessions", "2", "--rounds", "1000", "--seed", "41",
                          "--format", "jsonl")
        referee("check", "--store", str(base), str(table), str(rounds))
    if path.exists():
        return _questions(path)
    conn = sqlite3.connect(base)
    have = conn.execute("SELECT sum(seats) FROM sources").fetchone()[0]
    width = {t: conn.execute(f"SELECT coalesce(max(id), 0) FROM {t}").fetchone()[0]
             for t in ("sources", "sessions", "settlements", "games", "findings", "runs")}
    width["seats"] = max(conn.execute("SELECT coalesce(max(id), 0) FROM seats").fetchone()[0],
                         conn.execute("SELECT coalesce(max(first_seat + rounds - 1), 0) FROM runs").fetchone()[0])
    conn.close()
    copies = -(-seats // have)
    subprocess.run(["cp", str(base), str(path)], check=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("ATTACH DATABASE ? AS base", (str(base),))
    start = time.perf_counter()
    conn.execute("BEGIN")
    for k in range(1, copies):
        for table, moved in COPIED.items():
            if table == "profiles":
                continue
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            values = []
            for c in columns:
                if c in moved:
                    values.append(f"{c} + {k * width[moved[c]]}" if moved[c] else c)
                elif (table, c) in RENAMED_SQL:
                    values.append(RENAMED_SQL[table, c].format(k=k))
                elif c in RENAMED.get(table, ()):
                    values.append(f"CASE WHEN {c} IS NULL THEN NULL ELSE {c} || '#{k}' END")
                else:
                    values.append(c)
            conn.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM base.{table}")
        if k % 50 == 0:
            print(f"   ... {k} copies of {copies} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    conn.execute("UPDATE store_meta SET sources = (SELECT max(id) FROM sources)")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE base")
    conn.execute("ANALYZE")
    conn.close()
    print(f"   generated {copies} copies in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return _questions(path)


def _questions(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    total = conn.execute("SELECT sum(seats) FROM sources").fetchone()[0]
    rng = random.Random(30)
    games = conn.execute("SELECT count(*) FROM run_keys WHERE kind = 'game'").fetchone()[0]
    game = conn.execute("SELECT value FROM run_keys WHERE kind = 'game' LIMIT 1 OFFSET ?",
                        (rng.randrange(games),)).fetchone()[0]  # a game of a run of clean games
    player = conn.execute("SELECT player FROM seats WHERE player IS NOT NULL AND id >= ? ORDER BY id LIMIT 1",
                          (total // 2,)).fetchone()[0]
    run = conn.execute("SELECT session_id, first_number FROM runs WHERE games IS NULL AND id >= ? ORDER BY id",
                       (conn.execute("SELECT max(id) FROM runs").fetchone()[0] // 2,)).fetchone()
    session = conn.execute("SELECT ident FROM sessions WHERE id = ?", (run[0],)).fetchone()[0]
    conn.close()
    return {"total": str(total), "game": game, "player": player, "session": session, "round": str(run[1] + 5)}


def recall_figures(folder: Path, seats: int) -> None:
    store = folder / f"store-{seats}.db"
    asked = generate(store, seats, folder)
    print(f"2. recall --store among {int(asked['total']):,} stored seats ({store.stat().st_size / 1e9:.1f} GB); "
          f"{load()}")
    questions = {
        "a game and the nine before it (format 2)": ["--game", asked["game"]],
        "a player's last 10 games": ["--player", asked["player"]],
        "a round of a run (format 1)": ["--session", asked["session"], "--round", asked["round"]],
    }
    from referee.recall import Query
    from referee.store.read import Stored
    from referee.store.recall import recall

    for name, args in questions.items():
        walls = [timed([*REFEREE, "recall", "--store", str(store), *args])[0] for _ in range(REPEAT)]
        inside = []
        for _ in range(REPEAT):
            query = Query(player=asked["player"] if "--player" in args else None,
                          session=asked["session"] if "--session" in args else None,
                          round=int(asked["round"]) if "--round" in args else None,
                          game=asked["game"] if "--game" in args else None)
            start = time.perf_counter()
            with Stored(str(store)) as stored:
                found = recall(stored, query)
            inside.append(time.perf_counter() - start)
            assert found.matches, name
        print(f"   {name}: {min(inside) * 1000:.0f} ms (the recall, opening the store included), "
              f"{min(walls):.2f} s as a command (start-up included) (target <= 0.2 s)")


def main(argv: list[str]) -> None:
    folder = Path(argv[0]) if argv and not argv[0].startswith("--") else Path(tempfile.gettempdir()) / "store-bench"
    folder.mkdir(parents=True, exist_ok=True)
    seats = int(argv[argv.index("--seats") + 1]) if "--seats" in argv else 10_000_000
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; {folder}")
    if "--skip-write" not in argv:
        write_figures(folder, live="--live" in argv)
    if "--skip-recall" not in argv:
        recall_figures(folder, seats)


if __name__ == "__main__":
    main(sys.argv[1:])
