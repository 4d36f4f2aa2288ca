"""`check --store` (issue 30): every audited source kept, once, and compared with what is kept."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from referee.cli import main
from referee.store import migrate

from .conftest import SAMPLES, run
from .store_support import postgres_admin

ALL = sorted(str(p) for p in SAMPLES.iterdir() if p.suffix in (".yaml", ".jsonl"))


def both(*args: str, input: str | None = None) -> tuple[int, str, str]:
    """Exit status, standard output and standard error, apart."""
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def counts(url: str) -> dict[str, int]:
    code, out = run("store", "info", url)
    assert code == 0, out
    first = out.splitlines()[1]
    found = {"sessions": r"([\d,]+) sessions?", "games": r"([\d,]+) games?\b", "seats": r"([\d,]+) rounds and seats",
             "findings": r"([\d,]+) findings?", "second_records": r"([\d,]+) second records?"}
    return {k: int(m.group(1).replace(",", "")) if (m := re.search(p, first)) else 0 for k, p in found.items()}


def test_the_report_is_the_same_and_every_source_is_kept(store_url: str) -> None:
    plain = both("check", "--format", "json", *ALL)
    stored = both("check", "--format", "json", "--store", store_url, *ALL)
    assert stored[0] == plain[0] == 1
    assert stored[1] == plain[1]  # storing changes nothing in the report
    assert f"{len(ALL)} sources stored" in stored[2]
    code, out = run("store", "info", store_url)
    assert code == 0
    for name in ALL:
        assert name in out
    report = json.loads(plain[1])
    assert counts(store_url)["sessions"] == report["summary"]["sessions"]
    assert counts(store_url)["findings"] == sum(len(s["findings"]) for s in report["sessions"])


def test_a_file_stored_twice_adds_nothing(store_url: str) -> None:
    first = both("check", "--format", "json", "--store", store_url, str(SAMPLES / "disputed.yaml"))
    before = counts(store_url)
    again = both("check", "--format", "json", "--store", store_url, str(SAMPLES / "disputed.yaml"))
    assert again[1] == first[1] and again[0] == first[0] == 1
    assert "0 sources stored, 1 already there" in again[2]
    assert counts(store_url) == before


def test_a_copy_under_another_name_is_the_same_source(store_url: str, tmp_path: Path) -> None:
    copy = tmp_path / "copy.yaml"
    copy.write_bytes((SAMPLES / "clean.yaml").read_bytes())
    both("check", "--store", store_url, str(SAMPLES / "clean.yaml"))
    code, _, err = both("check", "--store", store_url, str(copy))
    assert code == 0 and "1 already there" in err


def _session(report: dict[str, Any], file: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [s for s in report["sessions"] if s["file"] == file]
    assert len(found) == 1
    return found[0]


def test_a_game_stored_before_is_a_second_record_in_a_later_check(store_url: str) -> None:
    table_yaml, table_jsonl = str(SAMPLES / "table.yaml"), str(SAMPLES / "table.jsonl")
    together = json.loads(both("check", "--format", "json", table_yaml, table_jsonl)[1])
    both("check", "--store", store_url, table_yaml)  # another day
    code, out, _ = both("check", "--format", "json", "--store", store_url, table_jsonl)
    alone = json.loads(out)
    assert code == 1
    later = _session(alone, table_jsonl)
    assert later == _session(together, table_jsonl)  # G002s (and the game counts) as if both were in one run
    assert {f["code"] for f in later["findings"]} >= {"G002"}
    # every game of the export is a second record: its seats are bets, no game counts again
    assert alone["summary"]["games"] == {"games": 0, "counted": 0, "void": 0, "cancelled": 0, "invalid": 0,
                                         "seats": 10, "second_records": 4}
    # and the text report marks the rows, as in one run
    text = both("check", "--store", store_url, table_jsonl)[1]
    assert "G002" in text


def test_a_stored_file_checked_again_is_not_a_second_record_of_itself(store_url: str) -> None:
    table_yaml, table_jsonl = str(SAMPLES / "table.yaml"), str(SAMPLES / "table.jsonl")
    first = both("check", "--format", "json", "--store", store_url, table_yaml)
    both("check", "--store", store_url, table_jsonl)
    again = both("check", "--format", "json", "--store", store_url, table_yaml)
    assert again[:2] == first[:2]  # neither itself nor the file stored after it


def test_other_cards_for_a_stored_game_is_G001(store_url: str, tmp_path: Path) -> None:
    doc = yaml.safe_load((SAMPLES / "table.yaml").read_text(encoding="utf-8"))
    both("check", "--store", store_url, str(SAMPLES / "table.yaml"))
    game = doc["games"][0]
    game["flop"] = [game["turn"], game["flop"][1], game["flop"][2]] if game.get("turn") else game["flop"][::-1]
    game["turn"] = doc["games"][0]["flop"][0] if game.get("turn") else game.get("turn")
    doc["games"] = [game]
    other = tmp_path / "export.yaml"
    other.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    code, out, _ = both("check", "--format", "json", "--store", store_url, str(other))
    found = [f for s in json.loads(out)["sessions"] for f in s["findings"] if f["code"] == "G001"]
    assert code == 1 and len(found) == 1
    assert found[0]["game"] == str(game["game"]) and str(SAMPLES / "table.yaml") in found[0]["message"]


def test_standard_input_is_kept_under_its_name(store_url: str) -> None:
    text = (SAMPLES / "disputed.yaml").read_text(encoding="utf-8")
    plain = both("check", "--format", "json", "-", input=text)
    stored = both("check", "--format", "json", "--store", store_url, "-", input=text)
    assert stored[:2] == plain[:2]
    assert "1 source stored" in stored[2]
    code, out = run("recall", "--store", store_url, "--round", "10")
    assert code == 1 and "(-:154)" in out


def test_nothing_is_stored_of_a_file_that_changes_while_audited(store_url: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.store import chunks

    log = tmp_path / "log.yaml"
    log.write_bytes((SAMPLES / "clean.yaml").read_bytes())
    real = chunks.file_digest  # a source's digest as the check begins (chunks.Digests), not the audit's

    monkeypatch.setattr(chunks, "file_digest", lambda source: "0" * 64 if source.path == log else real(source))
    code, _, err = both("check", "--store", store_url, str(log), str(SAMPLES / "void.yaml"))
    assert code == 1  # void.yaml has findings
    assert "log.yaml: not stored: it changed while it was audited" in err
    assert "1 source stored" in err
    monkeypatch.undo()
    _, out = run("store", "info", store_url)
    assert "void.yaml" in out and "log.yaml" not in out


# --- schema versions, extras, URLs -----------------------------------------------------------


def _version(url: str, version: str) -> None:
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    made = engine(target(url))
    with made.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": version})
    made.dispose()


def test_a_store_of_a_newer_schema_is_refused(store_url: str) -> None:
    both("check", "--store", store_url, str(SAMPLES / "clean.yaml"))
    _version(store_url, "9999")
    for args in (("check", "--store", store_url, str(SAMPLES / "void.yaml")),
                 ("recall", "--store", store_url, "--round", "1"), ("store", "upgrade", store_url)):
        code, _, err = both(*args)
        assert code == 2
        assert f"schema version 9999 is newer than this referee knows ({migrate.HEAD}); use a newer referee" in err


def test_upgrade_says_when_there_is_nothing_to_do(store_url: str) -> None:
    both("check", "--store", store_url, str(SAMPLES / "clean.yaml"))
    code, out = run("store", "upgrade", store_url)
    assert code == 0 and f"at schema version {migrate.HEAD} already" in out


def test_an_older_store_is_refused_until_upgraded(store_url: str) -> None:
    """A store an older referee made (schema 0001, every table but the newer indexes)
    is refused by commands with the line that says what to run; ``store upgrade``
    migrates it, once, and then it is used as any store."""
    import sqlalchemy as sa

    from referee.store import migrate
    from referee.store.engine import engine, target

    made = engine(target(store_url))
    with made.begin() as conn:
        conn.info["write"] = True
        migrate.upgrade(conn, "0001")
    made.dispose()
    for args in (("check", "--store", store_url, str(SAMPLES / "clean.yaml")),
                 ("recall", "--store", store_url, "--round", "1")):
        code, _, err = both(*args)
        assert code == 2
        assert (f"schema version 0001 is older than this referee's ({migrate.HEAD}): run referee store upgrade"
                in err)
    code, out = run("store", "upgrade", store_url)
    steps = ", ".join(s.revision for s in reversed(list(migrate.scripts().walk_revisions())) if s.revision != "0001")
    said = f"upgraded from schema version 0001 to {migrate.HEAD} (migrations {steps})"
    assert steps.startswith("0002, 0003, 0004, 0005, 0006, ")
    assert code == 0 and said in out
    code, out = run("store", "upgrade", store_url)
    assert code == 0 and f"at schema version {migrate.HEAD} already" in out
    made = engine(target(store_url))
    with made.connect() as conn:
        names = {index["name"] for index in sa.inspect(conn).get_indexes("games")}
    made.dispose()
    assert {"ix_games_dealer", "ix_games_tbl"} <= names
    code, _, err = both("check", "--store", store_url, str(SAMPLES / "clean.yaml"))
    assert code == 0 and "1 source stored" in err


def test_a_database_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER)")
    code, _, err = both("check", "--store", str(other), str(SAMPLES / "clean.yaml"))
    assert code == 2 and "not a referee store" in err
    code, _, err = both("recall", "--store", str(tmp_path / "missing.db"), "--round", "1")
    assert code == 2 and "missing.db: no such file" in err


def test_the_migrations_build_the_schema() -> None:
    """The shipped migrations and ``referee/store/schema.py`` say the same, and
    ``migrate.HEAD`` is the scripts' head (opening a store does not import Alembic)."""
    import sqlalchemy as sa
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from referee.store import migrate, schema

    assert migrate.head() == migrate.HEAD
    made = sa.create_engine("sqlite://")
    with made.begin() as conn:
        migrate.upgrade(conn)
        assert compare_metadata(MigrationContext.configure(conn), schema.metadata) == []
        assert conn.execute(sa.select(schema.store_meta.c.head, schema.store_meta.c.sources)).one() == ("", 0)


def _schema_of(build: object) -> tuple[dict[tuple[str, str], list[str]], list[tuple[object, ...]]]:
    """Every table, index and trigger of a new SQLite store as its statement's lines
    (sorted: the order of the foreign keys is Alembic's, not a difference), and its rows
    of schema data (the version, the store's head)."""
    import sqlalchemy as sa

    engine = sa.create_engine("sqlite://")
    with engine.begin() as conn:
        build(conn)  # type: ignore[operator]
        objects = {(kind, name): sorted(_clauses(sql or ""))
                   for kind, name, sql in conn.exec_driver_sql("SELECT type, name, sql FROM sqlite_master")}
        rows = [*conn.exec_driver_sql("SELECT * FROM alembic_version"),
                *conn.exec_driver_sql("SELECT * FROM store_meta")]
    return objects, [tuple(r) for r in rows]


def _clauses(sql: str) -> list[str]:
    """A statement's lines; the columns a migration added (SQLite's ``ALTER TABLE ADD
    COLUMN`` appends them to the last line of the stored statement) a line each."""
    return [part.strip() for line in sql.splitlines() for part in line.strip().rstrip(",").split(", ")]


def test_a_new_store_is_made_as_the_migrations_make_it() -> None:
    """``check --store`` makes a new store from schema.py at once (no Alembic import, no
    steps); it must be the store the migrations build, statement for statement."""
    from referee.store import migrate

    made, migrated = _schema_of(migrate.made), _schema_of(migrate.upgrade)
    assert made == migrated
    assert len(made[0]) > 20 and made[1][0] == (migrate.HEAD,)


def test_a_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib.util
    import sys

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "alembic" else real(name, *a))
    code, _, err = both("check", "--store", str(tmp_path / "a.db"), str(SAMPLES / "clean.yaml"))
    assert code == 2 and "pip install 'referee[store]'" in err
    monkeypatch.undo()
    monkeypatch.setitem(sys.modules, "psycopg", None)
    code, _, err = both("check", "--store", "postgresql://u@127.0.0.1:1/x", str(SAMPLES / "clean.yaml"))
    assert code == 2 and "pip install 'referee[postgres]'" in err


def test_a_password_is_never_printed(tmp_path: Path) -> None:
    secret = "s3cr3t-Pa55"
    for url in (f"postgresql://auditor:{secret}@127.0.0.1:1/audit", f"postgres://auditor:{secret}@[::1:1/audit",
                f"mysql://auditor:{secret}@127.0.0.1/audit"):
        code, out, err = both("check", "--store", url, str(SAMPLES / "clean.yaml"))
        assert code == 2
        assert secret not in out + err and "***" in err, err


def test_a_password_is_not_in_notes_nor_reports() -> None:
    from sqlalchemy.engine import make_url

    admin = postgres_admin()
    secret = "s3cr3t-Pa55"
    url = make_url(admin).set(password=secret).render_as_string(hide_password=False)
    from .store_support import drop_database, new_database

    store = new_database(admin)
    try:
        with_password = make_url(store).set(password=secret).render_as_string(hide_password=False)
        code, out, err = both("check", "--format", "json", "--store", with_password, str(SAMPLES / "disputed.yaml"))
        assert code == 1 and "1 source stored" in err
        for args in (("recall", "--store", with_password, "--round", "10"),
                     ("recall", "--store", with_password, "--round", "10", "--format", "json"),
                     ("store", "info", with_password), ("store", "verify", with_password)):
            code, text, note = both(*args)
            assert code in (0, 1), note
            assert secret not in text + note and "***" in text + note
        assert secret not in out + err and url  # the report never names the store
    finally:
        drop_database(admin, store)



def test_store_info_counts_games_as_check_does_second_records_apart(store_url: str) -> None:
    """A game written twice is one game in ``check`` and in ``store info`` alike (issue
    43): the second records are said apart, never among the games."""
    tables = [str(SAMPLES / "table.yaml"), str(SAMPLES / "table.jsonl")]
    _, out, _ = both("check", "--format", "json", "--store", store_url, *tables)
    games = json.loads(out)["summary"]["games"]
    assert (games["games"], games["second_records"]) == (4, 4)  # table.jsonl records table.yaml's games again
    stored = counts(store_url)
    assert (stored["sessions"], stored["games"], stored["second_records"]) == (2, 4, 4)
    _, info = run("store", "info", store_url)
    assert "1 session, 0 games (and 4 second records of a game), 10 rounds and seats, 14 findings" in info
    assert "sessions, 4 games (and 4 second records of a game)," in info
