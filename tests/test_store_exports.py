"""Providers' exports stored by ``check --mapping ... --store`` replay from the store as
from the files (issue 30): ``explain``, ``stats`` and ``report --store`` read the stored
export through the very mapping it was read through (kept in the store), built-in or a
file, after the file is gone or changed."""

from __future__ import annotations

import json
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from referee.cli import main
from referee.load.exports import builtin_names
from referee.store import migrate
from referee.store.engine import engine, target

from .conftest import SAMPLES, check_json, run
from .golden_cases import normalize
from .store_support import source_names

EXPORTS = SAMPLES / "exports"
SAMPLE = {"evolution-history": "evolution-history.json", "datafeed-csv": "datafeed.csv",
          "seamless-wallet": "seamless-wallet.jsonl"}


def _replays(store: str, mapping: str, export: str, game: str | None) -> None:
    """Every replaying command gives, from the store, what it gives from the files."""
    commands: list[tuple[str, ...]] = [("stats", "--no-decisions"), ("stats", "--no-decisions", "--format", "json")]
    if game is not None:
        commands += [("explain", "--game", game), ("explain", "--game", game, "--format", "json")]
    for command in commands:
        from_files = run(*command, "--profile", "vivo", "--mapping", mapping, export)
        # a wallet log alone is money only: stats has no round to describe (2), from both
        assert from_files[0] in ((0, 1) if game is not None else (2,)), from_files
        assert run(*command, "--store", store) == from_files, command
    code, page = run("report", "--lang", "en", "-o", "-", "--profile", "vivo", "--mapping", mapping, export)
    stored_code, stored_page = run("report", "--lang", "en", "-o", "-", "--store", store)
    assert stored_code == code and normalize(stored_page) == normalize(page)


@pytest.mark.parametrize("mapping", sorted(SAMPLE))
def test_each_builtin_mapping_replays_from_the_store(mapping: str, store_url: str) -> None:
    assert set(SAMPLE) <= set(builtin_names())  # the shipped samples: one a family (the wallet's presets read alike)
    export = str(EXPORTS / SAMPLE[mapping])
    code, out = run("check", "--profile", "vivo", "--mapping", mapping, export, "--store", store_url, "--quiet")
    assert code in (0, 1), out
    _replays(store_url, mapping, export, None if mapping == "seamless-wallet" else "T1-5-000003")


def test_a_mapping_file_is_kept_and_replays_after_it_changed(store_url: str, tmp_path: Path) -> None:
    """The store keeps the mapping's bytes: the file changed (or gone), the store still
    replays through the mapping the export was checked with."""
    mapping = tmp_path / "house-mapping.yaml"
    code, text = run("mappings", "evolution-history")
    assert code == 0
    mapping.write_text(text, encoding="utf-8")
    export = str(tmp_path / "page.json")
    shutil.copyfile(EXPORTS / SAMPLE["evolution-history"], export)
    before = run("explain", "--game", "T1-5-000003", "--profile", "vivo", "--mapping", str(mapping), export)
    code, out = run("check", "--profile", "vivo", "--mapping", str(mapping), export, "--store", store_url, "--quiet")
    assert code in (0, 1), out
    mapping.write_text(text.replace("CHE_Ante: ante", "CHE_Ante: bonus"), encoding="utf-8")
    Path(export).unlink()
    assert run("explain", "--store", store_url, "--game", "T1-5-000003") == before


def test_mapping_beside_store_is_a_usage_error(tmp_path: Path) -> None:
    code, out = run("stats", "--store", str(tmp_path / "a.db"), "--mapping", "evolution-history")
    assert code == 2 and "--mapping does not apply with --store" in out


# ------------------------------------------------------------------ exports checked with --wallet

#: Lines that make a joined wallet log say something at its own lines: a transaction id used
#: again (W004 at the seat), money for a player no export seats (W010), a line cut short
#: (H000) and an amount that is no amount (H008).
FAULT_LINES = (
    '{"action": "debit", "user": "p-9", "round": "T1-1-000003", "table": "T1", "transaction": "stray-1", '
    '"reference": null, "amount": "5.00", "balance": "1.00", "time": "2026-12-01T00:01:00.000Z", "currency": "EUR"}',
    '{"action": "debit", "user": "p-9", "round": ',
    '{"action": "debit", "user": "p-1-001", "round": "T1-1-000003", "table": "T1", "transaction": "odd", '
    '"reference": null, "amount": "1.5x", "balance": "1.00", "time": "2026-12-01T00:01:00.000Z", "currency": "EUR"}',
)


@dataclass(frozen=True)
class Table:
    """A simulated live table as a provider exports it: its history in two pages, its
    wallet log in two logs (the second with faults), each file's name under ``folder``."""

    folder: Path
    pages: tuple[str, str] = ("page-a.json", "page-b.json")
    wallets: tuple[str, str] = ("wallet-1.jsonl", "wallet-2.jsonl")

    def copy(self, to: Path) -> list[str]:
        """The four files copied into ``to`` (a test may remove them): pages, then logs."""
        for name in (*self.pages, *self.wallets):
            shutil.copyfile(self.folder / name, to / name)
        return [str(to / name) for name in (*self.pages, *self.wallets)]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    folder = tmp_path_factory.mktemp("table")
    page, log = folder / "page.json", folder / "wallet.jsonl"
    for shape, path in (("evolution-history", page), ("seamless-wallet", log)):
        code, out = run("simulate", "--seats", "1-5", "--rounds", "30", "--seed", "1", "--faults", "0.3",
                        "--export", shape, "-o", str(path))
        assert code == 0, out
    document = json.loads(page.read_text(encoding="utf-8"))
    games = document["data"][0]["games"]
    for name, part in zip(Table.pages, (games[:15], games[15:]), strict=True):
        document["data"][0]["games"] = part
        (folder / name).write_text(json.dumps(document, indent=1), encoding="utf-8")
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / Table.wallets[0]).write_text("".join(lines[:150]), encoding="utf-8")
    (folder / Table.wallets[1]).write_text("".join(lines[150:] + [lines[4]] + [x + "\n" for x in FAULT_LINES]),
                                           encoding="utf-8")
    return Table(folder)


def _joined(pages: list[str], logs: list[str]) -> list[str]:
    """The arguments of an export checked with its wallet logs."""
    return ["--profile", "vivo",
            "--mapping", "evolution-history", *pages, *(a for log in logs for a in ("--wallet", log))]


def _outputs(files: list[str] | None, store: str | None, seat: dict[str, Any]) -> list[tuple[int, str]]:
    """What explain (of ``seat``'s game), stats and report give, from the files with their
    wallet logs (explain: the page that holds the game) or from the store."""
    if files is not None:
        where, page = _joined(files[:2], files[2:]), _joined([seat["file"]], files[2:])
    else:
        assert store is not None
        where = page = ["--store", store]
    found = [run("explain", "--game", seat["game"], *page), run("explain", "--game", seat["game"], "--format",
                                                                 "json", *page)]
    found += [run("stats", "--no-decisions", *where), run("stats", "--no-decisions", "--format", "json", *where)]
    code, html = run("report", "--lang", "en", "-o", "-", *where)
    return [*found, (code, normalize(html))]


def _stored_options(url: str) -> list[dict[str, Any]]:
    from referee.store import codec

    made = engine(target(url))
    try:
        with made.connect() as conn:
            return [codec.loads(text) for text in conn.execute(sa.text("SELECT options FROM sources ORDER BY id"))
                    .scalars()]
    finally:
        made.dispose()


def _wallet_logs(url: str) -> list[tuple[Any, ...]]:
    """Each kept wallet log: its name, size, the id of the source it was kept with, and its pieces."""
    made = engine(target(url))
    try:
        with made.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(
                "SELECT name, size, source_id, (SELECT count(*) FROM wallet_chunks c WHERE c.wallet_id = w.id) "
                "FROM wallet_logs w ORDER BY id"))]
    finally:
        made.dispose()


def test_an_export_checked_with_its_wallet_logs_replays_from_the_store(store_url: str, tmp_path: Path,
                                                                       table: Table) -> None:
    """The contract of issue 30 for an export checked with --wallet: explain, stats and
    report from the store give what they give from the files, byte for byte, after the
    files are gone; the wallet logs' own findings are at their own names and lines."""
    files = table.copy(tmp_path)
    code, report = check_json(*_joined(files[:2], files[2:]))
    assert code == 1
    found = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    seat = next(f for f in found if f["code"] == "W001")
    at_log = {(f["code"], f["file"]) for f in found if f["file"] in files[2:]}
    assert {("W010", files[3]), ("H000", files[3]), ("H008", files[3])} <= at_log
    assert "W004" in {f["code"] for f in found}
    from_files = _outputs(files, None, seat)
    assert [c for c, _ in from_files] == [1, 1, 0, 0, 1]
    code, out = run("check", *_joined(files[:2], files[2:]), "--store", store_url, "--quiet")
    assert code == 1 and "W010" in out
    for name in files:
        Path(name).unlink()
    assert _outputs(None, store_url, seat) == from_files
    assert f"{files[3]}:" in from_files[-1][1]  # the report names the wallet log's own lines
    options = _stored_options(store_url)
    assert [[w["name"] for w in o["wallets"]] for o in options] == [files[2:], files[2:]]  # in order, each source
    assert all(o["wallet_mapping"]["name"] == "seamless-wallet" and o["wallet_mapping"]["builtin"] for o in options)
    assert [(name, source) for name, _, source, _ in _wallet_logs(store_url)] == [(files[2], 1), (files[3], 1)]
    code, out = run("store", "verify", store_url)
    assert code == 0 and "2 sources, 2 wallet logs" in out and "intact" in out
    code, out = run("store", "info", store_url)
    assert code == 0 and "2 wallet logs joined to exports (check --wallet), each kept once:" in out
    assert f"w2. {files[3]} ({Path(table.folder / table.wallets[1]).stat().st_size:,} bytes" in out


def test_a_wallet_log_joined_to_several_exports_and_runs_is_kept_once(store_url: str, tmp_path: Path,
                                                                      table: Table) -> None:
    """By its SHA-256: joined to another page in another run, or given under another name,
    the log is not kept again; consecutive sources with the same logs replay as one run,
    as the files checked together do."""
    page_a, page_b, log, _ = table.copy(tmp_path)
    for page in (page_a, page_b):
        code, out = run("check", *_joined([page], [log]), "--store", store_url, "--quiet")
        assert code == 1, out
    renamed = tmp_path / "copy-of-the-log.jsonl"
    shutil.copyfile(log, renamed)
    page_c = tmp_path / "page-c.json"
    page_c.write_text(Path(page_a).read_text(encoding="utf-8") + "\n", encoding="utf-8")
    code, out = run("check", *_joined([str(page_c)], [str(renamed)]), "--store", store_url, "--quiet")
    assert code == 1, out
    [(name, size, source, pieces)] = _wallet_logs(store_url)
    assert (name, size, source, pieces) == (log, Path(log).stat().st_size, 1, 1)
    assert [[w["name"] for w in o["wallets"]] for o in _stored_options(store_url)] == [[log], [log], [str(renamed)]]
    together = run("report", "--lang", "en", "-o", "-", *_joined([page_a, page_b], [log]))
    apart = run("report", "--lang", "en", "-o", "-", *_joined([str(page_c)], [str(renamed)]))
    assert together[0] == apart[0] == 1
    code, page = run("report", "--lang", "en", "-o", "-", "--store", store_url, page_a, page_b)
    assert (code, normalize(page)) == (1, normalize(together[1]))
    code, page = run("report", "--lang", "en", "-o", "-", "--store", store_url, str(page_c))
    assert (code, normalize(page)) == (1, normalize(apart[1]))


def test_the_wallet_bytes_go_with_the_first_source_that_is_stored(store_url: str, tmp_path: Path, table: Table,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """One transaction a source: the logs are kept in the first stored source's, so a
    source not stored takes them with it; when none is stored, neither are they."""
    from referee.store import chunks

    real = chunks.file_digest
    page_a, page_b, log, _ = table.copy(tmp_path)
    changed: set[str] = {page_a}
    monkeypatch.setattr(chunks, "file_digest", lambda s: "0" * 64 if str(s.path) in changed else real(s))
    code, _, err = both("check", *_joined([page_a, page_b], [log]), "--store", store_url, "--quiet")
    assert code == 1 and f"{page_a}: not stored: it changed while it was audited" in err and "1 source stored" in err
    assert [(n, s) for n, _, s, _ in _wallet_logs(store_url)] == [(log, 1)] and source_names(store_url) == [page_b]
    other = tmp_path / "other.db"
    changed.add(page_b)
    code, _, err = both("check", *_joined([page_a, page_b], [log]), "--store", str(other), "--quiet")
    assert code == 1 and "0 sources stored" in err
    assert _wallet_logs(str(other)) == [] and source_names(str(other)) == []


def test_a_wallet_log_that_changes_while_audited_keeps_its_exports_out(store_url: str, tmp_path: Path,
                                                                        table: Table,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.store import chunks

    page_a, _, log, _ = table.copy(tmp_path)
    real = chunks.file_digest
    monkeypatch.setattr(chunks, "file_digest", lambda s: "0" * 64 if str(s.path) == log else real(s))
    code, _, err = both("check", *_joined([page_a], [log]), "--store", store_url, "--quiet")
    assert code == 1 and f"{page_a}: not stored: its wallet log {log} changed while it was audited" in err
    assert source_names(store_url) == [] and _wallet_logs(store_url) == []
    monkeypatch.setattr(chunks, "file_digest", lambda s: None if str(s.path) == log else real(s))
    code, _, err = both("check", *_joined([page_a], [log]), "--store", store_url, "--quiet")
    assert code == 1 and f"{page_a}: not stored: its wallet log {log} cannot be read again to be kept" in err
    assert source_names(store_url) == [] and _wallet_logs(store_url) == []


def test_a_store_that_fails_while_keeping_a_wallet_log_keeps_nothing_of_the_source(
        store_url: str, tmp_path: Path, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.store import wallets

    page_a, page_b, log, _ = table.copy(tmp_path)
    assert run("check", *_joined([page_a], []), "--store", store_url, "--quiet")[0] == 1
    before = run("store", "verify", store_url)[1].split("chain head ")[1]

    def full(_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(wallets.KeptWallet, "finish", full)
    code, out, err = both("check", *_joined([page_b], [log]), "--store", store_url, "--quiet")
    assert code == 2 and err.startswith("referee: store ") and "cannot write: No space left on device" in err
    assert "Traceback" not in out + err and len(err.strip().splitlines()) == 1
    assert source_names(store_url) == [page_a] and _wallet_logs(store_url) == [] and _orphan_pieces(store_url) == 0
    code, out = run("store", "verify", store_url)
    assert code == 0 and out.split("chain head ")[1] == before
    monkeypatch.undo()
    assert run("check", *_joined([page_b], [log]), "--store", store_url, "--quiet")[0] == 1
    assert source_names(store_url) == [page_a, page_b] and [s for _, _, s, _ in _wallet_logs(store_url)] == [2]


def test_a_wallet_log_from_standard_input_is_kept_under_its_name(store_url: str, tmp_path: Path,
                                                                 table: Table) -> None:
    page_a, _, log, _ = table.copy(tmp_path)
    text = Path(log).read_text(encoding="utf-8")
    code, report = check_json(*_joined([page_a], ["-"]), input=text)
    assert code == 1
    game = next(f["game"] for s in report["sessions"] for f in s["findings"] if f["code"].startswith("W"))
    from_files = run("explain", "--game", game, *_joined([page_a], ["-"]), input=text)
    assert run("check", *_joined([page_a], ["-"]), "--store", store_url, "--quiet", input=text)[0] == 1
    assert [(n, s) for n, s, _, _ in _wallet_logs(store_url)] == [("-", len(text.encode()))]
    assert run("explain", "--game", game, "--store", store_url) == from_files


def test_a_wallet_log_alone_is_a_source_of_its_own(store_url: str, tmp_path: Path, table: Table) -> None:
    """A log checked alone (money only) is an audited source: its bytes in ``chunks``, its
    findings, its mapping; it replays (stats and report, as from the file) and holds no
    game to explain. Joined to an export later, it is kept again, as a wallet log."""
    page_a, _, log, faulty = table.copy(tmp_path)
    code, out = run("check", "--mapping", "seamless-wallet", faulty, "--store", store_url, "--quiet")
    assert code == 1 and "W" in out
    assert _wallet_logs(store_url) == [] and source_names(store_url) == [faulty]
    code, page = run("report", "--lang", "en", "-o", "-", "--mapping", "seamless-wallet", faulty)
    assert run("report", "--lang", "en", "-o", "-", "--store", store_url)[0] == code == 1
    assert normalize(run("report", "--lang", "en", "-o", "-", "--store", store_url)[1]) == normalize(page)
    code, out = run("explain", "--store", store_url, "--game", "T1-1-000001")
    assert code == 2 and "no game T1-1-000001" in out and "Traceback" not in out
    assert run("check", *_joined([page_a], [log, faulty]), "--store", store_url, "--quiet")[0] == 1
    assert [n for n, _, _, _ in _wallet_logs(store_url)] == [log, faulty]


def test_wallet_beside_store_is_a_usage_error(tmp_path: Path) -> None:
    for command in (("stats",), ("report", "-o", "-"), ("explain", "--game", "g1")):
        code, out = run(*command, "--store", str(tmp_path / "a.db"), "--wallet",
                        str(EXPORTS / SAMPLE["seamless-wallet"]))
        assert code == 2 and "--wallet does not apply with --store" in out, out


def test_an_export_stored_before_wallet_logs_were_kept_says_why_it_cannot_replay(store_url: str, tmp_path: Path,
                                                                                 table: Table) -> None:
    """A store of schema 0003 named an export's wallet logs and kept no bytes of them:
    upgraded, it verifies intact, recalls, and its replay is refused in one line."""
    page_a, _, log, _ = table.copy(tmp_path)
    assert run("check", *_joined([page_a], [log]), "--store", store_url, "--quiet")[0] == 1
    _as_schema_0003(store_url, [log])
    code, out = run("explain", "--store", store_url, "--game", "T1-1-000001")
    assert code == 2 and f"schema version 0003 is older than this referee's ({migrate.HEAD})" in out
    code, out = run("store", "upgrade", store_url)
    assert code == 0 and f"upgraded from schema version 0003 to {migrate.HEAD}" in out
    code, out = run("store", "verify", store_url)
    assert code == 0 and "intact" in out
    for command in (("explain", "--game", "T1-1-000001"), ("stats",), ("report", "-o", "-")):
        code, out, err = both(*command, "--store", store_url)
        assert code == 2 and "Traceback" not in out + err, (command, out, err)
        assert len(err.strip().splitlines()) == 1 and f"checked with --wallet {log} and stored before" in err, err
    code, out = run("recall", "--store", store_url, "--game", "T1-1-000001")
    assert code in (0, 1) and "T1-1-000001" in out


def test_a_password_is_never_printed_with_wallet_logs(tmp_path: Path, table: Table) -> None:
    from sqlalchemy.engine import make_url

    from .store_support import drop_database, new_database, postgres_admin

    admin = postgres_admin()
    secret = "s3cr3t-Wa11et"
    store = new_database(admin)
    page_a, _, log, _ = table.copy(tmp_path)
    try:
        url = make_url(store).set(password=secret).render_as_string(hide_password=False)
        said = [both("check", *_joined([page_a], [log]), "--store", url, "--quiet"),
                both("explain", "--store", url, "--game", "T1-1-000001"), both("store", "info", url)]
        _tamper(store, "UPDATE wallet_chunks SET data = :d", d=zlib.compress(b"{}\n"))
        said += [both("store", "verify", url), both("stats", "--store", url)]
        assert [code for code, _, _ in said] == [1, 1, 0, 1, 2], said
        assert all(secret not in out + err for _, out, err in said)
        assert "***" in said[-1][2] and "the bytes of wallet log" in said[-1][2]
    finally:
        drop_database(admin, store)


# ------------------------------------------------------------------------------------- helpers


def both(*args: str, input: str | None = None) -> tuple[int, str, str]:
    """Exit status, standard output and standard error, apart."""
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _orphan_pieces(url: str) -> int:
    made = engine(target(url))
    try:
        with made.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM wallet_chunks WHERE wallet_id NOT IN "
                                            "(SELECT id FROM wallet_logs)")).scalar_one())
    finally:
        made.dispose()


def _tamper(url: str, statement: str, **values: object) -> None:
    made = engine(target(url))
    try:
        with made.begin() as conn:
            conn.execute(sa.text(statement), values)
    finally:
        made.dispose()


def _as_schema_0003(url: str, names: list[str]) -> None:
    """The store as referee wrote it before schema 0004: the export's options name its
    wallet logs only (the source's digest and the chain made again over that, as then),
    no wallet tables, version 0003."""
    from alembic import command

    from referee.store import codec, digest, schema

    made = engine(target(url))
    try:
        with made.begin() as conn:
            command.downgrade(migrate._config(conn), "0004")  # what came after 0004 (runs of games) undone first
        with made.begin() as conn:
            s = schema.sources
            row = dict(conn.execute(sa.select(s).where(s.c.id == 1)).mappings().one())
            options = codec.loads(row["options"])
            del options["wallets"], options["wallet_mapping"]
            row["options"] = codec.dumps({**options, "wallet": names})
            row["digest"] = digest.of(tuple(row[c] for c in digest.columns("sources")))
            row["chain"] = digest.chained("", row["digest"])
            conn.execute(s.update().where(s.c.id == 1).values(options=row["options"], digest=row["digest"],
                                                               chain=row["chain"]))
            conn.execute(schema.store_meta.update().values(head=row["chain"]))
            conn.execute(sa.text("DROP TABLE wallet_chunks"))
            conn.execute(sa.text("DROP TABLE wallet_logs"))
            conn.execute(sa.text("UPDATE alembic_version SET version_num = '0003'"))
    finally:
        made.dispose()
