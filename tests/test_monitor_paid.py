"""The monitor's two bases (issue 47): the rules' nets and what the seats were paid, each
against the same exact expectation; the amounts owed in each cell, as ``check`` has them;
seats with no record of their pay left out of the paid basis and counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.monitor.facts import Seat
from referee.monitor.run import judge

from .conftest import run
from .store_support import simulate


def _pay(src: Path, dst: Path, short: str | None = None, silent: str | None = None) -> None:
    """A simulated log written again: on table ``short`` every winning seat paid 1 short,
    its record (net, the wager's result, the balances after it) and its wallet (the
    credit) telling one consistent story; on table ``silent`` no seat says what it was paid
    (no recorded figures, no wallet)."""
    out = []
    table: str | None = None
    owed: dict[str, int] = {}
    for line in src.read_text().splitlines():
        data: dict[str, Any] = json.loads(line)
        if "session" in data:
            table, owed = data["session"].get("table"), {}
        for seat in data.get("seats", ()):
            recorded, player = seat.get("recorded", {}), seat.get("player_id")
            if table == silent:
                seat.pop("recorded", None)
                seat.pop("wallet", None)
            elif table == short:
                if recorded.get("net", 0) > 0:
                    recorded["net"] -= 1
                    recorded["call" if recorded.get("call") else "ante"] -= 1
                    next(m for m in reversed(seat["wallet"]) if m["kind"] == "credit")["amount"] -= 1
                    owed[player] = owed.get(player, 0) + 1
                if "balance" in recorded:
                    recorded["balance"] -= owed.get(player, 0)
        out.append(json.dumps(data))
    dst.write_text("\n".join(out) + "\n")


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Four simulated live tables (1,100 games each, 3 to 5 seats a game, wallets), stored
    three ways: as dealt (fair), with T3 paying every winning seat 1 short, and with T4
    saying nothing of what it paid."""
    where = tmp_path_factory.mktemp("paid")
    log = Path(simulate(where / "four.jsonl", "--seats", "3-5", "--rounds", "1100", "--sessions", "4", "--seed",
                        "7", "--format", "jsonl"))
    _pay(log, where / "short.jsonl", short="T3")
    _pay(log, where / "silent.jsonl", silent="T4")
    out = {}
    for name, path, expected in (("fair", log, 0), ("short", where / "short.jsonl", 1),
                                 ("silent", where / "silent.jsonl", 0)):
        url = str(where / f"{name}.db")
        code, said = run("check", "--store", url, str(path), "--quiet")
        assert code == expected, said
        out[name] = url
        out[f"{name}.log"] = str(path)
    return out


def _monitor(url: str, *args: str) -> tuple[int, dict[str, Any]]:
    code, out = run("monitor", "--store", url, "--format", "json", "--segment", "all", "--segment", "table",
                    "--segment", "stake", "--no-cache", *args)
    return code, json.loads(out[:out.rindex("}") + 1])


def _rules_figures(doc: dict[str, Any]) -> list[tuple[object, ...]]:
    """The rules basis's cells as they were before the paid basis (its figures and verdicts)."""
    keep = ("segment", "value", "bet", "window", "games", "seats", "staked", "observed_rtp", "expected_rtp", "z", "p",
            "alert")
    return [tuple(c[k] for k in keep) for c in doc["cells"] if c["basis"] == "rules"]


@pytest.mark.slow
def test_a_table_paying_every_winner_short_alerts_on_the_paid_basis(stores: dict[str, str]) -> None:
    code, fair = _monitor(stores["fair"])
    assert code == 0 and fair["alerts"] == 0 and fair["paid_unknown"] == 0
    paid = [c for c in fair["cells"] if c["basis"] == "paid"]
    # paid as the rules say: each paid cell is its rules cell's test (the same sums), not one more
    assert paid and all(c["same_as"] is not None or c["not_tested"] for c in paid)
    assert all(c["owed_to_player"] == c["owed_to_house"] == "0" for c in fair["cells"] if c["bet"] == "ante+call")
    code, short = _monitor(stores["short"])
    assert code == 1
    alerts = [c for c in short["cells"] if c["alert"] and c["same_as"] is None]
    assert ("table", "T3", "paid") in {(c["segment"], c["value"], c["basis"]) for c in alerts}
    assert all(c["basis"] == "paid" for c in alerts), alerts  # the deal and the rules' nets are fair
    t3 = next(c for c in alerts if c["value"] == "T3")
    assert t3["z"] < -4 and t3["observed_rtp"] < t3["expected_rtp"] and t3["bet"] == "ante+call"
    # the rules basis behaves as before: the same figures, the same verdicts as the fair store's
    assert _rules_figures(short) == _rules_figures(fair)
    code, text = run("monitor", "--store", stores["short"], "--segment", "table", "--no-cache")
    assert code == 1 and "table T3, Ante+Call paid, " in text and "owed 1,912.00 to players" in text, text


@pytest.mark.slow
def test_the_owed_amounts_are_checks(stores: dict[str, str]) -> None:
    """Each cell's owed amounts are what ``check`` calls owed: over T3's every game, its
    session's ``owed_to_player`` in check's JSON."""
    code, out = run("check", stores["short.log"], "--format", "json")
    assert code == 1
    ledger = next(s["ledger"] for s in json.loads(out)["sessions"] if s["table"] == "T3")
    _, doc = _monitor(stores["short"])
    for basis in ("rules", "paid"):
        cell = next(c for c in doc["cells"] if (c["segment"], c["value"], c["window"], c["basis"], c["bet"]) == (
            "table", "T3", "last 10,000 games", basis, "ante+call"))
        assert cell["games"] == ledger["counted_games"] and cell["seats"] == ledger["counted_seats"]
        assert (cell["owed_to_player"], cell["owed_to_house"]) == (str(ledger["owed_to_player"]), "0")
        assert ledger["owed_to_player"] > 1000
    bonus = [c for c in doc["cells"] if c["bet"] == "bonus"]
    assert all(c["owed_to_player"] is None for c in bonus)


@pytest.mark.slow
def test_seats_with_no_record_of_their_pay_are_left_out_and_counted(stores: dict[str, str]) -> None:
    code, doc = _monitor(stores["silent"])
    assert code == 0
    t4 = next(c for c in doc["cells"] if (c["segment"], c["value"], c["window"], c["basis"]) == (
        "table", "T4", "last 10,000 games", "rules"))
    # T4's seats (kept in runs of clean games) never said what they were paid: none is assumed paid
    assert doc["paid_unknown"] == t4["seats"] == t4["paid_unknown"] > 4000
    assert not any(c["value"] == "T4" and c["basis"] == "paid" for c in doc["cells"])
    everything = next(c for c in doc["cells"] if (c["segment"], c["window"], c["basis"]) == (
        "all", "last 10,000 games", "paid"))
    assert everything["paid_unknown"] == t4["seats"] and everything["same_as"] is None
    code, text = run("monitor", "--store", stores["silent"], "--segment", "all", "--no-cache")
    assert f"{t4['seats']:,} seats with no record of what they were paid, left out" in text
    # What is owed is said over the seats that say their pay, never as a total of all.
    assert "owed over the last 10,000 games, by the seats that say what they were paid: " in text
    assert "(the seats left out are not in it: check --store states what each is owed)" in text
    _, fair = run("monitor", "--store", stores["fair"], "--segment", "all", "--no-cache")
    assert "owed over the last 10,000 games: 0.00 to players" in fair and "left out are not in it" not in fair


def _seat(i: int, net_u: int, paid_u: int | None) -> Seat:
    return Seat(order=i, game=("game", i), time_us=None, table="T1", dealer=None, profile="builtin:vivo",
                player="p", ante_u=1_000_000, staked_u=1_000_000, net_u=net_u, bonus_u=0, called=False,
                known=None, paid_u=paid_u)


def test_a_fold_paid_short_is_owed_to_the_player_and_a_seat_that_says_nothing_is_left_out() -> None:
    """Folds are certain (their expectation is the fold line): a fold the wallet took 2 for
    is 1 owed to the player, in both bases' cells; a seat that says nothing of its pay is
    counted, and left out of the paid one."""
    seats = [_seat(i, -1_000_000, -2_000_000 if i % 2 else (None if i % 3 == 0 else -1_000_000))
             for i in range(1, 1_201)]
    verdict = judge(seats, kinds=("all",))
    rules = next(j.cell for j in verdict.cells if j.cell.basis == "rules" and j.cell.window == "last 10,000 games")
    paid = next(j.cell for j in verdict.cells if j.cell.basis == "paid" and j.cell.window == "last 10,000 games")
    assert verdict.paid_unknown == rules.paid_unknown == paid.paid_unknown == 200
    assert paid.seats == rules.seats - 200 == 1_000
    assert rules.owed_player == paid.owed_player == 600 and rules.owed_house == 0
    assert rules.observed_rtp == rules.expected_rtp == 0
    assert paid.observed_rtp is not None and paid.observed_rtp < 0  # each short one paid -1 of a stake of 1


@pytest.mark.slow
def test_a_paid_alert_is_recorded_with_the_paid_cells_inputs(stores: dict[str, str], tmp_path: Path) -> None:
    import shutil

    import sqlalchemy as sa

    from referee.store import schema
    from referee.store.engine import engine, target

    url = str(tmp_path / "short.db")
    shutil.copy(stores["short"], url)
    code, out = run("monitor", "--store", url, "--segment", "table", "--record")
    assert code == 1 and "alerts recorded" in out, out
    made = engine(target(url))
    with made.connect() as conn:
        rows = conn.execute(sa.select(schema.alerts)).mappings().all()
    made.dispose()
    kept = [r for r in rows if (r["value"], r["window"]) == ("T3", "last 1,000 games")]
    assert [r["test"] for r in kept] == ["paid rtp"] and kept[0]["bet"] == "ante+call"
    figures = json.loads(kept[0]["figures"])
    assert figures["basis"] == "paid" and figures["alert"] is True and figures["owed_to_player"] != "0"
    code, out = run("monitor", "--store", url, "--segment", "table", "--record")
    assert code == 1 and "0 alerts recorded" in out  # the same inputs: kept once
