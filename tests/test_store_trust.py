"""Trust by default (issue 43): signed checkpoints against an insider's consistent rewrite,
the alerts' chain, and a writer that reads back what it wrote.

Each insider attack is one that ``store verify`` alone cannot see (it proves only that
the store agrees with itself): the test shows it says ``intact``, then that verifying
against a checkpoint taken before names the first source that differs.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from referee.store import digest, schema
from referee.store.engine import engine, target
from referee.store.verify import plain

from .conftest import SAMPLES, run

LOGS = [str(SAMPLES / n) for n in ("disputed.yaml", "log.jsonl", "table.jsonl", "void.yaml")]
ROUND_10 = ("--session", "table-7/2026-11-29/disputed", "--round", "10", "--last", "1")
SOURCE_TABLES = ("findings", "seats", "runs", "games", "settlements", "sessions", "chunks")


def _checkpointed(url: str, tmp_path: Path) -> tuple[str, str]:
    """The four samples stored, a key made and a checkpoint taken: (checkpoint, public key)."""
    code, out = run("check", "--store", url, *LOGS, "--quiet")
    assert code == 1, out
    key = str(tmp_path / "regulator.key")
    code, out = run("store", "keygen", key)
    assert code == 0, out
    checkpoint = str(tmp_path / "checkpoint.txt")
    code, out = run("store", "checkpoint", url, "--key", key, "-o", checkpoint)
    assert code == 0, out
    return checkpoint, f"{key}.pub"


def _sql(url: str, *statements: str) -> None:
    made = engine(target(url))
    with made.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    made.dispose()


def _removed(url: str, *ids: int) -> None:
    """Sources deleted with every row of theirs, the head set back (plain SQL, no hashing)."""
    keep = min(ids) - 1
    listed = ", ".join(str(i) for i in ids)
    _sql(url, f"DELETE FROM run_keys WHERE run_id IN (SELECT id FROM runs WHERE source_id IN ({listed}))",
         f"DELETE FROM dealer_games WHERE run_id IN (SELECT id FROM runs WHERE source_id IN ({listed}))",
         f"DELETE FROM game_codes WHERE game_id IN (SELECT id FROM games WHERE source_id IN ({listed}))",
         *(f"DELETE FROM {t} WHERE source_id IN ({listed})" for t in SOURCE_TABLES),
         f"DELETE FROM sources WHERE id IN ({listed})",
         f"UPDATE store_meta SET head = (SELECT chain FROM sources WHERE id = {keep}), sources = {keep}")


def _recomputed(url: str) -> None:
    """An insider's consistent rewrite: every row's digest, each source's rows digest,
    own digest and link, and the head, recomputed with the package's own functions."""
    made = engine(target(url))
    with made.begin() as conn:
        head = ""
        sources = conn.execute(sa.select(schema.sources).order_by(schema.sources.c.id)).mappings().all()
        for source in sources:
            rows = digest.RowsDigest()
            c = schema.chunks
            for sha in conn.execute(sa.select(c.c.sha256).where(c.c.source_id == source["id"]).order_by(c.c.seq)):
                rows.add("chunks", sha[0])
            of_games: dict[int, list[str]] = {}
            for name in ("seats", *(t for t in digest.ROW_TABLES if t != "seats")):
                _rows_of(conn, name, source["id"], rows, of_games)
            values = {**source, "rows_digest": rows.hexdigest()}
            own = digest.of(tuple(values[c] for c in digest.columns("sources")))
            head = digest.chained(head, own)
            conn.execute(schema.sources.update().where(schema.sources.c.id == source["id"]).values(
                rows_digest=values["rows_digest"], digest=own, chain=head))
        conn.execute(schema.store_meta.update().values(head=head, sources=len(sources)))
    made.dispose()


def _rows_of(conn: Any, name: str, source_id: int, rows: digest.RowsDigest, of_games: dict[int, list[str]]) -> None:
    table = schema.metadata.tables[name]
    for row in conn.execute(sa.select(table).where(table.c.source_id == source_id).order_by(table.c.id)).mappings():
        values = digest.covered(name, tuple(plain(row[c]) for c in digest.columns(name)))
        if name == "games":
            values = (*values, tuple(of_games.get(row["id"], [])))
        now = digest.of(values)
        if now != row["digest"]:
            conn.execute(table.update().where(table.c.id == row["id"]).values(digest=now))
        rows.add(name, now)
        if name == "seats" and row["game_id"] is not None:
            of_games.setdefault(row["game_id"], []).append(now)


def _swapped(url: str, a: int, b: int) -> None:
    """Two sources put in each other's place (their ids and their rows' source ids swapped,
    with the foreign keys off, as a database's owner can)."""
    owned = ("sessions", "settlements", "games", "seats", "runs", "findings", "chunks", "wallet_logs")
    steps = [(a, -1), (b, a), (-1, b)]
    statements = [f"UPDATE {t} SET source_id = {new} WHERE source_id = {old}" for old, new in steps for t in owned]
    statements += [f"UPDATE sources SET id = {new} WHERE id = {old}" for old, new in steps]
    if target(url).path is not None:
        import sqlite3

        with sqlite3.connect(url) as conn:  # foreign keys are off in a plain sqlite3 connection
            for statement in statements:
                conn.execute(statement)
        return
    _sql(url, "SET LOCAL session_replication_role = replica", *statements)


def _intact_alone(url: str) -> str:
    """``store verify`` without a checkpoint: intact (the attack is unseen), and it says
    what it cannot prove."""
    code, out = run("store", "verify", url)
    assert code == 0 and ": intact;" in out, out
    assert "without a checkpoint this proves only that the store agrees with itself" in out
    return out


def _against(url: str, checkpoint: str, public: str) -> tuple[int, str]:
    return run("store", "verify", url, "--checkpoint", checkpoint, "--public-key", public)


def test_a_checkpoint_holds_and_later_sources_are_no_change(store_url: str, tmp_path: Path) -> None:
    checkpoint, public = _checkpointed(store_url, tmp_path)
    code, out = _against(store_url, checkpoint, public)
    assert code == 0 and "the checkpoint of " in out, out
    assert "(4 sources, 0 alerts) holds" in out, out  # a later chain is named once it holds a row
    assert "without a checkpoint" not in out
    assert run("check", "--store", store_url, str(SAMPLES / "clean.yaml"), "--quiet")[0] == 0
    code, out = _against(store_url, checkpoint, public)
    assert code == 0 and "5 sources" in out and "holds" in out, out


def test_the_newest_source_removed_and_the_head_set_back(store_url: str, tmp_path: Path) -> None:
    checkpoint, public = _checkpointed(store_url, tmp_path)
    _removed(store_url, 4)
    _intact_alone(store_url)
    code, out = _against(store_url, checkpoint, public)
    assert code == 1, out
    assert (f"source 4 ({LOGS[3]}), covered by the checkpoint, is not in the store any more: 1 of the 4 sources it "
            "covered removed (the store was cut back; 3 sources now)") in out
    assert "does not hold" in out.splitlines()[-1]


def test_the_store_cut_back(store_url: str, tmp_path: Path) -> None:
    checkpoint, public = _checkpointed(store_url, tmp_path)
    _removed(store_url, 3, 4)
    _intact_alone(store_url)
    code, out = _against(store_url, checkpoint, public)
    assert code == 1 and f"source 3 ({LOGS[2]}), covered by the checkpoint, is not in the store any more: 2 of" in out


def test_a_seat_changed_and_every_digest_and_the_chain_recomputed(store_url: str, tmp_path: Path) -> None:
    checkpoint, public = _checkpointed(store_url, tmp_path)
    _, before = run("recall", "--store", store_url, *ROUND_10)
    assert "P005" in before
    _sql(store_url, "UPDATE seats SET recorded_balance = '5', status = 'ok', findings = NULL "
                    "WHERE line = 154 AND source_id = 1")  # disputed.yaml's round 10 now agrees with the rules
    _sql(store_url, "DELETE FROM findings WHERE source_id = 1 AND code = 'P005'")
    _recomputed(store_url)
    _intact_alone(store_url)
    code, after = run("recall", "--store", store_url, *ROUND_10)
    assert code == 0 and "P005" not in after and "changed after" not in after, after  # shown as ok
    code, out = _against(store_url, checkpoint, public)
    assert code == 1, out
    assert f"source 1 ({LOGS[0]}) is not what the checkpoint covered: changed since" in out
    assert "source 2 (" not in out  # the first source that differs, once


def test_two_sources_put_in_each_others_place(store_url: str, tmp_path: Path) -> None:
    checkpoint, public = _checkpointed(store_url, tmp_path)
    _swapped(store_url, 2, 3)
    _recomputed(store_url)
    _intact_alone(store_url)
    code, out = _against(store_url, checkpoint, public)
    assert code == 1, out
    assert (f"source 2 ({LOGS[2]}) is not the source the checkpoint covered in its place (source 2, {LOGS[1]}): "
            "sources were removed, added or put in another place before it") in out


def _dropping(url: str, table: str, when: str) -> None:
    """A trigger that silently drops the rows of ``table`` that match ``when`` (SQL over NEW) on insert."""
    if target(url).path is not None:
        _sql(url, f"CREATE TRIGGER drop_some BEFORE INSERT ON {table} WHEN {when} BEGIN SELECT RAISE(IGNORE); END")
    else:
        _sql(url, f"CREATE FUNCTION drop_some() RETURNS trigger AS $$ BEGIN IF {when} THEN RETURN NULL; END IF; "
                  "RETURN NEW; END $$ LANGUAGE plpgsql",
             f"CREATE TRIGGER drop_some BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION drop_some()")


def test_the_writer_reads_back_what_it_wrote(store_url: str) -> None:
    """A trigger that drops P005 and K003 rows on insert: the source is committed without
    them; ``check --store`` says so (exit 2, naming the source), never '1 source stored'."""
    assert run("check", "--store", store_url, str(SAMPLES / "clean.yaml"), "--quiet")[0] == 0
    _dropping(store_url, "findings", "NEW.code IN ('P005', 'K003')")
    code, out = run("check", "--store", store_url, LOGS[0], "--quiet")
    assert code == 2, out
    assert (f"source 2 ({LOGS[0]}) was committed, but its rows read back are not those written (41 written, 39 read "
            "back): something in the database (a trigger, a rule) dropped or changed them") in out
    assert "1 source stored" not in out


def test_the_writer_reads_back_the_wallet_log_it_kept(store_url: str) -> None:
    export = str(SAMPLES / "exports" / "evolution-history.json")
    wallet = str(SAMPLES / "exports" / "seamless-wallet.jsonl")
    assert run("check", "--store", store_url, str(SAMPLES / "clean.yaml"), "--quiet")[0] == 0
    _dropping(store_url, "wallet_chunks", "NEW.seq = 0")
    code, out = run("check", "--profile", "vivo", "--mapping", "evolution-history", export, "--wallet", wallet,
                    "--store", store_url, "--quiet")
    assert code == 2, out
    assert f"source 2 ({export}) was committed, but its wallet log {wallet} read back is not the one written" in out


# ------------------------------------------------------------------ the checkpoint itself


def test_keygen_writes_a_private_key_no_one_else_reads_and_never_replaces_one(tmp_path: Path) -> None:
    key = tmp_path / "auditor.key"
    code, out = run("store", "keygen", str(key), "--name", "auditor.example/referee")
    assert code == 0 and "key auditor.example/referee (id " in out
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    private = key.read_text().strip()
    assert private.startswith("PRIVATE+KEY+auditor.example/referee+")
    secret = private.split("+", 4)[4]  # PRIVATE+KEY+name+hash+base64: the base64 may hold '+' itself
    assert len(secret) >= 44 and secret not in out  # the private key is never printed
    public = Path(f"{key}.pub").read_text().strip()
    assert re.fullmatch(r"auditor\.example/referee\+[0-9a-f]{8}\+[A-Za-z0-9+/=]{44}", public), public
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    code, out = run("store", "keygen", str(key))
    assert code == 2 and "exists; a key is never replaced" in out and key.read_text().strip() == private
    code, out = run("store", "keygen", str(tmp_path / "other.key"), "--name", "two words")
    assert code == 2 and "a key's name has no space and no '+'" in out
    code, out = run("store", "keygen", "-")
    assert code == 2 and "never written to standard output" in out


def test_a_checkpoint_changed_or_signed_by_another_key_is_refused(tmp_path: Path) -> None:
    url = str(tmp_path / "audit.db")
    checkpoint, public = _checkpointed(url, tmp_path)
    text = Path(checkpoint).read_text(encoding="utf-8")
    changed = tmp_path / "changed.txt"
    changed.write_text(text.replace("sources 4 ", "sources 3 ", 1), encoding="utf-8")
    code, out = _against(url, str(changed), public)
    assert code == 2 and "its signature by this key does not verify" in out
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    changed.write_text(text.replace(last, last.replace("source 4", "source 5")), encoding="utf-8")
    code, out = _against(url, str(changed), public)
    assert code == 2 and "its listing is not the one signed" in out
    assert run("store", "keygen", str(tmp_path / "other.key"))[0] == 0
    code, out = _against(url, checkpoint, str(tmp_path / "other.key.pub"))
    assert code == 2 and "it is not signed by the key other (id " in out
    code, out = _against(url, checkpoint, str(tmp_path / "regulator.key"))
    assert code == 2 and "a private key; give its public key" in out
    code, out = run("store", "verify", url, "--checkpoint", checkpoint)
    assert code == 2 and "--checkpoint and --public-key go together" in out
    os.chmod(tmp_path / "regulator.key", 0o644)
    code, out = run("store", "checkpoint", url, "--key", str(tmp_path / "regulator.key"))
    assert code == 2 and "others may read this private key (mode 0644)" in out and "PRIVATE" not in out


def test_only_an_intact_store_is_signed(tmp_path: Path) -> None:
    url = str(tmp_path / "audit.db")
    _checkpointed(url, tmp_path)
    _sql(url, "UPDATE seats SET balance = '99' WHERE line = 154 AND source_id = 1")
    out_file = tmp_path / "again.txt"
    code, out = run("store", "checkpoint", url, "--key", str(tmp_path / "regulator.key"), "-o", str(out_file))
    assert code == 1 and "not intact (1 problem): no checkpoint signed" in out and not out_file.exists()
    code, out = run("store", "checkpoint", url, "--key", str(tmp_path / "regulator.key"), "-o", url)
    assert code == 2 and not out.startswith("referee store checkpoint")  # never written over the store


def test_the_documented_check_verifies_a_checkpoint_outside_the_package(tmp_path: Path) -> None:
    """docs/store.md's few lines of Python (only ``cryptography``) check a checkpoint's
    signature and its listing; run here in a process that cannot import referee."""
    doc = (Path(__file__).parent.parent / "docs" / "store.md").read_text(encoding="utf-8")
    snippet = re.search(r"<!-- checkpoint-check -->\n```python\n(.*?)```", doc, re.DOTALL)
    assert snippet is not None
    script = tmp_path / "check_checkpoint.py"
    script.write_text(snippet.group(1), encoding="utf-8")
    url = str(tmp_path / "audit.db")
    checkpoint, public = _checkpointed(url, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-I", str(script), checkpoint, public], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("signed by regulator: 4 sources, head ")
    text = Path(checkpoint).read_text(encoding="utf-8")
    Path(checkpoint).write_text(text.replace("sources 4 ", "sources 3 ", 1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(script), checkpoint, public], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert done.returncode != 0 and "InvalidSignature" in done.stderr
    # the page's own example: its checkpoint, signed by its public key
    example = re.search(r"<!-- checkpoint-example -->\n```\n(.*?)```\n", doc, re.DOTALL)
    key = re.search(r"<!-- checkpoint-key -->\n```\n(.*?)```\n", doc, re.DOTALL)
    assert example is not None and key is not None
    (tmp_path / "example.txt").write_text(example.group(1), encoding="utf-8")
    (tmp_path / "example.pub").write_text(key.group(1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(script), "example.txt", "example.pub"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and "signed by compliance.example/referee: 2 sources, head " in done.stdout, done
    from referee.store.checkpoint import read
    from referee.store.keys import read_verifier

    read(str(tmp_path / "example.txt"), read_verifier(str(tmp_path / "example.pub")))  # and the package agrees


# ------------------------------------------------------------------ the alerts' chain


def _alerted(url: str, tmp_path: Path) -> int:
    """A store whose every win was paid an Ante short (its digests recomputed: intact),
    and the alerts ``monitor --record`` raised on it: how many."""
    from .store_support import simulate

    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "1100", "--sessions", "2", "--seed", "7",
                   "--format", "jsonl")
    assert run("check", "--store", url, log, "--quiet")[0] == 0
    _sql(url, "UPDATE settlements SET main_net_u = main_net_u - ante_u WHERE main_net_u > 0")
    _recomputed(url)
    code, out = run("monitor", "--store", url, "--segment", "all", "--segment", "table", "--record")
    assert code == 1, out
    made = engine(target(url))
    with made.connect() as conn:
        count = int(conn.execute(sa.text("SELECT count(*) FROM alerts")).scalar_one())
        chain = conn.execute(sa.text("SELECT size, head FROM chains WHERE name = 'alerts'")).one()
        digests = list(conn.execute(sa.text("SELECT digest FROM alerts ORDER BY id")).scalars())
    made.dispose()
    head = ""
    for value in digests:
        head = digest.chained(head, value)
    assert count >= 2 and tuple(chain) == (count, head)  # each alert linked as it was recorded
    return count


@pytest.mark.slow
def test_alerts_are_chained_and_covered_by_checkpoints(store_url: str, tmp_path: Path) -> None:
    count = _alerted(store_url, tmp_path)
    code, out = run("store", "verify", store_url)
    assert code == 0 and "intact" in out, out
    key = str(tmp_path / "k.key")
    assert run("store", "keygen", key)[0] == 0
    checkpoint = str(tmp_path / "cp.txt")
    code, out = run("store", "checkpoint", store_url, "--key", key, "-o", checkpoint)
    assert code == 0 and f"checkpoint of 1 source, {count} alerts, " in out and " alert group" in out, out
    _sql(store_url, f"DELETE FROM alerts WHERE id = {count}")
    code, out = run("store", "verify", store_url)
    assert code == 1 and f"the alerts' chain does not reach its head ({count - 1} in the store, the head covers " \
        f"{count})" in out, out
    # the insider sets the chain back too: plain SQL, one digest chained per alert left
    made = engine(target(store_url))
    with made.begin() as conn:
        head = ""
        for value in conn.execute(sa.text("SELECT digest FROM alerts ORDER BY id")).scalars():
            head = digest.chained(head, value)
        conn.execute(schema.chains.update().where(schema.chains.c.name == "alerts").values(size=count - 1, head=head))
    made.dispose()
    _intact_alone(store_url)
    code, out = _against(store_url, checkpoint, f"{key}.pub")
    assert code == 1 and "since the checkpoint of " in out, out
    assert f"alert {count} (" in out and "covered by the checkpoint, is not in the store any " \
        f"more: 1 of the {count} alerts it covered removed" in out, out
    _sql(store_url, "DELETE FROM alerts WHERE id = 1")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "alerts rows 1 to 1 are not in the store (removed after they were recorded)" in out, out
    assert "does not reach its head" not in out  # one root cause, said once


def test_an_upgraded_store_chains_the_alerts_it_kept(tmp_path: Path) -> None:
    """Migration 0006 chains the alerts a store of 0005 kept, in id order: verify says intact."""
    from referee.store import migrate

    url = str(tmp_path / "audit.db")
    made = engine(target(url))
    with made.begin() as conn:
        conn.info["write"] = True
        migrate.upgrade(conn, "0005")
        for i in (1, 2):
            values = {"id": i, "raised_us": i, "host": "h", "version": "0", "segment": "all", "value": "all",
                      "bet": "ante+call", "test": "rtp", "window": "day", "band": "99%", "games": 1, "seats": 1,
                      "figures": "{}", "inputs": 1, "inputs_digest": "00"}
            values["digest"] = digest.of(tuple(values[c] for c in digest.columns("alerts")))
            conn.execute(schema.alerts.insert().values(**values))
    made.dispose()
    code, out = run("store", "upgrade", url)
    assert code == 0 and f"upgraded from schema version 0005 to {migrate.HEAD}" in out, out
    code, out = run("store", "verify", url)
    assert code == 0 and "intact" in out, out
    _sql(url, "DELETE FROM alerts WHERE id = 2")
    code, out = run("store", "verify", url)
    assert code == 1 and "the alerts' chain does not reach its head (1 in the store, the head covers 2)" in out


def test_without_cryptography_a_checkpoint_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric", None)
    code, out = run("store", "keygen", str(tmp_path / "k.key"))
    assert code == 2 and "checkpoints need the cryptography package: pip install 'referee[store]'" in out
    assert not (tmp_path / "k.key").exists()


# ------------------------------------------------------------------ a secret in a URL

SECRET = "s3cr3t-Pa55"
#: Every form a PostgreSQL URL can carry a secret in (libpq takes the query's too).
FORMS = {"userinfo": "postgresql://auditor:{s}@{host}/{db}",
         "password": "postgresql://auditor@{host}/{db}?password={s}",
         "sslpassword": "postgresql://auditor@{host}/{db}?sslmode=prefer&sslpassword={s}",
         "passfile": "postgresql://auditor@{host}/{db}?passfile=/home/{s}/.pgpass"}


def _every_command(url: str, tmp_path: Path) -> list[tuple[str, ...]]:
    """Every command that takes a store URL, as a user would run it on the samples' store."""
    key = tmp_path / "mask.key"
    if not key.exists():
        assert run("store", "keygen", str(key))[0] == 0
    return [("check", "--store", url, LOGS[0], "--quiet"),
            ("check", "--store", url, LOGS[0], "--format", "json"),
            ("recall", "--store", url, *ROUND_10), ("recall", "--store", url, *ROUND_10, "--format", "json"),
            ("explain", "--store", url, *ROUND_10[:4]), ("stats", "--store", url),
            ("report", "--store", url, "-o", str(tmp_path / "report.html")),
            ("monitor", "--store", url, "--no-cache"), ("monitor", "--store", url, "--no-cache", "--record"),
            ("store", "info", url), ("store", "verify", url), ("store", "upgrade", url),
            ("alerts", "list", "--store", url), ("alerts", "list", "--store", url, "--format", "json"),
            ("store", "checkpoint", url, "--key", str(key), "-o", str(tmp_path / "cp.txt"))]


@pytest.mark.parametrize("form", FORMS)
def test_no_command_prints_a_password_it_cannot_connect_with(tmp_path: Path, form: str) -> None:
    """A server that is not there: every command's error names the store, its secret masked."""
    url = FORMS[form].format(s=SECRET, host="127.0.0.1:1", db="audit")
    for args in _every_command(url, tmp_path):
        code, out = run(*args)
        assert code == 2, (args, out)
        assert SECRET not in out and "***" in out and "127.0.0.1" in out, (args, out)


@pytest.mark.parametrize("form", FORMS)
def test_no_command_prints_a_password_in_its_notes_reports_or_files(tmp_path: Path, form: str) -> None:
    from sqlalchemy.engine import make_url

    from .store_support import drop_database, new_database, postgres_admin

    admin = postgres_admin()
    store = new_database(admin)
    try:
        plain_url = make_url(store)
        host = f"{plain_url.host}:{plain_url.port}"
        url = FORMS[form].format(s=SECRET, host=host, db=plain_url.database).replace("auditor", str(plain_url.username))
        seen = []
        for args in _every_command(url, tmp_path):
            code, out = run(*args)
            assert code in (0, 1) or (args[0] == "monitor" and "nothing tested" in out), (args, out)
            assert SECRET not in out, (args, out)
            seen.append(out)
        assert sum("***" in out for out in seen) >= 8  # the store named, masked, in most of them
        for written in ("report.html", "cp.txt"):
            text = (tmp_path / written).read_text(encoding="utf-8")
            assert SECRET not in text
        assert 'store "postgresql://' in (tmp_path / "cp.txt").read_text(encoding="utf-8")
    finally:
        drop_database(admin, store)


def test_a_kept_profile_changed_is_named(store_url: str) -> None:
    """A replay rules a stored session by its kept profile: bytes changed there (or a
    session pointed at another profile) would re-rule it silently."""
    assert run("check", "--store", store_url, LOGS[0], "--quiet")[0] == 1
    made = engine(target(store_url))
    with made.begin() as conn:
        content = bytes(conn.execute(sa.text("SELECT content FROM profiles WHERE id = 1")).scalar_one())
        conn.execute(sa.text("UPDATE profiles SET content = :c WHERE id = 1"), {"c": content + b"\n# changed\n"})
        origin = conn.execute(sa.text("SELECT origin FROM profiles WHERE id = 1")).scalar_one()
    made.dispose()
    code, out = run("store", "verify", store_url)
    assert code == 1 and f"profile row 1 ({origin}): its bytes are not those its sessions were ruled by" in out, out
    _sql(store_url, "UPDATE profiles SET sha256 = 'ff' || sha256 WHERE id = 1")
    code, out = run("store", "verify", store_url)
    assert code == 1 and f"points at profile row 1 ({origin}), which is not the profile it was ruled by" in out, out


# ------------------------------------------------------------------ rewrites of another type (a newcomer's test)


@pytest.mark.parametrize(("change", "said"), [
    ("update profiles set content = CAST(content AS TEXT)", "profile row 1 (builtin:vivo): its bytes are not"),
    ("update chunks set data = 'x' where source_id = 2", "its bytes, piece 0, are damaged"),
    ("delete from store_meta", "the store's head is gone"),
])
def test_a_value_rewritten_as_another_type_is_a_changed_store_never_an_internal_error(
        tmp_path: Path, change: str, said: str) -> None:
    """A tool that rewrites a BLOB column as TEXT, or an insider's plain SQL: each is a
    change ``store verify`` names (exit 1), and a replay from the store refuses to use it
    (exit 2, naming store verify), never 'internal error'."""
    import sqlite3

    url = str(tmp_path / "audit.db")
    assert run("check", "--quiet", "--store", url, str(SAMPLES / "clean.yaml"), str(SAMPLES / "disputed.yaml"))[0] == 1
    with sqlite3.connect(url) as conn:
        conn.execute(change)
    code, out = run("store", "verify", url)
    assert code == 1 and said in out and "internal error" not in out, out
    code, out = run("explain", "--store", url, "--session", "table-7/2026-11-29/disputed", "--round", "1")
    assert "internal error" not in out and (code == 1 or "referee store verify" in out), out
