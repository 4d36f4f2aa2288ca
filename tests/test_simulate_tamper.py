"""``simulate --pay-short TABLE=AMOUNT`` and ``--rig-deal TABLE`` (issue 47): a short-paying
table and a rigged deal for trying ``referee monitor``, without editing a log by hand, each
said in the faults manifest."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .conftest import check_json, run
from .store_support import simulate


def _tables(path: Path) -> dict[str, list[str]]:
    """A JSON Lines log's lines by table (each session's header names its table)."""
    out: dict[str, list[str]] = {}
    table = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if "session" in data:
            table = data["session"]["table"]
        out.setdefault(table, []).append(line)
    return out


def test_a_short_paying_table_and_a_rigged_deal_are_what_the_manifest_says(tmp_path: Path) -> None:
    """T3 pays every winner 1 short, its record (net, the wager's result, the balances)
    and its wallet agreeing: ``check`` finds exactly the manifest's findings, seat by seat
    (a net, a wager's result and a credit each), and nothing else (no balance finding: the
    story is consistent). T2's rigged deals are consistent records: no finding, each rigged
    game in the manifest. T1 and T4 are the fair run's, line for line."""
    manifest = tmp_path / "m.json"
    common = ("--seats", "3-5", "--rounds", "120", "--sessions", "4", "--seed", "5", "--format", "jsonl")
    log = Path(simulate(tmp_path / "t.jsonl", *common, "--pay-short", "T3=1", "--rig-deal", "T2",
                        "--faults-manifest", str(manifest)))
    fair = Path(simulate(tmp_path / "f.jsonl", *common))
    injected: list[dict[str, Any]] = json.loads(manifest.read_text())
    assert {f["kind"] for f in injected} == {"pay_short", "rigged_deal"}
    code, report = check_json(str(log))
    assert code == 1
    found = Counter((f["game"], f["player"], f["code"]) for s in report["sessions"] for f in s["findings"])
    wanted = Counter((f["game"], f["player"], f["code"]) for f in injected if f["code"] is not None)
    assert found == wanted and found
    assert {code for _, _, code in found} == {"P001", "P002", "P004", "W002"}
    assert all(game.startswith("T3-") for game, _, _ in found)
    rigged = [f for f in injected if f["kind"] == "rigged_deal"]
    assert rigged and all(f["game"].startswith("T2-") and f["code"] is None and f["player"] is None for f in rigged)
    mine, theirs = _tables(log), _tables(fair)
    assert mine["T1"] == theirs["T1"] and mine["T4"] == theirs["T4"]
    assert mine["T2"] != theirs["T2"] and mine["T3"] != theirs["T3"]
    # every rigged game: a dealer's hand dealt again where the fair one did not qualify
    dealt = {json.loads(line)["game"]: json.loads(line)["dealer"] for line in theirs["T2"][1:]}
    again = {json.loads(line)["game"] for line in mine["T2"][1:] if json.loads(line)["dealer"] != dealt[
        json.loads(line)["game"]]}
    assert again == {f["game"] for f in rigged}


def test_a_short_paying_table_with_faults_is_still_what_the_manifest_says(tmp_path: Path) -> None:
    """With ``--faults`` beside ``--pay-short``: a game marked cancelled but paid (its own
    fault) has no winner to pay short; every other seat paid short is found as the manifest
    says, beside the faults."""
    manifest = tmp_path / "m.json"
    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "300", "--sessions", "2", "--seed", "3",
                   "--faults", "0.1", "--pay-short", "T1=1", "--faults-manifest", str(manifest), "--format", "jsonl")
    injected: list[dict[str, Any]] = json.loads(manifest.read_text())
    assert {"pay_short", "cancelled_paid"} <= {f["kind"] for f in injected}
    _, report = check_json(log)
    found = Counter((f["game"], f["player"], f["code"]) for s in report["sessions"] for f in s["findings"])
    assert found == Counter((f["game"], f["player"], f["code"]) for f in injected if f["code"] is not None)


@pytest.mark.parametrize(("args", "said"), [
    (("--pay-short", "T3=1"), "--pay-short needs --seats"),
    (("--seats", "3", "--pay-short", "T9=1"), "'T9': no such table is dealt (this run deals T1"),
    (("--seats", "3", "--sessions", "4", "--pay-short", "T3"), "expected TABLE=AMOUNT"),
    (("--seats", "3", "--pay-short", "T1=-1"), "an amount over 0"),
    (("--seats", "3", "--pay-short", "T1=0.005"), "not a multiple of the profile's stake increment 0.01"),
    (("--seats", "3", "--table", "Main", "--rig-deal", "T1"), "'T1': no such table is dealt (this run deals Main"),
    (("--seats", "3", "--export", "datafeed-csv", "--rig-deal", "T1"), "--rig-deal does not apply with --export"),
])
def test_tampering_options_refuse_what_they_cannot_do(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    code, out = run("simulate", "--rounds", "3", *args, "-o", str(tmp_path / "x.jsonl"))
    assert code == 2 and said in out, out
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.slow
def test_the_monitor_leads_a_short_paying_table_simulated_so(tmp_path: Path) -> None:
    """The issue's trial without a hand-edited log: four timed tables of 2,000 games,
    ``--pay-short T3=1``: the monitor alerts on the paid basis only, in one group led by
    ``table T3`` (its players and the stake band of its Ante-1 players under it)."""
    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "2000", "--sessions", "4", "--seed", "1",
                   "--start", "2026-12-01T18:00:00Z", "--pay-short", "T3=1")
    store = str(tmp_path / "s.db")
    code, out = run("check", "--store", store, log, "--quiet")
    assert code == 1, out
    code, out = run("monitor", "--store", store, "--no-cache", "--format", "json")
    assert code == 1, out
    groups = json.loads(out)["alert_groups"]
    assert [(g["lead"], g["basis"]) for g in groups] == [("table T3", "paid")], groups
    assert groups[0]["first_game"].startswith("T3-") and groups[0]["last_game"].startswith("T3-")
    assert all(s.startswith(("table T3", "player p-3-", "stake ")) for s in groups[0]["segments"])


@pytest.mark.slow
def test_the_table_behind_a_stake_bands_alert_leads_it_when_no_player_is_tested(tmp_path: Path) -> None:
    """Four tables of 1,500 games, each simulated apart (seeds 41 to 44), T3 paying every
    winner 1 short: no player has the 1,000 games a test needs, T3's own paid cell is inside a
    single test's level, and ``stake ante <= 1`` alerts. Taking T3's seats out leaves the band
    fair and taking out any other table does not: the table leads (a newcomer's trial found
    the stake band leading, its games spanning every table). The same tables played fair:
    no group."""
    for name, short in (("short", ("--pay-short", "T3=1")), ("fair", ())):
        (tmp_path / name).mkdir()
        logs = [simulate(tmp_path / name / f"t{t}.jsonl", "--seats", "3-5", "--rounds", "1500", "--seed", str(40 + t),
                         "--start", "2026-12-01T18:00:00Z", "--table", f"T{t}", *(short if t == 3 else ()))
                for t in range(1, 5)]
        store = str(tmp_path / f"{name}.db")
        assert run("check", "--store", store, "--profile", "vivo", *logs, "--quiet")[0] == (1 if short else 0)
        code, out = run("monitor", "--store", store, "--no-cache", "--format", "json")
        groups = json.loads(out)["alert_groups"]
        if not short:
            assert (code, groups) == (0, [])
            continue
        assert code == 1 and [(g["lead"], g["basis"]) for g in groups] == [("table T3", "paid")], groups
        assert groups[0]["first_game"].startswith("T3-") and groups[0]["last_game"].startswith("T3-")
        assert "stake ante <= 1" in groups[0]["segments"]


@pytest.mark.slow
def test_a_short_paying_table_leads_its_stake_bands_alert_alone_or_when_it_alerts(tmp_path: Path) -> None:
    """A risk analyst's trial: (1) one table of 1,200 games paying every winner 1 short,
    alone in its store: its stake band alerts (the last 1,000 games, all of them the table's)
    and its own cell does not; (2) beside two fair tables, a table paying 2 short alerts on
    its own cell, and the stake band alerts further out. Both were led by ``stake ante <= 1``
    (the table under it, or not named at all); the table leads, the stake band under it."""
    def table(name: str, seed: int, *short: str) -> str:
        return simulate(tmp_path / f"{name}.jsonl", "--seats", "2-3", "--rounds", "1200", "--seed", str(seed),
                        "--start", "2026-12-07T00:00:00Z", "--table", name, *short)

    stores = {"alone": [table("FLOOR-C", 3, "--pay-short", "FLOOR-C=1")],
              "beside": [table("FLOOR-A", 1), table("FLOOR-B", 2), table("FLOOR-D", 4, "--pay-short", "FLOOR-D=2")]}
    for name, logs in stores.items():
        store = str(tmp_path / f"{name}.db")
        assert run("check", "--store", store, *logs, "--quiet")[0] == 1
        code, out = run("monitor", "--store", store, "--no-cache", "--format", "json")
        groups = json.loads(out)["alert_groups"]
        short = "FLOOR-C" if name == "alone" else "FLOOR-D"
        assert code == 1 and [(g["lead"], g["basis"]) for g in groups] == [(f"table {short}", "paid")], groups
        assert "stake ante <= 1" in groups[0]["segments"]
        assert groups[0]["first_game"].startswith(short) and groups[0]["last_game"].startswith(short)
