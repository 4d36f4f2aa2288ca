"""`referee store verify` (issue 30): which record changed after it was stored."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from referee.store.engine import engine, target

from .conftest import SAMPLES, run

LOGS = [str(SAMPLES / n) for n in ("disputed.yaml", "log.jsonl", "table.jsonl", "void.yaml")]


def _tamper(url: str, *statements: str) -> None:
    made = engine(target(url))
    with made.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    made.dispose()


def _stored(url: str) -> None:
    code, out = run("check", "--store", url, *LOGS)
    assert code == 1, out
    code, out = run("store", "verify", url)
    assert code == 0 and out.strip().endswith(out.strip().split("chain head ")[-1])
    assert ": intact; chain head " in out


def test_an_intact_store(store_url: str) -> None:
    _stored(store_url)
    code, out = run("store", "verify", store_url)
    assert code == 0
    assert f"{len(LOGS)} sources" in out and "intact" in out


def test_each_changed_record_is_named(store_url: str) -> None:
    _stored(store_url)
    _tamper(store_url,
            "UPDATE seats SET balance = '99' WHERE line = 154 AND source_id = 1",  # disputed.yaml, round 10
            "UPDATE runs SET start_balance = '1000' WHERE source_id = 2 AND first_line = 2",
            "UPDATE findings SET message = 'all fine' WHERE code = 'W002' AND source_id = 3",
            "UPDATE games SET qualified = 1 - qualified WHERE source_id = 3 AND line = 6",
            # the clean game 8812344 (a game line, three seat lines) is kept in a run of clean games
            """UPDATE runs SET start_balance = '["1000","200","50"]' WHERE source_id = 3""")
    code, out = run("store", "verify", store_url)
    assert code == 1
    lines = out.splitlines()
    assert any("source 1 (" in x and "seat row" in x and "round 10, line 154" in x for x in lines), out
    assert any("source 2 (" in x and "run of clean rounds" in x and "rounds 1 to" in x for x in lines), out
    assert any("source 3 (" in x and "finding row" in x and "W002" in x for x in lines), out
    assert any("source 3 (" in x and "game row" in x and "line 6)" in x for x in lines), out
    assert any("source 3 (" in x and "run of clean games row" in x and "(games 8812344 to 8812344, lines 2 to 5) "
               "changed after it was stored" in x for x in lines), out
    assert "6 problems" in lines[-1]  # two findings W002 changed
    for other in ("void.yaml", "chain is broken", "rows are not those stored"):
        assert other not in out


def test_a_run_of_games_not_found_by_one_of_them_any_more(store_url: str) -> None:
    """A run of clean games is found by its games and players through ``run_keys``: a key
    removed (``recall --player`` would miss the player's seats there) is named by the run."""
    _stored(store_url)
    _tamper(store_url, "DELETE FROM run_keys WHERE value = 'p-1002'")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "1 problem;" in out
    assert ("source 3 (" in out and "run of clean games row" in out and "(games 8812344 to 8812344, lines 2 to 5) "
            "is not found by each of its games and players any more" in out)


def test_a_row_removed_or_given_a_new_digest(store_url: str) -> None:
    _stored(store_url)
    _tamper(store_url, "DELETE FROM findings WHERE source_id = 4 AND code = 'V001'")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "source 4 (" in out and "its rows are not those stored" in out


def test_the_bytes_of_a_source(store_url: str) -> None:
    _stored(store_url)
    made = engine(target(store_url))
    with made.begin() as conn:
        import zlib

        data = zlib.decompress(conn.execute(sa.text("SELECT data FROM chunks WHERE source_id = 2")).scalar_one())
        conn.execute(sa.text("UPDATE chunks SET data = :d WHERE source_id = 2"),
                     {"d": zlib.compress(data.replace(b'"ante":1', b'"ante":2', 1))})
    made.dispose()
    code, out = run("store", "verify", store_url)
    assert code == 1
    assert "source 2 (" in out and "piece 0, changed after they were stored" in out
    assert "its bytes are not those audited" in out
    code, out = run("report", "--store", store_url, "-o", "-")
    assert code == 2 and "the bytes of" in out and "store verify" in out  # never replayed


def test_a_source_removed_or_moved_breaks_the_chain(store_url: str) -> None:
    _stored(store_url)
    tables = ("findings", "seats", "runs", "games", "settlements", "sessions", "chunks")
    _tamper(store_url, "DELETE FROM run_keys WHERE run_id IN (SELECT id FROM runs WHERE source_id = 2)",
            *(f"DELETE FROM {t} WHERE source_id = 2" for t in tables), "DELETE FROM sources WHERE id = 2")
    code, out = run("store", "verify", store_url)
    assert code == 1
    assert "source 3 (" in out and "the chain is broken here" in out
    _stored_again = run("store", "verify", store_url)
    assert _stored_again[0] == 1


def test_the_last_source_removed_is_the_head(store_url: str) -> None:
    _stored(store_url)
    tables = ("findings", "seats", "runs", "games", "settlements", "sessions", "chunks")
    _tamper(store_url, "DELETE FROM run_keys WHERE run_id IN (SELECT id FROM runs WHERE source_id = 4)",
            *(f"DELETE FROM {t} WHERE source_id = 4" for t in tables), "DELETE FROM sources WHERE id = 4")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "head is not the last source's chain" in out


# ------------------------------------------------------------------ wallet logs (check --wallet)

EXPORT = str(SAMPLES / "exports" / "evolution-history.json")
WALLET = str(SAMPLES / "exports" / "seamless-wallet.jsonl")


def _with_wallet(url: str) -> None:
    code, out = run("check", "--profile", "vivo",
                             "--mapping", "evolution-history", EXPORT, "--wallet", WALLET, "--store", url, "--quiet")
    assert code == 1, out
    code, out = run("store", "verify", url)
    assert code == 0 and "1 source, 1 wallet log, " in out and "intact" in out, out


def test_a_wallet_log_changed_is_named(store_url: str) -> None:
    import zlib

    _with_wallet(store_url)
    made = engine(target(store_url))
    with made.begin() as conn:
        data = zlib.decompress(conn.execute(sa.text("SELECT data FROM wallet_chunks")).scalar_one())
        conn.execute(sa.text("UPDATE wallet_chunks SET data = :d"),
                     {"d": zlib.compress(data.replace(b'"amount": "5.00"', b'"amount": "6.00"', 1))})
    made.dispose()
    code, out = run("store", "verify", store_url)
    assert code == 1
    where = f"wallet log 1 ({WALLET}, checked with source 1)"
    assert f"{where}: its bytes, piece 0, changed after they were stored" in out
    assert f"{where}: its bytes are not those audited" in out and "2 problems" in out.splitlines()[-1]
    assert "source 1 (" not in out  # the export itself is intact
    code, out = run("explain", "--store", store_url, "--game", "T1-5-000004")
    assert code == 2 and f"the bytes of wallet log {WALLET} (checked with {EXPORT}) are not those stored" in out
    assert "store verify" in out  # never replayed with other money


def test_a_wallet_log_removed_or_given_another_sha256(store_url: str) -> None:
    _with_wallet(store_url)
    _tamper(store_url, "UPDATE wallet_logs SET sha256 = 'ff' || sha256")
    code, out = run("store", "verify", store_url)
    assert code == 1
    assert f"source 1 ({EXPORT}): its wallet log {WALLET} (SHA-256 " in out and "is not in the store" in out
    assert f"wallet log 1 ({WALLET}): its record changed after it was stored" in out
    assert f"wallet log 1 ({WALLET}): no stored source was checked with it" in out
    _tamper(store_url, "DELETE FROM wallet_chunks", "DELETE FROM wallet_logs")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "is not in the store" in out and "wallet log 1" not in out
    code, out = run("stats", "--store", store_url)
    assert code == 2 and f"the bytes of wallet log {WALLET} (checked with {EXPORT}) are not in the store" in out


def test_the_reference_to_a_wallet_log_is_in_the_source_digest(store_url: str) -> None:
    """A source's options name its wallet logs (name and SHA-256): changing the name, or
    pointing it at other bytes, changes the source's record."""
    _with_wallet(store_url)
    _tamper(store_url, f"UPDATE sources SET options = replace(options, '{WALLET}', 'elsewhere.jsonl')")
    code, out = run("store", "verify", store_url)
    assert code == 1 and f"source 1 ({EXPORT}): the source's own record changed after it was stored" in out


@pytest.mark.parametrize("table, change", [
    ("seats", "UPDATE seats SET recorded_balance = '1118' WHERE id = (SELECT min(id) FROM seats"
              " WHERE game = '8812345' AND recorded_balance IS NOT NULL)"),
    ("settlements", "UPDATE settlements SET outcome = 'loss' WHERE id = (SELECT min(settlement_id) FROM seats"
                    " WHERE game = '8812345')"),
    ("games", "UPDATE games SET dealer = 'd-99'"),
])
def test_recall_from_a_changed_store_says_so(tmp_path: Path, table: str, change: str) -> None:
    """recall --store reads few rows; each is checked against its digest as it is read,
    so a record changed after it was stored is said (and exit 1), never shown silently."""
    import sqlite3

    url = str(tmp_path / "audit.db")
    assert run("check", "--store", url, str(SAMPLES / "table.yaml"), "--quiet")[0] in (0, 1)
    code, before = run("recall", "--store", url, "--game", "8812345")
    assert "changed after it was stored" not in before
    with sqlite3.connect(url) as conn:
        assert conn.execute(change).rowcount > 0
    code, out = run("recall", "--store", url, "--game", "8812345", "--last", "4")
    assert code == 1 and "changed after it was stored" in out and "referee store verify" in out, out
    assert f"{table[:-1] if table != 'settlements' else 'settlement'} row" in out


def test_recall_of_a_changed_run_of_clean_games_says_so(tmp_path: Path) -> None:
    """A live table's clean games are kept in runs: a run changed is said by recall too."""
    import json
    import sqlite3

    from .store_support import simulate

    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "200", "--sessions", "1", "--seed", "7",
                   "--format", "jsonl")
    game = json.loads(Path(log).read_text().splitlines()[5])["game"]
    url = str(tmp_path / "audit.db")
    assert run("check", "--store", url, log, "--quiet")[0] == 0
    code, out = run("recall", "--store", url, "--game", game)
    assert code == 0 and "changed after it was stored" not in out, out
    with sqlite3.connect(url) as conn:
        assert conn.execute("UPDATE runs SET names = replace(names, 'p-', 'q-')").rowcount > 0
    code, out = run("recall", "--store", url, "--game", game)
    assert code == 1 and "changed after it was stored" in out, out


def test_recall_of_a_record_changed_so_it_no_longer_decodes_names_it(tmp_path: Path) -> None:
    """A format-1 run whose cards were zeroed: recall cannot rebuild it, and says the
    store changed (with the run named), not 'internal error'."""
    import sqlite3

    url = str(tmp_path / "audit.db")
    log = str(tmp_path / "r.jsonl")
    assert run("simulate", "--rounds", "40", "--seed", "4", "--format", "jsonl", "-o", log)[0] == 0
    assert run("check", "--store", url, log, "--quiet")[0] == 0
    with sqlite3.connect(url) as conn:
        assert conn.execute("UPDATE runs SET cards = zeroblob(length(cards))").rowcount > 0
    code, out = run("recall", "--store", url, "--round", "3", "--last", "1")
    assert code == 2 and "a stored record cannot be read" in out and "run of clean rounds row" in out, out
    assert "internal error" not in out
