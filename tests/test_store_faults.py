"""What goes wrong while storing (issue 30): nothing stored is lost or half-written.

Each fault is a real one: a file size limit (``RLIMIT_FSIZE``, what a full disk gives a
writer: ``EFBIG`` on the write that does not fit, no root needed), two processes on one
SQLite file, a PostgreSQL connection ended by the server (``pg_terminate_backend``:
the server going away for this client, without stopping the server other tests use),
a process killed outright, and a store opened read-only."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from referee.store.engine import engine, target

from .conftest import SAMPLES, run
from .store_support import simulate, source_names

REFEREE = [sys.executable, "-m", "referee"]


def _orphans(url: str) -> int:
    """Rows of a source that is not there (a half-written one)."""
    made = engine(target(url))
    tables = ("chunks", "sessions", "settlements", "games", "seats", "runs", "findings")
    try:
        with made.connect() as conn:
            return sum(int(conn.execute(sa.text(f"SELECT count(*) FROM {t} WHERE source_id NOT IN "
                                                "(SELECT id FROM sources)")).scalar_one()) for t in tables)
    finally:
        made.dispose()


def _intact(url: str) -> None:
    code, out = run("store", "verify", url)
    assert code == 0 and "intact" in out, out


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A log long enough to be stopped while it is being stored (faulty: rows of their own)."""
    return simulate(tmp_path_factory.mktemp("big") / "big.jsonl", "--sessions", "4", "--rounds", "2500",
                    "--seed", "30", "--faults", "0.3", "--format", "jsonl")


@pytest.mark.slow
def test_a_full_disk_while_writing(tmp_path: Path, big: str) -> None:
    url = str(tmp_path / "audit.db")
    assert run("check", "--store", url, str(SAMPLES / "disputed.yaml"))[0] == 1
    limit = sum(p.stat().st_size for p in tmp_path.iterdir()) + 256 * 1024

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run([*REFEREE, "check", "--store", url, big, "-q"], capture_output=True, text=True,
                          preexec_fn=small_disk, timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"referee: store {url}: cannot write: "), done.stderr
    assert "Traceback" not in done.stderr
    assert source_names(url) == [str(SAMPLES / "disputed.yaml")] and _orphans(url) == 0
    _intact(url)
    assert run("check", "--store", url, big, "-q")[0] == 1  # room again: the rerun completes it
    assert source_names(url) == [str(SAMPLES / "disputed.yaml"), big]
    _intact(url)


@pytest.mark.slow
def test_two_checks_on_one_sqlite_file_at_once(tmp_path: Path) -> None:
    table = simulate(tmp_path / "table.jsonl", "--seats", "3-6", "--rounds", "1500", "--seed", "31",
                     "--format", "jsonl")
    again = tmp_path / "again.jsonl"  # the same games, exported again another day
    again.write_bytes(Path(table).read_bytes() + b"\n")
    url = str(tmp_path / "audit.db")
    both = [subprocess.Popen([*REFEREE, "check", "--store", url, "--format", "json", "-o", str(tmp_path / f"{i}.json"),
                              name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i, name in enumerate((table, str(again)))]
    outcomes = [p.communicate(timeout=600) for p in both]
    codes = sorted(p.returncode for p in both)
    assert codes == [0, 1], outcomes  # the one stored second has every game again: G002s
    assert sorted(source_names(url)) == sorted([table, str(again)]) and _orphans(url) == 0
    _intact(url)
    import json

    findings = [f["code"] for i in range(2) for s in json.loads((tmp_path / f"{i}.json").read_text())["sessions"]
                for f in s["findings"]]
    joint = json.loads(run("check", "--format", "json", table, str(again))[1])
    assert sorted(findings) == sorted(f["code"] for s in joint["sessions"] for f in s["findings"])


def _writing(url: str, process: subprocess.Popen[str]) -> None:
    """Return once the check is writing its source's rows: an SQLite store's write-ahead
    log has grown by 64 KiB (a fixed wait would be before the audit on a loaded machine
    and after its end on an idle one); a server's store, once the check's transaction has
    written (the server gives it a transaction id: ``pg_stat_activity.backend_xid``)."""
    if "://" in url:
        _server_writing(url, process)
        return
    wal = Path(url + "-wal")
    start = _size(wal)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if _size(wal) > start + 64 * 1024:
            return
        time.sleep(0.02)


def _size(wal: Path) -> int:
    """The write-ahead log's size, 0 when there is none: SQLite removes it when the last
    connection closes, which the check may do between a look and a stat (it opens the store
    to read before it opens it to write)."""
    try:
        return wal.stat().st_size
    except FileNotFoundError:
        return 0


def _server_writing(url: str, process: subprocess.Popen[str]) -> None:
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    made = engine(target(url))
    deadline = time.monotonic() + 120
    try:
        with made.connect() as conn:
            while time.monotonic() < deadline and process.poll() is None:
                writing = conn.execute(sa.text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()")).scalar()
                conn.rollback()
                if writing:
                    time.sleep(0.3)  # a few flushes in: rows written, nothing committed
                    return
                time.sleep(0.02)
    finally:
        made.dispose()


def _killed_midway(url: str, big: str, stop: signal.Signals) -> None:
    assert run("check", "--store", url, str(SAMPLES / "void.yaml"))[0] == 1
    process = subprocess.Popen([*REFEREE, "check", "--store", url, big, "-q"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    _writing(url, process)  # well into the audit: rows written, nothing committed
    assert process.poll() is None, "the check ended before it could be stopped: make the log longer"
    process.send_signal(stop)
    _, err = process.communicate(timeout=120)
    assert process.returncode in (-signal.SIGKILL, 130), err
    assert source_names(url) == [str(SAMPLES / "void.yaml")] and _orphans(url) == 0
    _intact(url)
    assert run("check", "--store", url, big, "-q")[0] == 1
    assert source_names(url) == [str(SAMPLES / "void.yaml"), big]
    _intact(url)


@pytest.mark.slow
def test_a_check_killed_midway_leaves_no_half_source(store_url: str, big: str) -> None:
    _killed_midway(store_url, big, signal.SIGKILL)


@pytest.mark.slow
def test_a_check_interrupted_midway_leaves_no_half_source(store_url: str, big: str) -> None:
    _killed_midway(store_url, big, signal.SIGINT)


@pytest.fixture(scope="module")
def big_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A provider's page and its wallet log, long enough to be stopped while stored."""
    folder = tmp_path_factory.mktemp("big-export")
    table = ("--seats", "3-6", "--rounds", "6000", "--seed", "32", "--faults", "0.05")
    return (simulate(folder / "page.json", *table, "--export", "evolution-history"),
            simulate(folder / "wallet.jsonl", *table, "--export", "seamless-wallet"))


def _wallet_rows(url: str) -> tuple[int, int]:
    """How many wallet logs and pieces of them the store holds."""
    made = engine(target(url))
    try:
        with made.connect() as conn:
            return (int(conn.execute(sa.text("SELECT count(*) FROM wallet_logs")).scalar_one()),
                    int(conn.execute(sa.text("SELECT count(*) FROM wallet_chunks")).scalar_one()))
    finally:
        made.dispose()


@pytest.mark.slow
def test_a_check_killed_while_keeping_a_wallet_log_leaves_none_of_it(store_url: str,
                                                                     big_export: tuple[str, str]) -> None:
    """The wallet log's bytes are in the transaction of the source that refers to them:
    killed midway, neither is there; the rerun keeps both."""
    page, log = big_export
    command = ["check", "--profile", "vivo",
                        "--mapping", "evolution-history", page, "--wallet", log, "--store", store_url, "-q"]
    assert run("check", "--store", store_url, str(SAMPLES / "void.yaml"))[0] == 1
    process = subprocess.Popen([*REFEREE, *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _writing(store_url, process)
    assert process.poll() is None, "the check ended before it could be stopped: make the export longer"
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=120)
    assert source_names(store_url) == [str(SAMPLES / "void.yaml")] and _orphans(store_url) == 0
    assert _wallet_rows(store_url) == (0, 0)
    _intact(store_url)
    assert run(*command)[0] == 1
    assert source_names(store_url) == [str(SAMPLES / "void.yaml"), page]
    logs, pieces = _wallet_rows(store_url)
    assert logs == 1 and pieces > 1
    _intact(store_url)


@pytest.mark.slow
def test_the_server_going_away_midway(big: str) -> None:
    """The server ends the writer's connection once its transaction has written (the
    server gave it a transaction id: ``backend_xid``; a transaction that has only read,
    as opening the store does, has none and would be "cannot open")."""
    from .store_support import drop_database, new_database, postgres_admin

    admin = postgres_admin()
    url = new_database(admin)
    try:
        assert run("check", "--store", url, str(SAMPLES / "void.yaml"))[0] == 1
        process = subprocess.Popen([*REFEREE, "check", "--store", url, big, "-q"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        name = url.rsplit("/", 1)[1]
        made = engine(target(admin))
        ended = 0
        with made.connect() as conn:
            deadline = time.monotonic() + 60
            while not ended and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.05)
                ended = len(conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :d AND "
                    "application_name = 'referee' AND backend_xid IS NOT NULL"), {"d": name}).all())
                conn.commit()
        made.dispose()
        _, err = process.communicate(timeout=120)
        assert ended, "the writer's connection was never seen in a transaction"
        assert process.returncode == 2, err
        assert err.startswith("referee: store ") and ": cannot write: " in err and "Traceback" not in err, err
        assert source_names(url) == [str(SAMPLES / "void.yaml")] and _orphans(url) == 0
        _intact(url)
        assert run("check", "--store", url, big, "-q")[0] == 1
        _intact(url)
    finally:
        drop_database(admin, url)


def test_reading_never_writes(store_url: str) -> None:
    from referee.store.read import Stored

    assert run("check", "--store", store_url, str(SAMPLES / "disputed.yaml"))[0] == 1
    path = Path(store_url) if "://" not in store_url else None
    before = path.read_bytes() if path is not None else None
    assert run("recall", "--store", store_url, "--round", "10")[0] == 1
    if path is not None:
        assert path.read_bytes() == before
    with Stored(store_url) as stored, pytest.raises(sa.exc.DBAPIError) as raised:
        stored.conn.execute(sa.text("UPDATE sources SET name = 'x'"))
    assert "read-only" in str(raised.value) or "readonly" in str(raised.value)


def test_a_reader_does_not_wait_for_a_writer(store_url: str) -> None:
    assert run("check", "--store", store_url, str(SAMPLES / "disputed.yaml"))[0] == 1
    made = engine(target(store_url))
    with made.connect() as writer:
        writer.info["write"] = True
        writer.begin()
        writer.execute(sa.text("UPDATE store_meta SET writer = 'another run' WHERE id = 1"))
        writer.execute(sa.text("DELETE FROM findings"))  # not committed: no reader sees it
        started = time.monotonic()
        code, out = run("recall", "--store", store_url, "--round", "10")
        assert code == 1 and "P005" in out
        assert time.monotonic() - started < 30
        writer.rollback()
    made.dispose()


def test_a_store_folder_that_does_not_exist(tmp_path: Path) -> None:
    code, out = run("check", "--store", str(tmp_path / "no" / "audit.db"), str(SAMPLES / "clean.yaml"))
    assert code == 2 and "no folder" in out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork: --jobs")
def test_stored_alike_in_parallel(tmp_path: Path, big: str) -> None:
    """``--jobs 2`` stores what ``--jobs 1`` stores, row for row (the rows are made in
    the workers, numbered in the parent)."""
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    assert run("check", "--store", one, "--jobs", "1", big, "-q")[0] == 1
    assert run("check", "--store", two, "--jobs", "2", big, "-q")[0] == 1
    tables = ("sessions", "settlements", "games", "seats", "runs", "findings")
    e1, e2 = engine(target(one)), engine(target(two))
    with e1.connect() as a, e2.connect() as b:
        for t in tables:
            assert a.execute(sa.text(f"SELECT digest FROM {t} ORDER BY id")).all() == \
                b.execute(sa.text(f"SELECT digest FROM {t} ORDER BY id")).all(), t
    e1.dispose()
    e2.dispose()
