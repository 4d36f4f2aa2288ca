"""``check --cluster --store`` (issue 31): the workers build the rows, the client numbers,
digests and writes them, one transaction a source; what is stored is what ``--jobs 1
--store`` stores, row for row, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.store import schema
from referee.store.engine import engine, target

from .conftest import SAMPLES, run
from .test_cluster import seats_log, second_records


def stored(url: str) -> list[tuple[str, str, int, int]]:
    """Each source's name, the digest of all its rows, its seats and its chunks, in order."""
    from sqlalchemy import select

    made = engine(target(url))
    try:
        s = schema.sources
        with made.connect() as conn:
            found = conn.execute(select(s.c.name, s.c.rows_digest, s.c.seats, s.c.chunks).order_by(s.c.id)).all()
        return [(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in found]
    finally:
        made.dispose()


def report(out: str) -> str:
    """The report, without the store's own line (which names the store)."""
    return "".join(line for line in out.splitlines(keepends=True) if not line.startswith("referee: store "))


@pytest.mark.slow
def test_the_cluster_stores_what_one_process_stores(tmp_path: Path, dask_cluster: str, store_url: str) -> None:
    log = seats_log(tmp_path / "seats.jsonl", 3, 300, 31, "0.2")  # chunked: a few hundred KiB
    again = second_records(log, tmp_path / "again.jsonl")  # G001/G002 against the stored games
    files = [str(SAMPLES / "disputed.yaml"), str(SAMPLES / "table.jsonl"), str(SAMPLES / "log.jsonl"), str(log),
             str(again)]
    alone = str(tmp_path / "alone.db")
    one = run("check", "--jobs", "1", "--format", "json", "--store", alone, *files)
    there = run("check", "--cluster", dask_cluster, "--format", "json", "--store", store_url, *files)
    assert there[0] == one[0] == 1
    assert report(there[1]) == report(one[1])
    assert stored(store_url) == stored(alone)
    assert [r[2] for r in stored(alone)][3] > 1000 and stored(alone)[3][3] > 1
    code, said = run("store", "verify", store_url)
    assert code == 0 and "intact" in said
    assert run("check", "--cluster", dask_cluster, "--quiet", "--store", store_url, *files)[0] == 1
    assert stored(store_url) == stored(alone)  # stored once: nothing added
