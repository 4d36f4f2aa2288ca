"""The desk's records in the store (issue 48): accounts (Argon2id), cases and their events,
the read log; ``referee users`` and ``referee cases``; cases and reads covered by
``store verify`` and checkpoints. Each on SQLite and PostgreSQL (``store_url``)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher

from referee.store import StoreError, accounts, schema
from referee.store.access import list_reads, log_read
from referee.store.accounts import AccountError, add_user, authenticate, disable_user, get_user, list_users
from referee.store.cases import CaseError, CaseTaken, close_case, decide, get_case, list_cases, open_case
from referee.store.chains import CHAINED
from referee.store.engine import engine, target

from .conftest import SAMPLES, run

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"


def _sql(url: str, statement: str, **values: object) -> None:
    made = engine(target(url))
    with made.begin() as conn:
        conn.execute(sa.text(statement), values)
    made.dispose()


def _rows(url: str, statement: str) -> list[tuple[object, ...]]:
    made = engine(target(url), readonly=True)
    with made.connect() as conn:
        found = [tuple(r) for r in conn.execute(sa.text(statement))]
    made.dispose()
    return found


# ------------------------------------------------------------------------------ accounts


def test_accounts_hash_with_argon2id_and_authenticate(store_url: str) -> None:
    user = add_user(store_url, "alice", "floor", PASSWORD)
    assert (user.name, user.role, user.disabled) == ("alice", "floor", False)
    [(hashed,)] = _rows(store_url, "SELECT password FROM users")
    assert str(hashed).startswith("$argon2id$") and PASSWORD not in str(hashed)
    assert authenticate(store_url, "alice", PASSWORD) == user
    assert authenticate(store_url, "alice", PASSWORD + "!") is None
    assert authenticate(store_url, "nobody", PASSWORD) is None
    assert get_user(store_url, "alice") == user and get_user(store_url, "nobody") is None
    with pytest.raises(AccountError, match="exists already"):
        add_user(store_url, "alice", "viewer", PASSWORD)
    accounts.set_password(store_url, "alice", "another password")
    assert authenticate(store_url, "alice", PASSWORD) is None
    assert authenticate(store_url, "alice", "another password") is not None
    assert disable_user(store_url, "alice").disabled
    assert authenticate(store_url, "alice", "another password") is None  # disabled: no sign-in
    add_user(store_url, "bob", "admin", PASSWORD)
    assert [(u.name, u.disabled) for u in list_users(store_url)] == [("alice", True), ("bob", False)]
    with pytest.raises(AccountError, match="no account carol"):
        disable_user(store_url, "carol")


def test_names_roles_and_passwords_are_checked(tmp_path: Path) -> None:
    url = str(tmp_path / "a.db")
    with pytest.raises(AccountError, match=r"not a role .*did you mean 'admin'"):
        add_user(url, "alice", "admn", PASSWORD)
    with pytest.raises(AccountError, match="not an account name"):
        add_user(url, "<script>", "viewer", PASSWORD)
    with pytest.raises(AccountError, match="8 characters at least"):
        add_user(url, "alice", "viewer", "short")


def test_a_hash_of_older_parameters_is_made_again_at_sign_in(tmp_path: Path) -> None:
    url = str(tmp_path / "a.db")
    add_user(url, "alice", "viewer", PASSWORD)
    old = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash(PASSWORD)
    _sql(url, "UPDATE users SET password = :p", p=old)
    assert authenticate(url, "alice", PASSWORD) is not None
    [(now,)] = _rows(url, "SELECT password FROM users")
    assert now != old and not PasswordHasher().check_needs_rehash(str(now))
    assert authenticate(url, "alice", PASSWORD) is not None


def test_an_unknown_name_costs_a_hash_as_a_known_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Constant-time behaviour: a name that is no account is verified against a decoy hash
    (the same Argon2id work), so the answer's time does not tell which names exist."""
    url = str(tmp_path / "a.db")
    add_user(url, "alice", "viewer", PASSWORD)
    calls: list[str] = []
    verify = PasswordHasher.verify

    def spy(self: PasswordHasher, hashed: str, password: str) -> bool:
        calls.append(hashed.split("$")[1])
        return verify(self, hashed, password)

    monkeypatch.setattr(PasswordHasher, "verify", spy)
    for name in ("alice", "nobody"):
        assert authenticate(url, name, "wrong password") is None
    disable_user(url, "alice")
    assert authenticate(url, "alice", PASSWORD) is None
    assert calls == ["argon2id", "argon2id", "argon2id"]


def test_a_missing_extra_is_exit_2_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "argon2", None)
    code, out = run("users", "add", "alice", "--role", "viewer", "--store", str(tmp_path / "a.db"), input=PASSWORD)
    assert code == 2 and "pip install 'referee[serve]'" in out
    with pytest.raises(StoreError, match=r"referee\[serve\]"):
        authenticate(str(tmp_path / "a.db"), "alice", PASSWORD)


# ------------------------------------------------------------------------------ referee users


def test_users_commands(store_url: str) -> None:
    code, out = run("users", "add", "alice", "--role", "risk", "--store", store_url, input=PASSWORD + "\n")
    assert code == 0 and "account alice added (risk)" in out and PASSWORD not in out
    code, out = run("users", "add", "bob", "--role", "viewer", "--store", store_url, input="")
    assert code == 2 and "no password on standard input" in out
    code, out = run("users", "list", "--store", store_url, "--format", "json")
    assert code == 0 and [u["name"] for u in json.loads(out)["users"]] == ["alice"] and "argon2" not in out
    assert run("users", "passwd", "alice", "--store", store_url, input="a new password\n")[0] == 0
    assert authenticate(store_url, "alice", "a new password") is not None
    code, out = run("users", "passwd", "carol", "--store", store_url, input="a new password\n")
    assert code == 2 and "no account carol" in out
    assert run("users", "disable", "alice", "--store", store_url)[0] == 0
    code, out = run("users", "list", "--store", store_url)
    assert code == 0 and "alice" in out and "disabled" in out and "argon2" not in out


def test_users_add_asks_twice_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    url = str(tmp_path / "a.db")
    answers = iter([PASSWORD, PASSWORD + "x", PASSWORD, PASSWORD])
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": next(answers))
    monkeypatch.setattr("referee.cli.users._terminal", lambda: True)
    code, out = run("users", "add", "alice", "--role", "viewer", "--store", url)
    assert code == 2 and "the two passwords differ" in out and not Path(url).exists()  # nothing written
    assert run("users", "add", "alice", "--role", "viewer", "--store", url)[0] == 0
    assert authenticate(url, "alice", PASSWORD) is not None


@pytest.mark.slow
def test_users_as_a_subprocess(tmp_path: Path) -> None:
    url = str(tmp_path / "a.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def referee(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "referee", *args], input=stdin, capture_output=True, text=True,
                              env=env, timeout=120, check=False)

    added = referee("users", "add", "alice", "--role", "admin", "--store", url, stdin=PASSWORD + "\n")
    assert added.returncode == 0 and "account alice added (admin)" in added.stderr
    listed = referee("users", "list", "--store", url)
    assert listed.returncode == 0 and "alice" in listed.stdout and "admin" in listed.stdout
    assert PASSWORD not in listed.stdout + added.stdout + added.stderr and "argon2" not in listed.stdout
    wrong = referee("users", "add", "bob", "--role", "boss", "--store", url, stdin=PASSWORD + "\n")
    assert wrong.returncode == 2 and "'boss' is not a role" in wrong.stderr and "Traceback" not in wrong.stderr
    assert authenticate(url, "alice", PASSWORD) is not None


# ------------------------------------------------------------------------------ cases


def test_a_case_is_opened_decided_and_closed(store_url: str) -> None:
    case = open_case(store_url, "8812347", "p-1002", "alice", "paid 44, asks 204")
    assert (case.id, case.status, case.decision, case.amount) == (1, "open", None, None)
    case = decide(store_url, case.id, "owed_to_player", "160.00", "alice", "Ante paid 1:1, not the paytable")
    assert (case.status, case.decision, case.amount) == ("decided", "owed_to_player", Decimal("160.00"))
    case = decide(store_url, case.id, "stands", None, "bob", "overruled")
    assert (case.decision, case.amount) == ("stands", None)
    case = close_case(store_url, case.id, "bob", "done")
    assert case.status == "closed"
    assert [(e.kind, e.by, e.note) for e in case.events] == [
        ("opened", "alice", "paid 44, asks 204"), ("decided", "alice", "Ante paid 1:1, not the paytable"),
        ("decided", "bob", "overruled"), ("closed", "bob", "done")]
    with pytest.raises(CaseError, match="case 1 is closed"):
        decide(store_url, 1, "owed_to_house", "1", "bob")
    other = open_case(store_url, "8812345", "p-1002", "alice")
    assert [c.id for c in list_cases(store_url)] == [2, 1]
    assert [c.id for c in list_cases(store_url, "open")] == [other.id]
    assert get_case(store_url, 1) == case and get_case(store_url, 9) is None
    with pytest.raises(CaseError, match="no case 9"):
        close_case(store_url, 9, "bob")


@pytest.mark.parametrize(("decision", "amount", "said"), [
    ("owed", "1", "not a decision"), ("owed_to_player", None, "needs the amount owed"),
    ("owed_to_player", "-3", "not an amount"), ("owed_to_player", "0", "a number over 0"),
    ("owed_to_house", "abc", "not an amount"), ("owed_to_player", "1e3", "not an amount"),
    ("owed_to_player", "Infinity", "not an amount"), ("stands", "abc", "not an amount"),
    ("owed_to_house", "0.0000001", "at most 6 decimals"), ("stands", "5", "no amount is owed")])
def test_a_decision_is_checked(tmp_path: Path, decision: str, amount: str | None, said: str) -> None:
    url = str(tmp_path / "a.db")
    case = open_case(url, "g", "p", "alice")
    with pytest.raises(CaseError, match=said):
        decide(url, case.id, decision, amount, "alice")
    assert get_case(url, case.id) == case  # nothing written


def test_one_seat_has_one_case_open_at_a_time(tmp_path: Path) -> None:
    """A second case on a seat whose case is not closed is refused (it could be decided
    the other way); once closed, the seat may have a new one."""
    url = str(tmp_path / "a.db")
    first = open_case(url, "g", "p", "alice")
    with pytest.raises(CaseError, match=f"case {first.id} is already open on this game and seat"):
        open_case(url, "g", "p", "bob")
    decide(url, first.id, "stands", None, "alice")
    with pytest.raises(CaseError, match=f"case {first.id} is already decided"):
        open_case(url, "g", "p", "bob")
    assert open_case(url, "g", "another", "bob").id == first.id + 1  # another seat of the game
    close_case(url, first.id, "alice")
    assert open_case(url, "g", "p", "bob", force=True).status == "open"
    assert len(list_cases(url, game="g", player="p")) == 2


def test_a_seat_whose_case_is_closed_has_another_only_when_forced(tmp_path: Path) -> None:
    """A seat whose case was decided and closed (and perhaps paid) is refused a second
    case, naming the first and its decision, unless the person forces it (a trial paid a
    seat twice); an open one is refused even forced: it is decided again there."""
    url = str(tmp_path / "a.db")
    first = open_case(url, "g", "p", "alice")
    decide(url, first.id, "owed_to_player", "4", "alice")
    with pytest.raises(CaseTaken, match=rf"case {first.id} is already decided \(owed_to_player 4\)"):
        open_case(url, "g", "p", "bob", force=True)
    close_case(url, first.id, "alice", "paid")
    with pytest.raises(CaseTaken, match=rf"case {first.id} on this game and seat is closed \(owed_to_player 4\): "
                                        "a second case could pay the seat twice"):
        open_case(url, "g", "p", "bob")
    assert [c.id for c in list_cases(url, game="g", player="p")] == [first.id]  # nothing written
    second = open_case(url, "g", "p", "bob", "another dispute", force=True)
    assert second.id == first.id + 1 and second.status == "open"


def test_cases_are_exported_for_the_regulator(store_url: str, tmp_path: Path) -> None:
    open_case(store_url, "8812347", "p-1002", "alice", '=HYPERLINK("http://x")')
    decide(store_url, 1, "owed_to_player", Decimal("160"), "alice", "paytable")
    open_case(store_url, "8812345", "p-1002", "alice", "wallet short by 1")
    out = tmp_path / "cases.csv"
    code, said = run("cases", "export", "--store", store_url, "-o", str(out))
    assert code == 0, said
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["case"], r["status"], r["decision"], r["amount"]) for r in rows] == [
        ("1", "decided", "owed_to_player", "160"), ("2", "open", "", "")]
    assert rows[0]["note"] == "'=HYPERLINK(\"http://x\")"  # a spreadsheet does not run it
    code, said = run("cases", "export", "--store", store_url, "--format", "json", "--events")
    assert code == 0 and [e["kind"] for e in json.loads(said)["events"]] == ["opened", "decided", "opened"]
    code, said = run("cases", "list", "--store", store_url, "--status", "open")
    assert code == 0 and "8812345" in said and "8812347" not in said
    if not store_url.startswith("postgresql"):  # never written over the store it reads
        code, said = run("cases", "export", "--store", store_url, "-o", store_url)
        assert code == 2 and "the input is left untouched" in said
        assert len(list_cases(store_url)) == 2


# ------------------------------------------------------------------------------ reads


def test_reads_are_logged_and_listed(store_url: str) -> None:
    log_read(store_url, "alice", "game", "p-1002")
    log_read(store_url, "bob", "recall", "p-1001")
    log_read(store_url, "alice", "search", "p-1001")
    assert [(r.id, r.user, r.what) for r in list_reads(store_url, subject="p-1001")] == [(2, "bob", "recall"),
                                                                                       (3, "alice", "search")]
    assert [r.id for r in list_reads(store_url, user="alice")] == [1, 3]
    assert [r.id for r in list_reads(store_url, limit=2)] == [2, 3]
    code, out = run("users", "reads", "--store", store_url, "--player", "p-1001", "--format", "json")
    assert code == 0 and [r["user"] for r in json.loads(out)["reads"]] == ["bob", "alice"]


# ------------------------------------------------------------------------------ tamper evidence


def _desk_records(url: str) -> None:
    code, out = run("check", "--store", url, str(SAMPLES / "table.yaml"), "--quiet")
    assert code == 1, out
    open_case(url, "8812347", "p-1002", "alice", "asks 204")
    decide(url, 1, "owed_to_player", "160", "alice", "paytable")
    for who in ("alice", "bob", "carol"):
        log_read(url, who, "game", "p-1002")
    add_user(url, "alice", "floor", PASSWORD)


def test_verify_finds_a_case_event_edited_and_a_read_removed(store_url: str) -> None:
    _desk_records(store_url)
    code, out = run("store", "verify", store_url)
    assert code == 0 and "intact" in out, out
    _sql(store_url, "UPDATE case_events SET amount = '16' WHERE kind = 'decided'")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "case_event row 2 (case 1, decided) changed after it was recorded" in out, out
    _sql(store_url, "UPDATE case_events SET amount = '160' WHERE kind = 'decided'")
    _sql(store_url, "DELETE FROM reads WHERE id = 2")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "reads rows 2 to 2 are not in the store" in out, out
    _sql(store_url, "DELETE FROM reads WHERE id = 3")
    _sql(store_url, "DELETE FROM reads WHERE id = 1")
    code, out = run("store", "verify", store_url)  # every read removed: the chain's head still counts 3
    assert code == 1 and "the reads' chain does not reach its head" in out, out


def test_a_checkpoint_covers_cases_and_reads(store_url: str, tmp_path: Path) -> None:
    _desk_records(store_url)
    key = str(tmp_path / "desk.key")
    assert run("store", "keygen", key, "--name", "compliance.example/desk")[0] == 0
    checkpoint = tmp_path / "cp.txt"
    code, out = run("store", "checkpoint", store_url, "--key", key, "-o", str(checkpoint))
    assert code == 0, out
    text = checkpoint.read_text(encoding="utf-8")
    assert "\ncases 1 " in text and "\ncase_events 2 " in text and "\nreads 3 " in text
    assert "argon2" not in text
    log_read(store_url, "dave", "game", "p-1001")  # added since: no change
    verify = ("store", "verify", store_url, "--checkpoint", str(checkpoint), "--public-key", key + ".pub")
    assert run(*verify)[0] == 0
    # the whole log rewritten consistently (rows, digests and chain): only the checkpoint tells
    _sql(store_url, "DELETE FROM reads")
    _sql(store_url, "DELETE FROM chains WHERE name = 'reads'")
    _sql(store_url, "INSERT INTO chains (name, size, head) VALUES ('reads', 0, '')")
    code, out = run(*verify)
    assert code == 1 and "read 1 (alice read game p-1002), covered by the checkpoint, is not in the store" in out, out


def test_passwords_are_not_chained(store_url: str) -> None:
    _desk_records(store_url)
    names = {str(r[0]) for r in _rows(store_url, "SELECT name FROM chains")}
    assert {"cases", "case_events", "reads"} <= names and "users" not in names
    assert "users" not in CHAINED and "digest" not in schema.users.c


def test_a_store_of_0006_is_upgraded_to_keep_them(store_url: str) -> None:
    """A store of 0006 is refused by the desk until upgraded; migration 0008 adds the desk's
    tables and their chains' rows (verify intact), 0009 its sessions and indexes, and the
    desk's records are then kept."""
    from referee.store import migrate

    made = engine(target(store_url))
    with made.begin() as conn:
        conn.info["write"] = True
        migrate.upgrade(conn, "0006")
    made.dispose()
    code, out = run("check", "--store", store_url, str(SAMPLES / "table.yaml"), "--quiet")
    assert code == 2 and "run referee store upgrade" in out
    with pytest.raises(StoreError, match="older than this referee's"):
        open_case(store_url, "8812347", "p-1002", "alice")
    made = engine(target(store_url))
    with made.begin() as conn:
        conn.info["write"] = True
        migrate.upgrade(conn)
    made.dispose()
    _desk_records(store_url)
    code, out = run("store", "verify", store_url)
    assert code == 0 and "intact" in out, out


def test_an_engine_or_a_connection_the_caller_keeps(store_url: str) -> None:
    """``referee serve`` keeps an engine (and may lend a connection): the same records,
    each write committed before the function returns."""
    add_user(store_url, "alice", "floor", PASSWORD)  # the store made
    made = engine(target(store_url))
    try:
        assert authenticate(made, "alice", PASSWORD) is not None
        log_read(made, "alice", "game", "p-1002")
        with made.connect() as conn:
            case = open_case(conn, "8812347", "p-1002", "alice")
            log_read(conn, "alice", "case", "p-1002")
            assert not conn.in_transaction() and conn.info.get("write") is None
        assert [r.what for r in list_reads(store_url)] == ["game", "case"]
        assert get_case(made, case.id) == case
    finally:
        made.dispose()
