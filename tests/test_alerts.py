"""Alert operations (issue 47): alert groups kept by ``monitor --record`` (schema 0007),
``referee alerts list|show|ack|resolve``, and their chain under ``store verify`` and
signed checkpoints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from referee.alerts import kept
from referee.monitor.groups import AlertGroup, GroupedAlert
from referee.store import schema
from referee.store.engine import engine, target
from referee.store.read import Stored

from .conftest import SAMPLES, run

T3 = AlertGroup(lead="table T3", basis="paid", segments=("table T3", "player p-3-004", "all all"), z=-7.25,
                bet="ante+call", window="last 10,000 games", first_game="T3-1-000001", last_game="T3-1-002200")
DEALER = AlertGroup(lead="dealer d-2", basis="rules", segments=("dealer d-2",), z=4.1, bet="deal",
                    window="last 1,000 games", first_game="T1-1-000010", last_game="T1-1-001010",
                    since="2026-12-01T10:00:00Z", until="2026-12-02T09:00:00Z")
MILD = AlertGroup(lead="stake ante 1-5", basis="rules", segments=("stake ante 1-5",), z=-3.9, bet="ante+call",
                  window="week")


def _sql(url: str, *statements: str) -> None:
    made = engine(target(url))
    with made.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    made.dispose()


def _with_groups(url: str, *groups: AlertGroup) -> list[int]:
    """A store of one sample with ``groups`` kept as ``monitor --record`` keeps them: their ids."""
    code, out = run("check", "--store", url, str(SAMPLES / "table.yaml"), "--quiet")
    assert code in (0, 1), out
    made = engine(target(url))
    with made.connect() as conn:
        conn.info["write"] = True
        with conn.begin():
            kept.lock(conn)
            ids = [i for i, _ in kept.record_groups(conn, list(groups), [], "99% family band")]
    made.dispose()
    return ids


def test_groups_are_listed_open_first_and_most_severe_first(store_url: str) -> None:
    ids = _with_groups(store_url, MILD, T3, DEALER)
    assert ids == [1, 2, 3]  # kept most severe first
    code, out = run("alerts", "ack", "1", "--store", store_url, "--by", "alice", "--note", "looking at T3")
    assert code == 0 and "alert group 1 acknowledged by alice" in out, out
    code, out = run("alerts", "list", "--store", store_url)
    assert code == 1, out  # two groups nobody has taken
    lines = [line.split()[:2] for line in out.splitlines()[3:6]]
    assert lines == [["2", "open"], ["3", "open"], ["1", "acknowledged"]], out
    assert "3 groups, 2 open (not acknowledged)" in out
    code, out = run("alerts", "list", "--store", store_url, "--format", "json", "--state", "acknowledged")
    doc = json.loads(out)
    assert code == 0 and doc["open"] == 0 and [g["id"] for g in doc["groups"]] == [1]
    group = doc["groups"][0]
    assert group["lead"] == "table T3" and group["basis"] == "paid" and group["z"] == -7.25
    assert group["segments"] == ["table T3", "player p-3-004", "all all"] and group["state"] == "acknowledged"
    assert group["first_game"] == "T3-1-000001" and group["last_game"] == "T3-1-002200" and "since" not in group
    for n in (2, 3):
        assert run("alerts", "resolve", str(n), "--store", store_url, "--by", "bob")[0] == 0
    code, out = run("alerts", "list", "--store", store_url, "--unresolved")
    assert code == 0 and "table T3" in out and "dealer d-2" not in out, out  # nothing waits for anyone
    code, out = run("alerts", "list", "--store", store_url, "--open")
    assert code == 0 and "table T3" not in out and ": none" in out, out  # open: nobody has it, as the footer says
    code, out = run("alerts", "list", "--store", store_url, "--lead", "dealer d-2", "--format", "json")
    assert code == 0 and [g["state"] for g in json.loads(out)["groups"]] == ["resolved"]
    code, out = run("alerts", "list", "--store", store_url, "--lead", "T3")  # a value alone: named whole
    assert code == 0 and "--lead names a segment whole: did you mean 'table T3'?" in out, out


def test_show_names_the_segments_the_games_and_what_was_done(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    _with_groups(store_url, DEALER)
    monkeypatch.setattr(getpass, "getuser", lambda: "carol")
    assert run("alerts", "ack", "1", "--store", store_url)[0] == 0  # who: the OS user
    assert run("alerts", "resolve", "1", "--store", store_url, "--by", "dave", "--note", "dealer retrained")[0] == 0
    code, out = run("alerts", "show", "1", "--store", store_url)
    assert code == 0, out
    assert "alert group 1 of store" in out and ": resolved" in out
    assert "dealer d-2 (rules basis, z +4.10), deal, last 1,000 games" in out
    assert "T1-1-000010 to T1-1-001010 (2026-12-01T10:00:00Z to 2026-12-02T09:00:00Z)" in out
    assert "acknowledged" in out and "by carol" in out and "by dave: dealer retrained" in out
    code, out = run("alerts", "show", "1", "--store", store_url, "--format", "json")
    doc = json.loads(out)
    assert [(a["action"], a["by"], a["note"]) for a in doc["actions"]] == [("ack", "carol", ""),
                                                                             ("resolve", "dave", "dealer retrained")]
    assert doc["since"] == "2026-12-01T10:00:00Z" and doc["notifications"] == []


def test_a_kept_group_reads_back_with_the_figures_the_run_gave(store_url: str) -> None:
    """A group read back (list, show, JSON) says the lead test, p, games and alerts the
    monitor gave it, not zeros: they have no column of their own but are in its figures."""
    short = AlertGroup(lead="table T3", basis="paid", segments=("table T3", "player p-3-004"), z=-4.5,
                       bet="ante+call", window="last 1,000 games", first_game="T3-1-000001",
                       last_game="T3-1-001000", test="rtp", p=0.000113, games=1000,
                       alerts=(GroupedAlert("table T3", "ante+call", "rtp", "last 1,000 games", "paid", -4.5, 0.000113),
                               GroupedAlert("player p-3-004", "ante+call", "rtp", "week", "paid", -3.9, 0.0011)))
    _with_groups(store_url, short)
    code, out = run("alerts", "show", "1", "--store", store_url, "--format", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert (doc["games"], doc["p"], doc["test"]) == (1000, 0.000113, "rtp")
    assert doc["alerts"] == [a.to_json() for a in short.alerts]
    code, out = run("alerts", "list", "--store", store_url, "--format", "json")
    listed = json.loads(out)["groups"][0]
    assert (listed["games"], listed["p"], len(listed["alerts"])) == (1000, 0.000113, 2)
    with Stored(store_url) as stored, stored.reading():
        (group,) = kept.groups(stored.conn)
    assert group.group == short  # every reader (the desk too) reads the group as recorded


def test_a_second_acknowledgement_is_refused_unless_forced(tmp_path: Path) -> None:
    """Acknowledging a group someone acknowledged already would leave two people each
    thinking it is theirs: refused (exit 2) naming who has it, unless ``--force``, which
    keeps both and says so. ``--open`` lists the groups the footer and the JSON count as
    open (nobody has them), ``--unresolved`` those acknowledged too."""
    url = str(tmp_path / "a.db")
    _with_groups(url, T3, DEALER)
    assert run("alerts", "ack", "1", "--store", url, "--by", "alice", "--note", "on it")[0] == 0
    code, out = run("alerts", "ack", "1", "--store", url, "--by", "bob")
    assert code == 2 and "alert group 1 is acknowledged already, by alice at " in out, out
    assert f"referee alerts ack 1 --store {url} --force" in out  # the command to run, whole
    code, out = run("alerts", "show", "1", "--store", url, "--format", "json")
    assert [a["by"] for a in json.loads(out)["actions"]] == ["alice"]  # nothing written
    code, out = run("alerts", "ack", "1", "--store", url, "--by", "bob", "--force", "--note", "me too")
    assert code == 0 and "alert group 1 acknowledged by bob (also by alice at " in out, out
    code, out = run("alerts", "show", "1", "--store", url, "--format", "json")
    assert [(a["by"], a["note"]) for a in json.loads(out)["actions"]] == [("alice", "on it"), ("bob", "me too")]
    code, out = run("alerts", "list", "--store", url, "--open", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and [g["id"] for g in doc["groups"]] == [2] and doc["open"] == 1
    code, out = run("alerts", "list", "--store", url, "--unresolved")
    assert code == 1 and "2 groups, 1 open (not acknowledged)" in out, out


def test_usage_and_missing_groups_are_exit_2(tmp_path: Path) -> None:
    url = str(tmp_path / "a.db")
    _with_groups(url, T3)
    code, out = run("alerts", "show", "9", "--store", url)
    assert code == 2 and "no alert group 9" in out, out
    code, out = run("alerts", "ack", "9", "--store", url, "--by", "x")
    assert code == 2 and "no alert group 9" in out, out
    assert run("alerts", "resolve", "1", "--store", url, "--by", "x")[0] == 0
    code, out = run("alerts", "resolve", "1", "--store", url, "--by", "x")
    assert code == 2 and "alert group 1 is resolved already" in out, out
    code, out = run("alerts", "ack", "1", "--store", url, "--by", " ")
    assert code == 2 and "--by" in out
    code, out = run("alerts", "list", "--store", str(tmp_path / "none.db"))
    assert code == 2 and "none.db: no such file" in out
    code, out = run("alerts", "show", "0", "--store", url)
    assert code == 2
    _sql(url, "UPDATE alert_groups SET \"window\" = 'day\x1b[2J' WHERE id = 1")  # as a hostile writer could
    code, out = run("alerts", "list", "--store", url)
    assert "\x1b" not in out and "day\\x1b[2J" in out, out
    code, out = run("alerts", "show", "1", "--store", url)
    assert "\x1b" not in out and "day\\x1b[2J" in out, out
    code, out = run("alerts", "list", "--store", url)
    assert code == 0 and "table T3" in out  # resolved: nothing open


def test_an_acknowledgement_edited_or_deleted_is_caught_by_verify(store_url: str, tmp_path: Path) -> None:
    _with_groups(store_url, T3, DEALER)
    assert run("alerts", "ack", "1", "--store", store_url, "--by", "alice", "--note", "on it")[0] == 0
    assert run("alerts", "resolve", "2", "--store", store_url, "--by", "bob", "--note", "false lead")[0] == 0
    code, out = run("store", "verify", store_url)
    assert code == 0 and ": intact;" in out, out
    key = str(tmp_path / "k.key")
    assert run("store", "keygen", key)[0] == 0
    checkpoint = str(tmp_path / "cp.txt")
    code, out = run("store", "checkpoint", store_url, "--key", key, "-o", checkpoint)
    assert code == 0 and "2 alert groups, 2 alert actions signed by k" in out, out
    text = Path(checkpoint).read_text(encoding="utf-8")
    assert "\nalert_groups 2 " in text and "\nalert_actions 2 " in text and "\nalert_action 1 " in text
    # an edited note
    _sql(store_url, "UPDATE alert_actions SET note = 'nothing wrong' WHERE id = 2")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "alert_action row 2 (resolve of alert group 2 by bob) changed after it was recorded" in out
    _sql(store_url, "UPDATE alert_actions SET note = 'false lead' WHERE id = 2")
    assert run("store", "verify", store_url)[0] == 0
    # the acknowledgement deleted: its id is a gap
    _sql(store_url, "DELETE FROM alert_actions WHERE id = 1")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "alert_actions rows 1 to 1 are not in the store (removed after they were recorded)" in out
    # the last action deleted and the chain set back: verify alone cannot tell, the checkpoint does
    _sql(store_url, "DELETE FROM alert_actions")
    _sql(store_url, "UPDATE chains SET size = 0, head = '' WHERE name = 'alert_actions'")
    code, out = run("store", "verify", store_url)
    assert code == 0 and ": intact;" in out, out
    code, out = run("store", "verify", store_url, "--checkpoint", checkpoint, "--public-key", f"{key}.pub")
    assert code == 1 and "alert_action 1 (ack of alert group 1 by alice), covered by the checkpoint, is not in the " \
        "store any more: 2 of the 2 alert actions it covered removed" in out, out
    # a group's lead rewritten
    _sql(store_url, "UPDATE alert_groups SET lead = 'table T9' WHERE id = 1")
    code, out = run("store", "verify", store_url)
    assert code == 1 and "alert_group row 1 (table T9, paid basis) changed after it was recorded" in out, out


def test_a_checkpoint_taken_before_schema_0007_still_reads(tmp_path: Path) -> None:
    """A checkpoint has a line a chain; one taken before the alert groups' chains has none
    of theirs, and still holds."""
    from referee.store.checkpoint import make, read
    from referee.store.keys import keygen, read_verifier
    from referee.store.read import Stored
    from referee.store.verify import verify

    url = str(tmp_path / "a.db")
    assert run("check", "--store", url, str(SAMPLES / "table.yaml"), "--quiet")[0] in (0, 1)
    key = keygen(str(tmp_path / "k.key"), "k")
    with Stored(url) as stored:
        found = verify(stored)
    text = make(found, url, key)
    note, _, rest = text.partition("\n\n")
    old = "\n".join(line for line in note.splitlines() if not line.startswith("alert_"))  # as 0006 wrote it
    resigned = f"{old}\n\n{key.sign(old + chr(10))}\n\n{rest.partition(chr(10) * 2)[2]}"
    (tmp_path / "old.txt").write_text(resigned, encoding="utf-8")
    taken = read(str(tmp_path / "old.txt"), read_verifier(str(tmp_path / "k.key.pub")))
    assert len(taken.entries["sources"]) == 1 and taken.entries["alert_groups"] == []


def test_the_store_upgrade_to_0007_chains_the_new_tables(tmp_path: Path) -> None:
    from referee.store import migrate

    url = str(tmp_path / "audit.db")
    made = engine(target(url))
    with made.begin() as conn:
        conn.info["write"] = True
        migrate.upgrade(conn, "0006")
    made.dispose()
    code, out = run("store", "upgrade", url)
    assert code == 0 and f"upgraded from schema version 0006 to {migrate.HEAD} (migrations 0007" in out, out
    code, out = run("alerts", "list", "--store", url)
    assert code == 0 and "none" in out
    made = engine(target(url))
    with made.connect() as conn:
        rows = conn.execute(sa.select(schema.chains.c.name, schema.chains.c.size).order_by(schema.chains.c.name))
        assert dict(rows.all()) == {"alerts": 0, "alert_groups": 0, "alert_actions": 0, "alert_notifications": 0,
                                    "cases": 0, "case_events": 0, "reads": 0}  # and 0008's, upgraded on
    made.dispose()


@pytest.mark.slow
def test_monitor_record_keeps_the_runs_groups_once_with_their_alerts(store_url: str, tmp_path: Path) -> None:
    """The monitor's own grouping, kept: each group once (a second run over the same store
    adds none), with the ids of the alerts it stands for."""
    from .test_monitor import _short_paid, _store

    _store(store_url, tmp_path)
    _short_paid(store_url)
    args = ("monitor", "--store", store_url, "--segment", "all", "--segment", "table", "--record", "--format", "json")
    code, out = run(*args)
    assert code == 1, out
    groups = json.loads(out[:out.rindex("}") + 1])["alert_groups"]
    assert groups and f"{len(groups)} new alert group{'s' * (len(groups) != 1)}" in out, out
    code, again = run(*args)
    assert code == 1 and "0 alerts recorded, 0 new alert groups" in again, again
    code, listed = run("alerts", "list", "--store", store_url, "--format", "json")
    assert code == 1
    kept_groups = json.loads(listed)["groups"]
    assert [g["lead"] for g in kept_groups] == [g["lead"] for g in groups]
    made = engine(target(store_url))
    with made.connect() as conn:
        alerts = {r.id: f"{r.segment} {r.value}" for r in conn.execute(sa.select(schema.alerts))}
    made.dispose()
    for group in kept_groups:
        assert group["alert_ids"] and all(alerts[i] in group["segments"] for i in group["alert_ids"])
    assert sorted(i for g in kept_groups for i in g["alert_ids"]) == sorted(alerts)  # every alert in one group
