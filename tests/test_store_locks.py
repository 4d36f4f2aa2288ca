"""A store's SQLite file is never opened by Python's ``open`` while this process holds
SQLite connections to it (the desk's pooled ones): POSIX drops every lock a process holds
on a file when it closes any descriptor of that file, so another process closing its own
connection then took itself for the last one, checkpointed and deleted the write-ahead
log, and the desk went on writing cases and acknowledgements into a deleted file (a
floor manager's trial: "Verify the store now", then ``referee users add``, and every case
recorded after was lost while ``store verify`` said intact)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.store.engine import engine, sqlite_file, target

COUNT = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
         "print(c.execute('SELECT count(*) FROM t').fetchone()[0]); c.close()")


def _count_elsewhere(path: Path) -> int:
    """The rows another process reads (it opens the store and closes it, as a command does)."""
    done = subprocess.run([sys.executable, "-c", COUNT, str(path)], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_store_checked_while_this_process_holds_it_open_keeps_its_write_ahead_log(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    store = target(str(path))
    made = engine(store, pool=1)
    try:
        with made.connect() as conn, conn.begin():
            conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        held = made.connect()  # as the desk's pool holds its connections for the server's life
        held.exec_driver_sql("SELECT count(*) FROM t").all()
        held.commit()
        sqlite_file(store, create=False)  # the desk's "Verify the store now" checks the file so
        assert _count_elsewhere(path) == 0  # a command opens the store and closes it
        assert path.with_name("audit.db-wal").exists()
        with held.begin():
            held.exec_driver_sql("INSERT INTO t VALUES (1)")  # a case recorded on the desk
        assert _count_elsewhere(path) == 1
        held.close()
    finally:
        made.dispose()
    assert _count_elsewhere(path) == 1


def test_a_file_that_is_not_a_store_is_still_refused_before_sqlite_opens_it(tmp_path: Path) -> None:
    import pytest

    from referee.store import StoreError

    path = tmp_path / "notes.db"
    path.write_text("not a database\n", encoding="utf-8")
    with pytest.raises(StoreError, match="not a SQLite database"):
        sqlite_file(target(str(path)), create=False)


def test_a_store_whose_connections_are_all_closed_is_checked_again(tmp_path: Path) -> None:
    """Only a file held open is spared the check: once every connection is closed, a file
    put in its place (or made later on the same inode) is read as any other."""
    import pytest

    from referee.store import StoreError

    path = tmp_path / "audit.db"
    store = target(str(path))
    made = engine(store, pool=1)
    with made.connect() as conn:
        conn.exec_driver_sql("SELECT 1").all()
    made.dispose()
    with path.open("r+b") as fh:  # the same inode, no longer a database
        fh.write(b"not a database at all\n")
    with pytest.raises(StoreError, match="not a SQLite database"):
        sqlite_file(store, create=False)


def test_a_case_opened_on_the_desk_after_verifying_the_store_and_a_command_writing_to_it_is_kept(
        tmp_path: Path) -> None:
    """The trial's steps: the desk verifies its store, a command writes to it (an account
    added), then a floor manager opens a case: ``referee cases list`` reads it, and so
    does the desk started again."""
    from referee.desk.backend import Backend
    from referee.store import cases as kept

    from .desk_support import GAME, PASSWORD, PLAYER, make_store

    url = make_store(str(tmp_path / "audit.db"), tmp_path)
    backend = Backend(url)
    try:
        assert backend.verify().problems == ()
        added = subprocess.run([sys.executable, "-m", "referee", "users", "add", "late", "--role", "viewer",
                                "--store", url], input=PASSWORD + "\n", capture_output=True, text=True)
        assert added.returncode == 0, added.stderr  # another process, as a command run beside the desk is
        # the command did not take itself for the store's last user: the log the desk writes into is still there
        assert Path(url + "-wal").exists()
        opened = backend.run(lambda where: kept.open_case(where, GAME, PLAYER, "floor", "paid 2, owed 6"))
    finally:
        backend.close()
    listed = subprocess.run([sys.executable, "-m", "referee", "cases", "list", "--store", url, "--format", "json"],
                            capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert f'"case": {opened.id},' in listed.stdout and "paid 2, owed 6" in listed.stdout
