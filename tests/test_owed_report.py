"""``check --format json`` carries what is owed (issue 27): each round's and each seat's
bottom line, the same figures ``explain --format json`` gives for it, and what is owed
each way per session, per player (format 2) and over the run, so a script never sums
rounds itself. Amounts are exact: read back as Decimals they add up to the cent."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from .conftest import Write, run


def _exact(text: str) -> Any:
    """A JSON document with every number read as a Decimal (never through a float)."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def _report(path: Path | str) -> dict[str, Any]:
    code, out = run("check", "--format", "json", "--jobs", "1", "--no-progress", str(path))
    assert code in (0, 1), out
    doc: dict[str, Any] = _exact(out)
    return doc


def _simulated(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "log.yaml"
    code, text = run("simulate", "--sessions", "2", "--seed", "27", "--faults", "0.6", *args, "--output", str(out))
    assert code == 0, text
    return out


def _sums(owed: list[Decimal]) -> tuple[Decimal, Decimal]:
    """What is owed to the player and to the house, each summed on its own."""
    return sum((o for o in owed if o > 0), Decimal(0)), -sum((o for o in owed if o < 0), Decimal(0))


def _explained(*args: str) -> list[dict[str, Any]]:
    code, out = run("explain", *args, "--format", "json")
    assert code in (0, 1), out
    found: list[dict[str, Any]] = _exact(out)["explanations"]
    return found


def _checked(bottom: dict[str, Any]) -> Decimal:
    """A bottom line's owed, checked against its own figures."""
    owed: Decimal = bottom["owed"]
    assert isinstance(owed, Decimal)
    assert owed == (Decimal(0) if bottom["paid"] is None else bottom["rules"] - bottom["paid"])
    assert bottom["owed_to"] == (None if owed == 0 else "player" if owed > 0 else "house")
    return owed


@pytest.mark.parametrize(("profile", "bonus"), [("vivo", "0"), ("bonus-aa", "1")])
def test_each_rounds_owed_is_explains_and_the_ledger_sums_it(tmp_path: Path, profile: str, bonus: str) -> None:
    path = _simulated(tmp_path, "--rounds", "30", "--profile", profile, "--bonus", bonus)
    report = _report(path)
    everything: list[Decimal] = []
    for session in report["sessions"]:
        owed = []
        for r in session["rounds"]:
            bottom = r["bottom_line"]
            if bottom is None:
                assert r["settlement"] is None  # not ruled: nothing to owe
                continue
            owed.append(_checked(bottom))
            explained = _explained(str(path), "--round", str(r["round"]), "--session", session["id"])
            [same] = [e for e in explained if e["line"] == r["line"]]
            assert {k: v for k, v in same["bottom_line"].items() if k != "text"} == bottom
        ledger = session["ledger"]
        assert (ledger["owed_to_player"], ledger["owed_to_house"]) == _sums(owed)
        everything += owed
    assert any(everything), "the faults left nothing owed: the comparison proves nothing"
    summary = report["summary"]
    assert (summary["owed_to_player"], summary["owed_to_house"]) == _sums(everything)


def test_each_seats_owed_is_explains_and_each_player_and_the_table_sum_it(tmp_path: Path) -> None:
    path = _simulated(tmp_path, "--rounds", "12", "--seats", "2-5")
    report = _report(path)
    everything: list[Decimal] = []
    for session in report["sessions"]:
        by_player: dict[str, list[Decimal]] = {}
        owed = []
        for game in session["games"]:
            players = [seat["player_id"] for seat in game["seats"]]
            for seat in game["seats"]:
                bottom = seat["bottom_line"]
                if bottom is None:
                    continue
                due = _checked(bottom)
                owed.append(due)
                by_player.setdefault(seat["player_id"], []).append(due)
                if game["game"] is None or players.count(seat["player_id"]) > 1:
                    continue  # a player seated twice: not explained seat by seat
                explained = _explained(str(path), "--game", game["game"], "--player", seat["player_id"],
                                       "--session", session["id"])
                [same] = [e for e in explained if e["line"] == seat["line"]]
                assert {k: v for k, v in same["bottom_line"].items() if k != "text"} == bottom
        for player in session["players"]:
            ledger = player["ledger"]
            assert (ledger["owed_to_player"], ledger["owed_to_house"]) == _sums(by_player.get(player["player_id"], []))
        assert (session["ledger"]["owed_to_player"], session["ledger"]["owed_to_house"]) == _sums(owed)
        everything += owed
    assert any(everything)
    assert (report["summary"]["owed_to_player"], report["summary"]["owed_to_house"]) == _sums(everything)


def test_an_amount_owed_is_written_exactly(write: Write) -> None:
    """Cents stay cents: 0.30 given, 0.20 paid is 0.1 owed, never 0.09999999999999998."""
    path = write("cents.yaml", (
        "session:\n  id: t\n  profile: vivo\n  rounds_agreed: 2\n  opening_balance: 0\nrounds:\n"
        "  - round: 1\n    ante: 0.10\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
        "    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n    recorded: {net: 0.20}\n"
        "  - round: 2\n    ante: 0.10\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
        "    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n    recorded: {net: 0.45}\n"))
    code, out = run("check", "--format", "json", path)
    assert code == 1
    assert ('"bottom_line":{"paid":0.2,"recorded":0.2,"wallet":null,"rules":0.3,"owed":0.1,"owed_to":"player",'
            '"balance":null}') in out
    assert ('"bottom_line":{"paid":0.45,"recorded":0.45,"wallet":null,"rules":0.3,"owed":-0.15,"owed_to":"house",'
            '"balance":null}') in out
    ledger = _exact(out)["sessions"][0]["ledger"]
    assert (ledger["owed_to_player"], ledger["owed_to_house"]) == (Decimal("0.1"), Decimal("0.15"))


def test_a_round_nothing_says_was_paid_owes_nothing(write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """No recorded net, return or result: the payment is unknown (``paid`` null), not
    owed; both paths say so (the lane's template and the full audit)."""
    rounds = "".join(
        f"  - round: {n}\n    ante: 1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
        f"    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n" + ("    recorded: {net: 3}\n" if n % 2 else "")
        for n in range(1, 5))
    path = write("unpaid.yaml", f"session:\n  id: t\n  profile: vivo\n  rounds_agreed: 4\nrounds:\n{rounds}")
    outputs = []
    for mode in ("0", "1", "verify"):
        monkeypatch.setenv("REFEREE_FAST", mode)
        outputs.append(run("check", "--format", "json", path))
    assert outputs[0] == outputs[1] == outputs[2]
    bottoms = [r["bottom_line"] for r in json.loads(outputs[0][1])["sessions"][0]["rounds"]]
    assert [b["paid"] for b in bottoms] == [3, None, 3, None]
    assert {b["owed"] for b in bottoms} == {0}
